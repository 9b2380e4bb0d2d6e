package tit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// show prints an event compactly, with every field its op uses.
func show(e *trace.Event) string {
	peer := func(p int) string {
		if p == trace.AnySource {
			return "any"
		}
		return fmt.Sprint(p)
	}
	switch {
	case e.Op == trace.Compute:
		return fmt.Sprintf("compute %g", e.Amount)
	case e.Op.IsP2P():
		tag := fmt.Sprint(e.Tag)
		if e.Tag == trace.AnyTag && e.Op.IsRecv() {
			tag = "any"
		}
		return fmt.Sprintf("%v %s t%s %dx%d", e.Op, peer(e.Peer), tag, e.Count, e.TypeSize)
	case e.Op == trace.Wait:
		return fmt.Sprintf("wait %v", e.Waits)
	case e.Op.IsCollective() && e.Op != trace.Barrier:
		s := fmt.Sprintf("%v %dx%d", e.Op, e.Count, e.TypeSize)
		if e.Counts != nil {
			s += fmt.Sprintf(" %v", e.Counts)
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

// events returns rank r's events, shown.
func events(t *trace.Trace, r int) []string {
	var out []string
	for e := range t.Events(r) {
		out = append(out, show(e))
	}
	return out
}

// expect compares every rank's events with want, one string of lines per
// rank.
func expect(t *testing.T, tr *trace.Trace, want ...string) {
	t.Helper()
	if tr.NumRanks != len(want) || len(tr.Ranks) != len(want) {
		t.Fatalf("%d ranks (%d in Ranks), want %d", tr.NumRanks, len(tr.Ranks), len(want))
	}
	for r, w := range want {
		got := strings.Join(events(tr, r), "\n")
		if w = strings.TrimSpace(w); got != w {
			t.Errorf("rank %d:\n%s\nwant:\n%s", r, got, w)
		}
	}
}

func TestCurrentForm(t *testing.T) {
	tr, err := Read("testdata/current.tit")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "tit" || tr.TimeUnit != trace.Flops || len(tr.Comms) != 1 {
		t.Errorf("format %q, unit %v, %d comms", tr.Format, tr.TimeUnit, len(tr.Comms))
	}
	expect(t, tr, `
init
compute 1e+06
send 1 t5 1024x1
isend 2 t7 100x4
irecv 3 t8 64x8
wait [1]
wait [2]
barrier
bcast 1000x1 root 2
bcast 50000x8 root 1
reduce 16x1 root 3
reduce 16x4 root 3
allreduce 8x1
allreduce 8x4
scan 4x1
scan 4x2
alltoall 5x1
alltoall 5x4
gather 9x1 root 0
gather 9x4 root 3
allgather 6x1
gatherv 20x1 [10 20 30 40] root 0
gatherv 80x1 [80 160 240 320] root 1
allgatherv 2x1 [1 2 3 4]
allgatherv 2x4 [1 2 3 4]
allgatherv 2x1 [1 2 3 4]
allgatherv 2x4 [1 2 3 4]
scatter 7x1 root 3
scatterv 2x1 [1 2 3 4] root 3
alltoallv 35x1 [10 0 12 13]
reduce_scatter 10x1 [3 3 2 2]
reduce_scatter 10x8 [3 3 2 2]
finalize`, `
init
recv 0 t5 128x8
bcast 1000x8 root 2
finalize`, `
init
irecv 0 t7 100x4
isend 3 t9 5x1
irecv any tany 10x1
wait [1 2 3]
finalize`, `
init
isend 0 t8 64x8
irecv 2 t9 5x1
isend 1 t0 10x1
irecv 2 t0 20x1
wait [1 2]
finalize`)
	// Positions: the line each event comes from.
	var lines []int
	for e := range tr.Events(3) {
		lines = append(lines, e.Pos.Line)
	}
	if fmt.Sprint(lines) != "[5 19 20 21 21 21 58]" {
		t.Errorf("rank 3's lines: %v", lines)
	}
	for e := range tr.Events(0) {
		if e.Pos.File != "testdata/current.tit" {
			t.Errorf("%v at %v", e, e.Pos)
		}
		break
	}
}

func TestOldForm(t *testing.T) {
	tr, err := Read("testdata/old.tit")
	if err != nil {
		t.Fatal(err)
	}
	expect(t, tr, `
init
compute 1e+09
send 1 t0 1000000x1
isend 1 t0 2000x1
isend 2 t0 3000x4
irecv 2 t0 64x8
wait [1]
wait [2 3]
allreduce 500000000x1
alltoall 10x1
alltoallv 18x1 [1 7 10]
gatherv 68x1 [10 10 10] root 0
allgather 4x1
allgatherv 5x1 [1 2 3]
reduce_scatter 6x1 [1 2 3]
scatterv 2x1 [1 2 3] root 0
finalize`, `
init
recv 0 t0 1000000x1
irecv 0 t0 2000x1
irecv 0 t0 5x1
wait [1]
wait [2]
allreduce 500000000x1
finalize`, `
init
irecv 0 t0 3000x4
isend 0 t0 64x8
wait [1 2]
allreduce 500000000x1
finalize`)
}

// TestFormClues: how a trace's form is told, line by line.
func TestFormClues(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"0 send 1 1024\n", "send 1 t0 1024x1"},              // 2 arguments: old
		{"0 send 1 5 1024 6\n", "send 1 t5 1024x1"},          // 4 arguments: current
		{"0 send 1 1e3 2\n", "send 1 t0 1000x1"},             // a tag is not 1e3: old, char
		{"0 send 1 0 1024\n", "send 1 t0 1024x1"},            // no old datatype id is 1024
		{"0 Isend 1 0 1024\n", "isend 1 t0 1024x1"},          // the brief's example: values beat spelling
		{"0 Isend 1 2 3\n", "isend 1 t0 2x2"},                // old spelling: datatype 3, short
		{"0 isend 1 2 3\n", "isend 1 t2 3x1"},                // current spelling
		{"0 send 1 2 3\n", "send 1 t2 3x1"},                  // nothing tells: current
		{"0 send 1 -7 3\n0 Isend 1 2 3\n", "send 1 t-7 3x1"}, // a negative tag: current
		{"0 send p1 2 3\n0 test\n", "send 1 t0 2x2"},         // a bare test: old
	} {
		tr, err := Parse("t.tit", strings.NewReader(c.src+"1 init\n"))
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := events(tr, 0)[0]; got != c.want {
			t.Errorf("%q: %s, want %s", c.src, got, c.want)
		}
	}
}

func TestIndex(t *testing.T) {
	tr, err := Read("testdata/index/run.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0's file has a line for rank 1, which is skipped.
	expect(t, tr, `
init
isend 1 t3 10x1
wait [1]
finalize`, `
init
irecv 0 t3 10x1
wait [1]
finalize`)
	for e := range tr.Events(1) {
		if want := filepath.Join("testdata", "index", "ranks", "r1.tit"); e.Pos.File != want || e.Pos.Line != 1 {
			t.Errorf("pos %v, want %s:1", e.Pos, want)
		}
		break
	}

	// Absolute paths, and an index of one file: a shared trace.
	dir := t.TempDir()
	abs, _ := filepath.Abs("testdata/current.tit")
	write(t, dir, "one.txt", abs+"\n")
	if tr, err := Read(filepath.Join(dir, "one.txt")); err != nil || tr.NumRanks != 4 {
		t.Errorf("one-line index: %v", err)
	}
	write(t, dir, "missing.txt", "# rank files\nnowhere/r0.tit\n")
	_, err = Read(filepath.Join(dir, "missing.txt"))
	if err == nil || !strings.Contains(err.Error(), "missing.txt:2:1: cannot read trace file nowhere/r0.tit") {
		t.Errorf("missing file: %v", err)
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "prog.tit", "a/prog-0.tit\na/prog-1.tit\n") // an index: skipped
	write(t, dir, "prog-0.tit", "0 init\n0 send 1 0 8\n0 finalize\n")
	write(t, dir, "prog-1.tit", "1 init\n1 recv 0 0 8\n1 finalize\n")
	write(t, dir, ".hidden", "garbage\n")
	tr, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, tr, "init\nsend 1 t0 8x1\nfinalize", "init\nrecv 0 t0 8x1\nfinalize")

	write(t, dir, "prog-2.tit", "1 compute 5\n")
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "prog-2.tit:1:1: rank 1 also has lines in") {
		t.Errorf("a rank in two files: %v", err)
	}
}

// onlyReader hides every method of its reader but Read.
type onlyReader struct{ io.Reader }

func TestParseNonSeeker(t *testing.T) {
	// A reader that cannot seek is read into memory.
	r := struct{ *strings.Reader }{strings.NewReader("0 init\n1 init\n")}
	tr, err := Parse("t.tit", struct {
		r interface{ Read([]byte) (int, error) }
	}{r}.r)
	if err != nil || tr.NumRanks != 2 {
		t.Fatalf("%v, %v", tr, err)
	}
}

func TestWaits(t *testing.T) {
	// Current form: FIFO per key, wildcards, ages counting completed
	// calls, waitall with nothing outstanding, unwaited requests at the end.
	tr, err := Parse("t.tit", strings.NewReader(`
0 isend 1 5 1
0 isend 1 5 2
0 irecv 1 5 3
0 irecv -333 6 4
0 wait 0 1 5
0 wait 1 0 6
0 wait 0 1 5
0 waitall
0 waitall
0 isend 1 7 9
0 test 0 1 7
1 init
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(events(tr, 0), "\n")
	want := "isend 1 t5 1x1\nisend 1 t5 2x1\nirecv 1 t5 3x1\nirecv any t6 4x1\nwait [4]\nwait [1]\nwait [3]\nwait [2]\nwait []\nisend 1 t7 9x1"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	// Old form: LIFO.
	tr, err = Parse("t.tit", strings.NewReader("0 Isend 1 1\n0 Irecv 1 2\n0 Isend 1 3\n0 wait\n0 Isend 1 4\n0 wait\n0 wait\n0 waitAll\n1 init\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events(tr, 0)[3:], " "); got != "wait [1] isend 1 t0 4x1 wait [1] wait [3] wait [4]" {
		t.Errorf("old waits: %s", got)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"0 init\n0 send x 0 1024\n", `t.tit:2:8: send needs a peer rank, found "x"; expected RANK send PEER TAG SIZE [DATATYPE]`},
		{"0 init\n0 send 1 x 1024\n1 init\n", `t.tit:2:10: send needs an integer tag, found "x"; expected RANK send PEER TAG SIZE [DATATYPE]`},
		{"0 init\n0 frobnicate 3\n", `t.tit:2:3: "frobnicate" is not a TIT action; known actions (in any case): allgather, allgatherv,`},
		{"0 init\nx init\n", `t.tit:2:1: a line starts with its rank (a number below 1048576), found "x"`},
		{"0 init\n2000000 init\n", `t.tit:2:1: a line starts with its rank`},
		{"0 init\n1 init\n0 send 5 0 10\n", `t.tit:3:8: peer rank 5 is not in the trace, which has ranks 0-1`},
		{"0 send 1\n1 init\n", `t.tit:1:10: send needs at least 3 arguments, found 1; expected RANK send PEER TAG SIZE [DATATYPE] (the trace is read in the current form (SimGrid 3.20 and later): no line tells the forms apart)`},
		{"0 send 1 10\n1 recv 0 10\n0 send 1 0 10 6\n", `t.tit:3:3: send has 4 arguments (PEER TAG SIZE DATATYPE), which is the current form (SimGrid 3.20 and later), but t.tit:1: send has 2 arguments (PEER SIZE), which is the form before SimGrid 3.20`},
		{"0 send 1 10\n0 isend 1\n1 init\n", `t.tit:2:11: isend needs at least 2 arguments, found 1; expected RANK isend PEER SIZE [DATATYPE] (the trace is read in the form before SimGrid 3.20: t.tit:1: send has 2 arguments (PEER SIZE))`},
		{"0 isend 1 0 10\n0 wait 0 1 5\n1 init\n", `t.tit:2:8: wait 0 1 5 completes no request of rank 0: its 1 outstanding: isend to 1 tag 0 (line 1)`},
		{"0 wait 1 0 5\n1 init\n", `t.tit:1:8: wait 1 0 5 completes no request of rank 0: it has no outstanding isend or irecv`},
		{"0 Isend 1 10\n0 wait\n0 wait\n1 init\n", `t.tit:3:3: wait with no outstanding Isend or Irecv on rank 0`},
		{"0 send 0 0 10 99\n", `t.tit:1:15: datatype id 99 is not one of SimGrid's predefined datatypes`},
		{"0 send 0 0 10 x\n", `t.tit:1:15: "x" is not a datatype id`},
		{"0 compute -5\n", `t.tit:1:11: compute needs a non-negative number of flops below 2^63 (9.2e18), found "-5"; expected RANK compute FLOPS`},
		{"0 compute 1e999\n", `t.tit:1:11: compute needs a non-negative number of flops`},
		// Finite, but no integer of a lowered program holds it: it was
		// dropped without a word.
		{"0 compute 1e300\n", `t.tit:1:11: compute needs a non-negative number of flops below 2^63 (9.2e18), found "1e300"`},
		{"0 compute 9223372036854775808\n", `t.tit:1:11: compute needs a non-negative number of flops below 2^63`},
		{"0 allreduce 10 1e19\n", `t.tit:1:16: allreduce needs a non-negative number of flops below 2^63`},
		{"0 init\n1 init\n0 gatherv 1 2\n", `t.tit:3:15: gatherv needs at least 3 arguments, found 2; expected RANK gatherv SEND R0 R1 [ROOT [DATATYPE1 [DATATYPE2]]] (one count per rank)`},
		{"0 init\n1 init\n0 gatherv 1 2 1.5\n", `t.tit:3:15: gatherv needs non-negative integer counts, found "1.5"`},
		{"0 bcast 1e20\n", `t.tit:1:9: bcast needs a size between 0 and 1099511627776, found "1e20"`},
		{"0 barrier 1\n", `t.tit:1:11: barrier takes at most 0 arguments, found 1; expected RANK barrier`},
		{"0 init\n0\n", `t.tit:2:3: a line needs an action after its rank`},
		{"# nothing\n\n", `t.tit:1:1: no trace lines`},
		{"3 init\n0 allgatherv 1 1 1 1 1 9 9 9\n", `t.tit:2:24: allgatherv has 3 fields after its 4 counts`},
		{"0 bcast 10 4\n", `t.tit:1:12: root rank 4 is not in the trace, which has ranks 0-0`},
		{"0 reduce 10 -1\n", `t.tit:1:13: reduce needs a non-negative number of flops`},
		{"0 init\n0 alltoallv 2 1 1 2 1 x\n1 init\n", `t.tit:2:23: alltoallv needs non-negative integer counts, found "x"`},
		{"0 recv -1 0 5\n", `t.tit:1:8: recv needs a peer rank, found "-1"`},
		{"0 init\n1048575 init\n", `t.tit:2:1: rank 1048575 makes a trace of 1048576 ranks of which 2 have lines; at most 4096 ranks may have none`},
		{"0 wait a b c\n", `t.tit:1:8: wait needs integers SRC DST TAG, found "a"`},
	} {
		_, err := Parse("t.tit", strings.NewReader(c.src))
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
		{"0 init\n0 send 1 0 1024\n0 finalize\n", true},
		{"# comment\n\n0 init\n0 compute 1e6\n", true},
		{"p0 init\np0 send 1 1024\n", true},         // old ranks, bare peer
		{"p0 init\np0 Isend p1 1024\n", false},      // dPerf
		{"p0 compute 5385\np0 compute 12\n", false}, // dPerf's, without a point-to-point line
		{"0 init\n0 send 1 0 1024\n0 fin", true},    // the cut last line is ignored
		{"0 frobnicate\n", false},
		{"run/prog-0.tit\nrun/prog-1.tit\n", true}, // an index
		{"numprocs=4\nhostname=x\n", false},
		{"RANKS: 1 -1 0 4 1\n", false},
		{"", false},
		{"0 init\x00\n", false},
	} {
		if got := Sniff([]byte(c.head)); got != c.want {
			t.Errorf("Sniff(%q) = %v", c.head, got)
		}
	}
	for _, f := range []string{"testdata/current.tit", "testdata/old.tit", "testdata/index/run.txt"} {
		data, _ := os.ReadFile(f)
		if !Sniff(data) {
			t.Errorf("Sniff(%s) = false", f)
		}
	}
}
