package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parley runs the command in-process and returns exit code and output.
func parley(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(&env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := parley(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "parley ") || !strings.Contains(out, "language 1.5") {
		t.Errorf("version: %d %q", code, out)
	}
	code, out, _ = parley(t, "", "--help")
	if code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, name := range []string{"check", "fmt", "params", "run", "version"} {
		if !strings.Contains(out, name) {
			t.Errorf("--help does not list %s:\n%s", name, out)
		}
		code, out2, _ := parley(t, "", name, "--help")
		if code != 0 || !strings.Contains(out2, "Usage: parley "+name) {
			t.Errorf("%s --help: %d %q", name, code, out2)
		}
		code, out3, _ := parley(t, "", "help", name)
		if code != 0 || out3 != out2 {
			t.Errorf("help %s differs from %s --help", name, name)
		}
	}
	if code, _, errOut := parley(t, ""); code != 2 || !strings.Contains(errOut, "Usage: parley") {
		t.Errorf("no arguments: %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %d %q", code, errOut)
	}
}

func TestCheck(t *testing.T) {
	code, _, errOut := parley(t, "", "check", "../../examples/halo3d.parley", "../../examples/ring.parley")
	if code != 0 || errOut != "" {
		t.Errorf("check examples: %d %q", code, errOut)
	}
	if _, _, errOut := parley(t, "", "check", "-v", "../../examples/halo3d.parley"); errOut != "../../examples/halo3d.parley: ok: 5 parameters, 2 top-level statements\n" {
		t.Errorf("check -v: %q", errOut)
	}
	// Embedded examples can be named from anywhere.
	if code, _, errOut := parley(t, "", "check", "lulesh.parley"); code != 0 {
		t.Errorf("check embedded example: %d %q", code, errOut)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parley")
	os.WriteFile(bad, []byte("msgsize IS \"m\" AND COMES FROM \"--m\" OR \"-m\" WITH DEFAULT 1.\nTASK 0 SENDS A msgsze BYTE MESSAGE TO TASK 1.\n"), 0o644)
	code, _, errOut = parley(t, "", "check", bad)
	if code != 1 {
		t.Errorf("bad program: exit %d", code)
	}
	for _, want := range []string{bad + ":2:16: error: undefined variable msgsze", "TASK 0 SENDS A msgsze", "^~~~~~", "did you mean msgsize?", "warning: parameter msgsize"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("check output lacks %q:\n%s", want, errOut)
		}
	}
	// -q keeps errors, drops warnings.
	_, _, errOut = parley(t, "", "check", "-q", bad)
	if strings.Contains(errOut, "warning") || !strings.Contains(errOut, "error") {
		t.Errorf("check -q:\n%s", errOut)
	}
	code, _, errOut = parley(t, "TASK 0 SNEDS", "check", "-")
	if code != 1 || !strings.Contains(errOut, "<stdin>:1:8: error: syntax error") {
		t.Errorf("stdin: %d %q", code, errOut)
	}
	code, _, errOut = parley(t, "", "check", filepath.Join(dir, "missing.parley"))
	if code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: %d %q", code, errOut)
	}
	if code, _, _ := parley(t, "", "check"); code != 2 {
		t.Errorf("check without files: exit %d", code)
	}
}

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.ncptl")
	src := "# comment\ntask 0 sends a 64-byte message to task 1 then all tasks synchronize\n"
	os.WriteFile(path, []byte(src), 0o644)
	want := "# comment\nTASK 0 SENDS A 64 BYTE MESSAGE TO TASK 1 THEN\nALL TASKS SYNCHRONIZE.\n"
	code, out, _ := parley(t, "", "fmt", path)
	if code != 0 || out != want {
		t.Errorf("fmt: %d\n%s", code, out)
	}
	if code, out, _ := parley(t, "", "fmt", "-l", path); code != 0 || strings.TrimSpace(out) != path {
		t.Errorf("fmt -l: %d %q", code, out)
	}
	if code, _, _ := parley(t, "", "fmt", "-w", path); code != 0 {
		t.Errorf("fmt -w: exit %d", code)
	}
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("fmt -w wrote:\n%s", got)
	}
	if code, out, _ := parley(t, "", "fmt", "-l", path); code != 0 || out != "" {
		t.Errorf("fmt -l after -w: %d %q", code, out)
	}
	bad := filepath.Join(dir, "bad.parley")
	os.WriteFile(bad, []byte("task 0 sends a message to"), 0o644)
	code, _, errOut := parley(t, "", "fmt", "-w", bad)
	if code != 1 || !strings.Contains(errOut, "bad.parley:1:26") {
		t.Errorf("fmt of a malformed program: %d %q", code, errOut)
	}
	if got, _ := os.ReadFile(bad); string(got) != "task 0 sends a message to" {
		t.Errorf("fmt -w changed a malformed file")
	}
}

func TestParams(t *testing.T) {
	code, out, _ := parley(t, "", "params", "../../examples/pingpong-latency.parley")
	if code != 0 {
		t.Fatalf("params: exit %d", code)
	}
	for _, want := range []string{"PARAMETER", "reps", "-r, --reps", "100", "maxbytes", "1M (sweeps {64K, 256K, ..., 16M})", "Largest message size (bytes)"} {
		if !strings.Contains(out, want) {
			t.Errorf("params output lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := parley(t, "TASK 0 OUTPUTS 1.", "params", "-"); code != 0 || !strings.Contains(out, "no parameters") {
		t.Errorf("params without parameters: %d %q", code, out)
	}
}
