package examples_test

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// Tasks is the number of tasks each example is meant to run on by default.
var Tasks = map[string]int64{
	"halo3d.parley": 64, "halo2d.parley": 16, "wavefront.parley": 16, "lulesh.parley": 27,
}

func tasksFor(name string) int64 {
	if n, ok := Tasks[name]; ok {
		return n
	}
	return 8
}

// buildExample parses and resolves the example name.
func buildExample(t *testing.T, name string) *ir.Program {
	t.Helper()
	src, _ := fs.ReadFile(examples.FS, name)
	prog, diags := parser.Parse(name, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExamples: every example parses, checks without a single warning, is
// already in canonical form, resolves, and satisfies its own ASSERTs with
// its default parameters on its usual number of tasks.
func TestExamples(t *testing.T) {
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil || len(names) < 12 {
		t.Fatalf("%d examples, %v", len(names), err)
	}
	readme, _ := fs.ReadFile(examples.FS, "README.md")
	for _, name := range names {
		src, _ := fs.ReadFile(examples.FS, name)
		prog, diags := parser.Parse(name, src)
		if prog != nil {
			diags = append(diags, lang.Check(prog)...)
		}
		if len(diags) > 0 {
			t.Errorf("%s:\n%v", name, diags)
			continue
		}
		if out := lang.Format(prog); !bytes.Equal(out, src) {
			t.Errorf("%s is not in canonical form (run parley fmt -w)", name)
		}
		p, err := ir.Build(prog)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		g, err := p.Configure(ir.Config{NumTasks: tasksFor(name)})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		f := ir.NewFrame(g, p, 0)
		for _, top := range p.Body {
			for _, s := range top.Stmts {
				if a, ok := s.(*ir.Assert); ok {
					if err := ir.Catch(func() {
						if !a.Cond.Holds(f) {
							t.Errorf("%s: assertion %q fails on %d tasks", name, a.Msg, g.NumTasks)
						}
					}); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
			}
		}
		if !strings.Contains(string(readme), name) {
			t.Errorf("examples/README.md does not describe %s", name)
		}
	}
	if _, err := fs.ReadFile(examples.FS, examples.Default); err != nil {
		t.Errorf("default example %s: %v", examples.Default, err)
	}
}
