package interp

import "github.com/parley-hpc/parley/netmodel"

// Time is simulated time in picoseconds.
type Time = netmodel.Duration

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evResume eventKind = iota // a task continues executing
	evArrive                  // a message's first byte (or a rendezvous request) reaches its receiver
	evCTS                     // a rendezvous clear-to-send reaches the sender
	evData                    // a rendezvous message's data reaches its receiver
)

// event is a queue entry; seq breaks ties so that events at the same time
// fire in the order they were scheduled, which makes runs deterministic.
type event struct {
	at   Time
	seq  uint64
	kind eventKind
	task int32 // evResume
	msg  int32 // the others: index into the message pool
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// eventQueue is a 4-ary min-heap of events stored by value: no allocation
// per event, and shallower than a binary heap.
type eventQueue struct {
	h []event
}

func (q *eventQueue) len() int { return len(q.h) }

func (q *eventQueue) push(e event) {
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !q.h[i].before(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	i := 0
	for {
		first := 4*i + 1
		if first >= last {
			break
		}
		min := first
		for c := first + 1; c < first+4 && c < last; c++ {
			if q.h[c].before(&q.h[min]) {
				min = c
			}
		}
		if !q.h[min].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[min] = q.h[min], q.h[i]
		i = min
	}
	return top
}

// Microsecond is one microsecond of simulated time.
const Microsecond = netmodel.Microsecond
