package interp

import (
	"fmt"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// A timed loop (FOR n SECONDS ...) must run the same number of iterations
// on every task, or tasks would stop talking to each other part-way. As in
// coNCePTuaL's C backend, tasks time a trial iteration and agree: here each
// task runs one trial iteration (outputs suppressed, counters restored
// afterwards, like a warmup), all tasks agree on the slowest trial time T
// with an all-reduce over every task, and the loop then runs
// max(1, duration/T) iterations, after max(0, warmup/T) warmup iterations
// and the synchronization if asked for.

type agreeKey struct {
	stmt int
	occ  int64
}

// agreement collects the trial times of one entry into a timed loop.
type agreement struct {
	slowest Time
	reads   int64
}

// enter counts t's entries into loop st.
func (t *task) enter(st ir.Stmt) int64 {
	r := t.more()
	if r.entries == nil {
		r.entries = map[int]int64{}
	}
	n := r.entries[st.ID()]
	r.entries[st.ID()] = n + 1
	return n
}

// timedNext advances a timed loop; see repeatNext for the results.
func (t *task) timedNext(tm *ir.Timed) (next, ok bool) {
	s := t.sim
	f := &t.stack[len(t.stack)-1]
	key := agreeKey{tm.ID(), f.occ}
	for {
		switch f.phase {
		case phaseTrial:
			f.phase = phaseTrialRunning
			f.start = s.now
			return true, true
		case phaseTrialRunning:
			a := s.agree[key]
			if a == nil {
				a = &agreement{}
				s.agree[key] = a
			}
			a.slowest = max(a.slowest, s.now-f.start)
			f.phase = phaseAgree
			t.act = s.newActivity(tm)
			t.act.stay = true
			t.act.calls = append(t.act.calls, collCall{op: netmodel.Allreduce, group: s.everyone, bytes: 8, times: 1, tag: collectiveTag(tm, 0)})
			if !t.act.run(t) {
				return false, false
			}
			t.endActivity()
		case phaseAgree:
			// Every task has contributed once the all-reduce completes.
			a := s.agree[key]
			a.reads++
			if a.reads == s.g.NumTasks {
				delete(s.agree, key)
			}
			per := max(a.slowest, 1)
			f.left = max(1, int64(usecs(tm.Amount, tm.Unit, t.frame())/per))
			if tm.Warmup != nil {
				f.warm = int64(usecs(tm.Warmup, tm.WarmupUnit, t.frame()) / per)
			}
			f.phase = phaseWarmup
		default:
			return t.loopNext(f, tm, tm.Sync)
		}
	}
}

// usecs evaluates an amount of a time unit as a duration. A negative
// amount is an error (see ir.Duration); one past netmodel.MaxTime overflows
// simulated time.
func usecs(e ir.Expr, u interface{ Micros() int64 }, f *ir.Frame) Time {
	n := ir.Duration(e, f)
	unit := Time(u.Micros()) * Microsecond
	if n > int64(netmodel.MaxTime/unit) {
		timeOverflow(e.Span(), fmt.Sprintf("a duration of %d times %v", n, unit))
	}
	return Time(n) * unit
}

// barrierAll is the synchronization of AND A SYNCHRONIZATION: a barrier
// over every task.
func (s *Sim) barrierAll(t *task, st ir.Stmt) *activity {
	a := s.newActivity(st)
	a.stay = true
	a.calls = append(a.calls, collCall{op: netmodel.Barrier, group: s.everyone, times: 1, tag: collectiveTag(st, 2)})
	return a
}
