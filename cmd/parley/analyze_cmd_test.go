package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// kernel is a test program of frontend/valueflow.
func kernel(name string) string {
	return filepath.Join("..", "..", "frontend", "valueflow", "testdata", name)
}

func needClang(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"clang-14", "llvm-link-14"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: install clang-14 and llvm-14 to run this test", tool)
		}
	}
}

func TestAnalyzeTable(t *testing.T) {
	needClang(t)
	code, out, errOut := parley(t, "", "analyze", kernel("halo1d.c"), "--tasks", "1,2,4", "--", "64", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "IR instructions") || strings.Join(strings.Fields(lines[1]), " ") != "tasks total bytes max per task singletons" {
		t.Fatalf("table:\n%s", out)
	}
	// One task sends nothing; two exchange one value each way per step.
	if f := strings.Fields(lines[2]); f[0] != "1" || f[1] != "0" {
		t.Errorf("one task: %q", lines[2])
	}
	if f := strings.Fields(lines[3]); f[0] != "2" || (f[1] != "160" && f[1] != "168") {
		t.Errorf("two tasks: %q, want 160 bytes (+8 for the printed value)", lines[3])
	}
	// What the program prints goes to standard error.
	if !strings.Contains(errOut, ".") {
		t.Errorf("the program's output is not on standard error: %q", errOut)
	}
}

func TestAnalyzeJSONAndOutputs(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "red.parley")
	mat := filepath.Join(dir, "m")
	code, out, errOut := parley(t, "", "analyze", kernel("reduction.c"), "--json", "--tasks", "4,2", "-o", prog, "--matrix", mat, "--", "512", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Instructions *int64 `json:"instructions"`
		Results      []map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Instructions == nil || *rep.Instructions <= 0 || len(rep.Results) != 2 {
		t.Fatalf("report:\n%s", out)
	}
	for _, r := range rep.Results {
		for _, key := range []string{"tasks", "total_bytes", "matrix_bytes", "singletons"} {
			if _, ok := r[key]; !ok {
				t.Errorf("result lacks %q", key)
			}
		}
		var k int
		var m [][]int64
		json.Unmarshal(r["tasks"], &k)
		json.Unmarshal(r["matrix_bytes"], &m)
		if len(m) != k || len(m[0]) != k {
			t.Errorf("%d tasks: a %d x %d matrix", k, len(m), len(m[0]))
		}
		for _, ext := range []string{".csv", ".svg"} {
			if st, err := os.Stat(filepath.Join(mat, "matrix-"+string(r["tasks"])+ext)); err != nil || st.Size() == 0 {
				t.Errorf("matrix file %s for %d tasks: %v", ext, k, err)
			}
		}
	}
	csv, _ := os.ReadFile(filepath.Join(mat, "matrix-2.csv"))
	if rows := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(rows) != 2 || strings.Count(rows[0], ",") != 1 {
		t.Errorf("matrix-2.csv:\n%s", csv)
	}
	// -o: the program for the largest task count, which checks.
	src, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	p, diags := parser.Parse(prog, src)
	if diags.HasErrors() || lang.Check(p).HasErrors() || !strings.Contains(string(src), "num_tasks = 4") {
		t.Errorf("program:\n%s\n%v", src, diags)
	}
	if code, out, errOut := parley(t, "", "run", prog); code != 0 {
		t.Errorf("parley run %s: exit %d\n%s%s", prog, code, out, errOut)
	}
}

// TestAnalyzeProgramBuildsAndRuns: the program -o writes compiles with
// parley compile --build and runs under mpirun on the task count it was
// derived for.
func TestAnalyzeProgramBuildsAndRuns(t *testing.T) {
	needClang(t)
	_, mpirun := mpitest.Tools(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "halo.parley")
	if code, _, errOut := parley(t, "", "analyze", kernel("halo1d.c"), "--tasks", "2,4", "-o", prog, "--", "64", "10"); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	csrc := filepath.Join(dir, "halo.c")
	if code, _, errOut := parley(t, "", "compile", prog, "-o", csrc, "--build"); code != 0 {
		t.Fatalf("compile --build: exit %d: %s", code, errOut)
	}
	out, err := mpitest.Run(t, mpirun, filepath.Join(dir, "halo"), 4, nil, time.Minute)
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
}

// TestAnalyzeBadInput: every kind of bad input is one clear message with
// its position, and exit status 2.
func TestAnalyzeBadInput(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		return path
	}
	badC := write("bad.c", "int main(void) { return nope; }\n")
	badLL := write("bad.ll", "define i32 @main() {\n  ret i32 0 0\n}\n")
	crash := write("crash.c", "int main(void) {\n  int *volatile p = 0;\n  return p[2];\n}\n")
	bounds := write("bounds.c", "#include <stdlib.h>\nint main(int c, char **v) {\n  int *a = malloc(4 * sizeof *a);\n  a[c + 3] = 1;\n  return a[0];\n}\n")
	loop := write("loop.c", "int main(void) {\n  volatile int i = 0;\n  for (;;) i++;\n}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{badC}, "bad.c:1:25: error"},
		{[]string{badLL}, "bad.ll:2:"},
		{[]string{crash}, "crash.c:3:10: load of 4 bytes at address 0x8"},
		{[]string{bounds}, "bounds.c:4:12: out-of-bounds store of 4 bytes at offset 16 of a 16-byte heap block"},
		{[]string{loop, "--max-instructions", "5000"}, "loop.c:3:"},
		{[]string{kernel("halo1d.c"), "--tasks", "0"}, "--tasks 0: 0 tasks"},
		{[]string{kernel("halo1d.c"), "--tasks", "2,x"}, `"x" is not a task count`},
		{[]string{kernel("halo1d.c"), "--max-instructions", "0"}, "--max-instructions 0"},
		{[]string{}, "give the program's source files"},
		{[]string{filepath.Join(dir, "none.c")}, "none.c"},
	} {
		code, out, errOut := parley(t, "", append([]string{"analyze"}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || !strings.HasPrefix(errOut, "parley analyze: ") {
			t.Errorf("analyze %v: exit %d, stdout %q, stderr %q; want status 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
