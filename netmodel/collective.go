package netmodel

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Collective describes one collective call among N ranks numbered 0..N-1
// (ranks within the group, not task numbers).
//
// Bytes means, by operation: Bcast: the message; Reduce, Allreduce: the
// vector each rank contributes (and the result); ReduceScatter: the whole
// vector each rank contributes (rank i receives block i; blocks are Bytes/N
// with the remainder spread over the first ranks, like MPI_Reduce_scatter
// counts); Barrier: ignored; Gather, Scatter, Allgather: one rank's block;
// Alltoall: the block one rank sends to one other rank.
type Collective struct {
	Op    Op
	N     int
	Root  int   // Bcast, Reduce, Gather, Scatter
	Bytes int64 // see above
	// Sizes, if set, gives the bytes rank src contributes for rank dst (the
	// "v" variants: Gatherv, Scatterv, Allgatherv, Alltoallv); it overrides
	// Bytes. For Gather/Allgather, Sizes(src, dst) is src's block (the same
	// for every dst); for Scatter, Sizes(root, dst) is dst's block; for
	// Alltoall it is the block src sends to dst. Other operations have no
	// "v" variant and reject Sizes.
	Sizes func(src, dst int) int64
}

// Step is one stage of a rank's part in a collective. The rank posts the
// send and the receive (either may be absent: -1) together, waits for both
// to complete, then combines Reduce bytes of data locally (for reductions).
type Step struct {
	SendTo    int
	SendBytes int64
	RecvFrom  int
	RecvBytes int64
	Reduce    int64
}

// Default-selection thresholds of MPICH 3.x and of the CVAR-driven
// selection that MPICH 4.x keeps (mpir_coll_sched_auto.c), with the CVARs
// that set them. MPICH 4.x's blocking collectives select from a JSON tuning
// file (maint/tuning/coll/mpir/generic.json) that mostly agrees with them;
// it differs on Allreduce, going to Rabenseifner above 8 bytes, not 2048.
const (
	collBcastShortMsgSize        = 12288  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
	collBcastLongMsgSize         = 524288 // MPIR_CVAR_BCAST_LONG_MSG_SIZE
	collBcastMinProcs            = 8      // MPIR_CVAR_BCAST_MIN_PROCS
	collReduceShortMsgSize       = 2048   // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
	collAllreduceShortMsgSize    = 2048   // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
	collReduceScatterLongMsgSize = 524288 // MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE
	collAllgatherShortMsgSize    = 81920  // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
	collAllgatherLongMsgSize     = 524288 // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
	collAlltoallShortMsgSize     = 256    // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
	collAlltoallMediumMsgSize    = 32768  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE
	collAlltoallBruckMinProcs    = 8      // hard-coded in MPICH (comm_size >= 8), no CVAR
)

// Choose returns the algorithm MPICH would pick for c, assuming a built-in,
// commutative operation and a flat (not node-aware) communicator:
//
//   - Bcast: binomial if Bytes < MPIR_CVAR_BCAST_SHORT_MSG_SIZE (12288) or
//     N < MPIR_CVAR_BCAST_MIN_PROCS (8); else
//     scatter_recursive_doubling_allgather if Bytes <
//     MPIR_CVAR_BCAST_LONG_MSG_SIZE (524288) and N is a power of two; else
//     scatter_ring_allgather.
//   - Reduce: rabenseifner if Bytes > MPIR_CVAR_REDUCE_SHORT_MSG_SIZE (2048)
//     and count >= pof2 (the largest power of two <= N); else binomial.
//   - Allreduce: recursive_doubling if Bytes <=
//     MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE (2048) or count < pof2; else
//     rabenseifner.
//   - ReduceScatter: recursive_halving if Bytes <
//     MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE (524288); else
//     pairwise.
//   - Barrier: dissemination.
//   - Gather, Scatter: binomial; linear with Sizes (MPICH's Gatherv and
//     Scatterv are always linear).
//   - Allgather, on the total T = Bytes*N (or the sum of the blocks):
//     recursive_doubling if T < MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE (524288)
//     and N is a power of two; else bruck if T <
//     MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE (81920); else ring.
//   - Alltoall: bruck if Bytes <= MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE (256) and
//     N >= 8 (a constant in MPICH); else scattered if Bytes <=
//     MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE (32768); else pairwise. With Sizes:
//     scattered (MPICH's Alltoallv).
//
// Parley knows bytes, not element counts (count <= Bytes), so MPICH's
// fallback to the tree algorithms when count < pof2 is applied when
// Bytes < pof2, the case in which it holds whatever the datatype.
func Choose(c Collective) Algorithm {
	n, b := c.N, c.Bytes
	switch c.Op {
	case Bcast:
		switch {
		case b < collBcastShortMsgSize || n < collBcastMinProcs:
			return "binomial"
		case b < collBcastLongMsgSize && collIsPow2(n):
			return "scatter_recursive_doubling_allgather"
		}
		return "scatter_ring_allgather"
	case Reduce:
		if b > collReduceShortMsgSize && b >= int64(collFloorPow2(n)) {
			return "rabenseifner"
		}
		return "binomial"
	case Allreduce:
		if b <= collAllreduceShortMsgSize || b < int64(collFloorPow2(n)) {
			return "recursive_doubling"
		}
		return "rabenseifner"
	case ReduceScatter:
		if b < collReduceScatterLongMsgSize {
			return "recursive_halving"
		}
		return "pairwise"
	case Barrier:
		return "dissemination"
	case Gather, Scatter:
		if c.Sizes != nil {
			return "linear"
		}
		return "binomial"
	case Allgather:
		total := c.blocks(0, max(n, 0))
		switch {
		case total < collAllgatherLongMsgSize && collIsPow2(n):
			return "recursive_doubling"
		case total < collAllgatherShortMsgSize:
			return "bruck"
		}
		return "ring"
	case Alltoall:
		switch {
		case c.Sizes != nil:
			return "scattered"
		case b <= collAlltoallShortMsgSize && n >= collAlltoallBruckMinProcs:
			return "bruck"
		case b <= collAlltoallMediumMsgSize:
			return "scattered"
		}
		return "pairwise"
	}
	return ""
}

// collAlgorithm is one implemented algorithm of an operation.
type collAlgorithm struct {
	name  Algorithm
	plan  func(p *collPlanner)
	pow2  bool // needs a power-of-two N
	sizes bool // accepts Collective.Sizes
}

// collAlgorithms lists each operation's algorithms, default-selection
// candidates first.
var collAlgorithms = [numOps][]collAlgorithm{
	Bcast: {
		{name: "binomial", plan: bcastBinomial},
		{name: "scatter_recursive_doubling_allgather", plan: bcastScatterRecursiveDoublingAllgather, pow2: true},
		{name: "scatter_ring_allgather", plan: bcastScatterRingAllgather},
	},
	Reduce: {
		{name: "binomial", plan: reduceBinomial},
		{name: "rabenseifner", plan: reduceRabenseifner},
	},
	Allreduce: {
		{name: "recursive_doubling", plan: allreduceRecursiveDoubling},
		{name: "rabenseifner", plan: allreduceRabenseifner},
		{name: "ring", plan: allreduceRing},
	},
	ReduceScatter: {
		{name: "recursive_halving", plan: reduceScatterRecursiveHalving},
		{name: "pairwise", plan: reduceScatterPairwise},
	},
	Barrier: {
		{name: "dissemination", plan: barrierDissemination},
	},
	Gather: {
		{name: "binomial", plan: gatherBinomial, sizes: true},
		{name: "linear", plan: gatherLinear, sizes: true},
	},
	Scatter: {
		{name: "binomial", plan: scatterBinomial, sizes: true},
		{name: "linear", plan: scatterLinear, sizes: true},
	},
	Allgather: {
		{name: "recursive_doubling", plan: allgatherRecursiveDoubling, pow2: true, sizes: true},
		{name: "bruck", plan: allgatherBruck, sizes: true},
		{name: "ring", plan: allgatherRing, sizes: true},
	},
	Alltoall: {
		{name: "bruck", plan: alltoallBruck},
		{name: "scattered", plan: alltoallScattered, sizes: true},
		{name: "pairwise", plan: alltoallPairwise, sizes: true},
	},
}

// Algorithms lists the algorithms available for op, the default-selection
// candidates first.
func Algorithms(op Op) []Algorithm {
	if op < 0 || op >= numOps {
		return nil
	}
	names := make([]Algorithm, len(collAlgorithms[op]))
	for i, a := range collAlgorithms[op] {
		names[i] = a.name
	}
	return names
}

// ValidAlgorithm reports whether alg is implemented for op.
func ValidAlgorithm(op Op, alg Algorithm) bool {
	_, ok := collFind(op, alg)
	return ok
}

func collFind(op Op, alg Algorithm) (collAlgorithm, bool) {
	if op >= 0 && op < numOps {
		for _, a := range collAlgorithms[op] {
			if a.name == alg {
				return a, true
			}
		}
	}
	return collAlgorithm{}, false
}

// Plan returns the steps rank r performs for c with algorithm alg, in order;
// an empty alg means Choose(c). It takes time and memory in proportion to
// r's steps, never building other ranks' plans, except that with Sizes a
// step that carries many blocks calls Sizes once per block.
//
// Like MPICH, a collective with nothing to move (N = 1, or Bytes = 0
// without Sizes, except for Barrier) has no steps. Zero-byte messages are
// otherwise kept wherever MPICH sends them, since they still cost a message;
// they are dropped where MPICH skips them: the pieces of the scatter inside
// the scatter-allgather broadcasts, the empty blocks of the
// recursive-halving reduce-scatter, and, with Sizes, the empty blocks of
// Alltoall (steps left with neither a send nor a receive are omitted).
//
// Reductions are planned for a commutative operation, as MPICH's
// algorithms for built-in operations are.
func Plan(c Collective, alg Algorithm, r int) ([]Step, error) {
	p, err := collNewPlanner(c, alg, r, false)
	if err != nil || p == nil {
		return nil, err
	}
	return p.steps, nil
}

// Planner plans a rank's part of a collective a window of steps at a
// time, without allocating: a simulator with a million ranks inside a
// collective at once keeps a few steps per rank instead of whole plans.
// The zero value is ready to use; a Planner is not safe for concurrent
// use.
type Planner struct{ p collPlanner }

// Window writes steps from, from+1, ... of rank r's part into buf, as many
// as fit, and returns how many it wrote and how many steps the part has in
// all; the steps are those of Plan(c, alg, r). Each call replans from the
// start, so walking a plan of S steps in windows of w costs S*S/w: fetch
// long plans (the O(N) algorithms) with Plan instead.
func (pl *Planner) Window(c Collective, alg Algorithm, r, from int, buf []Step) (n, total int, err error) {
	a, work, err := collPrepare(c, alg, r)
	if err != nil || !work {
		return 0, 0, err
	}
	pl.p = collPlanner{c: c, r: r, window: true, from: from, buf: buf}
	a.plan(&pl.p)
	total = pl.p.total
	pl.p = collPlanner{}
	return min(max(total-from, 0), len(buf)), total, nil
}

// collNewPlanner validates its arguments and plans r's steps. It returns a
// nil planner when there is nothing to do.
func collNewPlanner(c Collective, alg Algorithm, r int, trace bool) (*collPlanner, error) {
	a, work, err := collPrepare(c, alg, r)
	if err != nil || !work {
		return nil, err
	}
	p := &collPlanner{c: c, r: r, trace: trace}
	a.plan(p)
	return p, nil
}

// collPrepare validates its arguments and finds the algorithm; work is
// false when there is nothing to do.
func collPrepare(c Collective, alg Algorithm, r int) (a collAlgorithm, work bool, err error) {
	if c.Op < 0 || c.Op >= numOps {
		return a, false, fmt.Errorf("collective: %d is not an operation", int(c.Op))
	}
	if alg == "" {
		alg = Choose(c)
	}
	a, ok := collFind(c.Op, alg)
	switch {
	case c.N < 1:
		err = fmt.Errorf("%v over %d ranks: N must be at least 1", c.Op, c.N)
	case r < 0 || r >= c.N:
		err = fmt.Errorf("%v over %d ranks: rank %d out of range", c.Op, c.N, r)
	case collRooted(c.Op) && (c.Root < 0 || c.Root >= c.N):
		err = fmt.Errorf("%v over %d ranks: root %d out of range", c.Op, c.N, c.Root)
	case c.Bytes < 0:
		err = fmt.Errorf("%v: negative size %d bytes", c.Op, c.Bytes)
	case !ok:
		err = fmt.Errorf("%v has no algorithm %q (have %s)", c.Op, alg, collNames(c.Op))
	case a.pow2 && !collIsPow2(c.N):
		err = fmt.Errorf("%v algorithm %s needs a power-of-two number of ranks, not %d", c.Op, alg, c.N)
	case c.Sizes != nil && !a.sizes:
		err = fmt.Errorf("%v algorithm %s takes no per-rank sizes (no \"v\" variant)", c.Op, alg)
	}
	if err != nil {
		return a, false, err
	}
	return a, c.N > 1 && (c.Sizes != nil || c.Bytes != 0 || c.Op == Barrier), nil
}

func collNames(op Op) string {
	var names []string
	for _, a := range Algorithms(op) {
		names = append(names, string(a))
	}
	return strings.Join(names, ", ")
}

func collRooted(op Op) bool {
	return op == Bcast || op == Reduce || op == Gather || op == Scatter
}

// collSpan names the data a message carries, so that tests can follow data
// from rank to rank: count units from first on, wrapping around the
// collective's units. The units are the bytes of the message or vector for
// Bcast and the reductions, the ranks' blocks for Gather, Scatter and
// Allgather, and the blocks src*N+dst for Alltoall. A Bruck Alltoall step
// sends blocks that are not contiguous: there bruck is the step's distance,
// and the step sends, for each d in 1..N-1 with d&bruck != 0, the block
// (s, s+d) with s = r-(d&(bruck-1)) (mod N) from its sender r.
type collSpan struct {
	first, count int64
	bruck        int
}

// collPlanner accumulates the steps of one rank.
type collPlanner struct {
	c     Collective
	r     int
	steps []Step
	spans []collSpan // what each step sends, kept only when tracing
	trace bool
	// Planner.Window: keep steps from..from+len(buf)-1 in buf, count them all.
	window bool
	from   int
	buf    []Step
	total  int
}

// exchange adds a step that sends sn bytes (what) to rank to and receives
// rn bytes from rank from, combining them if reduce; -1 means no peer.
func (p *collPlanner) exchange(to int, sn int64, what collSpan, from int, rn int64, reduce bool) {
	s := Step{SendTo: to, SendBytes: sn, RecvFrom: from, RecvBytes: rn}
	if reduce {
		s.Reduce = rn
	}
	if p.window {
		if i := p.total - p.from; i >= 0 && i < len(p.buf) {
			p.buf[i] = s
		}
		p.total++
		return
	}
	p.steps = append(p.steps, s)
	if p.trace {
		p.spans = append(p.spans, what)
	}
}

func (p *collPlanner) send(to int, n int64, what collSpan) {
	p.exchange(to, n, what, -1, 0, false)
}

func (p *collPlanner) recv(from int, n int64, reduce bool) {
	p.exchange(-1, 0, collSpan{}, from, n, reduce)
}

// sparseExchange is exchange without empty messages, and without the step
// if neither is left, for the places where MPICH skips them.
func (p *collPlanner) sparseExchange(to int, sn int64, what collSpan, from int, rn int64, reduce bool) {
	if sn == 0 {
		to = -1
	}
	if rn == 0 {
		from = -1
	}
	if to >= 0 || from >= 0 {
		p.exchange(to, sn, what, from, rn, reduce)
	}
}

// reserve makes room for n more steps, for the algorithms with O(N) steps.
func (p *collPlanner) reserve(n int) {
	if p.window {
		return
	}
	p.steps = slices.Grow(p.steps, n)
	if p.trace {
		p.spans = slices.Grow(p.spans, n)
	}
}

// rel returns r's rank relative to the root; abs is its inverse.
func (p *collPlanner) rel() int        { return (p.r - p.c.Root + p.c.N) % p.c.N }
func (p *collPlanner) abs(rel int) int { return (rel + p.c.Root) % p.c.N }

// mod wraps a rank computed as r+i or r-i around the N ranks.
func (p *collPlanner) mod(rank int) int { return ((rank % p.c.N) + p.c.N) % p.c.N }

// blockSpan returns the bytes of the blocks of ranks first, first+1, ...,
// first+count-1 (mod N) for Gather, Scatter and Allgather, and the span
// naming them.
func (p *collPlanner) blockSpan(first, count int) (int64, collSpan) {
	return p.c.blocks(first, count), collSpan{first: int64(first), count: int64(count)}
}

// block returns the size of rank i's block in Gather, Scatter and Allgather.
func (c Collective) block(i int) int64 {
	switch {
	case c.Sizes == nil:
		return c.Bytes
	case c.Op == Scatter:
		return c.Sizes(c.Root, i)
	case c.Op == Gather:
		return c.Sizes(i, c.Root)
	}
	return c.Sizes(i, i)
}

// blocks returns the total size of the blocks of ranks first, ...,
// first+count-1 (mod N).
func (c Collective) blocks(first, count int) int64 {
	if c.Sizes == nil {
		return int64(count) * c.Bytes
	}
	var sum int64
	for i := range count {
		sum += c.block((first + i) % c.N)
	}
	return sum
}

// pair returns the size of the Alltoall block src sends to dst.
func (c Collective) pair(src, dst int) int64 {
	if c.Sizes == nil {
		return c.Bytes
	}
	return c.Sizes(src, dst)
}

// collSplit divides a vector of total bytes into n blocks. MPICH splits in
// two ways: by ceiling division (the scatter of the scatter-allgather
// broadcasts, ring allreduce), where blocks have ceil(total/n) bytes and the
// last ones are short or empty; otherwise into total/n bytes each with the
// remainder spread over the first blocks (MPI_Reduce_scatter counts,
// Rabenseifner's blocks).
type collSplit struct {
	total int64
	n     int
	ceil  bool
}

// offset returns where block i starts; block n starts at total.
func (s collSplit) offset(i int) int64 {
	n, i64 := int64(s.n), int64(i)
	if s.ceil {
		return min(i64*((s.total+n-1)/n), s.total)
	}
	return i64*(s.total/n) + min(i64, s.total%n)
}

// span returns the bytes of blocks lo..hi-1 (not wrapping) and their span.
func (s collSplit) span(lo, hi int) (int64, collSpan) {
	a, b := s.offset(lo), s.offset(hi)
	return b - a, collSpan{first: a, count: b - a}
}

// collIsPow2 reports whether n is a positive power of two.
func collIsPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// collFloorPow2 returns the largest power of two <= n, or 0 if n < 1.
func collFloorPow2(n int) int {
	if n < 1 {
		return 0
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

// collCeilPow2 returns the smallest power of two >= n (n >= 1).
func collCeilPow2(n int) int { return 1 << bits.Len(uint(n-1)) }
