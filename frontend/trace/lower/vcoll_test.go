package lower

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// TestVCollectives lowers the "v" collectives and MPI_Reduce_scatter of a
// small trace shaped like the dumpi test program's (member i's count is
// i + 1) and checks the statements and that the program issues each rank's
// traced bytes.
func TestVCollectives(t *testing.T) {
	const n = 4
	b := trace.NewBuilder("test", n, trace.Microseconds)
	counts := []int64{1, 2, 3, 4}
	for r := range n {
		own := int64(r + 1)
		add := func(e trace.Event) {
			e.Pos = trace.Pos{File: "v.trace", Line: int(e.Op)}
			b.Add(r, e)
		}
		g := trace.Event{Op: trace.Gatherv, Root: 3, Count: own, TypeSize: 4}
		if r == 3 {
			g.Counts = counts
		}
		add(g)
		sc := trace.Event{Op: trace.Scatterv, Root: 2, Count: own, TypeSize: 4}
		if r == 2 {
			sc.Counts = counts
		}
		add(sc)
		add(trace.Event{Op: trace.Allgatherv, Count: own, Counts: counts, TypeSize: 4})
		add(trace.Event{Op: trace.Alltoallv, Count: 10, Counts: counts, TypeSize: 4})
		add(trace.Event{Op: trace.ReduceScatter, Count: 10, Counts: counts, TypeSize: 8})
	}
	tr := b.Trace()
	res, err := Lower(tr, Options{Name: "v"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(res.Source)
	for _, want := range []string{
		"TASK 3 GATHERS A t + 1 WORD MESSAGE FROM ALL TASKS t",
		"TASK 2 SCATTERS A t + 1 WORD MESSAGE TO ALL TASKS t",
		"ALL TASKS GATHER A t + 1 WORD MESSAGE FROM ALL TASKS t",
		"ALL TASKS s EXCHANGE A d + 1 WORD MESSAGE WITH ALL TASKS d",
		"ALL TASKS REDUCE 10 DOUBLEWORDS AND SCATTER THE RESULT",
		"# 1 reduce-scatters had uneven blocks",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("missing %q in:\n%s", want, src)
		}
	}
	if res.UnevenScatters != 1 {
		t.Errorf("UnevenScatters = %d; want 1", res.UnevenScatters)
	}
	checkCalls(t, tr, res, n)
}

// TestScanRefused: MPI_Scan has no Parley statement, and lowering says
// where it is and what to do rather than writing something else.
func TestScanRefused(t *testing.T) {
	b := trace.NewBuilder("test", 2, trace.Microseconds)
	for r := range 2 {
		b.Add(r, trace.Event{Op: trace.Scan, Count: 4, TypeSize: 8, Pos: trace.Pos{File: "scan.trace", Line: 7}})
	}
	_, err := Lower(b.Trace(), Options{Name: "scan"})
	if err == nil || !strings.Contains(err.Error(), "scan.trace:7") || !strings.Contains(err.Error(), "MPI_Scan") {
		t.Fatalf("err = %v; want the scan's position and why", err)
	}
}
