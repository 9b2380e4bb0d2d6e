package codegen

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/logfile"
)

// Every task runs every statement (SPMD), as in the interpreter; a
// statement's task descriptions decide what each task does in it.

func (g *gen) stmt(st ir.Stmt) {
	switch st := st.(type) {
	case *ir.Block:
		for _, s := range st.Stmts {
			g.stmt(s)
		}
	case *ir.Repeat:
		g.repeat(st)
	case *ir.Timed:
		g.comment(st, st.Body)
		loop := g.temp("timed")
		warm := "0"
		if st.Warmup != nil {
			warm = g.usecs(st.Warmup, st.WarmupUnit)
		}
		g.open("for (pr_timed %s = pr_timed_begin(%s, %s, %d); pr_timed_next(&%s);)", loop, g.usecs(st.Amount, st.Unit), warm, b2i(st.Sync), loop)
		g.stmt(st.Body)
		g.close()
		g.release(loop)
	case *ir.ForEach:
		g.comment(st, st.Body)
		g.forEach(st.Ranges, st.Slot, func() { g.stmt(st.Body) })
	case *ir.Let:
		g.comment(st, st.Body)
		g.open("")
		for _, b := range st.Bindings {
			g.binding(b)
		}
		g.stmt(st.Body)
		g.close()
	case *ir.If:
		g.comment(st, st.Then)
		g.open("if (%s)", g.rel(st.Cond, false))
		g.stmt(st.Then)
		if st.Else != nil {
			g.reopen("} else")
			g.stmt(st.Else)
		}
		g.close()
	default:
		g.comment(st, nil)
		g.simple(st)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// paren wraps a condition in parentheses unless it has them.
func paren(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balanced(s[1:len(s)-1]) {
		return s
	}
	return "(" + s + ")"
}

func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// usecs is an amount of a time unit in microseconds, as a double;
// pr_usecs rejects a negative amount as the interpreter does, unless it is
// a constant known to be fine.
func (g *gen) usecs(e ir.Expr, u lang.TimeUnit) string {
	x := g.intExpr(e)
	if c, ok := e.(*ir.Const); !ok || c.I < 0 {
		return fmt.Sprintf("pr_usecs(%s, %d, %s)", x, u.Micros(), pos(e.Span()))
	}
	if u.Micros() == 1 {
		return "(double)" + x
	}
	return fmt.Sprintf("(double)%s * %d", x, u.Micros())
}

func (g *gen) repeat(r *ir.Repeat) {
	g.comment(r, r.Body)
	count := g.intExpr(r.Count)
	if r.Warmup == nil && !r.Sync {
		i := g.temp("rep")
		if _, dynamic := ir.Uses(r.Count); dynamic || g.ie(r.Count).prec != precAtom {
			n := g.temp("reps")
			g.open("for (int64_t %s = 0, %s = %s; %s < %s; %s++)", i, n, count, i, n, i)
			g.release(n)
		} else {
			g.open("for (int64_t %s = 0; %s < %s; %s++)", i, i, count, i)
		}
		g.stmt(r.Body)
		g.close()
		g.release(i)
		return
	}
	warm := "0"
	if r.Warmup != nil {
		warm = g.intExpr(r.Warmup)
	}
	loop := g.temp("reps")
	g.open("for (pr_reps %s = pr_reps_begin(%s, %s, %d); pr_reps_next(&%s);)", loop, count, warm, b2i(r.Sync), loop)
	g.stmt(r.Body)
	g.close()
	g.release(loop)
}

func (g *gen) binding(b *ir.Binding) {
	switch {
	case b.Value != nil:
		x := g.intExpr(b.Value)
		g.define(g.declare(b.Slot, g.level), x, "")
	case b.Random != nil:
		r := b.Random
		x, y, but := "0", "0", "0"
		if r.X != nil {
			x = g.intExpr(r.X)
		}
		if r.Y != nil {
			y = g.intExpr(r.Y)
		}
		if r.ButNot != nil {
			but = g.intExpr(r.ButNot)
		}
		kind := map[lang.RandomKind]int{lang.RandomAny: 0, lang.RandomOtherThan: 1, lang.RandomLessThan: 2,
			lang.RandomGreaterThan: 3, lang.RandomIn: 4}[r.Kind]
		g.define(g.declare(b.Slot, g.level), fmt.Sprintf("pr_random_task(%d, %s, %s, %d, %s)", kind, x, y, b2i(r.ButNot != nil), but), "-1 if no task qualifies")
	}
	// A task group needs no variable: uses refer to its definition.
}

// forEach loops slot's variable over the values of ranges, in order.
func (g *gen) forEach(ranges []ir.Range, slot int, body func()) {
	if len(ranges) == 1 {
		if lo, hi, ok := constRun(ranges[0]); ok {
			v := g.declare(slot, g.level+1)
			g.open("for (int64_t %s = %s; %s <= %s; %s++)", v, intLit(lo), v, intLit(hi), v)
			body()
			g.close()
			return
		}
	}
	vals, k := g.temp("vals"), g.temp("k")
	g.open("")
	g.line("pr_vals %s = {0};", vals)
	for _, r := range ranges {
		g.fill(r, vals)
	}
	g.open("for (size_t %s = 0; %s < %s.n; %s++)", k, k, vals, k)
	g.define(g.declare(slot, g.level), vals+".v["+k+"]", "")
	body()
	g.close()
	g.line("pr_vals_free(&%s);", vals)
	g.close()
	g.release(vals, k)
}

// constRun recognizes a range of consecutive constants, {-1, 0, 1} or
// {1, ..., 8}, which reads best as a counting loop.
func constRun(r ir.Range) (lo, hi int64, ok bool) {
	switch r := r.(type) {
	case *ir.ListRange:
		for i, e := range r.Items {
			c, isConst := e.(*ir.Const)
			if !isConst {
				return 0, 0, false
			}
			if i == 0 {
				lo = c.I
			} else if c.I != lo+int64(i) {
				return 0, 0, false
			}
			hi = c.I
		}
		return lo, hi, len(r.Items) > 0
	case *ir.ProgRange:
		if len(r.Initial) != 1 {
			return 0, 0, false
		}
		a, ok1 := r.Initial[0].(*ir.Const)
		z, ok2 := r.Final.(*ir.Const)
		if ok1 && ok2 && a.I <= z.I {
			return a.I, z.I, true
		}
	}
	return 0, 0, false
}

// fill appends the values of r to the pr_vals named vals.
func (g *gen) fill(r ir.Range, vals string) {
	switch r := r.(type) {
	case *ir.ListRange:
		for _, e := range r.Items {
			g.line("pr_vals_push(&%s, %s);", vals, g.intExpr(e))
		}
	case *ir.ProgRange:
		g.line("pr_prog(&%s, %s, %s);", vals, g.progArgs(r), pos(r.Span()))
	case *ir.CompRange:
		var gens func(i int)
		gens = func(i int) {
			if i == len(r.Gens) {
				if r.Where != nil {
					g.line("if (%s) pr_vals_push(&%s, %s);", g.rel(r.Where, false), vals, g.intExpr(r.Expr))
				} else {
					g.line("pr_vals_push(&%s, %s);", vals, g.intExpr(r.Expr))
				}
				return
			}
			gn := r.Gens[i]
			g.forEach(gn.Ranges, gn.Slot, func() { gens(i + 1) })
		}
		g.open("")
		gens(0)
		g.close()
	}
}

// ---------------------------------------------------------------------------
// Task descriptions

// loopVar is the C name a for loop over a set's members declares: its
// variable, or a temporary based on base.
func (g *gen) loopVar(s *ir.TaskSet, base string) (name string, isTemp bool) {
	if s.Slot >= 0 {
		return g.declare(s.Slot, g.level+1), false
	}
	return g.temp(base), true
}

// ifMember runs body where task (a C expression) is a member of s, with
// s's variable bound to it; other is the task on the statement's other
// side (for ALL OTHER TASKS) or "-1".
func (g *gen) ifMember(s *ir.TaskSet, task, other string, body func()) {
	bind := func() bool {
		if s.Slot >= 0 && g.slotNames[s.Slot] != task {
			g.open("")
			g.define(g.declare(s.Slot, g.level), task, "")
			return true
		}
		return false
	}
	var opened bool
	switch s.Kind {
	case ir.AllSet:
		opened = bind()
		body()
	case ir.OthersSet:
		g.open("if (%s != %s)", task, other)
		if bind() {
			body()
			g.close()
		} else {
			body()
		}
		opened = true
	case ir.SingleSet:
		opened = bind()
		g.open("if (%s)", infix(g.ie(s.X), "==", atom(task), precEq).s)
		body()
		g.close()
	case ir.SuchThatSet:
		opened = bind()
		v := task
		if s.Slot >= 0 {
			v = g.slotNames[s.Slot]
		}
		_ = v
		g.open("if (%s)", g.rel(s.Cond, false))
		body()
		g.close()
	case ir.RangeSet:
		opened = bind()
		v := task
		if s.Slot >= 0 {
			v = g.slotNames[s.Slot]
		}
		g.open("if (%s)", g.inRanges(s.Ranges, v).s)
		body()
		g.close()
	case ir.GroupSet:
		opened = bind()
		g.ifMember(s.Group, task, other, body)
	}
	if opened {
		g.close()
	}
}

// forMembers loops over the members of s in ascending order with s's
// variable bound; body gets the C name of the member.
func (g *gen) forMembers(s *ir.TaskSet, other, base string, body func(v string)) {
	switch s.Kind {
	case ir.SingleSet: // a single task has no variable
		v := g.temp(base)
		g.open("")
		g.line("int64_t %s = %s;", v, g.intExpr(s.X))
		g.open("if (pr_is_task(%s))", v)
		body(v)
		g.close()
		g.close()
		g.release(v)
		return
	case ir.GroupSet:
		g.forMembers(s.Group, other, base, func(v string) {
			if s.Slot >= 0 && g.slotNames[s.Slot] != v {
				name := g.declare(s.Slot, g.level)
				g.define(name, v, "")
				body(name)
				return
			}
			body(v)
		})
		return
	}
	v, tmp := g.loopVar(s, base)
	g.open("for (int64_t %s = 0; %s < num_tasks; %s++)", v, v, v)
	switch s.Kind {
	case ir.AllSet:
		body(v)
	case ir.OthersSet:
		g.open("if (%s != %s)", v, other)
		body(v)
		g.close()
	case ir.SuchThatSet:
		g.open("if (%s)", g.rel(s.Cond, false))
		body(v)
		g.close()
	case ir.RangeSet:
		g.open("if (%s)", g.inRanges(s.Ranges, v).s)
		body(v)
		g.close()
	}
	g.close()
	if tmp {
		g.release(v)
	}
}

// group fills a membership array (pr_members(k)) with the members of s
// plus the extra task (a C expression or ""), and returns its name; for
// every task it is pr_all_tasks(), and for a set that cannot change a
// pr_site's flags, filled once; neither is to be written. g.comm gives
// its communicator.
func (g *gen) group(s *ir.TaskSet, k int, other, extra, name string) string {
	arr := g.temp(name)
	if s.Kind == ir.AllSet || s.Kind == ir.OthersSet && extra != "" && extra == other {
		g.line("char *%s = pr_all_tasks();", arr)
		return arr
	}
	fill := func() { g.forMembers(s, other, "t", func(v string) { g.line("%s[%s] = 1;", arr, v) }) }
	if slots, dynamic := ir.Uses(s); extra == "" && other == "-1" && !dynamic && (len(slots) == 0 || len(slots) == 1 && slots[0] == s.Slot) {
		// The set is the same at every execution: its flags are filled
		// once and its communicator found once per task mapping, where
		// each pass over the tasks would cost microseconds at scale.
		site := fmt.Sprintf("pr_site%d", g.nsites)
		g.nsites++
		g.line("static pr_site %s;", site)
		g.line("char *%s = pr_site_members(&%s);", arr, site)
		g.open("if (!%s.filled)", site)
		fill()
		g.line("%s.filled = 1;", site)
		g.close()
		g.sites[arr] = site
		return arr
	}
	g.line("char *%s = pr_members(%d);", arr, k)
	fill()
	if extra != "" {
		g.line("if (pr_is_task(%s)) %s[%s] = 1;", extra, arr, extra)
	}
	return arr
}

// comm is the C expression of the communicator of membership array
// members (from group).
func (g *gen) comm(members string) string {
	if site, ok := g.sites[members]; ok {
		return fmt.Sprintf("pr_site_comm(&%s, %s)", site, members)
	}
	return "pr_comm(" + members + ")"
}

// targets fills a membership array (pr_members(k)) with the targets of a
// collective from source to target, and returns its name. A target set
// that reads the source's variable names every task it names for some
// source, as in the interpreter (interp's targetsOf) and coNCePTuaL.
func (g *gen) targets(source, target *ir.TaskSet, k int) string {
	if slots, _ := ir.Uses(target); source.Slot < 0 || !slices.Contains(slots, source.Slot) {
		return g.group(target, k, "-1", "", "targets")
	}
	arr := g.temp("targets")
	g.line("char *%s = pr_members(%d);", arr, k)
	g.forMembers(source, "-1", "src", func(string) {
		g.forMembers(target, "-1", "t", func(v string) { g.line("%s[%s] = 1;", arr, v) })
	})
	return arr
}

// ---------------------------------------------------------------------------
// Simple statements

func (g *gen) simple(st ir.Stmt) {
	p := pos(st.Span())
	switch st := st.(type) {
	case *ir.Send:
		g.send(st)
	case *ir.Receive:
		g.receive(st)
	case *ir.Multicast:
		g.forMembers(st.Source, "-1", "src", func(src string) {
			g.open("")
			members := g.group(st.Target, 0, src, src, "group")
			count, bytes, _ := g.message(st.Msg)
			g.line("pr_bcast(%s, %s, %s, %s, %s, %s);", g.comm(members), members, src, count, bytes, p)
			g.release(members)
			g.close()
		})
	case *ir.Reduce:
		g.reduce(st)
	case *ir.Synchronize:
		g.open("")
		members := g.group(st.Tasks, 0, "-1", "", "group")
		g.line("pr_barrier(%s);", g.comm(members))
		g.release(members)
		g.close()
	case *ir.Scatter:
		g.scatter(st)
	case *ir.Gather:
		g.gather(st)
	case *ir.Exchange:
		g.exchange(st)
	case *ir.Await:
		g.ifMember(st.Tasks, "my_task", "-1", func() { g.line("pr_await();") })
	case *ir.Delay:
		fn := "pr_compute"
		if st.Sleep {
			fn = "pr_sleep"
		}
		g.ifMember(st.Tasks, "my_task", "-1", func() { g.line("%s(%s);", fn, g.usecs(st.Amount, st.Unit)) })
	case *ir.Work:
		g.ifMember(st.Tasks, "my_task", "-1", func() {
			g.line("pr_work(%s, %s);", g.count(st.Flops), g.size(st.Memory))
		})
	case *ir.Touch:
		g.ifMember(st.Tasks, "my_task", "-1", func() { g.touch(st) })
	case *ir.TouchBuffer:
		g.ifMember(st.Tasks, "my_task", "-1", func() { g.line("pr_touch_buffers();") })
	case *ir.Log:
		g.ifMember(st.Tasks, "my_task", "-1", func() {
			for _, c := range st.Columns {
				pct := "0"
				if c.Pct != nil {
					pct = g.floatExpr(c.Pct)
				}
				g.line("pr_log(%d, %s, %d, %s, %s, %s);", c.Index, cString(c.Heading), b2i(c.ValueOf), aggName(c), pct, g.floatExpr(c.X))
			}
		})
	case *ir.ComputeAggregates:
		g.ifMember(st.Tasks, "my_task", "-1", func() { g.line("pr_compute_aggregates();") })
	case *ir.Counters:
		fn := map[lang.CounterOp]string{lang.ResetCounters: "pr_reset_counters()", lang.StoreCounters: "pr_store_counters()",
			lang.RestoreCounters: "pr_restore_counters(" + p + ")"}[st.Op]
		g.ifMember(st.Tasks, "my_task", "-1", func() { g.line("%s;", fn) })
	case *ir.Assert:
		g.line("pr_assert(%s, %s, %s);", g.rel(st.Cond, false), cString(st.Msg), p)
	case *ir.Output:
		g.ifMember(st.Tasks, "my_task", "-1", func() {
			format, args := g.items(st.Items)
			// C evaluates arguments in no set order; random draws must
			// happen left to right, as in the interpreter.
			draws := 0
			for _, a := range args {
				if strings.Contains(a, "pr_random_") {
					draws++
				}
			}
			if draws < 2 {
				g.line("pr_output(%s);", strings.Join(append([]string{cString(format)}, args...), ", "))
				return
			}
			g.open("")
			for i, a := range args {
				typ := "double"
				if strings.HasPrefix(a, "pr_log_comment(") {
					typ = "const char *"
				}
				args[i] = g.temp("item")
				g.line("%s %s = %s;", typ, args[i], a)
			}
			g.line("pr_output(%s);", strings.Join(append([]string{cString(format)}, args...), ", "))
			g.release(args...)
			g.close()
		})
	case *ir.BackendExec:
		g.ifMember(st.Tasks, "my_task", "-1", func() {
			var code strings.Builder
			for _, it := range st.Items {
				if it.X != nil {
					code.WriteString("(" + g.floatExpr(it.X) + ")")
				} else {
					code.WriteString(it.Str)
				}
			}
			g.line("%s", code.String())
		})
	case *ir.Assign:
		g.forMembers(st.Tasks, "-1", "t", func(v string) {
			proc := "(int64_t)(pr_pcg_uint64(&pr.sync_rng) % (uint64_t)num_tasks)"
			if st.Processor != nil {
				proc = g.intExpr(st.Processor)
			}
			g.line("pr_assign(%s, %s);", v, proc)
		})
	default:
		g.fail(st.Span(), "the C backend cannot translate %T", st)
	}
}

var aggFuncNames = map[lang.AggFuncKind]logfile.Func{
	lang.Mean: logfile.Mean, lang.ArithmeticMean: logfile.Mean, lang.HarmonicMean: logfile.HarmonicMean,
	lang.GeometricMean: logfile.GeometricMean, lang.Median: logfile.Median,
	lang.StandardDeviation: logfile.StdDev, lang.MedianAbsoluteDeviation: logfile.MAD,
	lang.Variance: logfile.Variance, lang.Sum: logfile.Sum, lang.Minimum: logfile.Minimum,
	lang.Maximum: logfile.Maximum, lang.Final: logfile.Final, lang.Percentile: logfile.Percentile,
}

var runtimeAggNames = [...]string{
	logfile.AllData: "PR_ALL_DATA", logfile.Mean: "PR_MEAN", logfile.HarmonicMean: "PR_HARMONIC_MEAN",
	logfile.GeometricMean: "PR_GEOMETRIC_MEAN", logfile.Median: "PR_MEDIAN", logfile.MAD: "PR_MAD",
	logfile.StdDev: "PR_STDDEV", logfile.Variance: "PR_VARIANCE", logfile.Sum: "PR_SUM",
	logfile.Minimum: "PR_MINIMUM", logfile.Maximum: "PR_MAXIMUM", logfile.Final: "PR_FINAL",
	logfile.Only: "PR_ONLY", logfile.Histogram: "PR_HISTOGRAM", logfile.Percentile: "PR_PERCENTILE",
}

func aggName(c *ir.LogColumn) string {
	f := logfile.AllData
	switch c.Agg {
	case lang.AggOnly:
		f = logfile.Only
	case lang.AggHistogram:
		f = logfile.Histogram
	case lang.AggFuncs:
		f = aggFuncNames[c.Func]
	}
	return runtimeAggNames[f]
}

// items turns OUTPUTS items into a printf format and its arguments:
// numbers as C's %.10g, as coNCePTuaL prints them.
func (g *gen) items(items []*ir.Item) (string, []string) {
	var f strings.Builder
	var args []string
	for _, it := range items {
		switch {
		case it.X != nil:
			f.WriteString("%.10g")
			args = append(args, g.floatExpr(it.X))
		case it.ValueOf:
			f.WriteString("%s")
			args = append(args, "pr_log_comment("+cString(it.Str)+")")
		default:
			f.WriteString(strings.ReplaceAll(it.Str, "%", "%%"))
		}
	}
	return f.String(), args
}

// size is an amount of data in bytes, as a C expression. pr_size checks it
// as ir.SizeBytes does, unless it is a constant known to be fine.
func (g *gen) size(sz *ir.Size) string {
	if sz == nil {
		return "0"
	}
	b := ir.UnitBytes(sz.Unit, &ir.Globals{IntSize: 4, PageSize: 4096})
	if sz.Amount == nil {
		return fmt.Sprint(b)
	}
	n := g.intExpr(sz.Amount)
	c, isConst := sz.Amount.(*ir.Const)
	if !isConst || c.I < 0 || c.I > math.MaxInt64/b {
		n = fmt.Sprintf("pr_size(%s, %d, %s)", n, b, pos(sz.Amount.Span()))
		b = 1
	}
	switch {
	case sz.Unit == lang.Bits:
		return "pr_bits_to_bytes(" + n + ")"
	case b == 1:
		return n
	}
	return fmt.Sprintf("%s * %d", g.ie(sz.Amount).in(precMul, false), b)
}

// count is a number of messages, operations or touches, as a C
// expression. pr_count checks it as ir.Count does, unless it is a constant
// known to be fine.
func (g *gen) count(e ir.Expr) string {
	if c, ok := e.(*ir.Const); ok && c.I >= 0 {
		return g.intExpr(e)
	}
	return fmt.Sprintf("pr_count(%s, %s)", g.intExpr(e), pos(e.Span()))
}

// message returns a message's count, size in bytes and tag, and its flags.
func (g *gen) message(m *ir.Message) (count, bytes, tag string) {
	return g.count(m.Count), g.size(m.Size), g.intExpr(m.Tag)
}

func flags(m *ir.Message) string {
	switch m.Touch {
	case ir.TouchData:
		return "PR_TOUCH"
	case ir.Verify:
		return "PR_VERIFY"
	}
	return "0"
}

// p2p writes one point-to-point call.
func (g *gen) p2p(fn, peer string, m *ir.Message, st ir.Stmt) {
	count, bytes, tag := g.message(m)
	g.line("%s(%s, %s, %s, %s, %s, %s);", fn, peer, count, bytes, tag, flags(m), pos(st.Span()))
}

// send: the implied receives come first, from each source in ascending
// order, then the sends to each target in ascending order, as coNCePTuaL
// defines.
func (g *gen) send(st *ir.Send) {
	recv, send := "pr_recv", "pr_send"
	if st.RecvAsync {
		recv = "pr_irecv"
	}
	if st.Async {
		send = "pr_isend"
	}
	if !st.Unsuspecting {
		g.receivesFrom(st, st.Source, st.Target, st.Recv, recv)
	}
	g.ifMember(st.Source, "my_task", "-1", func() {
		g.forMembers(st.Target, "my_task", "dst", func(dst string) { g.p2p(send, dst, st.Msg, st) })
	})
}

// receivesFrom writes this task's receives from every source of a
// statement that targets it. Where the target is a function of the
// source that can be inverted (t+k, t-k, t XOR k, MESH_NEIGHBOR with fixed
// offsets), the one candidate source is computed directly and checked;
// otherwise every source is tried.
func (g *gen) receivesFrom(st ir.Stmt, source, target *ir.TaskSet, m *ir.Message, fn string) {
	if src, ok := g.inverse(source, target); ok {
		g.open("")
		v := g.declare(source.Slot, g.level)
		g.line("int64_t %s = %s; /* the only task that can send here */", v, src)
		g.open("if (pr_is_task(%s))", v)
		g.ifMember(source, v, "-1", func() {
			g.ifMember(target, "my_task", v, func() { g.p2p(fn, v, m, st) })
		})
		g.close()
		g.close()
		return
	}
	g.forMembers(source, "-1", "src", func(src string) {
		g.ifMember(target, "my_task", src, func() { g.p2p(fn, src, m, st) })
	})
}

// inverse recognizes targets `TASK f(v)` for a source variable v where f
// is invertible, and returns f's inverse applied to my_task.
func (g *gen) inverse(source, target *ir.TaskSet) (string, bool) {
	if source.Slot < 0 || target.Kind != ir.SingleSet || (source.Kind != ir.AllSet && source.Kind != ir.SuchThatSet) {
		return "", false
	}
	v := source.Slot
	usesOnly := func(e ir.Expr) bool {
		slots, dynamic := ir.Uses(e)
		return !dynamic && !slices.Contains(slots, v)
	}
	isVar := func(e ir.Expr) bool {
		x, ok := e.(*ir.Var)
		return ok && x.Slot == v
	}
	switch x := target.X.(type) {
	case *ir.Var:
		if x.Slot == v {
			return "my_task", true
		}
	case *ir.Binary:
		switch {
		case x.Op == lang.Add && isVar(x.X) && usesOnly(x.Y):
			return "my_task - " + g.ie(x.Y).in(precAdd, true), true
		case x.Op == lang.Add && isVar(x.Y) && usesOnly(x.X):
			return "my_task - " + g.ie(x.X).in(precAdd, true), true
		case x.Op == lang.Sub && isVar(x.X) && usesOnly(x.Y):
			return "my_task + " + g.ie(x.Y).in(precAdd, true), true
		case x.Op == lang.Xor && isVar(x.X) && usesOnly(x.Y):
			return "my_task ^ " + g.ie(x.Y).in(precUnary, true), true
		}
	case *ir.Mesh:
		if x.Func != lang.FuncMeshNeighbor || !isVar(x.Task) {
			return "", false
		}
		neg := *x
		for i := range 3 {
			if !usesOnly(x.Dims[i]) || x.Offsets[i] != nil && !usesOnly(x.Offsets[i]) {
				return "", false
			}
			if c, ok := x.Offsets[i].(*ir.Const); ok {
				neg.Offsets[i] = &ir.Const{I: -c.I, F: -c.F}
			} else if x.Offsets[i] != nil {
				neg.Offsets[i] = &ir.Unary{Op: lang.Neg, X: x.Offsets[i]}
			}
		}
		neg.Task = &ir.MyTask{}
		return g.intExpr(&neg), true
	}
	return "", false
}

// receive: an explicit RECEIVE. When the senders are described in terms
// of the receivers' variable, a receiver finds its senders directly.
func (g *gen) receive(st *ir.Receive) {
	fn := "pr_recv"
	if st.Async {
		fn = "pr_irecv"
	}
	receiverFirst := false
	if st.Receivers.Slot >= 0 {
		slots, _ := ir.Uses(st.Senders)
		receiverFirst = slices.Contains(slots, st.Receivers.Slot)
	}
	if !receiverFirst {
		g.receivesFrom(st, st.Senders, st.Receivers, st.Msg, fn)
		return
	}
	g.ifMember(st.Receivers, "my_task", "-1", func() {
		g.forMembers(st.Senders, "my_task", "src", func(src string) { g.p2p(fn, src, st.Msg, st) })
	})
}

// reduce maps REDUCE onto MPI's reductions (see pr_reduce_to).
func (g *gen) reduce(st *ir.Reduce) {
	p := pos(st.Span())
	items := g.count(st.Msg.Count)
	typ := ir.UnitBytes(st.Msg.Type, &ir.Globals{IntSize: 4, PageSize: 4096})
	op := int(st.Op)
	g.open("")
	from := g.group(st.Source, 0, "-1", "", "group")
	switch {
	case st.Scatter:
		g.line("pr_reduce_scatter(%s, %s, %d, %d, %s);", g.comm(from), items, typ, op, p)
	case st.Target == nil:
		g.line("pr_allreduce(%s, %s, %d, %d, %s);", g.comm(from), items, typ, op, p)
	default:
		to := g.targets(st.Source, st.Target, 1)
		g.line("pr_reduce_to(%s, %s, %s, %d, %d, %s);", from, to, items, typ, op, p)
		g.release(to)
	}
	g.release(from)
	g.close()
}

// vSizes writes a per-task size array for a "v" collective when the
// message size uses a variable of either side, and returns its name, or
// "" when the size is the same for everyone.
func (g *gen) vSizes(m *ir.Message, members string, from, to *ir.TaskSet) string {
	slots, _ := ir.Uses(m.Size)
	if !(from.Slot >= 0 && slices.Contains(slots, from.Slot) || to.Slot >= 0 && slices.Contains(slots, to.Slot)) {
		return ""
	}
	sizes := g.temp("sizes")
	g.line("int64_t *%s = pr_sizes();", sizes)
	v, tmp := g.loopVar(from, "t")
	g.open("for (int64_t %s = 0; %s < num_tasks; %s++)", v, v, v)
	if to.Slot >= 0 && g.slotNames[to.Slot] != v {
		g.define(g.declare(to.Slot, g.level), v, "")
	}
	g.line("if (%s[%s]) %s[%s] = %s;", members, v, sizes, v, g.size(m.Size))
	g.close()
	if tmp {
		g.release(v)
	}
	return sizes
}

func (g *gen) scatter(st *ir.Scatter) {
	p := pos(st.Span())
	g.open("")
	root := g.temp("root")
	g.line("int64_t %s = %s;", root, g.intExpr(st.Root.X))
	g.open("if (pr_is_task(%s))", root)
	if st.Root.Slot >= 0 {
		g.define(g.declare(st.Root.Slot, g.level), root, "")
	}
	members := g.group(st.Targets, 0, root, root, "group")
	sizes := g.vSizes(st.Msg, members, st.Root, st.Targets)
	count, bytes := g.count(st.Msg.Count), g.uniformSize(st.Msg, sizes)
	g.line("pr_scatter(%s, %s, %s, %s, %s, %s, %s);", g.comm(members), members, root, count, bytes, orNull(sizes), p)
	if sizes != "" {
		g.line("free(%s);", sizes)
		g.release(sizes)
	}
	g.close()
	g.close()
	g.release(root, members)
}

func (g *gen) gather(st *ir.Gather) {
	p := pos(st.Span())
	g.open("")
	count := g.count(st.Msg.Count)
	if st.Roots.Kind == ir.AllSet {
		members := g.group(st.Sources, 0, "-1", "", "group")
		sizes := g.vSizes(st.Msg, members, st.Sources, st.Roots)
		bytes := g.uniformSize(st.Msg, sizes)
		g.line("pr_gather(%s, %s, -1, %s, %s, %s, %s);", g.comm(members), members, count, bytes, orNull(sizes), p)
		if sizes != "" {
			g.line("free(%s);", sizes)
			g.release(sizes)
		}
		g.release(members)
		g.close()
		return
	}
	root := g.temp("root")
	g.line("int64_t %s = %s;", root, g.intExpr(st.Roots.X))
	g.open("if (pr_is_task(%s))", root)
	members := g.group(st.Sources, 0, root, root, "group")
	sizes := g.vSizes(st.Msg, members, st.Sources, st.Roots)
	bytes := g.uniformSize(st.Msg, sizes)
	g.line("pr_gather(%s, %s, %s, %s, %s, %s, %s);", g.comm(members), members, root, count, bytes, orNull(sizes), p)
	if sizes != "" {
		g.line("free(%s);", sizes)
		g.release(sizes)
	}
	g.close()
	g.close()
	g.release(root, members)
}

// uniformSize is the message size for every member, or 0 when the "v"
// form's per-member sizes replace it.
func (g *gen) uniformSize(m *ir.Message, sizes string) string {
	if sizes != "" {
		return "0"
	}
	return g.size(m.Size)
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

// exchange: MPI_Alltoall when every member sends the same size to every
// other, MPI_Alltoallv with per-pair sizes otherwise.
func (g *gen) exchange(st *ir.Exchange) {
	p := pos(st.Span())
	g.open("")
	members := g.group(st.Tasks, 0, "-1", "", "group")
	count := g.count(st.Msg.Count)
	slots, _ := ir.Uses(st.Msg.Size)
	usesVar := st.Tasks.Slot >= 0 && slices.Contains(slots, st.Tasks.Slot) || st.Peers.Slot >= 0 && slices.Contains(slots, st.Peers.Slot)
	if !usesVar && (st.Peers.Kind == ir.AllSet || st.Peers.Kind == ir.OthersSet) {
		g.line("pr_alltoall(%s, %s, %s, %s);", g.comm(members), count, g.size(st.Msg.Size), p)
		g.release(members)
		g.close()
		return
	}
	send, recv, v := g.temp("send"), g.temp("recv"), g.temp("peer")
	g.line("int64_t *%s = pr_sizes(), *%s = pr_sizes();", send, recv)
	g.open("for (int64_t %s = 0; %s < num_tasks; %s++)", v, v, v)
	g.line("if (!%s[%s] || !%s[my_task] || %s == my_task) continue;", members, v, members, v)
	pair := func(from, to, into string) {
		g.open("")
		if st.Tasks.Slot >= 0 {
			g.define(g.declare(st.Tasks.Slot, g.level), from, "")
		}
		g.ifMember(st.Peers, to, from, func() { g.line("%s[%s] = %s;", into, v, g.size(st.Msg.Size)) })
		g.close()
	}
	pair("my_task", v, send)
	pair(v, "my_task", recv)
	g.close()
	g.line("pr_alltoallv(%s, %s, %s, %s, %s, %s);", g.comm(members), members, count, send, recv, p)
	g.line("free(%s);", send)
	g.line("free(%s);", recv)
	g.release(send, recv, v, members)
	g.close()
}

// touch: the words touched follow the interpreter's accounting (see
// interp.touchBytes): a count of items, or every word (4 bytes) of the
// region at the stride.
func (g *gen) touch(st *ir.Touch) {
	glob := &ir.Globals{IntSize: 4, PageSize: 4096}
	region := g.size(st.Region)
	count, word := "-1", int64(4)
	if st.Count != nil {
		count = g.count(st.Count)
		word = ir.UnitBytes(st.CountType, glob)
	}
	stride := "1"
	switch st.Stride {
	case lang.StrideExplicit:
		stride = fmt.Sprintf("pr_max2(1, %s * %d / %d)", g.ie(st.StrideX).in(precMul, false), ir.UnitBytes(st.StrideType, glob), word)
	case lang.StrideRandom:
		stride = "0"
	}
	repeat := "1"
	if st.Repeat != nil {
		repeat = g.count(st.Repeat)
	}
	g.line("pr_touch(%s, %s, %d, %s, %s);", region, count, word, stride, repeat)
}
