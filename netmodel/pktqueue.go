package netmodel

// eventBuckets hands out the packet model's events in order of time and,
// at equal times, in the order they were scheduled. Packets of SPMD
// programs move in lock step, so many events share a time: events are kept
// in one bucket per pending time, in scheduling order, and only the times
// sit in a heap. A push is usually a map hit (or a cache hit) and an
// append.
type eventBuckets struct {
	times   []Duration         // 4-ary min-heap of the pending times
	bucket  map[Duration]int32 // pending time -> its bucket
	buckets [][]pktEvent
	free    []int32 // drained buckets, for reuse
	// The last time pushed to and its bucket: most pushes go to it.
	lastAt  Duration
	lastB   int32
	pending int
}

func (q *eventBuckets) push(at Duration, e pktEvent) {
	q.pending++
	if q.lastB >= 0 && at == q.lastAt {
		q.buckets[q.lastB] = append(q.buckets[q.lastB], e)
		return
	}
	b, ok := q.bucket[at]
	if !ok {
		if k := len(q.free); k > 0 {
			b = q.free[k-1]
			q.free = q.free[:k-1]
		} else {
			b = int32(len(q.buckets))
			q.buckets = append(q.buckets, nil)
		}
		q.bucket[at] = b
		q.up(at)
	}
	q.lastAt, q.lastB = at, b
	q.buckets[b] = append(q.buckets[b], e)
}

// first returns the earliest pending time; false if none.
func (q *eventBuckets) first() (Duration, bool) {
	if len(q.times) == 0 {
		return 0, false
	}
	return q.times[0], true
}

// drain calls handle with each event of the earliest time, including
// those pushed for that time while it runs, then forgets the time.
func (q *eventBuckets) drain(handle func(pktEvent)) {
	at := q.times[0]
	b := q.bucket[at]
	for i := 0; i < len(q.buckets[b]); i++ {
		handle(q.buckets[b][i])
	}
	q.pending -= len(q.buckets[b])
	q.buckets[b] = q.buckets[b][:0]
	q.free = append(q.free, b)
	delete(q.bucket, at)
	if q.lastB == b {
		q.lastB = -1
	}
	q.pop()
}

func (q *eventBuckets) up(at Duration) {
	i := len(q.times)
	q.times = append(q.times, at)
	for i > 0 {
		p := (i - 1) / 4
		if q.times[p] <= at {
			break
		}
		q.times[i] = q.times[p]
		i = p
	}
	q.times[i] = at
}

func (q *eventBuckets) pop() {
	last := len(q.times) - 1
	e := q.times[last]
	q.times = q.times[:last]
	if last == 0 {
		return
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= last {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < last; j++ {
			if q.times[j] < q.times[m] {
				m = j
			}
		}
		if q.times[m] >= e {
			break
		}
		q.times[i] = q.times[m]
		i = m
	}
	q.times[i] = e
}
