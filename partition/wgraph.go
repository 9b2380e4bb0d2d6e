package partition

import "math"

// wgraph is the partitioner's working form of a graph: weights always
// present, the total vertex weight cached, and the links of the multilevel
// hierarchy.
type wgraph struct {
	n    int
	xadj []int32
	adj  []int32
	adjw []int64 // nil: all 1 (only ever the input graph's)
	vw   []int64
	tvw  int64
	// For the Volume objective only: vsize holds the vertex sizes (nil
	// otherwise), and out, parallel to adj, whether the vertex whose list
	// holds an entry sends its data to the neighbour (Graph.Sends); nil:
	// both ways everywhere. nets is the exact hypergraph of the volume:
	// the input graph's Graph.Nets, contracted to the levels of k-way
	// refinement and split between the sides of recursive bisection; nil
	// without them (volNets).
	vsize []int64
	out   []bool
	nets  *nets
	// cmap maps each vertex to its vertex in the next coarser graph; set
	// when that graph is built.
	cmap []int32
	// label maps each vertex to its vertex in the graph that recursive
	// bisection started from; nil there.
	label []int32
}

// newWGraph makes g's working form, sharing its slices (they are never
// written) and filling in unit vertex weights where g has none. Missing
// edge weights stay missing: for a large unweighted graph, an array of ones
// would be the biggest allocation of the whole run.
func newWGraph(g *Graph, obj Objective) *wgraph {
	n := g.N()
	w := &wgraph{n: n, xadj: g.XAdj, adj: g.Adj, adjw: g.AdjW, vw: g.VW}
	if n == 0 {
		w.xadj = []int32{0}
	}
	if obj == Volume {
		w.vsize = g.VSize
		if w.vsize == nil {
			w.vsize = ones(n)
		}
		w.out = g.Sends
		if g.Nets != nil {
			w.nets = newNets(n, g.Nets)
		}
	}
	if w.vw == nil {
		w.vw = ones(n)
	}
	for _, x := range w.vw {
		w.tvw += x
	}
	return w
}

func ones(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func (g *wgraph) degree(v int32) int32 { return g.xadj[v+1] - g.xadj[v] }

// ew is the weight of adjacency entry p.
func (g *wgraph) ew(p int32) int64 {
	if g.adjw == nil {
		return 1
	}
	return g.adjw[p]
}

// rng is a splitmix64 generator: small, fast, and fixed, so a partition
// depends on Options.Seed alone and not on the Go release.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n) for 0 < n < 2^32.
func (r *rng) intn(n int) int {
	return int(((r.next() >> 32) * uint64(n)) >> 32)
}

// permutation returns 0..n-1 lightly shuffled by nswaps exchanges of blocks
// of four, as METIS's irandArrayPermute does: enough randomness to vary the
// visiting order between runs and seeds while keeping most of the natural
// order, which keeps the sweeps over large graphs cache-friendly.
func (r *rng) permutation(n, nswaps int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	r.shuffle(p, nswaps)
	return p
}

// shuffle applies permutation's exchanges to p in place.
func (r *rng) shuffle(p []int32, nswaps int) {
	n := len(p)
	if n < 10 {
		for i := 0; i < n; i++ {
			a, b := r.intn(n), r.intn(n)
			p[a], p[b] = p[b], p[a]
		}
		return
	}
	for i := 0; i < nswaps; i++ {
		a, b := r.intn(n-3), r.intn(n-3)
		p[a], p[b+2] = p[b+2], p[a]
		p[a+1], p[b+3] = p[b+3], p[a+1]
		p[a+2], p[b] = p[b], p[a+2]
		p[a+3], p[b+1] = p[b+1], p[a+3]
	}
}

// maxHeap is an indexed binary max-heap of vertices keyed by gain: the
// priority queue of FM and greedy refinement. pos[v] is v's slot or -1.
type maxHeap struct {
	key []float64
	vtx []int32
	pos []int32
}

// newMaxHeap makes an empty heap for vertices 0..n-1.
func newMaxHeap(n int) *maxHeap {
	h := &maxHeap{pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *maxHeap) len() int { return len(h.vtx) }

func (h *maxHeap) contains(v int32) bool { return h.pos[v] >= 0 }

// clear empties the heap in time proportional to its size.
func (h *maxHeap) clear() {
	for _, v := range h.vtx {
		h.pos[v] = -1
	}
	h.key, h.vtx = h.key[:0], h.vtx[:0]
}

func (h *maxHeap) insert(v int32, key float64) {
	i := len(h.vtx)
	h.key = append(h.key, key)
	h.vtx = append(h.vtx, v)
	h.pos[v] = int32(i)
	h.up(i)
}

// update changes the key of v, which must be in the heap.
func (h *maxHeap) update(v int32, key float64) {
	i := int(h.pos[v])
	old := h.key[i]
	h.key[i] = key
	if key > old {
		h.up(i)
	} else if key < old {
		h.down(i)
	}
}

// remove takes v, which must be in the heap, out of it.
func (h *maxHeap) remove(v int32) {
	i := int(h.pos[v])
	last := len(h.vtx) - 1
	h.pos[v] = -1
	if i != last {
		old := h.key[i]
		h.key[i], h.vtx[i] = h.key[last], h.vtx[last]
		h.pos[h.vtx[i]] = int32(i)
		h.key, h.vtx = h.key[:last], h.vtx[:last]
		if h.key[i] > old {
			h.up(i)
		} else {
			h.down(i)
		}
		return
	}
	h.key, h.vtx = h.key[:last], h.vtx[:last]
}

// peekKey returns the largest key, or -Inf when the heap is empty.
func (h *maxHeap) peekKey() float64 {
	if len(h.key) == 0 {
		return math.Inf(-1)
	}
	return h.key[0]
}

// pop removes and returns the vertex of largest key; ok is false when the
// heap is empty.
func (h *maxHeap) pop() (v int32, ok bool) {
	if len(h.vtx) == 0 {
		return -1, false
	}
	v = h.vtx[0]
	h.remove(v)
	return v, true
}

func (h *maxHeap) up(i int) {
	k, v := h.key[i], h.vtx[i]
	for i > 0 {
		parent := (i - 1) / 2
		if h.key[parent] >= k {
			break
		}
		h.key[i], h.vtx[i] = h.key[parent], h.vtx[parent]
		h.pos[h.vtx[i]] = int32(i)
		i = parent
	}
	h.key[i], h.vtx[i] = k, v
	h.pos[v] = int32(i)
}

func (h *maxHeap) down(i int) {
	n := len(h.vtx)
	k, v := h.key[i], h.vtx[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.key[c+1] > h.key[c] {
			c++
		}
		if h.key[c] <= k {
			break
		}
		h.key[i], h.vtx[i] = h.key[c], h.vtx[c]
		h.pos[h.vtx[i]] = int32(i)
		i = c
	}
	h.key[i], h.vtx[i] = k, v
	h.pos[v] = int32(i)
}
