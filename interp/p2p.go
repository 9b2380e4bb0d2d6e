package interp

import (
	"fmt"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// reqMode says whom an operation's completion concerns.
type reqMode uint8

const (
	modeBlocking reqMode = iota // the task waits for this operation alone
	modeAsync                   // counted in the task's asynchronous operations (AWAIT COMPLETION)
	modeStep                    // part of a collective step
)

// recvReq is a posted receive. Requests live in a slab (Sim.reqs) and are
// named by index.
type recvReq struct {
	bytes   int64
	src     int32 // sending processor
	tag     int32
	stmt    stmtRef
	mode    reqMode
	counted bool // a program receive, which updates the message counters
}

// message is a message in flight or waiting, unreceived, at its receiver.
// Messages live in a slab (Sim.msgs) and are named by index.
type message struct {
	bytes      int64
	readyAt    Time  // when a late-posted receive can complete with it; see link
	src, dst   int32 // processors
	tag        int32
	stmt       stmtRef
	recv       int32 // the receive it matched (rendezvous), once it has
	live       bool  // in use, not released
	counted    bool
	rendezvous bool
	sendMode   reqMode // rendezvous: how the sender learns its send completed
}

// A message waiting in a taskQueue has either been matched already or
// not yet reached the unexpected messages, so readyAt is free: it links
// the queue instead, which keeps a message at 40 bytes.

// link returns the index of the message after m in its taskQueue.
func (m *message) link() int32 { return int32(m.readyAt) }

func (m *message) setLink(id int32) { m.readyAt = Time(id) }

// tooMany stops a run that has more messages or receives outstanding than
// an event can name.
func (s *Sim) tooMany(what string, stmt stmtRef) {
	panic(&ir.RuntimeError{Span: s.span(stmt), Msg: fmt.Sprintf("more than %d %s outstanding", maxID, what)})
}

// newReq returns the index of a zeroed receive request in the slab for
// statement stmt, and the request, for the caller to fill in place: a
// request built elsewhere and copied in is copied with wide loads of its
// narrow stores, which the CPU cannot forward from its store buffer, a
// stall on a path every message takes.
func (s *Sim) newReq(stmt stmtRef) (int32, *recvReq) {
	if s.reqs.full() {
		s.checkGrowth(stmt)
	}
	id, ok := s.reqs.alloc()
	if !ok {
		s.tooMany("receives", stmt)
	}
	r := s.reqs.at(id)
	r.stmt = stmt
	return id, r
}

// newMsg is newReq for a message, live.
func (s *Sim) newMsg(stmt stmtRef) (int32, *message) {
	if s.msgs.full() {
		s.checkGrowth(stmt)
	}
	id, ok := s.msgs.alloc()
	if !ok {
		s.tooMany("messages", stmt)
	}
	m := s.msgs.at(id)
	m.stmt, m.live = stmt, true
	return id, m
}

func (s *Sim) freeMsg(id int32) { s.msgs.release(id) }

// msgKey and reqKey are what a message and a posted receive match by: the
// sending processor and the tag.
func (s *Sim) msgKey(id int32) (src, tag int32) { m := s.msgs.at(id); return m.src, m.tag }
func (s *Sim) reqKey(id int32) (src, tag int32) { r := s.reqs.at(id); return r.src, r.tag }

// takePosted removes and returns p's oldest posted receive from processor
// src with tag, or -1. It is posted.take with that receive's usual place,
// the front, tried first and without calling reqKey through a function
// value: every arriving message looks.
func (s *Sim) takePosted(p *p2pState, src, tag int32) int32 {
	if q := p.posted; len(q) > 0 {
		if id := q[0]; s.reqs.at(id).src == src && s.reqs.at(id).tag == tag {
			p.posted.remove(0)
			return id
		}
	}
	return p.posted.take(src, tag, s.reqKey)
}

// link returns the network parameters between two processors.
func (s *Sim) link(a, b int32) *netmodel.LogGP {
	if s.spread && a != b {
		// Two tasks on nodes of their own: the network, found without
		// the two divisions of finding their nodes, twice a message.
		return &s.plat.Network
	}
	return s.plat.LinkTo(int64(a), int64(b), s.g.NumTasks)
}

// msgLink returns the network parameters a message travels by: its
// link's, in the regime of its size.
func (s *Sim) msgLink(m *message) *netmodel.LogGP { return s.link(m.src, m.dst).At(m.bytes) }

// msgCosts are a message's LogGOPS costs on one link.
type msgCosts struct {
	link  *netmodel.LogGP
	bytes int64
	netmodel.Costs
}

// of returns the costs of a message of bytes on link, kept in c: most
// messages have the size of the one before (every face of a halo, every
// message of a collective call), and each cost is a 128-bit product and
// division (netmodel.PerByte.Times).
func (c *msgCosts) of(link *netmodel.LogGP, bytes int64) *msgCosts {
	if c.link != link || c.bytes != bytes {
		*c = msgCosts{link, bytes, link.Costs(bytes)}
	}
	return c
}

// sendReady reports when task t's CPU and NIC allow its next send.
func (t *task) sendReady() Time { return max(t.sim.now, t.cpuFree, t.sendFree) }

// send injects one message from t to processor dst now; the caller has
// made sure t's CPU and NIC are free. It reports whether the send is still
// pending (a rendezvous waits for the receiver); an eager send is complete
// once t's CPU is free again.
func (s *Sim) send(t *task, dst int32, bytes int64, tag int32, counted bool, mode reqMode, stmt stmtRef) (pending bool) {
	// Statements never send negative sizes (ir.Size.Bytes); a collective's
	// arithmetic on huge ones may wrap around.
	if uint64(bytes) > uint64(s.maxBytes) {
		timeOverflow(s.span(stmt), fmt.Sprintf("a message of %d bytes", bytes))
	}
	link := s.link(t.id, dst).At(bytes)
	var cpu Time
	rendezvous := link.Rendezvous(bytes)
	if rendezvous {
		// Send the request; the data follows the receiver's clear-to-send.
		cpu = link.Overhead
		t.sendFree = s.now + link.Gap
		pending = true
		if mode == modeAsync {
			t.p2p().asyncPending++
		}
	} else {
		c := s.costs.of(link, bytes)
		cpu = c.SendCPU
		t.sendFree = s.now + c.SendNIC
	}
	t.cpuFree = s.now + cpu
	t.comm += cpu
	id, m := s.newMsg(stmt)
	m.src, m.dst, m.tag, m.bytes, m.counted = t.id, dst, tag, bytes, counted
	if rendezvous {
		m.rendezvous, m.sendMode = true, mode
	}
	if s.tl != nil {
		s.recordSend(t, id, s.now, t.cpuFree, stmt)
	}
	if at := s.now + link.Overhead; s.net == nil || m.rendezvous || !s.netSend(at, id, link) {
		s.schedule(at+s.latency(link, t.id, dst), makeEvent(evArrive, id))
	}
	if counted {
		p := t.p2p()
		p.cnt.msgsSent++
		p.cnt.bytesSent += bytes
		p.total.msgsSent++
		p.total.bytesSent += bytes
	} else {
		t.total.collMsgs++
		t.total.collBytes += bytes
	}
	return pending
}

// postRecv posts receive req for task t. If a message it matches is
// already waiting the receive may complete at once: then pending is false
// and doneAt says when.
func (s *Sim) postRecv(t *task, req int32) (pending bool, doneAt Time) {
	r := s.reqs.at(req)
	p := t.p2p()
	id := int32(-1)
	if p.unexpected.len() > 0 { // mostly none is waiting: no call then
		id = p.unexpected.take(r.src, r.tag, s.msgKey)
	}
	if id >= 0 {
		m := s.msgs.at(id)
		if !m.rendezvous {
			doneAt = max(s.now, m.readyAt)
			s.freeMsg(id)
			s.recvCounters(t, r)
			s.reqs.release(req)
			return false, doneAt
		}
		// A waiting rendezvous request: clear it to send; the receive
		// completes when the data arrives.
		m.recv = req + 1
		s.schedule(s.now+s.latency(s.msgLink(m), m.dst, m.src), makeEvent(evCTS, id))
		if r.mode == modeAsync {
			p.asyncPending++
		}
		return true, 0
	}
	if r.mode == modeAsync {
		p.asyncPending++
	}
	p.posted.push(req)
	return true, 0
}

// arrive handles a message (or a rendezvous request) reaching its receiver.
func (s *Sim) arrive(id int32) {
	m := s.msgs.at(id)
	r := &s.tasks[m.dst]
	p := r.p2p()
	if m.rendezvous {
		// A request costs the receiver nothing; it waits for a receive.
		if req := s.takePosted(p, m.src, m.tag); req >= 0 {
			m.recv = req + 1
			s.schedule(s.now+s.latency(s.msgLink(m), m.dst, m.src), makeEvent(evCTS, id))
			return
		}
		m.readyAt = s.now
		p.unexpected.push(id)
		return
	}
	// A finished task's CPU does no more work, but an asynchronous receive
	// it never awaited still takes the message.
	free := s.now
	if r.status != done {
		free = max(r.cpuFree, r.recvFree)
	}
	if s.wait(&r.inbox, id, free, evArrive) {
		return
	}
	ready := s.now
	if r.status != done {
		ready = s.absorb(r, m, id)
	}
	if req := s.takePosted(p, m.src, m.tag); req >= 0 {
		s.freeMsg(id)
		s.recvDone(r, req, ready)
	} else {
		m.readyAt = ready
		p.unexpected.push(id)
	}
	s.wakeInbox(r)
}

// taskQueue holds the messages waiting, in arrival order, for a busy
// task's CPU and one direction of its NIC: the eager messages and
// rendezvous data it receives (its inbox) or the clear-to-sends of its
// rendezvous sends (its outbox). Only the first has an event; each
// schedules the next when it is done. Rescheduling every waiting message
// whenever the task's CPU frees, as each would on its own, costs O(n^2)
// events for n messages reaching a busy task.
//
// The queue is a ring linked through the messages (message.link): it
// holds 1 + the index of its last message, whose link is the first; 0
// when empty. One int32 per queue keeps a task small.
type taskQueue int32

// first returns the index of q's first message; q is not empty.
func (s *Sim) first(q taskQueue) int32 { return s.msgs.at(int32(q) - 1).link() }

// wait reports whether message id, whose event of the given kind fires
// now, must wait in q for its task, which is busy until free. A message
// that does not wait leaves q if it was its first; the caller then wakes
// the next one once done with it.
func (s *Sim) wait(q *taskQueue, id int32, free Time, kind eventKind) bool {
	if *q == 0 && free <= s.now {
		return false // the common case, inlined
	}
	return s.queue(q, id, free, kind)
}

// queue is wait's work when q is not empty or the task is busy.
func (s *Sim) queue(q *taskQueue, id int32, free Time, kind eventKind) bool {
	switch {
	case *q == 0:
		s.msgs.at(id).setLink(id)
		*q = taskQueue(id + 1)
	case s.first(*q) != id:
		// Others wait ahead of it: it joins the end, without an event.
		last := s.msgs.at(int32(*q) - 1)
		s.msgs.at(id).setLink(last.link())
		last.setLink(id)
		*q = taskQueue(id + 1)
		return true
	case free <= s.now:
		if int32(*q) == id+1 {
			*q = 0
		} else {
			s.msgs.at(int32(*q) - 1).setLink(s.msgs.at(id).link())
		}
		return false
	}
	s.schedule(free, makeEvent(kind, id))
	return true
}

// wakeInbox gives the first message waiting in r's inbox, if any, its
// event for when r is free again.
func (s *Sim) wakeInbox(r *task) {
	if r.inbox != 0 {
		id := s.first(r.inbox)
		kind := evArrive
		if s.msgs.at(id).rendezvous {
			kind = evData
		}
		s.schedule(max(s.now, r.cpuFree, r.recvFree), makeEvent(kind, id))
	}
}

// wakeOutbox gives the first clear-to-send waiting in t's outbox, if any,
// its event for when t is free again.
func (s *Sim) wakeOutbox(t *task) {
	if t.outbox != 0 {
		s.schedule(max(s.now, t.cpuFree, t.sendFree), makeEvent(evCTS, s.first(t.outbox)))
	}
}

// absorb charges the receiver's CPU and NIC for message id's data and
// returns when the receive is complete.
func (s *Sim) absorb(r *task, m *message, id int32) Time {
	c := s.costs.of(s.msgLink(m), m.bytes)
	cpu := c.RecvCPU
	r.cpuFree = s.now + cpu
	r.recvFree = s.now + c.RecvNIC
	r.comm += cpu
	if s.tl != nil {
		s.recordRecv(r, id, m, s.now, r.cpuFree)
	}
	return r.cpuFree
}

// clearToSend handles a rendezvous clear-to-send reaching the sender: the
// data goes out as soon as the sender's CPU and NIC are free.
func (s *Sim) clearToSend(id int32) {
	m := s.msgs.at(id)
	t := &s.tasks[m.src]
	if s.wait(&t.outbox, id, max(t.cpuFree, t.sendFree), evCTS) {
		return
	}
	link := s.msgLink(m)
	c := s.costs.of(link, m.bytes)
	cpu, wire := c.DataCPU, c.DataWire
	t.cpuFree = s.now + cpu
	t.sendFree = s.now + c.SendNIC
	t.comm += cpu
	if s.tl != nil {
		// The CPU's part: the wire's goes on while the task does other
		// things, or waits.
		s.recordSend(t, id, s.now, t.cpuFree, m.stmt)
	}
	if s.net == nil || !s.netSend(s.now, id, link) {
		s.schedule(s.now+link.Latency, makeEvent(evData, id))
		s.notify(t, m.sendMode, s.now+max(cpu, wire))
	} else {
		m.readyAt = s.now + cpu // for flowDone
	}
	s.wakeOutbox(t)
}

// dataArrive handles a rendezvous message's data reaching the receiver.
func (s *Sim) dataArrive(id int32) {
	m := s.msgs.at(id)
	r := &s.tasks[m.dst]
	if s.wait(&r.inbox, id, max(r.cpuFree, r.recvFree), evData) {
		return
	}
	ready := s.absorb(r, m, id)
	req := m.recv - 1
	s.freeMsg(id)
	s.recvDone(r, req, ready)
	s.wakeInbox(r)
}

// recvDone completes posted receive req of task t at time at.
func (s *Sim) recvDone(t *task, req int32, at Time) {
	r := s.reqs.at(req)
	s.recvCounters(t, r)
	mode := r.mode
	s.reqs.release(req)
	s.notify(t, mode, at)
}

// recvCounters updates the counters for a completed receive: at once for a
// blocking receive, at AWAIT COMPLETION for an asynchronous one.
func (s *Sim) recvCounters(t *task, req *recvReq) {
	if !req.counted {
		t.total.collMsgs++
		t.total.collBytes += req.bytes
		return
	}
	p := t.p2p()
	p.total.msgsRecv++
	p.total.bytesRecv += req.bytes
	if req.mode == modeAsync {
		p.deferredMsgs++
		p.deferredBytes += req.bytes
		return
	}
	p.cnt.msgsRecv++
	p.cnt.bytesRecv += req.bytes
}

// notify tells task t that one of its operations completed at time at.
func (s *Sim) notify(t *task, mode reqMode, at Time) {
	switch mode {
	case modeBlocking:
		if s.tl != nil {
			s.unblocked(t, at)
		}
		t.waitOn = noWait
		s.resumeAt(t, at)
	case modeAsync:
		p := t.pt // made when the operation began
		p.asyncPending--
		p.asyncDone = max(p.asyncDone, at)
		if t.awaiting && p.asyncPending == 0 {
			if s.tl != nil {
				s.unblocked(t, p.asyncDone)
			}
			t.awaiting = false
			t.waitOn = noWait
			s.resumeAt(t, p.asyncDone)
		}
	case modeStep:
		c := t.act.coll
		c.pending--
		c.stepDone = max(c.stepDone, at)
		if c.pending == 0 && c.waiting {
			if s.tl != nil {
				s.unblocked(t, c.stepDone)
			}
			c.waiting = false
			t.waitOn = noWait
			s.resumeAt(t, c.stepDone)
		}
	}
}
