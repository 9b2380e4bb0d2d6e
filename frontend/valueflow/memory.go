package valueflow

import (
	"fmt"
)

// Memory. An address is an object id in its high 32 bits and a byte offset
// in its low 32 bits; object 0 is never allocated, so null and small
// integers used as pointers fault. Every access is checked against its
// object's bounds, which is how out-of-bounds accesses and use after free
// are caught with the position of the access. Pointer arithmetic is plain
// 64-bit arithmetic, so differences and comparisons within an object and
// round trips through integers behave as in C.

// objKind says what an object is, for messages.
type objKind uint8

const (
	objGlobal objKind = iota
	objStack
	objHeap
	objFunc
	objFreed
)

func (k objKind) String() string {
	return [...]string{"global variable", "stack variable", "heap block", "function", "freed heap block"}[k]
}

// object is one allocation with its shadow: cur is the value held in each
// 4-byte slot, last the value most recently created in it (the liveness
// compression of seed 001 §4.2.1 joins a slot's values into one vertex
// while each dies before the next is born).
type object struct {
	data []byte
	cur  []uint32
	last []uint32
	kind objKind
	site int32     // position that allocated it
	fn   *function // objFunc: the function
	name string    // globals: the variable's name
}

// slotBytes is the shadow granularity. Four bytes, not eight: int and
// float arrays hold one element per slot, so each element is its own value.
const slotBytes = 4

// bytesPerWord is the state the machine keeps per 8-byte word of program
// memory: the data and, per slot, the current and the last created value.
const bytesPerWord = 8 + 2*(8/slotBytes)*4

func slotsFor(n int64) int64 { return (n + slotBytes - 1) / slotBytes }

// memFault is a bad access: null, out of bounds, freed, or a function.
type memFault struct{ msg string }

func (f *memFault) Error() string { return f.msg }

// at returns the object and offset of n bytes at addr, or nil.
func (m *machine) at(addr, n uint64) (*object, uint64) {
	id := addr >> 32
	if id >= uint64(len(m.objs)) {
		return nil, 0
	}
	o := &m.objs[id]
	off := addr & 0xffffffff
	if off+n > uint64(len(o.data)) {
		return nil, 0
	}
	return o, off
}

// fault explains why at refused addr.
func (m *machine) fault(what string, addr, n uint64) error {
	id, off := addr>>32, int64(uint32(addr))
	switch {
	case addr < 1<<32:
		if addr == 0 {
			return &memFault{fmt.Sprintf("%s of %d bytes through a null pointer", what, n)}
		}
		return &memFault{fmt.Sprintf("%s of %d bytes at address %#x, which no allocation holds (a null pointer plus an offset, or an integer used as a pointer)", what, n, addr)}
	case id >= uint64(len(m.objs)):
		return &memFault{fmt.Sprintf("%s of %d bytes at address %#x, which no allocation holds", what, n, addr)}
	}
	o := &m.objs[id]
	desc := m.describe(o)
	switch o.kind {
	case objFreed:
		return &memFault{fmt.Sprintf("%s of %d bytes in a %s (use after free)", what, n, desc)}
	case objFunc:
		return &memFault{fmt.Sprintf("%s of %d bytes at the address of function %s", what, n, o.fn.name)}
	}
	if off >= 1<<31 {
		off -= 1 << 32
	}
	return &memFault{fmt.Sprintf("out-of-bounds %s of %d bytes at offset %d of a %d-byte %s", what, n, off, len(o.data), desc)}
}

// describe names an object and where it was allocated.
func (m *machine) describe(o *object) string {
	s := o.kind.String()
	if o.name != "" {
		s += " " + o.name
	}
	if o.site > 0 {
		s += " allocated at " + m.prog.locs[o.site].String()
	}
	return s
}

// alloc creates an object of n bytes and returns its address.
func (m *machine) alloc(n int64, kind objKind, site int32) (uint64, error) {
	if n < 0 || n >= 1<<32 {
		return 0, fmt.Errorf("allocation of %d bytes; the analysis handles objects up to 4 GiB", n)
	}
	m.memUsed += n * bytesPerWord / 8
	if m.memUsed > m.maxMemory {
		return 0, m.overMemory()
	}
	var id uint32
	if kind == objStack && len(m.freeIDs) > 0 {
		// Stack objects are reused last in, first out, as stack memory
		// is: a function called in a loop gets its frame's objects again,
		// so their slots keep joining values into the same vertices.
		id = m.freeIDs[len(m.freeIDs)-1]
		m.freeIDs = m.freeIDs[:len(m.freeIDs)-1]
	} else {
		if len(m.objs) >= 1<<32-1 {
			return 0, fmt.Errorf("more than 4 billion allocations")
		}
		m.objs = append(m.objs, object{})
		id = uint32(len(m.objs) - 1)
	}
	o := &m.objs[id]
	ns := slotsFor(n)
	o.data = resize(o.data, n)
	o.cur = resize(o.cur, ns)
	if int64(cap(o.last)) >= ns {
		o.last = o.last[:ns] // the slots' earlier values are dead
	} else {
		o.last = make([]uint32, ns)
	}
	o.kind, o.site, o.name = kind, site, ""
	return uint64(id) << 32, nil
}

// resize returns a zeroed slice of n elements, reusing s's array.
func resize[T any](s []T, n int64) []T {
	if int64(cap(s)) >= n {
		s = s[:n]
		clear(s)
		return s
	}
	return make([]T, n)
}

// release kills the values an object holds and frees it.
func (m *machine) release(id uint32) {
	o := &m.objs[id]
	m.snapshot(o)
	m.kill(o.cur)
	m.memUsed -= int64(len(o.data)) * bytesPerWord / 8
	if o.kind == objStack {
		m.freeIDs = append(m.freeIDs, id)
		o.data = o.data[:0]
		o.cur = o.cur[:0]
		return
	}
	o.kind, o.data, o.cur, o.last = objFreed, nil, nil, nil
}

// kill drops the slots' references to their values.
func (m *machine) kill(slots []uint32) {
	vals := m.sh.vals
	for i, v := range slots {
		if v != 0 {
			vals[v].refs--
			slots[i] = 0
		}
	}
}

// loadTaint is the taint of loading n bytes at off: the value the slots
// hold, made an input value if they were never written.
func (m *machine) loadTaint(o *object, off, n uint64) handle {
	s := off / slotBytes
	v := o.cur[s]
	if v != 0 && ((off+n-1)/slotBytes == s || (n == 8 && off%slotBytes == 0 && o.cur[s+1] == v)) {
		return v
	}
	return m.loadTaintSlow(o, off, n)
}

func (m *machine) loadTaintSlow(o *object, off, n uint64) handle {
	m.fillInputs(o, off, n)
	first, last := off/slotBytes, (off+n-1)/slotBytes
	var h handle
	for s := first; s <= last; s++ {
		if v := o.cur[s]; s == first || v != o.cur[s-1] {
			if h == 0 {
				h = v
			} else {
				h = m.sh.node(h, v)
			}
		}
	}
	return h
}

// fillInputs makes the never-written slots among n bytes at off hold input
// values, as reading them first does: one value per run of such slots, of
// the bytes of the run inside the range.
func (m *machine) fillInputs(o *object, off, n uint64) {
	first, last := off/slotBytes, (off+n-1)/slotBytes
	for s := first; s <= last; s++ {
		if o.cur[s] != 0 {
			continue
		}
		e := s
		for e < last && o.cur[e+1] == 0 {
			e++
		}
		lo, hi := max(s*slotBytes, off), min((e+1)*slotBytes, off+n)
		v := m.sh.newValue(int64(hi-lo), valMemory)
		m.place(o, s, e, v)
		s = e
	}
}

// place puts the new value v into slots first..last (which hold no value)
// and gives it its vertex.
func (m *machine) place(o *object, first, last uint64, v uint32) {
	vals := m.sh.vals
	for s := first; s <= last; s++ {
		o.cur[s] = v
	}
	vals[v].refs += uint32(last - first + 1)
	m.settle(o, first, last, v)
}

// settle gives the new value v, just written to slots first..last, its
// vertex: the vertex of the value last created in the first slot if that
// value is dead (their live ranges do not overlap), else a new one.
func (m *machine) settle(o *object, first, last uint64, v uint32) {
	vals := m.sh.vals
	if prev := o.last[first]; prev != 0 && vals[prev].refs == 0 {
		vals[v].vertex = vals[prev].vertex
	} else {
		vals[v].vertex = m.sh.newVertex()
	}
	for s := first; s <= last; s++ {
		o.last[s] = v
	}
}

// storeTaint records a store of n bytes of taint h at off.
func (m *machine) storeTaint(o *object, off, n uint64, h handle) {
	v, fresh := m.sh.materialize(h, int64(n))
	first, last := off/slotBytes, (off+n-1)/slotBytes
	vals := m.sh.vals
	for s := first; s <= last; s++ {
		if old := o.cur[s]; old != v {
			if old != 0 {
				vals[old].refs--
			}
			o.cur[s] = v
			vals[v].refs++
		}
	}
	if fresh {
		m.settle(o, first, last, v)
	}
}

// clearShadow makes n bytes at off unwritten (memset, calloc-like writes
// of constants): the values there die, and reads create input values.
func (m *machine) clearShadow(o *object, off, n uint64) {
	if n == 0 {
		return
	}
	m.kill(o.cur[off/slotBytes : (off+n-1)/slotBytes+1])
}

// copyShadow replicates the values of n bytes from src+soff to dst+doff
// (memcpy, memmove, realloc, qsort): copies are the same values.
func (m *machine) copyShadow(dst *object, doff uint64, src *object, soff, n uint64) {
	if n == 0 {
		return
	}
	m.fillInputs(src, soff, n) // what was never written is input, copied
	first, last := doff/slotBytes, (doff+n-1)/slotBytes
	vals := m.sh.vals
	vs := make([]uint32, last-first+1)
	for s := first; s <= last; s++ {
		// The source slot under the first byte of this destination slot.
		b := max(s*slotBytes, doff) - doff + soff
		vs[s-first] = src.cur[b/slotBytes]
	}
	for s := first; s <= last; s++ {
		v := vs[s-first]
		if old := dst.cur[s]; old != v {
			if old != 0 {
				vals[old].refs--
			}
			dst.cur[s] = v
			vals[v].refs++
		}
	}
}
