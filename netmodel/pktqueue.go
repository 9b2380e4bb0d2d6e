package netmodel

// eventBuckets hands out events (the packet model's, and the flow model's
// starts and ends) in order of time and, at equal times, in the order they
// were scheduled. SPMD programs move in lock step, so many events share a
// time: events are kept in buckets of one time each, in scheduling order,
// and only the buckets sit in a heap. A small cache, indexed by a hash of
// the time, finds the latest bucket of a time; on a miss (a time not seen,
// or evicted) a new bucket opens, and the heap orders buckets of equal
// time by when they opened, which is the order of their events: a push
// never goes to a bucket older than the newest of its time.
type eventBuckets[E any] struct {
	heap    []bucketSlot // 4-ary min-heap by (at, seq)
	buckets [][]E
	at      []Duration // by bucket: its time
	free    []int32    // drained buckets, for reuse
	cache   [bucketCache]int32
	seq     uint64
	empty   int // buckets in the heap that remove left empty
}

const bucketCache = 1 << 9

type bucketSlot struct {
	at  Duration
	seq uint64
	b   int32
}

func (a *bucketSlot) before(b *bucketSlot) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func cacheIndex(at Duration) int {
	return int(uint64(at) * 0x9e3779b97f4a7c15 >> 55)
}

// push adds event e at time at and returns the bucket it went to and its
// place there.
func (q *eventBuckets[E]) push(at Duration, e E) (int32, int32) {
	c := &q.cache[cacheIndex(at)]
	if b := *c - 1; b >= 0 && q.at[b] == at {
		if len(q.buckets[b]) == 0 {
			q.empty--
		}
		q.buckets[b] = append(q.buckets[b], e)
		return b, int32(len(q.buckets[b]) - 1)
	}
	var b int32
	if k := len(q.free); k > 0 {
		b = q.free[k-1]
		q.free = q.free[:k-1]
	} else {
		b = int32(len(q.buckets))
		q.buckets = append(q.buckets, nil)
		q.at = append(q.at, 0)
	}
	q.at[b] = at
	q.buckets[b] = append(q.buckets[b], e)
	*c = b + 1
	q.up(bucketSlot{at, q.seq, b})
	q.seq++
	return b, int32(len(q.buckets[b]) - 1)
}

// remove takes event i out of bucket b, which must not have been
// drained, by moving the bucket's last event into its place: the order of
// the bucket's events is lost. It returns the event moved, if one was.
// A bucket left empty stays in the heap until it comes first, or until
// empty buckets are half the heap (when every event has a time of its
// own, as a fat tree's flows do, most are), which then drops them all.
func (q *eventBuckets[E]) remove(b, i int32) (E, bool) {
	events := q.buckets[b]
	last := int32(len(events) - 1)
	moved := events[last]
	events[i] = moved
	q.buckets[b] = events[:last]
	if last == 0 {
		if q.empty++; q.empty > 32 && 2*q.empty > len(q.heap) {
			q.dropEmpty()
		}
	}
	return moved, i != last
}

// dropEmpty frees the empty buckets and reorders the rest.
func (q *eventBuckets[E]) dropEmpty() {
	kept := q.heap[:0]
	for _, s := range q.heap {
		if len(q.buckets[s.b]) > 0 {
			kept = append(kept, s)
		} else {
			q.release(s.b)
		}
	}
	q.heap, q.empty = kept, 0
	for i := (len(q.heap) - 2) / 4; i >= 0; i-- {
		q.down(i)
	}
}

// first returns the earliest pending time; false if none.
func (q *eventBuckets[E]) first() (Duration, bool) {
	if len(q.heap) == 0 {
		return 0, false
	}
	return q.heap[0].at, true
}

// front returns the first bucket's events, which stay valid until the
// next push or remove.
func (q *eventBuckets[E]) front() []E {
	return q.buckets[q.heap[0].b]
}

// discard frees the first bucket, events and all.
func (q *eventBuckets[E]) discard() {
	b := q.heap[0].b
	if len(q.buckets[b]) == 0 {
		q.empty--
	}
	q.release(b)
	last := len(q.heap) - 1
	q.heap[0] = q.heap[last]
	q.heap = q.heap[:last]
	q.down(0)
}

// release empties bucket b and puts it on the free list.
func (q *eventBuckets[E]) release(b int32) {
	q.buckets[b] = q.buckets[b][:0]
	if c := &q.cache[cacheIndex(q.at[b])]; *c == b+1 {
		*c = 0
	}
	q.free = append(q.free, b)
}

func (q *eventBuckets[E]) up(s bucketSlot) {
	i := len(q.heap)
	q.heap = append(q.heap, s)
	for i > 0 {
		p := (i - 1) / 4
		if !s.before(&q.heap[p]) {
			break
		}
		q.heap[i] = q.heap[p]
		i = p
	}
	q.heap[i] = s
}

func (q *eventBuckets[E]) down(i int) {
	n := len(q.heap)
	if i >= n {
		return
	}
	e := q.heap[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < n; j++ {
			if q.heap[j].before(&q.heap[m]) {
				m = j
			}
		}
		if !q.heap[m].before(&e) {
			break
		}
		q.heap[i] = q.heap[m]
		i = m
	}
	q.heap[i] = e
}
