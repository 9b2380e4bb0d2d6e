package lower

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// TestIdleRanksJoinAWait: ranks 1..6 exchange with a partner and wait;
// rank 0, with nothing outstanding, may join their wait, but rank 7,
// whose receive is still outstanding until after the reduction, must
// not. Its own wait, with every other rank idle, is ALL TASKS'.
func TestIdleRanksJoinAWait(t *testing.T) {
	const n = 8
	b := trace.NewBuilder("test", n, trace.Microseconds)
	for r := range n {
		line := 0
		add := func(e trace.Event) {
			line++
			e.Pos = trace.Pos{File: "wait.trace", Line: line}
			b.Add(r, e)
		}
		msg := func(op trace.Op, peer int) { add(trace.Event{Op: op, Peer: peer, Count: 10, TypeSize: 8}) }
		switch partner := r + 1 - 2*(1-r%2); {
		case r == 0:
			msg(trace.Send, 7)
			add(trace.Event{Op: trace.Compute, Amount: 100})
			add(trace.Event{Op: trace.Allreduce, Count: 1, TypeSize: 8})
		case r == 7:
			msg(trace.Irecv, 0)
			add(trace.Event{Op: trace.Compute, Amount: 100})
			add(trace.Event{Op: trace.Allreduce, Count: 1, TypeSize: 8})
			add(trace.Event{Op: trace.Wait, Waits: []int{1}})
		default:
			msg(trace.Irecv, partner)
			msg(trace.Send, partner)
			add(trace.Event{Op: trace.Compute, Amount: 100})
			add(trace.Event{Op: trace.Wait, Waits: []int{1}})
			add(trace.Event{Op: trace.Allreduce, Count: 1, TypeSize: 8})
		}
	}
	tr := b.Trace()
	res := lowerContaining(t, tr, "wait",
		"TASKS t SUCH THAT t < 7 AWAIT COMPLETION THEN\nALL TASKS REDUCE",
		"ALL TASKS REDUCE 1 DOUBLEWORD THEN\nALL TASKS AWAIT COMPLETION",
	)
	src := string(res.Source)
	if i := strings.Index(src, "ALL TASKS AWAIT"); i >= 0 && i < strings.Index(src, "REDUCE") {
		t.Errorf("rank 7's receive is completed before the reduction:\n%s", src)
	}
	checkCalls(t, tr, res, n)
}
