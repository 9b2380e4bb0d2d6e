package netmodel

// The flow model's three heaps, written out for their types: generic code
// over pointer types would call the comparisons through a dictionary, and
// these run for every flow that starts, ends or changes rate. Each entry
// holds its key, so that comparisons stay within the heap's array.

// flowHeap orders flows by (at, seq): when each starts sharing or ends.
// It is 4-ary, shallower than binary for the same comparisons per level.
type flowHeap struct {
	items []flowEntry
	idx   []int32 // by flow id: 1 + its place in items; 0: not in the heap
}

type flowEntry struct {
	at  Duration
	seq uint64
	id  int32
}

func (a *flowEntry) before(b *flowEntry) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// set adds flow id with key (at, seq), or moves it there if it is in the
// heap already.
func (h *flowHeap) set(id int32, at Duration, seq uint64) {
	for int(id) >= len(h.idx) {
		h.idx = append(h.idx, 0)
	}
	e := flowEntry{at, seq, id}
	if p := h.idx[id]; p > 0 {
		i := int(p - 1)
		old := h.items[i]
		if old == e {
			return // a refill that left the flow's end where it was
		}
		h.items[i] = e
		if e.before(&old) {
			h.up(i)
		} else {
			h.down(i)
		}
		return
	}
	h.items = append(h.items, e)
	h.idx[id] = int32(len(h.items))
	h.up(len(h.items) - 1)
}

// pop removes the first flow and returns its id.
func (h *flowHeap) pop() int32 {
	id := h.items[0].id
	h.idx[id] = 0
	last := len(h.items) - 1
	if last > 0 {
		h.items[0] = h.items[last]
		h.idx[h.items[0].id] = 1
	}
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return id
}

func (h *flowHeap) up(i int) {
	e := h.items[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h.items[p]) {
			break
		}
		h.items[i] = h.items[p]
		h.idx[h.items[i].id] = int32(i + 1)
		i = p
	}
	h.items[i] = e
	h.idx[e.id] = int32(i + 1)
}

func (h *flowHeap) down(i int) {
	e := h.items[i]
	n := len(h.items)
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		m := first
		for c := first + 1; c < first+4 && c < n; c++ {
			if h.items[c].before(&h.items[m]) {
				m = c
			}
		}
		if !h.items[m].before(&e) {
			break
		}
		h.items[i] = h.items[m]
		h.idx[h.items[i].id] = int32(i + 1)
		i = m
	}
	h.items[i] = e
	h.idx[e.id] = int32(i + 1)
}

// linkHeap orders a component's links by bandwidth left per unfixed flow,
// then by id, during progressive filling; each link keeps its place in
// flowLink.hpos.
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

func (h *linkHeap) push(l int32) {
	lk := &h.links[l]
	h.items = append(h.items, linkEntry{lk.residual / float64(lk.unfixed), l})
	h.up(len(h.items) - 1)
}

// pop removes the first link.
func (h *linkHeap) pop() {
	h.remove(0)
}

func (h *linkHeap) remove(i int) {
	last := len(h.items) - 1
	if i != last {
		h.items[i] = h.items[last]
		h.links[h.items[i].link].hpos = int32(i)
	}
	h.items = h.items[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
}

// update moves link l after its share changed, and removes it once it has
// no unfixed flows. A link not in the heap (its flows all fixed) is left
// alone.
func (h *linkHeap) update(l int32) {
	lk := &h.links[l]
	i := int(lk.hpos)
	if i >= len(h.items) || h.items[i].link != l {
		return
	}
	if lk.unfixed == 0 {
		h.remove(i)
		return
	}
	// Fixing a flow at or below the least share raises the others', but
	// in floating point a share can also come out an ulp lower: the link
	// may have to move either way, or the heap no longer pops the least.
	h.items[i].share = lk.residual / float64(lk.unfixed)
	h.down(i)
	h.up(int(lk.hpos))
}

func (h *linkHeap) up(i int) {
	e := h.items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h.items[p]) {
			break
		}
		h.items[i] = h.items[p]
		h.links[h.items[i].link].hpos = int32(i)
		i = p
	}
	h.items[i] = e
	h.links[e.link].hpos = int32(i)
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
		h.links[h.items[i].link].hpos = int32(i)
		i = c
	}
	h.items[i] = e
	h.links[e.link].hpos = int32(i)
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
