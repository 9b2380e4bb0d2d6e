package lower

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace/scalatrace"
)

// BenchmarkLowerLUC16 lowers NAS LU class C on 16 ranks from the public
// ScalaTrace-TI collection.
func BenchmarkLowerLUC16(b *testing.B) {
	dir := os.Getenv("PARLEY_SCALATRACE_TI")
	if dir == "" {
		b.Skip("PARLEY_SCALATRACE_TI is not set")
	}
	tr, err := scalatrace.Read(filepath.Join(dir, "lu", "C", "16", "I", "0"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Lower(tr, Options{Name: "lu-C-16"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLowerStencil4096(b *testing.B) {
	tr := stencilTrace(64)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Lower(tr, Options{Name: "stencil-4096"}); err != nil {
			b.Fatal(err)
		}
	}
}
