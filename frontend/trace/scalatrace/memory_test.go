package scalatrace

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// records writes n ScalaTrace records of a Barrier on the ranks of the
// rank list rl, between an Init and a Finalize on the same ranks.
func records(rl string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "RANKS: %s\nEVENT0: 1084 a\n\n", rl)
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "RANKS: %s\nEVENT%d: 1010 b%d\n10 2\n\n", rl, k, k)
	}
	fmt.Fprintf(&b, "RANKS: %s\nEVENT%d: 1045 z\n\n", rl, n+1)
	return b.String()
}

// TestDeclaredRanks: a small trace whose highest rank is 2^20-1 declares
// a million ranks. Reading it costs memory for the ranks its records name,
// not a table of every rank for every record (a gigabyte for these 2,000
// records); one that would not fit is refused with the estimate.
func TestDeclaredRanks(t *testing.T) {
	src := records("1 -1 1048575 1 1", 2000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr, err := Parse("one.trace", strings.NewReader(src))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumRanks != 1<<20 || len(tr.Ranks[1<<20-1].Body) != 2002 || len(tr.Ranks[0].Body) != 0 {
		t.Errorf("NumRanks %d, last rank's calls %d, first's %d", tr.NumRanks, len(tr.Ranks[1<<20-1].Body), len(tr.Ranks[0].Body))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("reading allocated %d MB", alloc>>20)
	}

	// Every record on every rank: 10^8 calls, tens of gigabytes.
	_, err = ParseWith("all.trace", strings.NewReader(records("1 -1 0 1048576 1", 100)), Options{MaxMemory: 1 << 30})
	if err == nil || !strings.Contains(err.Error(), "all.trace:") || !strings.Contains(err.Error(), "the trace has 1048576 ranks, and its records up to this one make") ||
		!strings.Contains(err.Error(), "over the memory limit of 1.07 GB (--max-memory)") {
		t.Errorf("all ranks, 1 GB: %v", err)
	}
}
