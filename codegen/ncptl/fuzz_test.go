package ncptl_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/codegen/ncptl"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// FuzzExport exports every program that parses and checks. The export
// must not panic; it either refuses with positioned errors and hints or
// writes text that Parley reads back without errors and exports again.
//
//	go test ./codegen/ncptl -run '^$' -fuzz FuzzExport -fuzztime 60s
func FuzzExport(f *testing.F) {
	for _, pattern := range []string{"../../examples/*.parley", "../testdata/diff/*.parley", "../../lang/testdata/*/*.parley", "../../lang/testdata/*/*.ncptl"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(src)
			}
		}
	}
	for _, l := range lowerings {
		f.Add([]byte(l.src))
	}
	plat, err := netmodel.Resolve(netmodel.DefaultPlatform)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, diags := parser.Parse("fuzz.parley", src)
		if prog == nil || diags.HasErrors() || lang.Check(prog).HasErrors() {
			return
		}
		text, err := ncptl.Export(prog, ncptl.Options{Platform: plat})
		if diags, ok := errors.AsType[lang.Diagnostics](err); ok {
			for _, d := range diags {
				if !d.Pos.IsValid() || d.Hint == "" {
					t.Fatalf("refusal without a position or a hint: %s", d.Error())
				}
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		back, diags := parser.Parse("fuzz.ncptl", text)
		if back != nil && !diags.HasErrors() {
			diags = append(diags, lang.Check(back)...)
		}
		if diags.HasErrors() {
			t.Fatalf("the export does not read back:\n%v\n--- export:\n%s", diags, text)
		}
		if _, err := ncptl.Export(back, ncptl.Options{Platform: plat}); err != nil {
			t.Fatalf("exporting the export: %v\n--- export:\n%s", err, text)
		}
	})
}
