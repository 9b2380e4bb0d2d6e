package partition

import (
	"math"
)

// Test graph generators. They draw from the package's own rng so that the
// graphs are the same on every run and machine.

// grid2D is the nx by ny grid graph (4-neighbour stencil).
func grid2D(nx, ny int) *Graph {
	id := func(x, y int) int32 { return int32(y*nx + x) }
	var es []Edge
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			if x+1 < nx {
				es = append(es, Edge{id(x, y), id(x+1, y), 1})
			}
			if y+1 < ny {
				es = append(es, Edge{id(x, y), id(x, y+1), 1})
			}
		}
	}
	return FromEdges(nx*ny, es)
}

// grid3D is the nx by ny by nz grid graph (7-point stencil), built straight
// into compressed rows: at a million vertices, an edge list would double the
// memory.
func grid3D(nx, ny, nz int) *Graph {
	n := nx * ny * nz
	g := &Graph{XAdj: make([]int32, n+1), Adj: make([]int32, 0, 6*n)}
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				v := (z*ny+y)*nx + x
				if z > 0 {
					g.Adj = append(g.Adj, int32(v-nx*ny))
				}
				if y > 0 {
					g.Adj = append(g.Adj, int32(v-nx))
				}
				if x > 0 {
					g.Adj = append(g.Adj, int32(v-1))
				}
				if x+1 < nx {
					g.Adj = append(g.Adj, int32(v+1))
				}
				if y+1 < ny {
					g.Adj = append(g.Adj, int32(v+nx))
				}
				if z+1 < nz {
					g.Adj = append(g.Adj, int32(v+nx*ny))
				}
				g.XAdj[v+1] = int32(len(g.Adj))
			}
		}
	}
	return g
}

// randomGeometric places n points uniformly in the unit square and joins
// every two closer than radius.
func randomGeometric(n int, radius float64, seed uint64) *Graph {
	r := &rng{s: seed}
	xs, ys := make([]float64, n), make([]float64, n)
	cells := int(1 / radius)
	bucket := make([][]int32, cells*cells)
	cell := func(c float64) int { return min(int(c*float64(cells)), cells-1) }
	for i := range xs {
		xs[i] = float64(r.next()>>11) / (1 << 53)
		ys[i] = float64(r.next()>>11) / (1 << 53)
		b := cell(ys[i])*cells + cell(xs[i])
		bucket[b] = append(bucket[b], int32(i))
	}
	var es []Edge
	for i := range xs {
		cx, cy := cell(xs[i]), cell(ys[i])
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				x, y := cx+dx, cy+dy
				if x < 0 || y < 0 || x >= cells || y >= cells {
					continue
				}
				for _, j := range bucket[y*cells+x] {
					if int(j) > i && math.Hypot(xs[i]-xs[j], ys[i]-ys[j]) < radius {
						es = append(es, Edge{int32(i), j, 1})
					}
				}
			}
		}
	}
	return FromEdges(n, es)
}

// powerLaw is a Barabasi-Albert graph: each new vertex joins m earlier ones
// chosen with probability proportional to their degree.
func powerLaw(n, m int, seed uint64) *Graph {
	r := &rng{s: seed}
	var es []Edge
	var ends []int32 // every edge's endpoints: sampling it is sampling by degree
	for v := 1; v < n; v++ {
		for j := 0; j < m && j < v; j++ {
			u := int32(r.intn(v))
			if len(ends) > 0 && r.intn(4) > 0 {
				u = ends[r.intn(len(ends))]
			}
			es = append(es, Edge{int32(v), u, 1})
			ends = append(ends, int32(v), u)
		}
	}
	return FromEdges(n, es)
}

// withWeights gives g's edges random weights 1..maxEW (the same both ways)
// and its vertices random weights 1..maxVW.
func withWeights(g *Graph, maxEW, maxVW int, seed uint64) *Graph {
	r := &rng{s: seed}
	n := g.N()
	var es []Edge
	for v := 0; v < n; v++ {
		for p := g.XAdj[v]; p < g.XAdj[v+1]; p++ {
			if u := g.Adj[p]; int(u) > v {
				es = append(es, Edge{int32(v), u, int64(1 + r.intn(maxEW))})
			}
		}
	}
	w := FromEdges(n, es)
	w.VW = make([]int64, n)
	for v := range w.VW {
		w.VW[v] = int64(1 + r.intn(maxVW))
	}
	return w
}

// disjoint is the disjoint union of the graphs followed by isolated
// vertices.
func disjoint(isolated int, gs ...*Graph) *Graph {
	var es []Edge
	off := 0
	for _, g := range gs {
		for v := 0; v < g.N(); v++ {
			for p := g.XAdj[v]; p < g.XAdj[v+1]; p++ {
				if u := g.Adj[p]; int(u) > v {
					es = append(es, Edge{int32(off + v), int32(off) + u, g.edgeWeight(p)})
				}
			}
		}
		off += g.N()
	}
	return FromEdges(off+isolated, es)
}

// valueFlow imitates a value communication graph of the value-flow
// frontend: chains of values that each update the last (a loop-carried
// accumulator, an array cell rewritten every iteration), joined by heavy
// edges, the bytes that flow along the chain; light edges between values of
// neighbouring chains at about the same step (a stencil reading its
// neighbours); and a few light edges between random values. Chain lengths
// vary from maxLen/4 to maxLen, and values weigh 1 to 3 words.
func valueFlow(chains, maxLen int, seed uint64) *Graph {
	r := &rng{s: seed}
	first := make([]int, chains+1) // chain c's values are first[c]..first[c+1]-1
	for c := 0; c < chains; c++ {
		first[c+1] = first[c] + maxLen/4 + r.intn(maxLen-maxLen/4+1)
	}
	n := first[chains]
	var es []Edge
	for c := 0; c < chains; c++ {
		for v := first[c]; v+1 < first[c+1]; v++ {
			es = append(es, Edge{int32(v), int32(v + 1), int64(20 + r.intn(80))})
		}
		if c+1 == chains {
			continue
		}
		// Neighbouring chain, at a step within one of this one's.
		for v := first[c]; v < first[c+1]; v++ {
			if r.intn(2) == 0 {
				continue
			}
			step := v - first[c] + r.intn(3) - 1
			if u := first[c+1] + step; step >= 0 && u < first[c+2] {
				es = append(es, Edge{int32(v), int32(u), int64(1 + r.intn(4))})
			}
		}
	}
	for i := 0; i < n/50; i++ {
		es = append(es, Edge{int32(r.intn(n)), int32(r.intn(n)), int64(1 + r.intn(2))})
	}
	g := FromEdges(n, es)
	g.VW = make([]int64, n)
	for v := range g.VW {
		g.VW[v] = int64(1 + r.intn(3))
	}
	return g
}
