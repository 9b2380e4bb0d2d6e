package partition

import (
	"math"
)

const (
	// bisectCoarsenTo: the multilevel bisections coarsen down to about this
	// many vertices (METIS's CoarsenTo for recursive bisection).
	bisectCoarsenTo = 20
	// Grown bisections tried on the coarsest graph of a bisection, when it
	// reached bisectCoarsenTo or not (METIS's SMALLNIPARTS, LARGENIPARTS).
	smallGrowTries = 5
	largeGrowTries = 7
	// refineIters bounds the FM passes per level (METIS's niter).
	refineIters = 10
)

// bisector splits a graph into k parts by multilevel recursive bisection:
// the initial partition of the k-way scheme.
type bisector struct {
	r  *rng
	ub float64 // allowed imbalance of each bisection: part weight <= ub * target
	// tries is the number of complete multilevel bisections computed for
	// each split, the best kept (METIS's ncuts, set to nIparts).
	tries int
	// ghosts: each side's subgraph gets a ghost of every vertex outside
	// it that has neighbours in it (see split); for the Volume objective.
	ghosts bool
}

// partition writes into out[label[v]] the part, first..first+k-1, of every
// vertex v of g.
func (b *bisector) partition(g *wgraph, k int, out []int32, first int32) {
	if g.n == 0 {
		return
	}
	if k == 1 {
		for v := 0; v < g.n; v++ {
			if l := g.labelOf(v); l >= 0 {
				out[l] = first
			}
		}
		return
	}
	k0 := k / 2
	where := b.bisect(g, float64(k0)/float64(k))
	if k == 2 {
		for v := 0; v < g.n; v++ {
			if l := g.labelOf(v); l >= 0 {
				out[l] = first + where[v]
			}
		}
		return
	}
	g0, g1 := split(g, where, b.ghosts)
	b.partition(g0, k0, out, first)
	b.partition(g1, k-k0, out, first+int32(k0))
}

func (g *wgraph) labelOf(v int) int32 {
	if g.label == nil {
		return int32(v)
	}
	return g.label[v]
}

// bisect returns the best of b.tries multilevel bisections of g, with part 0
// aiming at the fraction frac0 of the weight: balanced ones before
// unbalanced ones, then the smaller cut.
func (b *bisector) bisect(g *wgraph, frac0 float64) []int32 {
	// With nets, an even split is refined for their exact volume and the
	// tries compared by it: the cut (with ghosts) only approximates it,
	// and volume refinement holds the parts to equal shares. Up to twice
	// as many tries are made, until b.tries in a row improve on none:
	// where the first tries agree (matrix multiply's first bisections all
	// find the least volume) more would only cost time.
	exact := g.nets != nil && frac0 == 0.5
	var best *twoWay
	var bestVol int64
	var work *refineWork
	ntries := b.tries
	var unghosted *wgraph
	if exact {
		ntries *= 2
		unghosted = withoutGhosts(g) // for every other try
	}
	lastBetter := 0
	for t := 0; t < ntries; t++ {
		if exact && t-lastBetter > b.tries {
			break // b.tries in a row found nothing better
		}
		src := g
		if unghosted != nil && t%2 == 1 {
			src = unghosted
		}
		levels := coarsen(src, bisectCoarsenTo, b.r)
		c := levels[len(levels)-1]
		tries := largeGrowTries
		if c.n <= bisectCoarsenTo {
			tries = smallGrowTries
		}
		tw := b.grow(c, frac0, tries)
		for i := len(levels) - 2; i >= 0; i-- {
			f := levels[i]
			where := make([]int32, f.n)
			for v := range where {
				where[v] = tw.where[f.cmap[v]]
			}
			tw = b.refine(f, where, frac0)
		}
		if src != g {
			tw = newTwoWay(g, tw.where, frac0, b.ub) // the ghosts' edges count again
		}
		if exact {
			if work == nil {
				work = newRefineWork(g.n, 2)
			}
			s := newKwayState(g, 2, tw.where, work)
			s.volRefine(refineIters, b.ub, b.r)
			tw = newTwoWay(g, s.where, frac0, b.ub)
			vol := newVolState(s).vol
			if best == nil || tw.balanced() && (!best.balanced() || vol < bestVol || vol == bestVol && tw.cut < best.cut) {
				best, bestVol, lastBetter = tw, vol, t
			}
			continue
		}
		var perfect bool
		if best, perfect = keepBetter(best, tw); perfect {
			break
		}
	}
	return best.where
}

// refine makes the bisection where of g and improves it: balancing, then
// FM.
func (b *bisector) refine(g *wgraph, where []int32, frac0 float64) *twoWay {
	tw := newTwoWay(g, where, frac0, b.ub)
	tw.balance(b.r)
	tw.fm(refineIters, b.r)
	return tw
}

// keepBetter returns the better of best (nil at first) and tw, and whether
// it is perfect, balanced with nothing cut, so that no further try can
// beat it.
func keepBetter(best, tw *twoWay) (*twoWay, bool) {
	if best == nil || tw.better(best) {
		best = tw
	}
	return best, best.cut == 0 && best.balanced()
}

// better reports whether tw is a better bisection than o: balanced before
// unbalanced, then the smaller cut, or else the smaller imbalance.
func (tw *twoWay) better(o *twoWay) bool {
	if tw.balanced() != o.balanced() {
		return tw.balanced()
	}
	if tw.balanced() && tw.cut != o.cut {
		return tw.cut < o.cut
	}
	return tw.imbalance() < o.imbalance()
}

// balanced reports whether both sides are within the allowed weight, up to
// rounding.
func (tw *twoWay) balanced() bool { return tw.imbalance() <= 0.0005 }

// grow returns the best of tries bisections of g grown breadth-first from a
// random vertex (METIS's GrowBisection): part 0 takes vertices in BFS order
// until part 1 is down to its share, and then FM refines the result. When
// a component is used up, growth restarts at a random untouched vertex. On
// a disconnected graph every other try packs whole components: it restarts
// in a component that fits in what part 0 still lacks, when there is one,
// and finishes such a component even past the target, so that only one
// component, or none, is cut.
func (b *bisector) grow(g *wgraph, frac0 float64, tries int) *twoWay {
	n := g.n
	tpw1 := float64(g.tvw) - math.Floor(frac0*float64(g.tvw))
	maxpw1 := b.ub * tpw1
	minpw1 := tpw1 / b.ub
	comp, compW := components(g)
	var best *twoWay
	queue := make([]int32, n)
	touched := make([]bool, n)
	for t := 0; t < tries; t++ {
		pack := len(compW) > 1 && t%2 == 0
		where := make([]int32, n)
		for v := range where {
			where[v] = 1
			touched[v] = false
		}
		order := b.r.permutation(n, n)
		next, nextFit := 0, 0
		pw0, pw1 := int64(0), g.tvw
		first, last := 0, 0
		drain, done, curFits := false, false, false
		nleft := n
		for {
			if first == last {
				if nleft == 0 || drain || done {
					break
				}
				// Restart in a random untouched vertex, if packing in one
				// whose component fits; the room only shrinks, so a
				// component that does not fit now never will.
				start := int32(-1)
				if pack {
					for ; nextFit < n; nextFit++ {
						if v := order[nextFit]; !touched[v] && float64(pw1-compW[comp[v]]) >= minpw1 {
							start = v
							break
						}
					}
				}
				curFits = start >= 0
				if start < 0 {
					for touched[order[next]] {
						next++
					}
					start = order[next]
				}
				queue[0], first, last = start, 0, 1
				touched[start] = true
				nleft--
			}
			v := queue[first]
			first++
			vw := g.vw[v]
			if pw0 > 0 && float64(pw1-vw) < minpw1 {
				drain = true // too heavy to take: let the queue run dry
				continue
			}
			where[v] = 0
			pw0 += vw
			pw1 -= vw
			if float64(pw1) <= maxpw1 {
				if !curFits {
					break
				}
				done = true // finish this component, then stop
			}
			drain = false
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				if u := g.adj[p]; !touched[u] {
					touched[u] = true
					queue[last] = u
					last++
					nleft--
				}
			}
		}
		// Neither side may be empty.
		if pw1 == 0 {
			where[b.r.intn(n)] = 1
		}
		if pw0 == 0 {
			where[b.r.intn(n)] = 0
		}
		var perfect bool
		if best, perfect = keepBetter(best, b.refine(g, where, frac0)); perfect {
			break
		}
	}
	return best
}

// components labels the connected components of g: comp[v] is v's
// component and w[c] the weight of component c.
func components(g *wgraph) (comp []int32, w []int64) {
	comp = make([]int32, g.n)
	for v := range comp {
		comp[v] = -1
	}
	var stack []int32
	for s := int32(0); int(s) < g.n; s++ {
		if comp[s] >= 0 {
			continue
		}
		c := int32(len(w))
		w = append(w, 0)
		comp[s] = c
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			w[c] += g.vw[v]
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				if u := g.adj[p]; comp[u] < 0 {
					comp[u] = c
					stack = append(stack, u)
				}
			}
		}
	}
	return comp, w
}

// split returns the subgraphs induced by the two sides of where, their
// labels leading back to g's labels.
//
// With ghosts, each side's subgraph also gets a ghost of every vertex on
// the other side that has neighbours on this one: a vertex of weight 0,
// label -1, joined to those neighbours. The ghost stands for the data the
// vertex sends into the side, which costs volume once more if the side's
// own bisection splits its receivers; without it, a split that cuts
// across data coming from outside looks free (recursive bisection with
// net splitting, as hypergraph partitioners do it). On matrix multiply's
// graph the ghosts turn the second bisection of a strip across it, into
// 2-D blocks.
func split(g *wgraph, where []int32, ghosts bool) (*wgraph, *wgraph) {
	var sub [2]*wgraph
	rename := make([]int32, g.n)
	var nv, ne [2]int
	for v := 0; v < g.n; v++ {
		s := where[v]
		rename[v] = int32(nv[s])
		nv[s]++
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if where[g.adj[p]] == s || ghosts {
				ne[s]++
			}
		}
	}
	// ghost[v] is v's ghost's number on the other side, or -1.
	var ghost []int32
	var ng [2]int
	if ghosts {
		ghost = make([]int32, g.n)
		for v := 0; v < g.n; v++ {
			ghost[v] = -1
			o := 1 - where[v]
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				if where[g.adj[p]] == o {
					ghost[v] = int32(nv[o] + ng[o])
					ng[o]++
					break
				}
			}
		}
		// The entries the ghosts' lists mirror: each counted on its side
		// already (ghosts is set), once more for the ghost's end.
	}
	for s := range sub {
		n := nv[s] + ng[s]
		sub[s] = &wgraph{
			n:     n,
			xadj:  make([]int32, 1, n+1),
			adj:   make([]int32, 0, 2*ne[s]),
			adjw:  make([]int64, 0, 2*ne[s]),
			vw:    make([]int64, 0, n),
			label: make([]int32, 0, n),
		}
	}
	for v := 0; v < g.n; v++ {
		sg := sub[where[v]]
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			switch u := g.adj[p]; {
			case where[u] == where[v]:
				sg.adj = append(sg.adj, rename[u])
				sg.adjw = append(sg.adjw, g.ew(p))
			case ghosts:
				sg.adj = append(sg.adj, ghost[u])
				sg.adjw = append(sg.adjw, g.ew(p))
			}
		}
		sg.xadj = append(sg.xadj, int32(len(sg.adj)))
		sg.vw = append(sg.vw, g.vw[v])
		sg.tvw += g.vw[v]
		sg.label = append(sg.label, g.labelOf(v))
	}
	for v := 0; v < len(ghost); v++ {
		if ghost[v] < 0 {
			continue
		}
		o := 1 - where[v]
		sg := sub[o]
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if u := g.adj[p]; where[u] == o {
				sg.adj = append(sg.adj, rename[u])
				sg.adjw = append(sg.adjw, g.ew(p))
			}
		}
		sg.xadj = append(sg.xadj, int32(len(sg.adj)))
		sg.vw = append(sg.vw, 0)
		sg.label = append(sg.label, -1)
	}
	if g.nets != nil {
		h := g.nets.split(where, rename, [2]int{sub[0].n, sub[1].n})
		sub[0].nets, sub[1].nets = h[0], h[1]
	}
	return sub[0], sub[1]
}

// twoWay is a bisection of a graph with the gains FM needs: for every vertex
// its internal degree id (weight of edges to its own side) and external
// degree ed, and the boundary (vertices with ed > 0, or no edges at all, as
// those can move freely).
type twoWay struct {
	g      *wgraph
	where  []int32
	id, ed []int64
	bnd    boundary
	pw     [2]int64
	tpw    [2]int64 // target weights
	ub     float64
	cut    int64
}

func newTwoWay(g *wgraph, where []int32, frac0 float64, ub float64) *twoWay {
	tw := &twoWay{g: g, where: where, id: make([]int64, g.n), ed: make([]int64, g.n), bnd: newBoundary(g.n), ub: ub}
	tw.tpw[0] = int64(math.Floor(frac0 * float64(g.tvw)))
	tw.tpw[1] = g.tvw - tw.tpw[0]
	for v := int32(0); int(v) < g.n; v++ {
		s := where[v]
		tw.pw[s] += g.vw[v]
		var id, ed int64
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if where[g.adj[p]] == s {
				id += g.ew(p)
			} else {
				ed += g.ew(p)
			}
		}
		tw.id[v], tw.ed[v] = id, ed
		tw.cut += ed
		if ed > 0 || g.xadj[v] == g.xadj[v+1] {
			tw.bnd.insert(v)
		}
	}
	tw.cut /= 2
	return tw
}

// imbalance is how far the heavier side (relative to its target) is above
// its allowed weight, as a fraction of its target: <= 0 when balanced.
func (tw *twoWay) imbalance() float64 {
	worst := math.Inf(-1)
	for s := 0; s < 2; s++ {
		var x float64
		if tw.tpw[s] > 0 {
			x = float64(tw.pw[s]) / float64(tw.tpw[s])
		} else if tw.pw[s] > 0 {
			x = math.Inf(1)
		}
		worst = max(worst, x-tw.ub)
	}
	return worst
}

// move moves v to the other side, keeping degrees, boundary and cut up to
// date, and calls touch for every neighbour whose gain changed.
func (tw *twoWay) move(v int32, touch func(u int32)) {
	g := tw.g
	from := tw.where[v]
	to := 1 - from
	tw.where[v] = to
	tw.pw[from] -= g.vw[v]
	tw.pw[to] += g.vw[v]
	tw.cut -= tw.ed[v] - tw.id[v]
	tw.id[v], tw.ed[v] = tw.ed[v], tw.id[v]
	tw.updateBoundary(v)
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		u := g.adj[p]
		w := g.ew(p)
		if tw.where[u] == to {
			tw.id[u] += w
			tw.ed[u] -= w
		} else {
			tw.id[u] -= w
			tw.ed[u] += w
		}
		tw.updateBoundary(u)
		if touch != nil {
			touch(u)
		}
	}
}

func (tw *twoWay) updateBoundary(v int32) {
	on := tw.ed[v] > 0 || tw.g.xadj[v] == tw.g.xadj[v+1]
	if on && !tw.bnd.has(v) {
		tw.bnd.insert(v)
	} else if !on && tw.bnd.has(v) {
		tw.bnd.remove(v)
	}
}

func (tw *twoWay) gain(v int32) float64 { return float64(tw.ed[v] - tw.id[v]) }

// balance moves vertices from the side that is over its allowed weight to
// the other, best gain first, until the lighter side reaches its target
// (METIS's Balance2Way): boundary vertices first, and any vertex if that is
// not enough (METIS takes any only when there is no boundary, and can leave
// a bisection unbalanced when the heavy side has no boundary vertices left).
func (tw *twoWay) balance(r *rng) {
	if tw.imbalance() <= 0 {
		return
	}
	// Close enough to the targets that no single typical vertex fixes it.
	if abs(tw.tpw[0]-tw.pw[0]) < 3*tw.g.tvw/int64(tw.g.n) {
		return
	}
	if tw.bnd.len() > 0 {
		tw.balanceFrom(true, r)
	}
	if tw.imbalance() > 0 {
		tw.balanceFrom(false, r)
	}
}

// balanceFrom does balance's work, taking only boundary vertices if onlyBnd.
func (tw *twoWay) balanceFrom(onlyBnd bool, r *rng) {
	g := tw.g
	from := int32(0)
	if tw.pw[0] < tw.tpw[0] {
		from = 1
	}
	to := 1 - from
	mindiff := abs(tw.tpw[0] - tw.pw[0])
	h := newMaxHeap(g.n)
	moved := make([]bool, g.n)
	var cands []int32
	if onlyBnd {
		cands = append(cands, tw.bnd.list...)
		r.shuffle(cands, len(cands)/5)
	} else {
		cands = r.permutation(g.n, g.n/5)
	}
	for _, v := range cands {
		if tw.where[v] == from && g.vw[v] <= mindiff {
			h.insert(v, tw.gain(v))
		}
	}
	for {
		v, ok := h.pop()
		if !ok || tw.pw[to]+g.vw[v] > tw.tpw[to] {
			break
		}
		moved[v] = true
		tw.move(v, func(u int32) {
			if moved[u] || tw.where[u] != from {
				return
			}
			switch {
			case h.contains(u) && onlyBnd && !tw.bnd.has(u):
				h.remove(u)
			case h.contains(u):
				h.update(u, tw.gain(u))
			case (!onlyBnd || tw.bnd.has(u)) && g.vw[u] <= mindiff:
				h.insert(u, tw.gain(u))
			}
		})
	}
}

// fm runs up to niter passes of Fiduccia-Mattheyses refinement (METIS's
// FM_2WayCutRefine): each pass moves boundary vertices, best gain first and
// each at most once, always from the side that is heavier relative to its
// target, accepting temporary losses; then it rolls back to the best cut
// seen, preferring better balance on ties. A pass ends after limit moves
// without improvement.
func (tw *twoWay) fm(niter int, r *rng) {
	g := tw.g
	n := g.n
	if n == 0 {
		return
	}
	limit := min(max(n/100, 15), 100)
	avgvw := min((tw.pw[0]+tw.pw[1])/20, 2*(tw.pw[0]+tw.pw[1])/int64(n))
	origdiff := abs(tw.tpw[0] - tw.pw[0])
	var q [2]*maxHeap
	q[0], q[1] = newMaxHeap(n), newMaxHeap(n)
	moved := make([]bool, n)
	var swaps []int32
	touch := func(u int32) {
		if moved[u] {
			return
		}
		h := q[tw.where[u]]
		on := tw.bnd.has(u)
		switch {
		case h.contains(u) && on:
			h.update(u, tw.gain(u))
		case h.contains(u):
			h.remove(u)
		case on:
			h.insert(u, tw.gain(u))
		}
	}
	for pass := 0; pass < niter; pass++ {
		q[0].clear()
		q[1].clear()
		initcut := tw.cut
		mincut, newcut := tw.cut, tw.cut
		mindiff := abs(tw.tpw[0] - tw.pw[0])
		mincutorder := -1
		bnd := append([]int32(nil), tw.bnd.list...)
		r.shuffle(bnd, len(bnd))
		for _, v := range bnd {
			q[tw.where[v]].insert(v, tw.gain(v))
		}
		swaps = swaps[:0]
		for nswaps := 0; nswaps < n; nswaps++ {
			from := int32(1)
			if tw.tpw[0]-tw.pw[0] < tw.tpw[1]-tw.pw[1] {
				from = 0
			}
			v, ok := q[from].pop()
			if !ok {
				break
			}
			newcut -= tw.ed[v] - tw.id[v]
			diff := abs(tw.tpw[0] - (tw.pw[0] - sign(from)*g.vw[v]))
			if (newcut < mincut && diff <= origdiff+avgvw) || (newcut == mincut && diff < mindiff) {
				mincut, mindiff, mincutorder = newcut, diff, nswaps
			} else if nswaps-mincutorder > limit {
				// Give up on this pass: v stays where it is.
				break
			}
			moved[v] = true
			swaps = append(swaps, v)
			tw.move(v, touch)
		}
		// Roll back the moves after the best cut.
		for i := len(swaps) - 1; i > mincutorder; i-- {
			tw.move(swaps[i], nil)
		}
		for _, v := range swaps {
			moved[v] = false
		}
		if mincutorder <= 0 || mincut == initcut {
			break
		}
	}
}

// sign is +1 for side 0 and -1 for side 1: how a move from that side changes
// side 0's weight, per unit of vertex weight.
func sign(from int32) int64 {
	if from == 0 {
		return 1
	}
	return -1
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// boundary is a set of vertices with O(1) insert, remove and membership, and
// its members listed for iteration.
type boundary struct {
	list []int32
	pos  []int32 // index in list, or -1
}

func newBoundary(n int) boundary {
	b := boundary{pos: make([]int32, n)}
	for i := range b.pos {
		b.pos[i] = -1
	}
	return b
}

func (b *boundary) len() int         { return len(b.list) }
func (b *boundary) has(v int32) bool { return b.pos[v] >= 0 }
func (b *boundary) insert(v int32)   { b.pos[v] = int32(len(b.list)); b.list = append(b.list, v) }
func (b *boundary) remove(v int32) {
	i := b.pos[v]
	last := b.list[len(b.list)-1]
	b.list[i] = last
	b.pos[last] = i
	b.list = b.list[:len(b.list)-1]
	b.pos[v] = -1
}

// withoutGhosts returns g with the edges of its ghosts (see split)
// weighing nothing, or nil if g has no ghosts: a bisection of it goes by
// the subgraph's own edges only.
//
// The ghosts stand for data from outside, and a bisection that splits a
// side of matrix multiply's graph across its strip or within it is
// steered right by them. But where two splits send exactly as much (a
// 2-D block into halves by rows or by columns: each cuts as many nets
// from outside), their pull is even, and the bisections they guide
// often mix the two, a staircase that sends more than either; the
// subgraph's own edges, a rook's graph, have a least cut that is one or
// the other. Tries with and without ghosts are compared by the exact
// volume, which keeps whichever sends less.
func withoutGhosts(g *wgraph) *wgraph {
	if g.label == nil {
		return nil
	}
	u := *g
	u.adjw = make([]int64, len(g.adj))
	ghosts := false
	for v := int32(0); int(v) < g.n; v++ {
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if g.label[v] < 0 || g.label[g.adj[p]] < 0 {
				ghosts = true
				continue
			}
			u.adjw[p] = g.ew(p)
		}
	}
	if !ghosts {
		return nil
	}
	return &u
}
