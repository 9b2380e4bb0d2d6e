package interp

import (
	"bufio"
	"cmp"
	"io"
	"math"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// The collective evaluator (issue 19) replaces the events of a collective
// that every task enters at once by a round-by-round evaluation in flat
// arrays, with the same costs in the same order, so that the whole Result
// is the one the event path gives.
//
// When a task reaches a candidate collective call it stops (parks) there
// instead of starting it. Parked tasks wait only while the next event is
// another task's wake-up at the same time that goes straight into the
// same statement; before any other event they go on, in the order they
// parked, at the time they parked, which is what they would have done
// without parking (their part in the call starts with their own event,
// and the others' events come after it). When every task has parked and
// no event is left, nothing else can happen before the call ends, and the
// call is evaluated:
//
//   - each task's part is a small state machine that does what
//     Sim.collective, Sim.arrive and Sim.notify do for it: post a receive,
//     send when the CPU and the NIC allow, absorb each message when the
//     CPU and the receiving NIC are free (in arrival order, the first
//     waiting for them), combine, resume; every event the event path
//     would process is counted;
//   - a task's events are taken in the queue's order: by time, then by
//     when they were scheduled, then by the order of the events that
//     scheduled them, as far as the evaluator knows it (see cfKey); where
//     it does not, it gives up;
//   - tasks are evaluated in windows of simulated time as long as the
//     shortest delay of a message (o + L): a message sent in one window
//     arrives in a later one, so within a window the tasks are independent.
//
// It gives up (and the parked tasks go on through the event path, as if
// never parked) on anything it does not model: a flow or packet network,
// a timeline, an observer, fast-forward, an event limit, a mapping of
// tasks to processors, a rendezvous size, an algorithm netmodel.StepAt
// does not index, a time past netmodel.MaxTime, or an order it cannot
// tell. And a statement is a candidate only if, after it, no task can
// communicate or write output again (see quietTail): the tasks then leave
// the call in an order that changes nothing, so each task's continuation
// is simply scheduled at its time. A run in which the evaluator was used
// and that then fails (an assertion, a runtime error) is run again without
// it, since the tasks' figures at the failure would differ.

// cfState is the evaluator's state; Sim.cf is nil when no statement is a
// candidate, so a run without one pays a nil check per collective call.
type cfState struct {
	candidate []bool // by statement ID: its tail is quiet
	parked    []int32
	stmt      ir.Stmt // where the parked tasks wait
	call      collCall
	at        Time
	releasing bool  // the parked tasks are going on: they must not park again
	used      bool  // a call was evaluated
	evaluated int64 // calls evaluated, for tests
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
	var cand []bool
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
		if quietTail(s.code, pc) {
			if cand == nil {
				cand = make([]bool, len(s.stmts))
			}
			cand[in.stmt.ID()] = true
		}
	}
	if cand != nil {
		s.cf = &cfState{candidate: cand}
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
// nothing before it reaches the call, so if it does not park too, the
// parked tasks can still go first; see cfPark).
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
	for s.code[pc].op == opTable {
		pc++ // starting a top-level statement only ends the task's log table
	}
	return s.code[pc].op == opSimple && s.code[pc].stmt == s.cf.stmt
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
		return
	}
	s.cfRelease()
}

// runCollectives is Run with the evaluator: a run that used it and then
// failed is run again without it. Its OUTPUTS went out as it ran; they
// are the start of the second run's (after an evaluated call nothing is
// written, see quietTail, and before it the runs are the same), which
// skips that much.
func (s *Sim) runCollectives() {
	out := s.opts.Output
	if out == nil {
		out = io.Discard
	}
	first := &countWriter{w: out}
	s.out = bufio.NewWriter(first)
	s.run()
	if !s.fatal || !s.cf.used {
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
	resume        cfKey  // the task's pending wake-up; resume.at < 0: none
	lastAt        Time   // when its last event was processed
	arrivals      int32  // messages whose event is pending, in queue order (cfMsg.next); -1: none
	inbox         int32  // messages waiting for the CPU, the first with an event, in arrival order
	unexpected    int32  // absorbed messages not yet received, in arrival order
	msgs, bytes   int64  // messages and bytes inside the collective, both ends
	step          cfStep // step k, once planned
	k, total      int32
	ord           int32 // events processed, but for the first
	planned       bool  // step holds step k
	recvPosted    bool
	recvWaiting   bool // posted and not complete
	sendPosted    bool
	reduced       bool
	waiting       bool
	done          bool
}

// cfStep is a netmodel.Step in less room.
type cfStep struct {
	sendTo, recvFrom             int32
	sendBytes, recvBytes, reduce int64
}

// cfKey is where an event stands in the queue: at its time, after every
// event scheduled before it; events scheduled at the same time come in the
// order of the events that scheduled them (their parents), one parent's in
// turn (sub), and so on back. The evaluator keeps two generations. It
// knows the order of one task's events (it processes them in order) and
// of the tasks' first events, in which they start the call: the order
// they parked (pfirst and gfirst: 1 + that place, for a parent and a
// grandparent that is a first event; 0 otherwise). Deeper ties are not
// told apart.
type cfKey struct {
	at, pushed, ppushed Time
	parent, grand       cfRef
	pfirst, gfirst      int32
	sub, psub           uint8
}

// cfRef names an event: the ord'th a task processed in the call, 0 being
// the one in which it started.
type cfRef struct{ task, ord int32 }

// order compares two events in queue order: -1 if a comes first, 1 if b
// does, 0 if the evaluator cannot tell.
func (a *cfKey) order(b *cfKey) int {
	switch {
	case a.at != b.at:
		return cmp.Compare(a.at, b.at)
	case a.pushed != b.pushed:
		return cmp.Compare(a.pushed, b.pushed)
	case a.parent == b.parent:
		return cmp.Compare(a.sub, b.sub)
	case a.parent.task == b.parent.task:
		return cmp.Compare(a.parent.ord, b.parent.ord)
	case a.pfirst > 0 && b.pfirst > 0:
		return cmp.Compare(a.pfirst, b.pfirst)
	case a.pfirst > 0 || b.pfirst > 0:
		return 0
	case a.ppushed != b.ppushed:
		// The parents, events of two tasks at the same time, in the order
		// of theirs.
		return cmp.Compare(a.ppushed, b.ppushed)
	case a.grand == b.grand:
		return cmp.Compare(a.psub, b.psub)
	case a.grand.task == b.grand.task:
		return cmp.Compare(a.grand.ord, b.grand.ord)
	case a.gfirst > 0 && b.gfirst > 0:
		return cmp.Compare(a.gfirst, b.gfirst)
	}
	return 0
}

// cfMsg is a message of the call.
type cfMsg struct {
	key     cfKey // its pending event
	readyAt Time  // once absorbed: when its receive can complete
	bytes   int64
	src     int32
	next    int32 // in the receiver's pending arrivals
	qnext   int32 // in its inbox or unexpected messages
}

// cfEval is one evaluation.
type cfEval struct {
	s     *Sim
	spec  netmodel.Collective
	alg   netmodel.Algorithm
	tasks []cfTask
	msgs  []cfMsg
	free  []int32
	start Time    // the parked time
	la    Time    // the window: the shortest delay of a message
	next  []Time  // by task: when its next event is due; noEvent: none
	last  cfCosts // the costs last looked up
	// The last size combine priced, and its time.
	combined    int64
	combineTime Time
	soonest     Time  // the earliest next event of a task, as far as known
	end         Time  // the end of the window being evaluated
	cur         int32 // the task being advanced
	now         cfKey // the event being processed,
	nowRef      cfRef // which it is,
	first       int32 // 1 + its task's place in parking order if it is the task's first, else 0,
	sub         uint8 // and the events it has scheduled
	events      int64
	failed      bool
}

// cfEvaluate evaluates the call every task has parked in and applies it;
// it reports false, changing nothing, if it cannot tell the result.
func (s *Sim) cfEvaluate() bool {
	cf := s.cf
	spec, alg, _ := s.collSpec(&s.tasks[cf.parked[0]], &cf.call)
	ev := &cfEval{s: s, spec: spec, alg: alg, start: s.now, cur: -1, soonest: noEvent, end: s.now, combined: -1}
	ev.la = s.plat.Network.Overhead + s.plat.Network.Latency
	if s.intra() {
		ev.la = min(ev.la, s.plat.Intra.Overhead+s.plat.Intra.Latency)
	}
	n := len(s.tasks)
	ev.tasks = make([]cfTask, n)
	ev.next = make([]Time, n)
	// About one message per task is in flight at a time; growing the
	// slice there by doubling would copy it and touch fresh memory twice.
	ev.msgs = make([]cfMsg, 0, n)
	for i := range ev.tasks {
		t := &s.tasks[i]
		ev.tasks[i] = cfTask{cpu: t.cpuFree, snd: t.sendFree, rcv: t.recvFree, resume: cfKey{at: -1}, lastAt: s.now,
			arrivals: -1, inbox: -1, unexpected: -1}
		_, total := netmodel.StepAt(spec, alg, i, 0)
		if total == 0 {
			return false // the call would end within the parking event
		}
		ev.tasks[i].total = int32(total)
	}
	// The tasks start in the order they parked, each in the event that
	// brought it to the call.
	for i, id := range cf.parked {
		ev.cur, ev.first = id, int32(i)+1
		ev.now, ev.nowRef, ev.sub = cfKey{at: s.now}, cfRef{id, 0}, 0
		ev.run(id, s.now)
		ev.cur, ev.first = -1, 0
		if ev.tasks[id].done || ev.failed {
			return false
		}
		ev.refresh(id)
	}
	// Window by window, the tasks in index order: a task's part of a
	// window depends on no other's.
	for !ev.failed && ev.soonest < noEvent {
		w := (ev.soonest - ev.start) / ev.la
		ev.end = ev.start + (w+1)*ev.la
		ev.soonest = noEvent
		for i, next := range ev.next {
			if next < ev.end {
				ev.cur = int32(i)
				ev.advance(int32(i), ev.end)
				ev.cur = -1
				if ev.failed {
					break
				}
			} else {
				ev.soonest = min(ev.soonest, next)
			}
		}
	}
	if ev.failed {
		return false
	}
	for i := range ev.tasks {
		if c := &ev.tasks[i]; !c.done || c.arrivals >= 0 || c.inbox >= 0 || c.unexpected >= 0 {
			return false // cannot happen: every plan ends, every message is received
		}
	}
	ev.apply()
	return true
}

// apply writes the evaluated call into the tasks and schedules each
// task's continuation, the event in which it leaves the call.
func (ev *cfEval) apply() {
	s := ev.s
	for i := range ev.tasks {
		c, t := &ev.tasks[i], &s.tasks[i]
		t.cpuFree, t.sendFree, t.recvFree = c.cpu, c.snd, c.rcv
		t.comm += c.comm
		t.compute += c.comp
		t.total.collMsgs += c.msgs
		t.total.collBytes += c.bytes
		t.act = doneActivity // the statement is done when it resumes
		t.waitOn = noWait
		s.schedule(c.lastAt, makeEvent(evResume, int32(i)))
	}
	// The continuations are counted as they are processed.
	s.nev += ev.events - int64(len(ev.tasks))
	s.noteCollective(ref(s.cf.stmt), &ev.spec, ev.alg)
}

// advance processes task id's events before end, in queue order.
func (ev *cfEval) advance(id int32, end Time) {
	c := &ev.tasks[id]
	for !ev.failed && !c.done {
		a := c.arrivals
		arrival := a >= 0
		if arrival && c.resume.at >= 0 {
			switch ev.msgs[a].key.order(&c.resume) {
			case 0:
				ev.failed = true // which goes first depends on other tasks' events
				return
			case 1:
				arrival = false
			}
		}
		switch {
		case arrival:
			m := &ev.msgs[a]
			if m.key.at >= end {
				ev.refresh(id)
				return
			}
			c.arrivals = m.next
			ev.event(id, &m.key)
			ev.arrive(id, a, ev.now.at)
		case c.resume.at >= 0:
			if c.resume.at >= end {
				ev.refresh(id)
				return
			}
			ev.event(id, &c.resume)
			c.resume.at = -1
			if now := ev.now.at; c.cpu > now {
				ev.wake(id, c.cpu, now)
			} else {
				ev.run(id, now)
			}
		default:
			ev.refresh(id) // waiting for a message from another window
			return
		}
	}
	ev.refresh(id)
}

// event counts task id's event at k, which is processed now.
func (ev *cfEval) event(id int32, k *cfKey) {
	c := &ev.tasks[id]
	c.lastAt = k.at
	c.ord++
	ev.now, ev.nowRef, ev.sub = *k, cfRef{id, c.ord}, 0
	ev.events++
}

// push returns the key of an event at at that the event being processed
// schedules.
func (ev *cfEval) push(at Time) cfKey {
	k := ev.now
	ev.sub++
	return cfKey{at: at, pushed: k.at, ppushed: k.pushed, parent: ev.nowRef, grand: k.parent,
		pfirst: ev.first, gfirst: k.pfirst, sub: ev.sub - 1, psub: k.sub}
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

// cfCosts are a message's LogGOPS costs on one link.
type cfCosts struct {
	link                               *netmodel.LogGP
	bytes                              int64
	sendCPU, sendNIC, recvCPU, recvNIC Time
}

// costs returns the costs of a message of bytes on link. The messages of
// a call mostly have one size, so the last size's are kept.
func (ev *cfEval) costs(link *netmodel.LogGP, bytes int64) *cfCosts {
	c := &ev.last
	if c.link != link || c.bytes != bytes {
		*c = cfCosts{link: link, bytes: bytes, sendCPU: link.SendCPU(bytes), sendNIC: link.SendNIC(bytes),
			recvCPU: link.RecvCPU(bytes), recvNIC: link.RecvNIC(bytes)}
	}
	return c
}

// noEvent is the next event of a task that has none.
const noEvent = Time(math.MaxInt64)

// refresh notes when task id's next event is due.
func (ev *cfEval) refresh(id int32) {
	c := &ev.tasks[id]
	next := noEvent
	if c.resume.at >= 0 {
		next = c.resume.at
	}
	if c.arrivals >= 0 {
		next = min(next, ev.msgs[c.arrivals].key.at)
	}
	ev.next[id] = next
	if next >= ev.end {
		ev.soonest = min(ev.soonest, next) // else due in this window's pass
	}
}

// wake schedules task id's wake-up at at (or now, if earlier), from an
// event at now.
func (ev *cfEval) wake(id int32, at, now Time) {
	c := &ev.tasks[id]
	if c.resume.at >= 0 || at > netmodel.MaxTime {
		ev.failed = true // one wake-up at a time; times past MaxTime overflow
		return
	}
	c.resume = ev.push(max(at, now))
}

// run continues task id's part of the call at time now, as
// Sim.collective does.
func (ev *cfEval) run(id int32, now Time) {
	c := &ev.tasks[id]
	for c.k < c.total {
		if !c.planned {
			st, _ := netmodel.StepAt(ev.spec, ev.alg, int(id), int(c.k))
			c.step = cfStep{sendTo: int32(st.SendTo), recvFrom: int32(st.RecvFrom), sendBytes: st.SendBytes, recvBytes: st.RecvBytes, reduce: st.Reduce}
			c.planned = true
		}
		st := &c.step
		if st.recvFrom >= 0 && !c.recvPosted {
			c.recvPosted = true
			if m := ev.takeUnexpected(c, st.recvFrom); m >= 0 {
				c.stepDone = max(c.stepDone, now, ev.msgs[m].readyAt)
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
			cost := ev.costs(link, st.sendBytes)
			cpu := cost.sendCPU
			c.cpu = now + cpu
			c.snd = now + cost.sendNIC
			c.comm += cpu
			c.msgs++
			c.bytes += st.sendBytes
			ev.send(id, dst, st.sendBytes, now+link.Overhead+link.Latency, now)
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
// event is at at, scheduled at now.
func (ev *cfEval) send(src, dst int32, bytes int64, at, now Time) {
	var m int32
	if n := len(ev.free); n > 0 {
		m = ev.free[n-1]
		ev.free = ev.free[:n-1]
	} else {
		ev.msgs = append(ev.msgs, cfMsg{})
		m = int32(len(ev.msgs) - 1)
	}
	ev.msgs[m] = cfMsg{key: ev.push(at), bytes: bytes, src: src, next: -1, qnext: -1}
	ev.schedule(dst, m)
}

// schedule files message m's event among task id's pending arrivals, in
// queue order.
func (ev *cfEval) schedule(id, m int32) {
	if ev.msgs[m].key.at > netmodel.MaxTime {
		ev.failed = true
		return
	}
	c := &ev.tasks[id]
	k := &ev.msgs[m].key
	p := &c.arrivals
	for *p >= 0 {
		o := k.order(&ev.msgs[*p].key)
		if o == 0 {
			ev.failed = true // the order depends on other tasks' events
			return
		}
		if o < 0 {
			break
		}
		p = &ev.msgs[*p].next
	}
	ev.msgs[m].next = *p
	*p = m
	if id != ev.cur {
		if k.at < ev.end {
			ev.failed = true // cannot happen: a message takes a window to arrive
			return
		}
		ev.refresh(id) // the task being advanced is refreshed when done
	}
}

func (ev *cfEval) release(m int32) { ev.free = append(ev.free, m) }

// takeUnexpected removes and returns the first absorbed message from src,
// or -1.
func (ev *cfEval) takeUnexpected(c *cfTask, src int32) int32 {
	for p := &c.unexpected; *p >= 0; p = &ev.msgs[*p].qnext {
		if m := *p; ev.msgs[m].src == src {
			*p = ev.msgs[m].qnext
			return m
		}
	}
	return -1
}

// arrive handles message m's event at task id at time now, as Sim.arrive
// and Sim.wait do: it waits while the CPU or the receiving NIC is busy,
// behind the messages that came before it, and is then absorbed.
func (ev *cfEval) arrive(id, m int32, now Time) {
	c := &ev.tasks[id]
	free := max(c.cpu, c.rcv)
	switch {
	case c.inbox < 0 && free <= now:
	case c.inbox < 0:
		c.inbox = m
		ev.requeue(id, m, free, now)
		return
	case c.inbox != m:
		// Others wait ahead of it: it joins the end, without an event.
		ev.append(&c.inbox, m)
		return
	case free <= now:
		c.inbox = ev.msgs[m].qnext
		ev.msgs[m].qnext = -1
	default:
		ev.requeue(id, m, free, now)
		return
	}
	cost := ev.costs(ev.link(ev.msgs[m].src, id), ev.msgs[m].bytes)
	cpu := cost.recvCPU
	c.cpu = now + cpu
	c.rcv = now + cost.recvNIC
	c.comm += cpu
	if c.recvWaiting && c.step.recvFrom == ev.msgs[m].src {
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
		ev.msgs[m].readyAt = c.cpu
		ev.append(&c.unexpected, m)
	}
	if c.inbox >= 0 {
		ev.requeue(id, c.inbox, max(now, c.cpu, c.rcv), now)
	}
}

// append adds message m at the end of the list at head.
func (ev *cfEval) append(head *int32, m int32) {
	p := head
	for *p >= 0 {
		p = &ev.msgs[*p].qnext
	}
	ev.msgs[m].qnext = -1
	*p = m
}

// requeue gives message m, first in task id's inbox, its event at at,
// scheduled at now.
func (ev *cfEval) requeue(id, m int32, at, now Time) {
	ev.msgs[m].key = ev.push(at)
	ev.schedule(id, m)
}
