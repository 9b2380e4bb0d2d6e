package interp

// matchQueue is one task's posted receives, or its unexpected messages, in
// the order they were posted or arrived. MPI matching takes the first
// entry with the wanted source and tag; Parley has no wildcards, so that
// is the oldest entry with exactly that key. In the common case it is the
// head of the queue, so taking it must not cost the length of the queue:
// a taken entry leaves a hole, the head moves past holes, and the queue is
// compacted once holes make up half of it. Every operation is amortised
// O(1) plus the entries of other keys that sit before the one taken.
//
// Entries are Sim.reqs or Sim.msgs indices, whose key the caller looks up:
// storing the key beside each one would cost a task's queues as much again.
type matchQueue struct {
	ids   []int32 // from head on, in order; taken ones are -1
	head  int32   // ids[:head] are all taken
	holes int32   // taken entries after head
}

// minCompact is the queue length below which holes are left to the head
// to skip: compacting a short queue saves nothing.
const minCompact = 64

func (q *matchQueue) len() int { return len(q.ids) - int(q.head) - int(q.holes) }

func (q *matchQueue) push(id int32) { q.ids = append(q.ids, id) }

// take removes and returns the oldest entry whose key is (src, tag), or -1.
func (q *matchQueue) take(src, tag int32, key func(id int32) (src, tag int32)) int32 {
	for i := int(q.head); i < len(q.ids); i++ {
		id := q.ids[i]
		if id < 0 {
			continue
		}
		if s, t := key(id); s == src && t == tag {
			q.remove(i)
			return id
		}
	}
	return -1
}

// remove takes entry i, which is live.
func (q *matchQueue) remove(i int) {
	q.ids[i] = -1
	if i != int(q.head) {
		q.holes++
	} else {
		q.head++
		for int(q.head) < len(q.ids) && q.ids[q.head] < 0 {
			q.head++
			q.holes--
		}
	}
	switch n := len(q.ids); {
	case int(q.head) == n:
		// Empty: start again at the front of the same array.
		q.ids, q.head, q.holes = q.ids[:0], 0, 0
	case n >= minCompact && int(q.head+q.holes) > n/2:
		q.compact()
	}
}

// compact moves the live entries to the front, in order.
func (q *matchQueue) compact() {
	live := q.ids[:0]
	for _, id := range q.ids[q.head:] {
		if id >= 0 {
			live = append(live, id)
		}
	}
	q.ids, q.head, q.holes = live, 0, 0
}

// each calls fn for every live entry's id, in order.
func (q *matchQueue) each(fn func(id int32)) {
	for _, id := range q.ids[q.head:] {
		if id >= 0 {
			fn(id)
		}
	}
}
