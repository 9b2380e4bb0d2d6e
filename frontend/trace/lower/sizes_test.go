package lower

import (
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// TestPerRankMessageSizes: ranks that send the same message to their
// neighbour but with sizes that depend on the rank, as at the edges of a
// domain decomposition, share one statement whose size is an expression
// of t. Sizes with no short expression get a statement per size.
func TestPerRankMessageSizes(t *testing.T) {
	const n = 6
	b := trace.NewBuilder("test", n, trace.Microseconds)
	edge := func(r int) int64 { // interior ranks send 80, edge ranks 75
		if r == 0 || r == n-1 {
			return 75
		}
		return 80
	}
	scattered := []int64{3, 1, 4, 1, 5, 9} // six values: no expression
	for r := range n {
		line := 1
		add := func(e trace.Event) {
			e.Pos = trace.Pos{File: "sizes.trace", Line: line}
			line++
			b.Add(r, e)
		}
		for _, size := range []func(int) int64{func(r int) int64 { return int64(2*r + 1) }, edge, func(r int) int64 { return scattered[r] }} {
			for range 3 {
				// Even ranks send first, so that the ring cannot deadlock.
				send := trace.Event{Op: trace.Send, Peer: (r + 1) % n, Count: size(r), TypeSize: 8}
				recv := trace.Event{Op: trace.Recv, Peer: (r + n - 1) % n, Count: size((r + n - 1) % n), TypeSize: 8}
				if r%2 == 0 {
					add(send)
					add(recv)
				} else {
					add(recv)
					add(send)
				}
			}
		}
	}
	tr := b.Trace()
	res := lowerContaining(t, tr, "sizes",
		"ALL TASKS t SEND A 2 * t + 1 DOUBLEWORD MESSAGE TO UNSUSPECTING TASK (t + 1) MOD num_tasks",
		"TASKS t SUCH THAT t IS ODD RECEIVE A (75 IF t = 1 OTHERWISE 80) DOUBLEWORD MESSAGE FROM TASK t - 1",
		"TASK 5 SENDS A 9 DOUBLEWORD MESSAGE TO UNSUSPECTING TASK 0",
	)
	if res.Classes != 2 {
		t.Errorf("%d classes; want 2 (even and odd ranks), whatever their sizes", res.Classes)
	}
	checkCalls(t, tr, res, n)
}
