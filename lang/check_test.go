package lang_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// expectation is one `# want error "re" [hint "re"]` annotation.
type expectation struct {
	line     int
	severity lang.Severity
	msg      *regexp.Regexp
	hint     *regexp.Regexp
}

var wantClause = regexp.MustCompile(`(error|warning|hint) "((?:[^"\\]|\\.)*)"`)

func expectations(t *testing.T, src string) []*expectation {
	var out []*expectation
	for i, line := range strings.Split(src, "\n") {
		_, ann, ok := strings.Cut(line, "# want ")
		if !ok {
			continue
		}
		for _, m := range wantClause.FindAllStringSubmatch(ann, -1) {
			re := regexp.MustCompile(strings.ReplaceAll(m[2], `\"`, `"`))
			switch m[1] {
			case "hint":
				if len(out) == 0 {
					t.Fatalf("line %d: hint without a diagnostic", i+1)
				}
				out[len(out)-1].hint = re
			case "error":
				out = append(out, &expectation{line: i + 1, severity: lang.Error, msg: re})
			default:
				out = append(out, &expectation{line: i + 1, severity: lang.Warning, msg: re})
			}
		}
	}
	return out
}

// TestCheckDiagnostics runs every program in testdata/check, each wrong in
// the ways its inline annotations say, and requires exactly those
// diagnostics: on those lines, with those messages and hints, and quoting
// the offending text.
func TestCheckDiagnostics(t *testing.T) {
	files, _ := filepath.Glob("testdata/check/*.parley")
	if len(files) < 15 {
		t.Fatalf("only %d check programs", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			prog, diags := parser.Parse(f, src)
			if prog == nil {
				t.Fatalf("does not parse:\n%v", diags)
			}
			diags = append(diags, lang.Check(prog)...)
			want := expectations(t, string(src))
			if len(want) == 0 {
				t.Fatal("no expectations")
			}
			matched := make([]bool, len(diags))
			for _, w := range want {
				found := false
				for i, d := range diags {
					if matched[i] || d.Pos.Line != w.line || d.Severity != w.severity || !w.msg.MatchString(d.Msg) {
						continue
					}
					if w.hint != nil && !w.hint.MatchString(d.Hint) {
						t.Errorf("line %d: %q has hint %q, want one matching %q", w.line, d.Msg, d.Hint, w.hint)
					}
					matched[i], found = true, true
					break
				}
				if !found {
					t.Errorf("line %d: no %s matching %q", w.line, w.severity, w.msg)
				}
			}
			for i, d := range diags {
				if !matched[i] {
					t.Errorf("unexpected diagnostic: %s", d.Error())
				}
				if d.Pos.Line == 0 || d.Pos.Col == 0 || d.Pos.File != f {
					t.Errorf("diagnostic without a position: %s", d.Error())
				}
				if d.Severity == lang.Error && (d.Text == "" || d.Hint == "") {
					t.Errorf("error without offending text or hint: %s", d.Error())
				}
			}
		})
	}
}

// TestChecksPassCleanPrograms: the examples check without errors or
// warnings.
func TestChecksPassCleanPrograms(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.parley")
	for _, f := range files {
		src, _ := os.ReadFile(f)
		prog, diags := parser.Parse(f, src)
		if prog != nil {
			diags = append(diags, lang.Check(prog)...)
		}
		for _, d := range diags {
			t.Errorf("%s", d.Error())
		}
	}
}

// TestManualStylePrograms: programs written as the coNCePTuaL manual writes
// them check without errors, and so does their canonical form.
func TestManualStylePrograms(t *testing.T) {
	files, _ := filepath.Glob("testdata/manual/*.ncptl")
	if len(files) < 4 {
		t.Fatalf("only %d programs", len(files))
	}
	for _, f := range files {
		src, _ := os.ReadFile(f)
		for _, text := range [][]byte{src, nil} {
			if text == nil {
				p, _ := parser.Parse(f, src)
				text = lang.Format(p)
			}
			prog, diags := parser.Parse(f, text)
			if prog != nil {
				diags = append(diags, lang.Check(prog)...)
			}
			if diags.HasErrors() {
				t.Errorf("%s:\n%v\n--- text:\n%s", f, diags.Errors(), text)
			}
		}
	}
}
