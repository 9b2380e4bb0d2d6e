package valueflow

import "sort"

// Conformable arrays. SPMD programs distribute arrays of one shape alike:
// element i of each lives on the same task, whatever flows between them.
// The value graph alone has no reason to keep them together where no value
// flows from one element to its namesake: a Jacobi sweep that swaps two
// grids and has no centre term splits into two independent red-black
// halves, which a partitioner happily separates (no communication at all)
// while every hand-written MPI version exchanges halos. So the vertices of
// the same slot of arrays of the same size are joined into one vertex.
// This is the one place where the analysis adds to seed 001.

const (
	// minConformSlots: smaller objects are scalars and small structs.
	minConformSlots = 64
	// maxConformPerSize bounds the arrays of one size remembered, for
	// programs that allocate a temporary per step.
	maxConformPerSize = 8
)

// snapshot remembers the vertex of each slot of an array as it dies or as
// the run ends.
func (m *machine) snapshot(o *object) {
	if len(o.last) < minConformSlots || len(o.data) == 0 {
		return
	}
	size := len(o.data)
	if len(m.conform[size]) >= maxConformPerSize {
		return
	}
	vs := make([]uint32, slotsFor(int64(size)))
	for s := range vs {
		if v := o.last[s]; v != 0 {
			vs[s] = m.sh.vals[v].vertex + 1
		}
	}
	m.conform[size] = append(m.conform[size], vs)
}

// snapshotLive remembers the arrays still allocated when the run ends.
func (m *machine) snapshotLive() {
	for i := range m.objs {
		if o := &m.objs[i]; o.kind == objHeap || o.kind == objGlobal {
			m.snapshot(o)
		}
	}
}

// conformMap returns, per vertex, the vertex it becomes once the slots of
// conformable arrays are joined, and the number of vertices left.
func conformMap(n int, conform map[int][][]uint32) ([]uint32, int) {
	parent := make([]uint32, n)
	for i := range parent {
		parent[i] = uint32(i)
	}
	find := func(x uint32) uint32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	sizes := make([]int, 0, len(conform))
	for size := range conform {
		sizes = append(sizes, size)
	}
	sort.Ints(sizes) // a fixed order: the result must not depend on map order
	for _, size := range sizes {
		snaps := conform[size]
		for s := range snaps[0] {
			first := uint32(0)
			for _, vs := range snaps {
				v := vs[s]
				if v == 0 {
					continue
				}
				if first == 0 {
					first = v
					continue
				}
				a, b := find(first-1), find(v-1)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			}
		}
	}
	vmap := make([]uint32, n)
	next := uint32(0)
	index := make([]uint32, n)
	for v := range vmap {
		r := find(uint32(v))
		if r == uint32(v) {
			index[v] = next
			next++
		}
		vmap[v] = index[r]
	}
	return vmap, int(next)
}
