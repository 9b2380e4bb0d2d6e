package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// longRing is a program that runs for minutes unless stopped.
const longRing = "FOR 100000000 REPETITIONS {\n  TASKS t SUCH THAT t IS EVEN SEND A 8 BYTE MESSAGE TO TASK t + 1\n}\n"

// TestRunProgress: on a terminal, a run shows events, simulated time and
// the event rate, and clears the line before the summary.
func TestRunProgress(t *testing.T) {
	var out, errOut, progress bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, progress: &progress, progressEvery: time.Nanosecond}
	if code := run(e, []string{"run", "halo3d.parley", "--", "--steps", "100"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	p := progress.String()
	if !strings.Contains(p, "simulated ") || !strings.Contains(p, "events/s") {
		t.Errorf("progress shows no events, simulated time or rate: %q", p)
	}
	if !strings.HasSuffix(p, "\r") {
		t.Errorf("the progress line is not cleared at the end: %q", p[max(0, len(p)-80):])
	}
	if !strings.HasPrefix(out.String(), "Predicted run time: ") {
		t.Errorf("summary: %.100q", out.String())
	}
}

// sigintOnWrite sends the process SIGINT at its first write, as a user
// pressing Ctrl-C once the progress line appears.
type sigintOnWrite struct{ once sync.Once }

func (s *sigintOnWrite) Write(p []byte) (int, error) {
	s.once.Do(func() { syscall.Kill(os.Getpid(), syscall.SIGINT) })
	return len(p), nil
}

// TestRunInterrupted: Ctrl-C stops a run with its partial summary and
// exit status 130, and does not end the process.
func TestRunInterrupted(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "long.parley")
	os.WriteFile(prog, []byte(longRing), 0o644)
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, progress: &sigintOnWrite{}, progressEvery: time.Nanosecond}
	code := run(e, []string{"run", prog, "--tasks", "4"})
	if code != interruptedStatus {
		t.Errorf("exit %d, want %d", code, interruptedStatus)
	}
	if !strings.HasPrefix(out.String(), "Stopped after ") || !strings.Contains(out.String(), "partial summary") {
		t.Errorf("summary is not marked partial:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "interrupted after") {
		t.Errorf("stderr: %q", errOut.String())
	}
}
