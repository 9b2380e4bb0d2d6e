package valueflow_test

// The volumes each MPI kernel must send, derived from its decomposition
// alone, independently of the C code, so that TestMPIVolumes checks both
// the kernels and mpicount. The comments work the figures out for the
// measured arguments (valueflow.Kernels); README.md tabulates them.
//
// Every kernel ends with MPI_Reduce of one double (its checksum) to task 0,
// which mpicount counts as 8 bytes from each other task to task 0:
// 8 (P - 1) bytes, 8, 24 and 56 on 2, 4 and 8 tasks.

// volumes is what mpicount measures, summed over tasks: bytes by sender
// (row) and receiver, bytes sent while counting was off, calls by name.
type volumes struct {
	p2p, coll [][]int64
	excluded  int64
	calls     map[string]int64
}

func newVolumes(p int) volumes {
	v := volumes{calls: map[string]int64{}}
	for range p {
		v.p2p = append(v.p2p, make([]int64, p))
		v.coll = append(v.coll, make([]int64, p))
	}
	return v
}

// checksumReduce adds the closing MPI_Reduce of one double to task 0.
func (v volumes) checksumReduce() volumes {
	for r := 1; r < len(v.coll); r++ {
		v.coll[r][0] += 8
	}
	v.calls["MPI_Reduce"] += int64(len(v.coll))
	return v
}

// blockLo is block_lo in kernels.h: the first of n items task r of p owns.
func blockLo(n int64, r, p int) int64 { return n * int64(r) / int64(p) }

func blockOwner(n, i int64, p int) int {
	r := 0
	for blockLo(n, r+1, p) <= i {
		r++
	}
	return r
}

// dims is what MPI_Dims_create(p, 2) returns: the most nearly square
// factorisation, larger factor first (2: 2 x 1, 4: 2 x 2, 8: 4 x 2).
func dims(p int) (rows, cols int) {
	c := 1
	for f := 1; f*f <= p; f++ {
		if p%f == 0 {
			c = f
		}
	}
	return p / c, c
}

var expected = map[string]func(args []int64, p int) volumes{
	// matmul n: task (i, j) of the pr x pc grid (rank i pc + j) owns an
	// nr x nc block of A and of B. MPI_Allgatherv on its grid row sends its A
	// block to the pc - 1 others there, and on its grid column its B block to
	// the pr - 1 others there. n = 64:
	//   2 tasks (2 x 1): the B blocks, 32 x 64 doubles = 16384 bytes, each
	//     way: 32768, and 8 for the checksum: 32776.
	//   4 tasks (2 x 2): 32 x 32 blocks, 8192 bytes, each to 2 tasks (one
	//     along the row with A, one down the column with B): 4 x 2 x 8192 =
	//     65536, plus 24: 65560.
	//   8 tasks (4 x 2): 16 x 32 blocks, 4096 bytes; A to 1 task, B to 3:
	//     8 x 4 x 4096 = 131072, plus 56: 131128.
	// In general 8 n^2 (pr - 1 + pc - 1) bytes: n^2 (pc - 1) doubles of A
	// and n^2 (pr - 1) of B.
	"matmul": func(args []int64, p int) volumes {
		n, v := args[0], newVolumes(p)
		pr, pc := dims(p)
		for r := range p {
			i, j := r/pc, r%pc
			blk := 8 * (blockLo(n, i+1, pr) - blockLo(n, i, pr)) * (blockLo(n, j+1, pc) - blockLo(n, j, pc))
			for q := range pc {
				if q != j {
					v.coll[r][i*pc+q] += blk
				}
			}
			for q := range pr {
				if q != i {
					v.coll[r][q*pc+j] += blk
				}
			}
		}
		v.calls["MPI_Allgatherv"] = 2 * int64(p)
		return v.checksumReduce()
	},

	// spmv n iterations: row blocks; each iteration task r receives from
	// task q once each the distinct columns of q's block that r's rows
	// reference. The counts come from spmvCols, which mirrors spmv_row in
	// kernels.h. With n = 4096 (a grid 16 wide and 256 long) and 10
	// iterations, every block boundary falls between two grid rows, and
	// only block neighbours talk, a grid row (16 entries) each way a
	// boundary: 32 x 8 x 10 = 2560 bytes a boundary, plus 8 a task but
	// task 0 for the checksum:
	//   2 tasks: 1 boundary, 2560 + 8 = 2568 bytes.
	//   4 tasks: 3 boundaries, 7680 + 24 = 7704.
	//   8 tasks: 7 boundaries, 17920 + 56 = 17976.
	// The set-up (MPI_Alltoall of one int per pair, MPI_Alltoallv of the
	// 4-byte indices of the same entries) runs with counting off:
	// 4 P (P - 1) + 4 x entries bytes, 136, 432 and 1120.
	"spmv": func(args []int64, p int) volumes {
		n, iters, v := args[0], args[1], newVolumes(p)
		need := make([][]map[int64]bool, p) // need[r][q]: columns r needs from q
		for r := range need {
			need[r] = make([]map[int64]bool, p)
			for q := range need[r] {
				need[r][q] = map[int64]bool{}
			}
		}
		for i := range n {
			r := blockOwner(n, i, p)
			for _, c := range spmvCols(n, i) {
				if q := blockOwner(n, c, p); q != r {
					need[r][q][c] = true
				}
			}
		}
		for r := range p {
			v.excluded += 4 * int64(p-1) // MPI_Alltoall of the counts
			for q := range p {
				k := int64(len(need[r][q]))
				v.excluded += 4 * k // MPI_Alltoallv of the indices
				v.p2p[q][r] += 8 * k * iters
				if k > 0 {
					v.calls["MPI_Isend"] += iters
				}
			}
		}
		v.calls["MPI_Alltoall"] = int64(p)
		v.calls["MPI_Alltoallv"] = int64(p)
		return v.checksumReduce()
	},

	// jacobi2d n iterations: task (i, j) of the pr x pc grid owns an
	// ni x nj block of unknowns and, before each sweep, sends its nj-wide
	// edge rows up and down and its ni-tall edge columns left and right,
	// where there is a task. n = 64, 20 sweeps:
	//   2 tasks (2 x 1): one cut, a row of 64 doubles each way: 2 x 64 x 8
	//     x 20 = 20480 bytes, plus 8: 20488.
	//   4 tasks (2 x 2): two cuts of two 32-long halves each way: 8 x 32 x 8
	//     x 20 = 40960, plus 24: 40984.
	//   8 tasks (4 x 2): three row cuts (2 x 32 each way) and one column cut
	//     (4 x 16 each way): (12 x 32 + 8 x 16) x 8 x 20 = 81920, plus 56:
	//     81976.
	// In general 8 x 2 n (pr - 1 + pc - 1) bytes a sweep, the halo's
	// surface. MPI_Sendrecv is called 4 times a sweep by every task, with
	// MPI_PROC_NULL at the grid's edge (counted as a call, not as bytes).
	"jacobi2d": func(args []int64, p int) volumes {
		n, iters, v := args[0], args[1], newVolumes(p)
		pr, pc := dims(p)
		for r := range p {
			i, j := r/pc, r%pc
			ni := blockLo(n, i+1, pr) - blockLo(n, i, pr)
			nj := blockLo(n, j+1, pc) - blockLo(n, j, pc)
			if i > 0 {
				v.p2p[r][r-pc] += 8 * nj * iters
			}
			if i < pr-1 {
				v.p2p[r][r+pc] += 8 * nj * iters
			}
			if j > 0 {
				v.p2p[r][r-1] += 8 * ni * iters
			}
			if j < pc-1 {
				v.p2p[r][r+1] += 8 * ni * iters
			}
		}
		v.calls["MPI_Sendrecv"] = 4 * iters * int64(p)
		return v.checksumReduce()
	},

	// histogram n bins iterations: one MPI_Allreduce of `bins` 8-byte
	// totals a step, counted as reduce-to-0 and broadcast: each other task
	// sends 8 x bins bytes to task 0 and task 0 sends as many back. 64 bins,
	// 10 steps: 512 bytes x 10 = 5120 each way a task pair:
	//   2 tasks: 2 x 5120 = 10240, plus 8: 10248.
	//   4 tasks: 6 x 5120 = 30720, plus 24: 30744.
	//   8 tasks: 14 x 5120 = 71680, plus 56: 71736.
	"histogram": func(args []int64, p int) volumes {
		bins, iters, v := args[1], args[2], newVolumes(p)
		for r := 1; r < p; r++ {
			v.coll[r][0] += 8 * bins * iters
			v.coll[0][r] += 8 * bins * iters
		}
		v.calls["MPI_Allreduce"] = iters * int64(p)
		return v.checksumReduce()
	},
}

// spmvCols lists the columns of row i of spmv's n x n matrix, in any
// order: spmv_row in kernels.h, re-stated (the 5-point pattern of a grid
// SPMV_WIDTH = 16 points wide, numbered along its short side).
func spmvCols(n, i int64) []int64 {
	const width = 16
	cols := []int64{i}
	if i >= width {
		cols = append(cols, i-width)
	}
	if i%width > 0 {
		cols = append(cols, i-1)
	}
	if i%width < width-1 && i+1 < n {
		cols = append(cols, i+1)
	}
	if i+width < n {
		cols = append(cols, i+width)
	}
	return cols
}

// selftestVolumes is what mpicount/selftest.c sends on p tasks, each
// counting rule of mpicount.c applied by hand to its calls.
func selftestVolumes(p int) volumes {
	v := newVolumes(p)
	for r := range p {
		v.p2p[r][(r+1)%p] += 8 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8) // MPI_Send .. MPI_Irsend to the right
		v.p2p[r][(r+p-1)%p] += 8 * 9                             // MPI_Sendrecv_replace to the left
		// On the communicator of r's parity, ranked highest task first,
		// rank 0 (the root) is the highest task of that parity.
		root := p - 1 - (p-1-r)%2
		for m := r % 2; m < p; m += 2 {
			switch {
			case r == root && m != r:
				v.coll[r][m] += 8*10 + 8*12 // MPI_Bcast; MPI_Allreduce, from rank 0
			case r != root && m == root:
				v.coll[r][m] += 8*11 + 8*12 // MPI_Reduce; MPI_Allreduce, to rank 0
			}
		}
		for j := range p {
			if j == r {
				continue
			}
			if r == 1 {
				v.coll[r][j] += 8 * 13 // MPI_Scatter from task 1
			}
			if r == 2 {
				v.coll[r][j] += 8 * int64(j+1) // MPI_Scatterv from task 2
			}
			if j == 3 {
				v.coll[r][j] += 8 * 14 // MPI_Gather to task 3
			}
			if j == 0 {
				v.coll[r][j] += 8 * int64(r+1) // MPI_Gatherv to task 0
			}
			v.coll[r][j] += 8*15 + // MPI_Allgather, in place
				8*int64(r+1) + // MPI_Allgatherv
				8*16 + // MPI_Alltoall
				8*int64(r+j+1) + // MPI_Alltoallv
				8*int64(j+1) + // MPI_Reduce_scatter
				8*17 // MPI_Reduce_scatter_block
		}
	}
	// MPI_Allreduce of 18 doubles with counting off.
	v.excluded = 2 * int64(p-1) * 8 * 18
	for _, name := range []string{"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend",
		"Sendrecv_replace", "Bcast", "Reduce", "Allreduce", "Scatter", "Scatterv", "Gather", "Gatherv",
		"Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Reduce_scatter", "Reduce_scatter_block"} {
		v.calls["MPI_"+name] = int64(p)
	}
	v.calls["MPI_Send"] += int64(p)      // to MPI_PROC_NULL: a call, no bytes
	v.calls["MPI_Allreduce"] += int64(p) // with counting off
	return v
}
