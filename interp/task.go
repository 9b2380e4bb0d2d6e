package interp

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/logfile"
)

type taskStatus uint8

const (
	running taskStatus = iota
	done
)

// msgCounts count a task's program messages (SEND, RECEIVE): since the
// counters were last reset (the predeclared counters) or over the whole
// run. Only tasks with point-to-point state have any (see p2pState).
type msgCounts struct {
	msgsSent, msgsRecv, bytesSent, bytesRecv int64
}

// stored is a saved set of counters with the elapsed time they read then.
type stored struct {
	c       msgCounts
	elapsed Time
}

// loopFrame is the state of one loop a task is inside.
type loopFrame struct {
	left   int64      // iterations left
	warm   int64      // warmup iterations left (FOR ... REPETITIONS)
	phase  loopPhase  // where a loop with warmup is
	cursor *ir.Cursor // FOR EACH
	start  Time       // timed loops: when the trial began
	occ    int64      // timed loops: which entry into the loop this is
}

type loopPhase uint8

const (
	phaseWarmup loopPhase = iota
	phaseSync             // the barrier after the warmup is in progress
	phaseMain
	phaseTrial        // timed loops: the trial iteration is next
	phaseTrialRunning // timed loops: the trial iteration is running
	phaseAgree        // timed loops: agreeing on the number of iterations
)

// task is one task's whole state. A million of them must fit, so fields
// are ordered to pack and the rarely used ones live in rare. Its variable
// slots live in Sim.slots, and it holds no ir.Frame (see frame).
type task struct {
	sim   *Sim
	act   *activity // the statement in progress, when it takes several steps
	rare  *taskRare // nil until needed
	pt    *p2pState // nil until the task takes part in point-to-point messages
	stack []loopFrame

	cpuFree, sendFree, recvFree Time // when the CPU and the NIC's two directions are next free
	compute, comm               Time // time spent computing and in message overheads
	finish                      Time

	start Time                                // when the counters were last reset: elapsed_usecs is now minus start
	total struct{ collMsgs, collBytes int64 } // messages inside collectives, over the whole run

	id, pc    int32
	waitOn    waitInfo  // what the task is blocked on, for deadlock reports
	inbox     taskQueue // messages waiting for the CPU and the receiving NIC
	outbox    taskQueue // clear-to-sends waiting for the CPU and the sending NIC
	status    taskStatus
	awaiting  bool // blocked in AWAIT COMPLETION
	awaitSeen bool // the Observer has been told of the AWAIT COMPLETION the task is blocked in
}

// p2pState is a task's state for point-to-point messages (those of the
// collectives the event path expands included) and asynchronous
// operations. It is made on first use: tasks that only compute, or whose
// collectives the collective evaluator takes, hold 8 bytes instead of 176
// (its allocation).
type p2pState struct {
	posted     matchQueue // posted receives (Sim.reqs) not yet matched, in posting order
	unexpected matchQueue // messages (Sim.msgs) that arrived before their receive, in arrival order

	cnt, total msgCounts // the program's counters, and its whole-run totals

	asyncDone                   Time    // when the last asynchronous operation completed
	deferredMsgs, deferredBytes int64   // asynchronous receives, counted at AWAIT COMPLETION
	asyncPending                int32   // asynchronous operations not yet complete
	unawaited                   int32   // asynchronous operations issued since the last AWAIT COMPLETION
	unawaitedAt                 stmtRef // the first of them

	face faceMsg // the send a face waits to make while the task holds faceSending
}

// faceMsg is the one send of a face whose task waits for its CPU or NIC
// before making it, kept so that resuming does not work it out again.
type faceMsg struct {
	bytes    int64
	dst, tag int32
}

// p2p returns t's point-to-point state, making it on first use.
func (t *task) p2p() *p2pState {
	if t.pt == nil {
		t.pt = &p2pState{}
	}
	return t.pt
}

// asyncPending is how many of t's asynchronous operations are not yet
// complete.
func (t *task) asyncPending() int32 {
	if t.pt == nil {
		return 0
	}
	return t.pt.asyncPending
}

// counts are t's counters of program messages (see msgCounts).
func (t *task) counts() msgCounts {
	if t.pt == nil {
		return msgCounts{}
	}
	return t.pt.cnt
}

// totals are t's whole-run program messages.
func (t *task) totals() msgCounts {
	if t.pt == nil {
		return msgCounts{}
	}
	return t.pt.total
}

// asyncDone is when t's last asynchronous operation completed.
func (t *task) asyncDone() Time {
	if t.pt == nil {
		return 0
	}
	return t.pt.asyncDone
}

// unexpected is how many messages arrived at t before their receive and
// still wait for it.
func (t *task) unexpected() int {
	if t.pt == nil {
		return 0
	}
	return t.pt.unexpected.len()
}

// taskRare is the state few tasks or few programs need.
type taskRare struct {
	stored  []stored      // STORE THEIR COUNTERS, and warmup brackets
	mapv    *mapping      // the task-to-processor mapping this task sees; nil: identity
	entries map[int]int64 // how often the task has entered each timed loop
	log     *taskLog
	streams *ir.Streams // the task's random streams, once it has drawn

	suppress int32 // > 0 inside warmup repetitions: OUTPUTS and LOGS do nothing
}

// quiet reports whether t is inside warmup repetitions, where OUTPUTS and
// LOGS do nothing.
func (t *task) quiet() bool { return t.rare != nil && t.rare.suppress > 0 }

// frame returns t's view for expressions. A frame is 80 bytes, which a
// million tasks would each hold for little: the Sim keeps one, filled for
// the task it last served, and a task keeps only its random streams, in
// rare, once it has drawn from them. A frame stays t's until the Sim fills
// it for another task, so callers use it at once and keep no frame across
// work for other tasks (a frame to keep is a Clone).
func (t *task) frame() *ir.Frame {
	s := t.sim
	if s.frameOf == t {
		return &s.frame
	}
	s.releaseFrame()
	s.frameOf = t
	// Field by field, not as a composite literal: that one is built on the
	// stack and copied, and the copy's wide loads of narrow stores stall
	// (store forwarding fails) on every switch of task, some 5% of a
	// point-to-point run's CPU.
	f := &s.frame
	f.G = s.g
	f.Slots = t.slots()
	f.Task = int64(t.id)
	f.Counters = t
	f.Procs = nil
	f.Streams = nil
	if r := t.rare; r != nil {
		if r.mapv != nil {
			f.Procs = r.mapv
			f.Task = int64(r.mapv.p2v[t.id])
		}
		f.Streams = r.streams
	}
	return f
}

// releaseFrame ends the frame's service to its task: streams a draw made
// in it go to the task, and the next frame call fills it afresh.
func (s *Sim) releaseFrame() {
	if t := s.frameOf; t != nil && s.frame.Streams != nil && (t.rare == nil || t.rare.streams == nil) {
		t.more().streams = s.frame.Streams
	}
	s.frameOf = nil
}

// slots are t's variable slots.
func (t *task) slots() []int64 {
	n := t.sim.prog.NumSlots
	i := int(t.id)
	return t.sim.slots[i*n : (i+1)*n : (i+1)*n]
}

// myTask is MY TASK, t's number, which a reassignment of processors
// changes (see assign.go).
func (t *task) myTask() int64 {
	if t.rare != nil && t.rare.mapv != nil {
		return int64(t.rare.mapv.p2v[t.id])
	}
	return int64(t.id)
}

// more returns the task's rare state, making it on first use.
func (t *task) more() *taskRare {
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	return t.rare
}

// Counter implements ir.CounterSource. bit_errors is always 0: the
// simulated network corrupts nothing.
func (t *task) Counter(c ir.Counter) float64 {
	cnt := t.counts()
	switch c {
	case ir.ElapsedUsecs:
		return (t.sim.now - t.start).Micros()
	case ir.BytesSent:
		return float64(cnt.bytesSent)
	case ir.BytesReceived:
		return float64(cnt.bytesRecv)
	case ir.TotalBytes:
		return float64(cnt.bytesSent + cnt.bytesRecv)
	case ir.MsgsSent:
		return float64(cnt.msgsSent)
	case ir.MsgsReceived:
		return float64(cnt.msgsRecv)
	case ir.TotalMsgs:
		return float64(cnt.msgsSent + cnt.msgsRecv)
	}
	return 0
}

// maxSteps is how many instructions a task runs before it yields.
const maxSteps = 1 << 12

// execute runs the task until it must wait or ends.
func (t *task) execute() {
	s := t.sim
	if t.act != nil {
		if !t.act.run(t) {
			return
		}
		stay := t.act.stay
		t.endActivity()
		if !stay {
			t.pc++
		}
	}
	for steps := 0; ; steps++ {
		if steps == maxSteps {
			// Let other events run, and let --max-events stop a task
			// that loops without communicating.
			s.resumeAt(t, s.now)
			return
		}
		in := &s.code[t.pc]
		switch in.op {
		case opEnd:
			t.endTable()
			t.status = done
			t.finish = max(s.now, t.cpuFree)
			return
		case opTable:
			t.endTable()
		case opSimple:
			if !t.simple(in.stmt) {
				return
			}
		case opIf:
			if !in.stmt.(*ir.If).Cond.Holds(t.frame()) {
				t.pc = in.target
				continue
			}
		case opJump:
			t.pc = in.target
			continue
		case opLet:
			t.let(in.stmt.(*ir.Let))
		case opRepeat:
			r := in.stmt.(*ir.Repeat)
			f := loopFrame{left: r.Count.Int(t.frame()), phase: phaseMain}
			if r.Warmup != nil || r.Sync {
				if r.Warmup != nil {
					f.warm = r.Warmup.Int(t.frame())
				}
				f.phase = phaseWarmup
				t.beginWarmup()
			}
			t.stack = append(t.stack, f)
		case opRepeatNext, opTimedNext:
			var next, ok bool
			if in.ff && s.park(t, t.pc) {
				return
			}
			if in.op == opRepeatNext {
				next, ok = t.repeatNext(in.stmt.(*ir.Repeat))
			} else {
				next, ok = t.timedNext(in.stmt.(*ir.Timed))
			}
			if !ok {
				return
			}
			if !next {
				t.stack = t.stack[:len(t.stack)-1]
				t.pc = in.target
				continue
			}
		case opEach:
			t.stack = append(t.stack, loopFrame{cursor: ir.NewCursor(in.stmt.(*ir.ForEach).Ranges)})
		case opEachNext:
			e := in.stmt.(*ir.ForEach)
			v, ok := t.stack[len(t.stack)-1].cursor.Next(t.frame())
			if !ok {
				t.stack = t.stack[:len(t.stack)-1]
				t.pc = in.target
				continue
			}
			t.slots()[e.Slot] = v
		case opTimed:
			t.stack = append(t.stack, loopFrame{phase: phaseTrial, occ: t.enter(in.stmt)})
			t.beginWarmup()
		}
		t.pc++
	}
}

// beginWarmup starts a stretch whose outputs are suppressed and whose
// counter changes are undone: coNCePTuaL brackets warmup repetitions
// between a store and a restore of the counters.
func (t *task) beginWarmup() {
	t.more().suppress++
	t.store()
}

func (t *task) endWarmup() {
	t.rare.suppress--
	t.restore()
}

func (t *task) store() {
	r := t.more()
	r.stored = append(r.stored, stored{c: t.counts(), elapsed: t.sim.now - t.start})
}

// restore winds the counters back to the last store: elapsed time reads
// what it read then.
func (t *task) restore() {
	r := t.rare
	n := len(r.stored)
	st := r.stored[n-1]
	r.stored = r.stored[:n-1]
	if t.pt != nil || st.c != (msgCounts{}) {
		t.p2p().cnt = st.c
	}
	t.start = t.sim.now - st.elapsed
}

// repeatNext advances a FOR ... REPETITIONS loop; see loopNext.
func (t *task) repeatNext(r *ir.Repeat) (next, ok bool) {
	return t.loopNext(&t.stack[len(t.stack)-1], r, r.Sync)
}

// loopNext advances a loop with warmups: the warmup repetitions, then the
// synchronization if asked for, then the counted repetitions. It returns
// next=true to run the body again, and ok=false if the task must wait (for
// the synchronization).
func (t *task) loopNext(f *loopFrame, st ir.Stmt, sync bool) (next, ok bool) {
	for {
		switch f.phase {
		case phaseWarmup:
			if f.warm > 0 {
				f.warm--
				return true, true
			}
			if sync {
				f.phase = phaseSync
				t.act = t.sim.barrierAll(t, st)
				if !t.act.run(t) {
					return false, false
				}
				t.endActivity()
			}
			f.phase = phaseMain
			t.endWarmup()
		case phaseSync:
			// Resumed after the barrier completed.
			f.phase = phaseMain
			t.endWarmup()
		case phaseMain:
			if f.left > 0 {
				f.left--
				return true, true
			}
			return false, true
		default:
			panic("loopNext: a timed loop's trial phase")
		}
	}
}

// let binds a LET statement's values.
func (t *task) let(l *ir.Let) {
	for _, b := range l.Bindings {
		switch {
		case b.Value != nil:
			t.slots()[b.Slot] = b.Value.Int(t.frame())
		case b.Random != nil:
			t.slots()[b.Slot] = t.randomTask(b.Random)
		}
	}
}

// randomTask draws A RANDOM TASK from the stream every task shares, so all
// tasks agree; -1 if no task qualifies.
func (t *task) randomTask(r *ir.RandomTask) int64 {
	n := t.sim.g.NumTasks
	lo, hi := int64(0), n-1
	exclude := int64(-1)
	switch r.Kind {
	case lang.RandomOtherThan:
		exclude = r.X.Int(t.frame())
	case lang.RandomLessThan:
		hi = min(hi, r.X.Int(t.frame())-1)
	case lang.RandomGreaterThan:
		lo = max(lo, r.X.Int(t.frame())+1)
	case lang.RandomIn:
		lo, hi = max(lo, r.X.Int(t.frame())), min(hi, r.Y.Int(t.frame()))
	}
	if r.ButNot != nil {
		exclude = r.ButNot.Int(t.frame())
	}
	count := hi - lo + 1
	if exclude >= lo && exclude <= hi {
		count--
	}
	// Draw even when nothing qualifies, so the shared stream stays in step.
	draw := t.frame().SyncRand().Uint64()
	if count <= 0 {
		return -1
	}
	v := lo + int64(draw%uint64(count))
	if exclude >= lo && exclude <= hi && v >= exclude {
		v++
	}
	return v
}

// simple executes a simple statement. It returns false when the task must
// wait; the statement is then finished by t.act (or re-run, for AWAIT
// COMPLETION) when the task resumes.
func (t *task) simple(st ir.Stmt) bool {
	s := t.sim
	f := t.frame()
	me := f.Task
	switch st := st.(type) {
	case *ir.Assert:
		if !st.Cond.Holds(f) {
			s.problem(Problem{Kind: "assertion", Task: int64(t.id), Span: st.Span(),
				Msg: fmt.Sprintf("assertion failed on task %d: %s", t.id, st.Msg)})
			s.fatal = true
			return false
		}
		return true
	case *ir.Output:
		if !t.quiet() && st.Tasks.Contains(f, me, -1) {
			s.out.WriteString(t.items(st.Items))
			s.out.WriteByte('\n')
		}
		return true
	case *ir.BackendExec:
		// The interpreter has no backend code to run.
		return true
	case *ir.Log:
		if !t.quiet() && st.Tasks.Contains(f, me, -1) && s.opts.Logs {
			t.logRow(st)
		}
		return true
	case *ir.ComputeAggregates:
		if !t.quiet() && st.Tasks.Contains(f, me, -1) && t.rare != nil && t.rare.log != nil {
			t.rare.log.flush(s.code[t.pc].table)
		}
		return true
	case *ir.Counters:
		if st.Tasks.Contains(f, me, -1) {
			t.counterOp(st)
		}
		return true
	case *ir.Delay:
		if !st.Tasks.Contains(f, me, -1) {
			return true
		}
		d := usecs(st.Amount, st.Unit, f)
		if !st.Sleep {
			d = s.plat.Machine.ComputeFor(int64(t.id), s.g.NumTasks, d)
		}
		if s.opts.Observer != nil {
			s.observeBusy(t, d, -1, st.Sleep)
		}
		return t.busy(d, st)
	case *ir.Work:
		if !st.Tasks.Contains(f, me, -1) {
			return true
		}
		flops := ir.Count(st.Flops, f)
		d := s.plat.Machine.Work(int64(t.id), s.g.NumTasks, flops, st.Memory.Bytes(f))
		if s.opts.Observer != nil {
			s.observeBusy(t, d, flops, false)
		}
		return t.busy(d, st)
	case *ir.Touch:
		if !st.Tasks.Contains(f, me, -1) {
			return true
		}
		d := s.plat.Machine.Touch(int64(t.id), s.g.NumTasks, touchBytes(st, f))
		if s.opts.Observer != nil {
			s.observeBusy(t, d, -1, false)
		}
		return t.busy(d, st)
	case *ir.TouchBuffer, *ir.Assign:
		// Buffers are not modelled; processor reassignment is handled by
		// the mapping functions (see assign.go).
		if a, ok := st.(*ir.Assign); ok {
			s.assign(t, a)
		}
		return true
	case *ir.Await:
		if !st.Tasks.Contains(f, me, -1) {
			return true
		}
		if s.opts.Observer != nil {
			s.observeAwait(t, t.asyncPending() > 0)
		}
		p := t.pt
		if p == nil {
			return true
		}
		if p.asyncPending > 0 {
			t.awaiting = true
			t.waitOn = waitInfo{kind: waitAwait, stmt: ref(st)}
			if s.tl != nil {
				s.blocked(t, 0)
			}
			return false
		}
		p.unawaited, p.unawaitedAt = 0, noStmt
		p.cnt.msgsRecv += p.deferredMsgs
		p.cnt.bytesRecv += p.deferredBytes
		p.deferredMsgs, p.deferredBytes = 0, 0
		return true
	}
	// Communication: statements that may take several steps.
	if st, ok := st.(*ir.Send); ok && s.isFace(st) {
		if finished, ok := s.face(t, st); ok {
			return finished
		}
	}
	a := s.communicate(t, st)
	if a == nil {
		s.tookNoPart()
		return true
	}
	t.act = a
	if !a.run(t) {
		return false
	}
	t.endActivity()
	return true
}

// tookNoPart goes on after a communication statement the task takes no
// part in: tasks parked at it go first (see collfast.go).
func (s *Sim) tookNoPart() {
	if s.cf != nil && len(s.cf.parked) > 0 {
		s.cfRelease()
	}
}

// busy occupies the CPU for d for statement st; st is done when the task
// resumes.
func (t *task) busy(d Time, st ir.Stmt) bool {
	if t.busyFor(d, st) {
		t.act = doneActivity
		return false
	}
	return true
}

// touchBytes is the memory traffic of a TOUCHES statement: every touch
// reads and writes one item. Traffic beyond int64 is MaxInt64, whose cost
// overflows simulated time.
func touchBytes(st *ir.Touch, f *ir.Frame) int64 {
	region := st.Region.Bytes(f)
	word := int64(4)
	var n int64
	if st.Count != nil {
		word = ir.UnitBytes(st.CountType, f.G)
		n = ir.Count(st.Count, f)
	} else {
		stride := int64(1)
		if st.Stride == lang.StrideExplicit {
			stride = max(1, st.StrideX.Int(f)*ir.UnitBytes(st.StrideType, f.G)/word)
		}
		n = region / word / stride
	}
	if st.Repeat != nil {
		n = satMul(n, ir.Count(st.Repeat, f))
	}
	return satMul(satMul(2, n), word)
}

// satMul is a*b for a, b >= 0, or MaxInt64 if that overflows.
func satMul(a, b int64) int64 {
	if hi, lo := bits.Mul64(uint64(a), uint64(b)); hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return a * b
}

func (t *task) counterOp(st *ir.Counters) {
	s := t.sim
	switch st.Op {
	case lang.ResetCounters:
		t.start = s.now
		if t.pt != nil {
			t.pt.cnt = msgCounts{}
		}
	case lang.StoreCounters:
		t.store()
	case lang.RestoreCounters:
		if t.rare == nil || len(t.rare.stored) == 0 {
			s.problem(Problem{Kind: "runtime", Task: int64(t.id), Span: st.Span(),
				Msg: fmt.Sprintf("task %d restores its counters more often than it stores them", t.id)})
			s.fatal = true
			return
		}
		t.restore()
	}
}

// items renders OUTPUTS items: expressions in floating-point context with
// ten significant digits, as coNCePTuaL's C backend prints them.
func (t *task) items(items []*ir.Item) string {
	var b strings.Builder
	for _, it := range items {
		switch {
		case it.X != nil:
			b.WriteString(logfile.Number(it.X.Float(t.frame())))
		case it.ValueOf:
			b.WriteString(t.sim.logComment(it.Str))
		default:
			b.WriteString(it.Str)
		}
	}
	return b.String()
}
