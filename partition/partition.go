// Package partition splits a weighted graph into k parts of balanced vertex
// weight with few cut edges.
//
// PLACEHOLDER: this file stands in for the multilevel k-way partitioner
// that another branch of issue 14 delivers with exactly this API. It keeps
// the signatures and a simple graph-growing method (breadth-first order,
// cut into k runs of equal weight) so that frontend/valueflow builds and
// runs before that package lands; the lead replaces this file with it at
// merge time. Nothing else in the tree depends on how it partitions.
package partition

import (
	"errors"
	"fmt"
	"sort"
)

// Graph is an undirected graph in compressed sparse row form: the
// neighbours of vertex v are Adj[XAdj[v]:XAdj[v+1]], with edge weights
// AdjW (parallel to Adj) and vertex weights VW; nil weights mean 1. Each
// edge appears in the lists of both its ends.
type Graph struct {
	XAdj []int32
	Adj  []int32
	AdjW []int64
	VW   []int64
}

// Options tune KWay.
type Options struct {
	// Imbalance is the allowed excess of a part's weight over the mean, as
	// a fraction (0.03: 3%).
	Imbalance float64
	// Seed makes randomised choices repeatable.
	Seed uint64
}

// Edge is an undirected edge of weight W.
type Edge struct {
	U, V int32
	W    int64
}

// FromEdges builds the graph of n vertices with the given undirected
// edges; parallel edges are merged with their weights summed and self
// loops are dropped.
func FromEdges(n int, edges []Edge) *Graph {
	type half struct {
		to int32
		w  int64
	}
	lists := make([][]half, n)
	for _, e := range edges {
		if e.U == e.V {
			continue
		}
		lists[e.U] = append(lists[e.U], half{e.V, e.W})
		lists[e.V] = append(lists[e.V], half{e.U, e.W})
	}
	g := &Graph{XAdj: make([]int32, n+1)}
	for v, l := range lists {
		sort.Slice(l, func(i, j int) bool { return l[i].to < l[j].to })
		for i, h := range l {
			if i > 0 && l[i-1].to == h.to {
				g.AdjW[len(g.AdjW)-1] += h.w
				continue
			}
			g.Adj = append(g.Adj, h.to)
			g.AdjW = append(g.AdjW, h.w)
		}
		g.XAdj[v+1] = int32(len(g.Adj))
	}
	return g
}

// n is the number of vertices.
func (g *Graph) n() int { return len(g.XAdj) - 1 }

func (g *Graph) vw(v int) int64 {
	if g.VW == nil {
		return 1
	}
	return g.VW[v]
}

func (g *Graph) ew(i int32) int64 {
	if g.AdjW == nil {
		return 1
	}
	return g.AdjW[i]
}

// Cut is the total weight of the edges whose ends are in different parts.
func (g *Graph) Cut(part []int32) int64 {
	var cut int64
	for v := 0; v < g.n(); v++ {
		for i := g.XAdj[v]; i < g.XAdj[v+1]; i++ {
			if u := g.Adj[i]; int(u) > v && part[u] != part[v] {
				cut += g.ew(i)
			}
		}
	}
	return cut
}

// KWay assigns each vertex a part in 0..k-1 and returns the assignment and
// its edge cut.
func KWay(g *Graph, k int, opts Options) (part []int32, cut int64, err error) {
	if k < 1 {
		return nil, 0, fmt.Errorf("partition: %d parts; give at least 1", k)
	}
	n := g.n()
	if n < 0 || (g.VW != nil && len(g.VW) != n) || (g.AdjW != nil && len(g.AdjW) != len(g.Adj)) {
		return nil, 0, errors.New("partition: inconsistent graph arrays")
	}
	order := bfsOrder(g)
	var total int64
	for v := 0; v < n; v++ {
		total += g.vw(v)
	}
	part = make([]int32, n)
	var acc int64
	for _, v := range order {
		// The part whose share of the total weight contains the middle of v.
		p := int64(0)
		if total > 0 {
			p = (2*acc + g.vw(int(v))) * int64(k) / (2 * total)
		}
		part[v] = int32(min(p, int64(k-1)))
		acc += g.vw(int(v))
	}
	return part, g.Cut(part), nil
}

// bfsOrder lists the vertices breadth first, each component from a vertex
// of least degree, so that runs of the order are connected regions.
func bfsOrder(g *Graph) []int32 {
	n := g.n()
	byDegree := make([]int32, n)
	for v := range byDegree {
		byDegree[v] = int32(v)
	}
	sort.SliceStable(byDegree, func(i, j int) bool {
		a, b := byDegree[i], byDegree[j]
		return g.XAdj[a+1]-g.XAdj[a] < g.XAdj[b+1]-g.XAdj[b]
	})
	seen := make([]bool, n)
	order := make([]int32, 0, n)
	for _, s := range byDegree {
		if seen[s] {
			continue
		}
		seen[s] = true
		start := len(order)
		order = append(order, s)
		for head := start; head < len(order); head++ {
			v := order[head]
			for i := g.XAdj[v]; i < g.XAdj[v+1]; i++ {
				if u := g.Adj[i]; !seen[u] {
					seen[u] = true
					order = append(order, u)
				}
			}
		}
	}
	return order
}
