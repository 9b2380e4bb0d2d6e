package lang_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// sameTree compares syntax trees, ignoring positions and source text.
// Slices are compared as maps from index to element: go-cmp diffs slices
// with an edit-distance search that compares nested elements again at each
// level, which is exponential in the nesting depth of a syntax tree.
var sameTree = cmp.Options{
	cmpopts.IgnoreTypes(lang.Span{}),
	cmpopts.IgnoreFields(lang.Program{}, "File", "Source", "Comments"),
	indexed[lang.Header](), indexed[*lang.TopLevel](), indexed[lang.Stmt](),
	indexed[lang.Expr](), indexed[lang.Range](), indexed[*lang.Generator](),
	indexed[*lang.MeshDim](), indexed[*lang.LetBinding](), indexed[*lang.LogItem](),
	indexed[*lang.Item](), indexed[*lang.AggFunc](),
}

func indexed[T any]() cmp.Option {
	return cmp.Transformer("Indexed", func(s []T) map[int]T {
		m := make(map[int]T, len(s))
		for i, v := range s {
			m[i] = v
		}
		return m
	})
}

// roundTrip prints p, parses the text and requires the same tree back, and
// requires the printed text to be a fixed point of formatting.
func roundTrip(t *testing.T, name string, p *lang.Program) {
	t.Helper()
	text := lang.Format(p)
	q, diags := parser.Parse(name, text)
	if diags.HasErrors() {
		t.Fatalf("%s: printed program does not parse:\n%v\n--- printed:\n%s", name, diags, text)
	}
	if diff := cmp.Diff(p, q, sameTree); diff != "" {
		t.Fatalf("%s: parse(print(t)) != t (-want +got):\n%s\n--- printed:\n%s", name, diff, text)
	}
	if again := lang.Format(q); string(again) != string(text) {
		t.Fatalf("%s: format is not a fixed point:\n%s\n--- then:\n%s", name, text, again)
	}
	// The strict spelling reads back as the same tree too.
	strict := lang.FormatStrict(p)
	q, diags = parser.Parse(name, strict)
	if diags.HasErrors() {
		t.Fatalf("%s: strictly printed program does not parse:\n%v\n--- printed:\n%s", name, diags, strict)
	}
	if diff := cmp.Diff(p, q, sameTree); diff != "" {
		t.Fatalf("%s: parse(strict(t)) != t (-want +got):\n%s\n--- printed:\n%s", name, diff, strict)
	}
}

// TestRoundTripRandomPrograms is the property test: for random syntax trees
// covering every construct, parse(print(t)) equals t.
func TestRoundTripRandomPrograms(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range n {
		g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 42))}
		p := g.program()
		roundTrip(t, fmt.Sprintf("random-%d", seed), p)
	}
}

// TestRoundTripFiles checks every example and test program.
func TestRoundTripFiles(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../examples/*.parley", "testdata/*/*.parley", "testdata/*/*.ncptl"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 14 {
		t.Fatalf("found only %d programs", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, diags := parser.Parse(f, src)
		if diags.HasErrors() {
			continue // deliberately malformed programs
		}
		roundTrip(t, f, p)
	}
}

// gen builds random syntax trees in the shapes the parser produces.
type gen struct {
	r     *rand.Rand
	depth int
}

func (g *gen) n(k int) int       { return g.r.IntN(k) }
func (g *gen) coin() bool        { return g.r.IntN(2) == 0 }
func (g *gen) chance(p int) bool { return g.r.IntN(100) < p }

func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

var names = []string{"x", "y", "n", "msgsize", "reps", "flops", "t", "src", "dst", "k", "over", "product", "num_tasks", "elapsed_usecs", "bytes_sent"}

func (g *gen) ident() *lang.Ident { return &lang.Ident{Name: pick(g, names...)} }

// declName is a name that may be declared (not predeclared).
func (g *gen) declName() *lang.Ident {
	return &lang.Ident{Name: pick(g, "x", "y", "n", "msgsize", "t", "src", "dst", "k", "flops")}
}

func (g *gen) str() *lang.StringLit {
	return &lang.StringLit{Value: pick(g, "", "Bytes", "a \"quoted\" word", "tab\there", "line\nbreak", `back\slash`, "Latency (usecs)")}
}

var literals = []struct {
	v    int64
	text string
}{{0, ""}, {1, ""}, {2, ""}, {7, ""}, {64, ""}, {1000, ""}, {65536, "64K"}, {1 << 20, "1M"}, {1000000, "1E6"}, {95, "95TH"}, {2, "2ND"}, {1 << 40, "1T"}}

func (g *gen) lit() *lang.IntLit {
	l := pick(g, literals...)
	return &lang.IntLit{Value: l.v, Text: l.text}
}

func (g *gen) enter() func() { g.depth++; return func() { g.depth-- } }

func (g *gen) expr() lang.Expr {
	defer g.enter()()
	if g.depth > 4 || g.chance(40) {
		if g.coin() {
			return g.lit()
		}
		return g.ident()
	}
	switch g.n(9) {
	case 0:
		return &lang.Unary{Op: pick(g, lang.Neg, lang.Plus, lang.BitNot), X: g.expr()}
	case 1, 2:
		return &lang.Binary{Op: lang.BinaryOp(1 + g.n(int(lang.Pow))), X: g.expr(), Y: g.expr()}
	case 3:
		return &lang.CondExpr{Then: g.expr(), Cond: g.rel(), Else: g.expr()}
	case 4:
		f := pick(g, lang.FuncAbs, lang.FuncMin, lang.FuncMax, lang.FuncReal, lang.FuncRoot, lang.FuncTreeChild, lang.FuncKnomialParent, lang.FuncRandomUniform, lang.FuncBits)
		c := &lang.Call{Func: f}
		for range 1 + g.n(3) {
			c.Args = append(c.Args, g.expr())
		}
		return c
	case 5:
		m := &lang.MeshCall{Func: pick(g, lang.FuncMeshNeighbor, lang.FuncMeshCoordinate, lang.FuncMeshDistance), Task: g.expr()}
		for range 1 + g.n(3) {
			m.Dims = append(m.Dims, &lang.MeshDim{Size: g.expr(), Torus: g.coin()})
		}
		if m.Func == lang.FuncMeshNeighbor {
			for range 1 + g.n(3) {
				m.Offsets = append(m.Offsets, g.expr())
			}
		} else {
			m.Arg = g.expr()
		}
		return m
	case 6:
		fd := &lang.FileData{Static: g.coin(), File: g.str()}
		if g.coin() {
			fd.Column = g.expr()
			if g.coin() {
				fd.Row = g.expr()
				if g.coin() {
					fd.ColSeps = g.str()
					if g.coin() {
						fd.RowSeps = g.str()
					}
				}
			}
		}
		return fd
	case 7:
		return &lang.MyTask{}
	}
	return g.lit()
}

func (g *gen) rel() lang.Rel {
	defer g.enter()()
	if g.depth > 5 {
		return &lang.Compare{Op: lang.Eq, X: g.lit(), Y: g.ident()}
	}
	switch g.n(7) {
	case 0:
		return &lang.Parity{X: g.expr(), Odd: g.coin()}
	case 1:
		return &lang.InInterval{X: g.expr(), Lo: g.expr(), Hi: g.expr(), Not: g.coin()}
	case 2:
		return &lang.InRanges{X: g.expr(), Ranges: g.ranges(), Not: g.coin()}
	case 3, 4:
		return &lang.Logic{Op: pick(g, lang.And, lang.Or), X: g.rel(), Y: g.rel()}
	}
	return &lang.Compare{Op: lang.CmpOp(1 + g.n(int(lang.Divides))), X: g.expr(), Y: g.expr()}
}

func (g *gen) ranges() []lang.Range {
	out := []lang.Range{g.rangeExpr()}
	for g.chance(30) {
		out = append(out, g.rangeExpr())
	}
	return out
}

func (g *gen) exprs(min int) []lang.Expr {
	var out []lang.Expr
	for range min + g.n(3) {
		out = append(out, g.expr())
	}
	return out
}

func (g *gen) rangeExpr() lang.Range {
	defer g.enter()()
	switch g.n(3) {
	case 0:
		return &lang.ListRange{Items: g.exprs(1)}
	case 1:
		return &lang.ProgRange{Initial: g.exprs(1), Final: g.expr()}
	}
	c := &lang.CompRange{Expr: g.expr()}
	for range 1 + g.n(2) {
		c.Gens = append(c.Gens, &lang.Generator{Var: g.declName(), Ranges: g.ranges()})
	}
	if g.coin() {
		c.Where = g.rel()
	}
	return c
}

func (g *gen) tasks(target bool) lang.TaskDesc {
	switch g.n(6) {
	case 0:
		t := &lang.AllTasks{}
		if g.coin() {
			t.Var = g.declName()
		}
		return t
	case 1:
		if target {
			return &lang.AllOtherTasks{}
		}
		return &lang.AllTasks{}
	case 2:
		return &lang.TasksSuchThat{Var: g.declName(), Cond: g.rel()}
	case 3:
		return &lang.TaskGroup{Name: g.declName()}
	case 4:
		return &lang.TasksInRanges{Ranges: g.ranges()}
	}
	return &lang.TaskExpr{X: g.expr()}
}

func (g *gen) unit(dataType bool) lang.Unit {
	if dataType {
		return pick(g, lang.Bytes, lang.Halfwords, lang.Words, lang.Integers, lang.Doublewords, lang.Quadwords, lang.Pages)
	}
	return lang.Unit(1 + g.n(int(lang.Gigabytes)))
}

func (g *gen) quantity() *lang.Quantity { return &lang.Quantity{Amount: g.expr(), Unit: g.unit(false)} }

// size is `expr UNIT` or `TYPE SIZED`.
func (g *gen) size() *lang.Quantity {
	if g.chance(25) {
		return &lang.Quantity{Unit: g.unit(true)}
	}
	return g.quantity()
}

func (g *gen) align() *lang.Alignment {
	switch g.n(3) {
	case 0:
		return &lang.Alignment{Kind: lang.Unaligned}
	case 1:
		return &lang.Alignment{Kind: pick(g, lang.Aligned, lang.Misaligned), Q: &lang.Quantity{Unit: g.unit(true)}}
	}
	return &lang.Alignment{Kind: pick(g, lang.Aligned, lang.Misaligned), Q: g.quantity()}
}

func (g *gen) tag() *lang.Tag {
	if g.coin() {
		return &lang.Tag{Str: g.str()}
	}
	return &lang.Tag{X: g.expr()}
}

func (g *gen) buffer() *lang.Buffer {
	b := &lang.Buffer{}
	if g.coin() {
		b.Offset = g.quantity()
	}
	if g.coin() {
		b.Number = g.expr()
	}
	return b
}

func (g *gen) count() lang.Expr {
	if g.coin() {
		return nil
	}
	return g.expr()
}

func (g *gen) msg() *lang.MsgSpec {
	m := &lang.MsgSpec{Count: g.count(), Uniqueness: lang.Uniqueness(g.n(3))}
	if g.coin() {
		m.Size = g.size()
	}
	if g.coin() {
		m.Align = g.align()
	}
	m.Touch = lang.Touching(g.n(5))
	if g.coin() {
		m.Tag = g.tag()
	}
	if g.coin() {
		m.Buffer = g.buffer()
	}
	return m
}

func (g *gen) recv() *lang.RecvSpec {
	for {
		r := &lang.RecvSpec{Blocking: lang.Blocking(g.n(3)), As: g.coin(), Touch: lang.Touching(g.n(5))}
		if r.As {
			r.Uniqueness = lang.Uniqueness(g.n(3))
			if g.coin() {
				r.Align = g.align()
			}
		}
		if g.coin() {
			r.Tag = g.tag()
		}
		if g.coin() {
			r.Buffer = g.buffer()
		}
		if r.Blocking != 0 || r.As || r.Touch != 0 || r.Tag != nil || r.Buffer != nil {
			return r
		}
	}
}

func (g *gen) reduceSpec(typed bool) *lang.ReduceSpec {
	r := &lang.ReduceSpec{Typed: typed, Touch: lang.Touching(g.n(5))}
	if typed {
		r.Count, r.Uniqueness, r.Type = g.count(), lang.Uniqueness(g.n(3)), g.unit(true)
		if g.coin() {
			r.Align = g.align()
		}
	}
	if g.coin() {
		r.Tag = g.tag()
	}
	if g.coin() {
		r.Buffer = g.buffer()
	}
	if !typed && r.Touch == 0 && r.Tag == nil && r.Buffer == nil {
		r.Touch = lang.WithDataTouching
	}
	return r
}

func (g *gen) item(heading bool) *lang.Item {
	if heading || g.coin() {
		return &lang.Item{Str: g.str(), ValueOf: g.chance(20)}
	}
	return &lang.Item{X: g.expr()}
}

func (g *gen) aggregate() *lang.Aggregate {
	a := &lang.Aggregate{Kind: lang.AggKind(1 + g.n(4)), X: g.expr()}
	if a.Kind == lang.AggFuncs {
		for range 1 + g.n(3) {
			f := &lang.AggFunc{Kind: lang.AggFuncKind(1 + g.n(int(lang.Percentile)))}
			if f.Kind == lang.Percentile {
				f.Percentile = g.lit()
			}
			a.Funcs = append(a.Funcs, f)
		}
	}
	return a
}

func (g *gen) timeUnit() lang.TimeUnit { return lang.TimeUnit(1 + g.n(int(lang.Days))) }

func (g *gen) stmt() lang.Stmt {
	defer g.enter()()
	if g.depth < 4 && g.chance(35) {
		return g.compound()
	}
	src := g.tasks(false)
	switch g.n(22) {
	case 0:
		s := &lang.Send{Source: src, Blocking: lang.Blocking(g.n(3)), Msg: g.msg(), Unsuspecting: g.coin(), Target: g.tasks(true)}
		if !s.Unsuspecting && g.coin() {
			s.Recv = g.recv()
		}
		return s
	case 1:
		return &lang.Receive{Target: g.tasks(true), Blocking: lang.Blocking(g.n(3)), Msg: g.msg(), Source: src}
	case 2:
		return &lang.Multicast{Source: src, Blocking: lang.Blocking(g.n(3)), Msg: g.msg(), Target: g.tasks(true)}
	case 3:
		r := &lang.Reduce{Source: src, Msg: g.reduceSpec(true), Op: lang.ReduceOp(g.n(5))}
		switch g.n(3) {
		case 0:
			r.Target = g.tasks(false)
			if g.coin() {
				r.Result = g.reduceSpec(g.coin())
			}
		case 1:
			r.Result = g.reduceSpec(true)
		default:
			r.Scatter = g.coin()
		}
		return r
	case 4:
		return &lang.Synchronize{Tasks: src}
	case 5:
		return &lang.Await{Tasks: src}
	case 6:
		return &lang.Scatter{Source: src, Msg: g.msg(), Target: g.tasks(true)}
	case 7:
		return &lang.Gather{Root: src, Msg: g.msg(), Source: g.tasks(true)}
	case 8:
		return &lang.Exchange{Tasks: src, Msg: g.msg(), Peers: g.tasks(true)}
	case 9:
		return &lang.Delay{Tasks: src, Sleep: g.coin(), Amount: g.expr(), Unit: g.timeUnit()}
	case 10:
		w := &lang.Work{Tasks: src, Flops: g.expr()}
		if g.coin() {
			w.Memory = g.quantity()
		}
		return w
	case 11:
		t := &lang.Touch{Tasks: src}
		if g.coin() {
			t.Count, t.CountType = g.expr(), g.unit(true)
		}
		if g.coin() {
			t.Region = g.size()
		}
		if g.coin() {
			t.Repeat = g.expr()
		}
		switch g.n(3) {
		case 1:
			t.Stride = lang.StrideRandom
		case 2:
			t.Stride, t.StrideX, t.StrideType = lang.StrideExplicit, g.expr(), g.unit(true)
		}
		return t
	case 12:
		t := &lang.TouchBuffer{Tasks: src, Which: lang.TouchBufferKind(1 + g.n(3))}
		if t.Which == lang.NumberedBuffer {
			t.Number = g.expr()
		}
		return t
	case 13:
		l := &lang.Log{Tasks: src}
		for range 1 + g.n(3) {
			l.Items = append(l.Items, &lang.LogItem{Agg: g.aggregate(), Heading: g.item(true)})
		}
		return l
	case 14:
		return &lang.ComputeAggregates{Tasks: src}
	case 15:
		return &lang.Counters{Tasks: src, Op: lang.CounterOp(1 + g.n(3))}
	case 16:
		return &lang.Assert{Msg: g.str(), Cond: g.rel()}
	case 17:
		o := &lang.Output{Tasks: src}
		for range 1 + g.n(3) {
			o.Items = append(o.Items, g.item(false))
		}
		return o
	case 18:
		o := &lang.BackendExec{Tasks: src}
		for range 1 + g.n(3) {
			o.Items = append(o.Items, g.item(false))
		}
		return o
	case 19:
		a := &lang.Assign{Tasks: src}
		if g.coin() {
			a.Processor = g.expr()
		}
		return a
	}
	return &lang.Synchronize{Tasks: src}
}

func (g *gen) compound() lang.Stmt {
	switch g.n(6) {
	case 0:
		f := &lang.ForCount{Count: g.expr(), Body: g.stmt()}
		if g.coin() {
			f.Warmup, f.Sync = g.expr(), g.coin()
		}
		return f
	case 1:
		f := &lang.ForTime{Amount: g.expr(), Unit: g.timeUnit(), Body: g.stmt()}
		if g.coin() {
			f.Warmup, f.WarmupUnit, f.Sync = g.expr(), g.timeUnit(), g.coin()
		}
		return f
	case 2:
		return &lang.ForEach{Var: g.declName(), Ranges: g.ranges(), Body: g.stmt()}
	case 3:
		l := &lang.Let{}
		for range 1 + g.n(2) {
			b := &lang.LetBinding{Name: g.declName()}
			switch g.n(3) {
			case 0:
				b.Value = g.expr()
			case 1:
				b.Group = g.tasks(false)
			default:
				r := &lang.RandomTask{Kind: lang.RandomKind(1 + g.n(int(lang.RandomIn)))}
				if r.Kind != lang.RandomAny {
					r.X = g.expr()
				}
				if r.Kind == lang.RandomIn {
					r.Y = g.expr()
				}
				if r.Kind >= lang.RandomLessThan && g.coin() {
					r.ButNot = g.expr()
				}
				b.Random = r
			}
			l.Bindings = append(l.Bindings, b)
		}
		l.Body = g.stmt()
		return l
	case 4:
		s := &lang.If{Cond: g.rel(), Then: g.stmt()}
		if g.coin() {
			s.Else = g.stmt()
			if openIf(s.Then) {
				// An OTHERWISE after an open IF binds to it: the parser can
				// only produce this shape with braces.
				s.Then = &lang.Block{Stmts: []lang.Stmt{s.Then}}
			}
		}
		return s
	}
	b := &lang.Block{}
	for range g.n(3) {
		b.Stmts = append(b.Stmts, g.stmt())
	}
	return b
}

func openIf(s lang.Stmt) bool {
	switch s := s.(type) {
	case *lang.ForCount:
		return openIf(s.Body)
	case *lang.ForTime:
		return openIf(s.Body)
	case *lang.ForEach:
		return openIf(s.Body)
	case *lang.Let:
		return openIf(s.Body)
	case *lang.If:
		return s.Else == nil || openIf(s.Else)
	}
	return false
}

func (g *gen) program() *lang.Program {
	p := &lang.Program{}
	if g.coin() {
		p.Headers = append(p.Headers, &lang.VersionDecl{Version: &lang.StringLit{Value: "1.5"}})
	}
	for range g.n(3) {
		d := &lang.ParamDecl{Name: g.declName(), Help: g.str(), Long: &lang.StringLit{Value: "--opt"}, Short: &lang.StringLit{Value: "-o"}, Default: g.expr()}
		if g.chance(30) {
			d.Sweep = g.ranges()
		}
		p.Headers = append(p.Headers, d)
	}
	if g.chance(20) {
		p.Headers = append(p.Headers, &lang.BackendDecl{Code: g.str()})
	}
	for range 1 + g.n(3) {
		top := &lang.TopLevel{}
		for range 1 + g.n(3) {
			top.Stmts = append(top.Stmts, g.stmt())
		}
		p.Body = append(p.Body, top)
	}
	return p
}
