package interp

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// Loop fast-forward (Options.FastForward) skips the remaining iterations
// of a FOR n REPETITIONS loop once they have settled into a period: the
// threshold rule of dPerf applied inside the simulator.
//
// Every task stops (parks) when it reaches the boundary between two
// iterations of a candidate loop. Before any event other than another
// task's wake-up at the same time, the parked tasks go on, in the order
// they parked, at the time they parked, so parking changes neither times
// nor order; a run in which a wake-up did more than park its task is run
// again without parking at that loop (see ffWatch). If every task parked
// at the same time with nothing in flight (the event queue empty: no
// message, no receive, no pending wake-up), the state is a clean cut and
// is recorded. Cuts in a row (at least three) whose task states agree
// relative to the cut's time, whose parking order repeats after m
// iterations (m < ffCuts), with the same period P and the same
// per-iteration growth of every counter (times, messages, bytes, events,
// collective calls) in each iteration, make the loop's future a shift of its present: the
// simulation is deterministic and nothing in the body reads the clock, a
// counter or a random stream (checked when the run starts). The j
// remaining iterations are then skipped by adding jP to every time and j
// times the growth to every counter.
//
// With a bound (Options.FastForwardBound), ffWindow successive periods
// that differ by at most the bound, relative to the shortest, are enough;
// task states need not agree, and bodies may draw random numbers. The prediction is
// then approximate within that bound per skipped iteration, and the
// summary says so.

// ffState is the fast-forward's state; Sim.ff is nil when it is off, so
// the only cost of the feature in a normal run is that nil check.
type ffState struct {
	bound    float64
	loops    map[int32]*ffLoop // candidate loops, by the pc of their Next instruction
	parked   []int32           // parked tasks, in parking order
	pc       int32             // where they parked
	pass     []bool            // by task: released, continue past the boundary once
	queued   int               // events queued when the last task parked
	diverged []int32           // loops whose parking changed the run (see ffWatch)
	notes    []string          // for the summary, before the loops' notes
}

// ffLoop is one candidate loop.
type ffLoop struct {
	stmt     *ir.Repeat
	refused  string   // why fast-forward does not apply, once known
	misses   int      // boundaries in a row that were not clean cuts
	cuts     []*ffCut // the last clean cuts, oldest first (at most ffCuts)
	skipped  int64    // iterations skipped so far
	approx   bool     // a skip was within the bound, not exact
	period   Time     // the period of the last skip
	cutsSeen int64    // clean cuts recorded
	random   bool     // its body draws random numbers (allowed with a bound)
	periods  []Time   // the periods between the last cuts in a row, oldest first (at most ffWindow)
}

// ffCut is the state at a clean cut: every task parked at the boundary at
// time at, nothing in flight.
type ffCut struct {
	at    Time
	order []int32 // the tasks in the order they parked, which is the order they go on
	nev   int64
	left  int64
	tasks []ffTask
	slots []int64
	coll  map[collUseKey]int64
}

// ffTask is one task's part of a cut: its times relative to the cut
// (clamped at 0: a resource free before the cut is free at it), its
// additive figures, and its loop stack.
type ffTask struct {
	rel   [4]Time // cpuFree, sendFree, recvFree, asyncDone
	add   [12]int64
	stack []loopFrame
}

// newFastForward sets up fast-forward for s, marking the loops it may
// skip; loops it never may are noted with the reason.
func (s *Sim) newFastForward() {
	ff := &ffState{bound: s.opts.FastForwardBound, loops: map[int32]*ffLoop{}, pass: make([]bool, len(s.tasks))}
	s.ff = ff
	switch {
	case s.opts.Timeline:
		ff.notes = append(ff.notes, "fast-forward did not apply: a timeline records every event")
		return
	case s.opts.Observer != nil:
		ff.notes = append(ff.notes, "fast-forward did not apply: an observer sees every operation")
		return
	case s.net != nil:
		// A cut does not hold the links' bytes and busy times, so a skip
		// could not advance the network statistics.
		ff.notes = append(ff.notes, "fast-forward did not apply: the network model's link statistics are not extrapolated")
		return
	}
	for pc := range s.code {
		in := &s.code[pc]
		if in.op != opRepeatNext {
			continue
		}
		r := in.stmt.(*ir.Repeat)
		l := &ffLoop{stmt: r, refused: ffStatic(r.Body, false)}
		if l.refused != "" && ff.bound > 0 && ffStatic(r.Body, true) == "" {
			// Random draws are allowed with a bound, but the random
			// streams are no part of a cut: no period is exact.
			l.refused, l.random = "", true
		}
		ff.loops[int32(pc)] = l
		in.ff = l.refused == ""
	}
}

// ffStatic says why a loop's body rules fast-forward out, or "" if it
// does not: what it does must not depend on the clock or differ between
// iterations. random says random draws are allowed (with a bound).
func ffStatic(body ir.Stmt, random bool) string {
	why := ""
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if why != "" || !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] || !v.CanInterface() {
				return
			}
			seen[v.Pointer()] = true
			switch x := v.Interface().(type) {
			case *ir.Globals, *ir.Program:
				return
			case *ir.Output:
				why = "its body OUTPUTS"
			case *ir.Log, *ir.ComputeAggregates:
				why = "its body LOGS (rows would differ per iteration)"
			case *ir.Counters:
				why = "its body resets, stores or restores counters"
			case *ir.CounterRef:
				why = "its body reads a counter"
			case *ir.Timed:
				why = "its body has a timed loop"
			case *ir.Assign:
				why = "its body reassigns processors"
			case *ir.RandomTask:
				if !random {
					why = "its body draws a random task (give a bound: --fast-forward 0.1%)"
				}
			case *ir.Call:
				if x.Func.IsRandom() && !random {
					why = "its body draws random numbers (give a bound: --fast-forward 0.1%)"
				}
			}
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(body))
	return why
}

// park is called when task t reaches the Next instruction at pc of a
// candidate loop. It reports whether t stops there until released.
func (s *Sim) park(t *task, pc int32) bool {
	ff := s.ff
	if ff.pass[t.id] {
		ff.pass[t.id] = false
		return false
	}
	f := &t.stack[len(t.stack)-1]
	if f.phase != phaseMain || f.left == 0 {
		return false // warming up, or the last iteration is done
	}
	if len(ff.parked) > 0 && ff.pc != pc {
		return false // another loop's tasks are parked: this boundary is no cut
	}
	ff.pc = pc
	ff.parked = append(ff.parked, t.id)
	return true
}

// ffMayWait reports whether the parked tasks may stay parked while the
// next event is processed: only while it is another task's wake-up at the
// time they parked, which ffWatch then checks parked it too. Any other
// event would, without parking, have come after the parked tasks went on.
func (s *Sim) ffMayWait() bool {
	if s.q.len() == 0 {
		return false
	}
	at, e := s.q.peek()
	s.ff.queued = s.q.len()
	return at == s.now && e.kind() == evResume
}

// ffWatch checks, after event e was processed while tasks were parked,
// that it did nothing but park its task: had it done more (sent a
// message, woken a task), its effects would come before the parked
// tasks' instead of after them, and the run would no longer be the one
// without fast-forward. Such a run is marked diverged and Run runs it
// again without that loop's fast-forward.
func (s *Sim) ffWatch(e event) {
	ff := s.ff
	if n := len(ff.parked); n > 0 && ff.parked[n-1] == e.id() && s.q.len() == ff.queued-1 {
		return
	}
	if !slices.Contains(ff.diverged, ff.pc) {
		ff.diverged = append(ff.diverged, ff.pc)
	}
}

// ffRelease lets the parked tasks go on, in the order they parked, at the
// time they parked, as they would have without parking. If every task
// parked with nothing in flight it first records the cut, and skips
// iterations if the cuts show a period.
func (s *Sim) ffRelease() {
	ff := s.ff
	l := ff.loops[ff.pc]
	if len(ff.parked) == len(s.tasks) && s.q.len() == 0 {
		l.misses = 0
		s.ffCut(l)
	} else {
		l.cuts, l.periods = l.cuts[:0], l.periods[:0]
		l.misses++
		if l.misses >= 3 {
			why := "the tasks do not reach its iteration boundary at the same time"
			if len(ff.parked) == len(s.tasks) {
				why = "messages or wake-ups are in flight at its iteration boundary"
			}
			s.ffRefuse(ff.pc, l, why)
		}
	}
	parked, pc := ff.parked, ff.pc
	ff.parked = nil // tasks may park at another loop as they go on
	for _, id := range parked {
		ff.pass[id] = true
		s.exec(&s.tasks[id])
		if s.fatal {
			// Without parking the run would have stopped before the
			// events that parked the tasks after this one.
			ff.diverged = append(ff.diverged, pc)
			break
		}
	}
	if ff.parked == nil {
		ff.parked = parked[:0]
	}
}

// runFastForward is Run with fast-forward: it runs the program, and runs
// it again without parking at the loops where parking changed the run
// (see ffWatch), until it did not. OUTPUTS are held back until the run
// that counts.
func (s *Sim) runFastForward() {
	out := s.out
	var held bytes.Buffer
	var refused []int32
	for {
		s.out = bufio.NewWriter(&held)
		s.run()
		if len(s.ff.diverged) == 0 {
			break
		}
		refused = append(refused, s.ff.diverged...)
		fresh, err := New(s.prog, s.opts)
		if err != nil {
			break // New took these options once: it cannot fail now
		}
		for _, pc := range refused {
			fresh.ffRefuse(pc, fresh.ff.loops[pc], "parking its tasks at its iteration boundary would change the run")
		}
		*s = *fresh
		for i := range s.tasks {
			s.tasks[i].sim = s
		}
		held.Reset()
	}
	s.out = out
	s.out.Write(held.Bytes())
	s.out.Flush()
}

// ffRefuse stops fast-forwarding loop l, whose Next instruction is at pc.
func (s *Sim) ffRefuse(pc int32, l *ffLoop, why string) {
	l.refused = why
	l.cuts = nil
	s.code[pc].ff = false
}

// ffCuts is how many clean cuts a loop keeps: enough to see a parking
// order that repeats every ffCuts-1 iterations.
const ffCuts = 5

// ffCut records the clean cut the parked tasks make, and skips the loop's
// remaining iterations if the last cuts show a period.
func (s *Sim) ffCut(l *ffLoop) {
	// The cuts kept must fit beside the run (see checkGrowth).
	per := int64(unsafe.Sizeof(ffTask{})) + int64(len(s.tasks[0].stack))*int64(unsafe.Sizeof(loopFrame{})) + 8*int64(s.prog.NumSlots)
	if all := ffCuts * per * int64(len(s.tasks)); !s.fits(all) {
		s.ffRefuse(s.ff.pc, l, fmt.Sprintf("%d copies of the task state (%s) would pass the memory limit", ffCuts, memlimit.Format(all)))
		return
	}
	c, why := s.ffCapture()
	if why != "" {
		s.ffRefuse(s.ff.pc, l, why)
		return
	}
	if n := len(l.cuts); n > 0 && l.cuts[n-1].left != c.left+1 {
		l.cuts, l.periods = l.cuts[:0], l.periods[:0] // a new entry into the loop
	}
	if len(l.cuts) == ffCuts {
		l.cuts = slices.Delete(l.cuts, 0, 1)
	}
	l.cuts = append(l.cuts, c)
	l.cutsSeen++
	n := len(l.cuts)
	if n > 1 {
		if len(l.periods) == ffWindow {
			l.periods = slices.Delete(l.periods, 0, 1)
		}
		l.periods = append(l.periods, c.at-l.cuts[n-2].at)
	}
	if n < 3 || c.left == 0 {
		return
	}
	b := l.cuts[n-2]
	p := c.at - b.at
	if p <= 0 {
		return
	}
	j := c.left
	order, steady := c.order, false
	if !l.random {
		if m := l.cycle(); m > 0 {
			// The order repeats every m iterations, and so does
			// everything: after j more, it is the one j on.
			order, steady = l.cuts[n-1-m+int(j%int64(m))].order, true
		}
	}
	if !steady {
		if s.ff.bound <= 0 || !l.settled(s.ff.bound) {
			return
		}
		l.approx = true
	}
	if float64(j)*float64(p) > float64(netmodel.MaxTime-c.at) {
		return // past the end of simulated time: let the run report it
	}
	s.ffSkip(b, c, j, p)
	copy(s.ff.parked, order)
	l.skipped += j
	l.period = p
	l.cuts, l.periods = l.cuts[:0], l.periods[:0]
}

// cycle returns the number of iterations m after which the last cuts
// repeat exactly, or 0 if they do not. The tasks go on in the order they
// parked, so the next iteration follows from a cut and its order: if the
// last cut's order is that of m iterations before, and every cut since
// (and at least the last three) has the same relative state, period and
// growth, the loop repeats those m iterations for ever.
func (l *ffLoop) cycle() int {
	n := len(l.cuts)
	last := l.cuts[n-1]
	for m := 1; m <= n-2; m++ {
		if !slices.Equal(l.cuts[n-1-m].order, last.order) {
			continue
		}
		first := n - 1 - max(m, 2)
		if first < 0 {
			return 0
		}
		for i := first; i+2 < n; i++ {
			a, b, c := l.cuts[i], l.cuts[i+1], l.cuts[i+2]
			if b.at-a.at != c.at-b.at || !ffSteady(a, b, c) {
				return 0
			}
		}
		return m
	}
	return 0
}

// ffWindow is how many successive periods must agree within a bound: a
// few equal periods in a row happen by chance when each iteration draws
// its time at random.
const ffWindow = 8

// settled reports whether the last ffWindow periods differ by at most
// bound, relative to the shortest.
func (l *ffLoop) settled(bound float64) bool {
	if len(l.periods) < ffWindow {
		return false
	}
	lo, hi := slices.Min(l.periods), slices.Max(l.periods)
	return lo > 0 && float64(hi-lo) <= bound*float64(lo)
}

// ffCapture records the parked tasks' state, or says why it is no cut.
func (s *Sim) ffCapture() (*ffCut, string) {
	c := &ffCut{at: s.now, nev: s.nev, order: slices.Clone(s.ff.parked), tasks: make([]ffTask, len(s.tasks)), slots: slices.Clone(s.slots)}
	for i := range s.tasks {
		t := &s.tasks[i]
		p := t.pt
		if p != nil && (p.asyncPending != 0 || p.unawaited != 0 || p.deferredMsgs != 0 || p.posted.len() != 0 ||
			p.unexpected.len() != 0) || t.inbox != 0 || t.outbox != 0 {
			return nil, fmt.Sprintf("task %d has communication outstanding at its iteration boundary", i)
		}
		left := t.stack[len(t.stack)-1].left
		if i == 0 {
			c.left = left
		} else if left != c.left {
			return nil, "the tasks are in different iterations"
		}
		rel := func(x Time) Time { return max(0, x-s.now) }
		cnt, tot := t.counts(), t.totals()
		c.tasks[i] = ffTask{
			rel: [4]Time{rel(t.cpuFree), rel(t.sendFree), rel(t.recvFree), rel(t.asyncDone())},
			add: [12]int64{int64(t.compute), int64(t.comm),
				cnt.bytesSent, cnt.bytesRecv, cnt.msgsSent, cnt.msgsRecv,
				tot.msgsSent, tot.msgsRecv, tot.bytesSent, tot.bytesRecv, t.total.collMsgs, t.total.collBytes},
			stack: slices.Clone(t.stack),
		}
	}
	c.coll = make(map[collUseKey]int64, len(s.collUse))
	for k, u := range s.collUse {
		c.coll[k] = u.Calls
	}
	return c, ""
}

// ffSteady reports whether cuts a, b, c (consecutive iterations) show an
// exact period: the same relative task states, variables and loop stacks
// (but for the loop's own count), and the same growth of every counter
// from a to b as from b to c.
func ffSteady(a, b, c *ffCut) bool {
	if b.nev-a.nev != c.nev-b.nev || !slices.Equal(a.slots, c.slots) || !slices.Equal(b.slots, c.slots) {
		return false
	}
	for i := range c.tasks {
		ta, tb, tc := &a.tasks[i], &b.tasks[i], &c.tasks[i]
		if ta.rel != tc.rel || tb.rel != tc.rel || !sameStack(ta.stack, tc.stack) || !sameStack(tb.stack, tc.stack) {
			return false
		}
		for k := range tc.add {
			if tb.add[k]-ta.add[k] != tc.add[k]-tb.add[k] {
				return false
			}
		}
	}
	if len(a.coll) != len(c.coll) || len(b.coll) != len(c.coll) {
		return false
	}
	for k, n := range c.coll {
		if b.coll[k]-a.coll[k] != n-b.coll[k] {
			return false
		}
	}
	return true
}

// sameStack compares loop stacks but for the innermost loop's count.
func sameStack(x, y []loopFrame) bool {
	if len(x) != len(y) {
		return false
	}
	n := len(x) - 1
	return slices.Equal(x[:n], y[:n]) && x[n].warm == y[n].warm && x[n].phase == y[n].phase &&
		x[n].cursor == y[n].cursor && x[n].start == y[n].start && x[n].occ == y[n].occ
}

// ffSkip advances the parked state c by j iterations of period p, each
// growing the counters as from b to c.
func (s *Sim) ffSkip(b, c *ffCut, j int64, p Time) {
	shift := Time(j) * p
	at := s.now + shift
	move := func(x *Time) {
		if *x > s.now {
			*x += shift
		}
	}
	for i := range s.tasks {
		t := &s.tasks[i]
		d := func(k int) int64 { return j * (c.tasks[i].add[k] - b.tasks[i].add[k]) }
		move(&t.cpuFree)
		move(&t.sendFree)
		move(&t.recvFree)
		t.compute += Time(d(0))
		t.comm += Time(d(1))
		// A task without point-to-point state has had no messages and no
		// asynchronous operations: those figures stay zero.
		if p := t.pt; p != nil {
			move(&p.asyncDone)
			p.cnt.bytesSent += d(2)
			p.cnt.bytesRecv += d(3)
			p.cnt.msgsSent += d(4)
			p.cnt.msgsRecv += d(5)
			p.total.msgsSent += d(6)
			p.total.msgsRecv += d(7)
			p.total.bytesSent += d(8)
			p.total.bytesRecv += d(9)
		}
		t.total.collMsgs += d(10)
		t.total.collBytes += d(11)
		t.stack[len(t.stack)-1].left -= j
	}
	for k, u := range s.collUse {
		u.Calls += j * (c.coll[k] - b.coll[k])
	}
	s.nev += j * (c.nev - b.nev)
	s.now = at
}

// ffNotes lists, for the summary, one line per candidate loop that ran:
// what fast-forward skipped, or why it did not apply.
func (s *Sim) ffNotes() []string {
	ff := s.ff
	if ff == nil {
		return nil
	}
	out := slices.Clone(ff.notes)
	pcs := make([]int32, 0, len(ff.loops))
	for pc := range ff.loops {
		pcs = append(pcs, pc)
	}
	slices.Sort(pcs)
	for _, pc := range pcs {
		l := ff.loops[pc]
		at := l.stmt.Span().Start
		switch {
		case l.skipped > 0 && l.approx:
			out = append(out, fmt.Sprintf("fast-forward: the loop at %s skipped %d iterations (period %s, within %g%% per iteration)", at, l.skipped, l.period, 100*ff.bound))
		case l.skipped > 0:
			out = append(out, fmt.Sprintf("fast-forward: the loop at %s skipped %d iterations (period %s, exact)", at, l.skipped, l.period))
		case l.refused != "":
			out = append(out, fmt.Sprintf("fast-forward did not apply to the loop at %s: %s", at, l.refused))
		case l.cutsSeen < 3:
			out = append(out, fmt.Sprintf("fast-forward did not apply to the loop at %s: too few iterations ran in step to show a period", at))
		default:
			out = append(out, fmt.Sprintf("fast-forward did not apply to the loop at %s: it never settled into a period", at))
		}
	}
	return out
}
