package interp

// matchQueue is one task's posted receives, or its unexpected messages, in
// the order they were posted or arrived. MPI matching takes the first
// entry with the wanted source and tag; Parley has no wildcards, so that
// is the oldest entry with exactly that key. In the common case it is the
// first entry, so taking it must not cost the length of the queue: in a
// long queue an entry is removed by moving the shorter side of the queue
// over it, the entries before it (then the queue starts one later) or
// after it. A take thus costs no more than the scan that found the entry
// (or longQueue), and taking from the front of a queue of any length is
// O(1).
//
// Entries are Sim.reqs or Sim.msgs indices, whose key the caller looks up:
// storing the key beside each one would cost a task's queues as much again.
// A queue is a bare slice, so that a task stays small.
type matchQueue []int32

func (q *matchQueue) len() int { return len(*q) }

func (q *matchQueue) push(id int32) { *q = append(*q, id) }

// longQueue is the length from which take may move the entries before the
// one it takes, which costs the slice the room before it: a short queue
// keeps its array's start, so that refilling it does not allocate.
const longQueue = 64

// take removes and returns the oldest entry whose key is (src, tag), or -1.
func (q *matchQueue) take(src, tag int32, key func(id int32) (src, tag int32)) int32 {
	for i, id := range *q {
		if s, t := key(id); s == src && t == tag {
			q.remove(i)
			return id
		}
	}
	return -1
}

// remove removes the entry at index i.
func (q *matchQueue) remove(i int) {
	ids := *q
	switch {
	case len(ids) >= longQueue && i < len(ids)/2:
		copy(ids[1:i+1], ids[:i])
		*q = ids[1:]
	default:
		copy(ids[i:], ids[i+1:])
		*q = ids[:len(ids)-1]
	}
}

// each calls fn for every entry's id, in order.
func (q *matchQueue) each(fn func(id int32)) {
	for _, id := range *q {
		fn(id)
	}
}
