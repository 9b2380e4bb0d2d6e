package lower

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// TestCollectivesFromSeparateCallSites is seed 000's Figure 3: ranks 0
// and 1 reach one barrier from different call sites, on either side of a
// message. The program has one SYNCHRONIZE for both (Algorithm 1), keeps
// each rank's order, and runs with the trace's calls.
func TestCollectivesFromSeparateCallSites(t *testing.T) {
	b := trace.NewBuilder("test", 2, trace.Microseconds)
	add := func(r, line int, e trace.Event) {
		e.Pos = trace.Pos{File: "fig3.trace", Line: line}
		b.Add(r, e)
	}
	add(0, 1, trace.Event{Op: trace.Isend, Peer: 1, Count: 4, TypeSize: 8})
	add(0, 2, trace.Event{Op: trace.Barrier})
	add(0, 3, trace.Event{Op: trace.Wait, Waits: []int{1}})
	add(1, 4, trace.Event{Op: trace.Barrier})
	add(1, 5, trace.Event{Op: trace.Irecv, Peer: 0, Tag: trace.AnyTag, Count: 4, TypeSize: 8})
	add(1, 6, trace.Event{Op: trace.Wait, Waits: []int{1}})
	tr := b.Trace()
	res, err := Lower(tr, Options{Name: "fig3"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(res.Source)
	if n := strings.Count(src, "SYNCHRONIZE"); n != 1 {
		t.Errorf("%d SYNCHRONIZE statements; want 1:\n%s", n, src)
	}
	send := strings.Index(src, "TASK 0 ASYNCHRONOUSLY SENDS A 4 DOUBLEWORD MESSAGE TO UNSUSPECTING TASK 1")
	sync := strings.Index(src, "ALL TASKS SYNCHRONIZE")
	recv := strings.Index(src, "TASK 1 ASYNCHRONOUSLY RECEIVES A 4 DOUBLEWORD MESSAGE FROM TASK 0")
	if send < 0 || sync < 0 || recv < 0 || !(send < sync && sync < recv) {
		t.Errorf("want the send, the barrier and the receive in that order:\n%s", src)
	}
	checkCalls(t, tr, res, 2)
}
