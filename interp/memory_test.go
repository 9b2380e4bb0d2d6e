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
			}
		}
	}
}

// TestP2PStateLines: p2pState is three whole cache lines, which its size
// class (192 bytes) starts on a line, and each group its comments name is
// in one of them: the posted receives with the asynchronous accounts, the
// four counters a send and a receive update, the rest.
func TestP2PStateLines(t *testing.T) {
	const line = 64
	var p p2pState
	if n := unsafe.Sizeof(p); n != 3*line {
		t.Fatalf("p2pState is %d bytes, want %d", n, 3*line)
	}
	lineOf := func(off, size uintptr) uintptr {
		if off/line != (off+size-1)/line {
			t.Errorf("a field at %d, %d bytes, straddles two lines", off, size)
		}
		return off / line
	}
	for _, f := range []struct {
		name      string
		off, size uintptr
		want      uintptr
	}{
		{"posted", unsafe.Offsetof(p.posted), unsafe.Sizeof(p.posted), 0},
		{"asyncPending", unsafe.Offsetof(p.asyncPending), unsafe.Sizeof(p.asyncPending), 0},
		{"unawaited", unsafe.Offsetof(p.unawaited), unsafe.Sizeof(p.unawaited), 0},
		{"asyncDone", unsafe.Offsetof(p.asyncDone), unsafe.Sizeof(p.asyncDone), 0},
		{"deferredMsgs", unsafe.Offsetof(p.deferredMsgs), unsafe.Sizeof(p.deferredMsgs), 0},
		{"deferredBytes", unsafe.Offsetof(p.deferredBytes), unsafe.Sizeof(p.deferredBytes), 0},
		{"cnt", unsafe.Offsetof(p.cnt), unsafe.Sizeof(p.cnt), 1},
		{"total", unsafe.Offsetof(p.total), unsafe.Sizeof(p.total), 1},
	} {
		if got := lineOf(f.off, f.size); got != f.want {
			t.Errorf("%s is in line %d, want %d", f.name, got, f.want)
		}
	}
	// The allocator's objects of this size start on a line.
	for range 100 {
		heapP2P = &p2pState{}
		if a := uintptr(unsafe.Pointer(heapP2P)); a%line != 0 {
			t.Fatalf("a p2pState at %#x, not on a line", a)
		}
	}
}

// heapP2P makes TestP2PStateLines's states escape, to the heap.
var heapP2P *p2pState

// TestTaskGroups: the task's fields the event path reads sit in its first
// three 32-byte groups, each within one cache line wherever a 160-byte task
// starts in Sim.tasks (on a line or half-way through one).
func TestTaskGroups(t *testing.T) {
	var k task
	if n := unsafe.Sizeof(k); n != 160 {
		t.Fatalf("a task is %d bytes: the groups below assume 160", n)
	}
	for _, f := range []struct {
		name      string
		off, size uintptr
		group     uintptr
	}{
		{"cpuFree", unsafe.Offsetof(k.cpuFree), unsafe.Sizeof(k.cpuFree), 0},
		{"sendFree", unsafe.Offsetof(k.sendFree), unsafe.Sizeof(k.sendFree), 0},
		{"recvFree", unsafe.Offsetof(k.recvFree), unsafe.Sizeof(k.recvFree), 0},
		{"id", unsafe.Offsetof(k.id), unsafe.Sizeof(k.id), 0},
		{"status", unsafe.Offsetof(k.status), unsafe.Sizeof(k.status), 0},
		{"awaiting", unsafe.Offsetof(k.awaiting), unsafe.Sizeof(k.awaiting), 0},
		{"sim", unsafe.Offsetof(k.sim), unsafe.Sizeof(k.sim), 1},
		{"act", unsafe.Offsetof(k.act), unsafe.Sizeof(k.act), 1},
		{"pt", unsafe.Offsetof(k.pt), unsafe.Sizeof(k.pt), 1},
		{"rare", unsafe.Offsetof(k.rare), unsafe.Sizeof(k.rare), 1},
		{"comm", unsafe.Offsetof(k.comm), unsafe.Sizeof(k.comm), 2},
		{"pc", unsafe.Offsetof(k.pc), unsafe.Sizeof(k.pc), 2},
		{"inbox", unsafe.Offsetof(k.inbox), unsafe.Sizeof(k.inbox), 2},
	} {
		if g, end := f.off/32, (f.off+f.size-1)/32; g != f.group || end != g {
			t.Errorf("%s (bytes %d to %d) is not within group %d", f.name, f.off, f.off+f.size, f.group)
		}
	}
}
