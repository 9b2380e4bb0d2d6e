package lower

import (
	"fmt"
	"slices"
	"sort"
)

// maxAlign bounds the dynamic-programming table of one alignment; longer
// sequences are merged greedily instead.
const maxAlign = 4 << 20

// column is one position of an alignment of classes: the classes that
// take part in it and the index of their item there.
type column struct {
	key     int64
	entries []entry
}

type entry struct {
	ln  *lane
	idx int
}

// itemKey identifies what an item does, for alignment: a symbol by its
// shape, a loop by its count.
func (l *lowerer) itemKey(ln *lane, k int) int64 {
	it := ln.at(k)
	if it.loop != nil {
		return 1<<40 + it.loop.count
	}
	return int64(it.shape)
}

// weight is what matching two items is worth: collectives must line up,
// loops carry their bodies.
func (l *lowerer) weight(ln *lane, k int) int {
	it := ln.at(k)
	switch {
	case it.loop != nil:
		return 4 + len(it.loop.body)
	case l.collective(it.sym):
		return 1 << 16
	}
	return 1
}

// align lines the classes up by progressive alignment: each class's
// sequence is aligned with the columns so far by a longest common
// subsequence of item keys, so that the same calls at the same place in
// different classes become one column. It reports false when the
// sequences are too long for that.
func (l *lowerer) align(lanes []*lane) ([]column, bool) {
	// The busiest class first: on a mesh, the ranks inside do every call
	// that ranks on the edges do, and aligning the others against them
	// gives each call of the pattern one column. Where several classes
	// are busiest, as on a 2 x 2 mesh of corners, each takes a turn
	// first and the alignment with the fewest columns wins.
	lanes = slices.Clone(lanes)
	slices.SortStableFunc(lanes, func(a, b *lane) int { return callCount(b.seqs[0]) - callCount(a.seqs[0]) })
	var best []column
	for k := 0; k < len(lanes) && k < maxFirsts && callCount(lanes[k].seqs[0]) == callCount(lanes[0].seqs[0]); k++ {
		order := append([]*lane{lanes[k]}, slices.Delete(slices.Clone(lanes), k, k+1)...)
		cols, ok := l.alignFrom(order)
		if !ok {
			return nil, false
		}
		if best == nil || len(cols) < len(best) {
			best = cols
		}
	}
	return best, true
}

// maxFirsts bounds how many equally busy classes align takes first.
const maxFirsts = 4

// alignFrom aligns the classes progressively in the order given.
func (l *lowerer) alignFrom(lanes []*lane) ([]column, bool) {
	var cols []column
	for k := 0; k < lanes[0].len(); k++ {
		cols = append(cols, column{key: l.itemKey(lanes[0], k), entries: []entry{{lanes[0], k}}})
	}
	for _, ln := range lanes[1:] {
		m, n := len(cols), ln.len()
		if (m+1)*(n+1) > maxAlign {
			return nil, false
		}
		score := make([]int32, (m+1)*(n+1))
		at := func(i, j int) *int32 { return &score[i*(n+1)+j] }
		for i := m - 1; i >= 0; i-- {
			for j := n - 1; j >= 0; j-- {
				best := max(*at(i+1, j), *at(i, j+1))
				if cols[i].key == l.itemKey(ln, j) {
					best = max(best, *at(i+1, j+1)+int32(l.weight(ln, j)))
				}
				*at(i, j) = best
			}
		}
		var merged []column
		i, j := 0, 0
		for i < m || j < n {
			switch {
			case i < m && j < n && cols[i].key == l.itemKey(ln, j) && *at(i, j) == *at(i+1, j+1)+int32(l.weight(ln, j)):
				c := cols[i]
				c.entries = append(c.entries, entry{ln, j})
				merged = append(merged, c)
				i, j = i+1, j+1
			case j < n && (i == m || *at(i, j) == *at(i, j+1)):
				merged = append(merged, column{key: l.itemKey(ln, j), entries: []entry{{ln, j}}})
				j++
			default:
				merged = append(merged, cols[i])
				i++
			}
		}
		cols = merged
	}
	return cols, true
}

// calls lists a call column's calls, by rank.
func (c column) calls() []call {
	var calls []call
	for _, e := range c.entries {
		for i, r := range e.ln.ranks {
			calls = append(calls, call{rank: r, it: e.ln.seqs[i][e.idx]})
		}
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].rank < calls[j].rank })
	return calls
}

// checkCollectives reports the first collective column that some member
// of its communicator is missing from.
func (l *lowerer) checkCollectives(cols []column) error {
	for _, c := range cols {
		first := c.entries[0]
		if it := first.ln.at(first.idx); it.loop != nil || !l.collective(it.sym) {
			continue
		}
		calls := c.calls()
		ranks := make([]int, len(calls))
		for i, c := range calls {
			ranks[i] = c.rank
		}
		if s := calls[0].it.sym; !slices.Equal(ranks, l.members(l.table[s].comm)) {
			return fmt.Errorf("%s: cannot place %s: only ranks %v reach it at the same point of the program's loops", l.pos[s], l.table[s].op, ranks)
		}
	}
	return nil
}

// build turns aligned columns into statements, merging the bodies of
// aligned loops in turn.
func (l *lowerer) build(cols []column) ([]stmt, error) {
	var out []stmt
	for _, c := range cols {
		first := c.entries[0]
		if it := first.ln.at(first.idx); it.loop != nil {
			var sub []*lane
			for _, e := range c.entries {
				inner := &lane{ranks: e.ln.ranks}
				for _, seq := range e.ln.seqs {
					inner.seqs = append(inner.seqs, seq[e.idx].loop.body)
				}
				sub = append(sub, inner)
			}
			body, err := l.merge(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, stmt{loop: &loopStmt{count: it.loop.count, body: body}})
			continue
		}
		out = append(out, stmt{calls: c.calls()})
	}
	return out, nil
}

// callCount counts the calls written in a folded sequence, a loop's body
// once.
func callCount(seq []*item) int {
	n := 0
	for _, it := range seq {
		if it.loop != nil {
			n += callCount(it.loop.body)
			continue
		}
		n++
	}
	return n
}
