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
//
// The filling's state of each link lives in state, by the link's slot in
// the component, rather than in the link: only a component's shared links
// need it, and there it is dense (a few hundred kilobytes for the
// benchmark's component that spans the torus, rather than 24 bytes in
// every one of its 32,768 links).
type linkHeap struct {
	items []linkEntry
	state []fillState
}

// fillState is a link's progressive filling: the bandwidth not yet given
// out, the flows not yet fixed, and the least key of its entries.
type fillState struct {
	residual float64
	key      float64
	unfixed  int32
}

type linkEntry struct {
	share float64
	link  int32
	slot  int32 // the link's state
}

func (a *linkEntry) before(b *linkEntry) bool {
	return a.share < b.share || a.share == b.share && a.link < b.link
}

// reset empties the heap and the state for the next filling.
func (h *linkHeap) reset() {
	h.items, h.state = h.items[:0], h.state[:0]
}

// add gives link l a slot, with bw to give out among its n flows, and an
// entry at its share; init orders the entries once all are added. It
// returns the slot.
func (h *linkHeap) add(l int32, bw float64, n int32) int32 {
	slot := int32(len(h.state))
	key := bw / float64(n)
	h.state = append(h.state, fillState{bw, key, n})
	h.items = append(h.items, linkEntry{key, l, slot})
	return slot
}

// init orders the entries added.
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
		st := &h.state[e.slot]
		if st.unfixed == 0 {
			h.pop()
			continue
		}
		share := st.residual / float64(st.unfixed)
		if share == e.share {
			return *e, true
		}
		e.share, st.key = share, share
		h.down(0)
	}
	return linkEntry{}, false
}

// take removes the first link, least's, whose flows are then fixed: it
// needs no entry again in this filling.
func (h *linkHeap) take() {
	h.state[h.items[0].slot].key = math.Inf(-1)
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

// fix takes rate, a flow's fixed on link l (in slot), off the link's
// residual and the flow off its unfixed, and gives the link an entry at
// its share if that fell below the least key it has. A link taken, or
// left with no unfixed flows, is left alone.
func (h *linkHeap) fix(l, slot int32, rate float64) {
	st := &h.state[slot]
	st.residual = max(st.residual-rate, 0)
	st.unfixed--
	if st.unfixed == 0 {
		return
	}
	if share := st.residual / float64(st.unfixed); share < st.key {
		st.key = share
		h.items = append(h.items, linkEntry{share, l, slot})
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

// capHeap orders a component's caps during progressive filling. Most
// caps are never reached (their flows are fixed first, by a link they
// share: every cap of the benchmark's halo), so until the first is, push
// keeps only the least, and the caps are gathered and heaped
// by build when the least is popped (see FlowNet.gatherCaps): a
// component's walk then neither stores a cap nor grows a slice for one.
// The order of caps is total (by rate, link, then flow), so the caps
// leave in the same order either way.
type capHeap struct {
	items  []flowCap // the heap, once built
	least  flowCap   // the least cap pushed, until built
	some   bool      // a cap was pushed, until built
	heaped bool
}

// reset empties the heap for the next filling.
func (h *capHeap) reset() {
	h.items, h.some, h.heaped = h.items[:0], false, false
}

// push adds a cap before the heap is built.
func (h *capHeap) push(c flowCap) {
	if !h.some || c.less(&h.least) {
		h.least = c
	}
	h.some = true
}

// first returns the least cap; false if none is left.
func (h *capHeap) first() (*flowCap, bool) {
	switch {
	case h.heaped && len(h.items) > 0:
		return &h.items[0], true
	case !h.heaped && h.some:
		return &h.least, true
	}
	return nil, false
}

// built reports whether the heap holds its caps: pop needs them.
func (h *capHeap) built() bool { return h.heaped }

// build makes caps, every cap pushed since reset and no other (its
// room is the heap's to keep), the heap, in order.
func (h *capHeap) build(caps []flowCap) {
	h.items, h.heaped = caps, true
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pop removes the least cap, once the heap is built.
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
