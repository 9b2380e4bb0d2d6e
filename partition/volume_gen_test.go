package partition

// matmulVCG is the value communication graph of C = A B for n x n
// matrices as the value-flow frontend builds it from matmul.c: a vertex per
// element of A, B and C (C's running sums are one vertex, a location
// rewritten in place), and an arc from A(i, k) and from B(k, j) to C(i, j)
// for every k, the values read. Elements of A and B weigh one operation
// (their creation), those of C the n multiply-adds; every value is a
// double, 8 bytes. A(i, k) is vertex i n + k, B(k, j) n^2 + k n + j and
// C(i, j) 2 n^2 + i n + j.
func matmulVCG(n int) *Graph {
	a := func(i, k int) int32 { return int32(i*n + k) }
	b := func(k, j int) int32 { return int32(n*n + k*n + j) }
	c := func(i, j int) int32 { return int32(2*n*n + i*n + j) }
	var arcs []Edge
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				arcs = append(arcs, Edge{a(i, k), c(i, j), 1}, Edge{b(k, j), c(i, j), 1})
			}
		}
	}
	g := FromArcs(3*n*n, arcs)
	g.VW = make([]int64, 3*n*n)
	g.VSize = make([]int64, 3*n*n)
	for v := range g.VW {
		g.VW[v], g.VSize[v] = 1, 8
		if v >= 2*n*n {
			g.VW[v] = int64(n)
		}
	}
	return g
}

// matmulBlocks is the 2-D block decomposition of matmul_mpi.c on a pr x pc
// grid of tasks: task (r, c) owns block (r, c) of A, B and C.
func matmulBlocks(n, pr, pc int) []int32 {
	part := make([]int32, 3*n*n)
	for m := 0; m < 3; m++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				part[m*n*n+i*n+j] = int32((i*pr/n)*pc + j*pc/n)
			}
		}
	}
	return part
}
