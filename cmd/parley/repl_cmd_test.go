package main

import (
	"strings"
	"testing"
)

// TestReplScript: parley repl reads a script from standard input, prints
// no prompts, runs as parley run does, and exits 1 if a command failed.
func TestReplScript(t *testing.T) {
	_, want, _ := parley(t, "", "run", "ring.parley", "--tasks", "4", "--platform", "ethernet", "--", "--reps", "5")
	code, out, errOut := parley(t, "tasks 4\nset reps 5\nrun\n", "repl", "ring.parley", "--platform", "ethernet")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	loaded, got, _ := strings.Cut(out, "\n")
	if loaded != "loaded ring.parley: 2 parameters, 2 top-level statements" || got != want || strings.Contains(out, "parley>") {
		t.Errorf("repl printed\n%s\nparley run printed\n%s", out, want)
	}
	if code, _, errOut := parley(t, "run\nfrobnicate\nrun\n", "repl", "ring.parley"); code != 1 || !strings.Contains(errOut, "line 2: frobnicate is not a command") {
		t.Errorf("a failed command: exit %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "repl", "nowhere.parley"); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing program: exit %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "repl", "--platform", "nowhere"); code != 2 || !strings.Contains(errOut, "neither a preset") {
		t.Errorf("bad platform: exit %d %q", code, errOut)
	}
}
