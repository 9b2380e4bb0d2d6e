package lower

import (
	"runtime"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// TestDeclaredRanks: a trace of 2^16 ranks of which one does anything
// lowers with little memory for each rank that does nothing (it was 3.8 kB
// of allocations and a coroutine's stack for each traversal), and a trace
// too big for the memory limit is refused with the estimate.
func TestDeclaredRanks(t *testing.T) {
	n := 1 << 16
	tr := &trace.Trace{Format: "test", NumRanks: n, Ranks: make([]trace.Rank, n), Comms: [][]int{nil}}
	tr.Ranks[n-1].Body = []trace.Node{{Site: &trace.Site{Events: []trace.Event{{Op: trace.Compute, Amount: 10}}}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Lower(tr, Options{Name: "idle"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Source), "TASK 65535 COMPUTES FOR 10 MICROSECONDS") {
		t.Errorf("program:\n%s", res.Source)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(n)<<11 {
		t.Errorf("lowering allocated %d bytes a rank", alloc/uint64(n))
	}

	_, err = Lower(tr, Options{Name: "idle", MaxMemory: 16 << 20})
	if err == nil || !strings.Contains(err.Error(), "lowering the trace's 65536 ranks, whose calls take 1 sites and loops, would take about 67.1 MB") ||
		!strings.Contains(err.Error(), "over the memory limit of 16.8 MB (--max-memory)") {
		t.Errorf("16 MB: %v", err)
	}
}
