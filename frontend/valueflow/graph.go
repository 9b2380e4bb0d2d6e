package valueflow

import (
	"fmt"
	"slices"

	"github.com/parley-hpc/parley/partition"
)

// The value communication graph (seed 001 §4.2) and the estimate.
//
// Vertices are the values after liveness compression: the values created
// one after another in a memory slot, each dead before the next is born,
// are one vertex (memory.go settles them). An edge joins the vertices of
// two values that a chain (v, s) connects, weighted by how often v uses s.
// A vertex weighs the operations that computed its values.

// graph is the compressed VCG with its singletons.
type graph struct {
	n int
	// vmap maps the vertices the run created to the graph's, after
	// conformable arrays are joined.
	vmap      []uint32
	weight    []int64 // per vertex: its values' operations
	edges     []partition.Edge
	singleton []bool
	nsingle   int
}

// buildGraph forms the VCG from the chains and finds its singletons.
func buildGraph(sh *shadow, conform map[int][][]uint32) *graph {
	g := &graph{}
	g.vmap, g.n = conformMap(int(sh.vertices), conform)
	g.weight = make([]int64, g.n)
	for _, v := range sh.vals[1:] {
		if v.vertex != noVertex {
			g.weight[g.vmap[v.vertex]] += int64(max(v.ops, 1))
		}
	}
	type keyed struct {
		key uint64
		w   int64
	}
	pairs := make([]keyed, 0, len(sh.flows))
	for _, f := range sh.flows {
		a, b := g.vertexOf(sh, f.dst), g.vertexOf(sh, f.src)
		if a == b || a == noVertex || b == noVertex {
			continue
		}
		pairs = append(pairs, keyed{uint64(min(a, b))<<32 | uint64(max(a, b)), int64(f.w)})
	}
	slices.SortFunc(pairs, func(x, y keyed) int {
		switch {
		case x.key < y.key:
			return -1
		case x.key > y.key:
			return 1
		}
		return 0
	})
	for i := 0; i < len(pairs); {
		k, w := pairs[i].key, int64(0)
		for ; i < len(pairs) && pairs[i].key == k; i++ {
			w += pairs[i].w
		}
		g.edges = append(g.edges, partition.Edge{U: int32(k >> 32), V: int32(uint32(k)), W: w})
	}
	g.findSingletons()
	return g
}

// vertexOf is the graph vertex of value v, or noVertex.
func (g *graph) vertexOf(sh *shadow, v uint32) uint32 {
	if vx := sh.vals[v].vertex; vx != noVertex {
		return g.vmap[vx]
	}
	return noVertex
}

// Singleton detection (Algorithm 3): a vertex whose degree is far above the
// centroid of the degree distribution (the smaller of the mean and the
// median degree), or that is adjacent to nearly every vertex, is a
// singleton: every task keeps a copy and collectives update it.
const (
	singletonScore = 0.9
	// minDensityVertices: in smaller graphs every well-connected vertex
	// touches most others, which says nothing.
	minDensityVertices = 16
)

func (g *graph) findSingletons() {
	g.singleton = make([]bool, g.n)
	if g.n == 0 {
		return
	}
	deg := make([]int64, g.n)
	for _, e := range g.edges {
		deg[e.U]++
		deg[e.V]++
	}
	// The distribution is that of the vertices that exchange values at
	// all: the isolated ones (index arrays, which only steer addresses)
	// would pull the centroid to 0 and make every connected vertex a
	// singleton.
	var connected []int64
	var sum int64
	for _, d := range deg {
		if d > 0 {
			connected = append(connected, d)
			sum += d
		}
	}
	if len(connected) == 0 {
		return
	}
	slices.Sort(connected)
	c := len(connected)
	median := float64(connected[c/2])
	if c%2 == 0 {
		median = float64(connected[c/2-1]+connected[c/2]) / 2
	}
	centroid := min(float64(sum)/float64(c), median)
	for v, d := range deg {
		var distance, density float64
		if float64(d) > centroid {
			distance = 1 - centroid/float64(d)
		}
		if c >= minDensityVertices {
			density = float64(d) / float64(c-1)
		}
		if max(distance, density) >= singletonScore {
			g.singleton[v] = true
			g.nsingle++
		}
	}
}

// partitionFor maps each vertex to a task, -1 for singletons.
func (g *graph) partitionFor(k int) (part []int32, cut int64, err error) {
	part = make([]int32, g.n)
	idx := make([]int32, g.n) // vertex -> index among the non-singletons
	var vw []int64
	for v := range part {
		if g.singleton[v] {
			part[v], idx[v] = -1, -1
			continue
		}
		idx[v] = int32(len(vw))
		vw = append(vw, g.weight[v])
	}
	if k == 1 || len(vw) == 0 {
		return part, 0, nil
	}
	var edges []partition.Edge
	for _, e := range g.edges {
		if u, v := idx[e.U], idx[e.V]; u >= 0 && v >= 0 {
			edges = append(edges, partition.Edge{U: u, V: v, W: e.W})
		}
	}
	pg := partition.FromEdges(len(vw), edges)
	pg.VW = vw
	sub, cut, err := partition.KWay(pg, k, partition.Options{Imbalance: 0.03, Seed: 1})
	if err != nil {
		return nil, 0, fmt.Errorf("partitioning the value graph into %d parts: %w", k, err)
	}
	for v := range part {
		if idx[v] >= 0 {
			part[v] = sub[idx[v]]
		}
	}
	return part, cut, nil
}

// singletonUse gathers, for one value of a singleton vertex, the tasks
// that compute its sources and the tasks that use it.
type singletonUse struct {
	from, to         int32 // first task seen; -1 none
	manyFrom, manyTo bool
}

// usedEverywhere records a use by another singleton, which every task
// computes with its own copy.
func (s *singletonUse) usedEverywhere() {
	s.manyTo = true
	s.to = max(s.to, 0)
}

func (s *singletonUse) addFrom(t int32) {
	if s.from < 0 {
		s.from = t
	} else if s.from != t {
		s.manyFrom = true
	}
}

func (s *singletonUse) addTo(t int32) {
	if s.to < 0 {
		s.to = t
	} else if s.to != t {
		s.manyTo = true
	}
}

// estimate is Algorithm 4 for k tasks: the chains whose ends are on
// different tasks carry their source value to the task that computes the
// sink, once per value and destination (redundant transfers pruned, as a
// task keeps what it has received); singleton values become collectives;
// output values go to task 0, which prints.
func (g *graph) estimate(sh *shadow, k int) (Result, error) {
	part, cut, err := g.partitionFor(k)
	if err != nil {
		return Result{}, err
	}
	r := Result{Tasks: k, Singletons: g.nsingle, EdgeCut: cut,
		MatrixBytes: square(k), PointToPoint: square(k), BroadcastBytes: make([]int64, k), ReduceBytes: make([]int64, k), Work: make([]int64, k)}
	owner := func(v uint32) int32 {
		if vx := g.vertexOf(sh, v); vx != noVertex {
			return part[vx]
		}
		return 0
	}
	uses := map[uint32]*singletonUse{}
	useOf := func(v uint32) *singletonUse {
		u := uses[v]
		if u == nil {
			u = &singletonUse{from: -1, to: -1}
			uses[v] = u
		}
		return u
	}
	var transfers []uint64 // value << 32 | destination task
	need := func(src uint32, dst int32) {
		switch ps := owner(src); {
		case ps < 0:
			useOf(src).addTo(dst)
		case ps != dst:
			transfers = append(transfers, uint64(src)<<32|uint64(dst))
		}
	}
	for _, f := range sh.flows {
		pd := owner(f.dst)
		if pd < 0 {
			if ps := owner(f.src); ps >= 0 {
				useOf(f.dst).addFrom(ps)
			} else {
				useOf(f.src).usedEverywhere()
			}
			continue
		}
		need(f.src, pd)
	}
	for _, v := range sh.outputs {
		need(v, 0)
	}
	slices.Sort(transfers)
	transfers = slices.Compact(transfers)
	for _, t := range transfers {
		v, dst := uint32(t>>32), int32(uint32(t))
		b := int64(sh.vals[v].size)
		r.PointToPoint[owner(v)][dst] += b
	}
	// Work: each vertex's on its task; a singleton's where it is computed.
	for v, w := range g.weight {
		if part[v] >= 0 {
			r.Work[part[v]] += w
		}
	}
	for id, val := range sh.vals[1:] {
		v := uint32(id + 1)
		if vx := g.vertexOf(sh, v); vx == noVertex || part[vx] >= 0 {
			continue
		}
		u := uses[v]
		b, w := int64(val.size), int64(max(val.ops, 1))
		switch {
		case k == 1 || u == nil || u.from < 0:
			// Computed from constants and other singletons: every task
			// computes its own copy.
			for t := range r.Work {
				r.Work[t] += w
			}
		case !u.manyFrom:
			r.Work[u.from] += w
			if u.to >= 0 && (u.manyTo || u.to != u.from) {
				r.BroadcastBytes[u.from] += b
			}
		default:
			for t := range r.Work {
				r.Work[t] += w / int64(k)
			}
			switch {
			case u.manyTo:
				r.AllreduceBytes += b
			case u.to >= 0:
				r.ReduceBytes[u.to] += b
			default:
				r.ReduceBytes[0] += b // computed and never read
			}
		}
	}
	for i := range k {
		for j := range k {
			r.MatrixBytes[i][j] = r.PointToPoint[i][j]
		}
	}
	for root, b := range r.BroadcastBytes {
		for j := range k {
			if j != root {
				r.MatrixBytes[root][j] += b
			}
		}
	}
	for root, b := range r.ReduceBytes {
		for j := range k {
			if j != root {
				r.MatrixBytes[j][root] += b
			}
		}
	}
	for j := 1; j < k; j++ {
		r.MatrixBytes[j][0] += r.AllreduceBytes
		r.MatrixBytes[0][j] += r.AllreduceBytes
	}
	for i := range k {
		var row int64
		for j := range k {
			row += r.MatrixBytes[i][j]
		}
		r.TotalBytes += row
		r.MaxTaskBytes = max(r.MaxTaskBytes, row)
	}
	return r, nil
}

func square(k int) [][]int64 {
	m := make([][]int64, k)
	cells := make([]int64, k*k)
	for i := range m {
		m[i] = cells[i*k : (i+1)*k : (i+1)*k]
	}
	return m
}
