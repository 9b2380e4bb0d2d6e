package lower

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// Options says how to lower a trace.
type Options struct {
	// Name is the trace's name, quoted in the program's header comment.
	Name string
	// MaxMemory bounds the memory of lowering, in bytes: a trace whose
	// estimate is larger is refused, with the estimate, before anything
	// is allocated per rank. 0 means half the physical memory (4 GiB where
	// it cannot be read); the command line's --max-memory sets it. The
	// generated program is parsed within the same limit.
	MaxMemory int64
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
	// UnevenScatters counts MPI_Reduce_scatter statements whose blocks
	// were uneven; REDUCE ... AND SCATTER THE RESULT splits evenly.
	UnevenScatters int
	// Scans counts MPI_Scan statements, written as the point-to-point
	// exchange of MPICH's recursive-doubling scan.
	Scans int
	// Compute totals over all ranks, in the trace's unit: as traced and as
	// the program performs it after rounding.
	ComputeTraced, ComputeLowered float64
}

// Lower turns t into a Parley program.
func Lower(t *trace.Trace, opts Options) (*Result, error) { return lower(t, opts, false) }

// lower is Lower; replay has the lowering take the iterations the matcher
// skips call by call rather than in bulk, which tests compare.
func lower(t *trace.Trace, opts Options, replay bool) (*Result, error) {
	if t.NumRanks < 1 {
		return nil, fmt.Errorf("the trace has no ranks")
	}
	if err := checkMemory(t, opts); err != nil {
		return nil, err
	}
	l := &lowerer{t: t, replay: replay, rel: newRelations(t.NumRanks)}
	l.ranks = make([]*rankState, t.NumRanks)
	for r := range l.ranks {
		l.ranks[r] = &rankState{}
	}
	// The first pass folds each rank's calls; computation is folded as a
	// bare "compute here", so that iterations that differ only in their
	// timing still fold, as ScalaTrace's histograms do.
	matched, err := l.pass(nil)
	if err != nil {
		return nil, err
	}
	res := &Result{Wildcards: matched.Wildcards}
	folded := make([]trace.Seq, t.NumRanks)
	pairs := map[[2]int]bool{}
	for r, rs := range l.ranks {
		res.PartialWaits += rs.partial
		if rs.comp != nil {
			folded[r] = rs.comp.Finish()
		}
		l.addPairs(pairs, r, folded[r])
	}
	l.mesh = stencilMesh(pairs, t.NumRanks)
	trees := make([][]*item, t.NumRanks)
	for r, seq := range folded {
		trees[r] = newTree(seq, func(id int32) int32 { return l.shapeAt(r, id) })
	}
	// The second pass replays the same calls along the folded program and
	// adds each computation to its position there, for the mean per
	// execution.
	if _, err := l.pass(trees); err != nil {
		return nil, err
	}
	res.ComputeTraced = l.tracedCompute
	var lanes []*lane
	byKey := map[string]*lane{}
	for r, tree := range trees {
		k := l.treeKey(tree)
		if ln := byKey[k]; ln != nil {
			ln.ranks = append(ln.ranks, r)
			ln.seqs = append(ln.seqs, tree)
			continue
		}
		ln := &lane{ranks: []int{r}, seqs: [][]*item{tree}}
		byKey[k] = ln
		lanes = append(lanes, ln)
	}
	res.Classes = len(lanes)
	body, err := l.merge(lanes)
	if err != nil {
		return nil, err
	}
	src := l.print(l.reroll(body), opts, res)
	if l.err != nil {
		return nil, l.err
	}
	prog, diags := parser.ParseWith(opts.Name+".parley", src, parser.Options{MaxMemory: opts.MaxMemory})
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

// pass runs the trace's matched calls through add: into each rank's
// compressor when trees is nil, else along each rank's folded program.
// The lowerer is the matcher's Sink (repeat.go), reset for each attempt.
// The second pass replays what the first took (tape.go) when it kept it.
func (l *lowerer) pass(trees [][]*item) (*trace.Matched, error) {
	var matched *trace.Matched
	var err error
	if trees != nil && l.tape != nil {
		l.reset(trees)
		err = l.replayTape()
	} else {
		matched, err = trace.MatchInto(l.t, trace.DefaultEager, func() trace.Sink {
			l.reset(trees)
			return l
		})
	}
	l.tracedCompute = 0
	for _, rs := range l.ranks {
		l.tracedCompute += rs.traced
		if err != nil {
			break
		}
		if err = l.flushCompute(rs); err != nil {
			break
		}
		if len(rs.outstanding) > 0 {
			err = l.push(rs, l.intern(sym{op: trace.Wait}, nil), 0)
		}
		if err == nil && rs.cursor != nil && rs.cursor.next() != nil {
			err = fmt.Errorf("lower: the replay ended before the folded program did (a bug in parley lower)")
		}
	}
	return matched, err
}

// reset readies the lowerer for a traversal: the first pass starts its
// symbols afresh, the second its positions' computation.
func (l *lowerer) reset(trees [][]*item) {
	if trees == nil {
		l.syms, l.table, l.shapes, l.shapeOf, l.pos = map[sym]int32{}, nil, map[sym]int32{}, nil, nil
		l.tape, l.taped = make([]rankTape, len(l.ranks)), 0
	} else {
		for _, tree := range trees {
			clearAmounts(tree)
		}
	}
	for r, rs := range l.ranks {
		*rs = rankState{}
		if trees != nil {
			rs.cursor = newCursor(trees[r])
		}
	}
	l.logging, l.logged = false, 0
}

// sym is one call in rank-relative form: two ranks doing the same sym do
// the same thing relative to themselves.
type sym struct {
	op    trace.Op
	off   int // (peer - rank) mod N, for point-to-point calls
	tag   int
	count int64
	size  int64
	root  int
	comm  int
	// counts are a "v" collective's per-member counts, in communicator
	// order, joined by commas (a string, so that a sym stays comparable).
	counts string
}

type lowerer struct {
	t     *trace.Trace
	ranks []*rankState
	syms  map[sym]int32
	table []sym
	// A symbol's shape is the symbol without its peer offset and, for
	// messages, their count: ranks whose sequences agree in shape form one
	// class, and a statement's peers and message sizes may differ per
	// rank.
	shapes  map[sym]int32
	shapeOf []int32
	pos     []trace.Pos // where each symbol was first seen
	// mesh is the stencil mesh the point-to-point calls fit, if any
	// (stencilMesh), on which a message's shape includes its direction.
	mesh []int

	tracedCompute, loweredCompute float64
	// unevenScatters counts reduce-scatters whose blocks are not the even
	// split REDUCE ... AND SCATTER makes; err is the first statement
	// that could not be written.
	unevenScatters int
	scans          int
	err            error
	// logging says whether the ranks keep their calls since the
	// matcher's last Mark (repeat.go); logged counts them.
	logging bool
	logged  int
	replay  bool // take repeats call by call (lower)
	// tape is what the first pass took, per rank, for the second to
	// replay (tape.go); nil once it grew past maxTape.
	tape  []rankTape
	taped int
	rel   *relations
}

// rankState is one rank's calls on their way into its compressor. The
// compressor and the map are made when first needed: most ranks of a
// large trace may do little or nothing.
type rankState struct {
	comp        *trace.SymbolCompressor // the first pass's
	cursor      *cursor                 // the second pass's
	issued      int
	outstanding map[int]bool // nonblocking calls not yet completed
	partial     int
	pending     float64 // computation not yet placed
	pendingPos  trace.Pos
	traced      float64 // computation so far
	// mark is the state at the matcher's last Mark, events and log what
	// the rank took and pushed since (repeat.go).
	mark   markState
	events []*trace.Event
	log    []pushed
}

func (l *lowerer) intern(s sym, e *trace.Event) int32 {
	if id, ok := l.syms[s]; ok {
		return id
	}
	id := int32(len(l.table))
	l.syms[s] = id
	l.table = append(l.table, s)
	l.shapeOf = append(l.shapeOf, l.shapeID(shapeKey(s)))
	var p trace.Pos
	if e != nil {
		p = e.Pos
	}
	l.pos = append(l.pos, p)
	return id
}

// shapeKey is the part of a symbol its shape keeps.
func shapeKey(s sym) sym {
	s.off = 0
	switch {
	case s.op.IsP2P():
		// A statement's message size may differ per rank, as at the
		// edges of a domain decomposition.
		s.count = 0
	case s.op == trace.Gatherv, s.op == trace.Scatterv, s.op == trace.Allgatherv, s.op == trace.Alltoallv:
		// Each member has its own count, and only some hold them all.
		s.count, s.counts = 0, ""
	}
	return s
}

// shapeID numbers a shape.
func (l *lowerer) shapeID(key sym) int32 {
	sh, ok := l.shapes[key]
	if !ok {
		sh = int32(len(l.shapes))
		l.shapes[key] = sh
	}
	return sh
}

// shapeAt is the shape of symbol id done by rank r. On a stencil mesh a
// message's shape also keeps its direction, the peer's signed distance
// from r: a rank on the edge then lines up its calls to its west
// neighbour with those of the ranks inside, not with its first call to
// any neighbour.
func (l *lowerer) shapeAt(r int, id int32) int32 {
	s := l.table[id]
	if l.mesh == nil || !s.op.IsP2P() {
		return l.shapeOf[id]
	}
	n := l.t.NumRanks
	key := shapeKey(s)
	peer := (r + s.off) % n
	key.off = peer - r
	if k, _ := unitStep(r, peer, l.mesh); l.mesh[k] == 2 {
		// Along a dimension of two, the step goes to the one other rank
		// either way, and both ranks name each other as t XOR k does.
		key.off = n + k
	}
	return l.shapeID(key)
}

// addPairs adds the (rank, peer) pairs of rank r's point-to-point calls
// in its folded program seq to pairs.
func (l *lowerer) addPairs(pairs map[[2]int]bool, r int, seq trace.Seq) {
	for _, x := range seq {
		if x.Loop != nil {
			l.addPairs(pairs, r, x.Loop.Body)
		} else if s := l.table[x.Sym]; s.op.IsP2P() {
			pairs[[2]int{r, (r + s.off) % l.t.NumRanks}] = true
		}
	}
}

// Event takes rank r's next matched call (trace.Sink).
func (l *lowerer) Event(r int, e *trace.Event) error {
	l.record(r, e)
	if l.logging {
		rs := l.ranks[r]
		rs.events = append(rs.events, e)
		if l.logged++; l.logged > trace.MaxRepeatBlock {
			l.dropLogs()
		}
	}
	return l.add(r, e)
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
		return l.flushCompute(rs)
	case e.Op == trace.Compute:
		// Computation floats past nonblocking posts to join the next
		// computation: a post takes no time, and one statement then
		// stands for the work between two calls that can block.
		rs.traced += e.Amount
		rs.pending += e.Amount
		if rs.pendingPos == (trace.Pos{}) {
			rs.pendingPos = e.Pos
		}
		if rs.pending >= trace.MaxAmount {
			unit := "flops"
			if l.t.TimeUnit == trace.Microseconds {
				unit = "microseconds"
			}
			return fmt.Errorf("%s: rank %d computes %.4g %s between two calls (from %s on), more than a program's 64-bit integers hold",
				e.Pos, r, rs.pending, unit, rs.pendingPos)
		}
		return nil
	case e.Op.IsP2P():
		s.off = ((e.Peer-r)%n + n) % n
		s.tag, s.count, s.size = e.Tag, e.Count, e.TypeSize
		if s.tag == trace.AnyTag {
			s.tag = 0
		}
		if e.Op.IsAsync() {
			if rs.outstanding == nil {
				rs.outstanding = map[int]bool{}
			}
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
		if len(e.Counts) > 0 {
			s.counts = joinInt64s(e.Counts)
		}
		if e.Op == trace.Scan && len(rs.outstanding) > 0 {
			// The scan's exchange ends in AWAITS COMPLETION, which also
			// completes the rank's own requests.
			rs.partial++
			clear(rs.outstanding)
		}
	default:
		return fmt.Errorf("%s: lowering %s is not supported", e.Pos, e.Op)
	}
	if !e.Op.IsAsync() {
		if err := l.flushCompute(rs); err != nil {
			return err
		}
	}
	return l.push(rs, l.intern(s, e), 0)
}

// push passes a symbol to the rank's compressor, or in the second pass
// moves the rank's cursor over it and adds amount there.
func (l *lowerer) push(rs *rankState, id int32, amount float64) error {
	var it *item
	if rs.cursor == nil {
		if rs.comp == nil {
			rs.comp = trace.NewSymbolCompressor(0)
		}
		rs.comp.Push(id)
	} else {
		if it = rs.cursor.next(); it == nil || it.sym != id {
			return fmt.Errorf("lower: the replay left the folded program (a bug in parley lower)")
		}
		it.amount += amount
		it.runs++
	}
	if l.logging {
		rs.log = append(rs.log, pushed{sym: id, amount: amount, it: it})
	}
	return nil
}

// flushCompute places rank rs's pending computation.
func (l *lowerer) flushCompute(rs *rankState) error {
	var err error
	if rs.pending > 0 {
		err = l.push(rs, l.intern(sym{op: trace.Compute}, &trace.Event{Pos: rs.pendingPos}), rs.pending)
	}
	rs.pending, rs.pendingPos = 0, trace.Pos{}
	return err
}

// treeKey is a canonical string of a folded program's shape, to find
// ranks that behave alike.
func (l *lowerer) treeKey(tree []*item) string {
	var b strings.Builder
	var walk func([]*item)
	walk = func(s []*item) {
		for _, it := range s {
			if it.loop != nil {
				fmt.Fprintf(&b, "(%d:", it.loop.count)
				walk(it.loop.body)
				b.WriteByte(')')
			} else {
				fmt.Fprintf(&b, "%d,", it.shape)
			}
		}
	}
	walk(tree)
	return b.String()
}

// lane is one class of ranks, their folded sequences (equal in shape)
// and the position in them.
type lane struct {
	ranks []int
	seqs  [][]*item
	pos   int
}

func (ln *lane) done() bool     { return ln.pos >= len(ln.seqs[0]) }
func (ln *lane) front() *item   { return ln.seqs[0][ln.pos] }
func (ln *lane) at(k int) *item { return ln.seqs[0][k] }
func (ln *lane) len() int       { return len(ln.seqs[0]) }

// stmt is one statement of the merged program: a call by a set of ranks,
// each with its own symbol of the same shape, or a loop.
type stmt struct {
	calls []call
	loop  *loopStmt
	each  *eachStmt
	vary  *variation // set in the body of an each
	// idle, for a wait, lists the ranks that could join it to no effect
	// (markIdleWaits).
	idle []int
}

// ranks lists a call statement's ranks, ascending.
func (st stmt) ranks() []int {
	rs := make([]int, len(st.calls))
	for i, c := range st.calls {
		rs[i] = c.rank
	}
	return rs
}

// call is one rank's part in a statement.
type call struct {
	rank int
	it   *item
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
	for {
		cols, ok := l.align(lanes)
		if !ok {
			return l.greedyMerge(lanes)
		}
		err := l.checkCollectives(cols)
		if err == nil {
			return l.build(cols)
		}
		// A class may have folded two collectives into a loop where
		// another class has calls between them: unrolling such loops
		// lets the collectives line up.
		if !l.unrollUnshared(lanes) {
			return nil, err
		}
	}
}

// maxUnroll is the longest loop unrollUnshared unrolls.
const maxUnroll = 16

// unrollUnshared unrolls, in each class, the loops that hold a collective
// and that not every class has at this level, up to maxUnroll runs. It
// reports whether it unrolled any.
func (l *lowerer) unrollUnshared(lanes []*lane) bool {
	count := map[string]int{}
	for _, ln := range lanes {
		seen := map[string]bool{}
		for _, it := range ln.seqs[0] {
			if k := l.treeKey([]*item{it}); it.loop != nil && !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	changed := false
	for _, ln := range lanes {
		for k := 0; k < ln.len(); k++ {
			it := ln.at(k)
			if it.loop == nil || it.loop.count > maxUnroll || count[l.treeKey([]*item{it})] == len(lanes) || !l.holdsCollective(it.loop.body) {
				continue
			}
			for i, seq := range ln.seqs {
				lp := seq[k].loop
				var flat []*item
				for range lp.count {
					flat = append(flat, lp.body...)
				}
				ln.seqs[i] = append(append(append([]*item(nil), seq[:k]...), flat...), seq[k+1:]...)
			}
			k += int(it.loop.count)*len(it.loop.body) - 1
			changed = true
		}
	}
	return changed
}

// holdsCollective reports whether a folded sequence has a collective.
func (l *lowerer) holdsCollective(s []*item) bool {
	for _, it := range s {
		if it.loop != nil && l.holdsCollective(it.loop.body) || it.loop == nil && l.collective(it.sym) {
			return true
		}
	}
	return false
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
					inner.seqs = append(inner.seqs, seq[ln.pos].loop.body)
				}
				sub = append(sub, inner)
			}
			body, err := l.greedyMerge(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, stmt{loop: &loopStmt{count: group[0].front().loop.count, body: body}})
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
		if it.loop != nil || l.collective(it.sym) {
			continue
		}
		s := it.shape
		front, later := 0, 0
		for _, o := range active {
			if f := o.front(); f.loop == nil && f.shape == s {
				front++
				continue
			}
			for k := o.pos + 1; k < o.len() && k <= o.pos+lookahead; k++ {
				if f := o.at(k); f.loop == nil && f.shape == s {
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
		if it := ln.front(); it.loop == nil && it.shape == s {
			for i, r := range ln.ranks {
				st.calls = append(st.calls, call{rank: r, it: ln.seqs[i][ln.pos]})
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
		if it := ln.front(); it.loop != nil {
			c := it.loop.count
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
		s := ln.front().shape
		var ranks []int
		for _, o := range active {
			if it := o.front(); it.loop == nil && it.shape == s {
				ranks = append(ranks, o.ranks...)
			}
		}
		sort.Ints(ranks)
		if slices.Equal(ranks, l.members(l.table[ln.front().sym].comm)) {
			return l.take(active, s), nil
		}
	}
	ln := active[0]
	s := ln.front().sym
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

func joinInt64s(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ",")
}
