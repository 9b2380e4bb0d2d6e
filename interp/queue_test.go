package interp

import (
	"math/rand/v2"
	"testing"
)

// TestEventQueueOrder checks the event queue against a plain list: events
// come out in order of time and, at equal times, in the order they were
// pushed, whatever the mix of pushes and pops (many events on few times,
// as an SPMD program's, so that buckets and nodes are reused).
func TestEventQueueOrder(t *testing.T) {
	type item struct {
		at Time
		e  event
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var q eventQueue
	var ref []item // in the order the queue must give them
	now := Time(0)
	for i := range 200000 {
		if len(ref) > 0 && rng.IntN(2) == 0 {
			at, e := q.pop()
			if want := ref[0]; at != want.at || e != want.e {
				t.Fatalf("pop %d: (%d, %d), want (%d, %d)", i, at, e, want.at, want.e)
			}
			ref = ref[1:]
			now = at
			continue
		}
		it := item{now + Time(rng.IntN(4)), makeEvent(eventKind(rng.IntN(4)), int32(i%maxID))}
		q.push(it.at, it.e)
		j := len(ref) // after every event due no later
		for j > 0 && ref[j-1].at > it.at {
			j--
		}
		ref = append(ref[:j], append([]item{it}, ref[j:]...)...)
		if q.len() != len(ref) {
			t.Fatalf("push %d: len %d, want %d", i, q.len(), len(ref))
		}
	}
}
