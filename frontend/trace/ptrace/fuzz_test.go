package ptrace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// FuzzParse feeds Parse arbitrary input: it must not panic or hang, errors
// must be positioned syntax errors, and a file read without error must
// hold only events the model allows.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/rank-*.ptrace")
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("parley-trace 1\nrank 0 of 2\nstatus partial signal 11\nelapsed 1\ncalls 3\ncomm 1 1 0\nbody\n" +
		"loop 3\n  gatherv root=1 count=2 size=8 comm=1 @ 3 0 0 0 0 0\nend\nend-of-trace\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rf, err := Parse("fuzz.ptrace", bytes.NewReader(data))
		if err != nil {
			var se *trace.SyntaxError
			if !errors.As(err, &se) || se.File != "fuzz.ptrace" || se.Line < 0 || se.Col < 1 || se.Msg == "" {
				t.Fatalf("error %v (%T) is not a positioned syntax error", err, err)
			}
			return
		}
		tr := &trace.Trace{NumRanks: rf.Size, Ranks: make([]trace.Rank, rf.Size)}
		tr.Ranks[rf.Rank].Body = rf.Body
		var calls int64
		for e := range tr.Events(rf.Rank) {
			calls++
			switch {
			case e.Op == trace.OpInvalid || e.Pos.Line < 1:
				t.Fatalf("bad event %v at %v", e, e.Pos)
			case e.Op.IsP2P() && e.Peer != trace.AnySource && (e.Peer < 0 || e.Peer >= rf.Size):
				t.Fatalf("%v: peer outside the world", e)
			case e.Count < 0 || e.TypeSize < 0 || !(e.Amount >= 0):
				t.Fatalf("%v: negative size or amount", e)
			}
			if calls > 1<<20 {
				break
			}
		}
	})
}
