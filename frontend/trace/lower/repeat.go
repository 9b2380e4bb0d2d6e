package lower

import (
	"fmt"
	"slices"

	"github.com/parley-hpc/parley/frontend/trace"
)

// The lowerer is the matcher's trace.Sink. When the matcher skips the
// iterations of a loop (trace.Sink.Repeat), each rank's calls since the
// last Mark happen again k times. If the rank is then in the state it was
// in at the Mark (the same computation waiting to be placed, no request
// outstanding), those calls push the same symbols with the same amounts
// again, and the passes take them in bulk: the first pass's compressor
// adds k iterations to the loop it folded them into
// (trace.SymbolCompressor.PushRepeated), and the second pass, whose cursor
// came back to the same place in the folded program one iteration of one
// of its loops on, adds k times each position's computation and moves the
// cursor k iterations on. Otherwise the rank takes the calls again one by
// one.
//
// Sums of computation thus add an iteration's amount times k, where adding
// it k times may differ in the last bits; the program rounds means to
// whole microseconds or flops.

// pushed is one symbol a rank pushed since the matcher's last Mark: its
// computation, and in the second pass the position it went to.
type pushed struct {
	sym    int32
	amount float64
	it     *item
}

// markState is what of a rank's state a repeat compares with the Mark's.
type markState struct {
	pending     float64
	pendingPos  trace.Pos
	outstanding []int // the outstanding calls' ages
	partial     int
	traced      float64
	stack       []frame // the second pass's cursor
}

// Mark starts a block the matcher may repeat (trace.Sink).
func (l *lowerer) Mark() {
	l.dropLogs()
	l.logging = true
	for r, rs := range l.ranks {
		rs.markHere()
		if l.tape != nil {
			l.tape[r].mark = len(l.tape[r].events)
		}
	}
}

// markHere records the rank's state at a Mark.
func (rs *rankState) markHere() {
	rs.mark = markState{pending: rs.pending, pendingPos: rs.pendingPos, outstanding: rs.ages(), partial: rs.partial, traced: rs.traced}
	if rs.cursor != nil {
		rs.mark.stack = append(rs.mark.stack[:0], rs.cursor.stack...)
	}
}

// dropLogs forgets every rank's calls since the last Mark.
func (l *lowerer) dropLogs() {
	for _, rs := range l.ranks {
		rs.events, rs.log = rs.events[:0], rs.log[:0]
	}
	l.logging, l.logged = false, 0
}

// Repeat takes every rank's calls since the last Mark k more times
// (trace.Sink).
func (l *lowerer) Repeat(k int64) error {
	if !l.logging {
		return fmt.Errorf("lower: the matcher repeats calls the lowering did not keep (a bug in parley lower)")
	}
	l.logging = false
	for r, rs := range l.ranks {
		if l.tape != nil {
			tp := &l.tape[r]
			tp.repeats = append(tp.repeats, tapeRepeat{from: tp.mark, at: len(tp.events), k: k})
		}
		if err := l.repeat(r, rs, k); err != nil {
			return err
		}
	}
	l.dropLogs()
	return nil
}

func (l *lowerer) repeat(r int, rs *rankState, k int64) error {
	if len(rs.events) == 0 {
		return nil
	}
	m := &rs.mark
	if l.replay || rs.pending != m.pending || rs.pendingPos != m.pendingPos || !slices.Equal(rs.ages(), m.outstanding) {
		for range k {
			for _, e := range rs.events {
				if err := l.add(r, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	rs.partial += int(k) * (rs.partial - m.partial)
	rs.traced += float64(k) * (rs.traced - m.traced)
	if rs.cursor == nil {
		if len(rs.log) > 0 {
			syms := make([]int32, len(rs.log))
			for i, p := range rs.log {
				syms[i] = p.sym
			}
			rs.comp.PushRepeated(syms, k)
		}
		return nil
	}
	fast := int64(0)
	if d, ok := rs.cursor.oneIterationSince(m.stack); ok {
		fast = min(k, rs.cursor.stack[d].left)
		rs.cursor.stack[d].left -= fast
		for _, p := range rs.log {
			p.it.amount += p.amount * float64(fast)
			p.it.runs += fast
		}
	}
	for range k - fast {
		for _, p := range rs.log {
			if err := l.push(rs, p.sym, p.amount); err != nil {
				return err
			}
		}
	}
	return nil
}

// ages lists the ages of the rank's outstanding calls (1 the latest),
// ascending: a rank whose state is as at a Mark but for the calls issued
// in between takes the same calls the same way.
func (rs *rankState) ages() []int {
	var out []int
	for idx := range rs.outstanding {
		out = append(out, rs.issued-idx)
	}
	slices.Sort(out)
	return out
}

// oneIterationSince reports whether the cursor stands where it stood
// with the stack from, except that one loop, at depth d, has one
// iteration fewer left: the walk from there ran through one iteration of
// that loop's body, and from here the same walk runs through the next.
func (c *cursor) oneIterationSince(from []frame) (d int, ok bool) {
	if len(from) != len(c.stack) {
		return 0, false
	}
	d = -1
	for i, f := range c.stack {
		g := from[i]
		if f.idx != g.idx || len(f.body) != len(g.body) || len(f.body) > 0 && &f.body[0] != &g.body[0] {
			return 0, false
		}
		switch {
		case f.left == g.left:
		case f.left == g.left-1 && d < 0:
			d = i
		default:
			return 0, false
		}
	}
	return d, d >= 0
}

var _ trace.Sink = (*lowerer)(nil)
