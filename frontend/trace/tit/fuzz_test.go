package tit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// FuzzParse feeds Parse and Sniff arbitrary input: they must not panic or
// hang, errors must be positioned syntax errors, and a trace read without
// error must hold only events the model allows.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.tit")
	more, _ := filepath.Glob("testdata/index/ranks/*.tit")
	for _, path := range append(seeds, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"0 init\n0 send 1 0 1024\n1 recv 0 0 1024\n",
		"0 Isend 1 10\n0 wait\n1 Irecv 0 10\n1 waitAll\n",
		"0 isend 1 5 1\n0 irecv -555 -444 2\n0 wait 0 1 5\n0 wait 1 0 6\n1 init\n",
		"0 init\n1 init\n0 alltoallv 2 1 1 2 1 1\n0 reducescatter 1 2 3\n",
		"p0 init\np1 init\n0 gatherv 1 2 3 1 0 6\n0 allgatherv 1 2 3 6 6 0 0\n",
		"0 sendRecv 1 0 1 0 2 3\n0 bcast 1e6 0 7\n",
		"0 compute 1e300\n0 compute 9e18\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(data)
		tr, err := Parse("fuzz.tit", bytes.NewReader(data))
		if err != nil {
			var se *trace.SyntaxError
			if !errors.As(err, &se) || se.File != "fuzz.tit" || se.Line < 1 || se.Col < 1 || se.Msg == "" {
				t.Fatalf("error %v (%T) is not a positioned syntax error", err, err)
			}
			return
		}
		if tr.NumRanks < 1 || tr.NumRanks > maxRanks || len(tr.Ranks) != tr.NumRanks {
			t.Fatalf("%d ranks, %d in Ranks", tr.NumRanks, len(tr.Ranks))
		}
		for r := range tr.NumRanks {
			calls := 0
			for e := range tr.Events(r) {
				checkEvent(t, tr, e, calls)
				if e.Op.IsAsync() {
					calls++
				}
			}
		}
	})
}

// checkEvent checks e, issued after calls nonblocking calls of its rank,
// against the model's rules.
func checkEvent(t *testing.T, tr *trace.Trace, e *trace.Event, calls int) {
	t.Helper()
	n := tr.NumRanks
	switch {
	case e.Op == trace.OpInvalid || e.Pos.Line < 1:
		t.Fatalf("bad event %v at %v", e, e.Pos)
	case e.Op.IsP2P() && !(e.Peer >= 0 && e.Peer < n || e.Peer == trace.AnySource && e.Op.IsRecv()):
		t.Fatalf("%v: peer out of range", e)
	case e.Op.IsRooted() && (e.Root < 0 || e.Root >= n):
		t.Fatalf("%v: root out of range", e)
	case e.Op == trace.Compute && !(e.Amount >= 0 && e.Amount < trace.MaxAmount):
		t.Fatalf("%v: compute out of range", e)
	case (e.Op.IsP2P() || e.Op.IsCollective() && e.Op != trace.Barrier) && (e.Count < 0 || e.TypeSize < 1 || e.Bytes() < 0):
		t.Fatalf("%v: bad size", e)
	case e.Counts != nil && len(e.Counts) != n:
		t.Fatalf("%v: %d counts for %d ranks", e, len(e.Counts), n)
	case e.Op.IsCollective() && e.Comm != 0:
		t.Fatalf("%v: communicator %d", e, e.Comm)
	}
	for _, age := range e.Waits {
		if age < 1 || age > calls {
			t.Fatalf("%v: age %d after %d nonblocking calls", e, age, calls)
		}
	}
}
