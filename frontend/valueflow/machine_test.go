package valueflow

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/internal/memlimit"
)

// run analyses files on one task and returns what the program printed.
func run(t *testing.T, files []string, args ...string) (string, *Report) {
	t.Helper()
	var out strings.Builder
	rep, err := Analyze(files, Options{Tasks: []int{1}, Args: args, Stdout: &out})
	if err != nil {
		t.Fatalf("Analyze %v: %v", files, err)
	}
	return out.String(), rep
}

// native compiles and runs a C or C++ file with clang and returns its
// output and exit status.
func native(t *testing.T, src string, args ...string) (string, int) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prog")
	cc := "clang-14"
	if strings.HasSuffix(src, ".cpp") {
		cc = "clang++-14"
	}
	if out, err := exec.Command(cc, "-O1", "-w", "-o", bin, src, "-lm").CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, src, err, out)
	}
	cmd := exec.Command(bin, args...)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestAgainstNative runs programs covering arithmetic, control flow,
// calls, the C library and C++ under the analysis and natively: the output
// and the exit status must be the same.
func TestAgainstNative(t *testing.T) {
	needClang(t)
	if _, err := exec.LookPath("clang++-14"); err != nil {
		t.Skip("clang++-14 not found")
	}
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"arith.c", nil},
		{"arith.c", []string{"-3"}},
		{"libc.c", nil},
		{"libc.c", []string{"23"}},
		{"cxx.cpp", nil},
	} {
		t.Run(tc.file+strings.Join(tc.args, "_"), func(t *testing.T) {
			src := filepath.Join("testdata", tc.file)
			want, status := native(t, src, tc.args...)
			got, rep := run(t, []string{src}, tc.args...)
			if got != want {
				t.Errorf("output differs from the native run:\n%s\nwant:\n%s", got, want)
			}
			if rep.ExitCode != status {
				t.Errorf("exit status %d, want %d", rep.ExitCode, status)
			}
		})
	}
}

func TestGlibcRand(t *testing.T) {
	// The first numbers glibc's rand() gives after srand(1), srand(42),
	// srand(0) (which is srand(1)) and srand(4294967291).
	for _, tc := range []struct {
		seed uint32
		want []int32
	}{
		{1, []int32{1804289383, 846930886, 1681692777}},
		{42, []int32{71876166, 708592740}},
		{0, []int32{1804289383}},
		{4294967291, []int32{1469203335}},
	} {
		var g glibcRand
		g.seed(tc.seed)
		for i, w := range tc.want {
			if got := g.next(); got != w {
				t.Errorf("seed %d: rand #%d = %d, want %d", tc.seed, i, got, w)
			}
		}
	}
}

// TestRunErrors: programs that crash, loop forever or call what is not
// modelled stop with an error that names the cause and its position.
func TestRunErrors(t *testing.T) {
	needClang(t)
	for _, tc := range []struct {
		name, src string
		opts      Options
		want      []string
	}{
		{"null", "int main(void) {\n  int *volatile p = 0;\n  return *p;\n}\n", Options{}, []string{"prog.c:3:", "through a null pointer"}},
		{"bounds", "#include <stdlib.h>\nint main(int c, char **v) {\n  double *a = malloc(10 * sizeof *a);\n  for (int i = 0; i <= 10 + c - 1; i++)\n    a[i] = i;\n  return a[3];\n}\n", Options{},
			[]string{"prog.c:5:", "out-of-bounds store of 8 bytes at offset 80 of a 80-byte heap block allocated at prog.c:3"}},
		{"free", "#include <stdlib.h>\nint main(void) {\n  int *volatile a = malloc(8);\n  free(a);\n  free(a);\n  return 0;\n}\n", Options{}, []string{"prog.c:5:", "double free"}},
		{"use after free", "#include <stdlib.h>\nint main(void) {\n  int *volatile a = malloc(8);\n  free(a);\n  return a[1];\n}\n", Options{}, []string{"prog.c:5:", "use after free"}},
		{"divide", "int main(int c, char **v) {\n  volatile int z = c - 1;\n  return 10 / z;\n}\n", Options{}, []string{"prog.c:3:", "integer division by zero"}},
		{"forever", "int main(void) {\n  volatile int x = 0;\n  for (;;) x++;\n}\n", Options{MaxInstructions: 100000}, []string{"ran 100000 IR instructions without finishing"}},
		{"external", "#include <stdio.h>\nint main(void) {\n  FILE *f = fopen(\"x\", \"r\");\n  return f != 0;\n}\n", Options{}, []string{"prog.c:3:", "external function fopen"}},
		{"recursion", "int f(int x) { return x ? f(x + 1) + 1 : 0; }\nint main(void) { return f(1); }\n", Options{}, []string{"nested calls"}},
		{"abort", "#include <stdlib.h>\nint main(void) {\n  abort();\n}\n", Options{}, []string{"prog.c:3:", "abort"}},
		{"memory", "#include <stdlib.h>\n#include <string.h>\nint main(void) {\n  char *p = malloc(1 << 26);\n  memset(p, 1, 1 << 26);\n  return p[5];\n}\n",
			Options{MaxMemory: 1 << 20}, []string{"--max-memory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := writeSource(t, "prog.c", tc.src)
			opts := tc.opts
			opts.Tasks = []int{2}
			_, err := Analyze([]string{src}, opts)
			if err == nil {
				t.Fatal("no error")
			}
			var re *RunError
			var over *memlimit.OverError
			if !errors.As(err, &re) && !errors.As(err, &over) {
				t.Errorf("error %v is a %T, want a *RunError", err, err)
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestExitStatus(t *testing.T) {
	needClang(t)
	src := writeSource(t, "prog.c", "#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n  printf(\"bye\\n\");\n  exit(7);\n}\n")
	out, rep := run(t, []string{src})
	if out != "bye\n" || rep.ExitCode != 7 {
		t.Errorf("output %q, status %d; want bye and 7", out, rep.ExitCode)
	}
}

func TestUnsupportedInstructionIsAnErrorWhenRun(t *testing.T) {
	// A function the program never calls may use what the machine does
	// not model; calling it is an error that names the construct.
	ll := `define i32 @never(i32* %p) {
  %v = atomicrmw add i32* %p, i32 1 seq_cst
  ret i32 %v
}

define i32 @main(i32 %argc, i8** %argv) {
  %c = icmp sgt i32 %argc, 1
  br i1 %c, label %call, label %done
call:
  %x = alloca i32
  %r = call i32 @never(i32* %x)
  ret i32 %r
done:
  ret i32 0
}
`
	path := writeSource(t, "prog.ll", ll)
	if _, err := Analyze([]string{path}, Options{Tasks: []int{1}}); err != nil {
		t.Fatalf("without the call: %v", err)
	}
	_, err := Analyze([]string{path}, Options{Tasks: []int{1}, Args: []string{"x"}})
	if err == nil || !strings.Contains(err.Error(), `"atomicrmw"`) || !strings.Contains(err.Error(), "function never") {
		t.Errorf("error %v, want one naming atomicrmw in function never", err)
	}
}
