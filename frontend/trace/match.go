package trace

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Matched is what Match learned about a trace beyond the events it
// emits.
type Matched struct {
	// Wildcards counts the wildcard receives resolved to their sender.
	Wildcards int
	// Unwaited counts, per rank, the nonblocking calls the rank never
	// waited for.
	Unwaited []int
}

// Match runs every rank's calls against the other ranks', the trace
// traversal of seed 000's Algorithm 2 with Algorithm 1's alignment of
// collectives, and calls emit with each rank's events in that rank's
// order. Every wildcard receive is emitted as a copy that names the rank
// whose message it matched, so a program built from them is
// deterministic; other events are the trace's own. emit must not modify
// them.
//
// The traversal moves every rank by one call a round. A blocking
// send blocks until its receive is posted (the rendezvous protocol MPI may
// use for any message), a blocking receive until its message is sent, a
// wait until its requests complete, and a collective, Finalize included,
// until every member of its communicator arrives. Each event is visited
// once, and each wildcard receive costs a round over the ranks: the work
// is O(ranks x (events + wildcard receives) per rank), less the
// iterations of loops it skips once they repeat (see Sink).
//
// A wildcard receive takes no message while any rank can move without it:
// once none can, the message that has waited longest goes to the wildcard
// receive it would reach first under MPI's matching rules (see
// resolveWildcard), so that a traversal's choices do not depend on which
// neighbour happened to run ahead.
//
// If the traversal stops with ranks still blocked, the trace can deadlock
// under some legal MPI execution — the one it was recorded from happened
// not to, or relied on buffering — and Match returns a *DeadlockError
// naming the cycle of ranks, their blocked calls and where in the trace
// they are. It also fails on a send never received, a receive never
// matched, a wait on a request never issued, and collectives that do not
// line up across a communicator.
func Match(t *Trace, emit func(rank int, e *Event)) (*Matched, error) {
	return MatchEager(t, DefaultEager, emit)
}

// DefaultEager is the largest blocking send Match lets complete before its
// receive is posted: 4 KiB, the smallest eager limit of the MPI
// transports Parley's platforms model (Open MPI's shared-memory BTL), so
// that a program lowered from a trace that passes Match runs on every
// platform without deadlock. NAS LU, for one, relies on small blocking
// sends being buffered.
const DefaultEager = 4 << 10

// MatchEager is Match with blocking sends of up to eager bytes completing
// at once, as MPI's eager protocol lets them; larger ones wait for their
// receive. Iterations that the traversal skips (see Sink) are emitted
// event by event, so emit may receive the same *Event more than once.
func MatchEager(t *Trace, eager int64, emit func(rank int, e *Event)) (*Matched, error) {
	// emit cannot take events back, so a traversal that only checks the
	// trace finds the attempt that succeeds (see MatchInto) first.
	sameSize := true
	if _, err := matchOnce(t, eager, true, discard{}); err != nil {
		if _, err2 := matchOnce(t, eager, false, discard{}); err2 != nil {
			return nil, err
		}
		sameSize = false
	}
	return matchOnce(t, eager, sameSize, &replaySink{emit: emit, logs: make([][]*Event, t.NumRanks)})
}

// MatchInto is MatchEager with the matched events going to a Sink, which
// takes the iterations the traversal skips in bulk (Sink.Repeat).
//
// Wildcard receives are first matched only with messages of their own
// size. Tracers lose tags (the shared NAS LU traces record tag 0 where LU
// uses four), and LU then needs the sizes to tell its wildcard receives'
// messages from the ones its explicit receives wait for. If that finds no
// way through the trace, the traversal runs again matching wildcards with
// any size, as MPI does, and MatchInto returns the first attempt's error
// if both fail. newSink gives the sink of each attempt: the events of an
// attempt that failed are to be forgotten.
func MatchInto(t *Trace, eager int64, newSink func() Sink) (*Matched, error) {
	res, err := matchOnce(t, eager, true, newSink())
	if err == nil {
		return res, nil
	}
	if res, err2 := matchOnce(t, eager, false, newSink()); err2 == nil {
		return res, nil
	}
	return nil, err
}

// matchOnce runs one traversal of t into s.
func matchOnce(t *Trace, eager int64, sameSize bool, s Sink) (*Matched, error) {
	m := newMatcher(t, s)
	m.eager, m.sameSize, m.skip = eager, sameSize, true
	return m.run()
}

// request is one nonblocking call in flight.
type request struct {
	done bool
}

// message is a send not yet matched by a receive.
type message struct {
	src, tag int
	req      *request // Isend's request, or nil
	sender   *rankState
	ev       *Event
	seq      int64 // the order in which the traversal sent it
}

// posted is a receive not yet matched by a send.
type posted struct {
	src, tag int
	req      *request
	out      *Event // the emitted copy, whose Peer a wildcard match sets
	ev       *Event
}

// rankState is one rank's traversal. Its maps are made when first
// written: most ranks of a large trace need few of them.
type rankState struct {
	id      int
	events  eventCursor
	cur     *Event // the call the rank is in, or nil to fetch the next one
	done    bool
	asleep  bool             // blocked, and nothing has completed for it since
	issued  int              // nonblocking calls so far
	reqs    map[int]*request // issued index -> request, for those not waited
	waiting []*request       // what a blocked wait needs
	sendReq *request         // a blocking send's completion
	recvReq *request         // a blocking receive's completion
	colls   map[int]int      // collectives entered per communicator
	out     []*Event         // events not yet emitted: a pending receive at the head holds back the rest
	pending map[*Event]bool  // unmatched receives in out with a wildcard source or tag
	unexp   []*message       // sends to this rank that found no receive
	recvs   []*posted        // receives this rank posted that found no send
}

// collective is one collective call being gathered across a communicator.
type collective struct {
	ev      map[int]*Event // rank -> its call
	arrived int
}

type collKey struct{ comm, seq int }

type matcher struct {
	t     *Trace
	sink  Sink
	err   error // the first error the sink returned
	ranks []rankState
	coll  map[collKey]*collective
	res   Matched
	eager int64
	sent  int64        // messages sent so far
	held  map[int]bool // deliverTo's scratch: senders with a message waiting for a wildcard
	// sameSize: a wildcard receive matches only messages of its size.
	sameSize bool
	// skip says whether to skip iterations that repeat (repeat.go); ref
	// is the rank whose iterations time the checkpoints, refWraps
	// its iterations at the last one, mark the last checkpoint and
	// sinceMark the events emitted after it (repeat.go).
	skip      bool
	ref       int
	refWraps  int64
	mark      *checkpoint
	sinceMark int
	ids       map[any]int // encodeState's numbers for the trace's bodies and events
	// issues counts the calls issued; tookAt and tookSize are issues and
	// the state's size at the last checkpoint taken.
	issues, tookAt int64
	tookSize       int
}

func newMatcher(t *Trace, sink Sink) *matcher {
	m := &matcher{t: t, sink: sink, coll: map[collKey]*collective{}, held: map[int]bool{}}
	m.res.Unwaited = make([]int, t.NumRanks)
	m.ref, m.ids = -1, map[any]int{}
	m.ranks = make([]rankState, t.NumRanks)
	for r := range m.ranks {
		m.ranks[r] = rankState{id: r, events: t.cursor(r)}
	}
	return m
}

func (m *matcher) run() (*Matched, error) {
	for {
		progress, alive := false, false
		for i := range m.ranks {
			rs := &m.ranks[i]
			moved, err := m.advance(rs)
			if err != nil {
				return nil, err
			}
			progress = progress || moved
			alive = alive || !rs.done
		}
		if !alive {
			break
		}
		if !progress && !m.resolveWildcard() {
			return nil, m.deadlock()
		}
		if err := m.checkpoint(); err != nil {
			return nil, err
		}
	}
	for m.resolveWildcard() {
	}
	for i := range m.ranks {
		rs := &m.ranks[i]
		if len(rs.unexp) > 0 {
			msg := rs.unexp[0]
			return nil, fmt.Errorf("%s: rank %d's %s was never received by rank %d (%d such messages)", msg.ev.Pos, msg.sender.id, msg.ev, rs.id, len(rs.unexp))
		}
		if len(rs.recvs) > 0 {
			p := rs.recvs[0]
			return nil, fmt.Errorf("%s: rank %d's %s was never matched by a send (%d such receives)", p.ev.Pos, rs.id, p.ev, len(rs.recvs))
		}
		m.res.Unwaited[rs.id] = len(rs.reqs)
		m.flush(rs)
	}
	if m.err != nil {
		return nil, m.err
	}
	return &m.res, nil
}

// advance moves rs by one call, unless it is blocked or finished; it
// reports whether rs moved at all. Moving every rank one call per round,
// rather than each as far as it can go, makes messages meet wildcard
// receives in about the order they met them in the traced run, where the
// ranks ran side by side.
func (m *matcher) advance(rs *rankState) (bool, error) {
	moved := false
	if m.err != nil {
		return false, m.err
	}
	for !rs.done && !rs.asleep && !moved {
		if rs.cur != nil {
			if !m.unblocked(rs) {
				rs.asleep = true
				return moved, nil
			}
			rs.cur = nil
			moved = true
		}
		e := rs.events.next()
		if e == nil {
			rs.done = true
			return true, nil
		}
		moved = true
		if err := m.issue(rs, e); err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// unblocked reports whether rs's current call can complete now.
func (m *matcher) unblocked(rs *rankState) bool {
	e := rs.cur
	switch {
	case e.Op == Send:
		return rs.sendReq.done
	case e.Op == Recv:
		return rs.recvReq.done
	case e.Op == Wait:
		for _, q := range rs.waiting {
			if !q.done {
				return false
			}
		}
		return true
	case e.Op.IsCollective() || e.Op == Finalize:
		c := m.coll[collKey{m.commOf(e), rs.colls[m.commOf(e)] - 1}]
		return c == nil || c.arrived == len(c.ev) && c.arrived == m.commSize(m.commOf(e))
	}
	return true
}

func (m *matcher) commOf(e *Event) int {
	if e.Op == Finalize {
		return 0
	}
	return e.Comm
}

func (m *matcher) commSize(c int) int {
	if c == 0 || c >= len(m.t.Comms) || m.t.Comms[c] == nil {
		return m.t.NumRanks
	}
	return len(m.t.Comms[c])
}

func (m *matcher) inComm(c, r int) bool {
	if c == 0 || c >= len(m.t.Comms) || m.t.Comms[c] == nil {
		return r >= 0 && r < m.t.NumRanks
	}
	for _, x := range m.t.Comms[c] {
		if x == r {
			return true
		}
	}
	return false
}

// issue starts rank rs's call e.
func (m *matcher) issue(rs *rankState, e *Event) error {
	// Only a receive with a wildcard is emitted as a copy of its own,
	// which its match completes; other events are emitted as they are.
	out := e
	if e.Op.IsRecv() && (e.Peer == AnySource || e.Tag == AnyTag) {
		out = new(Event)
		*out = *e
	}
	rs.out = append(rs.out, out)
	m.issues++
	switch {
	case e.Op.IsSend():
		if e.Peer < 0 || e.Peer >= m.t.NumRanks {
			return fmt.Errorf("%s: rank %d sends to rank %d, outside 0..%d", e.Pos, rs.id, e.Peer, m.t.NumRanks-1)
		}
		q := &request{}
		m.send(rs, e, q)
		switch {
		case e.Op == Send && e.Bytes() <= m.eager:
			// Buffered: the send completes whether or not it has matched.
		case e.Op == Send:
			rs.cur, rs.sendReq = e, q
		default:
			m.nonblocking(rs, q)
		}
	case e.Op.IsRecv():
		if e.Peer != AnySource && (e.Peer < 0 || e.Peer >= m.t.NumRanks) {
			return fmt.Errorf("%s: rank %d receives from rank %d, outside 0..%d", e.Pos, rs.id, e.Peer, m.t.NumRanks-1)
		}
		q := &request{}
		m.recv(rs, e, out, q)
		if e.Op == Recv {
			rs.cur, rs.recvReq = e, q
		} else {
			m.nonblocking(rs, q)
		}
	case e.Op == Wait:
		rs.waiting = rs.waiting[:0]
		for _, age := range e.Waits {
			idx := rs.issued - age
			if age < 1 || idx < 0 {
				return fmt.Errorf("%s: rank %d waits for its nonblocking call %d back, but has issued only %d", e.Pos, rs.id, age, rs.issued)
			}
			if q, ok := rs.reqs[idx]; ok {
				rs.waiting = append(rs.waiting, q)
				delete(rs.reqs, idx)
			}
			// A request already waited for is MPI_REQUEST_NULL: the
			// wait returns at once.
		}
		rs.cur = e
	case e.Op.IsCollective() || e.Op == Finalize:
		c := m.commOf(e)
		if !m.inComm(c, rs.id) {
			return fmt.Errorf("%s: rank %d calls %s on a communicator it is not a member of", e.Pos, rs.id, e.Op)
		}
		seq := rs.colls[c]
		if rs.colls == nil {
			rs.colls = map[int]int{}
		}
		rs.colls[c] = seq + 1
		k := collKey{c, seq}
		call := m.coll[k]
		if call == nil {
			call = &collective{ev: map[int]*Event{}}
			m.coll[k] = call
		}
		for r, other := range call.ev {
			if other.Op != e.Op || (e.Op.IsRooted() && other.Root != e.Root) {
				return fmt.Errorf("%s: collective %d on its communicator is %s on rank %d but %s on rank %d (%s); the ranks' collectives do not line up", e.Pos, seq+1, e, rs.id, other, r, other.Pos)
			}
			break
		}
		call.ev[rs.id] = e
		call.arrived++
		if call.arrived == m.commSize(c) {
			delete(m.coll, k)
			for r := range call.ev {
				m.ranks[r].asleep = false
			}
		}
		rs.cur = e
	}
	m.flush(rs)
	return nil
}

// nonblocking records a nonblocking call's request.
func (m *matcher) nonblocking(rs *rankState, q *request) {
	if rs.reqs == nil {
		rs.reqs = map[int]*request{}
	}
	rs.reqs[rs.issued] = q
	rs.issued++
}

// send delivers rs's send e to its destination.
func (m *matcher) send(rs *rankState, e *Event, q *request) {
	dst := &m.ranks[e.Peer]
	dst.unexp = append(dst.unexp, &message{src: rs.id, tag: e.Tag, req: q, sender: rs, ev: e, seq: m.sent})
	m.sent++
	// Only the new message can pair: it takes its first matching receive
	// unless that is a wildcard or an earlier message from rs waits for one.
	i := len(dst.unexp) - 1
	if j := m.firstReceive(dst, dst.unexp[i]); j >= 0 && dst.recvs[j].src != AnySource && !m.heldBefore(dst, i, rs.id) {
		m.pair(dst, i, j)
	}
}

// heldBefore reports whether one of rs's arrived messages before index i,
// from src, waits for a wildcard receive.
func (m *matcher) heldBefore(rs *rankState, i, src int) bool {
	for _, msg := range rs.unexp[:i] {
		if msg.src != src {
			continue
		}
		if j := m.firstReceive(rs, msg); j >= 0 && rs.recvs[j].src == AnySource {
			return true
		}
	}
	return false
}

// recv posts rs's receive e.
func (m *matcher) recv(rs *rankState, e, out *Event, q *request) {
	if e.Peer == AnySource || e.Tag == AnyTag {
		if rs.pending == nil {
			rs.pending = map[*Event]bool{}
		}
		rs.pending[out] = true
	}
	rs.recvs = append(rs.recvs, &posted{src: e.Peer, tag: e.Tag, req: q, out: out, ev: e})
	if e.Peer != AnySource {
		m.deliverTo(rs, len(rs.recvs)-1)
	}
}

// deliverTo gives rs's posted receive j, if it is the first receive that
// matches one of rs's arrived messages, the earliest such message, as MPI
// does — except that messages whose first matching receive is a wildcard
// are left for resolveWildcard, and so are later messages from their
// senders, so that no message overtakes another from the same sender.
func (m *matcher) deliverTo(rs *rankState, j int) bool {
	clear(m.held)
	for i, msg := range rs.unexp {
		if m.held[msg.src] {
			continue
		}
		switch k := m.firstReceive(rs, msg); {
		case k < 0:
		case rs.recvs[k].src == AnySource:
			m.held[msg.src] = true
		case k == j:
			m.pair(rs, i, j)
			return true
		}
	}
	return false
}

// deliver pairs rs's arrived messages with its posted receives, as
// deliverTo does for each of them, until none pairs.
func (m *matcher) deliver(rs *rankState) {
	for j := 0; j < len(rs.recvs); {
		if rs.recvs[j].src == AnySource || !m.deliverTo(rs, j) {
			j++
		}
	}
}

// firstReceive is the index of rs's first posted receive that matches msg,
// or -1.
func (m *matcher) firstReceive(rs *rankState, msg *message) int {
	for j, p := range rs.recvs {
		if m.matches(p, msg.src, msg.tag, msg.ev.Bytes()) {
			return j
		}
	}
	return -1
}

// pair completes rs's posted receive j with its arrived message i.
func (m *matcher) pair(rs *rankState, i, j int) {
	msg, p := rs.unexp[i], rs.recvs[j]
	rs.unexp = slices.Delete(rs.unexp, i, i+1)
	rs.recvs = slices.Delete(rs.recvs, j, j+1)
	msg.req.done = true
	msg.sender.asleep = false
	m.complete(p, msg, rs)
}

// resolveWildcard gives one open wildcard receive its message and reports
// whether there was one to give: of the messages waiting for a wildcard,
// on any rank, the one that has waited longest. The trace does not say
// which message the traced run matched (tracers drop the source and often
// the tag), and choosing only when nothing else can move lets every
// neighbour in a phase of a stencil send first: matching a wildcard as
// soon as a message arrives lets a neighbour that ran ahead into the next
// phase take it, and NAS LU's receives, whose tags the traces lost, then
// change partners from one iteration to the next.
func (m *matcher) resolveWildcard() bool {
	var best *rankState
	bi, bj := 0, 0
	for i := range m.ranks {
		rs := &m.ranks[i]
		if len(rs.pending) == 0 {
			continue
		}
		// Arrived messages are in the order they were sent; the first
		// that waits for a wildcard is the rank's oldest, and no earlier
		// message from its sender waits.
		for i, msg := range rs.unexp {
			j := m.firstReceive(rs, msg)
			if j < 0 || rs.recvs[j].src != AnySource {
				continue
			}
			if best == nil || msg.seq < best.unexp[bi].seq {
				best, bi, bj = rs, i, j
			}
			break
		}
	}
	if best == nil {
		return false
	}
	m.pair(best, bi, bj)
	m.deliver(best)
	return true
}

// matches reports whether receive p takes a message from src with tag and
// size bytes.
func (m *matcher) matches(p *posted, src, tag int, bytes int64) bool {
	if p.tag != AnyTag && p.tag != tag {
		return false
	}
	if p.src == AnySource {
		return !m.sameSize || p.ev.Bytes() == bytes
	}
	return p.src == src
}

// complete finishes receive p, posted by rank rs, with message msg: a
// wildcard source or tag becomes the message's, so that the receive a
// program is built from matches the same message without wildcards.
func (m *matcher) complete(p *posted, msg *message, rs *rankState) {
	p.req.done = true
	rs.asleep = false
	if p.out.Peer == AnySource {
		p.out.Peer = msg.src
		m.res.Wildcards++
	}
	if p.out.Tag == AnyTag {
		p.out.Tag = msg.tag
	}
	if rs.pending[p.out] {
		delete(rs.pending, p.out)
		m.flush(rs)
	}
}

// flush emits rs's events up to the first unresolved wildcard receive.
func (m *matcher) flush(rs *rankState) {
	i := 0
	for ; i < len(rs.out) && !rs.pending[rs.out[i]]; i++ {
		if m.err == nil {
			m.err = m.sink.Event(rs.id, rs.out[i])
		}
		m.sinceMark++
	}
	if i == len(rs.out) {
		rs.out = rs.out[:0]
	} else {
		rs.out = rs.out[i:]
	}
}

// DeadlockError is a potential deadlock found in a trace: a cycle of
// ranks, each blocked in a call that waits for the next.
type DeadlockError struct {
	// Cycle lists the ranks in wait-for order; the last waits for the first.
	// It is empty when the blocked ranks wait for ranks that have finished.
	Cycle []int
	// Blocked describes every blocked rank's call, by rank.
	Blocked map[int]string
}

func (d *DeadlockError) Error() string {
	var b strings.Builder
	if len(d.Cycle) > 0 {
		b.WriteString("potential deadlock in the trace: ")
		for i, r := range d.Cycle {
			fmt.Fprintf(&b, "rank %d %s", r, d.Blocked[r])
			if i < len(d.Cycle)-1 {
				b.WriteString(", while ")
			}
		}
		fmt.Fprintf(&b, "; cycle %s", cycleString(d.Cycle))
		b.WriteString(". The traced run escaped it only through the order its messages happened to arrive in or through MPI buffering; fix the application, or check that the trace is complete")
		return b.String()
	}
	b.WriteString("the trace cannot complete: ")
	ranks := make([]int, 0, len(d.Blocked))
	for r := range d.Blocked {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	for i, r := range ranks {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "rank %d %s", r, d.Blocked[r])
	}
	b.WriteString(". The trace may be truncated or damaged")
	return b.String()
}

func cycleString(c []int) string {
	var parts []string
	for _, r := range c {
		parts = append(parts, fmt.Sprint(r))
	}
	parts = append(parts, fmt.Sprint(c[0]))
	return strings.Join(parts, " -> ")
}

// deadlock describes why no blocked rank can move.
func (m *matcher) deadlock() error {
	waitsFor := map[int][]int{}
	blocked := map[int]string{}
	for i := range m.ranks {
		rs := &m.ranks[i]
		if rs.done || rs.cur == nil {
			continue
		}
		e := rs.cur
		var on []int
		switch {
		case e.Op == Send:
			on = []int{e.Peer}
			blocked[rs.id] = fmt.Sprintf("is blocked in %s (%s) until rank %d posts its receive", e, e.Pos, e.Peer)
		case e.Op == Recv:
			if e.Peer == AnySource {
				for j := range m.ranks {
					o := &m.ranks[j]
					if o != rs && !o.done {
						on = append(on, o.id)
					}
				}
				blocked[rs.id] = fmt.Sprintf("is blocked in %s (%s)", e, e.Pos)
			} else {
				on = []int{e.Peer}
				blocked[rs.id] = fmt.Sprintf("is blocked in %s (%s) until rank %d sends", e, e.Pos, e.Peer)
			}
		case e.Op == Wait:
			peers := m.waitPeers(rs)
			on = peers
			blocked[rs.id] = fmt.Sprintf("is blocked in %s (%s) on messages with ranks %v", e.Op, e.Pos, peers)
		default:
			c := m.coll[collKey{m.commOf(e), rs.colls[m.commOf(e)] - 1}]
			var missing []int
			for r := range m.t.NumRanks {
				if m.inComm(m.commOf(e), r) && (c == nil || c.ev[r] == nil) {
					missing = append(missing, r)
				}
			}
			on = missing
			blocked[rs.id] = fmt.Sprintf("is blocked in %s (%s) until ranks %v join it", e.Op, e.Pos, missing)
		}
		waitsFor[rs.id] = on
	}
	return &DeadlockError{Cycle: findCycle(waitsFor), Blocked: blocked}
}

// waitPeers lists the peers of the requests a blocked wait needs.
func (m *matcher) waitPeers(rs *rankState) []int {
	seen := map[int]bool{}
	var peers []int
	add := func(r int) {
		if !seen[r] {
			seen[r] = true
			peers = append(peers, r)
		}
	}
	for _, q := range rs.waiting {
		if q.done {
			continue
		}
		for _, p := range rs.recvs {
			if p.req == q {
				if p.src == AnySource {
					for i := range m.ranks {
						o := &m.ranks[i]
						if o != rs && !o.done {
							add(o.id)
						}
					}
				} else {
					add(p.src)
				}
			}
		}
		for i := range m.ranks {
			o := &m.ranks[i]
			for _, msg := range o.unexp {
				if msg.req == q {
					add(o.id)
				}
			}
		}
	}
	sort.Ints(peers)
	return peers
}

// findCycle returns a cycle of the wait-for graph among blocked ranks, or
// nil.
func findCycle(g map[int][]int) []int {
	nodes := make([]int, 0, len(g))
	for r := range g {
		nodes = append(nodes, r)
	}
	sort.Ints(nodes)
	state := map[int]int{} // 0 new, 1 on the stack, 2 done
	var stack []int
	var found []int
	var visit func(r int) bool
	visit = func(r int) bool {
		state[r] = 1
		stack = append(stack, r)
		for _, s := range g[r] {
			if _, blocked := g[s]; !blocked {
				continue
			}
			switch state[s] {
			case 1:
				for i, x := range stack {
					if x == s {
						found = append([]int(nil), stack[i:]...)
						return true
					}
				}
			case 0:
				if visit(s) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[r] = 2
		return false
	}
	for _, r := range nodes {
		if state[r] == 0 && visit(r) {
			return found
		}
	}
	return nil
}
