package ptrace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// The testdata traces were written by the tracer (parley trace) for
// examples/apps on 4 ranks: jacobi --iters 5 --n 8, cg --iters 5 --nx 8
// --rows 2, particles --iters 5 --n 12.

func TestReadJacobi(t *testing.T) {
	run, err := ReadRun("testdata/jacobi")
	if err != nil {
		t.Fatal(err)
	}
	tr := run.Trace
	if tr.NumRanks != 4 || tr.Partial != "" || tr.Format != "ptrace" || run.Elapsed() <= 0 {
		t.Fatalf("%d ranks, partial %q, format %q, elapsed %g", tr.NumRanks, tr.Partial, tr.Format, run.Elapsed())
	}
	// A 2 x 2 grid: each rank has two neighbours; calls to MPI_PROC_NULL
	// make no event. 5 iterations of 2 irecvs, 2 isends, a wait on the 4
	// and an all-reduce, and the barrier before them.
	for r := range 4 {
		got := tr.Tally(r)
		want := map[trace.Op]trace.Tally{
			trace.Irecv: {Calls: 10, Bytes: 10 * 64}, trace.Isend: {Calls: 10, Bytes: 10 * 64},
			trace.Wait: {Calls: 5}, trace.Allreduce: {Calls: 5, Bytes: 40}, trace.Barrier: {Calls: 1},
		}
		if len(got) != len(want) {
			t.Errorf("rank %d: %v", r, got)
		}
		for op, w := range want {
			if got[op] != w {
				t.Errorf("rank %d %s: %+v, want %+v", r, op, got[op], w)
			}
		}
	}
	for e := range tr.Events(3) {
		if e.Op == trace.Wait && (len(e.Waits) != 4 || e.Waits[0] != 1 || e.Waits[3] != 4) {
			t.Errorf("rank 3's wait %v, want the 4 latest requests", e.Waits)
		}
		if e.Op.IsP2P() && e.Peer != 1 && e.Peer != 2 {
			t.Errorf("rank 3 talks to %d", e.Peer)
		}
		if e.Pos.Line < 1 || !strings.HasSuffix(e.Pos.File, "rank-3.ptrace") {
			t.Errorf("position %v", e.Pos)
		}
	}
	// The loop is kept as a loop.
	loops := 0
	for _, n := range tr.Ranks[0].Body {
		if n.Loop != nil {
			loops++
			if n.Loop.Count != 5 {
				t.Errorf("loop of %d", n.Loop.Count)
			}
		}
	}
	if loops != 1 {
		t.Errorf("%d loops at the top of rank 0", loops)
	}
}

func TestReadSendrecvAndComms(t *testing.T) {
	tr, err := Read("testdata/cg/rank-2.ptrace") // a file names its directory
	if err != nil {
		t.Fatal(err)
	}
	// Inner ranks: two sendrecvs per iteration, each an isend, an irecv
	// and a wait; the edge ranks keep one half of each as a blocking call.
	inner, edge := tr.Tally(1), tr.Tally(0)
	if inner[trace.Isend].Calls != 10 || inner[trace.Irecv].Calls != 10 || inner[trace.Wait].Calls != 10 {
		t.Errorf("rank 1: %v", inner)
	}
	if edge[trace.Send].Calls != 5 || edge[trace.Recv].Calls != 5 || edge[trace.Wait].Calls != 0 {
		t.Errorf("rank 0: %v", edge)
	}
	// The duplicate of MPI_COMM_WORLD is the world.
	for e := range tr.Events(0) {
		if e.Op == trace.Allreduce && e.Comm != 0 {
			t.Errorf("all-reduce on communicator %d", e.Comm)
		}
	}
	tr, err = Read("testdata/particles")
	if err != nil {
		t.Fatal(err)
	}
	// MPI_Comm_split by parity: two communicators besides the world.
	if len(tr.Comms) != 3 || !slices.Equal(tr.Comms[1], []int{0, 2}) && !slices.Equal(tr.Comms[1], []int{1, 3}) {
		t.Errorf("communicators %v", tr.Comms)
	}
	for e := range tr.Events(1) {
		if e.Op == trace.Alltoallv && (len(e.Counts) != 4 || e.Count != 12 || e.TypeSize != 32) {
			t.Errorf("alltoallv %v counts %v", e, e.Counts)
		}
	}
}

const header = "parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 10\ncalls %d\nbody\n"

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "x.ptrace:0:1: the file ends without end-of-trace"},
		{"parley-trace 2\n", "x.ptrace:1:1: expected \"parley-trace 1\""},
		{"parley-trace 1\nrank 2 of 2\n", "x.ptrace:2:6: the rank \"2\" is not in 0..1"},
		{"parley-trace 1\nrank 0 of 2\nstatus fine\n", "x.ptrace:3:1: expected \"status complete\""},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed -1\n", "x.ptrace:4:1: expected \"elapsed MICROSECONDS\""},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\ncomm 1 1\n", "x.ptrace:6:1: communicator 1 does not hold rank 0"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\nbody\nsend peer=+1 tag=0 count=1 size=4 @ 1 0 0 0 0 0\n", "x.ptrace:7:1: the file ends without end-of-trace"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 2\nbody\nsend peer=+1 tag=0 count=1 size=4 @ 1 0 0 0 0 0\nend-of-trace\n", "x.ptrace:8:1: the records stand for 1 calls but the header says 2"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\nbody\nsend peer=+2 tag=0 count=1 size=4 @ 1 0 0 0 0 0\n", "x.ptrace:7:1: send: peer=+2 is not an offset to a rank in 0..1"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 2\nbody\nloop 2\n  barrier comm=0 @ 1 0 0 0 0 0\n", "x.ptrace:8:20: the record stands for \"1\" calls, but its loops make 2"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\nbody\nbarrier comm=3 @ 1 0 0 0 0 0\n", "x.ptrace:7:1: barrier: communicator 3 is not described in the header"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\nbody\nwaitall done=1 unknown=2 @ 1 0 0 0 0 0\n", "requests the tracer did not see made"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\nbody\nexscan count=1 size=4 comm=0 @ 1 0 0 0 0 0\n", "MPI_Exscan has no Parley equivalent"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 1\nbody\nalltoallv count=3 size=4 counts=1,1 comm=0 @ 1 0 0 0 0 0\n", "count=3 is not the sum of counts=, 2"},
		{"parley-trace 1\nrank 0 of 2\nstatus complete\nelapsed 1\ncalls 0\nbody\nend\n", "x.ptrace:7:1: end without a loop"},
	} {
		_, err := Parse("x.ptrace", strings.NewReader(c.text))
		var se *trace.SyntaxError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// TestPartialCut: rank 1 died after its second send; rank 0 had posted a
// third receive and entered a barrier rank 1 never reached. The cut keeps
// two messages each way and nothing after.
func TestPartialCut(t *testing.T) {
	dir := t.TempDir()
	r0 := "parley-trace 1\nrank 0 of 2\nstatus partial signal 15\nelapsed 10\ncalls 5\nbody\n" +
		"loop 3\n  recv peer=+1 tag=0 count=1 size=4 @ 3 3 1 1 0 3\nend\nbarrier comm=0 @ 1 0 0 0 0 0\ninit @ 1 0 0 0 0 0\nend-of-trace\n"
	r1 := "parley-trace 1\nrank 1 of 2\nstatus partial signal 11\nelapsed 5\ncalls 2\nbody\n" +
		"loop 2\n  send peer=-1 tag=0 count=1 size=4 @ 2 0 0 0 0 0\nend\nend-of-trace\n"
	os.WriteFile(filepath.Join(dir, "rank-0.ptrace"), []byte(r0), 0o644)
	os.WriteFile(filepath.Join(dir, "rank-1.ptrace"), []byte(r1), 0o644)
	tr, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "rank 0: killed by signal 15 (SIGTERM); rank 1: killed by signal 11 (SIGSEGV); kept the"
	if !strings.HasPrefix(tr.Partial, want) {
		t.Errorf("Partial = %q, want it to start %q", tr.Partial, want)
	}
	if got := tr.Tally(0); got[trace.Recv].Calls != 2 || got[trace.Barrier].Calls != 0 {
		t.Errorf("rank 0 keeps %v", got)
	}
	if got := tr.Tally(1); got[trace.Send].Calls != 2 {
		t.Errorf("rank 1 keeps %v", got)
	}
	// A rank without a file is an empty rank.
	os.Remove(filepath.Join(dir, "rank-1.ptrace"))
	if tr, err = Read(dir); err != nil || !strings.HasPrefix(tr.Partial, "rank 0: killed by signal 15 (SIGTERM); rank 1 left no file") || tr.Tally(0)[trace.Recv].Calls != 0 {
		t.Errorf("%v %q", err, tr.Partial)
	}
}

func TestReadNotATrace(t *testing.T) {
	if _, err := Read(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no rank-N.ptrace files") {
		t.Errorf("empty directory: %v", err)
	}
	if !Sniff([]byte("parley-trace 1\nrank 0 of 1\n")) || Sniff([]byte("p0 compute 1\n")) {
		t.Error("Sniff")
	}
}

// TestComputeAmount: the computation before a call is the mean CPU time
// where the tracer measured it, else the mean wall time.
func TestComputeAmount(t *testing.T) {
	for _, c := range []struct {
		stats string
		want  float64
	}{
		{"@ 4 40 5 15 1 -", 10},
		{"@ 4 40 5 15 1 8", 2},
	} {
		text := "parley-trace 1\nrank 0 of 1\nstatus complete\nelapsed 50\ncalls 4\nbody\nloop 4\n  barrier comm=0 " + c.stats + "\nend\nend-of-trace\n"
		f, err := Parse("c.ptrace", strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		tr := &trace.Trace{NumRanks: 1, Ranks: []trace.Rank{{Body: f.Body}}}
		var got []float64
		for e := range tr.Events(0) {
			if e.Op == trace.Compute {
				got = append(got, e.Amount)
			}
		}
		if len(got) != 4 || got[0] != c.want {
			t.Errorf("%s: compute %v, want 4 x %g", c.stats, got, c.want)
		}
	}
}
