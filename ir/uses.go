package ir

import "slices"

// Uses reports which variable slots the given nodes read, and whether they
// read anything that can differ between tasks or between evaluations: a
// counter, MY TASK, FILE_DATA or a random function. Nodes are as for
// Inspect. Callers use it to tell when two evaluations must agree, e.g. to
// cache a statement's communication pattern.
func Uses(nodes ...any) (slots []int, dynamic bool) {
	Inspect(func(e Expr) {
		switch e := e.(type) {
		case *Var:
			slots = append(slots, e.Slot)
		case *CounterRef, *MyTask, *FileData:
			dynamic = true
		case *Call:
			if e.Func.IsRandom() {
				dynamic = true
			}
		}
	}, nodes...)
	slices.Sort(slots)
	return slices.Compact(slots), dynamic
}

// Inspect calls f for every expression the given nodes hold, outer
// expressions before their operands. Nodes may be Expr, Rel, Range,
// *TaskSet, *Message, *Size or *ReduceMsg; nil nodes are skipped.
func Inspect(f func(Expr), nodes ...any) {
	in := inspector(f)
	for _, n := range nodes {
		in.node(n)
	}
}

type inspector func(Expr)

func (in inspector) node(n any) {
	switch n := n.(type) {
	case nil:
	case Expr:
		in.expr(n)
	case Rel:
		in.rel(n)
	case Range:
		in.rangeExpr(n)
	case *TaskSet:
		in.tasks(n)
	case *Message:
		if n != nil {
			in.exprs(n.Count, n.Tag, n.Buffer)
			in.sizes(n.Size, n.AlignSize, n.BufferOffs)
		}
	case *Size:
		in.sizes(n)
	case *ReduceMsg:
		if n != nil {
			in.exprs(n.Count, n.Tag, n.Buffer)
			in.sizes(n.AlignSize, n.BufferOffs)
		}
	}
}

func (in inspector) exprs(es ...Expr) {
	for _, e := range es {
		if e != nil {
			in.expr(e)
		}
	}
}

func (in inspector) sizes(ss ...*Size) {
	for _, s := range ss {
		if s != nil && s.Amount != nil {
			in.expr(s.Amount)
		}
	}
}

func (in inspector) expr(e Expr) {
	in(e)
	switch e := e.(type) {
	case *Unary:
		in.expr(e.X)
	case *Binary:
		in.expr(e.X)
		in.expr(e.Y)
	case *Cond:
		in.expr(e.Then)
		in.rel(e.Cond)
		in.expr(e.Else)
	case *Call:
		in.exprs(e.Args...)
	case *Mesh:
		in.exprs(e.Dims[0], e.Dims[1], e.Dims[2], e.Task, e.Offsets[0], e.Offsets[1], e.Offsets[2], e.Arg)
	}
}

func (in inspector) rel(r Rel) {
	switch r := r.(type) {
	case *Compare:
		in.expr(r.X)
		in.expr(r.Y)
	case *Parity:
		in.expr(r.X)
	case *InInterval:
		in.exprs(r.X, r.Lo, r.Hi)
	case *InRanges:
		in.expr(r.X)
		for _, rg := range r.Ranges {
			in.rangeExpr(rg)
		}
	case *Logic:
		in.rel(r.X)
		in.rel(r.Y)
	}
}

func (in inspector) rangeExpr(r Range) {
	switch r := r.(type) {
	case *ListRange:
		in.exprs(r.Items...)
	case *ProgRange:
		in.exprs(r.Initial...)
		in.expr(r.Final)
	case *CompRange:
		for _, g := range r.Gens {
			for _, rg := range g.Ranges {
				in.rangeExpr(rg)
			}
		}
		in.expr(r.Expr)
		if r.Where != nil {
			in.rel(r.Where)
		}
	}
}

func (in inspector) tasks(s *TaskSet) {
	if s == nil {
		return
	}
	in.exprs(s.X)
	if s.Cond != nil {
		in.rel(s.Cond)
	}
	for _, r := range s.Ranges {
		in.rangeExpr(r)
	}
	in.tasks(s.Group)
}
