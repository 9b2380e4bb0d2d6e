package interp

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/ir"
)

// taskRunBytes is what a task holds while it runs, beyond its own state
// and its messages and receives: the activity of a communication statement
// and its operations, loop frames, queued events and queue entries. halo3d
// on 10^6 tasks peaks at 1.7 kB a task, of which 0.32 kB is the task
// itself with its point-to-point state and 0.45 kB its messages and
// receives.
const taskRunBytes = 1024

// taskBytes estimates the memory of one task of p: its state and variable
// slots, its point-to-point state (which every program that sends a
// message makes), its line in the Result, and what it holds while it runs.
func taskBytes(p *ir.Program) int64 {
	return int64(unsafe.Sizeof(task{})+unsafe.Sizeof(p2pState{})) + 8*int64(p.NumSlots) + int64(unsafe.Sizeof(TaskStats{})) + taskRunBytes
}

// checkTasks refuses a run whose tasks alone would need more memory than
// the limit, or than the machine has whatever the limit (a --max-memory
// above the machine's memory does not make the run fit), before anything
// is allocated for them.
func checkTasks(p *ir.Program, opts Options) (base int64, err error) {
	per := taskBytes(p)
	n := opts.NumTasks
	limit := memlimit.Or(opts.MaxMemory)
	if n > 0 && per > limit/n {
		return 0, memlimit.Refuse("%d tasks need about %s of memory (%s per task), over %s: run fewer tasks",
			n, memlimit.Format(n*per), memlimit.Format(per), memlimit.Describe(opts.MaxMemory))
	}
	if phys, ok := memlimit.Physical(); ok && n > 0 && per > phys/n {
		return 0, memlimit.Refuse("%d tasks need about %s of memory (%s per task), more than this machine's %s: run fewer tasks",
			n, memlimit.Format(n*per), memlimit.Format(per), memlimit.Format(phys))
	}
	return n * per, nil
}

// Every message and posted receive lives in a slab, which grows a chunk at
// a time; a queued event or queue entry comes with each. Checking the
// memory they hold as a slab grows costs nothing on the paths that send
// and receive.
const (
	msgBytes = int64(unsafe.Sizeof(message{})) + 16
	reqBytes = int64(unsafe.Sizeof(recvReq{})) + 8
)

// heldBytes is the memory the run holds beyond its tasks: messages and
// receives, the timeline and the logs' data.
func (s *Sim) heldBytes() int64 {
	n := s.slabBytes() + s.logBytes
	if s.tl != nil {
		n += s.tl.bytes()
	}
	return n
}

// fits reports whether the run stays within its memory limit when what it
// holds (heldBytes) grows by extra bytes. The tasks' share is an estimate
// made before they existed, and it errs high; when the estimate says no,
// the runtime's own count decides, after a collection, and the margin it
// leaves is used without asking again until the held memory has taken half
// of it (so a run near its limit collects a logarithmic number of times).
func (s *Sim) fits(extra int64) bool {
	held := s.heldBytes() + extra
	if s.memBase+held <= s.memLimit || held <= s.memSureUpTo {
		return true
	}
	runtime.GC()
	inUse := memlimit.InUse() + extra
	if inUse > s.memLimit {
		return false
	}
	s.memSureUpTo = held + (s.memLimit-inUse)/2
	return true
}

// slabBytes is the memory the messages' and receives' slabs hold.
func (s *Sim) slabBytes() int64 {
	return (int64(len(s.msgs.chunks))*msgBytes + int64(len(s.reqs.chunks))*reqBytes) * slabChunk
}

// errOverLimit stops the task whose statement would take the run over its
// memory limit; the problem has been recorded by then.
var errOverLimit = &ir.RuntimeError{Msg: "over the memory limit"}

// checkGrowth is called before the message or receive slab grows by a
// chunk for statement stmt. If the messages and receives would then take
// the run over its memory limit, the run stops with a "limit" problem that
// says where they are.
func (s *Sim) checkGrowth(stmt stmtRef) {
	if s.fits(max(msgBytes, reqBytes) * slabChunk) {
		return
	}
	held, timeline := s.slabBytes(), int64(0)
	if s.tl != nil {
		timeline = s.tl.bytes()
	}
	msgs, reqs := s.msgs.live(), s.reqs.live()
	msg := fmt.Sprintf("%d messages in flight or unreceived and %d posted receives hold %s; more would pass %s, with %s for the tasks",
		msgs, reqs, memlimit.Format(held), memlimit.Describe(s.opts.MaxMemory), memlimit.Format(s.memBase))
	if timeline > 0 {
		msg += fmt.Sprintf(" and %s for the timeline", memlimit.Format(timeline))
	}
	if msgs >= reqs {
		worst, most := 0, 0
		for i := range s.tasks {
			if n := s.tasks[i].unexpected(); n > most {
				worst, most = i, n
			}
		}
		msg += fmt.Sprintf("; task %d alone has %d messages it has not received: receive messages sooner, or send fewer before receiving them", worst, most)
	} else {
		msg += ": post fewer receives ahead of their messages"
	}
	s.problem(Problem{Kind: "limit", Task: -1, Span: s.span(stmt), Msg: msg})
	s.fatal = true
	panic(errOverLimit)
}
