package interp

import "github.com/parley-hpc/parley/netmodel"

// Time is simulated time in picoseconds.
type Time = netmodel.Duration

// Microsecond is one microsecond of simulated time.
const Microsecond = netmodel.Microsecond

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evResume eventKind = iota // a task continues executing
	evArrive                  // a message's first byte (or a rendezvous request) reaches its receiver
	evCTS                     // a rendezvous clear-to-send reaches the sender
	evData                    // a rendezvous message's data reaches its receiver
)

// maxID is the largest task or message number an event can carry: the
// kind takes the top two bits.
const maxID = 1<<30 - 1

// event is what to do when a time comes: kind<<30 | id, where id is a task
// (evResume) or a message index (the others).
type event uint32

func makeEvent(kind eventKind, id int32) event { return event(uint32(kind)<<30 | uint32(id)) }

func (e event) kind() eventKind { return eventKind(e >> 30) }
func (e event) id() int32       { return int32(e & maxID) }

// eventQueue hands out events in order of time and, at equal times, in the
// order they were scheduled, so a run is a pure function of its inputs.
//
// SPMD programs make thousands of events fall on the same picosecond (every
// task finishing the same step at once), so events are kept in buckets of
// one time each, in scheduling order, and only the buckets sit in a heap: a
// push is usually an append and a pop a list read. A small cache finds the
// latest bucket for a time; on a miss a new bucket is opened, and the heap
// orders buckets of equal time by when they were opened, which is the order
// of their events. A bucket's events are a linked list through one shared
// node array, so buckets cost no spare capacity.
type eventQueue struct {
	heap      []slot   // 4-ary min-heap: shallower than a binary heap
	buckets   []bucket // indexed by slot.bucket
	free      []uint32 // drained buckets
	nodes     []node   // every queued event; free ones are chained from freeNodes
	freeNodes int32    // 1 + the first free node; 0: none
	recent    [1024]uint32
	seq       uint32 // opening order, compared with wraparound
	n         int
}

// slot is a bucket's place in the heap: 16 bytes, four to a cache line.
type slot struct {
	at     Time
	seq    uint32
	bucket uint32
}

type bucket struct {
	at         Time
	head, tail int32 // node indices
	open       bool  // in the heap
}

type node struct {
	ev   event
	next int32
}

func (a *slot) before(b *slot) bool {
	return a.at < b.at || (a.at == b.at && int32(a.seq-b.seq) < 0)
}

func (q *eventQueue) len() int { return q.n }

func (q *eventQueue) newNode(e event) int32 {
	if q.freeNodes > 0 {
		i := q.freeNodes - 1
		n := &q.nodes[i] // one bounds check, not two: every event comes here
		q.freeNodes = n.next + 1
		n.ev, n.next = e, -1
		return i
	}
	q.nodes = append(q.nodes, node{ev: e, next: -1})
	return int32(len(q.nodes) - 1)
}

func (q *eventQueue) push(at Time, e event) {
	q.n++
	k := q.newNode(e)
	h := uint32(uint64(at)*0x9E3779B97F4A7C15>>54) % uint32(len(q.recent))
	if r := q.recent[h]; r != 0 {
		if b := &q.buckets[r-1]; b.open && b.at == at {
			q.nodes[b.tail].next = k
			b.tail = k
			return
		}
	}
	var i uint32
	if n := len(q.free); n > 0 {
		i = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		q.buckets = append(q.buckets, bucket{})
		i = uint32(len(q.buckets) - 1)
	}
	q.buckets[i] = bucket{at: at, head: k, tail: k, open: true}
	q.recent[h] = i + 1
	q.heap = append(q.heap, slot{at: at, seq: q.seq, bucket: i})
	q.seq++
	q.up(len(q.heap) - 1)
}

// peek returns the next event and its time without removing it; the
// queue is not empty.
func (q *eventQueue) peek() (Time, event) {
	b := &q.buckets[q.heap[0].bucket]
	return b.at, q.nodes[b.head].ev
}

// pop removes the next event and returns it with its time.
func (q *eventQueue) pop() (Time, event) {
	q.n--
	top := &q.heap[0]
	b := &q.buckets[top.bucket]
	k := b.head
	n := &q.nodes[k]
	e := n.ev
	b.head = n.next
	n.next = q.freeNodes - 1
	q.freeNodes = k + 1
	at := b.at
	if b.head < 0 {
		b.open = false
		q.free = append(q.free, top.bucket)
		last := len(q.heap) - 1
		q.heap[0] = q.heap[last]
		q.heap = q.heap[:last]
		q.down(0)
	}
	return at, e
}

func (q *eventQueue) up(i int) {
	h := q.heap
	for i > 0 {
		p := (i - 1) / 4
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *eventQueue) down(i int) {
	h := q.heap
	n := len(h)
	for {
		first := 4*i + 1
		if first >= n {
			return
		}
		m := first
		for c := first + 1; c < first+4 && c < n; c++ {
			if h[c].before(&h[m]) {
				m = c
			}
		}
		if !h[m].before(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
