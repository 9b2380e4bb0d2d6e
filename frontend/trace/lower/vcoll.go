package lower

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// vCollective renders a "v" collective, whose message sizes differ per
// member, as the Parley collective whose size is an expression of the
// bound task variables, and MPI_Reduce_scatter as REDUCE ... AND SCATTER
// THE RESULT, whose blocks are even: uneven ones are counted for the
// header. Sizes that fit no expression set l.err.
func (l *lowerer) vCollective(st stmt, s sym, ranks []int, who string) string {
	order := l.commOrder(s.comm)
	counts := func(c call) []int64 { return splitInt64s(l.table[c.it.sym].counts) }
	root := func() []int64 {
		for _, c := range st.calls {
			if c.rank == s.root {
				return counts(c)
			}
		}
		return nil
	}
	msg := func(e string) string { return messageOf(e, s.size) }
	bound := func(v string) string {
		d, _ := l.tasks(ranks, true)
		return renameVar(d, v)
	}
	switch s.op {
	case trace.ReduceScatter:
		total := s.count // the sum of the blocks, when the trace has no blocks
		if blocks := splitInt64s(s.counts); len(blocks) > 0 {
			total = 0
			for _, x := range blocks {
				total += x
			}
		}
		if !evenBlocks(splitInt64s(s.counts)) {
			l.unevenScatters++
		}
		return fmt.Sprintf("%s REDUCE %s AND SCATTER THE RESULT", who, items(total, s.size))
	case trace.Gatherv:
		if e, ok := l.perMember(order, root(), "t"); ok {
			return fmt.Sprintf("TASK %d GATHERS %s FROM %s", s.root, msg(e), bound("t"))
		}
	case trace.Scatterv:
		if e, ok := l.perMember(order, root(), "t"); ok {
			return fmt.Sprintf("TASK %d SCATTERS %s TO %s", s.root, msg(e), bound("t"))
		}
	case trace.Allgatherv:
		if e, ok := l.perMember(order, counts(st.calls[0]), "t"); ok {
			return fmt.Sprintf("%s GATHER %s FROM %s", who, msg(e), bound("t"))
		}
	case trace.Alltoallv:
		rows := map[int][]int64{}
		for _, c := range st.calls {
			rows[c.rank] = counts(c)
		}
		if e, ok := l.pairExpr(order, rows); ok {
			return fmt.Sprintf("%s EXCHANGE %s WITH %s", bound("s"), msg(e), bound("d"))
		}
	}
	if l.err == nil {
		l.err = fmt.Errorf("%s: the per-member sizes of this %s fit no expression parley lower writes (a constant, a + b * t, or at most %d values by rank set)", l.pos[st.calls[0].it.sym], s.op, maxAlternatives)
	}
	return ""
}

// commOrder lists communicator c's world ranks in communicator order.
func (l *lowerer) commOrder(c int) []int {
	if c > 0 && c < len(l.t.Comms) && l.t.Comms[c] != nil {
		return l.t.Comms[c]
	}
	all := make([]int, l.t.NumRanks)
	for i := range all {
		all[i] = i
	}
	return all
}

// perMember writes the counts, one per member in communicator order, as
// an expression of the member's task variable v: a constant, a + b * v,
// or up to maxAlternatives values chosen by rank sets.
func (l *lowerer) perMember(order []int, counts []int64, v string) (string, bool) {
	if len(counts) != len(order) {
		return "", false
	}
	if len(order) == 1 {
		return strconv.FormatInt(counts[0], 10), true
	}
	if e, ok := affine(order, counts, v); ok {
		return e, true
	}
	var vals []int64
	byVal := map[int64][]int{}
	for i, r := range order {
		if byVal[counts[i]] == nil {
			vals = append(vals, counts[i])
		}
		byVal[counts[i]] = append(byVal[counts[i]], r)
	}
	if len(vals) > maxAlternatives {
		return "", false
	}
	// Each value but the last gets a condition; it need only tell its
	// ranks from those of the values after it. Whichever value is last
	// needs none: keep the cheapest by relationCost, on a tie the order
	// of appearance.
	best, bestCost := "", 0
	for last := len(vals) - 1; last >= 0; last-- {
		chain := append(slices.Delete(slices.Clone(vals), last, last+1), vals[last])
		var b strings.Builder
		penalty := 0 // what relationCost adds to the conditions' lengths
		for i, x := range chain {
			if i == len(chain)-1 {
				fmt.Fprint(&b, x)
				break
			}
			var rest []int
			for _, y := range chain[i+1:] {
				rest = append(rest, byVal[y]...)
			}
			rs := slices.Sorted(slices.Values(byVal[x]))
			cond := l.rel.relationFor(rs, rest)
			penalty += relationCost(cond) - len(cond)
			fmt.Fprintf(&b, "%d IF %s OTHERWISE ", x, renameVar(cond, v))
		}
		if cost := b.Len() + penalty; best == "" || cost < bestCost {
			best, bestCost = b.String(), cost
		}
	}
	return best, true
}

// affine fits counts[i] = a + b * order[i] and writes it in v.
func affine(order []int, counts []int64, v string) (string, bool) {
	dr := int64(order[1] - order[0])
	if dr == 0 || (counts[1]-counts[0])%dr != 0 {
		return "", false
	}
	b := (counts[1] - counts[0]) / dr
	a := counts[0] - b*int64(order[0])
	for i, r := range order {
		if counts[i] != a+b*int64(r) {
			return "", false
		}
	}
	return linear(a, b, v), true
}

// linear writes a + b * v simply.
func linear(a, b int64, v string) string {
	var e string
	switch b {
	case 0:
		return strconv.FormatInt(a, 10)
	case 1:
		e = v
	default:
		e = fmt.Sprintf("%d * %s", b, v)
	}
	switch {
	case a > 0:
		e += fmt.Sprintf(" + %d", a)
	case a < 0:
		e += fmt.Sprintf(" - %d", -a)
	}
	return e
}

// pairExpr writes an all-to-all's counts, rows[s][k] being what rank s
// sends the k-th member, as an expression of s and d: one that depends on
// d only, on s only, on the distance from s to d around the world
// (circulant), or a + b * s + c * d.
func (l *lowerer) pairExpr(order []int, rows map[int][]int64) (string, bool) {
	first := rows[order[0]]
	sameRows := true
	for _, r := range order {
		if len(rows[r]) != len(order) {
			return "", false
		}
		sameRows = sameRows && slices.Equal(rows[r], first)
	}
	if sameRows {
		return l.perMember(order, first, "d")
	}
	col := make([]int64, len(order))
	sameCols := true
	for i, r := range order {
		col[i] = rows[r][0]
		for _, x := range rows[r] {
			sameCols = sameCols && x == col[i]
		}
	}
	if sameCols {
		return l.perMember(order, col, "s")
	}
	if e, ok := circulant(order, rows); ok {
		return e, true
	}
	// a + b * s + c * d, fitted on the first two members and checked.
	if len(order) < 2 {
		return "", false
	}
	r0, r1 := order[0], order[1]
	step := int64(r1 - r0)
	dc, ds := rows[r0][1]-rows[r0][0], rows[r1][0]-rows[r0][0]
	if dc%step != 0 || ds%step != 0 {
		return "", false
	}
	c, b := dc/step, ds/step
	a := rows[r0][0] - b*int64(r0) - c*int64(r0)
	for _, s := range order {
		for k, d := range order {
			if rows[s][k] != a+b*int64(s)+c*int64(d) {
				return "", false
			}
		}
	}
	e := linear(a, c, "d")
	switch {
	case b == 1:
		e = "s + " + e
	case b != 0:
		e = fmt.Sprintf("%d * s + %s", b, e)
	}
	return e, true
}

// circulant writes an all-to-all's counts over the whole world in order
// as a function of the distance from sender to receiver, (d + n - s) MOD n,
// with up to maxAlternatives values: the migration of a particle code,
// whose ranks send to their neighbours and keep the rest, is one. The
// commonest value needs no condition.
func circulant(order []int, rows map[int][]int64) (string, bool) {
	n := len(order)
	for i, r := range order {
		if r != i {
			return "", false
		}
	}
	f := make([]int64, n)
	for k := range f {
		f[k] = rows[0][k]
	}
	for s := range n {
		for d := range n {
			if rows[s][d] != f[(d+n-s)%n] {
				return "", false
			}
		}
	}
	var vals []int64
	byVal := map[int64][]int{}
	for k, x := range f {
		if byVal[x] == nil {
			vals = append(vals, x)
		}
		byVal[x] = append(byVal[x], k)
	}
	if len(vals) > maxAlternatives {
		return "", false
	}
	common := vals[0]
	for _, x := range vals {
		if len(byVal[x]) > len(byVal[common]) {
			common = x
		}
	}
	var b strings.Builder
	for _, x := range vals {
		if x == common {
			continue
		}
		ks := byVal[x]
		dist := fmt.Sprintf("(d + %d - s) MOD %d", n, n)
		if len(ks) == 1 {
			fmt.Fprintf(&b, "%d IF %s = %d OTHERWISE ", x, dist, ks[0])
			continue
		}
		parts := make([]string, len(ks))
		for i, k := range ks {
			parts[i] = strconv.Itoa(k)
		}
		fmt.Fprintf(&b, "%d IF %s IS IN {%s} OTHERWISE ", x, dist, strings.Join(parts, ", "))
	}
	fmt.Fprint(&b, common)
	return b.String(), true
}

// evenBlocks reports whether reduce-scatter counts are the even split
// Parley's REDUCE ... AND SCATTER makes: the total over the members, the
// remainder spread over the first ones.
func evenBlocks(counts []int64) bool {
	var total int64
	for _, x := range counts {
		total += x
	}
	n := int64(len(counts))
	if n == 0 {
		return true
	}
	for i, x := range counts {
		want := total / n
		if int64(i) < total%n {
			want++
		}
		if x != want {
			return false
		}
	}
	return true
}

var taskVar = regexp.MustCompile(`\bt\b`)

// renameVar rewrites a task description or relation in t to use v.
func renameVar(s, v string) string { return taskVar.ReplaceAllString(s, v) }

func splitInt64s(s string) []int64 {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		out[i], _ = strconv.ParseInt(p, 10, 64)
	}
	return out
}

// scan writes an MPI_Scan over every rank as the exchange MPICH's
// recursive-doubling scan makes: in step m = 1, 2, 4, ... each rank t
// swaps its partial result with rank t XOR m, if there is one. Parley has
// no scan statement; this keeps the scan's messages, which is what a
// benchmark of the trace measures.
func (l *lowerer) scan(st stmt, s sym) []string {
	n := l.t.NumRanks
	if len(st.calls) != n {
		if l.err == nil {
			l.err = fmt.Errorf("%s: MPI_Scan on a communicator of %d of the %d ranks: parley lower writes scans over every rank only", l.pos[st.calls[0].it.sym], len(st.calls), n)
		}
		return nil
	}
	l.scans++
	if n == 1 {
		return nil
	}
	var masks []string
	for m := 1; m < n; m *= 2 {
		masks = append(masks, fmt.Sprint(m))
	}
	if len(masks) > 3 {
		masks = append(masks[:3], "...", masks[len(masks)-1])
	}
	msg := message(s.count, s.size)
	if st.vary != nil && st.vary.msg != "" {
		msg = st.vary.msg // a size that changes with a FOR EACH loop's variable
	}
	who := "TASKS t SUCH THAT t XOR m < num_tasks"
	return []string{fmt.Sprintf("FOR EACH m IN {%s} {\n%s ASYNCHRONOUSLY RECEIVE %s FROM TASK t XOR m THEN\n%s SEND %s TO UNSUSPECTING TASK t XOR m THEN\n%s AWAIT COMPLETION\n}",
		strings.Join(masks, ", "), who, msg, who, msg, who)}
}
