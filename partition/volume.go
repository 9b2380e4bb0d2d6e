package partition

// Objective is what KWay minimises, under the balance constraint.
type Objective int

const (
	// Cut minimises the edge cut, the total weight of the edges between
	// parts (gpmetis -objtype=cut, the default).
	Cut Objective = iota
	// Volume minimises the total communication volume, Graph.Volume:
	// each vertex's size once for every other part its data goes to
	// (gpmetis -objtype=vol when Graph.Sends is nil).
	Volume
)

func (o Objective) String() string {
	switch o {
	case Cut:
		return "cut"
	case Volume:
		return "volume"
	}
	return "Objective(invalid)"
}

// volState keeps, beside a k-way partition, what volume refinement needs
// (METIS's per-vertex part connectivity, vnbrpool): for every vertex u,
// the parts of the neighbours u sends to with how many of those
// neighbours each holds, in lpart and lcnt[off[u] : off[u]+nl[u]]. A
// vertex has room for min(its sending entries, k) of them, so the lists
// take at most two words per adjacency entry.
type volState struct {
	s           *kwayState
	off, nl     []int32
	lpart, lcnt []int32
	vol         int64
	// Scratch for gain, per part, cleared through touched: the size of the
	// vertices sending to v that sit in the part (inb), and of those that
	// send to another vertex there (has).
	inb, has []int64
	mark     []bool
	touched  []int32
}

func (g *wgraph) sends(p int32) bool    { return g.dir == nil || g.dir[p]&dirOut != 0 }
func (g *wgraph) receives(p int32) bool { return g.dir == nil || g.dir[p]&dirIn != 0 }

func newVolState(s *kwayState) *volState {
	g := s.g
	vs := &volState{
		s: s, off: make([]int32, g.n+1), nl: make([]int32, g.n),
		inb: make([]int64, s.k), has: make([]int64, s.k), mark: make([]bool, s.k),
	}
	for u := int32(0); int(u) < g.n; u++ {
		var out int32
		for p := g.xadj[u]; p < g.xadj[u+1]; p++ {
			if g.sends(p) {
				out++
			}
		}
		vs.off[u+1] = vs.off[u] + min(out, int32(s.k))
	}
	vs.lpart = make([]int32, vs.off[g.n])
	vs.lcnt = make([]int32, vs.off[g.n])
	for u := int32(0); int(u) < g.n; u++ {
		for p := g.xadj[u]; p < g.xadj[u+1]; p++ {
			if g.sends(p) {
				vs.add(u, s.where[g.adj[p]])
			}
		}
		vs.vol += g.vsize[u] * int64(vs.remote(u))
	}
	return vs
}

// remote is the number of parts other than its own that u sends to.
func (vs *volState) remote(u int32) int32 {
	n := vs.nl[u]
	if vs.count(u, vs.s.where[u]) > 0 {
		n--
	}
	return n
}

// count is the number of the neighbours u sends to that are in part q.
func (vs *volState) count(u, q int32) int32 {
	for i := vs.off[u]; i < vs.off[u]+vs.nl[u]; i++ {
		if vs.lpart[i] == q {
			return vs.lcnt[i]
		}
	}
	return 0
}

// add counts one more neighbour that u sends to in part q.
func (vs *volState) add(u, q int32) {
	end := vs.off[u] + vs.nl[u]
	for i := vs.off[u]; i < end; i++ {
		if vs.lpart[i] == q {
			vs.lcnt[i]++
			return
		}
	}
	vs.lpart[end], vs.lcnt[end] = q, 1
	vs.nl[u]++
}

// sub counts one neighbour fewer that u sends to in part q.
func (vs *volState) sub(u, q int32) {
	end := vs.off[u] + vs.nl[u]
	for i := vs.off[u]; i < end; i++ {
		if vs.lpart[i] == q {
			if vs.lcnt[i]--; vs.lcnt[i] == 0 {
				vs.lpart[i], vs.lcnt[i] = vs.lpart[end-1], vs.lcnt[end-1]
				vs.nl[u]--
			}
			return
		}
	}
}

func (vs *volState) touch(q int32) {
	if !vs.mark[q] {
		vs.mark[q] = true
		vs.touched = append(vs.touched, q)
	}
}

// best returns the part among those adjacent to v that v's move to
// reduces the volume most, then the cut most, then the lighter, within
// the weight limits as kwayState.bestMove keeps them; with the volume
// gain vg and the cut gain cg; -1 if no part has room.
//
// Moving v from a to b changes v's own term by VSize[v] unless it sends
// to both or neither, and for every u that sends to v, u's term loses
// VSize[u] if v was u's last receiver in a (a not u's part) and gains it
// if u had none in b (b not u's part).
func (vs *volState) best(v int32, minpw, maxpw float64) (to int32, vg, cg int64) {
	s, g := vs.s, vs.s.g
	s.connect(v)
	defer s.disconnect()
	to, _ = s.bestMove(v, minpw, maxpw)
	if to < 0 {
		return -1, 0, 0
	}
	a := s.where[v]
	var leave, total int64
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		if !g.receives(p) {
			continue
		}
		u := g.adj[p]
		su, qu := g.vsize[u], s.where[u]
		total += su
		if qu != a && vs.count(u, a) == 1 {
			leave += su
		}
		vs.inb[qu] += su
		vs.touch(qu)
		for i := vs.off[u]; i < vs.off[u]+vs.nl[u]; i++ {
			if q := vs.lpart[i]; q != qu {
				vs.has[q] += su
				vs.touch(q)
			}
		}
	}
	own := func(q int32) int64 {
		if vs.count(v, q) > 0 {
			return g.vsize[v]
		}
		return 0
	}
	vw := float64(g.vw[v])
	to = -1
	for _, b := range s.w.parts {
		if float64(s.pw[b])+vw > maxpw {
			continue
		}
		bvg := own(b) - own(a) + leave - (total - vs.inb[b] - vs.has[b])
		bcg := s.w.conn[b] - s.id[v]
		if to < 0 || bvg > vg || (bvg == vg && (bcg > cg || (bcg == cg && s.pw[b] < s.pw[to]))) {
			to, vg, cg = b, bvg, bcg
		}
	}
	for _, q := range vs.touched {
		vs.inb[q], vs.has[q], vs.mark[q] = 0, 0, false
	}
	vs.touched = vs.touched[:0]
	return to, vg, cg
}

// move moves v to part to, whose volume gain is vg.
func (vs *volState) move(v, to int32, vg int64) {
	s, g := vs.s, vs.s.g
	from := s.where[v]
	var c int64
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		u := g.adj[p]
		if s.where[u] == to {
			c += g.ew(p)
		}
		if g.receives(p) {
			vs.sub(u, from)
			vs.add(u, to)
		}
	}
	s.move(v, to, c, nil)
	vs.vol -= vg
}

// improves reports whether a move with volume gain vg and cut gain cg is
// worth making: it lowers the volume, or keeps it and lowers the cut. Each
// such move lowers (volume, cut) in lexicographic order, so refinement
// ends.
func improves(vg, cg int64) bool { return vg > 0 || (vg == 0 && cg > 0) }

// volKey orders moves by volume gain, then cut gain: the cut gain is
// squeezed into (-1/2, 1/2).
func volKey(vg, cg int64) float64 {
	return float64(vg) + 0.5*float64(cg)/float64(1+abs(cg))
}

// volRefine runs up to niter passes of greedy k-way volume refinement (as
// METIS's Greedy_KWayVolOptimize): each pass queues the boundary vertices
// whose best move improves (volume first, then cut), within the weight
// limits, and takes them best first, recomputing a vertex's gain when it
// comes out of the queue and re-queuing its neighbours after a move.
func (s *kwayState) volRefine(niter int, ub float64, r *rng) {
	g, h := s.g, s.w.heap
	minpw, maxpw := s.limits(ub)
	vs := newVolState(s)
	consider := func(v int32) {
		to, vg, cg := vs.best(v, minpw, maxpw)
		switch {
		case to >= 0 && improves(vg, cg) && h.contains(v):
			h.update(v, volKey(vg, cg))
		case to >= 0 && improves(vg, cg):
			h.insert(v, volKey(vg, cg))
		case h.contains(v):
			h.remove(v)
		}
	}
	for pass := 0; pass < niter; pass++ {
		cands := append([]int32(nil), s.bnd.list...)
		r.shuffle(cands, len(cands)/4)
		for _, v := range cands {
			consider(v)
		}
		moved := 0
		for {
			v, ok := h.pop()
			if !ok {
				break
			}
			to, vg, cg := vs.best(v, minpw, maxpw)
			if to < 0 || !improves(vg, cg) {
				continue
			}
			if key := volKey(vg, cg); key < h.peekKey() {
				h.insert(v, key) // stale key: back in its place
				continue
			}
			vs.move(v, to, vg)
			moved++
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				if u := g.adj[p]; g.degree(u) <= fmMaxDegree {
					consider(u)
				}
			}
		}
		h.clear()
		if moved == 0 {
			break
		}
	}
}
