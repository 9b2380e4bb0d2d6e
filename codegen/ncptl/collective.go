package ncptl

import (
	"github.com/parley-hpc/parley/lang"
)

// Parley's collectives that coNCePTuaL lacks become coNCePTuaL's own
// collectives, MULTICAST and REDUCE, rather than the point-to-point steps
// of an MPI algorithm: like Parley's collectives, and unlike SENDS, they
// leave the message counters alone, so the exported program logs the
// counts Parley predicts; they work for any number of tasks and any subset
// of them (an algorithm's steps depend on each task's rank in the group,
// which no coNCePTuaL expression can compute for a subset); and a
// simulator that models collectives, as CODES does, keeps them whole.

// scatter lowers TASK r SCATTERS: one multicast of the block, or, when the
// block's size depends on the target, one per target.
func (x *exporter) scatter(s *lang.Scatter) lang.Stmt {
	root, ok := x.tasks(s.Source).(*lang.TaskExpr)
	if !ok { // lang.Check refuses it
		x.refuse(s.Source, "a scatter has one root: TASK n SCATTERS ... TO ...", "a scatter from several tasks")
		return s
	}
	msg := x.collectiveMsg(s.Msg, s)
	target := x.tasks(s.Target)
	tv := declaredVar(target)
	spec := reads{}
	spec.msg(msg)
	if tv == "" || !spec[tv] {
		x.note(lowScatter, s)
		switch target.(type) {
		case *lang.AllTasks, *lang.AllOtherTasks:
			target = &lang.AllOtherTasks{Span: target.NodeSpan()}
		}
		return &lang.Multicast{Span: s.Span, Source: root, Msg: msg, Target: target}
	}
	x.note(lowScatterv, s)
	v := tv
	if r := exprReads(root.X); r[v] {
		v = x.fresh(tv)
		msg = rename(copier.msg, msg, tv, v)
	}
	cond := conj(x.member(target, v, root.X, s, v), compare(lang.Ne, ident(v), copier{}.expr(root.X)))
	return forEachTask(s.Span, v, cond, &lang.Multicast{Span: s.Span, Source: root, Msg: msg,
		Target: &lang.TaskExpr{Span: target.NodeSpan(), X: ident(v)}})
}

// gather lowers GATHERS: a multicast from the sources to the root, or from
// every task to every other for an all-gather; one per source when the
// block's size depends on the source.
func (x *exporter) gather(s *lang.Gather) lang.Stmt {
	msg := x.collectiveMsg(s.Msg, s)
	src := x.tasks(s.Source)
	sv := declaredVar(src)
	spec := reads{}
	spec.msg(msg)
	perSource := sv != "" && spec[sv]
	if _, all := s.Root.(*lang.AllTasks); all {
		// lang.Check: an all-gather is ALL TASKS ... FROM ALL TASKS.
		x.note(lowAllgather, s)
		others := &lang.AllOtherTasks{Span: src.NodeSpan()}
		if !perSource {
			return &lang.Multicast{Span: s.Span, Source: &lang.AllTasks{Span: s.Root.NodeSpan()}, Msg: msg, Target: others}
		}
		return forEachTask(s.Span, sv, nil, &lang.Multicast{Span: s.Span,
			Source: &lang.TaskExpr{Span: src.NodeSpan(), X: ident(sv)}, Msg: msg, Target: others})
	}
	root, ok := x.tasks(s.Root).(*lang.TaskExpr)
	if !ok { // lang.Check refuses it
		x.refuse(s.Root, "write TASK n GATHERS ... FROM <tasks>, or ALL TASKS GATHER ... FROM ALL TASKS", "a gather to several tasks")
		return s
	}
	v := sv
	if v == "" || exprReads(root.X)[v] {
		v = x.fresh("source")
		if sv != "" {
			msg = rename(copier.msg, msg, sv, v)
		}
	}
	cond := conj(x.member(src, v, root.X, s, v), compare(lang.Ne, ident(v), copier{}.expr(root.X)))
	if perSource {
		x.note(lowGatherv, s)
		return forEachTask(s.Span, v, cond, &lang.Multicast{Span: s.Span,
			Source: &lang.TaskExpr{Span: src.NodeSpan(), X: ident(v)}, Msg: msg, Target: root})
	}
	x.note(lowGather, s)
	return &lang.Multicast{Span: s.Span, Source: &lang.TasksSuchThat{Span: src.NodeSpan(), Var: ident(v), Cond: cond},
		Msg: msg, Target: root}
}

// exchange lowers tasks EXCHANGE ... WITH peers: each task multicasts to
// its peers among the tasks; one multicast per sender when the size
// depends on the sender, one per pair when it depends on the receiver.
func (x *exporter) exchange(s *lang.Exchange) lang.Stmt {
	msg := x.collectiveMsg(s.Msg, s)
	tasks, peers := x.tasks(s.Tasks), x.tasks(s.Peers)
	sv, pv := declaredVar(tasks), declaredVar(peers)
	spec := reads{}
	spec.msg(msg)
	x.note(lowExchange, s)
	perPair := pv != "" && spec[pv]
	perSender := perPair || sv != "" && spec[sv]
	_, allTasks := tasks.(*lang.AllTasks)
	switch peers.(type) {
	case *lang.AllTasks, *lang.AllOtherTasks:
		if allTasks && !perSender {
			return &lang.Multicast{Span: s.Span, Source: &lang.AllTasks{Span: tasks.NodeSpan()}, Msg: msg,
				Target: &lang.AllOtherTasks{Span: peers.NodeSpan()}}
		}
	}
	// The sender is sv; the receiver d, a name neither side reads.
	sender := sv
	if sender == "" {
		sender = x.fresh("sender")
	}
	d := pv
	if d == "" || d == sender || taskReads(tasks)[d] {
		d = x.fresh("peer")
		if pv != "" {
			msg = rename(copier.msg, msg, pv, d)
		}
	}
	receivers := conj(x.member(tasks, d, nil, s, sender, d), x.member(peers, d, ident(sender), s, sender, d), compare(lang.Ne, ident(d), ident(sender)))
	senders := x.member(tasks, sender, nil, s, sender)
	sp := s.Span
	if perPair {
		mc := &lang.Multicast{Span: sp, Source: &lang.TaskExpr{Span: tasks.NodeSpan(), X: ident(sender)}, Msg: msg,
			Target: &lang.TaskExpr{Span: peers.NodeSpan(), X: ident(d)}}
		return forEachTask(sp, sender, senders, forEachTask(sp, d, receivers, mc))
	}
	target := &lang.TasksSuchThat{Span: peers.NodeSpan(), Var: ident(d), Cond: receivers}
	if perSender {
		return forEachTask(sp, sender, senders, &lang.Multicast{Span: sp,
			Source: &lang.TaskExpr{Span: tasks.NodeSpan(), X: ident(sender)}, Msg: msg, Target: target})
	}
	var source lang.TaskDesc
	switch tasks.(type) {
	case *lang.AllTasks:
		source = &lang.AllTasks{Span: tasks.NodeSpan(), Var: ident(sender)}
	case *lang.TasksSuchThat, *lang.TaskGroup:
		source = tasks // they declare sender already
	default:
		source = &lang.TasksSuchThat{Span: tasks.NodeSpan(), Var: ident(sender), Cond: senders}
	}
	return &lang.Multicast{Span: sp, Source: source, Msg: msg, Target: target}
}

// reduceScatter lowers a reduce-scatter among ALL TASKS to one REDUCE per
// task, of that task's block, to that task. Among some of the tasks it has
// no coNCePTuaL form: the blocks depend on how many tasks take part.
func (x *exporter) reduceScatter(s *lang.Reduce, n *lang.Reduce) lang.Stmt {
	if _, all := s.Source.(*lang.AllTasks); !all {
		x.refuse(s, "reduce-scatter among ALL TASKS, or write one REDUCE ... TO TASK t for each task's block",
			"a reduce-scatter among some of the tasks: each task's block depends on how many tasks take part, "+
				"which no coNCePTuaL expression can count")
		return n
	}
	x.note(lowReduceScatter, s)
	owner := x.fresh("owner")
	count := n.Msg.Count
	if count == nil {
		count = num(1)
	}
	tasks := ident(lang.VarNumTasks)
	extra := &lang.CondExpr{Then: num(1),
		Cond: compare(lang.Lt, ident(owner), binary(lang.Mod, copier{}.expr(count), tasks)), Else: num(0)}
	n.Msg.Count = binary(lang.Add, binary(lang.Div, count, tasks), extra)
	n.Target = &lang.TaskExpr{Span: s.Span, X: ident(owner)}
	return forEachTask(s.Span, owner, nil, n)
}

// exprReads returns the variables e reads.
func exprReads(e lang.Expr) reads {
	r := reads{}
	r.expr(e)
	return r
}

// taskReads returns the variables a task description reads.
// readsRanges is the variables ranges read.
func readsRanges(rs []lang.Range) reads {
	r := reads{}
	r.ranges(rs)
	return r
}

func taskReads(d lang.TaskDesc) reads {
	r := reads{}
	r.tasks(d)
	return r
}
