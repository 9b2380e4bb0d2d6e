package partition

import (
	"math"
)

// kwayState is a k-way partition of one level's graph with what refinement
// needs: part weights, every vertex's internal degree id (weight of its
// edges inside its part) and external degree ed, and the boundary (vertices
// with ed > 0, and those without edges, which can move anywhere for free).
type kwayState struct {
	g      *wgraph
	k      int
	where  []int32
	pw     []int64
	id, ed []int64
	bnd    boundary
	cut    int64
	// light holds the parts keyed by their negated weight: the lightest on
	// top.
	light *maxHeap

	// Scratch for the parts adjacent to one vertex: conn[q] is the weight
	// of its edges into part q, for q in parts; inParts marks them.
	conn    []int64
	parts   []int32
	inParts []bool
}

func newKwayState(g *wgraph, k int, where []int32) *kwayState {
	s := &kwayState{
		g: g, k: k, where: where, pw: make([]int64, k),
		id: make([]int64, g.n), ed: make([]int64, g.n), bnd: newBoundary(g.n),
		conn: make([]int64, k), inParts: make([]bool, k), light: newMaxHeap(k),
	}
	for v := int32(0); int(v) < g.n; v++ {
		s.pw[where[v]] += g.vw[v]
		s.computeDegrees(v)
		s.cut += s.ed[v]
	}
	s.cut /= 2
	for q := int32(0); int(q) < k; q++ {
		s.light.insert(q, -float64(s.pw[q]))
	}
	return s
}

// project carries s down to the finer graph f whose cmap leads to s.g.
func (s *kwayState) project(f *wgraph) *kwayState {
	fs := &kwayState{
		g: f, k: s.k, where: make([]int32, f.n), pw: s.pw, cut: s.cut,
		id: make([]int64, f.n), ed: make([]int64, f.n), bnd: newBoundary(f.n),
		conn: s.conn, parts: s.parts, inParts: s.inParts, light: s.light,
	}
	for v := range fs.where {
		fs.where[v] = s.where[f.cmap[v]]
	}
	for v := int32(0); int(v) < f.n; v++ {
		if s.ed[f.cmap[v]] == 0 {
			// All of c's neighbours are in its part, so all of v's are.
			var id int64
			for p := f.xadj[v]; p < f.xadj[v+1]; p++ {
				id += f.adjw[p]
			}
			fs.id[v] = id
			if f.xadj[v] == f.xadj[v+1] {
				fs.bnd.insert(v)
			}
			continue
		}
		fs.computeDegrees(v)
	}
	return fs
}

// computeDegrees sets id[v] and ed[v] from scratch and puts v on the
// boundary if it belongs there.
func (s *kwayState) computeDegrees(v int32) {
	g := s.g
	me := s.where[v]
	var id, ed int64
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		if s.where[g.adj[p]] == me {
			id += g.adjw[p]
		} else {
			ed += g.adjw[p]
		}
	}
	s.id[v], s.ed[v] = id, ed
	if s.onBoundary(v) {
		s.bnd.insert(v)
	}
}

// connect fills conn and parts with the parts other than v's own that v
// has edges to.
func (s *kwayState) connect(v int32) {
	g := s.g
	me := s.where[v]
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		q := s.where[g.adj[p]]
		if q == me {
			continue
		}
		if !s.inParts[q] {
			s.inParts[q] = true
			s.parts = append(s.parts, q)
		}
		s.conn[q] += g.adjw[p]
	}
}

// disconnect clears what connect filled in.
func (s *kwayState) disconnect() {
	for _, q := range s.parts {
		s.conn[q] = 0
		s.inParts[q] = false
	}
	s.parts = s.parts[:0]
}

// move moves v to part to, where conn (from connect) holds v's connection
// to each part, and calls touch for every neighbour.
func (s *kwayState) move(v, to int32, touch func(u int32)) {
	g := s.g
	from := s.where[v]
	c := s.conn[to]
	s.cut -= c - s.id[v]
	s.ed[v] += s.id[v] - c
	s.id[v] = c
	s.where[v] = to
	s.pw[from] -= g.vw[v]
	s.pw[to] += g.vw[v]
	s.light.update(from, -float64(s.pw[from]))
	s.light.update(to, -float64(s.pw[to]))
	s.setBoundary(v)
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		u := g.adj[p]
		w := g.adjw[p]
		switch s.where[u] {
		case from:
			s.id[u] -= w
			s.ed[u] += w
		case to:
			s.id[u] += w
			s.ed[u] -= w
		}
		s.setBoundary(u)
		if touch != nil {
			touch(u)
		}
	}
}

func (s *kwayState) onBoundary(v int32) bool {
	return s.ed[v] > 0 || s.g.xadj[v] == s.g.xadj[v+1]
}

func (s *kwayState) setBoundary(v int32) {
	on := s.onBoundary(v)
	if on && !s.bnd.has(v) {
		s.bnd.insert(v)
	} else if !on && s.bnd.has(v) {
		s.bnd.remove(v)
	}
}

// imbalance is the weight of the heaviest part over the average part
// weight (1 is perfect balance).
func (s *kwayState) imbalance() float64 {
	if s.g.tvw == 0 {
		return 1
	}
	var m int64
	for _, w := range s.pw {
		m = max(m, w)
	}
	return float64(m) * float64(s.k) / float64(s.g.tvw)
}

// Vertex states in the greedy pass's queue.
const (
	notQueued uint8 = iota
	queued
	extracted
)

// greedy runs up to niter passes of greedy k-way refinement (METIS's
// Greedy_KWayCutOptimize). Each pass queues the boundary vertices by
// approximate gain, ed/sqrt(number of adjacent parts) - id, and takes them
// best first, moving each to the adjacent part it is most connected to when
// the move respects the weight limits and reduces the cut (or keeps it and
// helps balance, or, every other time, just keeps it, to escape plateaus).
//
// In balance mode the aim is instead to bring every part within
// ub times the average weight: vertices move to the lightest adjacent part
// that has room, even at a loss, unless their part is within limits and
// the target is not light. In refine mode the limit is ub or the current
// imbalance, whichever is larger, so refinement never worsens balance.
func (s *kwayState) greedy(niter int, ub float64, balanceMode bool, r *rng) {
	g := s.g
	ubf := ub
	if !balanceMode {
		ubf = max(ub, s.imbalance())
	}
	avg := float64(g.tvw) / float64(s.k)
	maxpw, minpw := avg*ubf, avg/ubf
	qualifies := func(u int32) bool {
		if balanceMode {
			return s.onBoundary(u)
		}
		return s.ed[u] > 0 && s.ed[u] >= s.id[u]
	}
	key := func(u int32) float64 {
		s.connect(u)
		nn := len(s.parts)
		s.disconnect()
		if nn == 0 {
			return -float64(s.id[u])
		}
		return float64(s.ed[u])/math.Sqrt(float64(nn)) - float64(s.id[u])
	}
	h := newMaxHeap(g.n)
	status := make([]uint8, g.n)
	var touched []int32 // vertices whose status needs resetting
	touch := func(u int32) {
		switch {
		case status[u] == queued && qualifies(u):
			h.update(u, key(u))
		case status[u] == queued:
			h.remove(u)
			status[u] = notQueued
		case status[u] == notQueued && qualifies(u):
			h.insert(u, key(u))
			status[u] = queued
			touched = append(touched, u)
		}
	}
	for pass := 0; pass < niter; pass++ {
		if balanceMode && s.within(minpw, maxpw) {
			break
		}
		oldcut := s.cut
		cands := append([]int32(nil), s.bnd.list...)
		r.shuffle(cands, len(cands)/4)
		for _, v := range cands {
			if qualifies(v) {
				h.insert(v, key(v))
				status[v] = queued
				touched = append(touched, v)
			}
		}
		nmoved := 0
		for iter := 0; ; iter++ {
			v, ok := h.pop()
			if !ok {
				break
			}
			status[v] = extracted
			from := s.where[v]
			vw := float64(g.vw[v])
			pwFrom := float64(s.pw[from])
			if pwFrom-vw < minpw && (balanceMode || s.id[v] > 0) {
				continue // would leave its part too light
			}
			s.connect(v)
			to := int32(-1)
			if balanceMode {
				// Besides the adjacent parts, the lightest part: vertices
				// without edges have no other way to go.
				if l := s.light.vtx[0]; l != from && !s.inParts[l] {
					s.inParts[l] = true
					s.parts = append(s.parts, l)
				}
				for _, q := range s.parts {
					pq := float64(s.pw[q])
					if (pq+vw <= maxpw || pq+vw <= pwFrom) && (to < 0 || s.pw[q] < s.pw[to]) {
						to = q
					}
				}
				if to >= 0 && pwFrom < maxpw && float64(s.pw[to]) > minpw && s.conn[to] < s.id[v] {
					to = -1
				}
			} else {
				for _, q := range s.parts {
					if s.conn[q] < s.id[v] || float64(s.pw[q])+vw > maxpw {
						continue
					}
					if to < 0 || s.conn[q] > s.conn[to] || (s.conn[q] == s.conn[to] && s.pw[q] < s.pw[to]) {
						to = q
					}
				}
				if to >= 0 && s.conn[to] == s.id[v] {
					// A zero-gain move: take it only to help balance, or on
					// every other try.
					if !(pwFrom >= maxpw || float64(s.pw[to])+vw < pwFrom || iter%2 == 0) {
						to = -1
					}
				}
			}
			if to >= 0 {
				s.move(v, to, touch)
				nmoved++
			}
			s.disconnect()
		}
		for _, u := range touched {
			status[u] = notQueued
		}
		touched = touched[:0]
		h.clear()
		if nmoved == 0 || (!balanceMode && s.cut == oldcut) {
			break
		}
	}
}

// within reports whether every part weighs between lo and hi.
func (s *kwayState) within(lo, hi float64) bool {
	for _, w := range s.pw {
		if float64(w) > hi || float64(w) < lo {
			return false
		}
	}
	return true
}

// forceBalance brings every part down to limit where the vertex weights
// allow it, moving vertices out of overweight parts best gain first: to the
// adjacent or lightest part with room, or, when no part has room, to the
// lightest part if that lowers the larger of the two weights. Each such move
// lowers the sum of squared part weights, so this ends; with unit weights it
// ends with no part above max(limit, ceil(average)). Greedy balancing only
// looks at adjacent parts, so a part whose neighbours are all full needs
// this.
func (s *kwayState) forceBalance(limit float64) {
	g := s.g
	// target returns where v should go and the gain of moving it there;
	// conn must hold v's connections.
	target := func(v int32) (to int32, gain int64) {
		from := s.where[v]
		vw := g.vw[v]
		to = -1
		for _, q := range s.parts {
			if float64(s.pw[q]+vw) <= limit && (to < 0 || s.conn[q] > s.conn[to] || (s.conn[q] == s.conn[to] && s.pw[q] < s.pw[to])) {
				to = q
			}
		}
		l := s.light.vtx[0]
		if l != from && (to < 0 || s.conn[l] > s.conn[to]) &&
			(float64(s.pw[l]+vw) <= limit || (to < 0 && s.pw[l]+vw < s.pw[from])) {
			to = l
		}
		if to < 0 {
			return -1, 0
		}
		return to, s.conn[to] - s.id[v]
	}
	h := newMaxHeap(g.n)
	byPart := make([][]int32, s.k)
	for {
		for q := range byPart {
			byPart[q] = byPart[q][:0]
		}
		for v := int32(0); int(v) < g.n; v++ {
			if g.vw[v] > 0 && float64(s.pw[s.where[v]]) > limit {
				byPart[s.where[v]] = append(byPart[s.where[v]], v)
			}
		}
		moved := false
		for p := int32(0); int(p) < s.k; p++ {
			if float64(s.pw[p]) <= limit {
				continue
			}
			for _, v := range byPart[p] {
				s.connect(v)
				if to, gain := target(v); to >= 0 {
					h.insert(v, float64(gain))
				}
				s.disconnect()
			}
			for float64(s.pw[p]) > limit {
				v, ok := h.pop()
				if !ok {
					break
				}
				s.connect(v)
				to, gain := target(v)
				switch {
				case to < 0:
				case float64(gain) < h.peekKey():
					h.insert(v, float64(gain)) // stale: try again in order
				default:
					s.move(v, to, nil)
					moved = true
				}
				s.disconnect()
			}
			h.clear()
		}
		if !moved {
			return
		}
	}
}
