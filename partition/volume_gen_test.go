package partition

// matmulVCG is the value communication graph of C = A B for n x n
// matrices as the value-flow frontend builds it from matmul.c: the
// elements of A, B and C at the same index (i, j) are one vertex (the
// frontend joins conformable arrays), and C(i, j), computed from row i of A
// and column j of B, joins it to every other vertex of its row and of its
// column, the data flowing both ways (vertex (i, j) sends A(i, j) along its
// row and B(i, j) along its column). Every vertex weighs the n
// multiply-adds of its C element, every value is a double, 8 bytes.
// Vertex (i, j) is i n + j.
func matmulVCG(n int) *Graph {
	g := FromEdges(n*n, matmulVCGArcs(n))
	g.VW = make([]int64, n*n)
	g.VSize = make([]int64, n*n)
	for v := range g.VW {
		g.VW[v], g.VSize[v] = int64(n), 8
	}
	return g
}

// matmulBlocks is the 2-D block decomposition of matmul_mpi.c on a pr x pc
// grid of tasks: task (r, c) owns block (r, c) of A, B and C.
func matmulBlocks(n, pr, pc int) []int32 {
	part := make([]int32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			part[i*n+j] = int32((i*pr/n)*pc + j*pc/n)
		}
	}
	return part
}

// matmulVCGArcs lists matmulVCG(n)'s edges as arcs, one way only where
// vertex i n + j sends A(i, j) along row i (to the right) and B(i, j) down
// column j: a directed graph of the same shape, for tests of Sends.
func matmulVCGArcs(n int) []Edge {
	var arcs []Edge
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for l := j + 1; l < n; l++ {
				arcs = append(arcs, Edge{int32(i*n + j), int32(i*n + l), 1}, Edge{int32(j*n + i), int32(l*n + i), 1})
			}
		}
	}
	return arcs
}

// matmulNets is the exact volume of matmulVCG(n): vertex (i, j) sends
// A(i, j), 8 bytes, to the vertices of row i, and B(i, j) to those of
// column j; a part holding both gets both.
func matmulNets(n int) *Nets {
	x := &Nets{Ptr: []int32{0}}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for _, row := range []bool{true, false} {
				for l := 0; l < n; l++ {
					pin := i*n + l
					if !row {
						pin = l*n + j
					}
					x.Pins = append(x.Pins, int32(pin))
				}
				x.Src = append(x.Src, int32(i*n+j))
				x.Cost = append(x.Cost, 8)
				x.Ptr = append(x.Ptr, int32(len(x.Pins)))
			}
		}
	}
	return x
}

// randomNets puts up to 3 nets on each vertex of a graph of n vertices,
// with up to 5 pins each (possibly the source) and costs 0 to 4.
func randomNets(r *rng, n int) *Nets {
	x := &Nets{Ptr: []int32{0}}
	for u := 0; u < n; u++ {
		for range r.intn(4) {
			seen := map[int32]bool{}
			for range r.intn(6) {
				if v := int32(r.intn(n)); !seen[v] {
					seen[v] = true
					x.Pins = append(x.Pins, v)
				}
			}
			x.Src = append(x.Src, int32(u))
			x.Cost = append(x.Cost, int64(r.intn(5)))
			x.Ptr = append(x.Ptr, int32(len(x.Pins)))
		}
	}
	return x
}
