package interp

import (
	"bufio"
	"io"
	"math"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// The collective evaluator (issue 19) replaces the events of a collective
// that every task enters at once by an evaluation in flat arrays, with
// the same costs in the same order, so that the whole Result is the one
// the event path gives.
//
// When a task reaches a candidate collective call it stops (parks) there
// instead of starting it. Parked tasks wait only while the next event is
// another task's wake-up at the same time that goes straight into the
// same statement (see cfMayWait); before any other event they go on, in
// the order they parked, at the time they parked, which is what they
// would have done without parking (their part in the call starts with
// their own event, and the others' events come after it). When every task has parked and
// no event is left, nothing else can happen before the first task leaves
// the call, and the call is evaluated:
//
//   - each task's part is a small state machine that does what
//     Sim.collective, Sim.arrive and Sim.notify do for it: post a receive,
//     send when the CPU and the NIC allow, absorb each message when the
//     CPU and the receiving NIC are free (in arrival order, the first
//     waiting for them), combine, resume; every event the event path
//     would process is counted;
//   - the events go through the Sim's own event queue, borrowed while it
//     is empty, by time and then by scheduling order, and the tasks'
//     first parts are scheduled in the order they parked, so every event
//     is processed in the place the event path gives it, ties included.
//
// It gives up (and the parked tasks go on through the event path, as if
// never parked) on anything it does not model: a flow or packet network,
// a timeline, an observer, fast-forward, an event limit, message-size
// regimes, a mapping of tasks to processors, a rendezvous size, an
// algorithm netmodel.StepAt does not index, or a time past
// netmodel.MaxTime.
//
// Leaving the call. In the event path a task goes on with what follows
// the call in the event in which it leaves, while the others may still be
// in it. The evaluator instead schedules each task's continuation, an
// event at the time it leaves, in the order the event path processes
// those events. Nothing differs when
//
//   - nothing after the statement communicates, writes output, draws from
//     the random stream the tasks share, reassigns processors or has a
//     timed loop, and it is outside every loop (see quietTail): then what a
//     task does after it depends on its own state alone; or else when
//   - every task's last event is scheduled before the first task leaves
//     (before that event is processed; the evaluator gives up at the first
//     wake-up scheduled later). Then, first, the event path schedules
//     every one of those events before anything a continuation
//     schedules, so the continuations and their descendants keep, among
//     themselves, the order of the event path. And second, once the
//     first task leaves, what is left of the call is the others' last
//     events alone, each at a time already fixed and doing nothing but
//     end the statement (a task's last event sends nothing: a send keeps
//     the CPU busy and so takes another event). A task still inside holds no receive of the
//     call, so what a continuation sends it meets the state the task will
//     leave with, and is taken (or waits behind the busy CPU, after the
//     last event, which was scheduled first) as after the call; a task
//     that has left is touched by no event of the call (it has received
//     every message sent to it). So a continuation and the call share
//     nothing but the order of the queue.
//
// Otherwise the evaluation is dropped and the tasks go on as if never
// parked. Between the call and what follows, the event path and the
// evaluator differ in one thing that can show: which slab entries later
// messages take, and the call's messages may have grown the slabs. The
// deadlock report lists rendezvous requests in slab order and the memory
// limit counts slab chunks, so a run that used the evaluator and then
// fails or deadlocks is run again without it (the tasks' figures at a
// failure inside the call would differ too).

// cfState is the evaluator's state; Sim.cf is nil when no statement is a
// candidate, so a run without one pays a nil check per collective call.
type cfState struct {
	candidate []bool // by statement ID
	quiet     []bool // by statement ID: its tail is quiet (see quietTail)
	parked    []int32
	stmt      ir.Stmt // where the parked tasks wait
	call      collCall
	at        Time
	releasing bool  // the parked tasks are going on: they must not park again
	used      bool  // a call was evaluated
	evaluated int64 // calls evaluated, for tests
	mirrored  int64 // of which in cfMirror, for tests
	treed     int64 // of which in cfTree, for tests
	// The last evaluation, whose arrays the next reuses: a call in a loop
	// would otherwise allocate and fault in fresh memory every time.
	ev *cfEval
}

// newCollectiveEvaluator marks the candidate statements; it leaves s.cf
// nil if the run can have none.
func (s *Sim) newCollectiveEvaluator() {
	o := &s.opts
	if o.NoCollectiveEvaluator || s.net != nil || o.Timeline || o.Observer != nil || o.FastForward || o.MaxEvents > 0 {
		return
	}
	if s.plat.Network.Overhead <= 0 || s.intra() && s.plat.Intra.Overhead <= 0 {
		return // a send's CPU time is what makes every step an event
	}
	if len(s.plat.Network.Regimes) > 0 || s.plat.Intra != nil && len(s.plat.Intra.Regimes) > 0 {
		return // the evaluator prices every message with the link's own parameters
	}
	var cand, quiet []bool
	for pc := range s.code {
		in := &s.code[pc]
		if in.op != opSimple {
			continue
		}
		switch in.stmt.(type) {
		case *ir.Multicast, *ir.Reduce, *ir.Synchronize:
		default:
			continue
		}
		if cand == nil {
			cand, quiet = make([]bool, len(s.stmts)), make([]bool, len(s.stmts))
		}
		cand[in.stmt.ID()] = true
		quiet[in.stmt.ID()] = quietTail(s.code, pc)
	}
	if cand != nil {
		s.cf = &cfState{candidate: cand, quiet: quiet}
	}
}

// quietTail reports whether the instruction at pc is outside every loop
// and nothing after it communicates, writes output, draws from the random
// stream the tasks share or reassigns processors: what each task does
// after it then depends on nothing but its own state, and the order in
// which the tasks leave it cannot matter.
func quietTail(code []instr, pc int) bool {
	for j := pc + 1; j < len(code); j++ {
		in := &code[j]
		switch in.op {
		case opJump:
			if in.target <= int32(pc) {
				return false // a loop around pc
			}
		case opTimed, opTimedNext:
			return false // agrees on its count with an all-reduce
		case opRepeat:
			if in.stmt.(*ir.Repeat).Sync {
				return false
			}
		case opLet:
			for _, b := range in.stmt.(*ir.Let).Bindings {
				if b.Random != nil {
					return false
				}
			}
		case opSimple:
			switch in.stmt.(type) {
			case *ir.Delay, *ir.Work, *ir.Touch, *ir.TouchBuffer, *ir.BackendExec, *ir.Log,
				*ir.ComputeAggregates, *ir.Counters, *ir.Assert, *ir.Await:
			default:
				return false
			}
		}
	}
	return true
}

// cfPark is called when task t is about to start call of activity a; it
// reports whether t parks there.
func (s *Sim) cfPark(t *task, a *activity, call *collCall, spec *netmodel.Collective, alg netmodel.Algorithm) bool {
	cf := s.cf
	if cf.releasing {
		return false
	}
	ok := cf.candidate[a.stmt.ID()] && len(a.ops) == 0 && len(a.calls) == 1 && call.times == 1 && !a.stay &&
		call.group == s.everyone && call.sizes == nil && netmodel.Indexed(*spec, alg) &&
		(t.rare == nil || t.rare.mapv == nil) && s.eager(spec, alg)
	if len(cf.parked) > 0 {
		if ok && cf.stmt == a.stmt && cf.at == s.now && sameCall(&cf.call, call) {
			s.parkTask(t, a)
			return true
		}
		// The parked tasks' part comes first: this task has done nothing
		// yet in its event (see cfMayWait).
		s.cfRelease()
		return false
	}
	if !ok || s.msgs.live() > 0 || s.reqs.live() > 0 {
		return false
	}
	cf.stmt, cf.call, cf.at = a.stmt, *call, s.now
	s.parkTask(t, a)
	return true
}

// parkTask parks task t at the statement of its activity a. A million
// parked tasks hold no activity: t goes back to the start of the
// statement, which it runs again if released (evaluating it again gives
// the same calls, and nothing else happened in between).
func (s *Sim) parkTask(t *task, a *activity) {
	s.freeActivity(a)
	t.act = nil
	if s.cf.parked == nil {
		s.cf.parked = make([]int32, 0, len(s.tasks)) // every task may park
	}
	s.cf.parked = append(s.cf.parked, t.id)
}

func sameCall(a, b *collCall) bool {
	return a.op == b.op && a.group == b.group && a.root == b.root && a.bytes == b.bytes && a.tag == b.tag
}

// eager reports whether every message of the call goes eagerly. The
// indexed algorithms send the whole vector, or nothing (the barrier).
func (s *Sim) eager(spec *netmodel.Collective, alg netmodel.Algorithm) bool {
	b := spec.Bytes
	if spec.Op == netmodel.Barrier {
		b = 0
	}
	return !s.plat.Network.Rendezvous(b) && (!s.intra() || !s.plat.Intra.Rendezvous(b)) && b <= s.maxBytes
}

// intra reports whether messages between tasks on one node take the
// platform's intra-node link: whether there is one and nodes hold several
// tasks (see netmodel.Platform.LinkTo).
func (s *Sim) intra() bool { return s.plat.Intra != nil && s.plat.Machine.TasksPerNode > 1 }

// cfMayWait reports whether the parked tasks may stay parked while the
// next event is processed: a wake-up, at the time they parked, of a task
// that goes straight into the statement they wait in (its event does
// nothing before it reaches the call but its own loop's bookkeeping, so
// if it does not park too, the parked tasks can still go first; see
// cfPark).
func (s *Sim) cfMayWait() bool {
	if s.q.len() == 0 {
		return false
	}
	at, e := s.q.peek()
	if at != s.cf.at || e.kind() != evResume {
		return false
	}
	t := &s.tasks[e.id()]
	if t.status == done || t.cpuFree > at {
		return false
	}
	pc := t.pc
	switch t.act {
	case nil:
	case doneActivity:
		pc++ // a computation ends; the task goes on with the next statement
	default:
		return false
	}
	// A few instructions at most: an empty loop would go round for ever.
	for range 4 {
		switch in := &s.code[pc]; in.op {
		case opTable:
			pc++ // starting a top-level statement only ends the task's log table
		case opJump:
			pc = in.target
		case opRepeat:
			// A loop's first repetition, when its count is known without
			// evaluating anything that could fail or draw at random.
			r := in.stmt.(*ir.Repeat)
			switch r.Count.(type) {
			case *ir.Const, *ir.Param:
			default:
				return false
			}
			if r.Warmup != nil || r.Sync || r.Count.Int(t.frame()) <= 0 {
				return false
			}
			pc += 2 // past the loop's opRepeatNext, into its body
		case opRepeatNext:
			// The next counted repetition of a loop the task is in: the
			// frame on top of its stack is this loop's.
			if in.ff || len(t.stack) == 0 {
				return false
			}
			if f := &t.stack[len(t.stack)-1]; f.phase != phaseMain || f.left <= 0 {
				return false
			}
			pc++
		default:
			return in.op == opSimple && in.stmt == s.cf.stmt
		}
	}
	return false
}

// cfRelease lets the parked tasks go on, in the order they parked, at the
// time they parked.
func (s *Sim) cfRelease() {
	cf := s.cf
	parked := cf.parked
	cf.parked = nil
	cf.releasing = true
	fatal := s.fatal // a run that failed since they parked still sees them start
	for _, id := range parked {
		s.exec(&s.tasks[id])
		if s.fatal && !fatal {
			break
		}
	}
	cf.releasing = false
	cf.parked = parked[:0]
}

// cfGo is called by the event loop when the parked tasks may not wait
// for the next event: it evaluates the call if every task has parked
// with nothing left, else (or if the evaluator cannot tell) lets them go
// on.
func (s *Sim) cfGo() {
	cf := s.cf
	if s.q.len() == 0 && len(cf.parked) == len(s.tasks) && s.cfEvaluate() {
		cf.parked = cf.parked[:0]
		cf.used = true
		cf.evaluated++
		switch cf.ev.mode {
		case cfMirror:
			cf.mirrored++
		case cfTree:
			cf.treed++
		}
		return
	}
	s.cfRelease()
}

// runCollectives is Run with the evaluator: a run that used it and then
// failed or deadlocked is run again without it. Its OUTPUTS went out as
// it ran; they are the start of the second run's (the continuations keep
// the event path's order among themselves, and a call writes nothing, so
// up to the failure the runs write the same), which skips that much.
func (s *Sim) runCollectives() {
	out := s.opts.Output
	if out == nil {
		out = io.Discard
	}
	first := &countWriter{w: out}
	s.out = bufio.NewWriter(first)
	s.run()
	s.cf.ev = nil // garbage before the Result is made (see releasePools)
	if !s.fatal && !s.deadlocked || !s.cf.used {
		return
	}
	opts := s.opts
	opts.NoCollectiveEvaluator = true
	fresh, err := New(s.prog, opts)
	if err != nil {
		return // New took these options once: it cannot fail now
	}
	*s = *fresh
	for i := range s.tasks {
		s.tasks[i].sim = s
	}
	s.out = bufio.NewWriter(&skipWriter{w: out, skip: first.n})
	s.run()
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// skipWriter drops the first skip bytes written through it.
type skipWriter struct {
	w    io.Writer
	skip int64
}

func (k *skipWriter) Write(p []byte) (int, error) {
	n := len(p)
	drop := min(k.skip, int64(n))
	k.skip -= drop
	if _, err := k.w.Write(p[drop:]); err != nil {
		return 0, err
	}
	return n, nil
}

// cfTask is one task's part while a call is evaluated.
type cfTask struct {
	cpu, snd, rcv Time // when the CPU and the NIC's two directions are free
	comm, comp    Time // added by the call
	stepDone      Time
	lastAt        Time  // when its last wake-up was processed: where it leaves, once done
	bytes         int64 // bytes inside the collective, both ends
	step          cfStep
	inbox         int32 // messages waiting for the CPU, the first with an event, in arrival order
	unexpected    int32 // absorbed messages not yet received, in arrival order
	msgs          int32 // messages inside the collective, both ends: two a step at most
	// k and total count the task's steps: 16 bits, with the flags below,
	// keep the struct at 120 bytes, which is much of a million-task call's
	// peak (calls of more steps are left to the event path).
	k, total    int16
	woken       bool // a wake-up is pending
	planned     bool // step holds step k
	recvPosted  bool
	recvWaiting bool // posted and not complete
	sendPosted  bool
	reduced     bool
	waiting     bool
	done        bool
}

// cfStep is a netmodel.Step in less room.
type cfStep struct {
	sendTo, recvFrom             int32
	sendBytes, recvBytes, reduce int64
}

func makeCfStep(st netmodel.Step) cfStep {
	return cfStep{sendTo: int32(st.SendTo), recvFrom: int32(st.RecvFrom), sendBytes: st.SendBytes, recvBytes: st.RecvBytes, reduce: st.Reduce}
}

// cfMsg is a message of the call.
type cfMsg struct {
	readyAt  Time // once absorbed: when its receive can complete
	bytes    int64
	src, dst int32
	qnext    int32 // in its inbox or unexpected messages
	order    int32 // in cfMirror, the order of its pending event's batch (see cfEval.order)
}

// cfEval is one evaluation. Its events go through the Sim's queue,
// borrowed (by time, then by scheduling order), with the
// tasks' first parts scheduled in the order they parked: each event is
// processed where the event path would process it, so ties fall as they
// would there and no order has to be guessed. Two modes take shortcuts
// where the order cannot matter (see collshort.go).
type cfEval struct {
	s     *Sim
	spec  netmodel.Collective
	alg   netmodel.Algorithm
	mode  cfMode
	tasks []cfTask // by task; in the shortcuts only the task being evaluated (see part)
	all   []cfTask // room for every task, kept for the next evaluation
	msgs  slab[cfMsg]
	q     eventQueue
	exits []int32 // in cfAll, the tasks in the order their last events were processed
	// The tail is not quiet: every task's last event must be scheduled
	// before the first task leaves (see "Leaving the call").
	strict bool
	last   msgCosts // the costs last looked up
	// The last size combine priced, and its time.
	combined    int64
	combineTime Time
	events      int64
	failed      bool
	// In cfMirror: the order of the batch of events (one per task, all
	// at one time) that the event being processed belongs to, the task
	// at position j in it being mirrorTask(parked[j], order); wakeOrder
	// is the pending wake-up's. rotate: the renumbering is a rotation,
	// not an XOR (see cfSymmetric).
	order, wakeOrder int32
	rotate           bool
	// In cfTree: the position of the task being evaluated, and each
	// task's messages sent before its turn (see sendAhead).
	pos      int
	incoming []int32
	own      cfOwn // in the shortcuts, the events of the task being evaluated
}

// push schedules event e at time at.
func (ev *cfEval) push(at Time, e event) {
	if ev.mode == cfAll {
		ev.q.push(at, e)
		return
	}
	ev.own.push(at, e)
}

// cfMode is how a call is evaluated.
type cfMode uint8

const (
	cfAll    cfMode = iota // every task, every event in the event path's order
	cfMirror               // task 0 alone, standing for every task (see collshort.go)
	cfTree                 // one task after another, down or up a tree (see collshort.go)
)

// cfEvaluate evaluates the call every task has parked in and applies it;
// it reports false, changing nothing, if it cannot tell the result. It
// tries the shortcuts the call allows first (see collshort.go), and
// evaluates every task's events in order if they cannot tell.
func (s *Sim) cfEvaluate() bool {
	cf := s.cf
	spec, alg, _ := s.collSpec(&s.tasks[cf.parked[0]], &cf.call)
	ev := cf.ev
	if ev == nil {
		ev = &cfEval{}
		cf.ev = ev
	}
	// The Sim's queue is empty while every task is parked: the evaluation
	// borrows it and gives it back empty, so that one store of nodes (one
	// for each task's event, at a million tasks 16 MB) serves both.
	q := s.q
	s.q = eventQueue{}
	ok := false
	for _, mode := range []cfMode{cfMirror, cfTree, cfAll} {
		rotate := false
		if mode == cfMirror {
			var symmetric bool
			if symmetric, rotate = s.cfSymmetric(&spec); !symmetric {
				continue
			}
		}
		if mode == cfTree && (!cf.quiet[cf.stmt.ID()] || treeOrder(&spec) == 0 || !s.cfAlike()) {
			continue
		}
		ev.reset(s, spec, alg, q, mode)
		ev.rotate = rotate
		if ok = ev.evaluate(); ok {
			break
		}
		q = ev.q
	}
	if ok {
		ev.apply()
	}
	for !ok && ev.q.len() > 0 {
		ev.q.pop() // left by an evaluation that gave up
	}
	s.q, ev.q = ev.q, eventQueue{}
	return ok
}

// reset readies ev for an evaluation of the call spec by alg in mode,
// with the queue q (empty but for what an evaluation that gave up left in
// it).
func (ev *cfEval) reset(s *Sim, spec netmodel.Collective, alg netmodel.Algorithm, q eventQueue, mode cfMode) {
	for q.len() > 0 {
		q.pop()
	}
	if ev.msgs.live() > 0 {
		ev.msgs = slab[cfMsg]{} // left by an evaluation that gave up
	}
	*ev = cfEval{s: s, spec: spec, alg: alg, mode: mode, combined: -1, all: ev.all, msgs: ev.msgs, q: q, exits: ev.exits[:0],
		strict: !s.cf.quiet[s.cf.stmt.ID()], incoming: ev.incoming, own: ev.own[:0]}
	switch n := len(s.tasks); {
	case mode != cfAll:
		ev.tasks = make([]cfTask, 1) // see part
	case len(ev.all) != n:
		ev.all = make([]cfTask, n)
		ev.exits = make([]int32, 0, n)
		fallthrough
	default:
		ev.tasks = ev.all
	}
}

// start readies task id's part; it reports false if the evaluator cannot
// take it.
func (ev *cfEval) start(id int32) bool {
	s := ev.s
	t := &s.tasks[id]
	st, total := netmodel.StepAt(ev.spec, ev.alg, int(id), 0)
	if total == 0 {
		return false // the call would end within the parking event
	}
	if total > math.MaxInt16 {
		return false
	}
	*ev.part(id) = cfTask{cpu: t.cpuFree, snd: t.sendFree, rcv: t.recvFree, lastAt: s.now, inbox: -1, unexpected: -1,
		total: int16(total), step: makeCfStep(st), planned: true}
	return true
}

// evaluate runs the call in ev's own events; it reports false if it
// cannot tell the result.
func (ev *cfEval) evaluate() bool {
	s, cf := ev.s, ev.s.cf
	switch ev.mode {
	case cfMirror:
		return ev.start(0) && ev.mirror()
	case cfTree:
		return ev.tree()
	}
	for i := range ev.tasks {
		if !ev.start(int32(i)) {
			return false
		}
	}
	// The tasks start in the order they parked, each in the event that
	// brought it to the call.
	for _, id := range cf.parked {
		ev.run(id, s.now)
		if ev.part(id).done || ev.failed {
			return false
		}
	}
	for !ev.failed && ev.q.len() > 0 {
		at, e := ev.q.pop()
		if ev.step(at, e) {
			ev.exits = append(ev.exits, e.id())
		}
	}
	// len(ev.exits) < n cannot happen: every plan ends, every message is
	// received.
	return !ev.failed && len(ev.exits) == len(ev.tasks)
}

// part is task id's part of the call. The shortcuts evaluate one task at
// a time, in the first element of ev.tasks.
func (ev *cfEval) part(id int32) *cfTask {
	if ev.mode != cfAll {
		return &ev.tasks[0]
	}
	return &ev.tasks[id]
}

// step processes event e at time at, and reports whether a task left
// the call in it.
func (ev *cfEval) step(at Time, e event) bool {
	ev.events++
	id := e.id()
	if e.kind() == evArrive {
		ev.arrive(ev.msgs.at(id).dst, id, at)
		return false
	}
	c := ev.part(id)
	c.lastAt = at
	c.woken = false
	if c.cpu > at {
		ev.wake(id, c.cpu, at)
		return false
	}
	ev.run(id, at)
	return c.done
}

// apply writes the evaluated call into the tasks and schedules each
// task's continuation, the event in which it leaves the call, in the
// order the event path processes them (cfTree did as it went).
func (ev *cfEval) apply() {
	s := ev.s
	n := int64(len(s.tasks))
	switch ev.mode {
	case cfMirror:
		// Every task leaves in the batch of task 0's last event, in its order.
		c := &ev.tasks[0]
		for _, id := range s.cf.parked {
			ev.leave(ev.mirrorTask(id, ev.order), c)
		}
		ev.events *= n
	case cfAll:
		for _, id := range ev.exits {
			ev.leave(id, &ev.tasks[id])
		}
	}
	// cfTree wrote each task as it left.
	// The continuations are counted as they are processed.
	s.nev += ev.events - n
	s.noteCollective(ref(s.cf.stmt), &ev.spec, ev.alg)
}

// leave writes part c of the call into task id and schedules its
// continuation.
func (ev *cfEval) leave(id int32, c *cfTask) {
	t := &ev.s.tasks[id]
	t.cpuFree, t.sendFree, t.recvFree = c.cpu, c.snd, c.rcv
	t.comm += c.comm
	t.compute += c.comp
	t.total.collMsgs += int64(c.msgs)
	t.total.collBytes += c.bytes
	t.act = doneActivity // the statement is done when it resumes
	t.waitOn = noWait
	ev.q.push(c.lastAt, makeEvent(evResume, id)) // the Sim's queue, borrowed
}

// link is Sim.link, without looking for the node when every message
// takes the network.
func (ev *cfEval) link(a, b int32) *netmodel.LogGP {
	if !ev.s.intra() {
		return &ev.s.plat.Network
	}
	return ev.s.link(a, b)
}

// combine is what task id's CPU takes to combine bytes in a reduction, as
// in Sim.collective; on a machine of one kind of node it is the same for
// every task, and computed once per size.
func (ev *cfEval) combine(id int32, bytes int64) Time {
	m := &ev.s.plat.Machine
	if len(m.Nodes) != 1 {
		return m.Touch(int64(id), ev.s.g.NumTasks, satMul(3, bytes))
	}
	if bytes != ev.combined {
		ev.combined, ev.combineTime = bytes, m.Touch(int64(id), ev.s.g.NumTasks, satMul(3, bytes))
	}
	return ev.combineTime
}

// wake schedules task id's wake-up at at (or now, if earlier), from an
// event at now.
func (ev *cfEval) wake(id int32, at, now Time) {
	c := ev.part(id)
	if c.woken || at > netmodel.MaxTime {
		ev.failed = true // one wake-up at a time; times past MaxTime overflow
		return
	}
	if ev.strict && len(ev.exits) > 0 {
		// A task has left, and this or a later wake-up is its task's last
		// event: the event path would schedule it after what that task's
		// continuation schedules.
		ev.failed = true
		return
	}
	c.woken = true
	ev.wakeOrder = ev.order
	ev.push(max(at, now), makeEvent(evResume, id))
}

// run continues task id's part of the call at time now, as
// Sim.collective does.
func (ev *cfEval) run(id int32, now Time) {
	c := ev.part(id)
	for c.k < c.total {
		if !c.planned {
			st, _ := netmodel.StepAt(ev.spec, ev.alg, int(id), int(c.k))
			c.step, c.planned = makeCfStep(st), true
		}
		st := &c.step
		if st.recvFrom >= 0 && !c.recvPosted {
			c.recvPosted = true
			if m := ev.takeUnexpected(c, st.recvFrom); m >= 0 {
				c.stepDone = max(c.stepDone, now, ev.msgs.at(m).readyAt)
				c.msgs++
				c.bytes += st.recvBytes
				ev.release(m)
			} else {
				c.recvWaiting = true
			}
		}
		if st.sendTo >= 0 && !c.sendPosted {
			if at := max(now, c.cpu, c.snd); at > now {
				ev.wake(id, at, now)
				return
			}
			c.sendPosted = true
			dst := st.sendTo
			link := ev.link(id, dst)
			cost := ev.last.of(link, st.sendBytes)
			cpu := cost.SendCPU
			c.cpu = now + cpu
			c.snd = now + cost.SendNIC
			c.comm += cpu
			c.msgs++
			c.bytes += st.sendBytes
			ev.send(id, dst, st.sendBytes, now+link.Overhead+link.Latency)
			c.stepDone = max(c.stepDone, c.cpu)
		}
		if c.recvWaiting {
			c.waiting = true
			return
		}
		if c.stepDone > now {
			ev.wake(id, c.stepDone, now)
			return
		}
		if st.reduce > 0 && !c.reduced {
			c.reduced = true
			if d := ev.combine(id, st.reduce); d > 0 {
				if d > netmodel.MaxTime {
					ev.failed = true
					return
				}
				c.comp += d
				c.cpu = now + d
				ev.wake(id, c.cpu, now)
				return
			}
		}
		c.k++
		c.recvPosted, c.sendPosted, c.reduced, c.planned, c.stepDone = false, false, false, false, 0
	}
	// This event is the continuation: the task leaves the call here.
	c.done = true
}

// send makes a message from src to dst of the given bytes whose first
// event is at at.
func (ev *cfEval) send(src, dst int32, bytes int64, at Time) {
	if at > netmodel.MaxTime {
		ev.failed = true
		return
	}
	m, ok := ev.msgs.alloc()
	if !ok {
		ev.failed = true
		return
	}
	order := ev.order
	switch ev.mode {
	case cfMirror:
		// Task 0 stands for every task: the message that matters is the
		// one its peer sends it at the same time, scheduled in the batch
		// of the peer's event, which puts the receiver where the sender
		// of this one's receiver is.
		order = ev.mirrorTask(dst, order)
		src, dst = ev.mirrorPeer(dst), src
	case cfTree:
		*ev.msgs.at(m) = cfMsg{bytes: bytes, src: src, dst: dst, qnext: -1}
		ev.sendAhead(m, at)
		return
	}
	*ev.msgs.at(m) = cfMsg{bytes: bytes, src: src, dst: dst, qnext: -1, order: order}
	ev.push(at, makeEvent(evArrive, m))
}

func (ev *cfEval) release(m int32) { ev.msgs.release(m) }

// takeUnexpected removes and returns the first absorbed message from src,
// or -1.
func (ev *cfEval) takeUnexpected(c *cfTask, src int32) int32 {
	for p := &c.unexpected; *p >= 0; p = &ev.msgs.at(*p).qnext {
		if m := *p; ev.msgs.at(m).src == src {
			*p = ev.msgs.at(m).qnext
			return m
		}
	}
	return -1
}

// arrive handles message m's event at task id at time now, as Sim.arrive
// and Sim.wait do: it waits while the CPU or the receiving NIC is busy,
// behind the messages that came before it, and is then absorbed.
func (ev *cfEval) arrive(id, m int32, now Time) {
	c := ev.part(id)
	free := max(c.cpu, c.rcv)
	switch {
	case c.inbox < 0 && free <= now:
	case c.inbox < 0:
		c.inbox = m
		ev.requeue(m, free)
		return
	case c.inbox != m:
		// Others wait ahead of it: it joins the end, without an event.
		ev.append(&c.inbox, m)
		return
	case free <= now:
		c.inbox = ev.msgs.at(m).qnext
		ev.msgs.at(m).qnext = -1
	default:
		ev.requeue(m, free)
		return
	}
	cost := ev.last.of(ev.link(ev.msgs.at(m).src, id), ev.msgs.at(m).bytes)
	cpu := cost.RecvCPU
	c.cpu = now + cpu
	c.rcv = now + cost.RecvNIC
	c.comm += cpu
	if c.recvWaiting && c.step.recvFrom == ev.msgs.at(m).src {
		c.recvWaiting = false
		c.msgs++
		c.bytes += c.step.recvBytes
		ev.release(m)
		c.stepDone = max(c.stepDone, c.cpu)
		if c.waiting {
			c.waiting = false
			ev.wake(id, c.stepDone, now)
		}
	} else {
		ev.msgs.at(m).readyAt = c.cpu
		ev.append(&c.unexpected, m)
	}
	if c.inbox >= 0 {
		ev.requeue(c.inbox, max(now, c.cpu, c.rcv))
	}
}

// append adds message m at the end of the list at head.
func (ev *cfEval) append(head *int32, m int32) {
	p := head
	for *p >= 0 {
		p = &ev.msgs.at(*p).qnext
	}
	ev.msgs.at(m).qnext = -1
	*p = m
}

// requeue gives message m, first in its task's inbox, its event at at.
func (ev *cfEval) requeue(m int32, at Time) {
	if at > netmodel.MaxTime {
		ev.failed = true
		return
	}
	ev.msgs.at(m).order = ev.order
	ev.push(at, makeEvent(evArrive, m))
}
