package interp

import (
	"slices"
	"testing"
	"unsafe"

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
	p := buildInternal(t, "grow.parley", "TASK 0 ASYNCHRONOUSLY SENDS 100000 8 BYTE MESSAGES TO UNSUSPECTING TASK 1 THEN\nTASK 1 RECEIVES 100000 8 BYTE MESSAGES FROM TASK 0 THEN\nALL TASKS AWAIT COMPLETION.")
	plat := defaultPlatform(t)
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

func buildInternal(t *testing.T, name, src string) *ir.Program {
	t.Helper()
	prog, diags := parser.Parse(name, []byte(src))
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
	return p
}

func defaultPlatform(t *testing.T) *netmodel.Platform {
	t.Helper()
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	return plat
}

// maxTaskBytes is what a task may take in place (issue 19: a million
// tasks, each the whole of a collective, in under 400 bytes a task).
const maxTaskBytes = 160

// TestTaskStateLazy: a task is at most maxTaskBytes, and a run whose
// collective the evaluator takes makes no task's point-to-point or rare
// state, while one of point-to-point messages makes the former.
func TestTaskStateLazy(t *testing.T) {
	if n := unsafe.Sizeof(task{}); n > maxTaskBytes {
		t.Errorf("a task takes %d bytes, more than %d", n, maxTaskBytes)
	}
	for _, c := range []struct {
		src       string
		p2p, rare bool
	}{
		{"ALL TASKS REDUCE 1 DOUBLEWORD.", false, false},
		{"ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK t XOR 1 THEN ALL TASKS AWAIT COMPLETION.", true, false},
		{"ALL TASKS t OUTPUTS RANDOM_UNIFORM(0, 1).", false, true},
	} {
		s, err := New(buildInternal(t, "lazy.parley", c.src), Options{NumTasks: 64, Platform: defaultPlatform(t)})
		if err != nil {
			t.Fatal(err)
		}
		if res := s.Run(); !res.OK() {
			t.Fatalf("%s: %v", c.src, res.Problems)
		}
		s.releaseFrame() // the frame keeps the streams of the task it served last
		for i := range s.tasks {
			if tk := &s.tasks[i]; (tk.pt != nil) != c.p2p || (tk.rare != nil) != c.rare {
				t.Errorf("%s: task %d has point-to-point state %v and rare state %v, want %v and %v",
					c.src, i, tk.pt != nil, tk.rare != nil, c.p2p, c.rare)
				break
			}
		}
	}
}

// TestInverseOneEach: a pattern in which every task has one source (a
// ring's shift) keeps one source a task and no offsets, and its send
// statement's table of targets; one in which tasks have several keeps the
// offsets. Either way each task's sources are the right ones.
func TestInverseOneEach(t *testing.T) {
	for _, c := range []struct {
		src     string
		oneEach bool
		from    [][]int32 // the sources of tasks 0 to 3
	}{
		{"ALL TASKS s ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.",
			true, [][]int32{{3}, {0}, {1}, {2}}},
		{"TASKS s SUCH THAT s > 0 SEND A 8 BYTE MESSAGE TO TASK s / 2.",
			false, [][]int32{{1}, {2, 3}, {}, {}}},
		// Every task names a target, but not a permutation's: two send
		// to the same task.
		{"ALL TASKS s ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK s / 2 THEN ALL TASKS AWAIT COMPLETION.",
			false, [][]int32{{0, 1}, {2, 3}, {}, {}}},
		// One task's target does not exist.
		{"ALL TASKS s ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK s + 1 THEN ALL TASKS AWAIT COMPLETION.",
			false, [][]int32{{}, {0}, {1}, {2}}},
	} {
		s, err := New(buildInternal(t, "inverse.parley", c.src), Options{NumTasks: 4, Platform: defaultPlatform(t)})
		if err != nil {
			t.Fatal(err)
		}
		if res := s.Run(); !res.OK() {
			t.Fatalf("%s: %v", c.src, res.Problems)
		}
		if len(s.patterns.inverses) != 1 {
			t.Fatalf("%s: %d patterns cached, want 1", c.src, len(s.patterns.inverses))
		}
		for _, p := range s.patterns.inverses {
			if (p.start == nil) != c.oneEach || len(p.to) != 4 {
				t.Errorf("%s: offsets %v, %d targets; want offsets only if tasks have several sources, 4 targets", c.src, p.start, len(p.to))
			}
			for task, want := range c.from {
				if got := p.from(int64(task)); !slices.Equal(got, want) {
					t.Errorf("%s: task %d's sources are %v, want %v", c.src, task, got, want)
				}
				for _, src := range want {
					if len(p.to) == 4 && p.to[src] != int32(task) {
						t.Errorf("%s: task %d's target is %d, want %d", c.src, src, p.to[src], task)
					}
				}
			}
		}
	}
}
