package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// communicate turns a communication statement into the activity task t
// performs for it, or nil if t takes no part.
func (s *Sim) communicate(t *task, st ir.Stmt) *activity {
	switch st := st.(type) {
	case *ir.Send:
		return s.sendStmt(t, st)
	case *ir.Receive:
		return s.receiveStmt(t, st)
	case *ir.Multicast:
		return s.multicastStmt(t, st)
	case *ir.Reduce:
		return s.reduceStmt(t, st)
	case *ir.Synchronize:
		g := s.groupOf(t, st, 0, st.Tasks, nil)
		return s.calls(t, st, collCall{op: netmodel.Barrier, group: g, times: 1, tag: collectiveTag(st, 0)})
	case *ir.Scatter:
		return s.scatterStmt(t, st)
	case *ir.Gather:
		return s.gatherStmt(t, st)
	case *ir.Exchange:
		return s.exchangeStmt(t, st)
	}
	return nil
}

// calls makes an activity of collective calls, or nil if t is in none of
// their groups.
func (s *Sim) calls(t *task, st ir.Stmt, calls ...collCall) *activity {
	a := s.newActivity(st)
	n, one := 0, -1
	for i := range calls {
		if calls[i].takesPart(t) {
			n, one = n+1, i
		}
	}
	switch {
	case n == 1 && calls[one].sizes == nil:
		a.calls, a.sharedCalls = s.sharedCall(a.stmt, &calls[one]), true
	default:
		for i := range calls {
			if calls[i].takesPart(t) {
				a.calls = append(a.calls, calls[i])
			}
		}
	}
	return s.nonEmpty(a)
}

// takesPart reports whether task t takes part in call c.
func (c *collCall) takesPart(t *task) bool {
	return c.times > 0 && c.group.rank(t.myTask()) >= 0 && c.group.n > 1
}

// sharedCall returns a list of the one call c that every task making the
// same call of st shares: a million tasks in a broadcast then hold no
// list of their own. Calls with per-pair sizes read the task's own frame
// and are not shared.
func (s *Sim) sharedCall(st ir.Stmt, c *collCall) []collCall {
	k := sharedKey{stmt: ref(st), op: c.op, group: c.group, root: c.root, bytes: c.bytes, times: c.times, tag: c.tag}
	if s.lastShared.l != nil && s.lastShared.k == k {
		return s.lastShared.l // the task before made the same call, as SPMD tasks do
	}
	l := s.shared[k]
	if l == nil {
		if len(s.shared) >= maxPatterns {
			clear(s.shared) // an evicted list is simply made again
		}
		if s.shared == nil {
			s.shared = map[sharedKey][]collCall{}
		}
		l = []collCall{*c}
		s.shared[k] = l
	}
	s.lastShared.k, s.lastShared.l = k, l
	return l
}

// sharedKey is what a shared one-call list is found by.
type sharedKey struct {
	stmt               stmtRef
	op                 netmodel.Op
	group              *group
	root, bytes, times int64
	tag                int32
}

// evalMessage evaluates a message description with the variables bound as
// they are in f; a negative count or size is an error (see ir.Count and
// ir.Size.Bytes), for point-to-point messages and collectives alike. Tags
// are C ints, as in MPI; the most negative quarter of them is kept for
// collectives.
func evalMessage(m *ir.Message, f *ir.Frame) (count, bytes int64, tag int32) {
	tag = evalTag(m, f)
	return ir.Count(m.Count, f), m.Size.Bytes(f), tag
}

// evalTag evaluates m's tag (see evalMessage).
func evalTag(m *ir.Message, f *ir.Frame) int32 {
	tg := m.Tag.Int(f)
	if tg < -(1<<30) || tg > math.MaxInt32 {
		panic(&ir.RuntimeError{Span: m.Tag.Span(), Msg: fmt.Sprintf("tag %d is out of range (%d to %d)", tg, -(1 << 30), math.MaxInt32)})
	}
	return int32(tg)
}

// msgMemo is a statement's message description (the sends' or the
// receives') as last evaluated, with the values of the variables it read
// then: the tasks of an SPMD statement evaluate it with the same values,
// task after task and step after step (the halo's faces: evaluating them
// took 4% of the 262,144-task run's CPU).
type msgMemo struct {
	slots        []int   // the variables the description reads
	vals         []int64 // their values at the evaluation held
	count, bytes int64
	tag          int32
	known        bool // slots and pure are worked out
	pure         bool // the description reads nothing that differs between evaluations
	held         bool // count, bytes, tag and vals hold an evaluation
}

// message evaluates m, statement st's description of its sends' messages
// (recv false) or its receives' (recv true), as evalMessage does, unless
// the last evaluation read the same values: m then reads nothing else that
// could differ (no counter or MY TASK; no reassignment of processors,
// which PROCESSOR_OF reads, either time).
func (s *Sim) message(st ir.Stmt, recv bool, m *ir.Message, f *ir.Frame) (count, bytes int64, tag int32) {
	i := 2 * st.ID()
	if recv {
		i++
	}
	if i >= len(s.memos) {
		s.memos = append(s.memos, make([]msgMemo, 2*len(s.stmts)-len(s.memos))...)
	}
	mm := &s.memos[i]
	if !mm.known {
		slots, dynamic := ir.Uses(m)
		mm.slots, mm.vals, mm.pure, mm.known = slots, make([]int64, len(slots)), !dynamic, true
	}
	if mm.held && f.Procs == nil && mm.same(f.Slots) {
		return mm.count, mm.bytes, mm.tag
	}
	count, bytes, tag = evalMessage(m, f)
	if mm.pure && f.Procs == nil {
		for j, x := range mm.slots {
			mm.vals[j] = f.Slots[x]
		}
		mm.count, mm.bytes, mm.tag, mm.held = count, bytes, tag, true
	}
	return count, bytes, tag
}

// same reports whether slots hold the values mm's evaluation read.
func (mm *msgMemo) same(slots []int64) bool {
	for j, x := range mm.slots {
		if slots[x] != mm.vals[j] {
			return false
		}
	}
	return true
}

// sendStmt: the implied receives come first, from each source in
// ascending order, then the sends to each target in ascending order, as
// coNCePTuaL defines.
func (s *Sim) sendStmt(t *task, st *ir.Send) *activity {
	f := t.frame()
	me := f.Task
	a := s.newActivity(st)
	var p *inverse
	if !st.Unsuspecting {
		p = s.receivesFrom(t, a, st, st.Source, st.Target, st.Recv, st.RecvAsync)
	}
	if st.Source.Contains(f, me, -1) {
		send := func(d int64) bool {
			count, bytes, tag := s.message(st, false, st.Msg, f)
			if count > 0 {
				a.ops = append(a.ops, p2pOp{peer: s.proc(t, d), send: true, async: st.Async, count: count, bytes: bytes, tag: tag})
			}
			return true
		}
		if d, ok := p.target(f, st.Target); ok {
			// The implied receives' pattern already holds the target:
			// evaluating it again (a MESH_NEIGHBOR, say) would only
			// find the same task.
			if d >= 0 {
				send(d)
			}
		} else {
			st.Target.Each(f, me, send)
		}
	}
	return s.nonEmpty(a)
}

// receiveStmt: an explicit RECEIVE. Its variables may flow either way;
// when the senders' description uses the receivers' variable, the
// receiver finds its senders directly, otherwise through the pattern.
func (s *Sim) receiveStmt(t *task, st *ir.Receive) *activity {
	f := t.frame()
	me := f.Task
	receiverFirst := s.patterns.receiverFirst(st)
	if receiverFirst && !st.Receivers.Contains(f, me, -1) {
		return nil
	}
	a := s.newActivity(st)
	if receiverFirst {
		st.Senders.Each(f, me, func(v int64) bool {
			count, bytes, tag := evalMessage(st.Msg, f)
			if count > 0 {
				a.ops = append(a.ops, p2pOp{peer: s.proc(t, v), async: st.Async, count: count, bytes: bytes, tag: tag})
			}
			return true
		})
	} else {
		s.receivesFrom(t, a, st, st.Senders, st.Receivers, st.Msg, st.Async)
	}
	return s.nonEmpty(a)
}

// receivesFrom adds to a the receives of task t from each source of st
// that targets it, in ascending order, evaluating msg with the source and
// target variables bound for each. It returns the cached pattern it found
// the sources in, or nil.
func (s *Sim) receivesFrom(t *task, a *activity, st ir.Stmt, source, target *ir.TaskSet, msg *ir.Message, async bool) *inverse {
	f := t.frame()
	senders, p := s.sendersTo(t, st, source, target)
	if len(senders) == 0 {
		return p
	}
	if s.senderFree(st, source, target, msg) {
		// One evaluation serves every sender: binding each sender's
		// variables would evaluate the target (a MESH_NEIGHBOR, say)
		// again for nothing.
		count, bytes, tag := s.message(st, true, msg, f)
		if count > 0 {
			for _, src := range senders {
				a.ops = append(a.ops, p2pOp{peer: s.proc(t, int64(src)), async: async, count: count, bytes: bytes, tag: tag})
			}
		}
		return p
	}
	for _, src := range senders {
		v := int64(src)
		source.Contains(f, v, -1)
		target.Contains(f, f.Task, v)
		count, bytes, tag := evalMessage(msg, f)
		if count > 0 {
			a.ops = append(a.ops, p2pOp{peer: s.proc(t, v), async: async, count: count, bytes: bytes, tag: tag})
		}
	}
	return p
}

// senderFree reports whether statement st's message reads none of the
// variables its source and target sets bind, and nothing that differs
// from one evaluation to the next (a counter, a random draw): then it is
// the same from every sender. Worked out once per statement.
func (s *Sim) senderFree(st ir.Stmt, source, target *ir.TaskSet, msg *ir.Message) bool {
	id := st.ID()
	if id >= len(s.sameMsg) {
		s.sameMsg = append(s.sameMsg, make([]uint8, len(s.stmts)-len(s.sameMsg))...)
	}
	if v := s.sameMsg[id]; v != 0 {
		return v == 1
	}
	slots, dynamic := ir.Uses(msg)
	free := !dynamic && !slices.ContainsFunc(slots, func(x int) bool { return binds(source, x) || binds(target, x) })
	s.sameMsg[id] = 2
	if free {
		s.sameMsg[id] = 1
	}
	return free
}

// binds reports whether task set ts binds variable slot x.
func binds(ts *ir.TaskSet, x int) bool {
	for ; ts != nil; ts = ts.Group {
		if ts.Slot == x {
			return true
		}
	}
	return false
}

// multicastStmt: each source, in ascending order, broadcasts to itself and
// its targets; one broadcast per message.
func (s *Sim) multicastStmt(t *task, st *ir.Multicast) *activity {
	f := t.frame()
	bcast := func(src int64) collCall {
		count, bytes, _ := evalMessage(st.Msg, f)
		g := s.groupOf(t, st, 1, st.Target, []int64{src}) // the key's extra tells the sources apart
		return collCall{op: netmodel.Bcast, group: g, root: src, bytes: bytes, times: count, tag: collectiveTag(st, 0)}
	}
	if st.Source.Kind == ir.SingleSet {
		// One broadcast, which calls shares between the tasks: a million
		// tasks in it would otherwise each allocate a list of calls.
		src := st.Source.One(f)
		if src < 0 {
			return nil
		}
		return s.calls(t, st, bcast(src))
	}
	var calls []collCall
	st.Source.Each(f, -1, func(src int64) bool {
		calls = append(calls, bcast(src))
		return true
	})
	return s.calls(t, st, calls...)
}

// reduceStmt maps REDUCE onto MPI's reductions: an all-reduce among the
// sources when there is no target (or the targets are the sources), a
// reduce-scatter when asked for, a reduce to a single target, and a reduce
// to the first target followed by a broadcast to the others otherwise.
func (s *Sim) reduceStmt(t *task, st *ir.Reduce) *activity {
	f := t.frame()
	src := s.groupOf(t, st, 0, st.Source, nil)
	bytes := ir.SizeBytes(st.Msg.Count, ir.Count(st.Msg.Count, f), ir.UnitBytes(st.Msg.Type, f.G))
	if st.Scatter {
		return s.calls(t, st, collCall{op: netmodel.ReduceScatter, group: src, bytes: bytes, times: 1, tag: collectiveTag(st, 0)})
	}
	if st.Target == nil {
		return s.calls(t, st, collCall{op: netmodel.Allreduce, group: src, bytes: bytes, times: 1, tag: collectiveTag(st, 0)})
	}
	dst := s.targetsOf(t, st, 1, st.Source, st.Target)
	if dst.n == 0 {
		return nil
	}
	if src.equal(dst) {
		return s.calls(t, st, collCall{op: netmodel.Allreduce, group: src, bytes: bytes, times: 1, tag: collectiveTag(st, 0)})
	}
	root := dst.task(0)
	withRoot := s.groupOf(t, st, 2, st.Source, []int64{root})
	return s.calls(t, st,
		collCall{op: netmodel.Reduce, group: withRoot, root: root, bytes: bytes, times: 1, tag: collectiveTag(st, 0)},
		collCall{op: netmodel.Bcast, group: dst, root: root, bytes: bytes, times: 1, tag: collectiveTag(st, 1)})
}

func (s *Sim) scatterStmt(t *task, st *ir.Scatter) *activity {
	f := t.frame()
	root := st.Root.One(f)
	if root < 0 {
		return nil
	}
	g := s.groupOf(t, st, 0, st.Targets, []int64{root})
	count, bytes, _ := evalMessage(st.Msg, f)
	sizes := s.pairSizes(t, st.Msg, g, st.Root, st.Targets, true)
	return s.calls(t, st, collCall{op: netmodel.Scatter, group: g, root: root, bytes: bytes, sizes: sizes, times: count, tag: collectiveTag(st, 0)})
}

func (s *Sim) gatherStmt(t *task, st *ir.Gather) *activity {
	f := t.frame()
	count, bytes, _ := evalMessage(st.Msg, f)
	if st.Roots.Kind == ir.AllSet {
		g := s.groupOf(t, st, 0, st.Sources, nil)
		sizes := s.pairSizes(t, st.Msg, g, st.Sources, st.Roots, false)
		return s.calls(t, st, collCall{op: netmodel.Allgather, group: g, bytes: bytes, sizes: sizes, times: count, tag: collectiveTag(st, 0)})
	}
	root := st.Roots.One(f)
	if root < 0 {
		return nil
	}
	g := s.groupOf(t, st, 0, st.Sources, []int64{root})
	sizes := s.pairSizes(t, st.Msg, g, st.Sources, st.Roots, false)
	return s.calls(t, st, collCall{op: netmodel.Gather, group: g, root: root, bytes: bytes, sizes: sizes, times: count, tag: collectiveTag(st, 0)})
}

func (s *Sim) exchangeStmt(t *task, st *ir.Exchange) *activity {
	f := t.frame()
	g := s.groupOf(t, st, 0, st.Tasks, nil)
	count, bytes, _ := evalMessage(st.Msg, f)
	scratch := s.scratch(t)
	sizes := func(src, dst int) int64 {
		a, b := g.task(src), g.task(dst)
		if a == b {
			return 0
		}
		st.Tasks.Contains(scratch, a, -1)
		if !st.Peers.Contains(scratch, b, a) {
			return 0
		}
		return st.Msg.Size.Bytes(scratch)
	}
	return s.calls(t, st, collCall{op: netmodel.Alltoall, group: g, bytes: bytes, sizes: sizes, times: count, tag: collectiveTag(st, 0)})
}

// pairSizes returns per-member sizes for a scatter or gather whose message
// size uses a bound variable (the "v" variants), or nil if the size is the
// same for everyone. byDst says the size belongs to the receiving member.
func (s *Sim) pairSizes(t *task, m *ir.Message, g *group, from, to *ir.TaskSet, byDst bool) func(int, int) int64 {
	slots, _ := ir.Uses(m.Size)
	uses := false
	for _, sl := range slots {
		if sl == from.Slot || sl == to.Slot {
			uses = true
		}
	}
	if !uses {
		return nil
	}
	scratch := s.scratch(t)
	return func(src, dst int) int64 {
		a, b := g.task(src), g.task(dst)
		member := a
		if byDst {
			member = b
		}
		if from.Slot >= 0 {
			scratch.Slots[from.Slot] = member
		}
		if to.Slot >= 0 {
			scratch.Slots[to.Slot] = member
		}
		return m.Size.Bytes(scratch)
	}
}

// scratch returns a copy of t's frame for evaluating with other bindings.
func (s *Sim) scratch(t *task) *ir.Frame {
	return t.frame().Clone()
}

// ---------------------------------------------------------------------------
// Groups

// group is the set of tasks taking part in a collective, ranked in
// ascending task order. all marks the group of every task, which needs no
// list.
type group struct {
	all     bool
	n       int
	members []int64
}

func (g *group) rank(task int64) int {
	if g.all {
		if task < 0 || task >= int64(g.n) {
			return -1
		}
		return int(task)
	}
	i, ok := slices.BinarySearch(g.members, task)
	if !ok {
		return -1
	}
	return i
}

func (g *group) task(rank int) int64 {
	if g.all {
		return int64(rank)
	}
	return g.members[rank]
}

// equal compares groups; groupOf turns a list of every task into an all
// group, so the two forms never describe the same set.
func (g *group) equal(h *group) bool {
	if g.all || h.all {
		return g.all == h.all && g.n == h.n
	}
	return slices.Equal(g.members, h.members)
}

// groupOf returns the members of set, plus extra tasks, as a group. The
// group is cached per statement, phase and binding of the variables the
// set reads, so a million tasks share one list.
func (s *Sim) groupOf(t *task, st ir.Stmt, phase int, set *ir.TaskSet, extra []int64) *group {
	if set.Kind == ir.AllSet || set.Kind == ir.OthersSet && len(extra) == 1 {
		return s.everyone
	}
	key, ok := s.patterns.key(t, st, phase, set, nil, extra)
	return s.cachedGroup(key, ok, func() []int64 {
		f := s.scratch(t)
		other := int64(-1)
		if len(extra) == 1 {
			other = extra[0]
		}
		var members []int64
		set.Each(f, other, func(v int64) bool { members = append(members, v); return true })
		n := s.g.NumTasks
		for _, e := range extra {
			if e >= 0 && e < n {
				members = append(members, e)
			}
		}
		return members
	})
}

// targetsOf returns the targets of a collective from source to target. A
// target set that reads the source's variable (TASKS src SUCH THAT ...
// REDUCE ... TO TASK src/2) names, as in coNCePTuaL, every task it names
// for some source: the union over the sources.
func (s *Sim) targetsOf(t *task, st ir.Stmt, phase int, source, target *ir.TaskSet) *group {
	if slots, _ := ir.Uses(target); source.Slot < 0 || !slices.Contains(slots, source.Slot) {
		return s.groupOf(t, st, phase, target, nil)
	}
	key, ok := s.patterns.key(t, st, phase, source, target, nil)
	return s.cachedGroup(key, ok, func() []int64 {
		f := s.scratch(t)
		var members []int64
		source.Each(f, -1, func(int64) bool {
			target.Each(f, -1, func(v int64) bool { members = append(members, v); return true })
			return true
		})
		return members
	})
}

// cachedGroup returns the group cached under key (if ok), or else makes
// it of the tasks list returns, in any order and with repeats.
func (s *Sim) cachedGroup(key patKey, ok bool, list func() []int64) *group {
	if ok {
		if s.lastGroup.g != nil && s.lastGroup.k == key {
			return s.lastGroup.g // the task before asked for the same group, as SPMD tasks do
		}
		if g, hit := s.patterns.groups[key]; hit {
			s.lastGroup.k, s.lastGroup.g = key, g
			return g
		}
	}
	members := list()
	slices.Sort(members)
	members = slices.Compact(members)
	g := &group{n: len(members), members: members}
	if int64(len(members)) == s.g.NumTasks {
		g = s.everyone
	}
	if ok {
		s.patterns.putGroup(key, g)
	}
	return g
}

// ---------------------------------------------------------------------------
// Who sends to whom

// sendersTo lists, in ascending order, the sources of st that target task
// t (with the statement's variables bound as t sees them), and returns the
// cached pattern they come from, or nil if there is none. The list may be
// shared: callers only read it.
func (s *Sim) sendersTo(t *task, st ir.Stmt, source, target *ir.TaskSet) ([]int32, *inverse) {
	f := t.frame()
	me := f.Task
	if source.Kind == ir.SingleSet {
		v := source.One(f)
		if v >= 0 && target.Contains(f, me, v) {
			return []int32{int32(v)}, nil
		}
		return nil, nil
	}
	if p := s.patterns.fixed(st.ID()); p != nil {
		return p.from(me), p
	}
	key, ok := s.patterns.key(t, st, 0, source, target, nil)
	if !ok {
		// The pattern may differ between tasks: scan the sources.
		sc := s.scratch(t)
		var out []int32
		source.Each(sc, -1, func(v int64) bool {
			if target.Contains(sc, me, v) {
				out = append(out, int32(v))
			}
			return true
		})
		return out, nil
	}
	p := s.patterns.inverse(key)
	if p == nil {
		p = buildInverse(s.scratch(t), s.g.NumTasks, source, target)
		s.patterns.putInverse(key, p)
	}
	return p.from(me), p
}

// inverse maps each task to the sources that send to it, in CSR form.
// When every task has exactly one source (a shift, a halo's face) start is
// nil and task i's source is srcs[i]: a send statement then holds the
// table to its targets (to) in the memory start would take.
type inverse struct {
	n     int // tasks
	start []int32
	srcs  []int32
	// plain says the sets were evaluated without a reassignment of task
	// numbers, which PROCESSOR_OF and TASK_OF read.
	plain bool
	// to maps each source to its one target when the target set names a
	// single task (see target), -1 for none: made with the inverse when
	// every task is a source, else on first use.
	to []int32
}

// from returns the sources that send to task, a view into p.
func (p *inverse) from(task int64) []int32 {
	if p.start == nil {
		return p.srcs[task : task+1 : task+1]
	}
	return p.srcs[p.start[task]:p.start[task+1]]
}

// target returns the task that set, p's target set, names when task
// f.Task is the source, as p recorded it when it evaluated set for every
// source (-1 for none); ok is false when p cannot tell: p is nil, set may
// name several tasks, or f or p's evaluation saw a reassignment of task
// numbers.
func (p *inverse) target(f *ir.Frame, set *ir.TaskSet) (task int64, ok bool) {
	if p == nil || set.Kind != ir.SingleSet || !p.plain || f.Procs != nil {
		return 0, false
	}
	if p.to == nil {
		p.to = make([]int32, p.n)
		for i := range p.to {
			p.to[i] = -1
		}
		for dst := range p.n {
			for _, src := range p.from(int64(dst)) {
				p.to[src] = int32(dst)
			}
		}
	}
	return int64(p.to[f.Task]), true
}

func buildInverse(f *ir.Frame, n int64, source, target *ir.TaskSet) *inverse {
	p := &inverse{n: int(n), plain: f.Procs == nil}
	if source.Kind == ir.AllSet && target.Kind == ir.SingleSet {
		// Every task names one target at most: the table of targets
		// (which target would otherwise make on first use) is the list of
		// (target, source) pairs, in a quarter of its memory. A halo's
		// face is a permutation, whose inverse needs no offsets either:
		// the first step of a 262,144-task halo allocated 6 MB a face
		// here, now 2.
		p.to = make([]int32, n)
		source.Each(f, -1, func(v int64) bool {
			p.to[v] = -1
			target.Each(f, v, func(d int64) bool {
				p.to[v] = int32(d)
				return true
			})
			return true
		})
		if p.invertPermutation() {
			return p
		}
		count := 0
		for _, d := range p.to {
			if d >= 0 {
				count++
			}
		}
		p.fill(count, func(add func(dst, src int32)) {
			for src, dst := range p.to {
				if dst >= 0 {
					add(dst, int32(src))
				}
			}
		})
		return p
	}
	type pair struct{ dst, src int32 }
	var pairs []pair
	source.Each(f, -1, func(v int64) bool {
		target.Each(f, v, func(d int64) bool {
			pairs = append(pairs, pair{int32(d), int32(v)})
			return true
		})
		return true
	})
	p.fill(len(pairs), func(add func(dst, src int32)) {
		for _, pr := range pairs {
			add(pr.dst, pr.src)
		}
	})
	return p
}

// invertPermutation sets p's sources from its table of targets if every
// task has exactly one source (start stays nil), and reports whether it
// did.
func (p *inverse) invertPermutation() bool {
	srcs := make([]int32, p.n)
	for i := range srcs {
		srcs[i] = -1
	}
	for src, dst := range p.to {
		if dst < 0 || srcs[dst] >= 0 {
			return false
		}
		srcs[dst] = int32(src)
	}
	p.srcs = srcs
	return true
}

// fill sets p's sources from the count (target, source) pairs each
// visits, sources in ascending order: in CSR form, or one a task when
// every task has exactly one.
func (p *inverse) fill(count int, each func(add func(dst, src int32))) {
	n := p.n
	p.start, p.srcs = make([]int32, n+1), make([]int32, count)
	each(func(dst, _ int32) { p.start[dst+1]++ })
	oneEach := count == n
	for i := range n {
		oneEach = oneEach && p.start[i+1] == 1
		p.start[i+1] += p.start[i]
	}
	next := slices.Clone(p.start[:n])
	// Sources were visited in ascending order, so each list stays sorted.
	each(func(dst, src int32) {
		p.srcs[next[dst]] = src
		next[dst]++
	})
	if oneEach {
		p.start = nil
	}
}

// proc is the processor that task v runs on, as t sees the mapping.
func (s *Sim) proc(t *task, v int64) int32 {
	if t.rare == nil || t.rare.mapv == nil {
		return int32(v)
	}
	return t.rare.mapv.v2p[v]
}
