package tracer_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/lower"
	"github.com/parley-hpc/parley/frontend/trace/ptrace"
	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/tracer"
)

// app is one of examples/apps with the options the tests run it with.
type app struct {
	name string
	args []string
}

// testApps are small enough for a 2-core machine running 8 ranks.
var testApps = []app{
	{"jacobi", []string{"--n", "32"}},
	{"cg", []string{"--nx", "64", "--rows", "16"}},
	{"particles", []string{"--n", "600"}},
}

var (
	libOnce sync.Once
	libPath string
	libErr  error
)

// library builds the tracer once per test binary, in a fresh cache.
func library(t testing.TB) string {
	t.Helper()
	mpicc, _ := mpitest.Tools(t)
	libOnce.Do(func() {
		cache, err := os.MkdirTemp("", "parley-tracer-test-")
		if err != nil {
			libErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		libPath, _, libErr = tracer.Build(ctx, mpicc, cache)
	})
	if libErr != nil {
		t.Fatal(libErr)
	}
	return libPath
}

// buildApp compiles examples/apps/NAME.c into dir.
func buildApp(t testing.TB, dir, name string) string {
	t.Helper()
	mpicc, _ := mpitest.Tools(t)
	exe := filepath.Join(dir, name)
	src := filepath.Join("..", "examples", "apps", name+".c")
	out, err := exec.Command(mpicc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, src, "-lm").CombinedOutput()
	if err != nil {
		t.Fatalf("mpicc %s: %v\n%s", src, err, out)
	}
	return exe
}

// traceRun runs exe on n ranks with the tracer and reads the trace.
func traceRun(t testing.TB, exe string, n int64, args ...string) (*ptrace.Run, mpitest.Output) {
	t.Helper()
	return traceRunEnv(t, exe, n, nil, args...)
}

// traceRunEnv is traceRun with more variables in the ranks' environment.
func traceRunEnv(t testing.TB, exe string, n int64, env []string, args ...string) (*ptrace.Run, mpitest.Output) {
	t.Helper()
	_, mpirun := mpitest.Tools(t)
	lib := library(t)
	dir, err := os.MkdirTemp(filepath.Dir(exe), "trace-")
	if err != nil {
		t.Fatal(err)
	}
	env = append([]string{"LD_PRELOAD=" + lib, "PARLEY_TRACE_DIR=" + dir}, env...)
	out, err := mpitest.Run(t, mpirun, exe, n, args, 3*time.Minute, env...)
	if err != nil {
		t.Fatalf("%s on %d ranks: %v\n%s", exe, n, err, out)
	}
	run, err := ptrace.ReadRun(dir)
	if err != nil {
		t.Fatalf("%s on %d ranks: %v\n%s", exe, n, err, out)
	}
	if run.Trace.Partial != "" {
		t.Fatalf("%s on %d ranks: a partial trace: %s", exe, n, run.Trace.Partial)
	}
	return run, out
}

// benchmark lowers tr, builds the program and returns its executable.
func benchmark(t testing.TB, dir, name string, tr *trace.Trace) (string, []byte) {
	t.Helper()
	mpicc, _ := mpitest.Tools(t)
	res, err := lower.Lower(tr, lower.Options{Name: name})
	if err != nil {
		t.Fatalf("lower %s: %v", name, err)
	}
	p := mpitest.Build(t, name+".parley", res.Source)
	bdir := filepath.Join(dir, name+"-bench")
	if err := os.Mkdir(bdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return mpitest.Compile(t, mpicc, bdir, p), res.Source
}

// runtimeCalls is what the generated C's runtime calls by itself on n
// ranks (the run id's broadcast, a barrier, the log's reduction): the
// trace of a program that does nothing.
func runtimeCalls(t testing.TB, dir string, n int64) []map[trace.Op]trace.Tally {
	t.Helper()
	mpicc, _ := mpitest.Tools(t)
	src := fmt.Sprintf("ASSERT THAT \"%d ranks\" WITH num_tasks = %d.\nALL TASKS COMPUTE FOR 0 MICROSECONDS.\n", n, n)
	p := mpitest.Build(t, "empty.parley", []byte(src))
	edir := filepath.Join(dir, fmt.Sprintf("empty-%d", n))
	if err := os.Mkdir(edir, 0o755); err != nil {
		t.Fatal(err)
	}
	run, _ := traceRun(t, mpitest.Compile(t, mpicc, edir, p), n)
	return tallies(run.Trace)
}

func tallies(tr *trace.Trace) []map[trace.Op]trace.Tally {
	out := make([]map[trace.Op]trace.Tally, tr.NumRanks)
	for r := range out {
		out[r] = tr.Tally(r)
	}
	return out
}

// TestRoundTrip is seed 000's check (section 5.2): each application is
// traced, lowered, compiled and run under the tracer again, and the
// benchmark's trace must make, per rank and per kind of call, the same
// number of calls moving the same bytes as the application's, once the
// generated runtime's own calls are added to the application's.
func TestRoundTrip(t *testing.T) {
	library(t)
	if testing.Short() {
		t.Skip("runs 20 MPI jobs")
	}
	dir := t.TempDir()
	for _, n := range []int64{4, 8} {
		base := runtimeCalls(t, dir, n)
		for _, a := range testApps {
			t.Run(fmt.Sprintf("%s-%d", a.name, n), func(t *testing.T) {
				sub := filepath.Join(dir, fmt.Sprintf("%s-%d", a.name, n))
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				exe := buildApp(t, sub, a.name)
				orig, _ := traceRun(t, exe, n, append([]string{"--iters", "12"}, a.args...)...)
				bench, src := benchmark(t, sub, a.name, orig.Trace)
				got, _ := traceRun(t, bench, n)
				want := tallies(orig.Trace)
				have := tallies(got.Trace)
				for r := range want {
					for op, b := range base[r] {
						w := want[r][op]
						w.Calls += b.Calls
						w.Bytes += b.Bytes
						want[r][op] = w
					}
					if d := diff(want[r], have[r]); d != "" {
						t.Errorf("rank %d: the benchmark's calls differ from the application's (plus the runtime's):\n%s\nprogram:\n%s", r, d, src)
					}
				}
			})
		}
	}
}

// diff lists the kinds of call whose counts or bytes differ.
func diff(want, have map[trace.Op]trace.Tally) string {
	var b strings.Builder
	for op := trace.Op(0); op < 64; op++ {
		if w, h := want[op], have[op]; w != h {
			fmt.Fprintf(&b, "  %s: want %d calls, %d B; have %d calls, %d B\n", op, w.Calls, w.Bytes, h.Calls, h.Bytes)
		}
	}
	return b.String()
}

func execOut(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}

// TestCollectiveCommunicatorsFollowMapping: the C backend finds a fixed
// set's communicator once, and again after tasks are remapped (ARE
// ASSIGNED TO), and runs ALL TASKS collectives on MPI_COMM_WORLD only
// while tasks are their own processors. The tracer sees which processes
// each collective involved, in which order.
func TestCollectiveCommunicatorsFollowMapping(t *testing.T) {
	library(t)
	mpicc, _ := mpitest.Tools(t)
	p := mpitest.Build(t, "remap.parley", []byte(`FOR 2 REPETITIONS {
  TASKS t SUCH THAT t < 2 REDUCE 1 DOUBLEWORD THEN
  ALL TASKS REDUCE 1 DOUBLEWORD THEN
  TASK n SUCH THAT n < num_tasks IS ASSIGNED TO PROCESSOR (n + 1) MOD num_tasks
}.`))
	run, _ := traceRun(t, mpitest.Compile(t, mpicc, t.TempDir(), p), 4)
	tr := run.Trace
	var got [][]string // per rank, the members of each all-reduce's communicator
	for r := range tr.NumRanks {
		var comms []string
		for e := range tr.Events(r) {
			if e.Op != trace.Allreduce {
				continue
			}
			members := tr.Comms[e.Comm]
			if members == nil { // MPI_COMM_WORLD
				members = []int{0, 1, 2, 3}
			}
			comms = append(comms, fmt.Sprint(members))
		}
		got = append(got, comms)
	}
	// Round 1: tasks are processors. Round 2: task n runs on processor
	// n + 1, so tasks 0 and 1 are processors 1 and 2, and all the tasks in
	// task order are processors 1, 2, 3, 0.
	want := [][]string{
		{"[0 1]", "[0 1 2 3]", "[1 2 3 0]"},
		{"[0 1]", "[0 1 2 3]", "[1 2]", "[1 2 3 0]"},
		{"[0 1 2 3]", "[1 2]", "[1 2 3 0]"},
		{"[0 1 2 3]", "[1 2 3 0]"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("communicators of the all-reduces per rank (-want +got):\n%s", diff)
	}
}
