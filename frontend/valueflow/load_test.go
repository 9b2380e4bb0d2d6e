package valueflow

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needClang skips tests that compile C where clang-14 is not installed.
func needClang(t testing.TB) {
	t.Helper()
	for _, tool := range []string{clangTool, linkTool} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: install clang-14 and llvm-14 to run this test", tool)
		}
	}
}

// writeSource writes a source file into a temporary directory.
func writeSource(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDropReturnAlign(t *testing.T) {
	in := strings.Join([]string{
		`define dso_local noundef nonnull align 4 dereferenceable(4) i32* @f(i32* noundef align 8 %p) #0 align 2 {`,
		`  %1 = call noundef nonnull align 8 dereferenceable(8) i64* @g(i64* noundef nonnull align 8 %q)`,
		`  %2 = tail call align 16 i8* %fp(i8* align 4 %r)`,
		`  %3 = invoke noundef align 8 i8* @h() to label %ok unwind label %bad`,
		`  %4 = load i32, i32* %p, align 4`,
		`declare noundef align 8 i8* @h()`,
		`@s = global [12 x i8] c"call align 4"`,
	}, "\n")
	want := strings.Join([]string{
		`define dso_local noundef nonnull dereferenceable(4) i32* @f(i32* noundef align 8 %p) #0 align 2 {`,
		`  %1 = call noundef nonnull dereferenceable(8) i64* @g(i64* noundef nonnull align 8 %q)`,
		`  %2 = tail call i8* %fp(i8* align 4 %r)`,
		`  %3 = invoke noundef i8* @h() to label %ok unwind label %bad`,
		`  %4 = load i32, i32* %p, align 4`,
		`declare noundef i8* @h()`,
		`@s = global [12 x i8] c"call align 4"`,
	}, "\n")
	if got := string(dropReturnAlign([]byte(in))); got != want {
		t.Errorf("dropReturnAlign:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseIRReturnAlign(t *testing.T) {
	text, err := os.ReadFile("testdata/retalign.ll")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseIR("retalign.ll", text)
	if err != nil {
		t.Fatalf("ParseIR: %v", err)
	}
	if len(m.Funcs) != 2 {
		t.Errorf("%d functions, want 2", len(m.Funcs))
	}
}

func TestParseIRErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"syntax", "define i32 @main() {\n  ret i32 0 0\n}\n", "bad.ll:2:"},
		{"garbage", "@x = global i32 7\nint main() { return 0; }\n", `bad.ll:2:9: IR syntax error at "("`},
		{"undefined", "define i32 @main() {\n  ret i32 %x\n}\n", "bad.ll: invalid IR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseIR("bad.ll", []byte(tc.text))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T), want a *LoadError", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func FuzzParseIR(f *testing.F) {
	for _, name := range []string{"testdata/retalign.ll"} {
		text, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(text)
	}
	f.Add([]byte("define i32 @main() {\n  ret i32 0\n}\n"))
	f.Add([]byte("@g = global i32 7\ndefine i32 @main() {\n  %v = load i32, i32* @g\n  ret i32 %v\n}\n"))
	f.Add([]byte("define void @f() {\n  br label %x\nx:\n  %p = phi i32 [ 0, %0 ], [ 1, %x ]\n  br label %x\n}\n"))
	f.Add([]byte("declare noundef align 8 i8* @h()\n"))
	f.Add([]byte("define i32 @main() {\n  %a = alloca [4 x i32]\n  %p = getelementptr [4 x i32], [4 x i32]* %a, i64 0, i64 5\n  store i32 1, i32* %p\n  ret i32 0\n}\n"))
	f.Add([]byte("define i32 @main() {\n  %v = insertvalue {i32, double} undef, i32 7, 0\n  %w = extractvalue {i32, double} %v, 0\n  %x = sdiv i32 %w, 0\n  ret i32 %x\n}\n"))
	f.Add([]byte("define i32 @main() {\n  %s = shufflevector <2 x i32> <i32 1, i32 2>, <2 x i32> undef, <2 x i32> <i32 1, i32 0>\n  %e = extractelement <2 x i32> %s, i32 0\n  ret i32 %e\n}\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		m, err := ParseIR("fuzz.ll", text)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is a %T, want a *LoadError", err, err)
			}
			return
		}
		// What parses must compile, and run if it has a main, without
		// panicking too.
		p, err := compile(m)
		if err != nil || p.main == nil {
			return
		}
		mc, err := newMachine(p, &Options{MaxInstructions: 10000, MaxMemory: 64 << 20})
		if err != nil {
			return
		}
		if err := mc.runMain("fuzz", nil); err == nil {
			mc.sh.flush()
			mc.snapshotLive()
			g := buildGraph(mc.sh, mc.conform)
			g.estimate(mc.sh, 2)
		}
	})
}

func TestLoadErrors(t *testing.T) {
	needClang(t)
	bad := writeSource(t, "bad.c", "int main(void) {\n  return undeclared + 1;\n}\n")
	_, err := Analyze([]string{bad}, Options{Tasks: []int{2}})
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "bad.c:2:10: error") {
		t.Errorf("clang error: got %v, want a *LoadError with bad.c:2:10: error", err)
	}
	_, err = Analyze([]string{writeSource(t, "x.f90", "")}, Options{Tasks: []int{2}})
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "not a .c, .cpp or .ll file") {
		t.Errorf("unknown extension: got %v", err)
	}
	_, err = Analyze([]string{filepath.Join(t.TempDir(), "missing.ll")}, Options{Tasks: []int{2}})
	if !errors.As(err, &le) {
		t.Errorf("missing file: got %v, want a *LoadError", err)
	}
	nomain := writeSource(t, "lib.c", "int f(int x) { return x + 1; }\n")
	_, err = Analyze([]string{nomain}, Options{Tasks: []int{2}})
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "no main function") {
		t.Errorf("no main: got %v", err)
	}
}

func TestLinkSeveralFiles(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "main.c")
	b := filepath.Join(dir, "lib.c")
	os.WriteFile(a, []byte("#include <stdio.h>\nint twice(int);\nint main(void) { printf(\"%d\\n\", twice(21)); return 0; }\n"), 0o644)
	os.WriteFile(b, []byte("int twice(int x) { return 2 * x; }\n"), 0o644)
	var out strings.Builder
	rep, err := Analyze([]string{a, b}, Options{Tasks: []int{1}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "42\n" || rep.Instructions == 0 {
		t.Errorf("output %q after %d instructions, want 42", out.String(), rep.Instructions)
	}
}

// TestCompileTypesDisagree: IR whose initialisers do not fit their
// globals' types, which llir parses (LLVM's verifier would reject it), is
// an error naming the global, not a panic (the first was found by
// FuzzParseIR, testdata/fuzz).
func TestCompileTypesDisagree(t *testing.T) {
	for _, text := range []string{
		"@0 = global i0 @0\n",
		"@a = global [2 x i32] [i32 1, i32 2, i32 3]\n",
		"@s = global {i32} {i32 1, i64 2}\n",
	} {
		m, err := ParseIR("bad.ll", []byte(text))
		if err != nil {
			t.Logf("%q: llir rejects it: %v", text, err)
			continue
		}
		_, err = compile(m)
		if err == nil || !strings.Contains(err.Error(), "initial value of global @") || !strings.Contains(err.Error(), "the IR's types disagree") {
			t.Errorf("%q: error %v, want one naming the global and saying the types disagree", text, err)
		}
	}
}
