package lower

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// eachStmt is FOR EACH i IN {1, ..., count} body: a run of blocks that do
// the same calls with values (message sizes, peers) that change from one
// block to the next.
type eachStmt struct {
	count int64
	body  []stmt
}

// variation is how a statement in a FOR EACH body changes with i: the
// pre-rendered message (or operand) and peer, empty when constant, and a
// computation's mean over every iteration.
type variation struct {
	msg  string
	peer string
	mean float64
}

// eachVar is the FOR EACH loop variable. Rerolled bodies hold only calls,
// so these loops never nest and one name serves them all.
const eachVar = "i"

// maxBlock is the longest block reroll looks for, which keeps it
// quadratic at worst in the length of a body.
const maxBlock = 64

// maxRuns is the most constant stretches one value may have in a FOR EACH
// body before it is written as separate statements instead.
const maxRuns = 4

// unit is one block of a candidate run: statements and how many times in
// a row they run.
type unit struct {
	stmts []stmt
	reps  int64
	taken int  // statements of the enclosing body it stands for
	loop  bool // written as FOR reps REPETITIONS { stmts }
}

// lines is how many lines the block takes as written.
func (u unit) lines() int {
	if u.loop {
		return len(u.stmts) + 2
	}
	return len(u.stmts)
}

// reroll rewrites body, inner loops first, so that a run of blocks that
// differ only in their values becomes one FOR EACH loop whose values are
// expressions of the loop variable: "values that vary per iteration" of
// the issue, which per-rank folding cannot express because it folds only
// identical calls. A run qualifies when it saves lines.
func (l *lowerer) reroll(body []stmt) []stmt {
	for i := range body {
		if lp := body[i].loop; lp != nil {
			lp.body = l.reroll(lp.body)
		}
	}
	var out []stmt
	for j := 0; j < len(body); {
		best, bestUsed, bestGain := stmt{}, 0, 0
		for size := 1; size <= min(len(body)-j, maxBlock); size++ {
			st, used, gain := l.rerollAt(body[j:], size)
			if gain > bestGain {
				best, bestUsed, bestGain = st, used, gain
			}
		}
		if bestUsed == 0 {
			out = append(out, body[j])
			j++
			continue
		}
		out = append(out, best)
		j += bestUsed
	}
	return out
}

// rerollAt tries the longest run of blocks of size statements at the
// start of body, and returns it as a FOR EACH statement, the number of
// body's statements it replaces and the lines it saves.
func (l *lowerer) rerollAt(body []stmt, size int) (stmt, int, int) {
	var blocks []unit
	used, lines := 0, 0
	for used < len(body) {
		u, ok := unitAt(body[used:], size)
		if !ok || len(blocks) > 0 && !l.sameSkeleton(blocks[0].stmts, u.stmts) {
			break
		}
		blocks = append(blocks, u)
		used += u.taken
		lines += u.lines()
	}
	// Drop blocks from the end until the values fit an expression; a run
	// must keep two blocks and save a line.
	for ; len(blocks) >= 2 && lines > size+2; blocks = blocks[:len(blocks)-1] {
		if st, ok := l.rerolled(blocks); ok {
			return st, used, lines - (size + 2)
		}
		last := blocks[len(blocks)-1]
		used -= last.taken
		lines -= last.lines()
	}
	return stmt{}, 0, 0
}

// unitAt reads one block of size call statements at the start of body:
// a loop whose body is such a block, or size statements in a row. It
// returns the block and how many of body's statements it takes.
func unitAt(body []stmt, size int) (unit, bool) {
	if lp := body[0].loop; lp != nil {
		if len(lp.body) != size || !allCalls(lp.body) {
			return unit{}, false
		}
		return unit{stmts: lp.body, reps: lp.count, taken: 1, loop: true}, true
	}
	if len(body) < size || !allCalls(body[:size]) {
		return unit{}, false
	}
	return unit{stmts: body[:size], reps: 1, taken: size}, true
}

func allCalls(body []stmt) bool {
	for _, st := range body {
		if st.calls == nil || st.vary != nil {
			return false
		}
	}
	return true
}

// sameSkeleton reports whether two blocks make the same calls on the same
// ranks, up to message sizes, peers and computation.
func (l *lowerer) sameSkeleton(a, b []stmt) bool {
	for k := range a {
		ca, cb := a[k].calls, b[k].calls
		if len(ca) != len(cb) {
			return false
		}
		sa, sb := l.table[ca[0].it.sym], l.table[cb[0].it.sym]
		if sa.op != sb.op || sa.tag != sb.tag || sa.comm != sb.comm || sa.root != sb.root || sa.counts != sb.counts {
			return false
		}
		// A v-collective's statement writes its sizes per member, not per
		// iteration: they must not change.
		vcoll := sa.op == trace.Gatherv || sa.op == trace.Scatterv || sa.op == trace.Allgatherv || sa.op == trace.Alltoallv || sa.op == trace.ReduceScatter
		for i := range ca {
			if ca[i].rank != cb[i].rank || vcoll && ca[i].it.sym != cb[i].it.sym {
				return false
			}
		}
	}
	return true
}

// rerolled builds the FOR EACH statement for blocks, or reports that some
// value has no expression short enough.
func (l *lowerer) rerolled(blocks []unit) (stmt, bool) {
	var total int64
	for _, u := range blocks {
		total += u.reps
	}
	body := make([]stmt, len(blocks[0].stmts))
	for k := range body {
		st := blocks[0].stmts[k]
		s := l.table[st.calls[0].it.sym]
		v := &variation{}
		if s.op == trace.Compute {
			sum := 0.0
			for _, u := range blocks {
				sum += float64(u.reps) * stmtMean(u.stmts[k])
			}
			v.mean = sum / float64(total)
		} else {
			var ok bool
			if v.msg, ok = l.varyingMessage(blocks, k); !ok {
				return stmt{}, false
			}
			if s.op.IsP2P() {
				if v.peer, ok = l.varyingPeer(blocks, k); !ok {
					return stmt{}, false
				}
			}
		}
		body[k] = stmt{calls: st.calls, vary: v}
	}
	return stmt{each: &eachStmt{count: total, body: body}}, true
}

// stmtMean is a compute statement's computation per run: the mean of its
// ranks' means, which keeps the statement's total.
func stmtMean(st stmt) float64 {
	sum := 0.0
	for _, c := range st.calls {
		sum += c.it.mean()
	}
	return sum / float64(len(st.calls))
}

// varyingMessage renders position k's message or reduction operands as an
// expression of the loop variable, or "" when they do not change.
func (l *lowerer) varyingMessage(blocks []unit, k int) (string, bool) {
	// Sizes that differ between ranks are the statement's to write, as an
	// expression of t; they may not also change from block to block.
	perRank := func(u unit) ([]int64, bool) {
		var sizes []int64
		uniform := true
		for _, c := range u.stmts[k].calls {
			s := l.table[c.it.sym]
			sizes = append(sizes, s.count, s.size)
			uniform = uniform && s.count == sizes[0] && s.size == sizes[1]
		}
		return sizes, uniform
	}
	if first, uniform := perRank(blocks[0]); !uniform {
		for _, u := range blocks[1:] {
			if sizes, _ := perRank(u); !slices.Equal(sizes, first) {
				return "", false
			}
		}
		return "", true
	}
	for _, u := range blocks[1:] {
		if _, uniform := perRank(u); !uniform {
			return "", false
		}
	}
	first := l.table[blocks[0].stmts[k].calls[0].it.sym]
	counts, bytes := make([]valRun, len(blocks)), make([]valRun, len(blocks))
	sameCount, sameSize := true, true
	for i, u := range blocks {
		s := l.table[u.stmts[k].calls[0].it.sym]
		counts[i] = valRun{u.reps, s.count}
		bytes[i] = valRun{u.reps, s.count * s.size}
		sameCount = sameCount && s.count == first.count
		sameSize = sameSize && s.size == first.size
	}
	if sameCount && sameSize {
		return "", true
	}
	if first.op == trace.Allreduce || first.op == trace.Reduce {
		unit := map[int64]string{4: "INTEGERS", 8: "DOUBLEWORDS"}[first.size]
		e, ok := iterExpr(counts)
		if !sameSize || unit == "" || !ok {
			return "", false
		}
		return fmt.Sprintf("%s %s", paren(e), unit), true
	}
	if name, ok := units[first.size]; ok && sameSize {
		e, ok := iterExpr(counts)
		return fmt.Sprintf("A %s %s MESSAGE", paren(e), name), ok
	}
	e, ok := iterExpr(bytes)
	return fmt.Sprintf("A %s BYTE MESSAGE", paren(e)), ok
}

// varyingPeer renders position k's peer as an expression of the loop
// variable and the task variable, or "" when the peers do not change. In
// each block the ranks must reach their peers one way — all t XOR x, or
// all t + d — with x or d changing from block to block.
func (l *lowerer) varyingPeer(blocks []unit, k int) (string, bool) {
	n := l.t.NumRanks
	offs := func(u unit) []int {
		var o []int
		for _, c := range u.stmts[k].calls {
			o = append(o, l.table[c.it.sym].off)
		}
		return o
	}
	first := offs(blocks[0])
	same := true
	for _, u := range blocks[1:] {
		same = same && slices.Equal(first, offs(u))
	}
	if same {
		return "", true
	}
	ranks := blocks[0].stmts[k].ranks()
	_, v := l.tasks(ranks, true)
	if v == "" {
		v = fmt.Sprint(ranks[0])
	}
	xors, deltas := make([]valRun, len(blocks)), make([]valRun, len(blocks))
	xorOK, deltaOK, wraps := true, true, false
	for i, u := range blocks {
		o := offs(u)
		x, d := (ranks[0]+o[0])%n^ranks[0], o[0]
		for j, r := range ranks {
			peer := (r + o[j]) % n
			xorOK = xorOK && peer == r^x
			deltaOK = deltaOK && o[j] == d
			wraps = wraps || r+d >= n
		}
		xors[i], deltas[i] = valRun{u.reps, int64(x)}, valRun{u.reps, int64(d)}
	}
	if xorOK {
		if e, ok := iterExpr(xors); ok {
			return fmt.Sprintf("TASK %s XOR %s", v, paren(e)), true
		}
	}
	if !deltaOK {
		return "", false
	}
	e, ok := iterExpr(deltas)
	if !ok {
		return "", false
	}
	if wraps {
		return fmt.Sprintf("TASK (%s + %s) MOD num_tasks", v, paren(e)), true
	}
	return fmt.Sprintf("TASK %s + %s", v, paren(e)), true
}

// valRun is a value held for n iterations in a row.
type valRun struct {
	n, v int64
}

// iterExpr writes the values of consecutive iterations as an expression of
// the loop variable: an arithmetic or geometric progression when each
// value holds one iteration, else "v1 IF i <= b1 OTHERWISE v2 ...".
func iterExpr(runs []valRun) (string, bool) {
	var merged []valRun
	for _, r := range runs {
		if k := len(merged) - 1; k >= 0 && merged[k].v == r.v {
			merged[k].n += r.n
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) == 1 {
		return fmt.Sprint(merged[0].v), true
	}
	if e, ok := progressionExpr(merged); ok {
		return e, true
	}
	if e, ok := alternationExpr(merged); ok {
		return e, true
	}
	if len(merged) > maxRuns {
		return "", false
	}
	var b strings.Builder
	var end int64
	for k, r := range merged {
		if k == len(merged)-1 {
			fmt.Fprint(&b, r.v)
			break
		}
		end += r.n
		if r.n == 1 {
			fmt.Fprintf(&b, "%d IF %s = %d OTHERWISE ", r.v, eachVar, end)
		} else {
			fmt.Fprintf(&b, "%d IF %s <= %d OTHERWISE ", r.v, eachVar, end)
		}
	}
	return b.String(), true
}

// alternationExpr writes values that take turns every iteration, at
// least three of them, as a IF i IS ODD OTHERWISE b: the two partners of
// a butterfly's stages, repeated.
func alternationExpr(runs []valRun) (string, bool) {
	if len(runs) < 3 {
		return "", false
	}
	for k, r := range runs {
		if r.n != 1 || r.v != runs[k%2].v {
			return "", false
		}
	}
	return fmt.Sprintf("%d IF %s IS ODD OTHERWISE %d", runs[0].v, eachVar, runs[1].v), true
}

// progressionExpr writes values that change every iteration, at least
// three of them, as a + (i - 1) * d or a * r ** (i - 1).
func progressionExpr(runs []valRun) (string, bool) {
	if len(runs) < 3 {
		return "", false
	}
	for _, r := range runs {
		if r.n != 1 {
			return "", false
		}
	}
	a, d := runs[0].v, runs[1].v-runs[0].v
	arith, geom := true, a > 0 && runs[1].v%a == 0 && runs[1].v/a > 1
	ratio := int64(0)
	if geom {
		ratio = runs[1].v / a
	}
	for k := 2; k < len(runs); k++ {
		arith = arith && runs[k].v-runs[k-1].v == d
		geom = geom && runs[k].v == runs[k-1].v*ratio
	}
	switch {
	case arith:
		term := eachVar
		if d != 1 {
			term = fmt.Sprintf("%s * %d", eachVar, d)
		}
		switch c := a - d; {
		case c > 0:
			return fmt.Sprintf("%s + %d", term, c), true
		case c < 0:
			return fmt.Sprintf("%s - %d", term, -c), true
		}
		return term, true
	case geom && a == 1:
		return fmt.Sprintf("%d ** (%s - 1)", ratio, eachVar), true
	case geom:
		return fmt.Sprintf("%d * %d ** (%s - 1)", a, ratio, eachVar), true
	}
	return "", false
}

// paren parenthesizes an expression that is not a plain number.
func paren(e string) string {
	if strings.ContainsAny(e, " ") {
		return "(" + e + ")"
	}
	return e
}
