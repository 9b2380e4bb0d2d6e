package parser_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// FuzzParse feeds arbitrary text to the parser. Whatever the input, parsing
// must not panic (the parser turns its own panics into "internal parser
// error" diagnostics, which count as failures here), every error must carry
// a position, and a program that parses must check and resolve without
// panicking, print to text that parses again, and print identically the
// second time.
//
//	go test ./parser -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"../examples/*.parley", "../lang/testdata/*/*.parley", "testdata/*.parley"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err == nil {
				f.Add(src)
			}
		}
	}
	for _, s := range []string{
		"TASK 0 SENDS A 64-BYTE MESSAGE TO TASK 1.",
		"FOR EACH i IN {1, 2, 4, ..., 1K} {TASK 0 OUTPUTS i}",
		`IF (x = 1 \/ y = 2) /\ z IS IN {k FOR EACH k IN {1, ..., 4} WHERE k IS ODD} THEN {} OTHERWISE {}`,
		"TASK 0 OUTPUTS MESH_NEIGHBOR((4*, 3), 5, (-1, +1)) AND 1 IF 2 > 3 OTHERWISE 4",
		`"unterminated`, "((((((((((", "{{{{{{{{", "TASK 0 OUTPUTS -----1", "99999999999999999999999",
		// Nesting just past parser.MaxNesting, which overflowed the stack
		// when deep enough.
		"TASK 0 OUTPUTS " + strings.Repeat("(", 257) + "1" + strings.Repeat(")", 257),
		strings.Repeat("FOR 1 REPETITIONS ", 257) + "TASK 0 OUTPUTS 1",
		strings.Repeat("IF 1 = 1 THEN ", 200) + strings.Repeat("{", 60) + "TASK 0 OUTPUTS 1" + strings.Repeat("}", 60),
		"TASK 0 OUTPUTS 1" + strings.Repeat("+1", 257),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, diags := parser.Parse("fuzz.parley", src)
		for _, d := range diags {
			if strings.HasPrefix(d.Msg, "internal parser error") {
				t.Fatalf("parser panicked: %s", d.Msg)
			}
			if d.Severity == lang.Error && !d.Pos.IsValid() {
				t.Fatalf("error without a position: %s", d.Error())
			}
		}
		if prog == nil || diags.HasErrors() {
			return
		}
		checked := lang.Check(prog)
		for _, d := range checked {
			if !d.Pos.IsValid() {
				t.Fatalf("check diagnostic without a position: %s", d.Error())
			}
		}
		if !checked.HasErrors() {
			if _, err := ir.Build(prog); err != nil {
				t.Fatalf("checked program does not resolve: %v", err)
			}
		}
		out := lang.Format(prog)
		again, d2 := parser.Parse("fuzz.parley", out)
		if d2.HasErrors() {
			t.Fatalf("formatted program does not parse:\n%v\n--- formatted:\n%s", d2, out)
		}
		if out2 := lang.Format(again); !bytes.Equal(out, out2) {
			t.Fatalf("format is not a fixed point:\n%s\n--- then:\n%s", out, out2)
		}
	})
}
