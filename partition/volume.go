package partition

import "slices"

// Objective is what KWay minimises, under the balance constraint.
type Objective int

const (
	// Cut minimises the edge cut, the total weight of the edges between
	// parts (gpmetis -objtype=cut, the default).
	Cut Objective = iota
	// Volume minimises the total communication volume, Graph.Volume:
	// each vertex's size once for every other part its data goes to
	// (gpmetis -objtype=vol when Graph.Sends is nil), or, with
	// Graph.Nets, each net's cost once for every other part holding one
	// of its pins.
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

// nets is the hypergraph that volume refinement works on: net e carries
// cost[e] of vertex src[e]'s data to every part other than src[e]'s own
// that holds one of its pins; src[e] is -1 for data from outside the
// graph (a subgraph of recursive bisection), which every part holding a
// pin receives. The input graph's Graph.Nets gives it exactly; without
// them each vertex u is one net, sending vsize[u] to the neighbours u
// sends to (wgraph.volNets).
type nets struct {
	src       []int32
	cost      []int64
	ptr, pins []int32 // net e's pins are pins[ptr[e]:ptr[e+1]], never src[e]
	iptr, inc []int32 // vertex v is a pin of the nets inc[iptr[v]:iptr[v+1]]
	optr, own []int32 // v is the source of the nets own[optr[v]:optr[v+1]]
}

// newNets makes the hypergraph of a valid Nets on n vertices, leaving out
// pins that are their net's source (they never add a part).
func newNets(n int, x *Nets) *nets {
	h := &nets{src: x.Src, cost: x.Cost, ptr: make([]int32, len(x.Src)+1)}
	for e, u := range x.Src {
		for _, v := range x.Pins[x.Ptr[e]:x.Ptr[e+1]] {
			if v != u {
				h.pins = append(h.pins, v)
			}
		}
		h.ptr[e+1] = int32(len(h.pins))
	}
	h.index(n)
	return h
}

// volNets returns the hypergraph of g's volume: the input graph's Nets,
// contracted to g, if it has them, or one net per vertex.
func (g *wgraph) volNets() *nets {
	if g.nets != nil {
		return g.nets
	}
	h := &nets{src: make([]int32, g.n), cost: g.vsize, ptr: make([]int32, g.n+1)}
	if g.out == nil {
		h.pins = g.adj // every neighbour: the lists as they are
		copy(h.ptr, g.xadj)
	} else {
		for u := int32(0); int(u) < g.n; u++ {
			for p := g.xadj[u]; p < g.xadj[u+1]; p++ {
				if g.out[p] {
					h.ptr[u+1]++
				}
			}
			h.ptr[u+1] += h.ptr[u]
		}
		h.pins = make([]int32, 0, h.ptr[g.n])
		for p, x := range g.adj {
			if g.out[p] {
				h.pins = append(h.pins, x)
			}
		}
	}
	for u := range h.src {
		h.src[u] = int32(u)
	}
	h.index(g.n)
	return h
}

// contract returns the hypergraph on the coarse graph of cn vertices that
// cmap maps h's vertices to: the same nets, their source and pins mapped,
// each pin once, and none that is the source. A net left without pins
// never costs anything and is dropped. The volume of a coarse partition
// is that of the partition it projects to, so refining the coarse graphs
// refines the exact volume.
func (h *nets) contract(cmap []int32, cn int) *nets {
	c := &nets{ptr: []int32{0}}
	seen := make([]int32, cn) // seen[x] == e+1: x is a pin of net e already
	for e, u := range h.src {
		cu := int32(-1)
		if u >= 0 {
			cu = cmap[u]
		}
		start := len(c.pins)
		for _, v := range h.pins[h.ptr[e]:h.ptr[e+1]] {
			if x := cmap[v]; x != cu && seen[x] != int32(e+1) {
				seen[x] = int32(e + 1)
				c.pins = append(c.pins, x)
			}
		}
		if len(c.pins) == start {
			continue
		}
		c.src = append(c.src, cu)
		c.cost = append(c.cost, h.cost[e])
		c.ptr = append(c.ptr, int32(len(c.pins)))
	}
	c.index(cn)
	return c
}

// index fills in the incidence lists by counting sort.
func (h *nets) index(n int) {
	h.iptr, h.optr = make([]int32, n+1), make([]int32, n+1)
	for _, v := range h.pins {
		h.iptr[v+1]++
	}
	for _, u := range h.src {
		if u >= 0 {
			h.optr[u+1]++
		}
	}
	for v := 0; v < n; v++ {
		h.iptr[v+1] += h.iptr[v]
		h.optr[v+1] += h.optr[v]
	}
	h.inc, h.own = make([]int32, len(h.pins)), make([]int32, h.optr[n])
	inext, onext := slices.Clone(h.iptr[:n]), slices.Clone(h.optr[:n])
	for e, u := range h.src {
		if u >= 0 {
			h.own[onext[u]] = int32(e)
			onext[u]++
		}
		for _, v := range h.pins[h.ptr[e]:h.ptr[e+1]] {
			h.inc[inext[v]] = int32(e)
			inext[v]++
		}
	}
}

// split divides h between the subgraphs of the two sides of where, of
// n[0] and n[1] vertices, that rename numbers g's vertices in (split): a
// net's pins on one side form a net there, from its source if the source
// is there too and from outside if not, which is the volume a partition
// of the side adds (net splitting, as hypergraph partitioners do it).
func (h *nets) split(where, rename []int32, n [2]int) [2]*nets {
	var out [2]*nets
	for side := range out {
		c := &nets{ptr: []int32{0}}
		for e, u := range h.src {
			start := len(c.pins)
			for _, v := range h.pins[h.ptr[e]:h.ptr[e+1]] {
				if where[v] == int32(side) {
					c.pins = append(c.pins, rename[v])
				}
			}
			if len(c.pins) == start {
				continue
			}
			src := int32(-1)
			if u >= 0 && where[u] == int32(side) {
				src = rename[u]
			}
			c.src = append(c.src, src)
			c.cost = append(c.cost, h.cost[e])
			c.ptr = append(c.ptr, int32(len(c.pins)))
		}
		c.index(n[side])
		out[side] = c
	}
	return out
}

// volState keeps, beside a k-way partition, what volume refinement needs
// (METIS's per-vertex part connectivity, vnbrpool, per net): for every net
// e, the parts of its pins with how many pins each holds, in lpart and
// lcnt[off[e] : off[e]+nl[e]]. A net has room for min(its pins, k) of
// them, so the lists take at most two words per pin.
type volState struct {
	s           *kwayState
	h           *nets
	off, nl     []int32
	lpart, lcnt []int32
	vol         int64
	// Scratch for gain, per part, cleared through touched: the cost of
	// the nets of v whose source sits in the part (inb), and of those
	// with another pin there (has).
	inb, has []int64
	mark     []bool
	touched  []int32
}

func (g *wgraph) sends(p int32) bool { return g.out == nil || g.out[p] }

func newVolState(s *kwayState) *volState {
	h := s.g.volNets()
	ne := len(h.src)
	vs := &volState{
		s: s, h: h, off: make([]int32, ne+1), nl: make([]int32, ne),
		inb: make([]int64, s.k), has: make([]int64, s.k), mark: make([]bool, s.k),
	}
	for e := 0; e < ne; e++ {
		vs.off[e+1] = vs.off[e] + min(h.ptr[e+1]-h.ptr[e], int32(s.k))
	}
	vs.lpart = make([]int32, vs.off[ne])
	vs.lcnt = make([]int32, vs.off[ne])
	for e := int32(0); int(e) < ne; e++ {
		for _, v := range h.pins[h.ptr[e]:h.ptr[e+1]] {
			vs.add(e, s.where[v])
		}
		vs.vol += h.cost[e] * int64(vs.remote(e))
	}
	return vs
}

// remote is the number of parts other than its source's that net e
// reaches.
func (vs *volState) remote(e int32) int32 {
	n := vs.nl[e]
	if q := vs.srcPart(e); q >= 0 && vs.count(e, q) > 0 {
		n--
	}
	return n
}

// srcPart is the part of net e's source, -1 for data from outside.
func (vs *volState) srcPart(e int32) int32 {
	if u := vs.h.src[e]; u >= 0 {
		return vs.s.where[u]
	}
	return -1
}

// count is the number of net u's pins in part q.
func (vs *volState) count(u, q int32) int32 {
	for i := vs.off[u]; i < vs.off[u]+vs.nl[u]; i++ {
		if vs.lpart[i] == q {
			return vs.lcnt[i]
		}
	}
	return 0
}

// add counts one more pin of net u in part q, and reports whether it is
// the first there.
func (vs *volState) add(u, q int32) bool {
	end := vs.off[u] + vs.nl[u]
	for i := vs.off[u]; i < end; i++ {
		if vs.lpart[i] == q {
			vs.lcnt[i]++
			return false
		}
	}
	vs.lpart[end], vs.lcnt[end] = q, 1
	vs.nl[u]++
	return true
}

// sub counts one pin of net u fewer in part q, and reports whether it
// was the last there.
func (vs *volState) sub(u, q int32) bool {
	end := vs.off[u] + vs.nl[u]
	for i := vs.off[u]; i < end; i++ {
		if vs.lpart[i] == q {
			if vs.lcnt[i]--; vs.lcnt[i] == 0 {
				vs.lpart[i], vs.lcnt[i] = vs.lpart[end-1], vs.lcnt[end-1]
				vs.nl[u]--
				return true
			}
			return false
		}
	}
	return false
}

func (vs *volState) touch(q int32) {
	if !vs.mark[q] {
		vs.mark[q] = true
		vs.touched = append(vs.touched, q)
	}
}

// gain returns the part among those adjacent to v that v's move to
// reduces the volume most, then the cut most, then the lighter, within
// the weight limits as kwayState.bestMove keeps them; with the volume
// gain vg and the cut gain cg; -1 if no part has room.
//
// Moving v from a to b changes the term of each net v is the source of
// by its cost unless the net reaches both or neither, and for every net e
// v is a pin of, e's term loses e's cost if v was e's last pin in a (a
// not its source's part) and gains it if e had none in b (b not its
// source's part).
func (vs *volState) gain(v int32, minpw, maxpw float64) (to int32, vg, cg int64) {
	s, g, h := vs.s, vs.s.g, vs.h
	s.connect(v)
	defer s.disconnect()
	to, _ = s.bestMove(v, minpw, maxpw)
	if to < 0 {
		return -1, 0, 0
	}
	a := s.where[v]
	var leave, total int64
	for _, e := range h.inc[h.iptr[v]:h.iptr[v+1]] {
		c, qe := h.cost[e], vs.srcPart(e)
		total += c
		if qe >= 0 {
			vs.inb[qe] += c
			vs.touch(qe)
		}
		for i := vs.off[e]; i < vs.off[e]+vs.nl[e]; i++ {
			q := vs.lpart[i]
			if q == qe {
				continue
			}
			if q == a && vs.lcnt[i] == 1 {
				leave += c // v is e's last pin in a
			}
			vs.has[q] += c
			vs.touch(q)
		}
	}
	own := func(q int32) int64 {
		var c int64
		for _, e := range h.own[h.optr[v]:h.optr[v+1]] {
			if vs.count(e, q) > 0 {
				c += h.cost[e]
			}
		}
		return c
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

// move moves v to part to, keeping the volume up to date: the nets v is
// a pin of may lose part from and gain part to, and the nets v is the
// source of count parts against to instead of from.
func (vs *volState) move(v, to int32) {
	s, h := vs.s, vs.h
	from := s.where[v]
	own := h.own[h.optr[v]:h.optr[v+1]]
	for _, e := range own {
		vs.vol -= h.cost[e] * int64(vs.remote(e))
	}
	for _, e := range h.inc[h.iptr[v]:h.iptr[v+1]] {
		q := vs.srcPart(e)
		if vs.sub(e, from) && from != q {
			vs.vol -= h.cost[e]
		}
		if vs.add(e, to) && to != q {
			vs.vol += h.cost[e]
		}
	}
	s.moveTo(v, to)
	for _, e := range own {
		vs.vol += h.cost[e] * int64(vs.remote(e))
	}
}

// score is the volume, with the cut deciding between equal volumes: the
// cut is squeezed into [0, 1/2).
func (vs *volState) score() float64 {
	c := vs.s.cut
	return float64(vs.vol) + 0.5*float64(c)/float64(1+c)
}

// best is gain for fm, keyed by volKey.
func (vs *volState) best(v int32, minpw, maxpw float64) (int32, float64) {
	to, vg, cg := vs.gain(v, minpw, maxpw)
	return to, volKey(vg, cg)
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
// comes out of the queue and re-queuing its neighbours after a move; then,
// on graphs of up to runWork vertices and adjacency entries, k-way FM on
// the volume, which climbs out of the local minima where greedy stops (a
// net's part is only freed by moving its last pin there). On larger ones
// FM would double the time for a few percent.
func (s *kwayState) volRefine(niter int, ub float64, r *rng) {
	g, h := s.g, s.w.heap
	minpw, maxpw := s.limits(ub)
	vs := newVolState(s)
	consider := func(v int32) {
		to, vg, cg := vs.gain(v, minpw, maxpw)
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
			to, vg, cg := vs.gain(v, minpw, maxpw)
			if to < 0 || !improves(vg, cg) {
				continue
			}
			if key := volKey(vg, cg); key < h.peekKey() {
				h.insert(v, key) // stale key: back in its place
				continue
			}
			vs.move(v, to)
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
	if g.n+len(g.adj) <= runWork {
		s.fm(vs, fmIters, ub, r)
	}
}
