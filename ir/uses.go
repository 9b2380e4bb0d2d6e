package ir

import "slices"

// Uses reports which variable slots the given nodes read, and whether they
// read anything that can differ between tasks or between evaluations: a
// counter, MY TASK, FILE_DATA or a random function. Nodes may be Expr, Rel,
// Range, *TaskSet, *Message, *Size or *ReduceMsg; nil nodes are skipped. Callers
// use it to tell when two evaluations must agree, e.g. to cache a
// statement's communication pattern.
func Uses(nodes ...any) (slots []int, dynamic bool) {
	u := &uses{}
	for _, n := range nodes {
		u.node(n)
	}
	slices.Sort(u.slots)
	return slices.Compact(u.slots), u.dynamic
}

type uses struct {
	slots   []int
	dynamic bool
}

func (u *uses) node(n any) {
	switch n := n.(type) {
	case nil:
	case Expr:
		u.expr(n)
	case Rel:
		u.rel(n)
	case Range:
		u.rangeExpr(n)
	case *TaskSet:
		u.tasks(n)
	case *Message:
		if n != nil {
			u.exprs(n.Count, n.Tag, n.Buffer)
			u.sizes(n.Size, n.AlignSize, n.BufferOffs)
		}
	case *Size:
		u.sizes(n)
	case *ReduceMsg:
		if n != nil {
			u.exprs(n.Count, n.Tag, n.Buffer)
			u.sizes(n.AlignSize, n.BufferOffs)
		}
	}
}

func (u *uses) exprs(es ...Expr) {
	for _, e := range es {
		if e != nil {
			u.expr(e)
		}
	}
}

func (u *uses) sizes(ss ...*Size) {
	for _, s := range ss {
		if s != nil && s.Amount != nil {
			u.expr(s.Amount)
		}
	}
}

func (u *uses) expr(e Expr) {
	switch e := e.(type) {
	case *Var:
		u.slots = append(u.slots, e.Slot)
	case *CounterRef, *MyTask, *FileData:
		u.dynamic = true
	case *Unary:
		u.expr(e.X)
	case *Binary:
		u.expr(e.X)
		u.expr(e.Y)
	case *Cond:
		u.expr(e.Then)
		u.rel(e.Cond)
		u.expr(e.Else)
	case *Call:
		if e.Func.IsRandom() {
			u.dynamic = true
		}
		u.exprs(e.Args...)
	case *Mesh:
		u.exprs(e.Dims[0], e.Dims[1], e.Dims[2], e.Task, e.Offsets[0], e.Offsets[1], e.Offsets[2], e.Arg)
	}
}

func (u *uses) rel(r Rel) {
	switch r := r.(type) {
	case *Compare:
		u.expr(r.X)
		u.expr(r.Y)
	case *Parity:
		u.expr(r.X)
	case *InInterval:
		u.exprs(r.X, r.Lo, r.Hi)
	case *InRanges:
		u.expr(r.X)
		for _, rg := range r.Ranges {
			u.rangeExpr(rg)
		}
	case *Logic:
		u.rel(r.X)
		u.rel(r.Y)
	}
}

func (u *uses) rangeExpr(r Range) {
	switch r := r.(type) {
	case *ListRange:
		u.exprs(r.Items...)
	case *ProgRange:
		u.exprs(r.Initial...)
		u.expr(r.Final)
	case *CompRange:
		for _, g := range r.Gens {
			for _, rg := range g.Ranges {
				u.rangeExpr(rg)
			}
		}
		u.expr(r.Expr)
		if r.Where != nil {
			u.rel(r.Where)
		}
	}
}

func (u *uses) tasks(s *TaskSet) {
	if s == nil {
		return
	}
	u.exprs(s.X)
	if s.Cond != nil {
		u.rel(s.Cond)
	}
	for _, r := range s.Ranges {
		u.rangeExpr(r)
	}
	u.tasks(s.Group)
}
