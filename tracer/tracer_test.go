package tracer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/lower"
	"github.com/parley-hpc/parley/frontend/trace/ptrace"
	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/tracer"
)

// foldArgs are sizes small enough to run 1000 iterations quickly.
var foldArgs = map[string][]string{
	"jacobi":    {"--n", "8"},
	"cg":        {"--nx", "16", "--rows", "4"},
	"particles": {"--n", "60"},
}

// TestTraceSizeDoesNotGrow: the tracer folds each application's main
// loop, so 1000 iterations give the same records as 10; only the numbers
// in them (loop counts, time sums) are longer.
func TestTraceSizeDoesNotGrow(t *testing.T) {
	library(t)
	dir := t.TempDir()
	for _, a := range testApps {
		t.Run(a.name, func(t *testing.T) {
			exe := buildApp(t, dir, a.name)
			short, _ := traceRun(t, exe, 4, append([]string{"--iters", "10"}, foldArgs[a.name]...)...)
			long, _ := traceRun(t, exe, 4, append([]string{"--iters", "1000"}, foldArgs[a.name]...)...)
			for r := range short.Files {
				s, l := short.Files[r], long.Files[r]
				if l.Calls < 50*s.Calls {
					t.Fatalf("rank %d: %d calls in 1000 iterations, %d in 10", r, l.Calls, s.Calls)
				}
				sl, ll := lines(t, s.Path), lines(t, l.Path)
				if sl != ll {
					t.Errorf("rank %d: %d lines for 10 iterations, %d for 1000", r, sl, ll)
				}
			}
			if long.Bytes > short.Bytes*5/4 {
				t.Errorf("%d bytes for 10 iterations, %d for 1000", short.Bytes, long.Bytes)
			}
			t.Logf("%d bytes for 10 iterations, %d for 1000", short.Bytes, long.Bytes)
		})
	}
}

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestCrashLeavesPartialTrace: a rank dies of SIGSEGV in iteration 10;
// every rank's file says why it ended, and the trace lowers up to the
// last point all ranks reached: 10 all-reduces each.
func TestCrashLeavesPartialTrace(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	lib := library(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "crash")
	if out, err := execOut(mpicc, "-o", exe, filepath.Join("testdata", "crash.c")); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	tdir := filepath.Join(dir, "trace")
	out, err := mpitest.Run(t, mpirun, exe, 4, []string{"--crash-at", "10"}, 2*time.Minute, "LD_PRELOAD="+lib, "PARLEY_TRACE_DIR="+tdir,
		"OMPI_MCA_odls_base_sigkill_timeout=10") // as Preload sets it
	if err == nil {
		t.Fatalf("the crashing program succeeded:\n%s", out)
	}
	run, err := ptrace.ReadRun(tdir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.Trace.Partial, "rank 1: killed by signal 11 (SIGSEGV)") {
		t.Errorf("Partial = %q", run.Trace.Partial)
	}
	for r := range run.Trace.NumRanks {
		if got := run.Trace.Tally(r)[trace.Allreduce].Calls; got != 10 {
			t.Errorf("rank %d keeps %d all-reduces, want 10", r, got)
		}
	}
	res, err := lower.Lower(run.Trace, lower.Options{Name: "crash"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Source), "# PARTIAL TRACE: ") {
		t.Errorf("the program does not say the trace is partial:\n%s", res.Source)
	}
}

// TestBuildIsCached: a second build finds the library of the same source.
func TestBuildIsCached(t *testing.T) {
	lib := library(t)
	mpicc, _ := mpitest.Tools(t)
	again, built, err := tracer.Build(t.Context(), mpicc, filepath.Dir(filepath.Dir(lib)))
	if err != nil || built || again != lib {
		t.Fatalf("second build: %q built=%v %v; want %q from the cache", again, built, err, lib)
	}
	if !strings.Contains(lib, "tracer-"+tracer.Hash()) {
		t.Errorf("%s is not keyed by the source's hash %s", lib, tracer.Hash())
	}
}

func TestPreload(t *testing.T) {
	argv, env := tracer.Preload([]string{"mpirun", "-np", "2", "./app"}, []string{"LD_PRELOAD=/x.so", "A=b"}, tracer.OpenMPI, "/lib.so", "/out", false)
	want := "mpirun -x LD_PRELOAD=/lib.so:/x.so -x PARLEY_TRACE_DIR=/out -np 2 ./app"
	if got := strings.Join(argv, " "); got != want {
		t.Errorf("argv %q, want %q", got, want)
	}
	if got := strings.Join(env, " "); !strings.HasSuffix(got, "LD_PRELOAD=/lib.so:/x.so PARLEY_TRACE_DIR=/out OMPI_MCA_odls_base_sigkill_timeout=10") {
		t.Errorf("env %q", got)
	}
	// A user's own setting stays.
	_, env = tracer.Preload([]string{"mpirun", "./app"}, []string{"OMPI_MCA_odls_base_sigkill_timeout=3"}, tracer.OpenMPI, "/lib.so", "/out", false)
	if got := strings.Join(env, " "); strings.Count(got, "sigkill_timeout") != 1 || !strings.Contains(got, "sigkill_timeout=3") {
		t.Errorf("env %q", got)
	}
	argv, env = tracer.Preload([]string{"./app"}, nil, tracer.Direct, "/lib.so", "/out", true)
	if len(argv) != 1 {
		t.Errorf("a direct run's argv changed: %q", argv)
	}
	if got := strings.Join(env, " "); got != "LD_PRELOAD=/lib.so PARLEY_TRACE_DIR=/out PARLEY_TRACE_CPU=1" {
		t.Errorf("env %q", got)
	}
}

// TestRecordText: the records of testdata/records.c, one call of each
// form, read as the golden files say (checked by hand; times, which vary,
// are left out: the " @ ..." statistics and the elapsed line). The files
// are read as text: a wait on a persistent request, which the tracer
// records, is one that lowering refuses.
func TestRecordText(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	lib := library(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "records")
	if out, err := execOut(mpicc, "-Wall", "-Werror", "-o", exe, filepath.Join("testdata", "records.c")); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	tdir := filepath.Join(dir, "trace")
	if out, err := mpitest.Run(t, mpirun, exe, 2, nil, 2*time.Minute, "LD_PRELOAD="+lib, "PARLEY_TRACE_DIR="+tdir); err != nil {
		t.Fatalf("records: %v\n%s", err, out)
	}
	for r := range 2 {
		b, err := os.ReadFile(filepath.Join(tdir, fmt.Sprintf("rank-%d.ptrace", r)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "elapsed ") {
				continue
			}
			if at := strings.Index(line, " @ "); at >= 0 {
				line = line[:at]
			}
			got = append(got, line)
		}
		want, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("records-rank%d.golden", r)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), strings.Join(got, "\n")); diff != "" {
			t.Errorf("rank %d (-want +got):\n%s", r, diff)
		}
	}
}
