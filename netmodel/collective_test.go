package netmodel

import (
	"cmp"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

var collAllOps = []Op{Bcast, Reduce, Allreduce, ReduceScatter, Barrier, Gather, Scatter, Allgather, Alltoall}

// collNeedsPow2 and collTakesSizes restate, from the documentation, which
// algorithms need a power-of-two N and which accept Sizes.
func collNeedsPow2(op Op, alg Algorithm) bool {
	return op == Bcast && alg == "scatter_recursive_doubling_allgather" ||
		op == Allgather && alg == "recursive_doubling"
}

func collTakesSizes(op Op, alg Algorithm) bool {
	switch op {
	case Gather, Scatter, Allgather:
		return true
	case Alltoall:
		return alg != "bruck"
	}
	return false
}

func collReduces(op Op) bool { return op == Reduce || op == Allreduce || op == ReduceScatter }

func collCeilLog2(n int) int { return bits.Len(uint(n - 1)) }

// collPlan is Plan that also returns what each step sends (see collSpan).
func collPlan(c Collective, alg Algorithm, r int) ([]Step, []collSpan, error) {
	p, err := collNewPlanner(c, alg, r, true)
	if err != nil || p == nil {
		return nil, nil, err
	}
	return p.steps, p.spans, nil
}

// collExec runs the plans of all ranks with blocking steps and follows the
// data: state[r][u] is the set of ranks whose contribution to unit u rank r
// holds (see collSpan for the units of each operation).
type collExec struct {
	c     Collective
	plans [][]Step
	spans [][]collSpan
	state [][]uint64
	hb    []uint64 // the ranks whose start r's progress causally depends on
	round []int    // Lamport clock: steps are one tick, messages carry it
}

type collMsg struct {
	units []int
	vals  []uint64
	hb    uint64
	round int
}

func collNewExec(c Collective, alg Algorithm) (*collExec, error) {
	e := &collExec{c: c, plans: make([][]Step, c.N), spans: make([][]collSpan, c.N)}
	for r := range c.N {
		steps, spans, err := collPlan(c, alg, r)
		if err != nil {
			return nil, err
		}
		plain, err := Plan(c, alg, r)
		if err != nil || !slices.Equal(plain, steps) {
			return nil, fmt.Errorf("rank %d: Plan gives %v, %v; traced plan %v", r, plain, err, steps)
		}
		e.plans[r], e.spans[r] = steps, spans
	}
	units := 0
	switch c.Op {
	case Bcast, Reduce, Allreduce, ReduceScatter:
		units = int(c.Bytes)
	case Gather, Scatter, Allgather:
		units = c.N
	case Alltoall:
		units = c.N * c.N
	}
	e.state = make([][]uint64, c.N)
	e.hb = make([]uint64, c.N)
	e.round = make([]int, c.N)
	for r := range c.N {
		e.state[r] = make([]uint64, units)
		e.hb[r] = 1 << r
		for u := range units {
			e.state[r][u] = e.initial(r, u)
		}
	}
	return e, nil
}

// initial says what rank r holds of unit u before the collective.
func (e *collExec) initial(r, u int) uint64 {
	me := uint64(1) << r
	switch e.c.Op {
	case Bcast, Scatter:
		if r == e.c.Root {
			return me
		}
	case Reduce, Allreduce, ReduceScatter:
		return me
	case Gather, Allgather:
		if u == r {
			return me
		}
	case Alltoall:
		if u/e.c.N == r {
			return me
		}
	}
	return 0
}

// unitBytes is the size of unit u, from the documentation of Collective.
func (e *collExec) unitBytes(u int) int64 {
	c := e.c
	switch {
	case c.Op == Bcast || collReduces(c.Op):
		return 1
	case c.Sizes == nil:
		return c.Bytes
	case c.Op == Gather:
		return c.Sizes(u, c.Root)
	case c.Op == Scatter:
		return c.Sizes(c.Root, u)
	case c.Op == Allgather:
		return c.Sizes(u, (u+1)%c.N) // any destination: the same
	}
	return c.Sizes(u/c.N, u%c.N)
}

// expand lists the units a span sent by rank r covers.
func (e *collExec) expand(r int, sp collSpan) ([]int, error) {
	n := e.c.N
	var units []int
	switch {
	case sp.bruck != 0:
		if e.c.Op != Alltoall {
			return nil, fmt.Errorf("bruck span %+v outside alltoall", sp)
		}
		for d := 1; d < n; d++ {
			if d&sp.bruck != 0 {
				s := ((r-(d&(sp.bruck-1)))%n + n) % n
				units = append(units, s*n+(s+d)%n)
			}
		}
		if int64(len(units)) != sp.count {
			return nil, fmt.Errorf("bruck span %+v covers %d blocks", sp, len(units))
		}
		return units, nil
	case e.c.Op == Gather || e.c.Op == Scatter || e.c.Op == Allgather:
		if sp.first < 0 || sp.first >= int64(n) || sp.count > int64(n) {
			return nil, fmt.Errorf("span %+v outside %d blocks", sp, n)
		}
		for i := range sp.count {
			units = append(units, int((sp.first+i)%int64(n)))
		}
		return units, nil
	}
	if sp.first < 0 || sp.count < 0 || sp.first+sp.count > int64(len(e.state[r])) {
		return nil, fmt.Errorf("span %+v outside %d units", sp, len(e.state[r]))
	}
	for i := range sp.count {
		units = append(units, int(sp.first+i))
	}
	return units, nil
}

// message builds what rank r's current step s sends (span sp), checking
// that it has the data and that the bytes match.
func (e *collExec) message(r int, s Step, sp collSpan) (*collMsg, error) {
	units, err := e.expand(r, sp)
	if err != nil {
		return nil, err
	}
	m := &collMsg{units: units, hb: e.hb[r], round: e.round[r]}
	var bytes int64
	for _, u := range units {
		v := e.state[r][u]
		if v == 0 && !collReduces(e.c.Op) {
			return nil, fmt.Errorf("rank %d sends unit %d it does not hold", r, u)
		}
		m.vals = append(m.vals, v)
		bytes += e.unitBytes(u)
	}
	if bytes != s.SendBytes {
		return nil, fmt.Errorf("rank %d step %+v: the data it sends (%+v) is %d bytes", r, s, sp, bytes)
	}
	return m, nil
}

// receive applies m at rank r when its step s completes.
func (e *collExec) receive(r int, s Step, m *collMsg) error {
	if s.Reduce != 0 && (s.Reduce != s.RecvBytes || !collReduces(e.c.Op)) {
		return fmt.Errorf("rank %d step %+v: bad Reduce", r, s)
	}
	for i, u := range m.units {
		switch {
		case s.Reduce == 0:
			e.state[r][u] = m.vals[i]
		case e.state[r][u]&m.vals[i] != 0:
			return fmt.Errorf("rank %d counts contributions %b twice in unit %d", r, e.state[r][u]&m.vals[i], u)
		default:
			e.state[r][u] |= m.vals[i]
		}
	}
	e.hb[r] |= m.hb
	e.round[r] = max(e.round[r], m.round)
	return nil
}

// checkMatching checks the plans statically: valid peers, and the sends
// from a to b pair up in order with the receives at b from a, with the
// same sizes.
func (e *collExec) checkMatching() error {
	type pair struct{ from, to int }
	sends, recvs := map[pair][]int64{}, map[pair][]int64{}
	for r, plan := range e.plans {
		for _, s := range plan {
			switch {
			case s.SendTo < -1 || s.SendTo >= e.c.N || s.SendTo == r || s.RecvFrom < -1 || s.RecvFrom >= e.c.N || s.RecvFrom == r:
				return fmt.Errorf("rank %d: bad peer in %+v", r, s)
			case s.SendTo < 0 && s.RecvFrom < 0:
				return fmt.Errorf("rank %d: empty step", r)
			case s.SendTo < 0 && s.SendBytes != 0, s.RecvFrom < 0 && (s.RecvBytes != 0 || s.Reduce != 0), s.SendBytes < 0, s.RecvBytes < 0:
				return fmt.Errorf("rank %d: bad sizes in %+v", r, s)
			}
			if s.SendTo >= 0 {
				sends[pair{r, s.SendTo}] = append(sends[pair{r, s.SendTo}], s.SendBytes)
			}
			if s.RecvFrom >= 0 {
				recvs[pair{s.RecvFrom, r}] = append(recvs[pair{s.RecvFrom, r}], s.RecvBytes)
			}
		}
	}
	for p, s := range sends {
		if !slices.Equal(s, recvs[p]) {
			return fmt.Errorf("%d sends %v to %d, which receives %v", p.from, s, p.to, recvs[p])
		}
	}
	for p, r := range recvs {
		if _, ok := sends[p]; !ok {
			return fmt.Errorf("%d receives %v from %d, which sends nothing", p.to, r, p.from)
		}
	}
	return nil
}

// run executes the plans: each rank posts its current step's send and
// receive, a send and a receive match only when both are posted, and a step
// completes when both of its halves have matched.
func (e *collExec) run() error {
	n := e.c.N
	pc := make([]int, n)
	posted := make([]bool, n)
	sent, got := make([]bool, n), make([]bool, n)
	out, in := make([]*collMsg, n), make([]*collMsg, n)
	cur := func(r int) Step { return e.plans[r][pc[r]] }
	for progress := true; progress; {
		progress = false
		for r := range n {
			if posted[r] || pc[r] == len(e.plans[r]) {
				continue
			}
			s := cur(r)
			posted[r], sent[r], got[r], progress = true, s.SendTo < 0, s.RecvFrom < 0, true
			if s.SendTo >= 0 {
				m, err := e.message(r, s, e.spans[r][pc[r]])
				if err != nil {
					return err
				}
				out[r] = m
			}
		}
		for r := range n {
			if !posted[r] || sent[r] {
				continue
			}
			s, q := cur(r), cur(r).SendTo
			if posted[q] && !got[q] && cur(q).RecvFrom == r {
				if cur(q).RecvBytes != s.SendBytes {
					return fmt.Errorf("rank %d sends %d bytes to %d, which receives %d", r, s.SendBytes, q, cur(q).RecvBytes)
				}
				in[q], sent[r], got[q], progress = out[r], true, true, true
			}
		}
		for r := range n {
			if !posted[r] || !sent[r] || !got[r] {
				continue
			}
			if s := cur(r); s.RecvFrom >= 0 {
				if err := e.receive(r, s, in[r]); err != nil {
					return err
				}
			}
			pc[r]++
			e.round[r]++
			posted[r], progress = false, true
		}
	}
	var stuck []string
	for r := range n {
		if pc[r] < len(e.plans[r]) {
			stuck = append(stuck, fmt.Sprintf("rank %d at step %d %+v", r, pc[r], cur(r)))
		}
	}
	if stuck != nil {
		return fmt.Errorf("deadlock: %s", strings.Join(stuck, "; "))
	}
	return nil
}

// checkResult checks that every rank ends with what the operation promises.
func (e *collExec) checkResult() error {
	c, n := e.c, e.c.N
	all := uint64(1)<<n - 1
	want := func(r, u int, v uint64) error {
		if e.state[r][u] != v {
			return fmt.Errorf("rank %d ends with %b for unit %d, want %b", r, e.state[r][u], u, v)
		}
		return nil
	}
	var err error
	for r := 0; r < n && err == nil; r++ {
		switch c.Op {
		case Barrier:
			if e.hb[r] != all {
				err = fmt.Errorf("rank %d may leave the barrier before ranks %b start", r, all&^e.hb[r])
			}
		case Bcast:
			for u := range e.state[r] {
				err = cmp.Or(err, want(r, u, 1<<c.Root))
			}
		case Reduce, Allreduce:
			for u := range e.state[r] {
				if r == c.Root || c.Op == Allreduce {
					err = cmp.Or(err, want(r, u, all))
				}
			}
		case ReduceScatter:
			q, rem := c.Bytes/int64(n), c.Bytes%int64(n)
			lo := int64(r)*q + min(int64(r), rem)
			for u := lo; u < lo+q+min(1, max(0, rem-int64(r))); u++ {
				err = cmp.Or(err, want(r, int(u), all))
			}
		case Gather, Allgather:
			for u := range n {
				if r == c.Root || c.Op == Allgather {
					err = cmp.Or(err, want(r, u, 1<<u))
				}
			}
		case Scatter:
			err = want(r, r, 1<<c.Root)
		case Alltoall:
			for s := range n {
				if e.unitBytes(s*n+r) > 0 { // Alltoallv skips empty blocks
					err = cmp.Or(err, want(r, s*n+r, 1<<s))
				}
			}
		}
	}
	return err
}

// collCases lists the collectives the data-flow test runs for op over n
// ranks: several roots, several sizes (some not multiples of n), and
// uneven per-rank sizes (with zeros) for the "v" variants.
func collCases(op Op, n int) []Collective {
	roots := []int{0}
	if collRooted(op) {
		roots = slices.Compact([]int{0, 1 % n, n / 2, n - 1})
	}
	sizes := []int64{1, 7, 100, 333}
	if op == Barrier {
		sizes = []int64{0}
	}
	var cases []Collective
	for _, root := range roots {
		for _, b := range sizes {
			cases = append(cases, Collective{Op: op, N: n, Root: root, Bytes: b})
		}
		var v func(src, dst int) int64
		switch op {
		case Gather, Allgather:
			v = func(src, _ int) int64 { return int64(src*5+3) % 4 }
		case Scatter:
			v = func(_, dst int) int64 { return int64(dst*5+3) % 4 }
		case Alltoall:
			v = func(src, dst int) int64 { return int64(src*7+dst*3) % 5 }
		}
		if v != nil {
			cases = append(cases, Collective{Op: op, N: n, Root: root, Sizes: v})
		}
	}
	return cases
}

func TestCollectiveDataFlow(t *testing.T) {
	for _, op := range collAllOps {
		for _, alg := range Algorithms(op) {
			t.Run(op.String()+"/"+string(alg), func(t *testing.T) {
				failures := 0
				for n := 1; n <= 33 && failures < 5; n++ {
					for _, c := range collCases(op, n) {
						if err := collCheck(c, alg); err != nil {
							t.Errorf("%v N=%d root=%d bytes=%d sizes=%t: %v", op, n, c.Root, c.Bytes, c.Sizes != nil, err)
							failures++
						}
					}
				}
			})
		}
	}
}

// collCheck plans c for every rank, checks the plans statically, runs them
// and checks the result.
func collCheck(c Collective, alg Algorithm) error {
	_, err := Plan(c, alg, 0)
	wantErr := collNeedsPow2(c.Op, alg) && !collIsPow2(c.N) || c.Sizes != nil && !collTakesSizes(c.Op, alg)
	if wantErr || err != nil {
		if wantErr && err != nil {
			return nil
		}
		return fmt.Errorf("error %v, want one: %t", err, wantErr)
	}
	e, err := collNewExec(c, alg)
	if err != nil {
		return err
	}
	if err := e.checkMatching(); err != nil {
		return err
	}
	if err := e.run(); err != nil {
		return err
	}
	return e.checkResult()
}

// The executor must catch broken plans. The Rabenseifner allreduce over 6
// ranks has sitters 0 and 2; ranks 4 and 5 start with an exchange.
func TestCollectiveExecutorCatchesErrors(t *testing.T) {
	allreduce := Collective{Op: Allreduce, N: 6, Bytes: 12}
	for _, tt := range []struct {
		name    string
		c       Collective
		alg     Algorithm
		corrupt func(e *collExec)
		want    string
	}{
		{"size mismatch", allreduce, "rabenseifner", func(e *collExec) { e.plans[1][1].SendBytes-- }, "which receives"},
		{"lost step", allreduce, "rabenseifner", func(e *collExec) { e.plans[3], e.spans[3] = e.plans[3][1:], e.spans[3][1:] }, "which receives"},
		{"receive before send", allreduce, "rabenseifner", func(e *collExec) {
			for _, r := range []int{4, 5} { // split the first exchange in two steps
				s := e.plans[r][0]
				recv := Step{SendTo: -1, RecvFrom: s.RecvFrom, RecvBytes: s.RecvBytes, Reduce: s.Reduce}
				send := Step{SendTo: s.SendTo, SendBytes: s.SendBytes, RecvFrom: -1}
				e.plans[r] = slices.Insert(e.plans[r][1:], 0, recv, send)
				e.spans[r] = slices.Insert(e.spans[r], 0, collSpan{})
			}
		}, "deadlock"},
		{"not reduced", allreduce, "rabenseifner", func(e *collExec) { e.plans[4][0].Reduce = 0 }, "ends with"},
		{"reduced twice", allreduce, "rabenseifner", func(e *collExec) { e.plans[1][3].Reduce = e.plans[1][3].RecvBytes }, "twice"},
		{"wrong block", allreduce, "rabenseifner", func(e *collExec) { e.spans[5][1].first = 0 }, "rank"},
		{"sends before it has", Collective{Op: Bcast, N: 6, Root: 2, Bytes: 4}, "binomial", func(e *collExec) {
			e.plans[4][0], e.plans[4][1] = e.plans[4][1], e.plans[4][0]
			e.spans[4][0], e.spans[4][1] = e.spans[4][1], e.spans[4][0]
		}, "does not hold"},
		{"early barrier exit", Collective{Op: Barrier, N: 5}, "dissemination", func(e *collExec) {
			for r := range e.plans {
				e.plans[r], e.spans[r] = e.plans[r][:2], e.spans[r][:2]
			}
		}, "before ranks"},
	} {
		e, err := collNewExec(tt.c, tt.alg)
		if err != nil {
			t.Fatal(err)
		}
		tt.corrupt(e)
		err = e.checkMatching()
		if err == nil {
			err = e.run()
		}
		if err == nil {
			err = e.checkResult()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

func TestCollectiveZeroBytes(t *testing.T) {
	for _, op := range collAllOps {
		for _, alg := range Algorithms(op) {
			if collNeedsPow2(op, alg) {
				continue
			}
			steps, err := Plan(Collective{Op: op, N: 5, Bytes: 0}, alg, 1)
			if err != nil || (len(steps) == 0) != (op != Barrier) {
				t.Errorf("%v %s with no data: %v, %v", op, alg, steps, err)
			}
			if steps, err := Plan(Collective{Op: op, N: 1, Bytes: 8}, alg, 0); err != nil || len(steps) != 0 {
				t.Errorf("%v %s on one rank: %v, %v", op, alg, steps, err)
			}
		}
	}
}

// collPlans returns every rank's plan.
func collPlans(t *testing.T, c Collective, alg Algorithm) [][]Step {
	t.Helper()
	plans := make([][]Step, c.N)
	for r := range c.N {
		var err error
		if plans[r], err = Plan(c, alg, r); err != nil {
			t.Fatalf("%v %s N=%d rank %d: %v", c.Op, alg, c.N, r, err)
		}
	}
	return plans
}

func TestCollectiveStepFormulas(t *testing.T) {
	for n := 2; n <= 64; n++ {
		lg := collCeilLog2(n)
		const unit = 8
		b := int64(n * unit) // divisible by N: blocks of unit bytes

		// Binomial bcast: the root sends lg times and the tree is lg deep.
		c := Collective{Op: Bcast, N: n, Root: n / 3, Bytes: 10}
		e, err := collNewExec(c, "binomial")
		if err != nil || e.run() != nil {
			t.Fatalf("bcast N=%d: %v", n, err)
		}
		if len(e.plans[c.Root]) != lg || slices.Max(e.round) != lg {
			t.Errorf("binomial bcast N=%d: root has %d steps, depth %d; want %d", n, len(e.plans[c.Root]), slices.Max(e.round), lg)
		}

		// Dissemination: lg rounds of empty messages to r+2^k from r-2^k.
		for r, plan := range collPlans(t, Collective{Op: Barrier, N: n}, "dissemination") {
			want := make([]Step, lg)
			for k := range want {
				want[k] = Step{SendTo: (r + 1<<k) % n, RecvFrom: (r - 1<<k + n) % n}
			}
			if !slices.Equal(plan, want) {
				t.Errorf("dissemination N=%d rank %d: %v, want %v", n, r, plan, want)
			}
		}

		// Ring allreduce: 2(N-1) steps of Bytes/N, the first N-1 reducing.
		for r, plan := range collPlans(t, Collective{Op: Allreduce, N: n, Bytes: b}, "ring") {
			if len(plan) != 2*(n-1) {
				t.Errorf("ring allreduce N=%d: %d steps", n, len(plan))
			}
			for i, s := range plan {
				reduce := int64(0)
				if i < n-1 {
					reduce = unit
				}
				if s != (Step{SendTo: (r + 1) % n, SendBytes: unit, RecvFrom: (r + n - 1) % n, RecvBytes: unit, Reduce: reduce}) {
					t.Errorf("ring allreduce N=%d rank %d step %d: %+v", n, r, i, s)
				}
			}
		}

		// Pairwise alltoall: N-1 exchanges of Bytes with every other rank.
		for r, plan := range collPlans(t, Collective{Op: Alltoall, N: n, Bytes: 40}, "pairwise") {
			seen := map[int]bool{}
			for _, s := range plan {
				seen[s.SendTo] = true
				if s.SendBytes != 40 || s.RecvBytes != 40 || s.Reduce != 0 || collIsPow2(n) && s.SendTo != s.RecvFrom {
					t.Errorf("pairwise alltoall N=%d rank %d: %+v", n, r, s)
				}
			}
			if len(plan) != n-1 || len(seen) != n-1 || seen[r] {
				t.Errorf("pairwise alltoall N=%d rank %d: %v", n, r, plan)
			}
		}

		// Bruck: ceil(log2 N) steps; allgather receives N-1 blocks in all.
		for _, alg := range []Algorithm{"bruck"} {
			for r, plan := range collPlans(t, Collective{Op: Allgather, N: n, Bytes: 3}, alg) {
				if len(plan) != lg || collTotal(plan, false) != int64(3*(n-1)) {
					t.Errorf("bruck allgather N=%d rank %d: %v", n, r, plan)
				}
			}
			for r, plan := range collPlans(t, Collective{Op: Alltoall, N: n, Bytes: 3}, alg) {
				if len(plan) != lg {
					t.Errorf("bruck alltoall N=%d rank %d: %v", n, r, plan)
				}
			}
		}

		// Gather: the root receives the N-1 other blocks, through lg
		// messages (binomial) or N-1 (linear).
		for alg, msgs := range map[Algorithm]int{"binomial": lg, "linear": n - 1} {
			c := Collective{Op: Gather, N: n, Root: n - 1, Bytes: 5}
			plan := collPlans(t, c, alg)[c.Root]
			if len(plan) != msgs || collTotal(plan, false) != int64(5*(n-1)) {
				t.Errorf("%s gather N=%d: root plan %v", alg, n, plan)
			}
		}

		if !collIsPow2(n) {
			continue
		}
		// Power-of-two N: recursive doubling allreduce is log2 N exchanges
		// of the whole vector with r^2^k; Rabenseifner's moves 2(N-1)/N of it.
		for r, plan := range collPlans(t, Collective{Op: Allreduce, N: n, Bytes: b}, "recursive_doubling") {
			want := make([]Step, lg)
			for k := range want {
				want[k] = Step{SendTo: r ^ 1<<k, SendBytes: b, RecvFrom: r ^ 1<<k, RecvBytes: b, Reduce: b}
			}
			if !slices.Equal(plan, want) {
				t.Errorf("recursive doubling allreduce N=%d rank %d: %v", n, r, plan)
			}
		}
		for r, plan := range collPlans(t, Collective{Op: Allreduce, N: n, Bytes: b}, "rabenseifner") {
			if len(plan) != 2*lg || collTotal(plan, true) != int64(2*(n-1)*unit) || collTotal(plan, false) != int64(2*(n-1)*unit) {
				t.Errorf("rabenseifner allreduce N=%d rank %d: %v", n, r, plan)
			}
		}
	}
}

// The step order and sizes follow MPICH's code, checked by hand: here for
// ranks that exercise the non-power-of-two handling, a non-zero root, uneven
// blocks and empty pieces. Each step is written [>to:bytes <from:bytes +reduce].
func TestCollectiveMPICHOrder(t *testing.T) {
	tests := []struct {
		c    Collective
		alg  Algorithm
		want []string // by rank
	}{
		{Collective{Op: Bcast, N: 6, Root: 2, Bytes: 10}, "scatter_ring_allgather", []string{
			"[<2:2] [>1:2 <5:2] [>1:2 <5:2] [>1:2 <5:2] [>1:2 <5:2] [>1:2 <5:0]",
			"[>2:0 <0:2] [>2:2 <0:2] [>2:2 <0:2] [>2:2 <0:2] [>2:2 <0:2]",
			"[>0:2] [>4:4] [>3:2] [>3:2 <1:0] [>3:0 <1:2] [>3:2 <1:2] [>3:2 <1:2] [>3:2 <1:2]",
		}},
		{Collective{Op: Bcast, N: 8, Root: 3, Bytes: 21}, "scatter_recursive_doubling_allgather", []string{
			"[<7:3] [>7:3 <7:3] [>2:6 <2:3] [>4:9 <4:12]",
			"[<7:3] [>2:3 <2:0] [>7:3 <7:6] [>5:9 <5:12]",
			"[>1:0 <1:3] [>0:3 <0:6] [>6:9 <6:12]",
			"[>7:9] [>5:6] [>4:3] [>4:3 <4:3] [>5:6 <5:6] [>7:12 <7:9]",
		}},
		{Collective{Op: Reduce, N: 6, Root: 3, Bytes: 13}, "rabenseifner", []string{
			"[<1:13 +13] [>2:6 <2:7 +7] [>4:3 <4:4 +4] [>3:4]",
			"[>0:13]",
			"[<3:13 +13] [>0:7 <0:6 +6] [>5:3 <5:3 +3] [<5:3] [>3:6]",
			"[>2:13] [<0:4] [<4:3] [<2:6]",
			"[>5:6 <5:7 +7] [>0:4 <0:3 +3] [>3:3]",
			"[>4:7 <4:6 +6] [>2:3 <2:3 +3] [>2:3]",
		}},
		{Collective{Op: Allreduce, N: 6, Bytes: 13}, "rabenseifner", []string{
			"[>1:13] [<1:13]",
			"[<0:13 +13] [>3:6 <3:7 +7] [>4:3 <4:4 +4] [>4:4 <4:3] [>3:7 <3:6] [>0:13]",
		}},
		{Collective{Op: ReduceScatter, N: 6, Bytes: 13}, "recursive_halving", []string{
			"[>1:13] [<1:3]",
			"[<0:13 +13] [>4:4 <4:9 +9] [>3:4 <3:5 +5] [>0:3]",
			"[>3:13] [<3:2]",
			"[<2:13 +13] [>5:4 <5:9 +9] [>1:5 <1:4 +4] [>2:2]",
		}},
		{Collective{Op: Allreduce, N: 4, Bytes: 13}, "ring", []string{
			"[>1:1 <3:4 +4] [>1:4 <3:4 +4] [>1:4 <3:4 +4] [>1:4 <3:1] [>1:1 <3:4] [>1:4 <3:4]",
		}},
		{Collective{Op: Gather, N: 6, Root: 2, Bytes: 1}, "binomial", []string{
			"[<1:1] [>2:2]", "[>0:1]", "[<3:1] [<4:2] [<0:2]",
		}},
		{Collective{Op: Gather, N: 4, Root: 2, Bytes: 1}, "linear", []string{"[>2:1]", "[>2:1]", "[<0:1] [<1:1] [<3:1]"}},
		{Collective{Op: Allgather, N: 6, Bytes: 1}, "bruck", []string{"[>5:1 <1:1] [>4:2 <2:2] [>2:2 <4:2]"}},
		{Collective{Op: Alltoall, N: 6, Bytes: 1}, "bruck", []string{"[>1:3 <5:3] [>2:2 <4:2] [>4:2 <2:2]"}},
		{Collective{Op: Alltoall, N: 4, Bytes: 1}, "scattered", []string{"[>3:1 <1:1] [>2:1 <2:1] [>1:1 <3:1]"}},
	}
	for _, tt := range tests {
		for r, want := range tt.want {
			steps, err := Plan(tt.c, tt.alg, r)
			var got []string
			for _, s := range steps {
				var b strings.Builder
				if s.SendTo >= 0 {
					fmt.Fprintf(&b, " >%d:%d", s.SendTo, s.SendBytes)
				}
				if s.RecvFrom >= 0 {
					fmt.Fprintf(&b, " <%d:%d", s.RecvFrom, s.RecvBytes)
				}
				if s.Reduce != 0 {
					fmt.Fprintf(&b, " +%d", s.Reduce)
				}
				got = append(got, "["+b.String()[1:]+"]")
			}
			if g := strings.Join(got, " "); err != nil || g != want {
				t.Errorf("%v %s N=%d root %d rank %d:\n got %s %v\nwant %s", tt.c.Op, tt.alg, tt.c.N, tt.c.Root, r, g, err, want)
			}
		}
	}
}

// collTotal adds up the bytes a plan sends or receives.
func collTotal(plan []Step, send bool) int64 {
	var sum int64
	for _, s := range plan {
		if send {
			sum += s.SendBytes
		} else {
			sum += s.RecvBytes
		}
	}
	return sum
}

func TestCollectiveChoose(t *testing.T) {
	tests := []struct {
		c    Collective
		want Algorithm
	}{
		{Collective{Op: Bcast, N: 64, Bytes: 12287}, "binomial"},
		{Collective{Op: Bcast, N: 64, Bytes: 12288}, "scatter_recursive_doubling_allgather"},
		{Collective{Op: Bcast, N: 7, Bytes: 1 << 20}, "binomial"},
		{Collective{Op: Bcast, N: 8, Bytes: 524287}, "scatter_recursive_doubling_allgather"},
		{Collective{Op: Bcast, N: 8, Bytes: 524288}, "scatter_ring_allgather"},
		{Collective{Op: Bcast, N: 12, Bytes: 12288}, "scatter_ring_allgather"},
		{Collective{Op: Bcast, N: 12, Bytes: 12287}, "binomial"},

		{Collective{Op: Reduce, N: 16, Bytes: 2048}, "binomial"},
		{Collective{Op: Reduce, N: 16, Bytes: 2049}, "rabenseifner"},
		{Collective{Op: Reduce, N: 5000, Bytes: 4095}, "binomial"}, // count < pof2 = 4096
		{Collective{Op: Reduce, N: 5000, Bytes: 4096}, "rabenseifner"},

		{Collective{Op: Allreduce, N: 16, Bytes: 2048}, "recursive_doubling"},
		{Collective{Op: Allreduce, N: 16, Bytes: 2049}, "rabenseifner"},
		{Collective{Op: Allreduce, N: 3, Bytes: 1 << 30}, "rabenseifner"},
		{Collective{Op: Allreduce, N: 5000, Bytes: 4095}, "recursive_doubling"},
		{Collective{Op: Allreduce, N: 5000, Bytes: 4096}, "rabenseifner"},

		{Collective{Op: ReduceScatter, N: 10, Bytes: 524287}, "recursive_halving"},
		{Collective{Op: ReduceScatter, N: 10, Bytes: 524288}, "pairwise"},

		{Collective{Op: Barrier, N: 100}, "dissemination"},

		{Collective{Op: Gather, N: 100, Bytes: 1 << 20}, "binomial"},
		{Collective{Op: Gather, N: 100, Sizes: func(int, int) int64 { return 1 }}, "linear"},
		{Collective{Op: Scatter, N: 3, Bytes: 1}, "binomial"},
		{Collective{Op: Scatter, N: 3, Sizes: func(int, int) int64 { return 1 }}, "linear"},

		{Collective{Op: Allgather, N: 16, Bytes: 524287 / 16}, "recursive_doubling"},
		{Collective{Op: Allgather, N: 16, Bytes: 524288 / 16}, "ring"},
		{Collective{Op: Allgather, N: 10, Bytes: 8191}, "bruck"}, // 81910 bytes in all
		{Collective{Op: Allgather, N: 10, Bytes: 8192}, "ring"},  // 81920
		{Collective{Op: Allgather, N: 10, Sizes: func(src, _ int) int64 { return int64(8192 + src%2) }}, "ring"},
		{Collective{Op: Allgather, N: 10, Sizes: func(src, _ int) int64 { return int64(8191 - src%2) }}, "bruck"},
		{Collective{Op: Allgather, N: 16, Sizes: func(src, _ int) int64 { return int64(src) }}, "recursive_doubling"},

		{Collective{Op: Alltoall, N: 8, Bytes: 256}, "bruck"},
		{Collective{Op: Alltoall, N: 8, Bytes: 257}, "scattered"},
		{Collective{Op: Alltoall, N: 7, Bytes: 256}, "scattered"},
		{Collective{Op: Alltoall, N: 8, Bytes: 32768}, "scattered"},
		{Collective{Op: Alltoall, N: 8, Bytes: 32769}, "pairwise"},
		{Collective{Op: Alltoall, N: 100, Sizes: func(int, int) int64 { return 1 }}, "scattered"},
	}
	for _, tt := range tests {
		got := Choose(tt.c)
		if got != tt.want {
			t.Errorf("Choose(%v, N=%d, %d bytes, sizes %t) = %q, want %q", tt.c.Op, tt.c.N, tt.c.Bytes, tt.c.Sizes != nil, got, tt.want)
		}
		if _, err := Plan(tt.c, "", 0); err != nil {
			t.Errorf("Plan(%v, N=%d) with the default: %v", tt.c.Op, tt.c.N, err)
		}
	}
}

func TestCollectiveAlgorithms(t *testing.T) {
	for _, op := range collAllOps {
		algs := Algorithms(op)
		if len(algs) == 0 {
			t.Errorf("%v: no algorithms", op)
		}
		for _, alg := range algs {
			if !ValidAlgorithm(op, alg) {
				t.Errorf("%v: %q listed but not valid", op, alg)
			}
		}
		// Every choice is implemented.
		for _, n := range []int{1, 2, 7, 8, 12, 64} {
			for _, b := range []int64{0, 100, 4000, 40000, 1 << 20} {
				if alg := Choose(Collective{Op: op, N: n, Bytes: b}); !ValidAlgorithm(op, alg) {
					t.Errorf("Choose(%v, N=%d, %d bytes) = %q, not valid", op, n, b, alg)
				}
			}
		}
	}
	if ValidAlgorithm(Bcast, "ring") || ValidAlgorithm(Barrier, "") || ValidAlgorithm(numOps, "binomial") || Algorithms(numOps) != nil {
		t.Error("invalid algorithms accepted")
	}
}

func TestCollectivePlanErrors(t *testing.T) {
	sizes := func(int, int) int64 { return 1 }
	tests := []struct {
		c    Collective
		alg  Algorithm
		r    int
		want string
	}{
		{Collective{Op: Bcast, N: 0}, "binomial", 0, "N must be at least 1"},
		{Collective{Op: Bcast, N: 4, Root: 4}, "binomial", 0, "root 4 out of range"},
		{Collective{Op: Gather, N: 4, Root: -1}, "linear", 0, "root -1 out of range"},
		{Collective{Op: Bcast, N: 4}, "binomial", 4, "rank 4 out of range"},
		{Collective{Op: Bcast, N: 4, Bytes: -1}, "binomial", 0, "negative size"},
		{Collective{Op: Allreduce, N: 4}, "binomial", 0, `no algorithm "binomial" (have recursive_doubling, rabenseifner, ring)`},
		{Collective{Op: Allgather, N: 6, Bytes: 1}, "recursive_doubling", 0, "power-of-two"},
		{Collective{Op: Bcast, N: 6, Bytes: 1}, "scatter_recursive_doubling_allgather", 0, "power-of-two"},
		{Collective{Op: Bcast, N: 4, Sizes: sizes}, "binomial", 0, "no per-rank sizes"},
		{Collective{Op: Alltoall, N: 4, Sizes: sizes}, "bruck", 0, "no per-rank sizes"},
		{Collective{Op: numOps, N: 4}, "binomial", 0, "not an operation"},
	}
	for _, tt := range tests {
		_, err := Plan(tt.c, tt.alg, tt.r)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Plan(%+v, %q, %d) = %v, want an error with %q", tt.c, tt.alg, tt.r, err, tt.want)
		}
	}
	// The root of an unrooted operation does not matter.
	if _, err := Plan(Collective{Op: Allreduce, N: 4, Root: 9, Bytes: 8}, "ring", 0); err != nil {
		t.Error(err)
	}
}

// Plan is O(steps) for one rank: at N = 1,000,000 it only allocates the
// steps it returns.
func TestCollectiveHugeN(t *testing.T) {
	if testing.Short() {
		t.Skip("plans of a million steps")
	}
	const n, pow2 = 1_000_000, 1 << 20
	// With pof2 = 2^19 and rem = N - pof2 = 475712: rank 0 sits out of
	// Allreduce and ReduceScatter, rank 1 survives with a pre- and a
	// post-step, and rank N-1 >= 2*rem only runs the 19 power-of-two steps.
	tests := []struct {
		op    Op
		alg   Algorithm
		n     int
		bytes int64
		steps map[int]int // rank -> steps
	}{
		{Bcast, "binomial", n, 8, map[int]int{0: 20, 1: 1, n - 1: 1}},
		{Bcast, "scatter_recursive_doubling_allgather", pow2, 8 * pow2, map[int]int{0: 40, pow2 - 1: 21}},
		{Bcast, "scatter_ring_allgather", n, 8 * n, map[int]int{0: 20 + n - 1, n - 1: n}},
		{Reduce, "binomial", n, 8, map[int]int{0: 20, n - 1: 1}},
		{Reduce, "rabenseifner", n, 1 << 24, map[int]int{0: 1 + 19 + 19, 1: 1, n - 1: 20}},
		{Allreduce, "recursive_doubling", n, 8, map[int]int{0: 2, 1: 21, n - 1: 19}},
		{Allreduce, "rabenseifner", n, 1 << 24, map[int]int{0: 2, 1: 40, n - 1: 38}},
		{Allreduce, "ring", n, 1 << 24, map[int]int{7: 2 * (n - 1)}},
		{ReduceScatter, "recursive_halving", n, 1 << 24, map[int]int{0: 2, 1: 21, n - 1: 19}},
		{ReduceScatter, "pairwise", n, 1 << 24, map[int]int{5: n - 1}},
		{Barrier, "dissemination", n, 0, map[int]int{0: 20, n - 1: 20}},
		{Gather, "binomial", n, 8, map[int]int{0: 20, n - 1: 1}},
		{Gather, "linear", n, 8, map[int]int{0: n - 1, 3: 1}},
		{Scatter, "binomial", n, 8, map[int]int{0: 20, n - 1: 1}},
		{Scatter, "linear", n, 8, map[int]int{0: n - 1, 3: 1}},
		{Allgather, "recursive_doubling", pow2, 8, map[int]int{0: 20, 12345: 20}},
		{Allgather, "bruck", n, 8, map[int]int{0: 20, n - 1: 20}},
		{Allgather, "ring", n, 8, map[int]int{4: n - 1}},
		{Alltoall, "bruck", n, 8, map[int]int{0: 20}},
		{Alltoall, "scattered", n, 8, map[int]int{0: n - 1}},
		{Alltoall, "pairwise", n, 8, map[int]int{0: n - 1}},
		{Alltoall, "pairwise", pow2, 8, map[int]int{9: pow2 - 1}},
	}
	for _, tt := range tests {
		for r, want := range tt.steps {
			c := Collective{Op: tt.op, N: tt.n, Bytes: tt.bytes}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			steps, err := Plan(c, tt.alg, r)
			runtime.ReadMemStats(&after)
			if err != nil || len(steps) != want {
				t.Errorf("%v %s N=%d rank %d: %d steps, %v; want %d", tt.op, tt.alg, tt.n, r, len(steps), err, want)
			}
			// Appending doubles the capacity, so at most 4 Steps per step.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(4*want)*uint64(unsafe.Sizeof(Step{}))+4096 {
				t.Errorf("%v %s N=%d rank %d: allocated %d bytes for %d steps", tt.op, tt.alg, tt.n, r, alloc, want)
			}
		}
	}
}
