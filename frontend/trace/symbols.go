package trace

import (
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Seq is a compressed symbol sequence: symbols and loops in order.
type Seq []Item

// Item is one element of a Seq: a symbol when Loop is nil, otherwise a
// loop (and Sym is meaningless).
type Item struct {
	Sym  int32
	Loop *SeqLoop
}

// SeqLoop repeats Body Count times.
type SeqLoop struct {
	Count int64
	Body  Seq
}

// DefaultWindow is the longest loop body, in top-level items, that a
// SymbolCompressor made with window 0 searches for.
const DefaultWindow = 256

// SymbolCompressor folds a stream of symbols into nested loops as the
// symbols arrive, so that its memory follows the size of the compressed
// sequence rather than the length of the stream (ScalaTrace's on-the-fly
// intra-node loop compression).
//
// It keeps the compressed sequence as a stack of items. After each Push
// it folds the tail of the stack for as long as one of these rules
// applies, trying them in this order:
//
//  1. Loop(n, B) followed by the items of B becomes Loop(n+1, B).
//  2. Loop(n, B) followed by Loop(m, B) becomes Loop(n+m, B).
//  3. Two equal runs X X of k items each, k at most the window, become
//     Loop(2, X); the smallest such k wins.
//
// Folding again after a fold is what builds nested loops: ((a b)^3 c)^5
// comes out as Loop(5, [Loop(3, [a b]) c]).
//
// Loop bodies are hash-consed, so two loops compare equal in O(1) by body
// id and count, and a polynomial rolling hash over the stack compares
// two runs in O(1); a candidate match is always confirmed item by item,
// so a hash collision costs time, never correctness. Each push costs
// O(window) at worst, and much less on streams that compress.
//
// The result depends only on the stream and the window. A
// SymbolCompressor is not safe for concurrent use.
type SymbolCompressor struct {
	window int

	// The compressed sequence so far, bottom first, and per position:
	// pre[i] is the rolling hash of stack[:i] (so len(pre) ==
	// len(stack)+1) and prev[i] the closest position below i holding an
	// item of the same item hash, or -1. Positions are int32 to keep the
	// stack small; a stack of 2^31 items would need tens of GB first.
	stack []symItem
	pre   []uint64
	prev  []int32
	// last maps an item hash to its topmost stack position; with prev it
	// lists the earlier copies of the top item, the only places where a
	// repeat X X can start its second half.
	last map[uint64]int32
	// loops lists the stack positions that hold loops, ascending: the
	// candidates of rule 1.
	loops []int32

	// pow[k] is symHashBase^k for k <= min(window, len(stack)), the
	// longest run hashed. It grows with the stack, so that a large window
	// costs nothing until the stream needs it.
	pow []uint64

	// The interned loop bodies: bodies[id] is arena[off:off+n], and
	// byHash chains the bodies of equal hash through symBody.next.
	bodies []symBody
	arena  []symItem
	byHash map[uint64]int32
}

// symItem is one element of the stack or of an interned body: a symbol
// when body < 0, else Loop(count, bodies[body]). Since bodies are
// interned, equal items are equal structs: comparing two loops is O(1).
type symItem struct {
	body  int32
	sym   int32
	count int64
}

type symBody struct {
	off, n int
	hash   uint64 // rolling hash of the body's items
	next   int32  // next body with the same hash, or -1
}

// symHashBase is the multiplier of the rolling hash; any odd constant will
// do, since item hashes are already well mixed.
const symHashBase = 0x9e3779b97f4a7c15

// NewSymbolCompressor returns an empty compressor that looks for loop
// bodies of at most window top-level items; window <= 0 means
// DefaultWindow.
func NewSymbolCompressor(window int) *SymbolCompressor {
	if window <= 0 {
		window = DefaultWindow
	}
	return &SymbolCompressor{
		window: window,
		pre:    []uint64{0},
		last:   map[uint64]int32{},
		pow:    []uint64{1},
		byHash: map[uint64]int32{},
	}
}

// Push appends one symbol to the stream.
func (c *SymbolCompressor) Push(sym int32) {
	c.push(symItem{body: -1, sym: sym})
	for c.foldLoopTail() || c.mergeLoops() || c.foldRepeat() {
	}
}

// PushRepeated pushes the symbols of block k times over. Once pushing the
// block leaves the stack as it was but for one more iteration of one of
// its loops (block is then that loop's body, rotated past the items
// after the loop), the remaining copies are added to that loop's count at
// once instead of being pushed: the result expands to the same stream. It
// folds as pushing every copy would, except where the loop's count, on
// its way up, would have equalled that of an equal loop within the
// window, which rule 3 could then have paired with it.
func (c *SymbolCompressor) PushRepeated(block []int32, k int64) {
	var before []symItem
	for ; k > 0; k-- {
		before = append(before[:0], c.stack...)
		for _, s := range block {
			c.Push(s)
		}
		if k == 1 || len(c.stack) != len(before) {
			continue
		}
		at := -1
		for i, it := range c.stack {
			if it == before[i] {
				continue
			}
			if at >= 0 || it.body < 0 || it.body != before[i].body || it.count != before[i].count+1 {
				at = -1
				break
			}
			at = i
		}
		if at < 0 || c.stack[at].count > math.MaxInt64-(k-1) {
			continue
		}
		tail := slices.Clone(c.stack[at:])
		tail[0].count += k - 1
		c.popTo(at)
		for _, it := range tail {
			c.push(it)
		}
		return
	}
}

// Finish returns the sequence compressed so far. It does not change the
// compressor, which may go on taking symbols. Equal loops share one
// *SeqLoop and equal bodies one Seq, so the result is a DAG that callers
// must treat as read-only.
func (c *SymbolCompressor) Finish() Seq {
	b := symSeqBuilder{c: c, bodies: map[int32]Seq{}, loops: map[symItem]*SeqLoop{}}
	return b.seq(c.stack)
}

// symMix is splitmix64's finaliser: it spreads the fields of an item over
// all 64 bits so that the rolling hash rarely collides.
func symMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (it symItem) hash() uint64 {
	return symMix(uint64(uint32(it.sym)) | uint64(uint32(it.body))<<32 ^ uint64(it.count)*0xd6e8feb86659fd93)
}

// rangeHash is the rolling hash of stack[i:j]; j-i must be at most the
// window.
func (c *SymbolCompressor) rangeHash(i, j int) uint64 {
	return c.pre[j] - c.pre[i]*c.pow[j-i]
}

func (c *SymbolCompressor) push(it symItem) {
	h := it.hash()
	n := len(c.stack)
	p, ok := c.last[h]
	if !ok {
		p = -1
	}
	if n == cap(c.stack) {
		// Double rather than let append grow large slices by 1.25x: a
		// stream that does not compress keeps growing the stack, and
		// doubling copies each item about once on average, not about
		// four times.
		c.stack = slices.Grow(c.stack, n)
		c.pre = slices.Grow(c.pre, n+1)
		c.prev = slices.Grow(c.prev, n)
	}
	c.stack = append(c.stack, it)
	c.pre = append(c.pre, c.pre[n]*symHashBase+h)
	c.prev = append(c.prev, p)
	c.last[h] = int32(n)
	if it.body >= 0 {
		c.loops = append(c.loops, int32(n))
	}
	if m := len(c.pow); m <= c.window && m <= n+1 {
		c.pow = append(c.pow, c.pow[m-1]*symHashBase)
	}
}

// popTo truncates the stack to n items, undoing each push's bookkeeping
// in reverse order.
func (c *SymbolCompressor) popTo(n int) {
	for i := len(c.stack) - 1; i >= n; i-- {
		it := c.stack[i]
		h := it.hash()
		if p := c.prev[i]; p >= 0 {
			c.last[h] = p
		} else {
			delete(c.last, h)
		}
		if it.body >= 0 {
			c.loops = c.loops[:len(c.loops)-1]
		}
	}
	c.stack = c.stack[:n]
	c.pre = c.pre[:n+1]
	c.prev = c.prev[:n]
}

// foldLoopTail applies rule 1: a loop followed by a copy of its body
// gains an iteration. The nearest such loop wins.
func (c *SymbolCompressor) foldLoopTail() bool {
	n := len(c.stack)
	for i := len(c.loops) - 1; i >= 0; i-- {
		j := int(c.loops[i])
		k := n - 1 - j
		if k == 0 {
			continue
		}
		if k > c.window {
			// Bodies are never longer than the window.
			return false
		}
		lp := c.stack[j]
		b := &c.bodies[lp.body]
		if b.n != k || b.hash != c.rangeHash(j+1, n) || !slices.Equal(c.arena[b.off:b.off+k], c.stack[j+1:]) {
			continue
		}
		if lp.count == math.MaxInt64 {
			continue // saturated: leave the copy outside
		}
		c.popTo(j)
		lp.count++
		c.push(lp)
		return true
	}
	return false
}

// mergeLoops applies rule 2: adjacent loops over the same body merge.
func (c *SymbolCompressor) mergeLoops() bool {
	n := len(c.stack)
	if n < 2 {
		return false
	}
	a, b := c.stack[n-2], c.stack[n-1]
	if a.body < 0 || a.body != b.body || a.count > math.MaxInt64-b.count {
		return false
	}
	c.popTo(n - 2)
	a.count += b.count
	c.push(a)
	return true
}

// foldRepeat applies rule 3: a tail X X becomes Loop(2, X). The second
// half of a repeat starts just after an earlier copy of the top item, so
// only those positions, found through prev, are tried, nearest first.
func (c *SymbolCompressor) foldRepeat() bool {
	n := len(c.stack)
	if n < 2 {
		return false
	}
	for p := int(c.prev[n-1]); p >= 0; p = int(c.prev[p]) {
		k := n - 1 - p
		if k > c.window || 2*k > n {
			return false
		}
		h := c.rangeHash(n-k, n)
		if h != c.rangeHash(n-2*k, n-k) || !slices.Equal(c.stack[n-2*k:n-k], c.stack[n-k:]) {
			continue
		}
		id := c.intern(c.stack[n-k:], h)
		c.popTo(n - 2*k)
		c.push(symItem{body: id, count: 2})
		return true
	}
	return false
}

// intern returns the id of the body holding items, whose rolling hash is
// h, adding it if new.
func (c *SymbolCompressor) intern(items []symItem, h uint64) int32 {
	head, ok := c.byHash[h]
	if ok {
		for id := head; id >= 0; id = c.bodies[id].next {
			b := &c.bodies[id]
			if b.n == len(items) && slices.Equal(c.arena[b.off:b.off+b.n], items) {
				return id
			}
		}
	} else {
		head = -1
	}
	id := int32(len(c.bodies))
	c.bodies = append(c.bodies, symBody{off: len(c.arena), n: len(items), hash: h, next: head})
	c.arena = append(c.arena, items...)
	c.byHash[h] = id
	return id
}

// symSeqBuilder turns stack items into a Seq, building each distinct body
// and loop once.
type symSeqBuilder struct {
	c      *SymbolCompressor
	bodies map[int32]Seq
	loops  map[symItem]*SeqLoop
}

func (b *symSeqBuilder) seq(items []symItem) Seq {
	out := make(Seq, len(items))
	for i, it := range items {
		if it.body < 0 {
			out[i] = Item{Sym: it.sym}
		} else {
			out[i] = Item{Loop: b.loop(it)}
		}
	}
	return out
}

func (b *symSeqBuilder) loop(it symItem) *SeqLoop {
	if l, ok := b.loops[it]; ok {
		return l
	}
	s, ok := b.bodies[it.body]
	if !ok {
		bd := b.c.bodies[it.body]
		s = b.seq(b.c.arena[bd.off : bd.off+bd.n])
		b.bodies[it.body] = s
	}
	l := &SeqLoop{Count: it.count, Body: s}
	b.loops[it] = l
	return l
}

// Expand calls yield with each symbol of the expanded sequence in order,
// stopping early if yield returns false; it reports whether it reached
// the end.
func (s Seq) Expand(yield func(int32) bool) bool {
	for _, it := range s {
		if it.Loop == nil {
			if !yield(it.Sym) {
				return false
			}
			continue
		}
		for range it.Loop.Count {
			if !it.Loop.Body.Expand(yield) {
				return false
			}
		}
	}
	return true
}

// All returns the expanded sequence as an iterator.
func (s Seq) All() iter.Seq[int32] {
	return func(yield func(int32) bool) { s.Expand(yield) }
}

// Len returns the length of the expanded sequence, or math.MaxInt64 if
// that does not fit in an int64.
func (s Seq) Len() int64 {
	var total int64
	for _, it := range s {
		n := int64(1)
		if it.Loop != nil {
			n = satMul(it.Loop.Count, it.Loop.Body.Len())
		}
		if total > math.MaxInt64-n {
			return math.MaxInt64
		}
		total += n
	}
	return total
}

// satMul multiplies two non-negative numbers, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// String writes s compactly, loops as (body)^count: "(0 1)^50 2".
func (s Seq) String() string {
	var b strings.Builder
	s.write(&b)
	return b.String()
}

func (s Seq) write(b *strings.Builder) {
	for i, it := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		if it.Loop == nil {
			b.WriteString(strconv.FormatInt(int64(it.Sym), 10))
			continue
		}
		b.WriteByte('(')
		it.Loop.Body.write(b)
		b.WriteString(")^")
		b.WriteString(strconv.FormatInt(it.Loop.Count, 10))
	}
}
