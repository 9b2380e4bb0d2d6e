package partition

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Graph is an undirected graph in compressed sparse rows, as METIS takes it.
// Every edge {u, v} appears twice, as v in u's list and as u in v's list,
// with the same weight both ways.
type Graph struct {
	XAdj []int32 // len n+1: the neighbours of v are Adj[XAdj[v]:XAdj[v+1]]
	Adj  []int32
	AdjW []int64 // edge weights, parallel to Adj; nil: all 1
	VW   []int64 // vertex weights; nil: all 1

	// VSize and Sends describe communication for the Volume objective
	// (see Graph.Volume); the Cut objective ignores them.
	//
	// VSize is each vertex's size, what it costs to send its data to one
	// other part (METIS's vsize); nil: all 1.
	VSize []int64
	// Sends, parallel to Adj, says which way data flows along each edge:
	// Sends[p] for an entry p in v's list means that v's data goes to
	// Adj[p]. nil means both ways along every edge, METIS's undirected
	// definition. An edge whose entries are both false carries no data
	// but still counts for the cut and for coarsening.
	Sends []bool
	// Nets, if set, defines the volume exactly where VSize and Sends
	// cannot: where one vertex's data goes different ways (two values,
	// each read by its own vertices). Graph.Volume and the refinement of
	// the partition of g itself then count Nets; the coarser graphs of
	// the multilevel scheme still go by VSize and Sends, which should
	// approximate it.
	Nets *Nets
}

// Nets is a hypergraph on a Graph's vertices, the lambda - 1 volume
// model of hypergraph partitioners: net e carries Cost[e] of vertex
// Src[e]'s data to the vertices Pins[Ptr[e]:Ptr[e+1]], and sends it once
// to every part other than Src[e]'s own that holds one of them. A pin
// equal to its net's source adds nothing.
type Nets struct {
	Src  []int32 // per net: the vertex whose data it is
	Ptr  []int32 // len nets+1
	Pins []int32 // the vertices that use the data, each once per net
	Cost []int64 // per net: what sending its data to one part costs
}

// Edge is an undirected edge of weight W between vertices U and V, for
// FromEdges.
type Edge struct {
	U, V int32
	W    int64
}

// maxWeightSum bounds the total vertex weight and the total edge weight of a
// graph: the partitioner compares part weights against float64 limits, and
// float64 holds every integer up to 2^53 exactly.
const maxWeightSum = 1 << 53

// N returns the number of vertices.
func (g *Graph) N() int {
	if len(g.XAdj) == 0 {
		return 0
	}
	return len(g.XAdj) - 1
}

// FromArcs builds the graph of FromEdges(n, arcs) with Sends set from the
// arcs' direction: arc {U, V, W} says that U's data goes to V. Arcs both
// ways between two vertices become one edge whose weight is the sum of
// all of theirs, with data flowing both ways.
func FromArcs(n int, arcs []Edge) *Graph {
	g := FromEdges(n, arcs)
	g.Sends = make([]bool, len(g.Adj))
	for _, a := range arcs {
		if a.U == a.V {
			continue
		}
		// FromEdges sorts each neighbour list.
		lo, hi := g.XAdj[a.U], g.XAdj[a.U+1]
		p, _ := slices.BinarySearch(g.Adj[lo:hi], a.V)
		g.Sends[lo+int32(p)] = true
	}
	return g
}

// FromEdges builds the graph on vertices 0..n-1 with the given edges. An edge
// listed more than once (either way round) becomes one edge whose weight is
// the sum of the listed weights; self loops are dropped, as they never cross a
// part boundary. W is taken as given, so an unweighted graph lists W: 1.
// Every vertex gets weight 1 (VW is nil); neighbour lists come out sorted.
//
// An endpoint outside [0, n), or more than 2^31-1 adjacency entries, is a
// programming error and panics.
func FromEdges(n int, edges []Edge) *Graph {
	if n < 0 || n >= math.MaxInt32 {
		panic(fmt.Sprintf("partition.FromEdges: %d vertices, want 0 <= n < 2^31-1", n))
	}
	// Count the directed entries per source vertex.
	start := make([]int64, n+1)
	for i, e := range edges {
		if e.U < 0 || int(e.U) >= n || e.V < 0 || int(e.V) >= n {
			panic(fmt.Sprintf("partition.FromEdges: edge %d is {%d, %d}, outside the vertices 0..%d", i, e.U, e.V, n-1))
		}
		if e.U != e.V {
			start[e.U+1]++
			start[e.V+1]++
		}
	}
	for v := 0; v < n; v++ {
		start[v+1] += start[v]
	}
	total := start[n]
	if total > math.MaxInt32 {
		panic(fmt.Sprintf("partition.FromEdges: %d adjacency entries, more than 2^31-1", total))
	}
	// Two stable bucket passes, first by target and then by source, leave
	// every source's targets in increasing order, so duplicates end up next
	// to each other and merging them is one linear sweep. The graph is
	// symmetric, so the per-target buckets have the per-source sizes.
	src := make([]int32, total) // by target: the entry's source
	srcW := make([]int64, total)
	cursor := slices.Clone(start[:n])
	for _, e := range edges {
		if e.U == e.V {
			continue
		}
		src[cursor[e.V]], srcW[cursor[e.V]] = e.U, e.W
		cursor[e.V]++
		src[cursor[e.U]], srcW[cursor[e.U]] = e.V, e.W
		cursor[e.U]++
	}
	adj := make([]int32, total)
	adjw := make([]int64, total)
	copy(cursor, start[:n])
	for t := 0; t < n; t++ {
		for p := start[t]; p < start[t+1]; p++ {
			s := src[p]
			adj[cursor[s]], adjw[cursor[s]] = int32(t), srcW[p]
			cursor[s]++
		}
	}
	// Merge duplicates in place.
	g := &Graph{XAdj: make([]int32, n+1)}
	out := int64(0)
	for v := 0; v < n; v++ {
		g.XAdj[v] = int32(out)
		for p := start[v]; p < start[v+1]; p++ {
			if out > int64(g.XAdj[v]) && adj[out-1] == adj[p] {
				adjw[out-1] += adjw[p]
				continue
			}
			adj[out], adjw[out] = adj[p], adjw[p]
			out++
		}
	}
	g.XAdj[n] = int32(out)
	g.Adj = adj[:out:out]
	g.AdjW = adjw[:out:out]
	return g
}

// Validate reports the first way in which g is not a valid graph: XAdj not a
// non-decreasing index into Adj starting at 0, weight slices of the wrong
// length, negative weights or sizes, weight or size totals above 2^53, a neighbour index out
// of range, a self loop, a neighbour listed twice, or an edge listed one way
// only or with different weights its two ways.
func (g *Graph) Validate() error {
	if g == nil {
		return errors.New("partition: nil graph")
	}
	if v, msg := g.check(0); msg != "" {
		if v < 0 {
			return fmt.Errorf("partition: invalid graph: %s", msg)
		}
		return fmt.Errorf("partition: invalid graph: vertex %d: %s", v, msg)
	}
	return nil
}

// check does Validate's work. Vertex numbers in messages are offset by base
// (1 for the METIS file format), and v is the offending vertex, 0-based, or
// -1 when the fault is not one vertex's.
func (g *Graph) check(base int) (v int, msg string) {
	if len(g.XAdj) == 0 {
		if len(g.Adj) != 0 || len(g.AdjW) != 0 || len(g.VW) != 0 || len(g.VSize) != 0 || len(g.Sends) != 0 || g.Nets != nil {
			return -1, fmt.Sprintf("XAdj is empty but Adj has %d entries, AdjW %d, VW %d, VSize %d and Sends %d; XAdj needs n+1 entries", len(g.Adj), len(g.AdjW), len(g.VW), len(g.VSize), len(g.Sends))
		}
		return -1, ""
	}
	n := len(g.XAdj) - 1
	if n >= math.MaxInt32 {
		return -1, fmt.Sprintf("%d vertices, more than 2^31-2", n)
	}
	if g.XAdj[0] != 0 {
		return -1, fmt.Sprintf("XAdj[0] is %d, want 0", g.XAdj[0])
	}
	if int(g.XAdj[n]) != len(g.Adj) {
		return -1, fmt.Sprintf("XAdj[%d] is %d but Adj has %d entries; they must agree", n, g.XAdj[n], len(g.Adj))
	}
	if g.AdjW != nil && len(g.AdjW) != len(g.Adj) {
		return -1, fmt.Sprintf("AdjW has %d entries, Adj %d; give one weight per entry or nil for all 1", len(g.AdjW), len(g.Adj))
	}
	if g.VW != nil && len(g.VW) != n {
		return -1, fmt.Sprintf("VW has %d entries for %d vertices; give one weight per vertex or nil for all 1", len(g.VW), n)
	}
	if g.VSize != nil && len(g.VSize) != n {
		return -1, fmt.Sprintf("VSize has %d entries for %d vertices; give one size per vertex or nil for all 1", len(g.VSize), n)
	}
	if g.Sends != nil && len(g.Sends) != len(g.Adj) {
		return -1, fmt.Sprintf("Sends has %d entries, Adj %d; give one flag per entry or nil for data flowing both ways", len(g.Sends), len(g.Adj))
	}
	if g.Nets != nil {
		if msg := g.Nets.check(n, base); msg != "" {
			return -1, "Nets: " + msg
		}
	}
	var tvsize int64
	for u, s := range g.VSize {
		if s < 0 {
			return u, fmt.Sprintf("size %d is negative; sizes must be >= 0", s)
		}
		if tvsize += s; tvsize > maxWeightSum {
			return u, "the vertex sizes add up to more than 2^53; scale them down"
		}
	}
	var tvw int64
	for u := 0; u < n; u++ {
		if g.XAdj[u+1] < g.XAdj[u] {
			return u, fmt.Sprintf("XAdj decreases from %d to %d; it must be non-decreasing", g.XAdj[u], g.XAdj[u+1])
		}
		if g.VW != nil {
			w := g.VW[u]
			if w < 0 {
				return u, fmt.Sprintf("weight %d is negative; weights must be >= 0", w)
			}
			if tvw += w; tvw > maxWeightSum {
				return u, "the vertex weights add up to more than 2^53; scale them down"
			}
		}
	}
	var tew int64
	for p, w := range g.AdjW {
		if w < 0 {
			return ownerOf(g.XAdj, p), fmt.Sprintf("edge to %d has negative weight %d; weights must be >= 0", int(g.Adj[p])+base, w)
		}
		if tew += w; tew > 2*maxWeightSum {
			return ownerOf(g.XAdj, p), "the edge weights add up to more than 2^53; scale them down"
		}
	}
	if sortedSymmetric(g) {
		return -1, ""
	}
	// The transpose (who lists u, with which weight) built by counting sort;
	// then u's own list must be the same set with the same weights.
	cnt := make([]int32, n+1)
	for u := 0; u < n; u++ {
		for p := g.XAdj[u]; p < g.XAdj[u+1]; p++ {
			x := g.Adj[p]
			if x < 0 || int(x) >= n {
				return u, fmt.Sprintf("neighbour %d is out of range %d..%d", int(x)+base, base, n-1+base)
			}
			if int(x) == u {
				return u, "has a self loop; drop it (it never crosses a part boundary)"
			}
			cnt[x+1]++
		}
	}
	for u := 0; u < n; u++ {
		cnt[u+1] += cnt[u]
	}
	tsrc := make([]int32, len(g.Adj))
	var tw []int64
	if g.AdjW != nil {
		tw = make([]int64, len(g.Adj))
	}
	for u := 0; u < n; u++ {
		for p := g.XAdj[u]; p < g.XAdj[u+1]; p++ {
			x := g.Adj[p]
			q := cnt[x]
			tsrc[q] = int32(u)
			if tw != nil {
				tw[q] = g.AdjW[p]
			}
			cnt[x]++
		}
	}
	// cnt[u] is now the end of u's transposed entries (and the start of
	// u+1's).
	mark := make([]int32, n)
	mw := make([]int64, n)
	for u := range mark {
		mark[u] = -1
	}
	lo := int32(0)
	for u := 0; u < n; u++ {
		hi := cnt[u]
		for p := g.XAdj[u]; p < g.XAdj[u+1]; p++ {
			x := g.Adj[p]
			if mark[x] == int32(u) {
				return u, fmt.Sprintf("lists neighbour %d twice; merge the two entries into one edge (FromEdges adds their weights)", int(x)+base)
			}
			mark[x] = int32(u)
			if g.AdjW != nil {
				mw[x] = g.AdjW[p]
			}
		}
		for q := lo; q < hi; q++ {
			x := tsrc[q]
			if mark[x] != int32(u) {
				return u, fmt.Sprintf("is listed as a neighbour by vertex %d but does not list %d; list every edge both ways", int(x)+base, int(x)+base)
			}
			if tw != nil && mw[x] != tw[q] {
				return u, fmt.Sprintf("edge to %d has weight %d here and %d at %d; give both ways the same weight", int(x)+base, mw[x], tw[q], int(x)+base)
			}
		}
		// Same size and every incoming entry present: the sets are equal
		// (duplicates were rejected above).
		if int32(hi-lo) != g.XAdj[u+1]-g.XAdj[u] {
			for p := g.XAdj[u]; p < g.XAdj[u+1]; p++ {
				mark[g.Adj[p]] = -2 // u's own list, to find the one not matched
			}
			for q := lo; q < hi; q++ {
				mark[tsrc[q]] = -1
			}
			for p := g.XAdj[u]; p < g.XAdj[u+1]; p++ {
				if x := g.Adj[p]; mark[x] == -2 {
					return u, fmt.Sprintf("lists neighbour %d but %d does not list it; list every edge both ways", int(x)+base, int(x)+base)
				}
			}
		}
		lo = hi
	}
	return -1, ""
}

// check reports the first way in which x is not a valid hypergraph on n
// vertices, numbered from base in the message, or "".
func (x *Nets) check(n, base int) string {
	ne := len(x.Src)
	if len(x.Cost) != ne || len(x.Ptr) != ne+1 {
		return fmt.Sprintf("%d sources, %d costs and %d pointers; give one source and cost per net and nets+1 pointers", ne, len(x.Cost), len(x.Ptr))
	}
	if x.Ptr[0] != 0 || int(x.Ptr[ne]) != len(x.Pins) {
		return fmt.Sprintf("Ptr runs from %d to %d over %d pins; it must run from 0 to the number of pins", x.Ptr[0], x.Ptr[ne], len(x.Pins))
	}
	seen := make([]int32, n) // seen[v] == e+1: v is a pin of net e
	var total int64
	for e := 0; e < ne; e++ {
		if u := x.Src[e]; u < 0 || int(u) >= n {
			return fmt.Sprintf("net %d: source %d is out of range %d..%d", e, int(u)+base, base, n-1+base)
		}
		if c := x.Cost[e]; c < 0 {
			return fmt.Sprintf("net %d: cost %d is negative; costs must be >= 0", e, c)
		}
		if total += x.Cost[e]; total > maxWeightSum {
			return "the costs add up to more than 2^53; scale them down"
		}
		if x.Ptr[e+1] < x.Ptr[e] {
			return fmt.Sprintf("net %d: Ptr decreases from %d to %d; it must be non-decreasing", e, x.Ptr[e], x.Ptr[e+1])
		}
		for _, v := range x.Pins[x.Ptr[e]:x.Ptr[e+1]] {
			if v < 0 || int(v) >= n {
				return fmt.Sprintf("net %d: pin %d is out of range %d..%d", e, int(v)+base, base, n-1+base)
			}
			if seen[v] == int32(e+1) {
				return fmt.Sprintf("net %d lists pin %d twice; list each once", e, int(v)+base)
			}
			seen[v] = int32(e + 1)
		}
	}
	return ""
}

// sortedSymmetric is check's fast path for the common case of neighbour
// lists in increasing order (as FromEdges makes them): it reports whether
// the lists are strictly increasing, in range, free of self loops and
// symmetric with equal weights, in one sweep and one array. Visiting the
// vertices in order, the entries u -> v with u < v arrive in increasing u,
// which is the order of the entries below v in v's sorted list; next[v]
// walks that part of v's list. Any fault sends check to its slow path,
// which says what the fault is.
func sortedSymmetric(g *Graph) bool {
	n := len(g.XAdj) - 1
	next := make([]int32, n)
	copy(next, g.XAdj[:n])
	for u := 0; u < n; u++ {
		lo, hi := g.XAdj[u], g.XAdj[u+1]
		prev := int32(-1)
		for p := lo; p < hi; p++ {
			v := g.Adj[p]
			if v <= prev || v < 0 || int(v) >= n || int(v) == u {
				return false
			}
			prev = v
			if int(v) < u {
				// Must have been matched from v's side already.
				if p >= next[u] {
					return false
				}
				continue
			}
			q := next[v]
			if q >= g.XAdj[v+1] || int(g.Adj[q]) != u || (g.AdjW != nil && g.AdjW[q] != g.AdjW[p]) {
				return false
			}
			next[v]++
		}
	}
	return true
}

// ownerOf returns the vertex whose neighbour list holds adjacency entry p.
func ownerOf(xadj []int32, p int) int {
	lo, hi := 0, len(xadj)-1 // xadj[lo] <= p < xadj[hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if int(xadj[mid]) <= p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Cut returns the total weight of the edges whose ends are in different
// parts. part holds one part number per vertex; Cut panics if its length is
// not the number of vertices.
func (g *Graph) Cut(part []int32) int64 {
	n := g.N()
	if len(part) != n {
		panic(fmt.Sprintf("partition: Cut of a %d-vertex graph given %d part numbers", n, len(part)))
	}
	var cut int64
	for v := 0; v < n; v++ {
		pv := part[v]
		for p := g.XAdj[v]; p < g.XAdj[v+1]; p++ {
			if u := g.Adj[p]; int(u) > v && part[u] != pv {
				cut += g.edgeWeight(p)
			}
		}
	}
	return cut
}

// Volume returns the total communication volume of the partition: the sum
// over the vertices v of VSize[v] times the number of parts other than v's
// own that v's data goes to, those of the neighbours it sends to (all its
// neighbours when Sends is nil, which is METIS's definition, gpmetis
// -objtype=vol). It is what a program distributed by part sends if every
// vertex's data goes once to each other part that uses it. When g.Nets is
// set, it is the sum over the nets of their cost times the number of parts
// other than their source's that hold one of their pins, and VSize and
// Sends play no part.
//
// part holds one part number >= 0 per vertex; Volume panics if its length
// is not the number of vertices or a part number is negative.
func (g *Graph) Volume(part []int32) int64 {
	n := g.N()
	if len(part) != n {
		panic(fmt.Sprintf("partition: Volume of a %d-vertex graph given %d part numbers", n, len(part)))
	}
	k := int32(0)
	for v, q := range part {
		if q < 0 {
			panic(fmt.Sprintf("partition: Volume: vertex %d has part %d; parts are numbered from 0", v, q))
		}
		k = max(k, q+1)
	}
	// seen[q] == e+1: part q already counted for net e.
	seen := make([]int32, k)
	var vol int64
	count := func(e int, src int32, pins []int32, keep func(i int) bool, cost int64) {
		var parts int64
		for i, x := range pins {
			if keep != nil && !keep(i) {
				continue
			}
			if q := part[x]; q != part[src] && seen[q] != int32(e+1) {
				seen[q] = int32(e + 1)
				parts++
			}
		}
		vol += cost * parts
	}
	if x := g.Nets; x != nil {
		for e, u := range x.Src {
			count(e, u, x.Pins[x.Ptr[e]:x.Ptr[e+1]], nil, x.Cost[e])
		}
		return vol
	}
	for v := 0; v < n; v++ {
		lo, hi := g.XAdj[v], g.XAdj[v+1]
		var keep func(i int) bool
		if g.Sends != nil {
			keep = func(i int) bool { return g.Sends[lo+int32(i)] }
		}
		size := int64(1)
		if g.VSize != nil {
			size = g.VSize[v]
		}
		count(v, int32(v), g.Adj[lo:hi], keep, size)
	}
	return vol
}

// edgeWeight is the weight of adjacency entry p.
func (g *Graph) edgeWeight(p int32) int64 {
	if g.AdjW == nil {
		return 1
	}
	return g.AdjW[p]
}
