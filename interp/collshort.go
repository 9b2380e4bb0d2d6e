package interp

import "github.com/parley-hpc/parley/netmodel"

// Shortcuts of the collective evaluator. The evaluator processes every
// event of a call in the order the event path would, because the order of
// events at one time can decide what a task does. It cannot when no task
// ever has two events at one time: then each event at a time touches a
// task of its own, schedules nothing at that time (o > 0: a message
// arrives after it is sent; a task's own next event would be its second
// at that time), and the events at one time commute. Each task's part
// then depends on its own events alone, taken in time order, and on when
// the messages sent to it arrive; the order among tasks shows only in the
// order in which the tasks leave the call, which their continuations are
// scheduled in. Both shortcuts check, event by event, that a task's
// events fall at increasing times, and give way to the full evaluation
// (cfAll) at the first that does not.
//
// cfMirror. A recursive-doubling all-reduce over a power of two of
// tasks, entered by tasks in the same state, on links and nodes that are
// all alike, is the same for every task up to a renumbering: task x does
// in round k with x ^ 2^k what task 0 does with 2^k, at the same times.
// So is a dissemination barrier over any number n of tasks, under a
// rotation: task x sends in round k to x + 2^k and receives from x - 2^k
// (mod n) as task 0 does to 2^k and from n - 2^k. What follows is said
// for the XOR; under a rotation read x + d (mod n) for x ^ d.
// So task 0's part is evaluated alone, with the message its peer sends it
// standing in for the one it sends, and its events are counted once per
// task: 61 events to evaluate a million-task all-reduce instead of 64
// million. Every time at which anything happens then holds one event per
// task, all scheduled in one earlier batch. The order in which a batch
// is processed, and so the order in which the tasks leave, is tracked:
// position j of a batch holds task parked[j] ^ order, the first batch
// being the parking order (order 0). An event a task schedules for
// itself (a wake-up, a message waiting for its CPU) keeps its batch's
// order, and a message from x ^ d to x, scheduled in the peer's event, is
// at the peer's position in the sending batch, which XORs the order
// with d.
//
// cfTree. In a binomial broadcast every message goes from a rank to a
// higher one (relative to the root), in a binomial reduce to a lower one.
// The tasks are evaluated one after another in that order, each from its
// parking event to its exit, with its own events alone in the queue: by
// the time a task's turn comes, every message it will receive has been
// sent, and when each arrives is known. Only the order of the exits is
// not the event path's, so the statement's tail must be quiet (see
// quietTail), where that order cannot matter. Each task is written into
// the Sim's task as it leaves, so no part is kept for every task; the
// tasks must enter alike (see cfAlike), so that a tree that gives up
// part-way can set the ones it wrote back.

// cfSymmetric reports whether the call spec, every task parked in it, is
// the same for every task up to a renumbering (see cfMirror above), and
// whether that renumbering is a rotation rather than an XOR.
func (s *Sim) cfSymmetric(spec *netmodel.Collective) (ok, rotate bool) {
	n := len(s.tasks)
	switch {
	case spec.Op == netmodel.Allreduce && n&(n-1) == 0:
		// StepAt's all-reduce is recursive doubling (netmodel.Indexed).
	case spec.Op == netmodel.Barrier:
		rotate = true // dissemination
	default:
		return false, false
	}
	if s.intra() || len(s.plat.Machine.Nodes) != 1 {
		return false, false
	}
	t0 := &s.tasks[0]
	for i := range s.tasks {
		t := &s.tasks[i]
		if t.cpuFree != t0.cpuFree || t.sendFree != t0.sendFree || t.recvFree != t0.recvFree {
			return false, false
		}
	}
	return true, rotate
}

// mirrorTask is the task that stands where task x would in a batch of
// order (cfMirror): x ^ order, or x + order (mod the task count) when the
// renumbering is a rotation.
func (ev *cfEval) mirrorTask(x, order int32) int32 {
	if ev.rotate {
		return int32((int64(x) + int64(order)) % int64(len(ev.s.tasks)))
	}
	return x ^ order
}

// mirrorPeer is, for a message task 0 sends to task d, the task whose
// message to task 0 stands for it (cfMirror): the one that does with 0
// what 0 does with d. d itself under an XOR; -d (mod the task count)
// under a rotation.
func (ev *cfEval) mirrorPeer(d int32) int32 {
	if ev.rotate {
		return int32((int64(len(ev.s.tasks)) - int64(d)) % int64(len(ev.s.tasks)))
	}
	return d
}

// mirror evaluates task 0's part standing for every task's (cfMirror);
// it reports false if it cannot tell the result.
func (ev *cfEval) mirror() bool {
	now := ev.s.now
	if ev.run(0, now); ev.part(0).done || ev.failed {
		return false
	}
	last := now
	for !ev.failed && len(ev.own) > 0 {
		at, e := ev.own.pop()
		if at <= last {
			return false // task 0 has two events at one time
		}
		last = at
		ev.order = ev.wakeOrder
		if e.kind() == evArrive {
			ev.order = ev.msgs.at(e.id()).order
		}
		if ev.step(at, e) {
			// Task 0 leaves in the last batch; nothing may follow it.
			return !ev.failed && len(ev.own) == 0
		}
	}
	return false
}

// treeOrder is +1 if every message of call spec goes from a rank to a
// higher one relative to the root, -1 if to a lower one, 0 if neither
// (see cfTree above).
func treeOrder(spec *netmodel.Collective) int {
	switch spec.Op {
	case netmodel.Bcast:
		return 1 // binomial (netmodel.Indexed)
	case netmodel.Reduce:
		return -1
	}
	return 0
}

// treeTask is the task at position pos of the tree order, and treePos
// its inverse.
func (ev *cfEval) treeTask(pos int) int32 {
	n := len(ev.s.tasks)
	if treeOrder(&ev.spec) < 0 {
		pos = n - 1 - pos
	}
	return int32((pos + ev.spec.Root) % n)
}

func (ev *cfEval) treePos(id int32) int {
	n := len(ev.s.tasks)
	pos := (int(id) - ev.spec.Root + n) % n
	if treeOrder(&ev.spec) < 0 {
		pos = n - 1 - pos
	}
	return pos
}

// cfAlike reports whether every parked task is in task 0's state as far
// as a call and leaving it go: then cfTree can undo what it wrote into
// the tasks by setting them back to that state.
func (s *Sim) cfAlike() bool {
	t0 := &s.tasks[0]
	for i := range s.tasks {
		t := &s.tasks[i]
		if t.cpuFree != t0.cpuFree || t.sendFree != t0.sendFree || t.recvFree != t0.recvFree || t.comm != t0.comm ||
			t.compute != t0.compute || t.total != t0.total || t.waitOn != t0.waitOn {
			return false
		}
	}
	return true
}

// tree evaluates the tasks one after another in tree order (cfTree),
// writing each into the Sim's task as it leaves; it reports false, with
// the tasks as they were, if it cannot tell the result.
func (ev *cfEval) tree() bool {
	s := ev.s
	was := s.tasks[0] // every task's state (see cfAlike)
	if ev.evaluateTree() {
		return true
	}
	for pos := range ev.pos {
		t := &s.tasks[ev.treeTask(pos)]
		t.cpuFree, t.sendFree, t.recvFree, t.comm, t.compute, t.total, t.waitOn = was.cpuFree, was.sendFree, was.recvFree, was.comm, was.compute, was.total, was.waitOn
		t.act = nil // parked
	}
	return false
}

// evaluateTree is tree without the undoing.
func (ev *cfEval) evaluateTree() bool {
	n := len(ev.s.tasks)
	if len(ev.incoming) != n {
		ev.incoming = make([]int32, n)
	}
	for i := range ev.incoming {
		ev.incoming[i] = -1
	}
	now := ev.s.now
	for ev.pos = range n {
		id := ev.treeTask(ev.pos)
		if !ev.start(id) {
			return false
		}
		c := ev.part(id)
		if ev.run(id, now); c.done || ev.failed {
			return false
		}
		// The messages sent to it, each at the time it arrives.
		for m := ev.incoming[id]; m >= 0; {
			msg := ev.msgs.at(m)
			next, at := msg.qnext, msg.readyAt
			msg.qnext, msg.readyAt = -1, 0
			ev.own.push(at, makeEvent(evArrive, m))
			m = next
		}
		last := now
		for !ev.failed && len(ev.own) > 0 {
			at, e := ev.own.pop()
			if at <= last {
				return false // two events of the task at one time
			}
			last = at
			ev.step(at, e)
		}
		if ev.failed || !c.done {
			return false
		}
		ev.leave(id, c)
	}
	return true
}

// sendAhead keeps message m, which arrives at at, for its receiver's turn
// (in its readyAt until then); the receiver's turn must be still to come.
func (ev *cfEval) sendAhead(m int32, at Time) {
	msg := ev.msgs.at(m)
	if ev.treePos(msg.dst) <= ev.pos {
		ev.failed = true
		return
	}
	msg.readyAt = at
	msg.qnext = ev.incoming[msg.dst]
	ev.incoming[msg.dst] = m
}

// cfOwn holds the events of the one task a shortcut evaluates at a time,
// latest first: a few, or a message from each child at a reduce's root.
// Events at one time stay in the order they were pushed, but the
// shortcuts give up on a task with two.
type cfOwn []cfTimed

type cfTimed struct {
	at Time
	e  event
}

func (o *cfOwn) push(at Time, e event) {
	i := len(*o)
	*o = append(*o, cfTimed{})
	for ; i > 0 && (*o)[i-1].at <= at; i-- {
		(*o)[i] = (*o)[i-1]
	}
	(*o)[i] = cfTimed{at, e}
}

func (o *cfOwn) pop() (Time, event) {
	last := (*o)[len(*o)-1]
	*o = (*o)[:len(*o)-1]
	return last.at, last.e
}
