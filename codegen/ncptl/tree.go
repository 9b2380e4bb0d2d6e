package ncptl

import (
	"github.com/parley-hpc/parley/lang"
)

// This file holds the tree plumbing: copying expressions (renaming
// variables on the way), finding the variables an expression reads, and
// building the nodes the lowerings write.

// copier deep-copies expressions, relations and ranges. It renames the free
// variables listed in rename, and, when x is set, rewrites the built-in
// calls that coNCePTuaL reads differently (see exporter.fixCall). The copy
// shares nothing with the original, so a lowering may edit it.
type copier struct {
	rename map[string]string
	x      *exporter
}

// without returns c with the variables in names left alone: they are bound
// again inside the construct being copied.
func (c copier) without(names ...string) copier {
	hit := false
	for _, n := range names {
		if _, ok := c.rename[n]; ok {
			hit = true
		}
	}
	if !hit {
		return c
	}
	out := copier{rename: map[string]string{}, x: c.x}
	for k, v := range c.rename {
		out.rename[k] = v
	}
	for _, n := range names {
		delete(out.rename, n)
	}
	return out
}

// renaming returns c with the variable from renamed to, hiding whatever
// from was renamed to outside.
func (c copier) renaming(from, to string) copier {
	out := copier{rename: map[string]string{from: to}, x: c.x}
	for k, v := range c.rename {
		if k != from {
			out.rename[k] = v
		}
	}
	return out
}

func (c copier) expr(e lang.Expr) lang.Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *lang.IntLit:
		n := *e
		return &n
	case *lang.Ident:
		n := *e
		if to, ok := c.rename[e.Name]; ok {
			n.Name = to
		}
		return &n
	case *lang.MyTask:
		n := *e
		return &n
	case *lang.Unary:
		return &lang.Unary{Span: e.Span, Op: e.Op, X: c.expr(e.X)}
	case *lang.Binary:
		return &lang.Binary{Span: e.Span, Op: e.Op, X: c.expr(e.X), Y: c.expr(e.Y)}
	case *lang.CondExpr:
		return &lang.CondExpr{Span: e.Span, Then: c.expr(e.Then), Cond: c.rel(e.Cond), Else: c.expr(e.Else)}
	case *lang.Call:
		n := &lang.Call{Span: e.Span, Func: e.Func, Args: c.exprs(e.Args)}
		if c.x != nil {
			return c.x.fixCall(n)
		}
		return n
	case *lang.MeshCall:
		n := &lang.MeshCall{Span: e.Span, Func: e.Func, Task: c.expr(e.Task), Offsets: c.exprs(e.Offsets), Arg: c.expr(e.Arg)}
		for _, d := range e.Dims {
			n.Dims = append(n.Dims, &lang.MeshDim{Span: d.Span, Size: c.expr(d.Size), Torus: d.Torus})
		}
		if c.x != nil {
			c.x.fixMesh(n)
		}
		return n
	case *lang.FileData:
		n := *e
		n.Column, n.Row = c.expr(e.Column), c.expr(e.Row)
		return &n
	}
	panic("ncptl: unknown expression")
}

func (c copier) exprs(es []lang.Expr) []lang.Expr {
	if es == nil {
		return nil
	}
	out := make([]lang.Expr, len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

func (c copier) rel(r lang.Rel) lang.Rel {
	switch r := r.(type) {
	case nil:
		return nil
	case *lang.Compare:
		return &lang.Compare{Span: r.Span, Op: r.Op, X: c.expr(r.X), Y: c.expr(r.Y)}
	case *lang.Parity:
		return &lang.Parity{Span: r.Span, X: c.expr(r.X), Odd: r.Odd}
	case *lang.InInterval:
		return &lang.InInterval{Span: r.Span, X: c.expr(r.X), Lo: c.expr(r.Lo), Hi: c.expr(r.Hi), Not: r.Not}
	case *lang.InRanges:
		return &lang.InRanges{Span: r.Span, X: c.expr(r.X), Ranges: c.ranges(r.Ranges), Not: r.Not}
	case *lang.Logic:
		return &lang.Logic{Span: r.Span, Op: r.Op, X: c.rel(r.X), Y: c.rel(r.Y)}
	}
	panic("ncptl: unknown relation")
}

func (c copier) ranges(rs []lang.Range) []lang.Range {
	out := make([]lang.Range, len(rs))
	for i, r := range rs {
		out[i] = c.rng(r)
	}
	return out
}

func (c copier) rng(r lang.Range) lang.Range {
	switch r := r.(type) {
	case *lang.ListRange:
		return &lang.ListRange{Span: r.Span, Items: c.exprs(r.Items)}
	case *lang.ProgRange:
		return &lang.ProgRange{Span: r.Span, Initial: c.exprs(r.Initial), Final: c.expr(r.Final)}
	case *lang.CompRange:
		// Each generator's variable is bound in the later generators,
		// the expression and the WHERE clause.
		n := &lang.CompRange{Span: r.Span}
		inner := c
		for _, g := range r.Gens {
			name := g.Var.Name
			ranges := inner.ranges(g.Ranges)
			if c.x != nil && readsRanges(g.Ranges)[name] {
				// An export: coNCePTuaL's C would read this variable where
				// the ranges read the outer one (lowCompVar).
				to := c.x.fresh(name)
				c.x.note(lowCompVar, g)
				inner = inner.renaming(name, to)
				name = to
			} else {
				inner = inner.without(name)
			}
			n.Gens = append(n.Gens, &lang.Generator{Span: g.Span, Var: &lang.Ident{Span: g.Var.Span, Name: name}, Ranges: ranges})
		}
		n.Expr, n.Where = inner.expr(r.Expr), inner.rel(r.Where)
		return n
	}
	panic("ncptl: unknown range")
}

// rename copies e with the free variable from renamed to; the caller makes
// sure that to is not a name e uses already.
func rename[T any](cp func(copier, T) T, e T, from, to string) T {
	return cp(copier{rename: map[string]string{from: to}}, e)
}

// ---------------------------------------------------------------------------
// The variables a construct reads

// reads collects the variables that occur free in what it is given.
type reads map[string]bool

func (r reads) expr(e lang.Expr) {
	switch e := e.(type) {
	case *lang.Ident:
		r[e.Name] = true
	case *lang.Unary:
		r.expr(e.X)
	case *lang.Binary:
		r.expr(e.X)
		r.expr(e.Y)
	case *lang.CondExpr:
		r.expr(e.Then)
		r.rel(e.Cond)
		r.expr(e.Else)
	case *lang.Call:
		for _, a := range e.Args {
			r.expr(a)
		}
	case *lang.MeshCall:
		for _, d := range e.Dims {
			r.expr(d.Size)
		}
		r.expr(e.Task)
		for _, o := range e.Offsets {
			r.expr(o)
		}
		r.expr(e.Arg)
	case *lang.FileData:
		r.expr(e.Column)
		r.expr(e.Row)
	}
}

func (r reads) rel(x lang.Rel) {
	switch x := x.(type) {
	case *lang.Compare:
		r.expr(x.X)
		r.expr(x.Y)
	case *lang.Parity:
		r.expr(x.X)
	case *lang.InInterval:
		r.expr(x.X)
		r.expr(x.Lo)
		r.expr(x.Hi)
	case *lang.InRanges:
		r.expr(x.X)
		r.ranges(x.Ranges)
	case *lang.Logic:
		r.rel(x.X)
		r.rel(x.Y)
	}
}

func (r reads) ranges(rs []lang.Range) {
	for _, x := range rs {
		switch x := x.(type) {
		case *lang.ListRange:
			for _, e := range x.Items {
				r.expr(e)
			}
		case *lang.ProgRange:
			for _, e := range x.Initial {
				r.expr(e)
			}
			r.expr(x.Final)
		case *lang.CompRange:
			// A generator's variable is not free after it.
			inner := reads{}
			bound := map[string]bool{}
			for _, g := range x.Gens {
				gr := reads{}
				gr.ranges(g.Ranges)
				for n := range gr {
					if !bound[n] {
						r[n] = true
					}
				}
				bound[g.Var.Name] = true
			}
			inner.expr(x.Expr)
			inner.rel(x.Where)
			for n := range inner {
				if !bound[n] {
					r[n] = true
				}
			}
		}
	}
}

// tasks collects what a task description reads, apart from the variable it
// declares.
func (r reads) tasks(d lang.TaskDesc) {
	switch d := d.(type) {
	case *lang.TaskExpr:
		r.expr(d.X)
	case *lang.TasksSuchThat:
		inner := reads{}
		inner.rel(d.Cond)
		delete(inner, d.Var.Name)
		for n := range inner {
			r[n] = true
		}
	case *lang.TasksInRanges:
		r.ranges(d.Ranges)
	}
}

// msg collects what a message specification reads.
func (r reads) msg(m *lang.MsgSpec) {
	r.expr(m.Count)
	r.quantity(m.Size)
	r.attrs(m.Align, m.Tag, m.Buffer)
}

func (r reads) quantity(q *lang.Quantity) {
	if q != nil {
		r.expr(q.Amount)
	}
}

func (r reads) attrs(a *lang.Alignment, t *lang.Tag, b *lang.Buffer) {
	if a != nil {
		r.quantity(a.Q)
	}
	if t != nil {
		r.expr(t.X)
	}
	if b != nil {
		r.quantity(b.Offset)
		r.expr(b.Number)
	}
}

// ---------------------------------------------------------------------------
// Builders

func ident(name string) *lang.Ident { return &lang.Ident{Name: name} }

func num(v int64) lang.Expr {
	if v < 0 {
		return &lang.Unary{Op: lang.Neg, X: &lang.IntLit{Value: -v}}
	}
	return &lang.IntLit{Value: v}
}

func binary(op lang.BinaryOp, x, y lang.Expr) lang.Expr { return &lang.Binary{Op: op, X: x, Y: y} }

func call(f lang.Func, args ...lang.Expr) lang.Expr { return &lang.Call{Func: f, Args: args} }

func compare(op lang.CmpOp, x, y lang.Expr) lang.Rel { return &lang.Compare{Op: op, X: x, Y: y} }

// conj joins the relations that are not nil with AND, each once; nil means
// true.
func conj(rs ...lang.Rel) lang.Rel {
	var out lang.Rel
	seen := map[string]bool{}
	for _, r := range rs {
		if r == nil {
			continue
		}
		text := lang.FormatRel(r)
		if seen[text] {
			continue
		}
		seen[text] = true
		if out == nil {
			out = r
		} else {
			out = &lang.Logic{Op: lang.And, X: out, Y: r}
		}
	}
	return out
}

// everyTask is the range {0, ..., num_tasks - 1}.
func everyTask() []lang.Range {
	return []lang.Range{&lang.ProgRange{
		Initial: []lang.Expr{num(0)},
		Final:   binary(lang.Sub, ident(lang.VarNumTasks), num(1)),
	}}
}

// forEachTask is FOR EACH v IN {0, ..., num_tasks - 1} [IF cond THEN] body,
// spanning sp.
func forEachTask(sp lang.Span, v string, cond lang.Rel, body lang.Stmt) lang.Stmt {
	if cond != nil {
		body = &lang.If{Span: sp, Cond: cond, Then: body}
	}
	return &lang.ForEach{Span: sp, Var: &lang.Ident{Span: sp, Name: v}, Ranges: everyTask(), Body: body}
}

// declaredVar is the variable a task description binds for the statement
// it is in: ALL TASKS v, TASKS v SUCH THAT, and TASK GROUP g, whose name
// stands for each member. It is "" for the others.
func declaredVar(d lang.TaskDesc) string {
	switch d := d.(type) {
	case *lang.AllTasks:
		if d.Var != nil {
			return d.Var.Name
		}
	case *lang.TasksSuchThat:
		return d.Var.Name
	case *lang.TaskGroup:
		return d.Name.Name
	}
	return ""
}

// ---------------------------------------------------------------------------
// Copies of the parts of statements

func (c copier) quantity(q *lang.Quantity) *lang.Quantity {
	if q == nil {
		return nil
	}
	return &lang.Quantity{Span: q.Span, Amount: c.expr(q.Amount), Unit: q.Unit}
}

func (c copier) align(a *lang.Alignment) *lang.Alignment {
	if a == nil {
		return nil
	}
	return &lang.Alignment{Span: a.Span, Kind: a.Kind, Q: c.quantity(a.Q)}
}

func (c copier) tag(t *lang.Tag) *lang.Tag {
	if t == nil {
		return nil
	}
	return &lang.Tag{Span: t.Span, X: c.expr(t.X), Str: t.Str}
}

func (c copier) buffer(b *lang.Buffer) *lang.Buffer {
	if b == nil {
		return nil
	}
	return &lang.Buffer{Span: b.Span, Offset: c.quantity(b.Offset), Number: c.expr(b.Number)}
}

func (c copier) msg(m *lang.MsgSpec) *lang.MsgSpec {
	return &lang.MsgSpec{Span: m.Span, Count: c.expr(m.Count), Uniqueness: m.Uniqueness, Size: c.quantity(m.Size),
		Align: c.align(m.Align), Touch: m.Touch, Tag: c.tag(m.Tag), Buffer: c.buffer(m.Buffer)}
}

func (c copier) reduceSpec(r *lang.ReduceSpec) *lang.ReduceSpec {
	return &lang.ReduceSpec{Span: r.Span, Typed: r.Typed, Count: c.expr(r.Count), Uniqueness: r.Uniqueness,
		Align: c.align(r.Align), Type: r.Type, Touch: r.Touch, Tag: c.tag(r.Tag), Buffer: c.buffer(r.Buffer)}
}

func (c copier) item(it *lang.Item) *lang.Item {
	return &lang.Item{Span: it.Span, X: c.expr(it.X), Str: it.Str, ValueOf: it.ValueOf}
}

func (c copier) items(its []*lang.Item) []*lang.Item {
	out := make([]*lang.Item, len(its))
	for i, it := range its {
		out[i] = c.item(it)
	}
	return out
}
