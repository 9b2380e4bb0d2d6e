package trace

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
)

// Skipping iterations.
//
// A compressed trace spends most of its events in a few loops, and the
// traversal is deterministic: if its whole state recurs, it goes on as it
// did from the first time. So after every round in which a reference rank
// (the first one inside a top-level loop) has begun a new iteration, the
// matcher takes a checkpoint of its state, leaving out only the counts that
// grow with every iteration (iterations left, site executions, collectives
// and nonblocking calls so far, send order). If the state equals the last
// checkpoint's, every rank has run one iteration of one of its loops (or
// stood still) and each site's executions in between are a whole number of
// its parameter cycles, then the next stretch issues the same calls and
// matches them the same way, down to each wildcard's sender: the matcher
// moves every rank's counts on by as many stretches as all the loops
// involved have left, and the sink takes each rank's events since the
// last checkpoint that many times again (Sink.Repeat). Ranks need not be
// at the start of an iteration, nor the network empty: a pipeline whose
// ranks are iterations apart, with messages in flight between them,
// recurs all the same. The order and the choices are those of matching
// every call; matching costs the trace's size and about two iterations of
// each loop rather than its expanded event count.

// Sink takes the matched events of every rank, in each rank's order.
type Sink interface {
	// Event takes rank's next event: the trace's, or for a receive with
	// a wildcard the matcher's copy naming the sender and tag it matched.
	// The sink may keep it but must not modify it. An error stops the
	// traversal, and Match returns it.
	Event(rank int, e *Event) error
	// Mark starts a block: Repeat may follow, before the next Mark.
	Mark()
	// Repeat says that every rank's events since the last Mark happen k
	// more times, in order, before its next event. The events since a
	// Mark Repeat refers to are at most MaxRepeatBlock in all, summed over
	// the ranks: a sink may stop keeping them past that.
	Repeat(k int64) error
}

// MaxRepeatBlock bounds the events, summed over the ranks, between a
// Sink's Mark and a Repeat.
const MaxRepeatBlock = 1 << 22

// discard is the Sink of a traversal that only checks the trace.
type discard struct{}

func (discard) Event(int, *Event) error { return nil }
func (discard) Mark()                   {}
func (discard) Repeat(int64) error      { return nil }

// replaySink hands every event to emit, repeating a block's events as
// often as Repeat says.
type replaySink struct {
	emit    func(int, *Event)
	logs    [][]*Event // per rank, the events since the last Mark
	logged  int
	logging bool
}

func (s *replaySink) Event(r int, e *Event) error {
	if s.logging {
		s.logs[r] = append(s.logs[r], e)
		if s.logged++; s.logged > MaxRepeatBlock {
			s.dropLogs()
		}
	}
	s.emit(r, e)
	return nil
}

func (s *replaySink) dropLogs() {
	for r := range s.logs {
		s.logs[r] = nil
	}
	s.logged, s.logging = 0, false
}

func (s *replaySink) Mark() {
	s.dropLogs()
	s.logging = true
}

func (s *replaySink) Repeat(k int64) error {
	if !s.logging {
		return errors.New("trace: a repeat of events not kept (a bug in the matcher)")
	}
	for r, log := range s.logs {
		for range k {
			for _, e := range log {
				s.emit(r, e)
			}
		}
	}
	s.dropLogs()
	return nil
}

// checkpoint is the traversal's state at a checkpoint, as much as the
// next one compares.
type checkpoint struct {
	state     []byte // encodeState's
	ranks     []rankMark
	wildcards int
}

// rankMark is what of one rank's state a checkpoint keeps beside the
// encoded state: its loops' iterations left, its sites' executions, its
// collectives and nonblocking calls so far.
type rankMark struct {
	lefts  []int64
	runs   map[*Site]int64
	colls  map[int]int
	issued int
}

// takeRatio bounds the work of checkpoints: one is taken only if the
// calls matched since the last, times takeRatio, outweigh that one's
// encoded state in bytes, so that checkpoints cost at most about as much
// as the matching they may save.
const takeRatio = 64

// checkpoint is called after every round of the traversal. Each time the
// reference rank has begun a new iteration of a top-level loop it
// compares the state with the last checkpoint's: if it recurs one
// iteration on, the iterations that every rank has left are skipped, and
// otherwise the state becomes the new mark.
func (m *matcher) checkpoint() error {
	if !m.skip {
		return nil
	}
	if m.ref < 0 || m.ranks[m.ref].done || len(m.ranks[m.ref].events.stack) < 2 {
		m.mark, m.ref = nil, -1
		for i := range m.ranks {
			if rs := &m.ranks[i]; !rs.done && len(rs.events.stack) >= 2 {
				m.ref, m.refWraps = i, rs.events.wraps
				break
			}
		}
		return nil
	}
	if w := m.ranks[m.ref].events.wraps; w == m.refWraps {
		return nil
	} else {
		m.refWraps = w
	}
	if (m.issues-m.tookAt)*takeRatio < int64(m.tookSize) {
		// The last state was large next to the calls matched since: a
		// checkpoint now would cost more than matching, as when thousands
		// of messages wait for one wildcard receive per iteration.
		m.mark = nil
		return nil
	}
	cp := m.take()
	if cp == nil {
		m.mark = nil
		return nil
	}
	if k := m.repeats(cp); k > 0 {
		m.skipAhead(cp, k)
		m.mark = nil
		return m.sink.Repeat(k)
	}
	m.mark = cp
	m.sinceMark = 0
	m.sink.Mark()
	return nil
}

// take records the traversal's state, or returns nil if a collective is
// under way (its key counts collectives from the start).
func (m *matcher) take() *checkpoint {
	if len(m.coll) > 0 {
		return nil
	}
	cp := &checkpoint{ranks: make([]rankMark, len(m.ranks)), wildcards: m.res.Wildcards}
	cp.state = m.encodeState()
	m.tookAt, m.tookSize = m.issues, len(cp.state)
	for i := range m.ranks {
		rs := &m.ranks[i]
		lefts := make([]int64, len(rs.events.stack))
		for j, f := range rs.events.stack {
			lefts[j] = f.left
		}
		cp.ranks[i] = rankMark{lefts: lefts, runs: maps.Clone(rs.events.runs), colls: maps.Clone(rs.colls), issued: rs.issued}
	}
	return cp
}

// encodeState writes down everything of the traversal's state that
// decides how it goes on, but for the counts that grow with every
// iteration (loop iterations left, site executions, collectives and
// nonblocking calls so far, the messages' send order): each rank's place
// in its calls, its current call, its open requests by age, its events
// not yet emitted, the messages that reached it unreceived and the
// receives it posted, with requests numbered in the order met and
// messages ranked by send order.
func (m *matcher) encodeState() []byte {
	var b []byte
	flag := func(f bool) {
		if f {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	reqs := map[*request]int{}
	req := func(q *request) {
		if q == nil {
			b = binary.AppendVarint(b, -1)
			return
		}
		id, ok := reqs[q]
		if !ok {
			id = len(reqs)
			reqs[q] = id
		}
		b = binary.AppendVarint(b, int64(id))
		flag(q.done)
	}
	ptr := func(p any) { b = binary.AppendUvarint(b, uint64(m.id(p))) }
	var seqs []int64
	for i := range m.ranks {
		for _, msg := range m.ranks[i].unexp {
			seqs = append(seqs, msg.seq)
		}
	}
	slices.Sort(seqs)
	event := func(e *Event) {
		b = appendEventKey(b, e)
		b = append(b, e.Pos.File...)
		b = binary.AppendVarint(b, int64(e.Pos.Line))
	}
	// call writes an arrived message or a posted receive.
	call := func(src, tag int, q *request, e *Event) {
		b = binary.AppendVarint(b, int64(src))
		b = binary.AppendVarint(b, int64(tag))
		req(q)
		ptr(e)
	}
	for i := range m.ranks {
		rs := &m.ranks[i]
		b = append(b, '|')
		if rs.done {
			b = append(b, 'd')
			continue
		}
		for _, f := range rs.events.stack {
			if len(f.body) > 0 {
				ptr(&f.body[0])
			}
			b = binary.AppendVarint(b, int64(len(f.body)))
			b = binary.AppendVarint(b, int64(f.i))
		}
		b = append(b, ';')
		b = m.appendPhases(b, rs.events.runs)
		b = append(b, ';')
		ptr(rs.cur)
		if rs.cur != nil {
			switch rs.cur.Op {
			case Send:
				req(rs.sendReq)
			case Recv:
				req(rs.recvReq)
			case Wait:
				for _, q := range rs.waiting {
					req(q)
				}
			}
		}
		b = append(b, ';')
		open := slices.Sorted(maps.Keys(rs.reqs))
		for _, idx := range open {
			b = binary.AppendVarint(b, int64(rs.issued-idx))
			req(rs.reqs[idx])
		}
		b = append(b, ';')
		for _, e := range rs.out {
			event(e)
			flag(rs.pending[e])
		}
		b = append(b, ';')
		for _, msg := range rs.unexp {
			call(msg.src, msg.tag, msg.req, msg.ev)
			j, _ := slices.BinarySearch(seqs, msg.seq)
			b = binary.AppendVarint(b, int64(j))
		}
		b = append(b, ';')
		for _, p := range rs.recvs {
			call(p.src, p.tag, p.req, p.ev)
			event(p.out)
			b = binary.AppendVarint(b, int64(slices.Index(rs.out, p.out)))
		}
	}
	return b
}

// id numbers the trace's bodies, events and sites for encodeState.
func (m *matcher) id(p any) int {
	id, ok := m.ids[p]
	if !ok {
		id = len(m.ids)
		m.ids[p] = id
	}
	return id
}

// appendPhases appends where each site with several events is in its
// cycle, by the sites' numbers.
func (m *matcher) appendPhases(b []byte, runs map[*Site]int64) []byte {
	phases := make([][2]int64, 0, len(runs))
	for s, n := range runs {
		phases = append(phases, [2]int64{int64(m.id(s)), n % int64(len(s.Events))})
	}
	slices.SortFunc(phases, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	for _, p := range phases {
		b = binary.AppendVarint(b, p[0])
		b = binary.AppendVarint(b, p[1])
	}
	return b
}

// repeats is the number of times the stretch since the last checkpoint
// can be skipped from cp: 0 unless cp's state is the mark's, every rank's
// loops as many iterations on as they were, but for one loop per rank
// with one iteration fewer left (the state holds where each site is in its
// cycle).
func (m *matcher) repeats(cp *checkpoint) int64 {
	if m.mark == nil || m.sinceMark > MaxRepeatBlock || !bytes.Equal(cp.state, m.mark.state) {
		return 0
	}
	k := int64(-1)
	for i := range m.ranks {
		now, was := &cp.ranks[i], &m.mark.ranks[i]
		d := -1
		for j := range now.lefts {
			switch {
			case now.lefts[j] == was.lefts[j]:
			case now.lefts[j] == was.lefts[j]-1 && d < 0:
				d = j
			default:
				return 0
			}
		}
		if d < 0 {
			continue // the rank did nothing in between
		}
		if k < 0 || now.lefts[d] < k {
			k = now.lefts[d]
		}
	}
	return max(k, 0)
}

// skipAhead moves every rank k stretches on, as matching them would.
func (m *matcher) skipAhead(cp *checkpoint, k int64) {
	m.res.Wildcards += int(k) * (m.res.Wildcards - m.mark.wildcards)
	for i := range m.ranks {
		rs, now, was := &m.ranks[i], &cp.ranks[i], &m.mark.ranks[i]
		for j := range now.lefts {
			rs.events.stack[j].left -= k * (was.lefts[j] - now.lefts[j])
		}
		for s, n := range rs.events.runs {
			rs.events.runs[s] = n + k*(n-was.runs[s])
		}
		for c, n := range rs.colls {
			rs.colls[c] = n + int(k)*(n-was.colls[c])
		}
		if shift := int(k) * (rs.issued - was.issued); shift > 0 {
			rs.issued += shift
			reqs := make(map[int]*request, len(rs.reqs))
			for idx, q := range rs.reqs {
				reqs[idx+shift] = q
			}
			rs.reqs = reqs
		}
	}
}
