package interp

import (
	"testing"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// TestEstimateHighMeasureDecides: when the tasks' estimate leaves no room
// for the run's messages but the process's real memory does, the run goes
// on (a 10^7-task halo was stopped that way at 14 GB of 20); when the
// real memory is over the limit too, it stops with a "limit" problem.
func TestEstimateHighMeasureDecides(t *testing.T) {
	src := "TASK 0 ASYNCHRONOUSLY SENDS 100000 8 BYTE MESSAGES TO UNSUSPECTING TASK 1 THEN\nTASK 1 RECEIVES 100000 8 BYTE MESSAGES FROM TASK 0 THEN\nALL TASKS AWAIT COMPLETION."
	prog, diags := parser.Parse("grow.parley", []byte(src))
	if prog == nil || diags.HasErrors() {
		t.Fatal(diags)
	}
	if diags := lang.Check(prog); diags.HasErrors() {
		t.Fatal(diags)
	}
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		limit int64
		fits  bool
	}{
		{"real memory fits", memlimit.InUse() + 512<<20, true},
		{"real memory over", 1 << 20, false},
	} {
		s, err := New(p, Options{NumTasks: 2, Platform: plat, MaxMemory: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		s.memBase = c.limit // an estimate that leaves nothing for the messages
		res := s.Run()
		if c.fits && !res.OK() {
			t.Errorf("%s: %v", c.name, res.Problems)
		}
		if !c.fits && (len(res.Problems) != 1 || res.Problems[0].Kind != "limit") {
			t.Errorf("%s: problems %v, want one over the limit", c.name, res.Problems)
		}
	}
}
