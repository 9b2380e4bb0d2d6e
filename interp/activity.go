package interp

import (
	"fmt"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// p2pOp is a run of identical point-to-point messages with one peer.
type p2pOp struct {
	peer  int32 // processor
	send  bool
	async bool
	count int64
	bytes int64
	tag   int32
}

// collCall is one collective operation among a group of tasks.
type collCall struct {
	op    netmodel.Op
	group *group
	root  int64 // the root's task number (Bcast, Reduce, Gather, Scatter)
	bytes int64
	sizes func(src, dst int) int64 // per-pair sizes for the "v" variants
	times int64                    // how often the call is made, one after another
	tag   int32
}

// activity is a statement in progress: its point-to-point operations in
// order, then its collective calls in order.
type activity struct {
	stmt  ir.Stmt
	ops   []p2pOp
	i     int   // current operation
	k     int64 // messages of ops[i] already issued
	calls []collCall
	ci    int   // current call
	made  int64 // times calls[ci] has completed
	coll  *collState
	stay  bool // belongs to a loop instruction, which runs again when it is done
	// calls is shared with other tasks' activities (see Sim.sharedCall):
	// read it, never write it.
	sharedCalls bool
}

// newActivity returns an empty activity for st, reusing a finished one:
// every task starts one per communication statement.
func (s *Sim) newActivity(st ir.Stmt) *activity {
	var a *activity
	if n := len(s.actPool); n > 0 {
		a = s.actPool[n-1]
		s.actPool = s.actPool[:n-1]
	} else {
		a = &activity{}
	}
	a.stmt = st
	return a
}

// freeActivity returns a to the pool, dropping what it refers to.
func (s *Sim) freeActivity(a *activity) {
	if a == doneActivity || a == issuedActivity || a == faceSending {
		return
	}
	calls := a.calls[:0]
	if a.sharedCalls {
		calls = nil
	} else {
		clear(a.calls)
	}
	*a = activity{ops: a.ops[:0], calls: calls}
	s.actPool = append(s.actPool, a)
}

// nonEmpty returns a, or nil (freeing a) if it has nothing to do.
func (s *Sim) nonEmpty(a *activity) *activity {
	if len(a.ops) == 0 && len(a.calls) == 0 {
		s.freeActivity(a)
		return nil
	}
	return a
}

// endActivity finishes the task's current statement.
func (t *task) endActivity() {
	t.sim.freeActivity(t.act)
	t.act = nil
}

// doneActivity finishes at once; a task that only waits for its CPU (after
// COMPUTE, say) resumes with it.
var doneActivity = &activity{}

// issuedActivity finishes at once, like doneActivity, for a statement
// whose operations are all issued and whose task waits only for its CPU or
// for its one blocking operation (see retire). It is a sentinel of its
// own so that the collective evaluator, which looks at what a waking task
// does next (cfMayWait), decides as it did when the task still held its
// activity.
var issuedActivity = &activity{}

// retire lets task t's activity a go back to the pool while t waits, if a
// has issued all its operations and has no collective calls: nothing then
// reads it again, and when t resumes the statement is done. The next task
// to start a statement reuses a at once, in cache, where otherwise every
// task of an SPMD program would hold an activity and its operations
// between its send and its wake-up, which each of them then fetches
// again from memory (176 bytes a task at 262,144 tasks).
func (a *activity) retire(t *task) {
	if t.act == a && !a.stay && len(a.calls) == 0 && a.i == len(a.ops)-1 && a.k >= a.ops[a.i].count {
		t.sim.freeActivity(a)
		t.act = issuedActivity
	}
}

// collState is a task's progress through one collective call. The plan
// is fetched a window of steps at a time (see netmodel.Planner), so a
// million tasks inside a collective at once hold a few steps each.
type collState struct {
	win        [planWindow]netmodel.Step
	full       []netmodel.Step // the whole plan, when it is long
	base, nwin int32           // win holds steps base..base+nwin-1
	total, k   int32
	recvPosted bool
	sendPosted bool
	reduced    bool
	pending    int32 // operations of the current step not complete
	waiting    bool  // blocked until pending reaches zero
	stepDone   Time  // when the current step's operations completed
}

// run continues the activity; it reports whether the statement is done.
func (a *activity) run(t *task) bool {
	s := t.sim
	if a == faceSending {
		return s.resumeFace(t)
	}
	for a.i < len(a.ops) {
		op := &a.ops[a.i]
		if a.k >= op.count {
			a.i++
			a.k = 0
			continue
		}
		if op.send {
			if at := t.sendReady(); at > s.now {
				s.resumeAt(t, at)
				return false
			}
			mode := modeBlocking
			if op.async {
				mode = modeAsync
				t.issueAsync(ref(a.stmt))
			}
			a.k++
			if s.opts.Observer != nil {
				s.observeP2P(t, op)
			}
			if s.send(t, op.peer, op.bytes, op.tag, true, mode, ref(a.stmt)) && !op.async {
				t.waitOn = waitInfo{kind: waitSend, peer: op.peer, stmt: ref(a.stmt)}
				if s.tl != nil {
					s.blocked(t, 0)
				}
				a.retire(t)
				return false
			}
			if t.cpuFree > s.now {
				s.resumeAt(t, t.cpuFree)
				a.retire(t)
				return false
			}
			continue
		}
		mode := modeBlocking
		if op.async {
			mode = modeAsync
			t.issueAsync(ref(a.stmt))
		}
		req, r := s.newReq(ref(a.stmt))
		r.src, r.tag, r.bytes, r.mode, r.counted = op.peer, op.tag, op.bytes, mode, true
		a.k++
		if s.opts.Observer != nil {
			s.observeP2P(t, op)
		}
		pending, doneAt := s.postRecv(t, req)
		if op.async {
			continue
		}
		if pending {
			t.waitOn = waitInfo{kind: waitRecv, peer: op.peer, stmt: ref(a.stmt)}
			if s.tl != nil {
				s.blocked(t, 0)
			}
			a.retire(t)
			return false
		}
		if doneAt > s.now {
			s.resumeAt(t, doneAt)
			a.retire(t)
			return false
		}
	}
	for a.ci < len(a.calls) {
		if a.coll == nil && s.opts.Observer != nil {
			s.observeCall(t, &a.calls[a.ci])
		}
		if !s.collective(t, a, &a.calls[a.ci]) {
			return false
		}
		if a.coll != nil {
			s.collPool = append(s.collPool, a.coll)
			a.coll = nil
		}
		if a.made++; a.made >= a.calls[a.ci].times {
			a.ci++
			a.made = 0
		}
	}
	return true
}

// collective advances task t through one collective call.
func (s *Sim) collective(t *task, a *activity, call *collCall) bool {
	c := a.coll
	if c == nil {
		spec, alg, rank := s.collSpec(t, call)
		if rank < 0 {
			return true
		}
		if s.cf != nil && s.cfPark(t, a, call, &spec, alg) {
			return false // see collfast.go
		}
		if rank == 0 {
			s.noteCollective(ref(a.stmt), &spec, alg)
		}
		c = s.newCollState()
		n, total, err := s.planner.Window(spec, alg, rank, 0, c.win[:])
		if err == nil && total > maxWindowed {
			c.full, err = netmodel.Plan(spec, alg, rank)
		}
		if err != nil {
			panic(&ir.RuntimeError{Span: a.stmt.Span(), Msg: fmt.Sprintf("%s with the %s algorithm: %v", call.op, alg, err)})
		}
		c.nwin, c.total = int32(n), int32(total)
		a.coll = c
	}
	for c.k < c.total {
		st := s.collStep(t, call, c, c.k)
		if st.RecvFrom >= 0 && !c.recvPosted {
			c.recvPosted = true
			src := s.proc(t, call.group.task(st.RecvFrom))
			req, r := s.newReq(ref(a.stmt))
			r.src, r.tag, r.bytes, r.mode = src, call.tag, st.RecvBytes, modeStep
			if pending, doneAt := s.postRecv(t, req); pending {
				c.pending++
			} else {
				c.stepDone = max(c.stepDone, doneAt)
			}
		}
		if st.SendTo >= 0 && !c.sendPosted {
			if at := t.sendReady(); at > s.now {
				s.resumeAt(t, at)
				return false
			}
			c.sendPosted = true
			dst := s.proc(t, call.group.task(st.SendTo))
			if s.send(t, dst, st.SendBytes, call.tag, false, modeStep, ref(a.stmt)) {
				c.pending++
			} else {
				c.stepDone = max(c.stepDone, t.cpuFree)
			}
		}
		if c.pending > 0 {
			c.waiting = true
			peer := st.RecvFrom
			if peer < 0 {
				peer = st.SendTo
			}
			t.waitOn = waitInfo{kind: waitColl, peer: s.proc(t, call.group.task(peer)), stmt: ref(a.stmt)}
			if s.tl != nil {
				s.blocked(t, call.op)
			}
			return false
		}
		if c.stepDone > s.now {
			s.resumeAt(t, c.stepDone)
			return false
		}
		if st.Reduce > 0 && !c.reduced {
			c.reduced = true
			// Combining reads both operands and writes the result.
			if t.busyFor(s.plat.Machine.Touch(int64(t.id), s.g.NumTasks, satMul(3, st.Reduce)), a.stmt) {
				return false
			}
		}
		c.k++
		c.recvPosted, c.sendPosted, c.reduced, c.stepDone = false, false, false, 0
	}
	return true
}

// issueAsync notes an asynchronous operation that an AWAIT COMPLETION
// must follow.
func (t *task) issueAsync(st stmtRef) {
	p := t.p2p()
	if p.unawaited == 0 {
		p.unawaitedAt = st
	}
	p.unawaited++
}

const (
	planWindow  = 2  // steps fetched at a time
	maxWindowed = 64 // longer plans are fetched whole
)

func (s *Sim) newCollState() *collState {
	if n := len(s.collPool); n > 0 {
		c := s.collPool[n-1]
		s.collPool = s.collPool[:n-1]
		*c = collState{}
		return c
	}
	return &collState{}
}

// collSpec describes call as task t takes part in it: the collective, the
// algorithm and t's rank in it (-1 if none).
func (s *Sim) collSpec(t *task, call *collCall) (spec netmodel.Collective, alg netmodel.Algorithm, rank int) {
	rank = call.group.rank(t.myTask())
	spec = netmodel.Collective{Op: call.op, N: call.group.n, Bytes: call.bytes, Sizes: call.sizes}
	if call.op == netmodel.Bcast || call.op == netmodel.Reduce || call.op == netmodel.Gather || call.op == netmodel.Scatter {
		spec.Root = call.group.rank(call.root)
	}
	alg, ok := s.plat.Collectives[call.op]
	if !ok {
		alg = netmodel.Choose(spec)
	}
	return spec, alg, rank
}

// collStep returns step k of t's plan for call, fetching the window it is
// in.
func (s *Sim) collStep(t *task, call *collCall, c *collState, k int32) *netmodel.Step {
	if c.full != nil {
		return &c.full[k]
	}
	if k < c.base || k >= c.base+c.nwin {
		spec, alg, rank := s.collSpec(t, call)
		n, _, _ := s.planner.Window(spec, alg, rank, int(k), c.win[:])
		c.base, c.nwin = k, int32(n)
	}
	return &c.win[k-c.base]
}

// busyFor occupies the CPU for d within statement st, which continues
// afterwards; it reports whether the task must wait. A d past
// netmodel.MaxTime overflows simulated time.
func (t *task) busyFor(d Time, st ir.Stmt) bool {
	if d <= 0 {
		return false
	}
	if d > netmodel.MaxTime {
		timeOverflow(st.Span(), fmt.Sprintf("a computation of %v", d))
	}
	t.compute += d
	t.cpuFree = t.sim.now + d
	if t.sim.tl != nil {
		t.sim.record(t, spanCompute, t.sim.now, t.cpuFree, ref(st))
	}
	t.sim.resumeAt(t, t.cpuFree)
	return true
}

// collectiveTag keeps each collective statement's messages apart from the
// program's own and from other collectives'; program tags are never this
// negative.
func collectiveTag(stmt ir.Stmt, phase int) int32 {
	return int32(-(1 << 30) - int64(stmt.ID()%(1<<26))*16 - int64(phase))
}
