package lower

import (
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/dumpi"
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
	res := lowerContaining(t, tr, "v",
		"TASK 3 GATHERS A t + 1 WORD MESSAGE FROM ALL TASKS t",
		"TASK 2 SCATTERS A t + 1 WORD MESSAGE TO ALL TASKS t",
		"ALL TASKS GATHER A t + 1 WORD MESSAGE FROM ALL TASKS t",
		"ALL TASKS s EXCHANGE A d + 1 WORD MESSAGE WITH ALL TASKS d",
		"ALL TASKS REDUCE 10 DOUBLEWORDS AND SCATTER THE RESULT",
		"# 1 reduce-scatters had uneven blocks",
	)
	if res.UnevenScatters != 1 {
		t.Errorf("UnevenScatters = %d; want 1", res.UnevenScatters)
	}
	checkCalls(t, tr, res, n)
}

// TestScan: MPI_Scan, which Parley has no statement for, becomes the
// exchange of MPICH's recursive-doubling scan, and the header says so. On
// six ranks, rank 5 has partners 4 and 1 only (5 XOR 2 = 7 is no rank).
func TestScan(t *testing.T) {
	const n = 6
	b := trace.NewBuilder("test", n, trace.Microseconds)
	for r := range n {
		b.Add(r, trace.Event{Op: trace.Scan, Count: 4, TypeSize: 8, Pos: trace.Pos{File: "scan.trace", Line: 7}})
		for k := range 3 { // sizes that change: a FOR EACH loop
			b.Add(r, trace.Event{Op: trace.Barrier, Pos: trace.Pos{File: "scan.trace", Line: 8}})
			b.Add(r, trace.Event{Op: trace.Scan, Count: int64(k + 1), TypeSize: 8, Pos: trace.Pos{File: "scan.trace", Line: 9}})
		}
	}
	tr := b.Trace()
	res := lowerContaining(t, tr, "scan",
		"FOR EACH m IN {1, 2, 4} {",
		"TASKS t SUCH THAT t XOR m < num_tasks ASYNCHRONOUSLY RECEIVE A 3 DOUBLEWORD MESSAGE FROM TASK t XOR m",
		"TASKS t SUCH THAT t XOR m < num_tasks SEND A (4 IF i = 1 OTHERWISE 1 IF i = 2 OTHERWISE 2) DOUBLEWORD MESSAGE TO UNSUSPECTING TASK t XOR m",
		"# 2 MPI_Scan statements are written as MPICH's recursive-doubling scan",
	)
	if got := interpretTally(t, res, n)[5]["send"]; got != [2]int64{8, 64 + 2*(8+16+24)} {
		t.Errorf("rank 5 sends %v (count, bytes); want 2 messages per scan, of 32, 8, 16 and 24 bytes", got)
	}
	checkCalls(t, tr, res, n)
}

// TestDumpiEveryCollective lowers the real DUMPI trace of a program that
// calls every MPI collective (its source is in the test data), scan
// included, and checks each rank's calls against the trace.
func TestDumpiEveryCollective(t *testing.T) {
	tr, err := dumpi.Read(filepath.Join("..", "dumpi", "testdata", "ring"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Lower(tr, Options{Name: "ring"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scans == 0 {
		t.Errorf("no scan lowered; the trace's program calls MPI_Scan:\n%s", res.Source)
	}
	checkCalls(t, tr, res, tr.NumRanks)
}

// TestNeighbourAlltoallv: a particle code's migration, where every rank
// keeps most particles and sends a few to each neighbour around a ring,
// is written by the distance from sender to receiver.
func TestNeighbourAlltoallv(t *testing.T) {
	const n = 5
	b := trace.NewBuilder("test", n, trace.Microseconds)
	for r := range n {
		counts := make([]int64, n)
		counts[r] = 90
		counts[(r+1)%n] = 6
		counts[(r+n-1)%n] = 3
		b.Add(r, trace.Event{Op: trace.Alltoallv, Count: 99, Counts: counts, TypeSize: 32, Pos: trace.Pos{File: "p.trace", Line: 1}})
	}
	tr := b.Trace()
	res := lowerContaining(t, tr, "p",
		"ALL TASKS s EXCHANGE A (90 IF (d + 5 - s) MOD 5 = 0 OTHERWISE 6 IF (d + 5 - s) MOD 5 = 1 OTHERWISE 3 IF (d + 5 - s) MOD 5 = 4 OTHERWISE 0) * 32 BYTE MESSAGE WITH ALL TASKS d")
	checkCalls(t, tr, res, n)
}
