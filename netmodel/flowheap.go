package netmodel

import "math"

// The flow model's filling heaps, written out for their types: generic code
// over pointer types would call the comparisons through a dictionary, and
// these run for every flow that is fixed. Each entry holds its key, so
// that comparisons stay within the heap's array. (Flows wait for their
// starts and ends in eventBuckets: see FlowNet.schedule.)

// linkHeap orders a component's links by bandwidth left per unfixed flow,
// then by id, during progressive filling. Keys are kept lazily: fixing a
// flow at the least share mostly raises the shares of the other links on
// its route, and a link whose share rose keeps its old key, a lower bound,
// until it comes to the top (least); there it takes its share and sinks,
// and a link left with no unfixed flows leaves. A link whose share fell
// below its key (by an ulp, in floating point) gets a second entry at its
// share (lower); the first, stale, leaves when it comes to the top after
// the link is taken. So every link has an entry at most its share, the
// top's is its share, and links are taken in order of (share, id) as if
// every key were kept exact, for a fraction of the moves and without
// writing a link's place in the heap into the link at each move.
type linkHeap struct {
	items []linkEntry
	links []flowLink
}

type linkEntry struct {
	share float64
	link  int32
}

func (a *linkEntry) before(b *linkEntry) bool {
	return a.share < b.share || a.share == b.share && a.link < b.link
}

// init orders items, each keyed by its link's share, which is also the
// link's key.
func (h *linkHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// least returns the link with the least share that has unfixed flows, its
// key brought up to date; false if none is left.
func (h *linkHeap) least() (linkEntry, bool) {
	for len(h.items) > 0 {
		e := &h.items[0]
		lk := &h.links[e.link]
		if lk.unfixed == 0 {
			h.pop()
			continue
		}
		share := lk.residual / float64(lk.unfixed)
		if share == e.share {
			return *e, true
		}
		e.share, lk.key = share, share
		h.down(0)
	}
	return linkEntry{}, false
}

// take removes the first link, least's, whose flows are then fixed: it
// needs no entry again in this filling.
func (h *linkHeap) take() {
	h.links[h.items[0].link].key = math.Inf(-1)
	h.pop()
}

func (h *linkHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
}

// lower gives link l, in the filling, an entry at its share if the share
// fell below the least key it has. A link taken, or left with no unfixed
// flows, is left alone.
func (h *linkHeap) lower(l int32) {
	lk := &h.links[l]
	if lk.unfixed == 0 {
		return
	}
	if share := lk.residual / float64(lk.unfixed); share < lk.key {
		lk.key = share
		h.items = append(h.items, linkEntry{share, l})
		h.up(len(h.items) - 1)
	}
}

func (h *linkHeap) up(i int) {
	e := h.items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h.items[p]) {
			break
		}
		h.items[i] = h.items[p]
		i = p
	}
	h.items[i] = e
}

func (h *linkHeap) down(i int) {
	e := h.items[i]
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.items[c+1].before(&h.items[c]) {
			c++
		}
		if !h.items[c].before(&e) {
			break
		}
		h.items[i] = h.items[c]
		i = c
	}
	h.items[i] = e
}

// flowCap is a rate that one flow may not exceed during progressive
// filling: the bandwidth of a link it alone crosses (link is the link's
// id) or its window bound (link is -1, so that it wins ties).
type flowCap struct {
	rate float64
	link int32
	id   int32
}

// before orders caps as the filling heap orders links, by rate and then
// by link id.
func (c *flowCap) before(rate float64, link int32) bool {
	return c.rate < rate || c.rate == rate && c.link < link
}

func (c *flowCap) less(d *flowCap) bool {
	return c.before(d.rate, d.link) || c.rate == d.rate && c.link == d.link && c.id < d.id
}

// capHeap orders a component's caps during progressive filling; it is
// built whole by init, then only popped.
type capHeap struct {
	items []flowCap
}

func (h *capHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pop removes the first cap.
func (h *capHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	h.down(0)
}

func (h *capHeap) down(i int) {
	n := len(h.items)
	if i >= n {
		return
	}
	e := h.items[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.items[c+1].less(&h.items[c]) {
			c++
		}
		if !h.items[c].less(&e) {
			break
		}
		h.items[i] = h.items[c]
		i = c
	}
	h.items[i] = e
}
