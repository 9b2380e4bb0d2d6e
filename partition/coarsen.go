package partition

import (
	"cmp"
	"math"
	"slices"
)

const (
	// coarsenFraction: coarsening stops when a level keeps more than this
	// fraction of its finer level's vertices (METIS's COARSEN_FRACTION).
	coarsenFraction = 0.85
	// unmatchedFor2Hop: 2-hop matching starts when more than this fraction
	// of the vertices found no partner (METIS's UNMATCHEDFOR2HOP).
	unmatchedFor2Hop = 0.10
)

// coarsen returns the multilevel hierarchy g = levels[0], levels[1], ... of
// successively contracted graphs, stopping once a level has at most
// coarsenTo vertices, shrank by less than 15%, or has fewer than half as
// many adjacency entries as vertices. Graphs already small enough are not
// coarsened at all. Each level's cmap leads to the next.
func coarsen(g *wgraph, coarsenTo int, r *rng) []*wgraph {
	levels := []*wgraph{g}
	if g.n <= coarsenTo {
		return levels
	}
	// A coarse vertex may weigh at most 1.5 times the average weight of a
	// coarsest-level vertex, so that the coarsest graph can still be split
	// evenly. With no vertex weight at all, the structure alone decides.
	maxvw := 1.5 * float64(g.tvw) / float64(coarsenTo)
	if g.tvw == 0 {
		maxvw = math.Inf(1)
	}
	for cur := g; ; {
		c := contract(cur, matching(cur, maxvw, r))
		levels = append(levels, c)
		if c.n <= coarsenTo || float64(c.n) >= coarsenFraction*float64(cur.n) || len(c.adj) < c.n/2 {
			return levels
		}
		cur = c
	}
}

// matching computes a heavy-edge matching of g: match[v] is v's partner, or
// v itself. Vertices are visited in a lightly shuffled order sorted by
// (capped) degree, so that low-degree vertices, which have few choices, pick
// first; each takes the unmatched neighbour joined by the heaviest edge whose
// combined weight stays within maxvw. Isolated vertices pair up with each
// other, and when many vertices are left single, 2-hop matching pairs some
// of them.
func matching(g *wgraph, maxvw float64, r *rng) []int32 {
	n := g.n
	match := make([]int32, n)
	for i := range match {
		match[i] = -1
	}
	perm := degreeOrder(g, r)
	// Isolated vertices pair up with each other, in visiting order. METIS
	// pairs them with any vertex, but kept apart they stay free to move at
	// every level: cut-free filler that balances parts, which matters for
	// graphs with many components, as value-flow graphs have.
	prev := int32(-1)
	for _, v := range perm {
		if g.xadj[v] != g.xadj[v+1] {
			continue
		}
		switch {
		case prev >= 0 && float64(g.vw[prev]+g.vw[v]) <= maxvw:
			match[v], match[prev] = prev, v
			prev = -1
		case float64(g.vw[v]) < maxvw:
			prev = v
		}
	}
	unmatched := 0
	for _, v := range perm {
		if match[v] >= 0 || g.xadj[v] == g.xadj[v+1] {
			continue
		}
		best := v
		if float64(g.vw[v]) < maxvw {
			maxw := int64(-1)
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				u := g.adj[p]
				if match[u] < 0 && g.ew(p) > maxw && float64(g.vw[v]+g.vw[u]) <= maxvw {
					best, maxw = u, g.ew(p)
				}
			}
			if best == v && 2*float64(g.vw[v]) < maxvw {
				unmatched++ // a candidate for 2-hop matching
				continue
			}
		}
		match[v], match[best] = best, v
	}
	if float64(unmatched) > unmatchedFor2Hop*float64(n) {
		unmatched = match2HopAny(g, perm, match, unmatched, 2)
		unmatched = match2HopAll(g, perm, match, unmatched, 64)
		if float64(unmatched) > 1.5*unmatchedFor2Hop*float64(n) {
			unmatched = match2HopAny(g, perm, match, unmatched, 3)
		}
		if float64(unmatched) > 2*unmatchedFor2Hop*float64(n) {
			match2HopAny(g, perm, match, unmatched, n)
		}
	}
	for v := range match {
		if match[v] < 0 {
			match[v] = int32(v)
		}
	}
	return match
}

// degreeOrder returns g's vertices lightly shuffled and then stably sorted by
// degree, capped at 0.7 times the average degree so that the many vertices
// of ordinary degree stay in shuffled order.
func degreeOrder(g *wgraph, r *rng) []int32 {
	n := g.n
	tperm := r.permutation(n, n/8)
	avg := 0
	if n > 0 {
		avg = int(0.7 * float64(len(g.adj)/n))
	}
	key := func(v int32) int { return min(int(g.degree(v)), avg) }
	count := make([]int, avg+2)
	for v := 0; v < n; v++ {
		count[key(int32(v))+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	perm := make([]int32, n)
	for _, v := range tperm {
		k := key(v)
		perm[count[k]] = v
		count[k]++
	}
	return perm
}

// match2HopAny pairs unmatched vertices of degree below maxdeg that share a
// neighbour (the leaves of a star, say), which plain matching cannot
// contract. It returns the number still unmatched. Candidates are light
// enough (twice their weight is below the limit) that any two of them may
// pair.
func match2HopAny(g *wgraph, perm, match []int32, unmatched, maxdeg int) int {
	n := g.n
	cand := func(v int32) bool {
		d := int(g.degree(v))
		return match[v] < 0 && d > 0 && d < maxdeg
	}
	// An inverted index: for every vertex, the candidates adjacent to it.
	start := make([]int32, n+1)
	for v := int32(0); int(v) < n; v++ {
		if cand(v) {
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				start[g.adj[p]+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	cursor := slices.Clone(start[:n])
	list := make([]int32, start[n])
	for _, v := range perm {
		if cand(v) {
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				u := g.adj[p]
				list[cursor[u]] = v
				cursor[u]++
			}
		}
	}
	for _, hub := range perm {
		lo, hi := start[hub], start[hub+1]
		// Pair from both ends of the hub's list.
		for i, j := lo, hi-1; i < j; i++ {
			a := list[i]
			if match[a] >= 0 {
				continue
			}
			for ; j > i && match[list[j]] >= 0; j-- {
			}
			if j <= i {
				break
			}
			b := list[j]
			match[a], match[b] = b, a
			unmatched -= 2
			j--
		}
	}
	return unmatched
}

// match2HopAll pairs unmatched vertices of degree below maxdeg whose
// neighbour sets are identical: found by sorting the candidates on degree
// and the sum of their neighbours' indices, then comparing within runs. It
// returns the number still unmatched.
func match2HopAll(g *wgraph, perm, match []int32, unmatched, maxdeg int) int {
	type cand struct {
		v   int32
		deg int32
		sum int64
	}
	var cs []cand
	for _, v := range perm {
		d := g.degree(v)
		if match[v] < 0 && d > 1 && int(d) < maxdeg {
			var s int64
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				s += int64(g.adj[p])
			}
			cs = append(cs, cand{v, d, s})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.deg, b.deg), cmp.Compare(a.sum, b.sum), cmp.Compare(a.v, b.v))
	})
	mark := make([]int32, g.n)
	for i := range mark {
		mark[i] = -1
	}
	// Comparing each candidate with at most this many of its run keeps
	// adversarial runs (equal sums, different sets) from costing n^2.
	const maxTries = 64
	for i := range cs {
		a := cs[i].v
		if match[a] >= 0 {
			continue
		}
		for p := g.xadj[a]; p < g.xadj[a+1]; p++ {
			mark[g.adj[p]] = a
		}
		for j, tries := i+1, 0; j < len(cs) && tries < maxTries && cs[j].deg == cs[i].deg && cs[j].sum == cs[i].sum; j++ {
			b := cs[j].v
			if match[b] >= 0 {
				continue
			}
			tries++
			same := true
			for p := g.xadj[b]; p < g.xadj[b+1]; p++ {
				if mark[g.adj[p]] != a {
					same = false
					break
				}
			}
			if same {
				match[a], match[b] = b, a
				unmatched -= 2
				break
			}
		}
	}
	return unmatched
}

// contract builds the coarse graph of g under match: matched pairs become
// one vertex (numbered in order of their first member) whose weight is the
// sum of theirs; edges between pairs merge, adding weights, and edges inside
// a pair vanish. It sets g.cmap.
func contract(g *wgraph, match []int32) *wgraph {
	n := g.n
	cmap := make([]int32, n)
	cn := int32(0)
	for v := int32(0); int(v) < n; v++ {
		if u := match[v]; u >= v {
			cmap[v] = cn
			cmap[u] = cn
			cn++
		}
	}
	g.cmap = cmap
	c := &wgraph{n: int(cn), xadj: make([]int32, cn+1), vw: make([]int64, cn), tvw: g.tvw}
	// A coarse vertex has at most the entries of its members, less the two
	// for the edge joining them: allocate that bound, which is not far
	// above what is used, rather than build in scratch and copy.
	bound := len(g.adj)
	for v := int32(0); int(v) < n; v++ {
		if u := match[v]; u > v {
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				if g.adj[p] == u {
					bound -= 2
					break
				}
			}
		}
	}
	adj := make([]int32, bound)
	adjw := make([]int64, bound)
	if g.vsize != nil {
		c.vsize = make([]int64, cn)
	}
	if g.out != nil {
		c.out = make([]bool, bound)
	}
	slot := make([]int32, cn) // where coarse neighbour x sits in the current list, or -1
	for i := range slot {
		slot[i] = -1
	}
	nnz := int32(0)
	for v := int32(0); int(v) < n; v++ {
		u := match[v]
		if u < v {
			continue
		}
		cv := cmap[v]
		begin := nnz
		c.vw[cv] = g.vw[v]
		if u != v {
			c.vw[cv] += g.vw[u]
		}
		if c.vsize != nil {
			// The members' data goes its own ways; their sum is what the
			// coarse vertex sends to a part that uses all of it.
			c.vsize[cv] = g.vsize[v]
			if u != v {
				c.vsize[cv] += g.vsize[u]
			}
		}
		for x := v; ; x = u {
			for p := g.xadj[x]; p < g.xadj[x+1]; p++ {
				cx := cmap[g.adj[p]]
				if cx == cv {
					continue
				}
				s := slot[cx]
				if s >= 0 {
					adjw[s] += g.ew(p)
				} else {
					s = nnz
					slot[cx] = s
					adj[s], adjw[s] = cx, g.ew(p)
					nnz++
				}
				if c.out != nil {
					c.out[s] = c.out[s] || g.out[p]
				}
			}
			if x == u {
				break
			}
		}
		for p := begin; p < nnz; p++ {
			slot[adj[p]] = -1
		}
		c.xadj[cv+1] = nnz
	}
	c.adj, c.adjw = adj[:nnz:nnz], adjw[:nnz:nnz]
	if c.out != nil {
		c.out = c.out[:nnz:nnz]
	}
	return c
}
