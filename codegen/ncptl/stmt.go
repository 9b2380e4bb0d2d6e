package ncptl

import (
	"slices"

	"github.com/parley-hpc/parley/lang"
)

// stmt exports one statement: a copy, with what coNCePTuaL lacks lowered.
func (x *exporter) stmt(s lang.Stmt) lang.Stmt {
	c := x.c()
	switch s := s.(type) {
	case *lang.Block:
		n := &lang.Block{Span: s.Span}
		for _, b := range s.Stmts {
			n.Stmts = append(n.Stmts, x.stmt(b))
		}
		return n
	case *lang.ForCount:
		return &lang.ForCount{Span: s.Span, Count: c.expr(s.Count), Warmup: c.expr(s.Warmup), Sync: s.Sync, Body: x.stmt(s.Body)}
	case *lang.ForTime:
		if x.timed > 0 {
			x.refuse(s, "time the outer loop only, or make this loop count repetitions (FOR n REPETITIONS)",
				"a timed loop inside a timed loop (coNCePTuaL's run time stops at the inner one)")
		}
		x.timed++
		defer func() { x.timed-- }()
		n := *s
		n.Amount, n.Warmup = c.expr(s.Amount), c.expr(s.Warmup)
		n.Body = x.stmt(s.Body)
		return &n
	case *lang.ForEach:
		n := &lang.ForEach{Span: s.Span, Var: copyIdent(s.Var), Ranges: c.ranges(s.Ranges)}
		x.bind(s.Var.Name)
		n.Body = x.stmt(s.Body)
		x.unbind(1)
		return n
	case *lang.Let:
		return x.let(s)
	case *lang.If:
		n := &lang.If{Span: s.Span, Cond: c.rel(s.Cond), Then: x.stmt(s.Then)}
		if s.Else != nil {
			n.Else = x.stmt(s.Else)
		}
		return n
	case *lang.Send:
		return x.send(s)
	case *lang.Receive:
		return x.receive(s)
	case *lang.Multicast:
		return x.multicast(s)
	case *lang.Reduce:
		return x.reduce(s)
	case *lang.Scatter:
		return x.scatter(s)
	case *lang.Gather:
		return x.gather(s)
	case *lang.Exchange:
		return x.exchange(s)
	case *lang.Work:
		return x.work(s)
	case *lang.Delay:
		return x.delay(s)
	case *lang.Synchronize:
		return &lang.Synchronize{Span: s.Span, Tasks: x.tasks(s.Tasks)}
	case *lang.Await:
		return &lang.Await{Span: s.Span, Tasks: x.tasks(s.Tasks)}
	case *lang.Touch:
		n := *s
		n.Tasks, n.Count, n.Repeat, n.StrideX = x.tasks(s.Tasks), c.expr(s.Count), c.expr(s.Repeat), c.expr(s.StrideX)
		n.Region = c.quantity(s.Region)
		if s.Stride == lang.StrideRandom {
			x.random = true
		}
		return &n
	case *lang.TouchBuffer:
		return &lang.TouchBuffer{Span: s.Span, Tasks: x.tasks(s.Tasks), Which: s.Which, Number: c.expr(s.Number)}
	case *lang.Log:
		n := &lang.Log{Span: s.Span, Tasks: x.tasks(s.Tasks)}
		for _, it := range s.Items {
			agg := &lang.Aggregate{Span: it.Agg.Span, Kind: it.Agg.Kind, X: c.expr(it.Agg.X)}
			for _, f := range it.Agg.Funcs {
				agg.Funcs = append(agg.Funcs, &lang.AggFunc{Span: f.Span, Kind: f.Kind, Percentile: c.expr(f.Percentile)})
			}
			n.Items = append(n.Items, &lang.LogItem{Span: it.Span, Agg: agg, Heading: c.item(it.Heading)})
		}
		return n
	case *lang.ComputeAggregates:
		return &lang.ComputeAggregates{Span: s.Span, Tasks: x.tasks(s.Tasks)}
	case *lang.Counters:
		return &lang.Counters{Span: s.Span, Tasks: x.tasks(s.Tasks), Op: s.Op}
	case *lang.Assert:
		return &lang.Assert{Span: s.Span, Msg: s.Msg, Cond: c.rel(s.Cond)}
	case *lang.Output:
		return &lang.Output{Span: s.Span, Tasks: x.tasks(s.Tasks), Items: c.items(s.Items)}
	case *lang.BackendExec:
		return &lang.BackendExec{Span: s.Span, Tasks: x.tasks(s.Tasks), Items: c.items(s.Items)}
	case *lang.Assign:
		if s.Processor == nil {
			x.random = true
		}
		return &lang.Assign{Span: s.Span, Tasks: x.tasks(s.Tasks), Processor: c.expr(s.Processor)}
	}
	panic("ncptl: unknown statement")
}

func (x *exporter) bind(names ...string) { x.bound = append(x.bound, names...) }
func (x *exporter) unbind(n int)         { x.bound = x.bound[:len(x.bound)-n] }

func (x *exporter) let(s *lang.Let) lang.Stmt {
	c := x.c()
	n := &lang.Let{Span: s.Span}
	vars, groups := 0, 0
	for _, b := range s.Bindings {
		nb := &lang.LetBinding{Span: b.Span, Name: copyIdent(b.Name)}
		switch {
		case b.Group != nil:
			nb.Group = x.tasks(b.Group)
			x.groups = append(x.groups, groupDef{name: b.Name.Name, desc: nb.Group, depth: len(x.bound)})
			groups++
		case b.Random != nil:
			r := *b.Random
			r.X, r.Y, r.ButNot = c.expr(b.Random.X), c.expr(b.Random.Y), c.expr(b.Random.ButNot)
			nb.Random = &r
			x.random = true
			x.bind(b.Name.Name)
			vars++
		default:
			nb.Value = c.expr(b.Value)
			x.bind(b.Name.Name)
			vars++
		}
		n.Bindings = append(n.Bindings, nb)
	}
	n.Body = x.stmt(s.Body)
	x.unbind(vars)
	x.groups = x.groups[:len(x.groups)-groups]
	// A group whose every use was lowered away goes too: coNCePTuaL would
	// warn that it is never used.
	kept := n.Bindings[:0]
	for _, b := range n.Bindings {
		if b.Group == nil || usesGroup(n.Body, b.Name.Name) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return n.Body
	}
	n.Bindings = kept
	return n
}

// usesGroup reports whether s names the task group g.
func usesGroup(s lang.Stmt, g string) bool {
	named := func(ds ...lang.TaskDesc) bool {
		for _, d := range ds {
			if tg, ok := d.(*lang.TaskGroup); ok && tg.Name.Name == g {
				return true
			}
		}
		return false
	}
	switch s := s.(type) {
	case *lang.Block:
		for _, b := range s.Stmts {
			if usesGroup(b, g) {
				return true
			}
		}
		return false
	case *lang.ForCount:
		return usesGroup(s.Body, g)
	case *lang.ForTime:
		return usesGroup(s.Body, g)
	case *lang.ForEach:
		return usesGroup(s.Body, g)
	case *lang.Let:
		for _, b := range s.Bindings {
			if b.Group != nil && named(b.Group) {
				return true
			}
		}
		return usesGroup(s.Body, g)
	case *lang.If:
		return usesGroup(s.Then, g) || s.Else != nil && usesGroup(s.Else, g)
	case *lang.Send:
		return named(s.Source, s.Target)
	case *lang.Receive:
		return named(s.Source, s.Target)
	case *lang.Multicast:
		return named(s.Source, s.Target)
	case *lang.Reduce:
		return named(s.Source, s.Target)
	}
	if d := lang.Performers(s); d != nil {
		return named(d)
	}
	return false
}

// send exports SENDS. A blocking send from ALL TASKS to ALL OTHER TASKS
// deadlocks (each task receives first), and coNCePTuaL refuses it outright.
func (x *exporter) send(s *lang.Send) lang.Stmt {
	_, all := s.Source.(*lang.AllTasks)
	_, others := s.Target.(*lang.AllOtherTasks)
	if all && others && s.Blocking != lang.Asynchronously && !s.Unsuspecting {
		x.refuse(s, "send ASYNCHRONOUSLY, then have ALL TASKS AWAIT COMPLETION",
			"ALL TASKS blocking-send to ALL OTHER TASKS, which deadlocks (every task receives first)")
	}
	c := x.c()
	n := &lang.Send{Span: s.Span, Source: x.tasks(s.Source), Blocking: s.Blocking, Msg: c.msg(s.Msg),
		Unsuspecting: s.Unsuspecting, Target: x.tasks(s.Target)}
	spec := reads{}
	spec.msg(n.Msg)
	if s.Recv != nil {
		r := *s.Recv
		r.Align, r.Tag, r.Buffer = c.align(s.Recv.Align), c.tag(s.Recv.Tag), c.buffer(s.Recv.Buffer)
		n.Recv = &r
		spec.attrs(r.Align, r.Tag, r.Buffer)
	}
	return x.perTask(n, spec, &n.Source, &n.Target)
}

// receive exports RECEIVES. coNCePTuaL refuses ALL TASKS as receivers; the
// same tasks are TASKS v SUCH THAT v >= 0.
func (x *exporter) receive(s *lang.Receive) lang.Stmt {
	n := &lang.Receive{Span: s.Span, Target: x.tasks(s.Target), Blocking: s.Blocking, Msg: x.c().msg(s.Msg), Source: x.tasks(s.Source)}
	spec := reads{}
	spec.msg(n.Msg)
	st := x.perTask(n, spec, &n.Target, &n.Source)
	if all, ok := n.Target.(*lang.AllTasks); ok {
		v := ""
		if all.Var != nil {
			v = all.Var.Name
		} else {
			v = x.fresh("receiver")
		}
		n.Target = &lang.TasksSuchThat{Span: all.Span, Var: &lang.Ident{Span: all.Span, Name: v},
			Cond: compare(lang.Ge, ident(v), num(0))}
		x.note(lowReceivers, s)
	}
	return st
}

// multicast exports MULTICASTS as coNCePTuaL's c_mpi backend runs them:
// blocking, without tags, alignment or touching.
func (x *exporter) multicast(s *lang.Multicast) lang.Stmt {
	n := &lang.Multicast{Span: s.Span, Source: x.tasks(s.Source), Blocking: s.Blocking, Msg: x.collectiveMsg(s.Msg, s), Target: x.tasks(s.Target)}
	if s.Blocking == lang.Asynchronously {
		n.Blocking = 0
		x.note(lowMcastAsync, s)
	}
	spec := reads{}
	spec.msg(n.Msg)
	return x.perTask(n, spec, &n.Source)
}

// collectiveMsg copies the message of a collective as coNCePTuaL's c_mpi
// backend can multicast it: without tag, alignment, touching or
// verification.
func (x *exporter) collectiveMsg(m *lang.MsgSpec, at lang.Node) *lang.MsgSpec {
	n := x.c().msg(m)
	if n.Tag != nil {
		n.Tag = nil
		x.note(lowCollTag, at)
	}
	if n.Align != nil || n.Touch == lang.WithDataTouching || n.Touch == lang.WithVerification {
		x.note(lowMcastAttrs, at)
	}
	n.Align, n.Touch = nil, 0
	return n
}

// reduce exports REDUCES: without an operator, a tag or a result
// specification, and a reduce-scatter as one reduction per task.
func (x *exporter) reduce(s *lang.Reduce) lang.Stmt {
	c := x.c()
	msg := c.reduceSpec(s.Msg)
	if msg.Tag != nil {
		msg.Tag = nil
		x.note(lowCollTag, s)
	}
	if s.Op != 0 {
		x.note(lowOp, s)
	}
	if s.Result != nil {
		x.note(lowResult, s)
	}
	n := &lang.Reduce{Span: s.Span, Source: x.tasks(s.Source), Msg: msg}
	if s.Scatter {
		return x.reduceScatter(s, n)
	}
	if s.Target != nil {
		if v := declaredVar(s.Source); v != "" {
			if t, ok := s.Target.(*lang.TasksSuchThat); ok && t.Var.Name != v && taskReads(t)[v] {
				// coNCePTuaL 1.5.1b's c_mpi backend writes C that reads the
				// sources' variable, undeclared, where it finds the targets.
				x.refuse(s.Target, "describe the targets without "+v+", e.g. TO TASKS "+t.Var.Name+
					" SUCH THAT ... or TO TASK <expression of "+v+">",
					"a REDUCE whose targets' SUCH THAT reads the sources' variable %s", v)
			}
		}
		n.Target = x.tasks(s.Target)
	}
	return n
}

// tasks copies a task description.
func (x *exporter) tasks(d lang.TaskDesc) lang.TaskDesc {
	c := x.c()
	switch d := d.(type) {
	case *lang.AllTasks:
		return &lang.AllTasks{Span: d.Span, Var: copyIdent(d.Var)}
	case *lang.AllOtherTasks:
		return &lang.AllOtherTasks{Span: d.Span}
	case *lang.TaskExpr:
		return &lang.TaskExpr{Span: d.Span, X: c.expr(d.X)}
	case *lang.TasksSuchThat:
		return &lang.TasksSuchThat{Span: d.Span, Var: copyIdent(d.Var), Cond: c.rel(d.Cond)}
	case *lang.TaskGroup:
		return &lang.TaskGroup{Span: d.Span, Name: copyIdent(d.Name)}
	case *lang.TasksInRanges:
		return &lang.TasksInRanges{Span: d.Span, Ranges: c.ranges(d.Ranges)}
	}
	panic("ncptl: unknown task description")
}

func copyIdent(id *lang.Ident) *lang.Ident {
	if id == nil {
		return nil
	}
	n := *id
	return &n
}

// perTask lowers a statement whose message specification (what spec
// reads) uses a variable declared by one of its task descriptions (the
// fields sides points to, in the order their loops nest): coNCePTuaL's
// message specifications see only variables bound outside the statement.
// The statement becomes a loop over the tasks of each such side, with
// TASK v in its place. A side whose description reads the variable of a
// looped side is looped too, since its test moves out of the statement.
func (x *exporter) perTask(st lang.Stmt, spec reads, sides ...*lang.TaskDesc) lang.Stmt {
	vars := make([]string, len(sides))
	loop := make([]bool, len(sides))
	conds := make([]lang.Rel, len(sides))
	for i, p := range sides {
		vars[i] = declaredVar(*p)
		loop[i] = vars[i] != "" && spec[vars[i]]
	}
	for changed := true; changed; {
		changed = false
		for i, p := range sides {
			if !loop[i] {
				continue
			}
			r := reads{}
			r.tasks(*p)
			for j := range sides {
				if j != i && !loop[j] && vars[j] != "" && r[vars[j]] {
					loop[j], changed = true, true
				}
			}
		}
	}
	looped := false
	for i, p := range sides {
		if loop[i] {
			conds[i] = x.member(*p, vars[i], nil, st, vars...)
			*p = &lang.TaskExpr{Span: (*p).NodeSpan(), X: ident(vars[i])}
			looped = true
		}
	}
	if !looped {
		return st
	}
	// Each loop's test may read only the variables of the loops around it.
	order := make([]int, 0, len(sides))
	placed := map[string]bool{}
	for len(order) < countTrue(loop) {
		progress := false
		for i := range sides {
			if !loop[i] || placed[vars[i]] {
				continue
			}
			r := reads{}
			r.rel(conds[i])
			ready := true
			for j := range sides {
				if j != i && loop[j] && !placed[vars[j]] && r[vars[j]] {
					ready = false
				}
			}
			if ready {
				order = append(order, i)
				placed[vars[i]] = true
				progress = true
			}
		}
		if !progress {
			x.refuse(st, "describe one side without the other's variable",
				"each side's task description uses the other's variable, and the message uses both")
			return st
		}
	}
	x.note(lowTaskVars, st)
	sp := st.NodeSpan()
	out := st
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		out = forEachTask(sp, vars[i], conds[i], out)
	}
	return out
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// member returns the condition that task v (a variable) is one of d's,
// with d's own variable renamed v; nil means every task. ALL OTHER TASKS
// is every task but other. The caller makes sure that v is d's variable
// or a name d does not read. A task group's definition is written out in
// place, which is refused if a variable it reads is bound again since: by
// the statements around, or by inner, the names the condition's own
// statement and loops bind.
func (x *exporter) member(d lang.TaskDesc, v string, other lang.Expr, at lang.Node, inner ...string) lang.Rel {
	switch d := d.(type) {
	case *lang.AllTasks:
		return nil
	case *lang.AllOtherTasks:
		return compare(lang.Ne, ident(v), copier{}.expr(other))
	case *lang.TaskExpr:
		return compare(lang.Eq, ident(v), copier{}.expr(d.X))
	case *lang.TasksSuchThat:
		return rename(copier.rel, d.Cond, d.Var.Name, v)
	case *lang.TasksInRanges:
		return &lang.InRanges{X: ident(v), Ranges: copier{}.ranges(d.Ranges)}
	case *lang.TaskGroup:
		for i := len(x.groups) - 1; i >= 0; i-- {
			g := x.groups[i]
			if g.name != d.Name.Name {
				continue
			}
			r := reads{}
			r.tasks(g.desc)
			for _, b := range append(slices.Clone(x.bound[g.depth:]), inner...) {
				if r[b] {
					x.refuse(at, "rename the variable "+b+" that hides the one the group's definition uses",
						"task group %s uses the variable %s, which is bound again where the group is used", g.name, b)
					return nil
				}
			}
			return x.member(g.desc, v, other, at, inner...)
		}
		// lang.Check refuses it.
		x.refuse(at, "define it first: LET "+d.Name.Name+" BE <tasks> WHILE ...", "task group %s is not defined", d.Name.Name)
	}
	return nil
}
