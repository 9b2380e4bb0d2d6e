package valueflow

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/codegen"
	examples "github.com/parley-hpc/parley/examples/valueflow"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// analyze runs the analysis of a testdata kernel for 1, 2 and 4 tasks.
func analyze(t *testing.T, file string, args ...string) *Report {
	t.Helper()
	needClang(t)
	rep, err := Analyze([]string{filepath.Join("testdata", file)}, Options{Tasks: []int{1, 2, 4}, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		checkConsistent(t, r)
	}
	return rep
}

// checkConsistent checks the figures of a result agree with its matrix.
func checkConsistent(t *testing.T, r Result) {
	t.Helper()
	var total, most int64
	for i, row := range r.MatrixBytes {
		var sent int64
		for j, b := range row {
			if i == j && b != 0 {
				t.Errorf("%d tasks: task %d sends itself %d bytes", r.Tasks, i, b)
			}
			sent += b
		}
		total += sent
		most = max(most, sent)
	}
	if total != r.TotalBytes || most != r.MaxTaskBytes {
		t.Errorf("%d tasks: total %d and most %d, but the matrix says %d and %d", r.Tasks, r.TotalBytes, r.MaxTaskBytes, total, most)
	}
	if r.Tasks == 1 && r.TotalBytes != 0 {
		t.Errorf("one task communicates %d bytes", r.TotalBytes)
	}
}

func result(t *testing.T, rep *Report, k int) Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Tasks == k {
			return r
		}
	}
	t.Fatalf("no result for %d tasks", k)
	return Result{}
}

func TestIndependentElementsNeedNothing(t *testing.T) {
	rep := analyze(t, "independent.c")
	for _, r := range rep.Results {
		if r.TotalBytes != 0 || r.Singletons != 0 {
			t.Errorf("%d tasks: %d bytes, %d singletons; want none", r.Tasks, r.TotalBytes, r.Singletons)
		}
	}
}

func TestHaloExchange(t *testing.T) {
	// Ten steps; each cut between neighbouring tasks carries one value
	// each way per step (8 bytes each), plus the printed element if it
	// is not on task 0.
	rep := analyze(t, "halo1d.c", "64", "10")
	for _, k := range []int{2, 4} {
		r := result(t, rep, k)
		halo := int64(k-1) * 10 * 2 * 8
		if r.TotalBytes < halo || r.TotalBytes > halo+8 {
			t.Errorf("%d tasks: %d bytes, want %d (+8)", k, r.TotalBytes, halo)
		}
		if r.Singletons != 0 {
			t.Errorf("%d tasks: %d singletons, want 0", k, r.Singletons)
		}
	}
}

func TestReductionsAreCollectives(t *testing.T) {
	// Three norms every element reads: all-reduces of 8 bytes each; the
	// printed total: a reduction to task 0.
	rep := analyze(t, "reduction.c", "512", "3")
	for _, k := range []int{2, 4} {
		r := result(t, rep, k)
		if r.AllreduceBytes != 24 || r.ReduceBytes[0] != 8 || r.Singletons != 4 {
			t.Errorf("%d tasks: all-reduce %d bytes, reduce to 0 %d bytes, %d singletons; want 24, 8, 4",
				k, r.AllreduceBytes, r.ReduceBytes[0], r.Singletons)
		}
		var p2p int64
		for _, row := range r.PointToPoint {
			for _, b := range row {
				p2p += b
			}
		}
		if want := int64(k-1) * (2*24 + 8); r.TotalBytes != want+p2p {
			t.Errorf("%d tasks: %d bytes in all, want %d collective + %d point to point", k, r.TotalBytes, want, p2p)
		}
	}
}

func TestAccumulationsExchangeOnlyWhatIsRead(t *testing.T) {
	// Eight bins of doubles, three steps: each step's finished bins are
	// all-reduced (64 bytes), not each of the 512 partial sums.
	rep := analyze(t, "bins.c", "512", "3")
	for _, k := range []int{2, 4} {
		r := result(t, rep, k)
		if r.AllreduceBytes != 3*8*8 || r.Singletons != 8 {
			t.Errorf("%d tasks: all-reduce %d bytes, %d singletons; want %d and 8", k, r.AllreduceBytes, r.Singletons, 3*8*8)
		}
		for i, b := range r.BroadcastBytes {
			if b != 0 {
				t.Errorf("%d tasks: task %d broadcasts %d bytes, want none", k, i, b)
			}
		}
	}
}

func TestSparseRowsAreNotSingletons(t *testing.T) {
	// The CSR kernel's set-up values (column indices, matrix entries) are
	// most of its vertices and have one or two neighbours; a row with 20
	// is ordinary all the same, whatever the number of iterations. The
	// one singleton is the printed checksum, which every row flows into.
	needClang(t)
	spmv := filepath.Join("..", "..", "examples", "valueflow", "kernels", "spmv.c")
	for _, args := range [][]string{{"512", "1"}, {"512", "2"}, {"2048", "5"}} {
		rep, err := Analyze([]string{spmv}, Options{Tasks: []int{2}, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Results[0]; r.Singletons != 1 {
			t.Errorf("spmv %v: %d singletons, want 1", args, r.Singletons)
		}
	}
}

func TestBroadcast(t *testing.T) {
	// One coefficient, computed where its source element lives and read
	// by every element: a broadcast of 8 bytes from that task.
	rep := analyze(t, "broadcast.c")
	for _, k := range []int{2, 4} {
		r := result(t, rep, k)
		var roots, bytes int64
		for _, b := range r.BroadcastBytes {
			if b > 0 {
				roots++
				bytes += b
			}
		}
		if roots != 1 || bytes != 8 || r.TotalBytes != int64(k-1)*8 {
			t.Errorf("%d tasks: broadcasts %v, %d bytes in all; want 8 bytes from one task, %d in all", k, r.BroadcastBytes, r.TotalBytes, (k-1)*8)
		}
	}
}

func TestTaskCounts(t *testing.T) {
	for _, tasks := range [][]int{nil, {0}, {2, -1}, {maxTasks + 1}} {
		if _, err := Analyze([]string{"testdata/retalign.ll"}, Options{Tasks: tasks}); err == nil {
			t.Errorf("tasks %v: no error", tasks)
		}
	}
}

// TestProgram: the program written for an estimate checks, runs in the
// interpreter with the estimate's point-to-point bytes per task, and
// compiles to C.
func TestProgram(t *testing.T) {
	plat, err := netmodel.Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"halo1d.c", "reduction.c", "broadcast.c", "independent.c"} {
		t.Run(file, func(t *testing.T) {
			rep := analyze(t, file)
			for _, k := range []int{1, 4} {
				p, err := rep.Program(k)
				if err != nil {
					t.Fatal(err)
				}
				src := lang.Format(p)
				if !strings.HasPrefix(string(src), "# Generated by parley analyze from "+file) {
					t.Errorf("the program does not start with its origin:\n%s", src)
				}
				parsed, diags := parser.Parse("gen.parley", src)
				if diags.HasErrors() {
					t.Fatalf("the program does not parse: %v\n%s", diags, src)
				}
				if diags := lang.Check(parsed); diags.HasErrors() {
					t.Fatalf("the program does not check: %v\n%s", diags, src)
				}
				prog, err := ir.Build(parsed)
				if err != nil {
					t.Fatal(err)
				}
				res, err := interp.Run(prog, interp.Options{NumTasks: int64(k), Platform: plat})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != interp.Finished || len(res.Problems) > 0 {
					t.Fatalf("%d tasks: the run ended %v with problems %v\n%s", k, res.Status, res.Problems, src)
				}
				r := result(t, rep, k)
				for i, ts := range res.Tasks {
					var want int64
					for _, b := range r.PointToPoint[i] {
						want += b
					}
					if ts.BytesSent != want {
						t.Errorf("%d tasks: task %d sends %d bytes point to point, the estimate %d", k, i, ts.BytesSent, want)
					}
				}
				if _, err := codegen.C(prog, codegen.Options{Name: "gen"}); err != nil {
					t.Errorf("codegen: %v", err)
				}
			}
			if _, err := rep.Program(3); err == nil || !strings.Contains(err.Error(), "1, 2, 4") {
				t.Errorf("program for 3 tasks: %v, want an error listing 1, 2, 4", err)
			}
		})
	}
}

func TestMessagesSplitLargeTransfers(t *testing.T) {
	specs := messages(3*maxMessage + 5)
	if len(specs) != 2 || specs[0].Count.(*lang.IntLit).Value != 3 || specs[1].Size.Amount.(*lang.IntLit).Value != 5 {
		t.Errorf("messages: %+v", specs)
	}
	if len(messages(0)) != 0 {
		t.Error("messages(0) is not empty")
	}
}

// TestNetsCountTheEstimate checks that the hypergraph the partitioner
// minimises is the estimate's own count: for each kernel on 4 tasks, the
// nets' volume under the partition equals the point-to-point bytes of the
// estimate, less what goes to task 0 for printing (the outputs, which the
// nets leave out), and a net joins values with the same vertex and
// readers (Jacobi's grid points, one net for all sweeps).
func TestNetsCountTheEstimate(t *testing.T) {
	needClang(t)
	for _, k := range examples.Kernels() {
		mod, err := loadModule([]string{filepath.Join("..", "..", k.Serial)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := compile(mod)
		if err != nil {
			t.Fatal(err)
		}
		m := execute(t, p, k.Args...)
		m.snapshotLive()
		g := buildGraph(m.sh, m.conform)
		var outputs int64
		for _, v := range m.sh.outputs {
			outputs += int64(m.sh.vals[v].size)
		}
		for _, tasks := range []int{4} {
			part, _, err := g.partitionFor(tasks)
			if err != nil {
				t.Fatal(err)
			}
			r, err := g.estimate(m.sh, tasks)
			if err != nil {
				t.Fatal(err)
			}
			var p2p, vol int64
			for _, row := range r.PointToPoint {
				for _, b := range row {
					p2p += b
				}
			}
			seen := map[int32]bool{}
			x := g.nets
			for e, u := range x.Src {
				clear(seen)
				for _, v := range x.Pins[x.Ptr[e]:x.Ptr[e+1]] {
					if q := part[v]; q != part[u] && !seen[q] {
						seen[q] = true
						vol += x.Cost[e]
					}
				}
			}
			if vol > p2p || p2p > vol+outputs {
				t.Errorf("%s on %d tasks: the nets count %d bytes, the estimate %d point to point, %d of them possibly outputs", k.Name, tasks, vol, p2p, outputs)
			}
		}
		if k.Name == "jacobi2d" {
			// 64 x 64 points, one net each, and the boundary's.
			if n := len(g.nets.Src); n < 64*64 || n > 66*66 {
				t.Errorf("jacobi2d: %d nets, want one per grid point (64 x 64 to 66 x 66)", n)
			}
		}
	}
}
