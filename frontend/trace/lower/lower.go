package lower

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// Options says how to lower a trace.
type Options struct {
	// Name is the trace's name, quoted in the program's header comment.
	Name string
}

// Result is a lowered program and what the lowering learned on the way.
type Result struct {
	// Program is the generated program, checked.
	Program *lang.Program
	// Source is Program in canonical form.
	Source []byte
	// Classes is the number of distinct rank behaviours.
	Classes int
	// Wildcards is the number of wildcard receives resolved.
	Wildcards int
	// PartialWaits counts waits that completed only some of their rank's
	// outstanding requests, which AWAITS COMPLETION widens to all.
	PartialWaits int
	// Compute totals over all ranks, in the trace's unit: as traced and as
	// the program performs it after rounding.
	ComputeTraced, ComputeLowered float64
}

// Lower turns t into a Parley program.
func Lower(t *trace.Trace, opts Options) (*Result, error) {
	if t.NumRanks < 1 {
		return nil, fmt.Errorf("the trace has no ranks")
	}
	l := &lowerer{t: t, syms: map[sym]int32{}, shapes: map[sym]int32{}}
	l.ranks = make([]*rankState, t.NumRanks)
	for r := range l.ranks {
		l.ranks[r] = &rankState{comp: trace.NewSymbolCompressor(0), outstanding: map[int]bool{}}
	}
	var symErr error
	matched, err := trace.Match(t, func(r int, e *trace.Event) {
		if symErr == nil {
			symErr = l.add(r, e)
		}
	})
	if err != nil {
		return nil, err
	}
	if symErr != nil {
		return nil, symErr
	}
	res := &Result{Wildcards: matched.Wildcards}
	var lanes []*lane
	byKey := map[string]*lane{}
	for r, rs := range l.ranks {
		l.flushCompute(rs)
		if len(rs.outstanding) > 0 {
			rs.comp.Push(l.intern(sym{op: trace.Wait}, nil))
		}
		res.PartialWaits += rs.partial
		seq := rs.comp.Finish()
		k := l.seqKey(seq)
		if ln := byKey[k]; ln != nil {
			ln.ranks = append(ln.ranks, r)
			ln.seqs = append(ln.seqs, seq)
			continue
		}
		ln := &lane{ranks: []int{r}, seqs: []trace.Seq{seq}}
		byKey[k] = ln
		lanes = append(lanes, ln)
	}
	res.Classes = len(lanes)
	res.ComputeTraced = l.tracedCompute
	body, err := l.merge(lanes)
	if err != nil {
		return nil, err
	}
	src := l.print(body, opts, res)
	prog, diags := parser.Parse(opts.Name+".parley", src)
	if diags.HasErrors() {
		return nil, fmt.Errorf("lower: the generated program does not parse (a bug in parley lower): %v\n%s", diags, src)
	}
	if diags := lang.Check(prog); diags.HasErrors() {
		return nil, fmt.Errorf("lower: the generated program does not check (a bug in parley lower): %v\n%s", diags, src)
	}
	res.Program = prog
	res.Source = lang.Format(prog)
	return res, nil
}

// sym is one call in rank-relative form: two ranks doing the same sym do
// the same thing relative to themselves.
type sym struct {
	op     trace.Op
	off    int // (peer - rank) mod N, for point-to-point calls
	tag    int
	count  int64
	size   int64
	root   int
	comm   int
	amount int64 // computation, rounded to whole units
}

type lowerer struct {
	t     *trace.Trace
	ranks []*rankState
	syms  map[sym]int32
	table []sym
	// A symbol's shape is the symbol without its peer offset and its
	// computation: ranks whose sequences agree in shape form one class,
	// and a statement's peers and computation may differ per rank.
	shapes  map[sym]int32
	shapeOf []int32
	pos     []trace.Pos // where each symbol was first seen

	tracedCompute, loweredCompute float64
}

// rankState is one rank's calls on their way into its compressor.
type rankState struct {
	comp        *trace.SymbolCompressor
	issued      int
	outstanding map[int]bool // nonblocking calls not yet completed
	partial     int
	pending     float64 // computation not yet placed
	pendingPos  trace.Pos
}

func (l *lowerer) intern(s sym, e *trace.Event) int32 {
	if id, ok := l.syms[s]; ok {
		return id
	}
	id := int32(len(l.table))
	l.syms[s] = id
	l.table = append(l.table, s)
	shape := s
	shape.off, shape.amount = 0, 0
	sh, ok := l.shapes[shape]
	if !ok {
		sh = int32(len(l.shapes))
		l.shapes[shape] = sh
	}
	l.shapeOf = append(l.shapeOf, sh)
	var p trace.Pos
	if e != nil {
		p = e.Pos
	}
	l.pos = append(l.pos, p)
	return id
}

// add takes rank r's next matched call.
func (l *lowerer) add(r int, e *trace.Event) error {
	rs := l.ranks[r]
	n := l.t.NumRanks
	s := sym{op: e.Op}
	switch {
	case e.Op == trace.Init:
		return nil
	case e.Op == trace.Finalize:
		l.flushCompute(rs)
		return nil
	case e.Op == trace.Compute:
		// Computation floats past nonblocking posts to join the next
		// computation: a post takes no time, and one statement then
		// stands for the work between two calls that can block.
		l.tracedCompute += e.Amount
		rs.pending += e.Amount
		if rs.pendingPos == (trace.Pos{}) {
			rs.pendingPos = e.Pos
		}
		return nil
	case e.Op.IsP2P():
		s.off = ((e.Peer-r)%n + n) % n
		s.tag, s.count, s.size = e.Tag, e.Count, e.TypeSize
		if s.tag == trace.AnyTag {
			s.tag = 0
		}
		if e.Op.IsAsync() {
			rs.outstanding[rs.issued] = true
			rs.issued++
		}
	case e.Op == trace.Wait:
		hit := false
		for _, age := range e.Waits {
			if idx := rs.issued - age; rs.outstanding[idx] {
				delete(rs.outstanding, idx)
				hit = true
			}
		}
		if !hit {
			return nil // every request was complete already: MPI_REQUEST_NULL
		}
		if len(rs.outstanding) > 0 {
			rs.partial++
			clear(rs.outstanding)
		}
	case e.Op.IsCollective():
		s.count, s.size, s.comm = e.Count, e.TypeSize, e.Comm
		if e.Op.IsRooted() {
			s.root = e.Root
		}
		switch e.Op {
		case trace.Barrier, trace.Bcast, trace.Reduce, trace.Allreduce, trace.Gather, trace.Scatter, trace.Allgather, trace.Alltoall:
		default:
			return fmt.Errorf("%s: lowering %s is not supported yet", e.Pos, e.Op)
		}
	default:
		return fmt.Errorf("%s: lowering %s is not supported", e.Pos, e.Op)
	}
	if !e.Op.IsAsync() {
		l.flushCompute(rs)
	}
	rs.comp.Push(l.intern(s, e))
	return nil
}

// flushCompute places rank rs's pending computation.
func (l *lowerer) flushCompute(rs *rankState) {
	amount := int64(math.Round(rs.pending))
	if amount > 0 {
		rs.comp.Push(l.intern(sym{op: trace.Compute, amount: amount}, &trace.Event{Pos: rs.pendingPos}))
	}
	rs.pending, rs.pendingPos = 0, trace.Pos{}
}

// seqKey is a canonical string of a folded sequence's shape, to find
// ranks that behave alike.
func (l *lowerer) seqKey(s trace.Seq) string {
	var b strings.Builder
	var walk func(trace.Seq)
	walk = func(s trace.Seq) {
		for _, it := range s {
			if it.Loop != nil {
				fmt.Fprintf(&b, "(%d:", it.Loop.Count)
				walk(it.Loop.Body)
				b.WriteByte(')')
			} else {
				fmt.Fprintf(&b, "%d,", l.shapeOf[it.Sym])
			}
		}
	}
	walk(s)
	return b.String()
}

// lane is one class of ranks, their folded sequences (equal in shape)
// and the position in them.
type lane struct {
	ranks []int
	seqs  []trace.Seq
	pos   int
}

func (ln *lane) done() bool          { return ln.pos >= len(ln.seqs[0]) }
func (ln *lane) front() trace.Item   { return ln.seqs[0][ln.pos] }
func (ln *lane) at(k int) trace.Item { return ln.seqs[0][k] }
func (ln *lane) len() int            { return len(ln.seqs[0]) }

// stmt is one statement of the merged program: a call by a set of ranks,
// each with its own symbol of the same shape, or a loop.
type stmt struct {
	calls []call
	loop  *loopStmt
}

// call is one rank's part in a statement.
type call struct {
	rank int
	sym  int32
}

type loopStmt struct {
	count int64
	body  []stmt
}

// lookahead is how far merge looks down a class's sequence to see whether
// a call it is about to place for one class is coming up in another.
const lookahead = 8

// merge interleaves the classes' sequences into one statement list: by
// alignment where the sequences are short enough, else greedily.
func (l *lowerer) merge(lanes []*lane) ([]stmt, error) {
	if out, ok, err := l.alignMerge(lanes); ok {
		return out, err
	}
	return l.greedyMerge(lanes)
}

// greedyMerge interleaves the classes' sequences one statement at a time.
func (l *lowerer) greedyMerge(lanes []*lane) ([]stmt, error) {
	var out []stmt
	for {
		var active []*lane
		for _, ln := range lanes {
			if !ln.done() {
				active = append(active, ln)
			}
		}
		if len(active) == 0 {
			return out, nil
		}
		// 1. Calls that involve no other class, most widely shared first.
		if s, ok := l.pickLocal(active); ok {
			out = append(out, l.take(active, s))
			continue
		}
		// 2. Loops: those with the same count merge.
		if group := pickLoops(active); group != nil {
			var sub []*lane
			for _, ln := range group {
				inner := &lane{ranks: ln.ranks}
				for _, seq := range ln.seqs {
					inner.seqs = append(inner.seqs, seq[ln.pos].Loop.Body)
				}
				sub = append(sub, inner)
			}
			body, err := l.greedyMerge(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, stmt{loop: &loopStmt{count: group[0].front().Loop.Count, body: body}})
			for _, ln := range group {
				ln.pos++
			}
			continue
		}
		// 3. Collectives, once every member is there.
		st, err := l.pickCollective(active)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
}

// pickLocal chooses the next non-collective call to place: the one at the
// front of most classes and coming up later in fewest others.
func (l *lowerer) pickLocal(active []*lane) (int32, bool) {
	best, bestScore, bestFront, found := int32(0), 0, 0, false
	for _, ln := range active {
		it := ln.front()
		if it.Loop != nil || l.collective(it.Sym) {
			continue
		}
		s := l.shapeOf[it.Sym]
		front, later := 0, 0
		for _, o := range active {
			if f := o.front(); f.Loop == nil && l.shapeOf[f.Sym] == s {
				front++
				continue
			}
			for k := o.pos + 1; k < o.len() && k <= o.pos+lookahead; k++ {
				if f := o.at(k); f.Loop == nil && l.shapeOf[f.Sym] == s {
					later++
					break
				}
			}
		}
		if score := front - later; !found || score > bestScore || (score == bestScore && front > bestFront) {
			best, bestScore, bestFront, found = s, score, front, true
		}
	}
	return best, found
}

// take places the statement of shape s for every active class at it.
func (l *lowerer) take(active []*lane, s int32) stmt {
	var st stmt
	for _, ln := range active {
		if it := ln.front(); it.Loop == nil && l.shapeOf[it.Sym] == s {
			for i, r := range ln.ranks {
				st.calls = append(st.calls, call{rank: r, sym: ln.seqs[i][ln.pos].Sym})
			}
			ln.pos++
		}
	}
	sort.Slice(st.calls, func(i, j int) bool { return st.calls[i].rank < st.calls[j].rank })
	return st
}

// pickLoops returns the classes at the front loop shared by most ranks.
func pickLoops(active []*lane) []*lane {
	groups := map[int64][]*lane{}
	var order []int64
	for _, ln := range active {
		if it := ln.front(); it.Loop != nil {
			c := it.Loop.Count
			if groups[c] == nil {
				order = append(order, c)
			}
			groups[c] = append(groups[c], ln)
		}
	}
	var best []*lane
	bestRanks := 0
	for _, c := range order {
		n := 0
		for _, ln := range groups[c] {
			n += len(ln.ranks)
		}
		if n > bestRanks {
			best, bestRanks = groups[c], n
		}
	}
	return best
}

func (l *lowerer) collective(id int32) bool { return l.table[id].op.IsCollective() }

// pickCollective places a collective at which every member has arrived.
func (l *lowerer) pickCollective(active []*lane) (stmt, error) {
	for _, ln := range active {
		s := l.shapeOf[ln.front().Sym]
		var ranks []int
		for _, o := range active {
			if it := o.front(); it.Loop == nil && l.shapeOf[it.Sym] == s {
				ranks = append(ranks, o.ranks...)
			}
		}
		sort.Ints(ranks)
		if equalInts(ranks, l.members(l.table[ln.front().Sym].comm)) {
			return l.take(active, s), nil
		}
	}
	ln := active[0]
	s := ln.front().Sym
	return stmt{}, fmt.Errorf("%s: cannot place %s for ranks %v: not every member of its communicator reaches it at the same point of the program's loops (ranks in this part of the program: %v)",
		l.pos[s], l.table[s].op, ln.ranks, allRanks(active))
}

func allRanks(lanes []*lane) []int {
	var rs []int
	for _, ln := range lanes {
		rs = append(rs, ln.ranks...)
	}
	sort.Ints(rs)
	return rs
}

// members lists communicator c's world ranks in ascending order.
func (l *lowerer) members(c int) []int {
	if c == 0 || c >= len(l.t.Comms) || l.t.Comms[c] == nil {
		all := make([]int, l.t.NumRanks)
		for i := range all {
			all[i] = i
		}
		return all
	}
	m := append([]int(nil), l.t.Comms[c]...)
	sort.Ints(m)
	return m
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
