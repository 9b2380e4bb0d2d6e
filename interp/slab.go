package interp

// slabChunk is how many items a slab allocates at once. Chunks, not one
// growing slice, so that millions of items cost their size and no more,
// and never move.
const slabChunk = 1 << 12

// slab holds items addressed by int32 index, reusing released ones. The
// messages and receive requests live in slabs of pointer-free structs, so
// the garbage collector need not look inside them however many there are.
type slab[T any] struct {
	chunks []*[slabChunk]T
	free   []int32
	n      int32 // indices handed out so far
}

// at returns item id. Every message and receive is looked up here several
// times, so it is kept to a shift, a mask and one bounds check: the index
// is unsigned (a signed one pays for rounding towards zero) and a chunk is
// an array, whose masked index needs no check.
func (sl *slab[T]) at(id int32) *T {
	u := uint32(id)
	return &sl.chunks[u/slabChunk][u%slabChunk]
}

// alloc returns the index of a zeroed item, or false if maxID are in use.
func (sl *slab[T]) alloc() (int32, bool) {
	if k := len(sl.free); k > 0 {
		id := sl.free[k-1]
		sl.free = sl.free[:k-1]
		return id, true
	}
	if sl.n >= maxID {
		return 0, false
	}
	id := sl.n
	sl.n++
	if int(id/slabChunk) == len(sl.chunks) {
		sl.chunks = append(sl.chunks, new([slabChunk]T))
	}
	return id, true
}

// full reports whether the next alloc adds a chunk.
func (sl *slab[T]) full() bool { return len(sl.free) == 0 && sl.n%slabChunk == 0 }

// live is the number of items in use.
func (sl *slab[T]) live() int { return int(sl.n) - len(sl.free) }

func (sl *slab[T]) release(id int32) {
	var zero T
	*sl.at(id) = zero
	sl.free = append(sl.free, id)
}
