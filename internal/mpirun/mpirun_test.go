package mpirun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeMPIRun writes a shell script that stands in for mpirun.
func fakeMPIRun(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mpirun")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunArgs: mpirun gets --oversubscribe, the task count, the program
// and its arguments, in the job's directory and environment.
func TestRunArgs(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := Run(context.Background(), Job{
		MPIRun: fakeMPIRun(t, `echo "$@"; pwd; echo "$PARLEY_TEST"`), NP: 3, Exe: "./prog", Args: []string{"--reps", "2"},
		Dir: dir, Env: []string{"PARLEY_TEST=yes"}, Stdout: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := "--oversubscribe -np 3 ./prog --reps 2"
	if os.Geteuid() == 0 {
		want = "--allow-run-as-root " + want
	}
	if len(lines) != 3 || lines[0] != want || lines[2] != "yes" {
		t.Errorf("got %q, want %q, the directory and yes", lines, want)
	}
	if real, _ := filepath.EvalSymlinks(dir); lines[1] != dir && lines[1] != real {
		t.Errorf("ran in %s, want %s", lines[1], dir)
	}
}

// TestRunTimeout: a run past its time limit is stopped, children and
// all, and reported as a deadline.
func TestRunTimeout(t *testing.T) {
	// The script's child ignores SIGTERM, as a hung task may.
	mpirun := fakeMPIRun(t, `trap '' TERM; sleep 60 & wait`)
	err := Run(context.Background(), Job{MPIRun: mpirun, NP: 2, Exe: "./prog", Timeout: 100 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not finish within 100ms") {
		t.Errorf("got %v, want a deadline", err)
	}
}

func TestRunFailure(t *testing.T) {
	var errOut bytes.Buffer
	err := Run(context.Background(), Job{MPIRun: fakeMPIRun(t, "echo boom >&2; exit 3"), NP: 2, Exe: "./prog", Stderr: &errOut})
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || errOut.String() != "boom\n" {
		t.Errorf("got %v, %q", err, errOut.String())
	}
	if err := Run(context.Background(), Job{MPIRun: filepath.Join(t.TempDir(), "none"), NP: 2, Exe: "./prog"}); err == nil {
		t.Error("a missing mpirun started")
	}
}

func TestToolsMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, _, err := Tools(); !errors.Is(err, ErrNoMPI) || !strings.Contains(err.Error(), "mpicc not found") {
		t.Errorf("got %v", err)
	}
}
