package partition

import (
	"math"
)

const (
	// fmIters bounds the k-way FM passes per level.
	fmIters = 4
	// fmLimit ends an FM pass after this many moves without a new best
	// cut.
	fmLimit = 100
	// fmMaxDegree: FM re-evaluates a moved vertex's neighbours only when
	// their degree is at most this, so that a hub's gain is not recomputed
	// for each of its many neighbours' moves (it is re-evaluated when it
	// comes out of the queue instead).
	fmMaxDegree = 64
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
	w     *refineWork
}

// refineWork is scratch shared by the levels of one refinement, sized for
// the finest graph.
type refineWork struct {
	// The parts adjacent to one vertex: conn[q] is the weight of its edges
	// into part q, for q in parts; inParts marks them. Filled by connect
	// and cleared by disconnect.
	conn    []int64
	parts   []int32
	inParts []bool
	// Priority queue of vertices, and per vertex a pass's bookkeeping.
	heap   *maxHeap
	status []uint8
	nn     []int32 // adjacent parts when queued (greedy's key)
}

func newRefineWork(n, k int) *refineWork {
	return &refineWork{
		conn: make([]int64, k), inParts: make([]bool, k),
		heap: newMaxHeap(n), status: make([]uint8, n), nn: make([]int32, n),
	}
}

func newKwayState(g *wgraph, k int, where []int32, w *refineWork) *kwayState {
	s := &kwayState{
		g: g, k: k, where: where, pw: make([]int64, k),
		id: make([]int64, g.n), ed: make([]int64, g.n), bnd: newBoundary(g.n),
		light: newMaxHeap(k), w: w,
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
		light: s.light, w: s.w,
	}
	for v := range fs.where {
		fs.where[v] = s.where[f.cmap[v]]
	}
	for v := int32(0); int(v) < f.n; v++ {
		if s.ed[f.cmap[v]] == 0 {
			// All of the coarse vertex's neighbours are in its part, so
			// all of v's are.
			var id int64
			for p := f.xadj[v]; p < f.xadj[v+1]; p++ {
				id += f.ew(p)
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
			id += g.ew(p)
		} else {
			ed += g.ew(p)
		}
	}
	s.id[v], s.ed[v] = id, ed
	if s.onBoundary(v) {
		s.bnd.insert(v)
	}
}

// connect fills w.conn and w.parts with the parts other than v's own that v
// has edges to.
func (s *kwayState) connect(v int32) {
	g, w := s.g, s.w
	me := s.where[v]
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		q := s.where[g.adj[p]]
		if q == me {
			continue
		}
		if !w.inParts[q] {
			w.inParts[q] = true
			w.parts = append(w.parts, q)
		}
		w.conn[q] += g.ew(p)
	}
}

// disconnect clears what connect filled in.
func (s *kwayState) disconnect() {
	w := s.w
	for _, q := range w.parts {
		w.conn[q] = 0
		w.inParts[q] = false
	}
	w.parts = w.parts[:0]
}

// move moves v to part to, given the weight c of v's edges into it, and
// calls touch (if not nil) for every neighbour once its degrees are up to
// date. The connect scratch must be clear, as touch may use it.
func (s *kwayState) move(v, to int32, c int64, touch func(u int32)) {
	g := s.g
	from := s.where[v]
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
		w := g.ew(p)
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

// betterThan reports whether s is a better partition than o: within the
// balance limit ub before beyond it, then the smaller cut, or else the
// smaller imbalance.
func (s *kwayState) betterThan(o *kwayState, ub float64) bool {
	sb, ob := s.imbalance() <= ub, o.imbalance() <= ub
	if sb != ob {
		return sb
	}
	if sb {
		return s.cut < o.cut
	}
	return s.imbalance() < o.imbalance()
}

// betterVolume is betterThan for the Volume objective, given s's volume
// and o's: within the balance limit first, then the smaller volume, then
// the smaller cut.
func (s *kwayState) betterVolume(vol int64, o *kwayState, ovol int64, ub float64) bool {
	sb, ob := s.imbalance() <= ub, o.imbalance() <= ub
	if sb != ob {
		return sb
	}
	if !sb {
		return s.imbalance() < o.imbalance()
	}
	if vol != ovol {
		return vol < ovol
	}
	return s.cut < o.cut
}

// limits returns the part weights that refinement keeps to: at most ub
// times the average (or the current imbalance, if larger, so refinement
// never worsens balance), and at least the average over that.
func (s *kwayState) limits(ub float64) (minpw, maxpw float64) {
	ubf := max(ub, s.imbalance())
	avg := float64(s.g.tvw) / float64(s.k)
	return avg / ubf, avg * ubf
}

// bestMove returns the part that v, whose connections conn holds, gains
// most by moving to without pushing it over maxpw (ties going to the
// lighter part), and the gain; -1 if there is none or if v's leaving
// would take its part below minpw.
func (s *kwayState) bestMove(v int32, minpw, maxpw float64) (int32, int64) {
	w := s.w
	vw := float64(s.g.vw[v])
	if s.id[v] > 0 && float64(s.pw[s.where[v]])-vw < minpw {
		return -1, 0
	}
	to := int32(-1)
	for _, q := range w.parts {
		if float64(s.pw[q])+vw > maxpw {
			continue
		}
		if to < 0 || w.conn[q] > w.conn[to] || (w.conn[q] == w.conn[to] && s.pw[q] < s.pw[to]) {
			to = q
		}
	}
	if to < 0 {
		return -1, 0
	}
	return to, w.conn[to] - s.id[v]
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
// In balance mode the aim is instead to bring every part within ub times
// the average weight: vertices move to the lightest adjacent part (or the
// lightest part of all) that has room, even at a loss, unless their part is
// within limits and the target is not light.
func (s *kwayState) greedy(niter int, ub float64, balanceMode bool, r *rng) {
	g, w := s.g, s.w
	minpw, maxpw := s.limits(ub)
	if balanceMode {
		avg := float64(g.tvw) / float64(s.k)
		minpw, maxpw = avg/ub, avg*ub
	}
	qualifies := func(u int32) bool {
		if balanceMode {
			return s.onBoundary(u)
		}
		return s.ed[u] > 0 && s.ed[u] >= s.id[u]
	}
	// The key uses the number of adjacent parts counted when the vertex
	// was queued: recounting it for every neighbour of every move would
	// cost a scan of each neighbour's edges.
	key := func(u int32) float64 {
		if nn := w.nn[u]; nn > 0 {
			return float64(s.ed[u])/math.Sqrt(float64(nn)) - float64(s.id[u])
		}
		return -float64(s.id[u])
	}
	enqueue := func(u int32) {
		s.connect(u)
		w.nn[u] = int32(len(w.parts))
		s.disconnect()
		w.heap.insert(u, key(u))
		w.status[u] = queued
	}
	var touched []int32 // vertices whose status needs resetting
	touch := func(u int32) {
		switch {
		case w.status[u] == queued && qualifies(u):
			w.heap.update(u, key(u))
		case w.status[u] == queued:
			w.heap.remove(u)
			w.status[u] = notQueued
		case w.status[u] == notQueued && qualifies(u):
			enqueue(u)
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
				enqueue(v)
				touched = append(touched, v)
			}
		}
		nmoved := 0
		for iter := 0; ; iter++ {
			v, ok := w.heap.pop()
			if !ok {
				break
			}
			w.status[v] = extracted
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
				if l := s.light.vtx[0]; l != from && !w.inParts[l] {
					w.inParts[l] = true
					w.parts = append(w.parts, l)
				}
				for _, q := range w.parts {
					pq := float64(s.pw[q])
					if (pq+vw <= maxpw || pq+vw <= pwFrom) && (to < 0 || s.pw[q] < s.pw[to]) {
						to = q
					}
				}
				if to >= 0 && pwFrom < maxpw && float64(s.pw[to]) > minpw && w.conn[to] < s.id[v] {
					to = -1
				}
			} else {
				var gain int64
				to, gain = s.bestMove(v, math.Inf(-1), maxpw)
				// A zero-gain move is taken only to help balance, or on
				// every other try.
				if gain < 0 || (gain == 0 && !(pwFrom >= maxpw || float64(s.pw[max(to, 0)])+vw < pwFrom || iter%2 == 0)) {
					to = -1
				}
			}
			var c int64
			if to >= 0 {
				c = w.conn[to]
			}
			s.disconnect()
			if to >= 0 {
				s.move(v, to, c, touch)
				nmoved++
			}
		}
		for _, u := range touched {
			w.status[u] = notQueued
		}
		touched = touched[:0]
		w.heap.clear()
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

// fmObjective is what k-way FM minimises: the cut (cutMoves) or the
// volume (volState).
type fmObjective interface {
	// best returns v's best move within the weight limits and its gain
	// as a heap key, or to < 0 if v has none.
	best(v int32, minpw, maxpw float64) (to int32, key float64)
	// move moves v to part to.
	move(v, to int32)
	// score is the objective, lower better.
	score() float64
}

// cutMoves is the cut as an fmObjective.
type cutMoves struct{ s *kwayState }

func (c cutMoves) best(v int32, minpw, maxpw float64) (int32, float64) {
	c.s.connect(v)
	defer c.s.disconnect()
	to, gain := c.s.bestMove(v, minpw, maxpw)
	return to, float64(gain)
}

func (c cutMoves) move(v, to int32) { c.s.moveTo(v, to) }

func (c cutMoves) score() float64 { return float64(c.s.cut) }

// moveTo moves v to part to, working out v's edges into it.
func (s *kwayState) moveTo(v, to int32) {
	g := s.g
	var c int64
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		if s.where[g.adj[p]] == to {
			c += g.ew(p)
		}
	}
	s.move(v, to, c, nil)
}

// fm runs up to niter passes of k-way Fiduccia-Mattheyses refinement of
// obj: like greedy's refinement, but moves are taken best gain first even
// when they lose, each vertex at most once a pass, and the pass then rolls
// back to the best score it saw; so it climbs out of the local minima
// where greedy stops. Gains are exact: a vertex's is recomputed when it
// comes out of the queue, and it goes back in if it dropped below the next
// one's.
func (s *kwayState) fm(obj fmObjective, niter int, ub float64, r *rng) {
	g, w := s.g, s.w
	minpw, maxpw := s.limits(ub)
	h := w.heap
	type logged struct{ v, from int32 }
	var moves []logged
	// consider queues v with its best gain, or takes it out of the queue
	// if it has no move.
	consider := func(v int32) {
		to, key := obj.best(v, minpw, maxpw)
		switch {
		case to < 0 && h.contains(v):
			h.remove(v)
		case to < 0:
		case h.contains(v):
			h.update(v, key)
		default:
			h.insert(v, key)
		}
	}
	for pass := 0; pass < niter; pass++ {
		cands := append([]int32(nil), s.bnd.list...)
		r.shuffle(cands, len(cands)/4)
		for _, v := range cands {
			if s.ed[v] > 0 {
				consider(v)
			}
		}
		moves = moves[:0]
		start := obj.score()
		bestScore, bestAt := start, -1
		for {
			v, ok := h.pop()
			if !ok {
				break
			}
			to, key := obj.best(v, minpw, maxpw)
			if to < 0 {
				continue
			}
			if key < h.peekKey() {
				h.insert(v, key) // stale key: back in its place
				continue
			}
			from := s.where[v]
			obj.move(v, to)
			w.status[v] = extracted // locked for the rest of the pass
			moves = append(moves, logged{v, from})
			if sc := obj.score(); sc < bestScore {
				bestScore, bestAt = sc, len(moves)-1
			} else if len(moves)-1-bestAt > fmLimit {
				break
			}
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				u := g.adj[p]
				if w.status[u] == extracted || g.degree(u) > fmMaxDegree {
					continue
				}
				if s.ed[u] > 0 {
					consider(u)
				} else if h.contains(u) {
					h.remove(u)
				}
			}
		}
		// Roll back to the best score.
		for i := len(moves) - 1; i > bestAt; i-- {
			obj.move(moves[i].v, moves[i].from)
		}
		for _, m := range moves {
			w.status[m.v] = notQueued
		}
		h.clear()
		if bestScore >= start {
			break
		}
	}
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
	g, w := s.g, s.w
	// target returns where v should go, the gain of moving it there and
	// its connection to that part; conn must hold v's connections.
	target := func(v int32) (to int32, gain, c int64) {
		from := s.where[v]
		vw := g.vw[v]
		to = -1
		for _, q := range w.parts {
			if float64(s.pw[q]+vw) <= limit && (to < 0 || w.conn[q] > w.conn[to] || (w.conn[q] == w.conn[to] && s.pw[q] < s.pw[to])) {
				to = q
			}
		}
		l := s.light.vtx[0]
		if l != from && (to < 0 || w.conn[l] > w.conn[to]) &&
			(float64(s.pw[l]+vw) <= limit || (to < 0 && s.pw[l]+vw < s.pw[from])) {
			to = l
		}
		if to < 0 {
			return -1, 0, 0
		}
		return to, w.conn[to] - s.id[v], w.conn[to]
	}
	h := w.heap
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
				to, gain, _ := target(v)
				s.disconnect()
				if to >= 0 {
					h.insert(v, float64(gain))
				}
			}
			for float64(s.pw[p]) > limit {
				v, ok := h.pop()
				if !ok {
					break
				}
				s.connect(v)
				to, gain, c := target(v)
				s.disconnect()
				switch {
				case to < 0:
				case float64(gain) < h.peekKey():
					h.insert(v, float64(gain)) // stale: try again in order
				default:
					s.move(v, to, c, nil)
					moved = true
				}
			}
			h.clear()
		}
		if !moved {
			return
		}
	}
}
