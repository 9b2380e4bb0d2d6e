package scalatrace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// FuzzParse: no input makes the reader panic or hang; whatever it
// accepts expands.
func FuzzParse(f *testing.F) {
	f.Add([]byte("RANKS: 1 -1 0 2 1\nEVENT0: 1084 a\n\nRANKS: 1 -1 0 1 0\nEVENT1: 1113 b\nLOOP0: iter: ( 3 )[ 1 -1 0 1 0 ] mem: ( 1 )[ 1 -1 0 1 0 ]\n10 2\n12 4 5\n14 16\n1a 1\n1b 0\n"))
	if data, err := os.ReadFile(filepath.Join(sharedData, "lu-A-4-td.trace")); err == nil {
		f.Add(data[:min(len(data), 6000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse("fuzz.trace", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.trace:") {
				t.Errorf("error without a position: %v", err)
			}
			return
		}
		n := 0
		for r := range tr.NumRanks {
			for e := range tr.Events(r) {
				if e.Op == trace.Compute && !(e.Amount >= 0 && e.Amount < trace.MaxAmount) {
					t.Fatalf("rank %d: compute %v", r, e.Amount)
				}
				if n++; n > 1<<16 {
					return
				}
			}
		}
	})
}

// TestErrors: damaged traces are refused with the line and column of the
// damage and what was expected.
func TestErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"EVENT0: 1084 a\n", "t.trace:1:1: expected a record's \"RANKS:\" line"},
		{"RANKS: 1 -1 0 x 1\n", "t.trace:1:15: expected a group's count (an integer), found \"x\""},
		{"RANKS: 1 -1 0 2 1\nEVENT0: 1113 a\n12 4\n", "t.trace:2:9: EVENT0 (send) has no COMM parameter"},
		{"RANKS: 1 -1 0 2 1\nEVENT0: 1113 a\n10 2\n12 4\n14 99\n1a 1\n1b 0\n", "t.trace:5:4: datatype code 99 is not one of the tracer's built-in types"},
		{"RANKS: 1 -1 0 1 0\nEVENT0: 1113 a\nLOOP0: iter: ( 2 )[ 1 -1 0 1 0 ] mem: ( 5 )[ 1 -1 0 1 0 ]\n", "t.trace:3:1: rank 0: the loop's mem 5 runs past the end"},
		{"RANKS: 1 -1 0 1 0\nEVENT0: 1999 a\n", "t.trace:2:9: opcode 1999 is not an MPI call this reader supports"},
		{"", "t.trace:1:1: no records"},
	}
	for _, c := range cases {
		_, err := Parse("t.trace", strings.NewReader(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v\nwant %s...", c.src, err, c.want)
		}
	}
}
