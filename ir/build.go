package ir

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"

	"github.com/parley-hpc/parley/lang"
)

// Build resolves a program that lang.Check has passed. Every variable gets
// its own slot (slots are never shared, so a lazily evaluated range or task
// group can never see its variable overwritten); constant subexpressions
// are folded; optional function arguments are filled in.
func Build(p *lang.Program) (prog *Program, err error) {
	b := &builder{prog: &Program{Lang: p}}
	root := &scope{vars: map[string]Expr{}, groups: map[string]*TaskSet{}}
	err = Catch(func() {
		for _, h := range p.Headers {
			switch h := h.(type) {
			case *lang.ParamDecl:
				consts := &scope{vars: map[string]Expr{}, groups: map[string]*TaskSet{}}
				info := &ParamInfo{
					Name: h.Name.Name, Help: h.Help.Value, Long: h.Long.Value, Short: h.Short.Value,
					Default: b.expr(h.Default, consts), Decl: h,
				}
				for _, r := range h.Sweep {
					info.Sweep = append(info.Sweep, b.rangeExpr(r, consts))
				}
				root.vars[info.Name] = &Param{at: at{h.Name.Span}, Index: len(b.prog.Params), Name: info.Name}
				b.prog.Params = append(b.prog.Params, info)
			case *lang.BackendDecl:
				b.prog.Backends = append(b.prog.Backends, h.Code.Value)
			}
		}
		for i, top := range p.Body {
			b.column = 0
			t := &TopLevel{at: at{top.Span}, Index: i}
			s := root.child()
			for _, st := range top.Stmts {
				t.Stmts = append(t.Stmts, b.stmt(st, s))
			}
			b.prog.Body = append(b.prog.Body, t)
		}
	})
	if err != nil {
		return nil, err
	}
	b.prog.NumSlots = len(b.prog.Slots)
	b.prog.NumStmts = b.nextID
	return b.prog, nil
}

type builder struct {
	prog   *Program
	nextID int
	column int // next log column of the current table
}

// scope maps names to what they denote: a Param, NumTasks, a CounterRef or
// a Var; task groups live in their own namespace.
type scope struct {
	parent *scope
	vars   map[string]Expr
	groups map[string]*TaskSet
}

func (s *scope) child() *scope {
	return &scope{parent: s, vars: map[string]Expr{}, groups: map[string]*TaskSet{}}
}

func (s *scope) lookup(name string) Expr {
	for ; s != nil; s = s.parent {
		if e, ok := s.vars[name]; ok {
			return e
		}
	}
	return nil
}

func (s *scope) group(name string) *TaskSet {
	for ; s != nil; s = s.parent {
		if g, ok := s.groups[name]; ok {
			return g
		}
	}
	return nil
}

// declare gives id a new slot in s.
func (b *builder) declare(s *scope, id *lang.Ident) *Var {
	v := &Var{at: at{id.Span}, Slot: len(b.prog.Slots), Name: id.Name}
	b.prog.Slots = append(b.prog.Slots, id.Name)
	s.vars[id.Name] = v
	return v
}

func (b *builder) base(n lang.Node) stmt {
	id := b.nextID
	b.nextID++
	return stmt{at: at{n.NodeSpan()}, id: id}
}

// ---------------------------------------------------------------------------
// Expressions

var counters = map[string]Counter{
	lang.VarElapsedUsecs: ElapsedUsecs, lang.VarBytesSent: BytesSent,
	lang.VarBytesReceived: BytesReceived, lang.VarTotalBytes: TotalBytes,
	lang.VarMsgsSent: MsgsSent, lang.VarMsgsReceived: MsgsReceived,
	lang.VarTotalMsgs: TotalMsgs, lang.VarBitErrors: BitErrors,
}

func (b *builder) expr(e lang.Expr, s *scope) Expr {
	sp := at{e.NodeSpan()}
	switch e := e.(type) {
	case *lang.IntLit:
		return &Const{at: sp, I: e.Value, F: float64(e.Value)}
	case *lang.Ident:
		if e.Name == lang.VarNumTasks {
			return &NumTasks{at: sp}
		}
		if c, ok := counters[e.Name]; ok {
			return &CounterRef{at: sp, C: c}
		}
		switch v := s.lookup(e.Name).(type) {
		case *Var:
			return &Var{at: sp, Slot: v.Slot, Name: v.Name}
		case *Param:
			return &Param{at: sp, Index: v.Index, Name: v.Name}
		}
		fail(e.Span, "undefined variable %s", e.Name)
	case *lang.MyTask:
		return &MyTask{at: sp}
	case *lang.Unary:
		return fold(&Unary{at: sp, Op: e.Op, X: b.expr(e.X, s)}, e)
	case *lang.Binary:
		return fold(&Binary{at: sp, Op: e.Op, X: b.expr(e.X, s), Y: b.expr(e.Y, s)}, e)
	case *lang.CondExpr:
		return fold(&Cond{at: sp, Then: b.expr(e.Then, s), Cond: b.rel(e.Cond, s), Else: b.expr(e.Else, s)}, e)
	case *lang.Call:
		c := &Call{at: sp, Func: e.Func}
		for _, a := range e.Args {
			c.Args = append(c.Args, b.expr(a, s))
		}
		c.Args = withDefaults(c, sp)
		if pureFunc(e.Func) {
			return fold(c, e)
		}
		return c
	case *lang.MeshCall:
		m := &Mesh{at: sp, Func: e.Func, Task: b.expr(e.Task, s)}
		for i := range 3 {
			m.Dims[i] = &Const{at: sp, I: 1, F: 1}
			if i < len(e.Dims) {
				m.Dims[i] = b.expr(e.Dims[i].Size, s)
				m.Torus[i] = e.Dims[i].Torus
			}
			if i < len(e.Offsets) {
				m.Offsets[i] = b.expr(e.Offsets[i], s)
			}
		}
		if e.Arg != nil {
			m.Arg = b.expr(e.Arg, s)
		}
		return fold(m, e)
	case *lang.FileData:
		d := &FileData{at: sp, Static: e.Static, File: e.File.Value, ColSeps: " \t", RowSeps: "\n"}
		if e.Column != nil {
			d.Column = b.expr(e.Column, s)
		}
		if e.Row != nil {
			d.Row = b.expr(e.Row, s)
		}
		if e.ColSeps != nil {
			d.ColSeps = e.ColSeps.Value
		}
		if e.RowSeps != nil {
			d.RowSeps = e.RowSeps.Value
		}
		return d
	}
	fail(e.NodeSpan(), "unknown expression %T", e)
	return nil
}

// withDefaults fills in optional arguments: fan-out 2 for trees, k = 2 and
// num_tasks for k-nomial trees, and the scale as both bounds of a
// two-argument RANDOM_PARETO.
func withDefaults(c *Call, sp at) []Expr {
	two := &Const{at: sp, I: 2, F: 2}
	a := c.Args
	switch c.Func {
	case lang.FuncTreeParent:
		if len(a) == 1 {
			a = append(a, two)
		}
	case lang.FuncTreeChild:
		if len(a) == 2 {
			a = append(a, two)
		}
	case lang.FuncKnomialParent, lang.FuncKnomialChildren:
		if len(a) == 1 {
			a = append(a, two)
		}
		if len(a) == 2 {
			a = append(a, &NumTasks{at: sp})
		}
	case lang.FuncKnomialChild:
		if len(a) == 2 {
			a = append(a, two)
		}
		if len(a) == 3 {
			a = append(a, &NumTasks{at: sp})
		}
	case lang.FuncRandomPareto:
		if len(a) == 2 {
			a = append(a, a[1])
		}
	}
	return a
}

func pureFunc(f lang.Func) bool {
	switch f {
	case lang.FuncProcessorOf, lang.FuncTaskOf:
		return false
	}
	return !f.IsRandom()
}

// fold replaces an expression whose operands are all constants by its
// value in both contexts, unless evaluating it fails (the error then
// happens at run time, where it belongs).
func fold(e Expr, orig lang.Expr) Expr {
	if !constOperands(e) {
		return e
	}
	var c Const
	if err := Catch(func() { c.I, c.F = e.Int(nil), e.Float(nil) }); err != nil {
		return e
	}
	c.at, c.Orig = at{orig.NodeSpan()}, orig
	return &c
}

func constOperands(e Expr) bool {
	isConst := func(xs ...Expr) bool {
		for _, x := range xs {
			if x == nil {
				continue
			}
			if _, ok := x.(*Const); !ok {
				return false
			}
		}
		return true
	}
	switch e := e.(type) {
	case *Unary:
		return isConst(e.X)
	case *Binary:
		return isConst(e.X, e.Y)
	case *Cond:
		return isConst(e.Then, e.Else) && constRel(e.Cond)
	case *Call:
		return isConst(e.Args...)
	case *Mesh:
		return isConst(e.Dims[0], e.Dims[1], e.Dims[2], e.Task, e.Offsets[0], e.Offsets[1], e.Offsets[2], e.Arg)
	}
	return false
}

func constRel(r Rel) bool {
	switch r := r.(type) {
	case *Compare:
		return constOperands(&Binary{X: r.X, Y: r.Y})
	case *Logic:
		return constRel(r.X) && constRel(r.Y)
	}
	return false
}

func (b *builder) rel(r lang.Rel, s *scope) Rel {
	sp := at{r.NodeSpan()}
	switch r := r.(type) {
	case *lang.Compare:
		return &Compare{at: sp, Op: r.Op, X: b.expr(r.X, s), Y: b.expr(r.Y, s)}
	case *lang.Parity:
		return &Parity{at: sp, X: b.expr(r.X, s), Odd: r.Odd}
	case *lang.InInterval:
		return &InInterval{at: sp, X: b.expr(r.X, s), Lo: b.expr(r.Lo, s), Hi: b.expr(r.Hi, s), Not: r.Not}
	case *lang.InRanges:
		in := &InRanges{at: sp, X: b.expr(r.X, s), Not: r.Not}
		for _, rg := range r.Ranges {
			in.Ranges = append(in.Ranges, b.rangeExpr(rg, s))
		}
		return in
	case *lang.Logic:
		return &Logic{at: sp, Op: r.Op, X: b.rel(r.X, s), Y: b.rel(r.Y, s)}
	}
	fail(r.NodeSpan(), "unknown relation %T", r)
	return nil
}

func (b *builder) rangeExpr(r lang.Range, s *scope) Range {
	sp := at{r.NodeSpan()}
	switch r := r.(type) {
	case *lang.ListRange:
		l := &ListRange{at: sp}
		for _, e := range r.Items {
			l.Items = append(l.Items, b.expr(e, s))
		}
		return l
	case *lang.ProgRange:
		p := &ProgRange{at: sp, Final: b.expr(r.Final, s)}
		for _, e := range r.Initial {
			p.Initial = append(p.Initial, b.expr(e, s))
		}
		return p
	case *lang.CompRange:
		inner := s.child()
		c := &CompRange{at: sp}
		for _, g := range r.Gens {
			gen := &Gen{Name: g.Var.Name}
			for _, rg := range g.Ranges {
				gen.Ranges = append(gen.Ranges, b.rangeExpr(rg, inner))
			}
			gen.Slot = b.declare(inner, g.Var).Slot
			c.Gens = append(c.Gens, gen)
		}
		c.Expr = b.expr(r.Expr, inner)
		if r.Where != nil {
			c.Where = b.rel(r.Where, inner)
		}
		return c
	}
	fail(r.NodeSpan(), "unknown range %T", r)
	return nil
}

// ---------------------------------------------------------------------------
// Task sets

// taskSet resolves a task description in s. If declare is set, its
// variable is declared in s; otherwise the caller has declared it already.
func (b *builder) taskSet(t lang.TaskDesc, s *scope, declare bool) *TaskSet {
	ts := &TaskSet{at: at{t.NodeSpan()}, Slot: -1}
	bindVar := func(id *lang.Ident) {
		if id == nil {
			return
		}
		var v *Var
		if declare {
			v = b.declare(s, id)
		} else {
			v, _ = s.lookup(id.Name).(*Var)
		}
		ts.Slot, ts.Name = v.Slot, v.Name
	}
	switch t := t.(type) {
	case *lang.AllTasks:
		ts.Kind = AllSet
		bindVar(t.Var)
	case *lang.AllOtherTasks:
		ts.Kind = OthersSet
	case *lang.TaskExpr:
		ts.Kind = SingleSet
		ts.X = b.expr(t.X, s)
	case *lang.TasksSuchThat:
		ts.Kind = SuchThatSet
		bindVar(t.Var)
		ts.Cond = b.rel(t.Cond, s)
		ts.bounds = bounds(ts.Cond, ts.Slot)
	case *lang.TasksInRanges:
		ts.Kind = RangeSet
		for _, r := range t.Ranges {
			ts.Ranges = append(ts.Ranges, b.rangeExpr(r, s))
		}
	case *lang.TaskGroup:
		ts.Kind = GroupSet
		ts.Group = s.group(t.Name.Name)
		if ts.Group == nil {
			fail(t.Span, "task group %s is not defined", t.Name.Name)
		}
		// Within the statement the group's name is each member's number.
		v := b.declare(s, t.Name)
		ts.Slot, ts.Name = v.Slot, v.Name
	}
	return ts
}

// bounds finds the conjuncts of cond that bound the variable in slot:
// `v < e`, `e >= v`, `v IS IN [a, b]` and the like, with e independent of v.
func bounds(cond Rel, slot int) []bound {
	var out []bound
	isVar := func(e Expr) bool {
		v, ok := e.(*Var)
		return ok && v.Slot == slot
	}
	flip := map[lang.CmpOp]lang.CmpOp{lang.Eq: lang.Eq, lang.Lt: lang.Gt, lang.Gt: lang.Lt, lang.Le: lang.Ge, lang.Ge: lang.Le}
	var walk func(Rel)
	walk = func(r Rel) {
		switch r := r.(type) {
		case *Logic:
			if r.Op == lang.And {
				walk(r.X)
				walk(r.Y)
			}
		case *Compare:
			if _, ok := flip[r.Op]; !ok {
				return
			}
			switch {
			case isVar(r.X) && !usesSlot(r.Y, slot):
				out = append(out, bound{r.Op, r.Y})
			case isVar(r.Y) && !usesSlot(r.X, slot):
				out = append(out, bound{flip[r.Op], r.X})
			}
		case *InInterval:
			if !r.Not && isVar(r.X) && !usesSlot(r.Lo, slot) && !usesSlot(r.Hi, slot) {
				out = append(out, bound{lang.Ge, r.Lo}, bound{lang.Le, r.Hi})
			}
		}
	}
	walk(cond)
	return out
}

// usesSlot reports whether e reads the variable in slot (or might: random
// values and file data count as dependent).
func usesSlot(e Expr, slot int) bool {
	switch e := e.(type) {
	case *Var:
		return e.Slot == slot
	case *Unary:
		return usesSlot(e.X, slot)
	case *Binary:
		return usesSlot(e.X, slot) || usesSlot(e.Y, slot)
	case *Cond:
		return true // conservative: relations may read the slot
	case *Call:
		if e.Func.IsRandom() {
			return true
		}
		for _, a := range e.Args {
			if usesSlot(a, slot) {
				return true
			}
		}
		return false
	case *Mesh:
		for _, x := range []Expr{e.Dims[0], e.Dims[1], e.Dims[2], e.Task, e.Offsets[0], e.Offsets[1], e.Offsets[2], e.Arg} {
			if x != nil && usesSlot(x, slot) {
				return true
			}
		}
		return false
	case *FileData, *MyTask:
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// Messages

// tagHash maps a string tag to a number; coNCePTuaL hashes string tags
// rather than coercing them. The result fits any MPI's tag range.
func tagHash(s string) int64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int64(h.Sum32() % 32768)
}

func (b *builder) size(q *lang.Quantity, s *scope) *Size {
	if q == nil {
		return nil
	}
	sz := &Size{Unit: q.Unit}
	if q.Amount != nil {
		sz.Amount = b.expr(q.Amount, s)
	}
	return sz
}

func touching(t lang.Touching) Touching {
	switch t {
	case lang.WithDataTouching:
		return TouchData
	case lang.WithVerification:
		return Verify
	}
	return NoTouching
}

func (b *builder) count(e lang.Expr, n lang.Node, s *scope) Expr {
	if e == nil {
		return &Const{at: at{n.NodeSpan()}, I: 1, F: 1}
	}
	return b.expr(e, s)
}

func (b *builder) attrs(m *Message, a *lang.Alignment, tag *lang.Tag, buf *lang.Buffer, s *scope) {
	if a != nil {
		m.Align = a.Kind
		if a.Q != nil {
			m.AlignSize = b.size(a.Q, s)
		}
	}
	if tag != nil {
		if tag.Str != nil {
			m.Tag = &Const{at: at{tag.Span}, I: tagHash(tag.Str.Value), F: float64(tagHash(tag.Str.Value))}
			m.TagString = tag.Str.Value
		} else {
			m.Tag = b.expr(tag.X, s)
		}
	}
	if buf != nil {
		if buf.Number != nil {
			m.Buffer = b.expr(buf.Number, s)
		}
		m.BufferOffs = b.size(buf.Offset, s)
	}
}

func (b *builder) message(m *lang.MsgSpec, s *scope) *Message {
	out := &Message{
		at:     at{m.Span},
		Count:  b.count(m.Count, m, s),
		Size:   b.size(m.Size, s),
		Unique: m.Uniqueness == lang.Unique,
		Touch:  touching(m.Touch),
		Tag:    &Const{at: at{m.Span}},
	}
	b.attrs(out, m.Align, m.Tag, m.Buffer, s)
	return out
}

// recvMessage applies WHO RECEIVES overrides: what the clause leaves out,
// the receive inherits from the send.
func (b *builder) recvMessage(send *Message, r *lang.RecvSpec, s *scope) *Message {
	recv := *send
	if r == nil {
		return &recv
	}
	if r.Uniqueness != 0 {
		recv.Unique = r.Uniqueness == lang.Unique
	}
	if r.Touch != 0 {
		recv.Touch = touching(r.Touch)
	}
	over := &Message{}
	b.attrs(over, r.Align, r.Tag, r.Buffer, s)
	if r.Align != nil {
		recv.Align, recv.AlignSize = over.Align, over.AlignSize
	}
	if r.Tag != nil {
		recv.Tag, recv.TagString = over.Tag, over.TagString
	}
	if r.Buffer != nil {
		recv.Buffer, recv.BufferOffs = over.Buffer, over.BufferOffs
	}
	return &recv
}

func (b *builder) reduceMsg(r *lang.ReduceSpec, s *scope) *ReduceMsg {
	m := &Message{Tag: &Const{at: at{r.Span}}}
	b.attrs(m, r.Align, r.Tag, r.Buffer, s)
	return &ReduceMsg{
		at: at{r.Span}, Count: b.count(r.Count, r, s), Type: r.Type,
		Unique: r.Uniqueness == lang.Unique, Align: m.Align, AlignSize: m.AlignSize,
		Touch: touching(r.Touch), Tag: m.Tag, Buffer: m.Buffer, BufferOffs: m.BufferOffs,
	}
}

// resultMsg is the receive side of a reduction: the explicit result
// specification, with what it leaves out taken from the contribution.
func (b *builder) resultMsg(src *ReduceMsg, r *lang.ReduceSpec, s *scope) *ReduceMsg {
	res := *src
	if r == nil {
		return &res
	}
	got := b.reduceMsg(r, s)
	if r.Typed {
		res.Count, res.Type, res.Unique = got.Count, got.Type, got.Unique
		if r.Align != nil {
			res.Align, res.AlignSize = got.Align, got.AlignSize
		}
	}
	if r.Touch != 0 {
		res.Touch = got.Touch
	}
	if r.Tag != nil {
		res.Tag = got.Tag
	}
	if r.Buffer != nil {
		res.Buffer, res.BufferOffs = got.Buffer, got.BufferOffs
	}
	return &res
}

// ---------------------------------------------------------------------------
// Statements

func (b *builder) stmt(st lang.Stmt, s *scope) Stmt {
	switch st := st.(type) {
	case *lang.Block:
		blk := &Block{stmt: b.base(st)}
		inner := s.child()
		for _, x := range st.Stmts {
			blk.Stmts = append(blk.Stmts, b.stmt(x, inner))
		}
		return blk
	case *lang.ForCount:
		r := &Repeat{stmt: b.base(st), Count: b.expr(st.Count, s), Sync: st.Sync}
		if st.Warmup != nil {
			r.Warmup = b.expr(st.Warmup, s)
		}
		r.Body = b.stmt(st.Body, s)
		return r
	case *lang.ForTime:
		t := &Timed{stmt: b.base(st), Amount: b.expr(st.Amount, s), Unit: st.Unit, WarmupUnit: st.WarmupUnit, Sync: st.Sync}
		if st.Warmup != nil {
			t.Warmup = b.expr(st.Warmup, s)
		}
		t.Body = b.stmt(st.Body, s)
		return t
	case *lang.ForEach:
		f := &ForEach{stmt: b.base(st)}
		for _, r := range st.Ranges {
			f.Ranges = append(f.Ranges, b.rangeExpr(r, s))
		}
		inner := s.child()
		v := b.declare(inner, st.Var)
		f.Slot, f.Name = v.Slot, v.Name
		f.Body = b.stmt(st.Body, inner)
		return f
	case *lang.Let:
		l := &Let{stmt: b.base(st)}
		inner := s.child()
		for _, bd := range st.Bindings {
			l.Bindings = append(l.Bindings, b.binding(bd, inner))
		}
		l.Body = b.stmt(st.Body, inner)
		return l
	case *lang.If:
		i := &If{stmt: b.base(st), Cond: b.rel(st.Cond, s), Then: b.stmt(st.Then, s)}
		if st.Else != nil {
			i.Else = b.stmt(st.Else, s)
		}
		return i
	case *lang.Assert:
		return &Assert{stmt: b.base(st), Msg: st.Msg.Value, Cond: b.rel(st.Cond, s)}
	}
	return b.taskStmt(st, s)
}

func (b *builder) binding(bd *lang.LetBinding, s *scope) *Binding {
	switch {
	case bd.Group != nil:
		// The group's own variable needs a slot for as long as the group
		// can be used, so it is declared in the LET's scope, unnamed.
		g := b.taskSet(bd.Group, s.child(), true)
		s.groups[bd.Name.Name] = g
		return &Binding{Slot: -1, Name: bd.Name.Name, Group: g}
	case bd.Random != nil:
		r := &RandomTask{at: at{bd.Random.Span}, Kind: bd.Random.Kind}
		for _, p := range []struct {
			dst *Expr
			src lang.Expr
		}{{&r.X, bd.Random.X}, {&r.Y, bd.Random.Y}, {&r.ButNot, bd.Random.ButNot}} {
			if p.src != nil {
				*p.dst = b.expr(p.src, s)
			}
		}
		v := b.declare(s, bd.Name)
		return &Binding{Slot: v.Slot, Name: v.Name, Random: r}
	}
	value := b.expr(bd.Value, s)
	v := b.declare(s, bd.Name)
	return &Binding{Slot: v.Slot, Name: v.Name, Value: value}
}

func (b *builder) taskStmt(st lang.Stmt, s *scope) Stmt {
	inner := s.child()
	switch st := st.(type) {
	case *lang.Send:
		out := &Send{stmt: b.base(st), Async: st.Blocking == lang.Asynchronously, Unsuspecting: st.Unsuspecting}
		out.Source = b.taskSet(st.Source, inner, true)
		out.Target = b.taskSet(st.Target, inner, true)
		out.Msg = b.message(st.Msg, inner)
		if !st.Unsuspecting {
			out.Recv = b.recvMessage(out.Msg, st.Recv, inner)
			out.RecvAsync = out.Async
			if st.Recv != nil && st.Recv.Blocking != 0 {
				out.RecvAsync = st.Recv.Blocking == lang.Asynchronously
			}
		}
		return out
	case *lang.Receive:
		// Variables flow both ways across a RECEIVE: declare both first.
		for _, t := range []lang.TaskDesc{st.Target, st.Source} {
			if id := declaredVar(t); id != nil {
				b.declare(inner, id)
			}
		}
		return &Receive{
			stmt:      b.base(st),
			Receivers: b.taskSet(st.Target, inner, false),
			Senders:   b.taskSet(st.Source, inner, false),
			Msg:       b.message(st.Msg, inner),
			Async:     st.Blocking == lang.Asynchronously,
		}
	case *lang.Multicast:
		out := &Multicast{stmt: b.base(st), Async: st.Blocking == lang.Asynchronously}
		out.Source = b.taskSet(st.Source, inner, true)
		out.Msg = b.message(st.Msg, inner)
		out.Target = b.taskSet(st.Target, inner, true)
		return out
	case *lang.Reduce:
		out := &Reduce{stmt: b.base(st), Op: st.Op, Scatter: st.Scatter}
		if out.Op == 0 {
			out.Op = lang.OpSum
		}
		out.Source = b.taskSet(st.Source, inner, true)
		out.Msg = b.reduceMsg(st.Msg, inner)
		if st.Target != nil {
			out.Target = b.taskSet(st.Target, inner.child(), true)
		}
		out.Result = b.resultMsg(out.Msg, st.Result, inner)
		return out
	case *lang.Scatter:
		out := &Scatter{stmt: b.base(st)}
		out.Root = b.taskSet(st.Source, inner, true)
		out.Targets = b.taskSet(st.Target, inner, true)
		out.Msg = b.message(st.Msg, inner)
		return out
	case *lang.Gather:
		out := &Gather{stmt: b.base(st)}
		out.Roots = b.taskSet(st.Root, inner, true)
		out.Sources = b.taskSet(st.Source, inner, true)
		out.Msg = b.message(st.Msg, inner)
		return out
	case *lang.Exchange:
		out := &Exchange{stmt: b.base(st)}
		out.Tasks = b.taskSet(st.Tasks, inner, true)
		out.Peers = b.taskSet(st.Peers, inner, true)
		out.Msg = b.message(st.Msg, inner)
		return out
	case *lang.Synchronize:
		return &Synchronize{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
	case *lang.Await:
		return &Await{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
	case *lang.Delay:
		d := &Delay{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true), Sleep: st.Sleep, Unit: st.Unit}
		d.Amount = b.expr(st.Amount, inner)
		return d
	case *lang.Work:
		w := &Work{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
		w.Flops = b.expr(st.Flops, inner)
		w.Memory = b.size(st.Memory, inner)
		return w
	case *lang.Touch:
		t := &Touch{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true), CountType: st.CountType,
			Stride: st.Stride, StrideType: st.StrideType}
		t.Region = b.size(st.Region, inner)
		for _, p := range []struct {
			dst *Expr
			src lang.Expr
		}{{&t.Count, st.Count}, {&t.Repeat, st.Repeat}, {&t.StrideX, st.StrideX}} {
			if p.src != nil {
				*p.dst = b.expr(p.src, inner)
			}
		}
		return t
	case *lang.TouchBuffer:
		t := &TouchBuffer{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true), Which: st.Which}
		if st.Number != nil {
			t.Number = b.expr(st.Number, inner)
		}
		return t
	case *lang.Log:
		l := &Log{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
		for _, it := range st.Items {
			l.Columns = append(l.Columns, b.columns(it, inner)...)
		}
		return l
	case *lang.ComputeAggregates:
		return &ComputeAggregates{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
	case *lang.Counters:
		return &Counters{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true), Op: st.Op}
	case *lang.Output:
		o := &Output{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
		o.Items = b.items(st.Items, inner)
		return o
	case *lang.BackendExec:
		o := &BackendExec{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
		o.Items = b.items(st.Items, inner)
		return o
	case *lang.Assign:
		a := &Assign{stmt: b.base(st), Tasks: b.taskSet(st.Tasks, inner, true)}
		if st.Processor != nil {
			a.Processor = b.expr(st.Processor, inner)
		}
		return a
	}
	fail(st.NodeSpan(), "unknown statement %T", st)
	return nil
}

func declaredVar(t lang.TaskDesc) *lang.Ident {
	switch t := t.(type) {
	case *lang.AllTasks:
		return t.Var
	case *lang.TasksSuchThat:
		return t.Var
	}
	return nil
}

func (b *builder) items(items []*lang.Item, s *scope) []*Item {
	out := make([]*Item, len(items))
	for i, it := range items {
		out[i] = &Item{ValueOf: it.ValueOf}
		if it.X != nil {
			out[i].X = b.expr(it.X, s)
		} else {
			out[i].Str = it.Str.Value
		}
	}
	return out
}

// columns turns one LOGS item into columns of the current table: one per
// statistic when several are named (THE MEAN AND THE MEDIAN OF x).
func (b *builder) columns(it *lang.LogItem, s *scope) []*LogColumn {
	x := b.expr(it.Agg.X, s)
	col := func() *LogColumn {
		c := &LogColumn{Index: b.column, Heading: it.Heading.Str.Value, ValueOf: it.Heading.ValueOf, Agg: it.Agg.Kind, X: x}
		b.column++
		return c
	}
	if it.Agg.Kind != lang.AggFuncs {
		return []*LogColumn{col()}
	}
	var out []*LogColumn
	for _, f := range it.Agg.Funcs {
		c := col()
		c.Func = f.Kind
		if f.Percentile != nil {
			c.Pct = b.expr(f.Percentile, s)
		}
		out = append(out, c)
	}
	return out
}

// Bytes evaluates a size in bytes: BITS round up to whole bytes, INTEGER
// and PAGE take the machine's sizes. A negative size, or one beyond int64,
// is a run-time error at the amount's position.
func (sz *Size) Bytes(f *Frame) int64 {
	if sz == nil {
		return 0
	}
	if sz.Amount == nil {
		return UnitBytes(sz.Unit, f.G) // one unit; one BIT is one byte
	}
	n := sz.Amount.Int(f)
	if sz.Unit == lang.Bits {
		n = SizeBytes(sz.Amount, n, 1)
		if n%8 != 0 {
			return n/8 + 1
		}
		return n / 8
	}
	return SizeBytes(sz.Amount, n, UnitBytes(sz.Unit, f.G))
}

// Count evaluates a number of things a statement asks for (messages,
// operations, touches, repetitions of touches). None can be negative: that
// is a run-time error at e's position, not a silent zero.
func Count(e Expr, f *Frame) int64 { return nonNegative(e, f, "count") }

// Duration evaluates an amount of time in a statement's unit (COMPUTES
// FOR, SLEEPS FOR, a timed loop), which cannot be negative either.
func Duration(e Expr, f *Frame) int64 { return nonNegative(e, f, "duration") }

func nonNegative(e Expr, f *Frame, what string) int64 {
	n := e.Int(f)
	if n < 0 {
		negative(e, what, n)
	}
	return n
}

// negative fails at e, whose value n cannot be negative. It is apart from
// its callers, which sit on hot paths, so that they stay small enough to
// inline.
//
//go:noinline
func negative(e Expr, what string, n int64) {
	fail(e.Span(), "a %s cannot be negative (%d)", what, n)
}

// SizeBytes is n units of unit bytes each, for a size the program computes
// with e: a negative n, or a product beyond int64, is a run-time error at
// e's position rather than a size that wraps around.
func SizeBytes(e Expr, n, unit int64) int64 {
	hi, lo := bits.Mul64(uint64(n), uint64(unit))
	if n < 0 || unit < 0 || hi != 0 || lo > math.MaxInt64 {
		badSize(e, n, unit)
	}
	return int64(lo)
}

//go:noinline
func badSize(e Expr, n, unit int64) {
	if n < 0 {
		negative(e, "size", n)
	}
	fail(e.Span(), "a size of %d units of %d bytes does not fit in 64 bits", n, unit)
}

// UnitBytes is the number of bytes in one unit; for BITS it is 1 and the
// caller divides (see Size.Bytes).
func UnitBytes(u lang.Unit, g *Globals) int64 {
	switch u {
	case lang.Bits, lang.Bytes:
		return 1
	case lang.Halfwords:
		return 2
	case lang.Words:
		return 4
	case lang.Integers:
		return g.IntSize
	case lang.Doublewords:
		return 8
	case lang.Quadwords:
		return 16
	case lang.Pages:
		return g.PageSize
	case lang.Kilobytes:
		return 1 << 10
	case lang.Megabytes:
		return 1 << 20
	case lang.Gigabytes:
		return 1 << 30
	}
	panic(fmt.Sprintf("unknown unit %d", u))
}
