package parser_test

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/parser"
)

// TestMemoryLimit: a program whose estimated parse memory passes
// Options.MaxMemory is refused with the estimate and the limit, where
// scanning shows it, before the grammar runs; within the limit it parses.
func TestMemoryLimit(t *testing.T) {
	src := bigProgram(2000) // about 130 kB, 26,000 tokens: about 16 MB to parse
	if _, diags := parser.ParseWith("big.parley", src, parser.Options{MaxMemory: 64 << 20}); diags.HasErrors() {
		t.Fatalf("within the limit: %v", diags.Errors()[0])
	}
	_, diags := parser.ParseWith("big.parley", src, parser.Options{MaxMemory: 4 << 20})
	if !diags.HasErrors() {
		t.Fatal("over the limit: accepted")
	}
	d := diags.Errors()[0]
	for _, want := range []string{"parsing the program would take about 1", "MB of memory", "tokens at 600 bytes each", "over the memory limit of 4.19 MB (--max-memory)"} {
		if !strings.Contains(d.Msg, want) {
			t.Errorf("message %q lacks %q", d.Msg, want)
		}
	}
	// 4 MB holds about 7,000 tokens, a quarter of the program.
	if d.Pos.File != "big.parley" || d.Pos.Line < 100 || d.Pos.Line > len(strings.Split(string(src), "\n"))/2 {
		t.Errorf("error at %s, want a quarter of the way in", d.Pos)
	}
	if !strings.Contains(d.Hint, "--max-memory") {
		t.Errorf("hint %q", d.Hint)
	}

	_, diags = parser.ParseWith("big.parley", src, parser.Options{MaxMemory: 100_000})
	if !diags.HasErrors() || !strings.Contains(diags.Errors()[0].Msg, "kB of source alone") || diags.Errors()[0].Pos.String() != "big.parley:1:1" {
		t.Errorf("source alone over the limit: %v", diags)
	}
}
