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
// add nodes in O(1). Storing a copy replicates its value; storing a
// computation creates a new value whose sources are the leaves of its DAG:
// its value-flow chain (v, s). The walk of the DAG (the dynamic slice of
// the stored datum, stopping at values) is deferred to the next collection
// of the DAG or the end of the run, when it is known which
// sub-computations are shared.
//
// Thin slicing: pointer arithmetic (getelementptr) yields clean addresses,
// so an index loaded from memory steers which value is read without flowing
// into it; control dependence is not followed either.

// handle is a register's taint: 0 (clean), a value id, or nodeBit|node.
type handle = uint32

const (
	nodeBit = 1 << 31
	// memoBit in a node's stamp marks a node that is a value (stamp &^
	// memoBit): stored, or made an intermediate value. Walks stop there,
	// and storing it again replicates the value.
	memoBit = 1 << 31
	// bigNode is the DAG size above which a sub-computation that several
	// operations use is made an intermediate value of its own: a norm that
	// scales every element is one value the elements depend on, not a copy
	// of its whole history in each of them, and a running sum stored at
	// every step costs O(1) per store instead of a walk of its history.
	bigNode = 8
	// maxNest bounds intermediate values made inside intermediate values.
	maxNest = 16
	// noVertex is the vertex of values that are not vertices themselves.
	noVertex = math.MaxUint32
)

// valKind says where a value lives.
type valKind uint8

const (
	valMemory       valKind = iota // written to or read from memory
	valIntermediate                // a shared computation, registers only
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
// b may be 0), the size of its DAG (saturating, with the flags below in
// the high bits), and the walk that last expanded it or memoBit|value.
type tnode struct {
	a, b, size, stamp uint32
}

// Flags in tnode.size: whether some node has the node as an operand, and
// whether several do (the node is a shared sub-computation).
const (
	hasParent = 1 << 31
	shared    = 1 << 30
	sizeMask  = shared - 1
)

// flow is one value-flow chain edge: dst computed from src, w times.
type flow struct {
	dst, src, w uint32
}

// shadow holds the values, the DAG and the chains.
type shadow struct {
	vals    []valInfo // index 0 unused: 0 is "no value"
	nodes   arena[tnode]
	flows   arena[flow]
	outputs []uint32 // values printed or returned by main
	// pending are the stored nodes whose chains are not recorded yet.
	pending  []handle
	vertices uint32
	epoch    uint32
	// nodeLimit is the DAG size that triggers a collection.
	nodeLimit int
	// per-nesting scratch for walks
	leaves [maxNest + 1][]uint32
	stack  [maxNest + 1][]uint32
}

const (
	minNodeLimit = 1 << 22
	// maxValues leaves room below nodeBit for the values one stretch of
	// straight-line code can create between two checks.
	maxValues = nodeBit - 1<<24
)

func newShadow() *shadow {
	return &shadow{vals: make([]valInfo, 1, 1024), nodeLimit: minNodeLimit}
}

// grow doubles a full slice's capacity. append alone grows large slices by
// a quarter at a time, copying the arena over and over as it fills.
func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(cap(s), 1024))
}

// mix is the taint of an operation on data tainted a and b.
func (s *shadow) mix(a, b handle) handle {
	if a|b == 0 {
		return 0
	}
	return s.node(a, b)
}

// node appends the node (a, b).
func (s *shadow) node(a, b handle) handle {
	size := 1 + s.adopt(a) + s.adopt(b)
	return nodeBit | handle(s.nodes.push(tnode{a: a, b: b, size: min(size, sizeMask)}))
}

// adopt records that a new node has h as an operand and returns h's size.
func (s *shadow) adopt(h handle) uint32 {
	if h&nodeBit == 0 {
		return 0
	}
	n := s.nodes.at(int(h &^ nodeBit))
	if n.size&hasParent != 0 {
		n.size |= shared
	}
	n.size |= hasParent
	return n.size & sizeMask
}

// newValue creates a value of size bytes with no vertex yet. The machine
// stops a run before ids reach nodeBit (maxValues).
func (s *shadow) newValue(size int64, kind valKind) uint32 {
	s.vals = grow(s.vals)
	s.vals = append(s.vals, valInfo{vertex: noVertex, size: uint16(min(size, math.MaxUint16)), kind: kind})
	return uint32(len(s.vals) - 1)
}

func (s *shadow) newVertex() uint32 {
	s.vertices++
	return s.vertices - 1
}

// materialize returns the value that storing a datum of taint h writes:
// the value h copies, or a new value (fresh) whose chains are recorded
// when the pending walks are flushed.
func (s *shadow) materialize(h handle, size int64) (v uint32, fresh bool) {
	switch {
	case h == 0:
		return s.newValue(size, valMemory), true
	case h&nodeBit == 0:
		return h, false
	}
	n := s.nodes.at(int(h &^ nodeBit))
	if n.stamp&memoBit != 0 {
		return n.stamp &^ memoBit, false
	}
	v = s.newValue(size, valMemory)
	s.memo(h, v)
	s.pending = append(s.pending, h)
	return v, true
}

// memo makes node h stand for value v: a leaf of 0 size for later walks.
func (s *shadow) memo(h handle, v uint32) {
	n := s.nodes.at(int(h &^ nodeBit))
	n.stamp = memoBit | v
	n.size &^= sizeMask
}

// flush records the chains of the pending stored nodes, oldest first.
func (s *shadow) flush() {
	for _, h := range s.pending {
		s.expand(h, 0)
	}
	// The stored nodes are leaves from now on: their operands can go.
	for _, h := range s.pending {
		n := s.nodes.at(int(h &^ nodeBit))
		n.a, n.b = 0, 0
	}
	s.pending = s.pending[:0]
}

// expand walks the DAG under the memoised node h to its leaf values and
// records the chains of h's value to them.
func (s *shadow) expand(h handle, nest int) {
	s.epoch++
	if s.epoch == memoBit {
		s.resetStamps()
	}
	ep := s.epoch
	root := s.nodes.at(int(h &^ nodeBit))
	v := root.stamp &^ memoBit
	leaves, stack := s.leaves[nest][:0], s.stack[nest][:0]
	for _, c := range [2]handle{root.a, root.b} {
		if c != 0 {
			stack = append(stack, c)
		}
	}
	ops := uint32(1)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x&nodeBit == 0 {
			leaves = append(leaves, x)
			continue
		}
		n := s.nodes.at(int(x &^ nodeBit))
		switch {
		case n.stamp&memoBit != 0:
			leaves = append(leaves, n.stamp&^memoBit)
		case n.stamp == ep:
		case n.size&shared != 0 && n.size&sizeMask > bigNode && nest < maxNest:
			// A large shared sub-computation: make it a value once
			// rather than walking its history for every user.
			u := s.newValue(8, valIntermediate)
			s.vals[u].vertex = s.newVertex()
			s.memo(x, u)
			s.leaves[nest], s.stack[nest] = leaves, stack
			s.expand(x, nest+1)
			n.a, n.b = 0, 0 // a leaf from now on
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
	s.vals[v].ops = ops
	slices.Sort(leaves)
	for i := 0; i < len(leaves); {
		j := i + 1
		for j < len(leaves) && leaves[j] == leaves[i] {
			j++
		}
		if leaves[i] != v {
			s.flows.push(flow{dst: v, src: leaves[i], w: uint32(j - i)})
		}
		i = j
	}
	s.leaves[nest], s.stack[nest] = leaves, stack
}

// resetStamps forgets which walk expanded each node when the epoch counter
// reaches memoBit.
func (s *shadow) resetStamps() {
	s.nodes.all(func(n *tnode) {
		if n.stamp&memoBit == 0 {
			n.stamp = 0
		}
	})
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

// collect records the pending chains and compacts the DAG, keeping the
// nodes reachable from roots (the register slots in use) and renumbering
// the handles there. Children are always older than their parents, so one
// descending pass marks and one ascending pass moves.
func (s *shadow) collect(roots []reg) {
	s.flush()
	n := s.nodes.len()
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
		nd := s.nodes.at(int(i))
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
		nd := *s.nodes.at(i)
		nd.a, nd.b = remap(nd.a), remap(nd.b)
		*s.nodes.at(live) = nd
		forward[i] = uint32(live)
		live++
	}
	s.nodes.truncate(live)
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
}
