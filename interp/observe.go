package interp

import "github.com/parley-hpc/parley/netmodel"

// Observer receives every task's MPI-level operations as the task issues
// them, for exporters such as codegen/tit. Set it in Options.Observer.
//
// Operations are reported per processor (rank), which is the MPI rank of an
// equivalent MPI program: a task's processor is its task number unless the
// program reassigns tasks (ARE ASSIGNED TO). Each rank's operations arrive
// in the order the rank issues them; calls for different ranks interleave
// in simulated-time order. An operation is reported when it is issued,
// whether or not it completes, so a run that deadlocks reports what each
// task had issued up to the deadlock, the blocked operation included.
// Warmup repetitions are reported like any others: their messages are sent.
//
// The methods run on the simulator's goroutine, inside the event loop; they
// must not call back into the Sim. Slices and functions they are given are
// valid only during the call.
type Observer interface {
	// Send reports a send of bytes from rank to processor peer with tag:
	// MPI_Send, or MPI_Isend if async (completed by a later Await). A
	// message sent n times is reported n times.
	Send(rank, peer, bytes int64, tag int32, async bool)
	// Recv reports a receive posted by rank for a message from processor
	// peer: MPI_Recv, or MPI_Irecv if async.
	Recv(rank, peer, bytes int64, tag int32, async bool)
	// Await reports AWAIT COMPLETION: rank waits for all its asynchronous
	// operations not yet awaited (MPI_Waitall).
	Await(rank int64)
	// Collective reports rank entering one collective call, once per call
	// (a call repeated n times is reported n times), not once per step of
	// its algorithm. c describes it in group ranks as netmodel.Plan takes it:
	// the operation, the group size c.N, the root's group rank c.Root, the
	// bytes per member c.Bytes and, for the "v" forms, c.Sizes. members maps
	// group ranks to processors, or is nil when group rank i is processor i
	// for every processor (MPI_COMM_WORLD); me is rank's own group rank. alg
	// is the algorithm the interpreter runs the call with, and tag the tag
	// its point-to-point steps carry (a negative tag no program uses).
	Collective(rank int64, c netmodel.Collective, alg netmodel.Algorithm, members []int64, me int, tag int32)
	// Compute reports rank's CPU busy for d of simulated time: COMPUTES FOR
	// (scaled by the node's speed), COMPUTES n FLOPS (flops is n; d is the
	// roofline time of the flops and memory traffic) and TOUCHES. flops is
	// -1 when the statement names no flop count.
	Compute(rank int64, d netmodel.Duration, flops int64)
	// Sleep reports SLEEPS FOR d.
	Sleep(rank int64, d netmodel.Duration)
}

// observeP2P reports a point-to-point operation t issues now.
func (s *Sim) observeP2P(t *task, op *p2pOp) {
	if op.send {
		s.opts.Observer.Send(int64(t.id), int64(op.peer), op.bytes, op.tag, op.async)
	} else {
		s.opts.Observer.Recv(int64(t.id), int64(op.peer), op.bytes, op.tag, op.async)
	}
}

// observeCall reports t entering collective call.
func (s *Sim) observeCall(t *task, call *collCall) {
	spec, alg, me := s.collSpec(t, call)
	g := call.group
	var members []int64
	mapped := t.rare != nil && t.rare.mapv != nil
	switch {
	case mapped:
		members = make([]int64, g.n)
		for i := range members {
			members[i] = int64(s.proc(t, g.task(i)))
		}
	case !g.all:
		members = g.members
	}
	s.opts.Observer.Collective(int64(t.id), spec, alg, members, me, call.tag)
}

// observeAwait reports an AWAIT COMPLETION once, whether or not the task
// waits in it: waiting says it is about to block (the statement then runs
// again when the task resumes).
func (s *Sim) observeAwait(t *task, waiting bool) {
	if !t.awaitSeen {
		s.opts.Observer.Await(int64(t.id))
	}
	t.awaitSeen = waiting
}

// observeBusy reports a computation or sleep of d.
func (s *Sim) observeBusy(t *task, d Time, flops int64, sleep bool) {
	if sleep {
		s.opts.Observer.Sleep(int64(t.id), d)
		return
	}
	s.opts.Observer.Compute(int64(t.id), d, flops)
}
