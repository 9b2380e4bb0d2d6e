package parser_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// nested builds programs that nest n levels deep in one way each.
var nested = map[string]func(n int) string{
	"parentheses": func(n int) string {
		return "TASK 0 OUTPUTS " + strings.Repeat("(", n) + "num_tasks" + strings.Repeat(")", n) + "."
	},
	"braces": func(n int) string {
		return strings.Repeat("{", n) + "TASK 0 OUTPUTS 1" + strings.Repeat("}", n)
	},
	"loops": func(n int) string {
		return strings.Repeat("FOR 2 REPETITIONS ", n) + "TASK 0 OUTPUTS 1."
	},
	"conditions": func(n int) string {
		return strings.Repeat("IF num_tasks > 1 THEN ", n) + "TASK 0 OUTPUTS 1."
	},
	"lets": func(n int) string {
		return strings.Repeat("LET x BE num_tasks WHILE ", n) + "TASK 0 OUTPUTS x."
	},
	"sum": func(n int) string {
		return "TASK 0 OUTPUTS num_tasks" + strings.Repeat(" + num_tasks", n) + "."
	},
	"negations": func(n int) string {
		return "TASK 0 OUTPUTS " + strings.Repeat("-", n) + "num_tasks."
	},
	"powers": func(n int) string {
		return "TASK 0 OUTPUTS num_tasks" + strings.Repeat(" ** 1", n) + "."
	},
	"conditional values": func(n int) string {
		return "TASK 0 OUTPUTS " + strings.Repeat("1 IF num_tasks = 2 OTHERWISE ", n) + "3."
	},
}

// TestNestingLimit: programs nested as deeply as MaxNesting allows parse,
// check, print, parse again and resolve; one level more is an error at
// the token that passes the limit, whatever the nesting is made of. The
// inputs that overflowed the stack (a fatal error) give that error too.
func TestNestingLimit(t *testing.T) {
	for name, gen := range nested {
		prog, diags := parser.Parse("deep.parley", []byte(gen(parser.MaxNesting)))
		if diags.HasErrors() {
			t.Errorf("%s at the limit: %v", name, diags)
			continue
		}
		if d := lang.Check(prog); d.HasErrors() {
			t.Errorf("%s at the limit: %v", name, d)
			continue
		}
		out := lang.Format(prog)
		again, diags := parser.Parse("deep.parley", out)
		if diags.HasErrors() {
			t.Errorf("%s at the limit: formatted program does not parse: %v", name, diags)
			continue
		}
		if !bytes.Equal(lang.Format(again), out) {
			t.Errorf("%s at the limit: format is not a fixed point", name)
		}
		if _, err := ir.Build(prog); err != nil {
			t.Errorf("%s at the limit: %v", name, err)
		}

		src := gen(parser.MaxNesting + 1)
		_, diags = parser.Parse("deep.parley", []byte(src))
		if !diags.HasErrors() {
			t.Errorf("%s past the limit: accepted", name)
			continue
		}
		d := diags.Errors()[0]
		want := fmt.Sprintf("nests more than %d levels deep", parser.MaxNesting)
		if !strings.Contains(d.Msg, want) || !strings.Contains(d.Hint, "flatten the program") || d.Pos.Line != 1 || d.Pos.Col < 2 {
			t.Errorf("%s past the limit: %s", name, d.Error())
		}
	}
	for _, src := range []string{nested["parentheses"](300_000), nested["loops"](100_000)} {
		_, diags := parser.Parse("deep.parley", []byte(src))
		if !diags.HasErrors() || !strings.Contains(diags.Errors()[0].Msg, "levels deep") {
			t.Errorf("%.40s...: %v", src, diags)
		}
	}
}

// TestNestingErrorPosition: the error names the token at which the
// program passes the limit, and chains of statements, lists and separate
// expressions are not nesting.
func TestNestingErrorPosition(t *testing.T) {
	_, diags := parser.Parse("deep.parley", []byte(nested["loops"](parser.MaxNesting+5)))
	col := 1 + parser.MaxNesting*len("FOR 2 REPETITIONS ")
	if d := diags.Errors()[0]; d.Pos.String() != fmt.Sprintf("deep.parley:1:%d", col) || d.Text != "FOR" {
		t.Errorf("error at %s on %q, want column %d on FOR", d.Pos, d.Text, col)
	}
	flat := []string{
		"TASK 0 OUTPUTS 1" + strings.Repeat(" THEN TASK 0 OUTPUTS -1 - 1", 2*parser.MaxNesting) + ".",
		"FOR EACH i IN {" + strings.Repeat("-1, ", 2*parser.MaxNesting) + "1} TASK 0 OUTPUTS i.",
		strings.Repeat("TASK 0 OUTPUTS (1 + 2) * 3.\n", 2*parser.MaxNesting),
	}
	for _, src := range flat {
		if _, diags := parser.Parse("flat.parley", []byte(src)); diags.HasErrors() {
			t.Errorf("%.40s...: %v", src, diags.Errors()[0])
		}
	}
}
