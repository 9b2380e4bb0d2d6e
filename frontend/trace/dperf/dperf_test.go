package dperf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// show prints an event compactly, with every field its op uses.
func show(e *trace.Event) string {
	switch {
	case e.Op == trace.Compute:
		return fmt.Sprintf("compute %g", e.Amount)
	case e.Op.IsP2P():
		return fmt.Sprintf("%v %d t%d %dx%d", e.Op, e.Peer, e.Tag, e.Count, e.TypeSize)
	case e.Op == trace.Wait:
		return fmt.Sprintf("wait %v", e.Waits)
	case e.Op.IsCollective():
		s := e.Op.String()
		if e.Op != trace.Barrier {
			s += fmt.Sprintf(" %dx%d", e.Count, e.TypeSize)
		}
		if e.Op.IsRooted() {
			s += fmt.Sprintf(" root %d", e.Root)
		}
		if e.Comm != 0 {
			s += fmt.Sprintf(" comm %d", e.Comm)
		}
		return s
	}
	return e.Op.String()
}

func expect(t *testing.T, tr *trace.Trace, want ...string) {
	t.Helper()
	if tr.NumRanks != len(want) || len(tr.Ranks) != len(want) {
		t.Fatalf("%d ranks, want %d", tr.NumRanks, len(want))
	}
	for r, w := range want {
		var got []string
		for e := range tr.Events(r) {
			got = append(got, show(e))
		}
		if w = strings.TrimSpace(w); strings.Join(got, "\n") != w {
			t.Errorf("rank %d:\n%s\nwant:\n%s", r, strings.Join(got, "\n"), w)
		}
	}
}

func TestPaper(t *testing.T) {
	tr, err := Read("testdata/paper.txt")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "dperf" || tr.TimeUnit != trace.Microseconds {
		t.Errorf("format %q, unit %v", tr.Format, tr.TimeUnit)
	}
	// Compute is nanoseconds, read as microseconds; receives take the
	// size of the message they match.
	expect(t, tr, `
init
compute 5.385
isend 0 t0 8429748x1
recv 0 t0 8429748x1
compute 46447.205
isend 1 t0 1024x1
barrier
bcast 4096x1 root 0
reduce 8x1 root 0
allreduce 16x1
recv 1 t0 2000x1
finalize`, `
init
irecv 0 t0 1024x1
compute 1.5
wait [1]
barrier
bcast 4096x1 root 0
reduce 8x1 root 0
allreduce 16x1
send 0 t0 2000x1
finalize`)
	var lines []int
	for e := range tr.Events(1) {
		lines = append(lines, e.Pos.Line)
	}
	if fmt.Sprint(lines) != "[3 9 10 11 14 16 18 20 21 25]" {
		t.Errorf("rank 1's lines: %v", lines)
	}
	if _, err := trace.Match(tr, func(int, *trace.Event) {}); err != nil {
		t.Errorf("the paper's trace does not match up: %v", err)
	}
}

func TestDirectory(t *testing.T) {
	tr, err := Read("testdata/dir")
	if err != nil {
		t.Fatal(err)
	}
	// p0's comm_size 2 is the trace's first: p1's barrier spans p0 and
	// p1 too. The wait completes the latest Irecv; the Isends stay
	// unwaited.
	expect(t, tr, `
init
isend 1 t0 64x1
isend 1 t0 64x1
isend 1 t0 32x1
barrier comm 1
finalize`, `
init
irecv 0 t0 64x1
irecv 0 t0 64x1
wait [1]
recv 0 t0 32x1
wait [2]
barrier comm 1
finalize`, `
init
compute 1000
finalize`)
	if len(tr.Comms) != 2 || fmt.Sprint(tr.Comms[1]) != "[0 1]" {
		t.Errorf("comms %v", tr.Comms)
	}
	for e := range tr.Events(2) {
		if want := filepath.Join("testdata", "dir", "trace_p2.txt"); e.Pos.File != want {
			t.Errorf("pos %v, want %s", e.Pos, want)
		}
		break
	}
	m, err := trace.Match(tr, func(int, *trace.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m.Unwaited) != "[3 0 0]" {
		t.Errorf("unwaited %v", m.Unwaited)
	}

	dir := t.TempDir()
	for name, text := range map[string]string{"a": "p0 init\np1 init\n", "b": "p1 finalize\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "b:1:1: p1 also has lines in") {
		t.Errorf("a rank in two files: %v", err)
	}
}

func TestComm(t *testing.T) {
	tr, err := Parse("t.txt", strings.NewReader("p0 comm_size 3\np0 barrier\np1 barrier\np2 barrier\np3 comm_size 4\np3 bcast 8\np0 comm_size 4\np0 bcast 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, tr, "barrier comm 1\nbcast 8x1 root 0", "barrier comm 1", "barrier comm 1", "bcast 8x1 root 0")
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"p0 init\np0 Isend x 10\n", `t.txt:2:10: Isend needs a peer rank (p0, p1, ...), found "x"; expected pRANK Isend pPEER BYTES`},
		{"p0 init\np0 Isend p3 10\n", `t.txt:2:10: peer p3 is not in the trace, which has ranks p0-p0; expected pRANK Isend pPEER BYTES`},
		{"p0 Isend p0\n", `t.txt:1:13: Isend needs 2 arguments, found 1; expected pRANK Isend pPEER BYTES`},
		{"p0 Isend p0 -4\n", `t.txt:1:13: Isend needs a size in bytes between 0 and 1099511627776, found "-4"`},
		{"p0 compute 5385 12\n", `t.txt:1:17: compute takes at most 1 argument, found 2; expected pRANK compute NANOSECONDS`},
		{"p0 compute fast\n", `t.txt:1:12: compute needs a non-negative number of nanoseconds below 2^63 (9.2e18), found "fast"`},
		{"p0 compute 1e300\n", `t.txt:1:12: compute needs a non-negative number of nanoseconds below 2^63 (9.2e18), found "1e300"`},
		{"p0 init\np0 MPI_Allgather 8\n", `t.txt:2:4: "MPI_Allgather" is not a dPerf action; known actions (in any case): allreduce, barrier, bcast, comm_size, compute, finalize, init, irecv, isend, recv, reduce, send, sleep, wait`},
		{"p0 init\nq0 init\n", `t.txt:2:1: a line starts with its rank (p0, p1, ... below p1048576), found "q0"`},
		{"p0 Isend p0 10\np0 wait\n", `t.txt:2:4: wait with no outstanding Irecv on p0`},
		{"p0 init\np1 comm_size 5\n", `t.txt:2:14: comm_size needs a number of ranks between 1 and 2`},
		{"p0 init\np1 init\np2 comm_size 2\np2 barrier\n", `t.txt:4:4: p2 takes part in a barrier, but the communicator (comm_size 2 at line 3) holds p0-p1 only`},
		{"p0 init\np1 init\np0 comm_size 2\np2 barrier\n", `t.txt:4:4: p2 takes part in a barrier, but the communicator (comm_size 2 at t.txt:3) holds p0-p1 only`},
		{"p0 init\np999999 init\n", `t.txt:2:1: p999999 makes a trace of 1000000 ranks of which 2 have lines`},
		{"p0\n", `t.txt:1:4: a line needs an action after its rank`},
		{"\n# nothing\n", `t.txt:1:1: no trace lines`},
		{"p0 reduce 8\n", `t.txt:1:13: reduce needs 2 arguments, found 1; expected pRANK reduce BYTES FLOPS`},
	} {
		_, err := Parse("t.txt", strings.NewReader(c.src))
		var se *trace.SyntaxError
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"p0 compute 5385\np0 Isend p0 8429748\n", true},
		{"p0 Recv p0\np0 compute 46447205\n", true},
		{"p0 compute 5385\n", true},
		{"p0 send 1 1024\n", false}, // a bare peer: TIT's
		{"0 init\n0 send 1 0 1024\n", false},
		{"p0 init\np0 Isend p1 1024\np0 fin", true},
		{"p0 waitall\n", false},
		{"", false},
		{"<?xml version=\"1.0\"?>\n", false},
	} {
		if got := Sniff([]byte(c.head)); got != c.want {
			t.Errorf("Sniff(%q) = %v", c.head, got)
		}
	}
	data, _ := os.ReadFile("testdata/paper.txt")
	if !Sniff(data) {
		t.Error("Sniff(paper.txt) = false")
	}
}
