package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/internal/mpitest"
)

// traceEnv gives the tracer a fresh cache and lets mpirun run as root.
func traceEnv(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
}

func TestTraceUsage(t *testing.T) {
	if code, _, errOut := parley(t, "", "trace"); code != 2 || !strings.Contains(errOut, "give the command to trace after --") {
		t.Errorf("no command: %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "trace", "./app"); code != 2 || !strings.Contains(errOut, "put the command after --") {
		t.Errorf("command before --: %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "trace", "--", "no-such-program-here"); code != 2 || !strings.Contains(errOut, "no-such-program-here") {
		t.Errorf("missing program: %d %q", code, errOut)
	}
	// Without mpicc the tracer cannot be built.
	traceEnv(t)
	t.Setenv("PATH", t.TempDir())
	if code, _, errOut := parley(t, "", "trace", "--", "/bin/true"); code != 2 || !strings.Contains(errOut, "mpicc not found") {
		t.Errorf("no mpicc: %d %q", code, errOut)
	}
}

func TestTraceProblems(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	traceEnv(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "t")

	// Not an MPI program: it runs, but no rank writes a trace.
	code, _, errOut := parley(t, "", "trace", "-o", out, "--", "/bin/true")
	if code != 2 || !strings.Contains(errOut, "built the tracer") || !strings.Contains(errOut, "left no trace") || !strings.Contains(errOut, `Does "/bin/true" run an MPI program`) {
		t.Errorf("/bin/true: %d %q", code, errOut)
	}
	// A program that outlives --timeout is stopped.
	code, _, errOut = parley(t, "", "trace", "-o", out, "--timeout", "1s", "--", "/bin/sleep", "600")
	if code != 2 || !strings.Contains(errOut, "stopped after --timeout 1s") {
		t.Errorf("sleep: %d %q", code, errOut)
	}

	// A crash: the partial trace is kept and lowers, saying so.
	exe := filepath.Join(dir, "crash")
	if b, err := exec.Command(mpicc, "-o", exe, filepath.Join("..", "..", "tracer", "testdata", "crash.c")).CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, b)
	}
	code, _, errOut = parley(t, "", "trace", "-o", out, "--", mpirun, "--oversubscribe", "-np", "4", exe)
	if code != 2 || !strings.Contains(errOut, "the trace is partial: ") || !strings.Contains(errOut, "rank 1: killed by signal 11 (SIGSEGV)") {
		t.Errorf("crash: %d %q", code, errOut)
	}
	code, prog, errOut := parley(t, "", "lower", out)
	if code != 0 || !strings.Contains(errOut, "warning: a partial trace") || !strings.Contains(prog, "# PARTIAL TRACE: ") {
		t.Errorf("lower the partial trace: %d %q\n%s", code, errOut, prog)
	}

	// A whole run: exit 0, the files of the crashed run are gone.
	code, _, errOut = parley(t, "", "trace", "-o", out, "--cpu-time", "--", mpirun, "--oversubscribe", "-np", "2", exe, "--crash-at", "100")
	if code != 0 || !strings.Contains(errOut, "wrote "+out+": 2 ranks") || !strings.Contains(errOut, "next: parley lower") {
		t.Errorf("a whole run: %d %q", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(out, "rank-1.ptrace")); err != nil || strings.Contains(string(b), " -\n") {
		t.Errorf("--cpu-time: the CPU time is missing: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "rank-3.ptrace")); !os.IsNotExist(err) {
		t.Errorf("the earlier run's rank 3 file is still there: %v", err)
	}
	if code, _, errOut := parley(t, "", "lower", out); code != 0 || strings.Contains(errOut, "partial") {
		t.Errorf("lower: %d %q", code, errOut)
	}
}
