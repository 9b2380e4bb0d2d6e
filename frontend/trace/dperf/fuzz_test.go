package dperf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/tit"
)

// FuzzParse feeds Parse and Sniff arbitrary input: they must not panic or
// hang, errors must be positioned syntax errors, a trace read without
// error must hold only events the model allows, and dPerf's and TIT's
// sniffers must never both claim the input.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.txt")
	more, _ := filepath.Glob("testdata/dir/*.txt")
	for _, path := range append(seeds, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"p0 compute 5385\np0 Isend p0 8429748\np0 Recv p0\np0 compute 46447205\n",
		"p0 Isend p1 10\np1 Irecv p0\np1 wait\np1 comm_size 2\np1 barrier\np0 barrier\n",
		"p0 send 1 1024\n0 init\n", // TIT's look
		"0 isend 1 0 8\n1 irecv 0 0 8\n1 wait 0 1 0\n",
		"p0 compute 1e300\np0 compute 9e18\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Sniff(data) && tit.Sniff(data) {
			t.Fatalf("both dPerf and TIT claim %q", data)
		}
		tr, err := Parse("fuzz.txt", bytes.NewReader(data))
		if err != nil {
			var se *trace.SyntaxError
			if !errors.As(err, &se) || se.File != "fuzz.txt" || se.Line < 1 || se.Col < 1 || se.Msg == "" {
				t.Fatalf("error %v (%T) is not a positioned syntax error", err, err)
			}
			return
		}
		n := tr.NumRanks
		if n < 1 || n > maxRanks || len(tr.Ranks) != n {
			t.Fatalf("%d ranks, %d in Ranks", n, len(tr.Ranks))
		}
		for r := range n {
			calls := 0
			for e := range tr.Events(r) {
				switch {
				case e.Op == trace.OpInvalid || e.Pos.Line < 1:
					t.Fatalf("bad event %v at %v", e, e.Pos)
				case e.Op.IsP2P() && (e.Peer < 0 || e.Peer >= n || e.Count < 0 || e.TypeSize != 1):
					t.Fatalf("%v: bad peer or size", e)
				case e.Op == trace.Compute && !(e.Amount >= 0 && e.Amount < trace.MaxAmount):
					t.Fatalf("%v: compute out of range", e)
				case e.Op.IsCollective() && (e.Comm < 0 || e.Comm >= len(tr.Comms) || e.Root != 0):
					t.Fatalf("%v: communicator %d of %d", e, e.Comm, len(tr.Comms))
				}
				for _, age := range e.Waits {
					if age < 1 || age > calls {
						t.Fatalf("%v: age %d after %d nonblocking calls", e, age, calls)
					}
				}
				if e.Op.IsAsync() {
					calls++
				}
			}
		}
	})
}

// TestSniffDisjoint: no test file of either reader is claimed by both.
func TestSniffDisjoint(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/*.txt", "testdata/dir/*", "../tit/testdata/*.tit", "../tit/testdata/index/*.txt", "../tit/testdata/index/ranks/*"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("%d files", len(files))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, ti := Sniff(data), tit.Sniff(data)
		if d && ti {
			t.Errorf("%s: both readers claim it", path)
		}
		if !d && !ti && filepath.Ext(path) != ".xml" {
			t.Errorf("%s: no reader claims it", path)
		}
	}
}
