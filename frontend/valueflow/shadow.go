package valueflow

import (
	"math"
	"slices"
)

// Shadow state: the value-flow chains of seed 001, Algorithm 2.
//
// A value is a datum observed in memory: written by a store, or read from a
// location never written before (an input). Memory keeps, per 4-byte slot,
// the value it holds (object.cur). Registers keep a taint handle per slot:
// 0 for data that no memory value flows into (constants, addresses, loop
// counters), a value id for an unmodified copy of a value, or a node of a
// DAG of computations whose leaves are values. Operations on tainted data
// add nodes in O(1); the dynamic slice of a stored datum is walked only when
// a store needs it, and the walk stops at values (memory). Storing a copy
// replicates its value; storing a computation creates a new value whose
// sources are the DAG's leaves: one value-flow chain (v, s).
//
// Thin slicing: pointer arithmetic (getelementptr) yields clean addresses,
// so an index loaded from memory steers which value is read without flowing
// into it; control dependence is not followed either.

// handle is a register's taint: 0 (clean), a value id, or nodeBit|node.
type handle = uint32

const (
	nodeBit = 1 << 31
	// memoStamp marks a node already stored: it stands for the value it
	// created (node.a), so later walks stop there and storing it again
	// replicates that value.
	memoStamp = math.MaxUint32
	// bigNode is the DAG size above which a node walked a second time is
	// made an intermediate value, so that a running sum stored at every
	// step costs O(1) per store instead of a walk of all its history.
	bigNode = 32
	// maxNest bounds intermediate values made inside intermediate values.
	maxNest = 16
	// noVertex is the vertex of values that are not vertices themselves.
	noVertex = math.MaxUint32
)

// valKind says where a value lives.
type valKind uint8

const (
	valMemory       valKind = iota // written to or read from memory
	valIntermediate                // a computation used twice, registers only
)

// valInfo is what the analysis keeps per value.
type valInfo struct {
	vertex uint32 // its vertex of the value communication graph
	refs   uint32 // memory slots holding it; 0: dead (killed)
	ops    uint32 // operations in its slice: the work of computing it
	size   uint16 // bytes
	kind   valKind
}

// tnode is an operation on tainted data: its operands a and b (handles,
// b may be 0), the size of its DAG (saturating), and the walk that last
// expanded it (or memoStamp).
type tnode struct {
	a, b, size, stamp uint32
}

// flow is one value-flow chain edge: dst computed from src, w times.
type flow struct {
	dst, src, w uint32
}

// shadow holds the values, the DAG and the chains.
type shadow struct {
	vals     []valInfo // index 0 unused: 0 is "no value"
	nodes    []tnode
	flows    []flow
	outputs  []uint32 // values printed or returned by main
	vertices uint32
	epoch    uint32
	// nodeLimit is the DAG size that triggers a collection.
	nodeLimit int
	// per-nesting scratch for walks
	leaves [maxNest + 1][]uint32
	stack  [maxNest + 1][]uint32
}

func newShadow() *shadow {
	return &shadow{vals: make([]valInfo, 1, 1024), nodeLimit: minNodeLimit}
}

const (
	minNodeLimit = 1 << 22
	// maxValues leaves room below nodeBit for the values one stretch of
	// straight-line code can create between two checks.
	maxValues = nodeBit - 1<<24
)

// mix is the taint of an operation on data tainted a and b.
func (s *shadow) mix(a, b handle) handle {
	if a|b == 0 {
		return 0
	}
	return s.node(a, b)
}

// node appends the node (a, b).
func (s *shadow) node(a, b handle) handle {
	size := uint64(1) + uint64(s.sizeOf(a)) + uint64(s.sizeOf(b))
	s.nodes = append(s.nodes, tnode{a: a, b: b, size: uint32(min(size, math.MaxUint32))})
	return nodeBit | handle(len(s.nodes)-1)
}

func (s *shadow) sizeOf(h handle) uint32 {
	if h&nodeBit == 0 {
		return 0
	}
	return s.nodes[h&^nodeBit].size
}

// newValue creates a value of size bytes with no vertex yet. The machine
// stops a run before ids reach nodeBit (maxValues).
func (s *shadow) newValue(size int64, kind valKind) uint32 {
	s.vals = append(s.vals, valInfo{vertex: noVertex, size: uint16(min(size, math.MaxUint16)), kind: kind})
	return uint32(len(s.vals) - 1)
}

func (s *shadow) newVertex() uint32 {
	s.vertices++
	return s.vertices - 1
}

// materialize returns the value that storing a datum of taint h writes:
// the value h copies, or a new value (fresh) whose chains are recorded.
func (s *shadow) materialize(h handle, size int64) (v uint32, fresh bool) {
	switch {
	case h == 0:
		return s.newValue(size, valMemory), true
	case h&nodeBit == 0:
		return h, false
	}
	if n := &s.nodes[h&^nodeBit]; n.stamp == memoStamp {
		return n.a, false
	}
	return s.expand(h, size, valMemory, 0), true
}

// expand walks the DAG under h to its leaf values, creates the value h
// computes with a chain to each leaf, and memoises h as that value.
func (s *shadow) expand(h handle, size int64, kind valKind, nest int) uint32 {
	s.epoch++
	if s.epoch == memoStamp {
		s.resetStamps()
	}
	ep := s.epoch
	leaves, stack := s.leaves[nest][:0], s.stack[nest][:0]
	stack = append(stack, h)
	var ops uint32
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x&nodeBit == 0 {
			leaves = append(leaves, x)
			continue
		}
		n := &s.nodes[x&^nodeBit]
		switch {
		case n.stamp == memoStamp:
			leaves = append(leaves, n.a)
		case n.stamp == ep:
		case n.stamp != 0 && n.size > bigNode && nest < maxNest && x != h:
			// Walked before: a shared sub-computation. Make it a value
			// once rather than walking its history again.
			s.leaves[nest], s.stack[nest] = leaves, stack
			u := s.expand(x, 8, valIntermediate, nest+1)
			s.vals[u].vertex = s.newVertex()
			leaves, stack = s.leaves[nest], s.stack[nest]
			leaves = append(leaves, u)
		default:
			n.stamp = ep
			ops++
			if n.a != 0 {
				stack = append(stack, n.a)
			}
			if n.b != 0 {
				stack = append(stack, n.b)
			}
		}
	}
	v := s.newValue(size, kind)
	s.vals[v].ops = ops
	slices.Sort(leaves)
	for i := 0; i < len(leaves); {
		j := i + 1
		for j < len(leaves) && leaves[j] == leaves[i] {
			j++
		}
		s.flows = append(s.flows, flow{dst: v, src: leaves[i], w: uint32(j - i)})
		i = j
	}
	s.leaves[nest], s.stack[nest] = leaves, stack
	n := &s.nodes[h&^nodeBit]
	n.a, n.b, n.stamp = v, 0, memoStamp
	return v
}

// resetStamps forgets which walk expanded each node when the epoch counter
// wraps.
func (s *shadow) resetStamps() {
	for i := range s.nodes {
		if s.nodes[i].stamp != memoStamp {
			s.nodes[i].stamp = 0
		}
	}
	s.epoch = 1
}

// output records that data of taint h leaves the program (printed, or
// returned by main): the values it is made of are needed where the output
// is written.
func (s *shadow) output(h handle) {
	if h == 0 {
		return
	}
	v, fresh := s.materialize(h, 8)
	if fresh {
		s.vals[v].kind = valIntermediate
		s.vals[v].vertex = s.newVertex()
	}
	s.outputs = append(s.outputs, v)
}

// collect compacts the DAG, keeping the nodes reachable from roots (the
// register slots in use) and renumbering the handles there. Children are
// always older than their parents, so one descending pass marks and one
// ascending pass moves.
func (s *shadow) collect(roots []reg) {
	n := len(s.nodes)
	forward := make([]uint32, n)
	const marked = math.MaxUint32
	for i := range roots {
		if h := roots[i].t; h&nodeBit != 0 && int(h&^nodeBit) < n {
			forward[h&^nodeBit] = marked
		}
	}
	for i := n - 1; i >= 0; i-- {
		if forward[i] != marked {
			continue
		}
		nd := &s.nodes[i]
		if nd.stamp == memoStamp {
			continue
		}
		for _, c := range [2]handle{nd.a, nd.b} {
			if c&nodeBit != 0 {
				forward[c&^nodeBit] = marked
			}
		}
	}
	live := 0
	remap := func(h handle) handle {
		if h&nodeBit == 0 {
			return h
		}
		return nodeBit | forward[h&^nodeBit]
	}
	for i := 0; i < n; i++ {
		if forward[i] != marked {
			continue
		}
		nd := s.nodes[i]
		if nd.stamp != memoStamp {
			nd.a, nd.b = remap(nd.a), remap(nd.b)
		}
		s.nodes[live] = nd
		forward[i] = uint32(live)
		live++
	}
	s.nodes = s.nodes[:live]
	for i := range roots {
		if h := roots[i].t; h&nodeBit != 0 {
			if int(h&^nodeBit) < n {
				roots[i].t = remap(h)
			} else {
				roots[i].t = 0
			}
		}
	}
	s.nodeLimit = max(minNodeLimit, 2*live)
	if cap(s.nodes) > 4*max(live, minNodeLimit) {
		s.nodes = append(make([]tnode, 0, 2*live), s.nodes...)
	}
}
