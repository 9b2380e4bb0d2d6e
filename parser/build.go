package parser

import (
	"fmt"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/parley-hpc/parley/lang"
)

// builder turns grammar structs into lang nodes, reporting what the grammar
// accepts but the language does not.
type builder struct {
	src   []byte
	scan  *scanResult
	diags lang.Diagnostics
}

func newBuilder(src []byte, res *scanResult) *builder {
	return &builder{src: src, scan: res}
}

// span is the span of a node that matched tokens; nodes that may match
// none have optTokens and use spanFrom.
func (b *builder) span(t tokens) lang.Span { return b.spanFrom(t.Tokens[0].Pos, t) }

// spanFrom is the span of t's tokens, which start at start: the node's
// Pos for a node that may match none (see optTokens).
func (b *builder) spanFrom(pos lexer.Position, t tokens) lang.Span {
	start := toLangPos(pos)
	end := start
	if n := len(t.Tokens); n > 0 {
		// Tokens are in source order: find the last one by its offset.
		toks := b.scan.tokens
		last := t.Tokens[n-1].Pos.Offset
		if i := sort.Search(len(toks), func(i int) bool { return toks[i].Pos.Offset >= last }); i < len(toks) && toks[i].Pos.Offset == last {
			end = b.scan.end(i)
		}
	}
	return lang.Span{Start: start, End: end}
}

func (b *builder) errorf(s lang.Span, hint, format string, args ...any) {
	b.diags = append(b.diags, lang.Diagnostic{
		Pos: s.Start, End: s.End, Severity: lang.Error,
		Msg:  fmt.Sprintf(format, args...),
		Text: lang.SourceText(b.src, s),
		Hint: hint,
	})
}

func (b *builder) program(g *gProgram, file string) *lang.Program {
	p := &lang.Program{Span: b.spanFrom(g.Pos, g.tokens), File: file, Source: b.src, Comments: b.scan.comments}
	p.Span.End = toLangPos(b.scan.eof)
	for _, item := range g.Items {
		if item.Chain != nil {
			p.Body = append(p.Body, &lang.TopLevel{Span: b.span(item.Chain.tokens), Stmts: b.chain(item.Chain)})
			continue
		}
		h := b.header(item)
		if len(p.Body) > 0 {
			b.errorf(h.NodeSpan(), "move the declaration to the top of the file, before the first statement",
				"declarations must come before the first statement")
		}
		p.Headers = append(p.Headers, h)
	}
	return p
}

func (b *builder) header(item *gTopItem) lang.Header {
	switch {
	case item.Version != nil:
		return &lang.VersionDecl{Span: b.span(item.Version.tokens), Version: b.str(item.Version.Version, item.Version.tokens, 3)}
	case item.Backend != nil:
		return &lang.BackendDecl{Span: b.span(item.Backend.tokens), Code: b.str(item.Backend.Code, item.Backend.tokens, 3)}
	}
	g := item.Param
	p := &lang.ParamDecl{
		Span:    b.span(g.tokens),
		Name:    b.ident(g.Name, g.Tokens[0]),
		Help:    b.str(g.Help, g.tokens, 2),
		Long:    b.str(g.Long, g.tokens, 6),
		Short:   b.str(g.Short, g.tokens, 8),
		Default: b.expr(g.Default),
	}
	for _, r := range g.Sweep {
		p.Sweep = append(p.Sweep, b.rangeExpr(r))
	}
	return p
}

// str decodes the string token at index i of t.
func (b *builder) str(raw string, t tokens, i int) *lang.StringLit {
	s := &lang.StringLit{Value: unquote(raw)}
	if i < len(t.Tokens) && t.Tokens[i].Value == raw {
		s.Span = b.span(tokens{Tokens: t.Tokens[i : i+1]})
	} else {
		s.Span = b.span(t)
	}
	return s
}

// strAt decodes a string token, finding it in t by value.
func (b *builder) strAt(raw string, t tokens) *lang.StringLit {
	for i, tok := range t.Tokens {
		if tok.Type == tokString && tok.Value == raw {
			return b.str(raw, t, i)
		}
	}
	return &lang.StringLit{Span: b.span(t), Value: unquote(raw)}
}

func (b *builder) ident(name string, tok lexer.Token) *lang.Ident {
	return &lang.Ident{Span: b.span(tokens{Tokens: []lexer.Token{tok}}), Name: name}
}

// identAt finds the identifier token with the given name in t.
func (b *builder) identAt(name string, t tokens) *lang.Ident {
	for _, tok := range t.Tokens {
		if tok.Type == tokIdent && tok.Value == name {
			return b.ident(name, tok)
		}
	}
	return &lang.Ident{Span: b.span(t), Name: name}
}

// ---------------------------------------------------------------------------
// Statements

func (b *builder) chain(g *gChain) []lang.Stmt {
	out := make([]lang.Stmt, 0, len(g.Stmts))
	for _, s := range g.Stmts {
		out = append(out, b.simple(s))
	}
	return out
}

func (b *builder) simple(g *gSimple) lang.Stmt {
	sp := b.span(g.tokens)
	switch {
	case g.For != nil:
		return b.forStmt(g.For)
	case g.Let != nil:
		l := &lang.Let{Span: sp, Body: b.simple(g.Let.Body)}
		for _, bd := range g.Let.Bindings {
			l.Bindings = append(l.Bindings, b.binding(bd))
		}
		return l
	case g.If != nil:
		s := &lang.If{Span: sp, Cond: b.rel(g.If.Cond), Then: b.simple(g.If.Then)}
		if g.If.Else != nil {
			s.Else = b.simple(g.If.Else)
		}
		return s
	case g.Block != nil:
		blk := &lang.Block{Span: sp}
		if g.Block.Body != nil {
			blk.Stmts = b.chain(g.Block.Body)
		}
		return blk
	case g.Assert != nil:
		return &lang.Assert{Span: sp, Msg: b.strAt(g.Assert.Msg, g.Assert.tokens), Cond: b.rel(g.Assert.Cond)}
	}
	return b.taskStmt(g.Task, sp)
}

var timeUnits = map[string]lang.TimeUnit{
	"MICROSECONDS": lang.Microseconds, "MILLISECONDS": lang.Milliseconds,
	"SECONDS": lang.Seconds, "MINUTES": lang.Minutes, "HOURS": lang.Hours,
	"DAYS": lang.Days,
}

func (b *builder) forStmt(g *gFor) lang.Stmt {
	sp := b.span(g.tokens)
	if e := g.Each; e != nil {
		f := &lang.ForEach{Span: sp, Var: b.identAt(e.Var, e.tokens), Body: b.simple(e.Body)}
		for _, r := range e.Ranges {
			f.Ranges = append(f.Ranges, b.rangeExpr(r))
		}
		return f
	}
	a := g.Amount
	var warmup lang.Expr
	if a.Warmup != nil {
		warmup = b.expr(a.Warmup)
	}
	if a.Unit == "REPETITIONS" {
		if a.Warmup != nil && a.WarmupUnit != "REPETITIONS" {
			b.errorf(sp, "write PLUS n WARMUP REPETITIONS", "a counted loop's warmup is counted in REPETITIONS, not %s", a.WarmupUnit)
		}
		return &lang.ForCount{Span: sp, Count: b.expr(a.Amount), Warmup: warmup, Sync: a.Sync, Body: b.simple(a.Body)}
	}
	f := &lang.ForTime{Span: sp, Amount: b.expr(a.Amount), Unit: timeUnits[a.Unit], Warmup: warmup, Sync: a.Sync, Body: b.simple(a.Body)}
	if a.Warmup != nil {
		if a.WarmupUnit == "REPETITIONS" {
			b.errorf(sp, "give the warmup as a time, e.g. PLUS 1 WARMUP SECOND", "a timed loop's warmup is a length of time, not REPETITIONS")
		}
		f.WarmupUnit = timeUnits[a.WarmupUnit]
	}
	return f
}

func (b *builder) binding(g *gBinding) *lang.LetBinding {
	l := &lang.LetBinding{Span: b.span(g.tokens), Name: b.ident(g.Name, g.Tokens[0])}
	switch {
	case g.Group != nil:
		l.Group = b.taskDesc(g.Group)
	case g.Value != nil:
		l.Value = b.expr(g.Value)
	default:
		r := g.Random
		if r == nil {
			r = &gRandom{}
		}
		rt := &lang.RandomTask{Span: l.Span, Kind: lang.RandomAny}
		if len(r.Tokens) > 0 {
			rt.Span = b.span(r.tokens)
		}
		switch {
		case r.Other != nil:
			rt.Kind, rt.X = lang.RandomOtherThan, b.expr(r.Other)
		case r.Less != nil:
			rt.Kind, rt.X = lang.RandomLessThan, b.expr(r.Less)
		case r.Greater != nil:
			rt.Kind, rt.X = lang.RandomGreaterThan, b.expr(r.Greater)
		case r.InLo != nil:
			rt.Kind, rt.X, rt.Y = lang.RandomIn, b.expr(r.InLo), b.expr(r.InHi)
		}
		if r.ButNot != nil {
			rt.ButNot = b.expr(r.ButNot)
			if rt.Kind == lang.RandomAny || rt.Kind == lang.RandomOtherThan {
				b.errorf(rt.Span, "use A RANDOM TASK OTHER THAN x, or LESS THAN / GREATER THAN / IN [a, b] followed by BUT NOT x",
					"BUT NOT must follow LESS THAN, GREATER THAN or IN [a, b]")
			}
		}
		l.Random = rt
	}
	return l
}

func (b *builder) taskStmt(g *gTaskStmt, sp lang.Span) lang.Stmt {
	tasks := b.taskDesc(g.Tasks)
	v := g.Verb
	switch {
	case v.Comm != nil:
		return b.comm(v.Comm, tasks, sp)
	case v.Reduce != nil:
		return b.reduce(v.Reduce, tasks, sp)
	case v.Sync:
		return &lang.Synchronize{Span: sp, Tasks: tasks}
	case v.Await:
		return &lang.Await{Span: sp, Tasks: tasks}
	case v.Computes != nil:
		c := v.Computes
		switch {
		case c.For != nil:
			return &lang.Delay{Span: sp, Tasks: tasks, Amount: b.expr(c.For.Amount), Unit: timeUnits[c.For.Unit]}
		case c.Aggregates:
			return &lang.ComputeAggregates{Span: sp, Tasks: tasks}
		}
		w := &lang.Work{Span: sp, Tasks: tasks, Flops: b.expr(c.Flops)}
		if c.Memory != nil {
			w.Memory = b.quantity(c.Memory)
		}
		return w
	case v.Sleep != nil:
		return &lang.Delay{Span: sp, Tasks: tasks, Sleep: true, Amount: b.expr(v.Sleep.Amount), Unit: timeUnits[v.Sleep.Unit]}
	case v.Touch != nil:
		return b.touch(v.Touch, tasks, sp)
	case v.Log != nil:
		l := &lang.Log{Span: sp, Tasks: tasks}
		for _, it := range v.Log {
			l.Items = append(l.Items, b.logItem(it))
		}
		return l
	case v.Counters != "":
		op := map[string]lang.CounterOp{"RESETS": lang.ResetCounters, "STORES": lang.StoreCounters, "RESTORES": lang.RestoreCounters}[v.Counters]
		return &lang.Counters{Span: sp, Tasks: tasks, Op: op}
	case v.Output != nil:
		return &lang.Output{Span: sp, Tasks: tasks, Items: b.items(v.Output)}
	case v.Backend != nil:
		return &lang.BackendExec{Span: sp, Tasks: tasks, Items: b.items(v.Backend)}
	case v.Assign != nil:
		a := &lang.Assign{Span: sp, Tasks: tasks}
		if v.Assign.Processor != nil {
			a.Processor = b.expr(v.Assign.Processor)
		}
		return a
	case v.Scatter != nil:
		msg, peers := b.extComm(v.Scatter, "SCATTERS", "TO", "FROM")
		return &lang.Scatter{Span: sp, Source: tasks, Msg: msg, Target: peers}
	case v.Gather != nil:
		msg, peers := b.extComm(v.Gather, "GATHERS", "FROM", "INTO")
		return &lang.Gather{Span: sp, Root: tasks, Msg: msg, Source: peers}
	}
	msg, peers := b.extComm(v.Exchange, "EXCHANGE", "WITH", "FROM")
	return &lang.Exchange{Span: sp, Tasks: tasks, Msg: msg, Peers: peers}
}

var blocking = map[string]lang.Blocking{"": 0, "ASYNCHRONOUSLY": lang.Asynchronously, "SYNCHRONOUSLY": lang.Synchronously}

func (b *builder) comm(c *gComm, tasks lang.TaskDesc, sp lang.Span) lang.Stmt {
	blk := blocking[c.Blocking]
	switch c.Verb {
	case "RECEIVES":
		if c.To {
			b.errorf(sp, "write RECEIVES ... FROM <source tasks>", "a receive names its sources with FROM, not TO")
		}
		msg := b.msgSpec(c.Msg, "INTO", "RECEIVES")
		var src lang.TaskDesc
		if c.From != nil {
			src = b.taskDesc(c.From)
		}
		return &lang.Receive{Span: sp, Target: tasks, Blocking: blk, Msg: msg, Source: src}
	case "MULTICASTS":
		if !c.To {
			b.errorf(sp, "write MULTICASTS ... TO <target tasks>", "a multicast names its targets with TO, not FROM")
		}
		if c.Unsuspecting {
			b.errorf(sp, "remove UNSUSPECTING: every target takes part in a multicast", "a multicast cannot be UNSUSPECTING")
		}
		if c.Who != nil {
			b.errorf(b.spanFrom(c.Who.Pos, c.Who.tokens), "remove the WHO RECEIVES clause", "a multicast has no WHO RECEIVES clause")
		}
		m := &lang.Multicast{Span: sp, Source: tasks, Blocking: blk, Msg: b.msgSpec(c.Msg, "FROM", "MULTICASTS")}
		if c.Target != nil {
			m.Target = b.taskDesc(c.Target)
		}
		return m
	}
	if !c.To {
		b.errorf(sp, "write SENDS ... TO <target tasks>", "a send names its targets with TO, not FROM")
	}
	s := &lang.Send{Span: sp, Source: tasks, Blocking: blk, Msg: b.msgSpec(c.Msg, "FROM", "SENDS"), Unsuspecting: c.Unsuspecting}
	if c.Target != nil {
		s.Target = b.taskDesc(c.Target)
	}
	if c.Who != nil {
		if c.Unsuspecting {
			b.errorf(sp, "drop UNSUSPECTING, or drop WHO RECEIVES and write a separate RECEIVES statement",
				"an UNSUSPECTING target performs no receive, so it cannot have a WHO RECEIVES clause")
		}
		s.Recv = b.recvSpec(c.Who)
	}
	return s
}

func (b *builder) extComm(g *gExtComm, verb, prep, bufPrep string) (*lang.MsgSpec, lang.TaskDesc) {
	if g.Prep != prep {
		b.errorf(b.span(g.tokens), fmt.Sprintf("write %s ... %s <tasks>", verb, prep), "%s names its peers with %s, not %s", verb, prep, g.Prep)
	}
	return b.msgSpec(g.Msg, bufPrep, verb), b.taskDesc(g.Peers)
}

func (b *builder) reduce(g *gReduce, tasks lang.TaskDesc, sp lang.Span) lang.Stmt {
	r := &lang.Reduce{Span: sp, Source: tasks, Msg: b.reduceSpec(g.Msg, true, "FROM")}
	if g.Msg.As {
		b.errorf(b.spanFrom(g.Msg.Pos, g.Msg.tokens), "remove AS", "AS belongs in WHO RECEIVES THE RESULT AS ...")
	}
	switch {
	case g.Target != nil:
		r.Target = b.taskDesc(g.Target)
		if g.Who != nil {
			r.Result = b.reduceSpec(g.Who, false, "INTO")
		}
	case g.To != nil:
		to := g.To
		r.Result = b.reduceSpec(&gReduceSpec{optTokens: optTokens{Pos: to.Tokens[0].Pos, tokens: to.tokens}, As: to.As, Typed: to.Typed, Touch: to.Touch, Tag: to.Tag, Buffer: to.Buffer}, true, "INTO")
		if to.As {
			b.errorf(b.span(to.tokens), "remove AS: write REDUCES n INTEGERS TO n INTEGERS", "AS belongs in WHO RECEIVES THE RESULT AS ...")
		}
	}
	r.Op = map[string]lang.ReduceOp{"": 0, "SUM": lang.OpSum, "product": lang.OpProduct, "MINIMUM": lang.OpMinimum, "MAXIMUM": lang.OpMaximum}[g.Op]
	r.Scatter = g.Scatter
	return r
}

func (b *builder) touch(g *gTouch, tasks lang.TaskDesc, sp lang.Span) lang.Stmt {
	switch {
	case g.AllBuffers:
		return &lang.TouchBuffer{Span: sp, Tasks: tasks, Which: lang.AllBuffers}
	case g.Current:
		return &lang.TouchBuffer{Span: sp, Tasks: tasks, Which: lang.CurrentBuffer}
	case g.Buffer != nil:
		return &lang.TouchBuffer{Span: sp, Tasks: tasks, Which: lang.NumberedBuffer, Number: b.expr(g.Buffer)}
	}
	t := &lang.Touch{Span: sp, Tasks: tasks}
	if g.Count != nil {
		t.Count, t.CountType = b.expr(g.Count), units[g.CountType]
	}
	if g.Region != nil {
		t.Region = b.size(g.Region)
	}
	if g.Repeat != nil {
		t.Repeat = b.expr(g.Repeat)
	}
	switch {
	case g.Random:
		t.Stride = lang.StrideRandom
	case g.Stride != nil:
		t.Stride = lang.StrideExplicit
		t.StrideX, t.StrideType = b.expr(g.Stride.Amount), units[g.Stride.Unit]
		if !t.StrideType.IsDataType() {
			b.errorf(b.span(g.Stride.tokens), "use BYTES, HALFWORDS, WORDS, INTEGERS, DOUBLEWORDS, QUADWORDS or PAGES",
				"a stride is counted in a data type, not %s", g.Stride.Unit)
		}
	}
	return t
}

func (b *builder) logItem(g *gLogItem) *lang.LogItem {
	li := &lang.LogItem{Span: b.span(g.tokens), Agg: b.aggregate(g.Agg), Heading: b.item(g.Heading)}
	if li.Heading.X != nil {
		b.errorf(li.Heading.Span, `write the heading as a string, e.g. AS "Latency (us)"`, "a LOGS column heading must be a string")
	}
	return li
}

var aggFuncs = map[string]lang.AggFuncKind{
	"MEAN": lang.Mean, "ARITHMETICMEAN": lang.ArithmeticMean, "HARMONICMEAN": lang.HarmonicMean,
	"GEOMETRICMEAN": lang.GeometricMean, "MEDIAN": lang.Median,
	"STANDARDDEVIATION": lang.StandardDeviation, "MEDIANABSOLUTEDEVIATION": lang.MedianAbsoluteDeviation,
	"VARIANCE": lang.Variance, "SUM": lang.Sum, "MINIMUM": lang.Minimum, "MAXIMUM": lang.Maximum,
	"FINAL": lang.Final,
}

func (b *builder) aggregate(g *gAggregate) *lang.Aggregate {
	a := &lang.Aggregate{Span: b.span(g.tokens)}
	switch {
	case g.Histogram != nil:
		a.Kind, a.X = lang.AggHistogram, b.expr(g.Histogram)
	case g.Funcs != nil:
		a.Kind, a.X = lang.AggFuncs, b.expr(g.FuncsOf)
		for _, f := range g.Funcs {
			af := &lang.AggFunc{Span: b.span(f.tokens)}
			if f.Percentile != nil {
				af.Kind, af.Percentile = lang.Percentile, b.expr(f.Percentile)
			} else {
				af.Kind = aggFuncs[f.Name]
			}
			a.Funcs = append(a.Funcs, af)
		}
	case g.Only != nil:
		a.Kind, a.X = lang.AggOnly, b.expr(g.Only)
	default:
		a.Kind, a.X = lang.AggEach, b.expr(g.Each)
	}
	return a
}

func (b *builder) items(gs []*gItem) []*lang.Item {
	out := make([]*lang.Item, len(gs))
	for i, g := range gs {
		out[i] = b.item(g)
	}
	return out
}

func (b *builder) item(g *gItem) *lang.Item {
	it := &lang.Item{Span: b.span(g.tokens)}
	switch {
	case g.Str != nil:
		it.Str = b.strAt(*g.Str, g.tokens)
	case g.ValueOf != nil:
		it.Str, it.ValueOf = b.strAt(*g.ValueOf, g.tokens), true
	default:
		it.X = b.expr(g.Expr)
	}
	return it
}

// ---------------------------------------------------------------------------
// Task descriptions and message specifications

func (b *builder) taskDesc(g *gTaskDesc) lang.TaskDesc {
	sp := b.span(g.tokens)
	switch {
	case g.AllOthers:
		return &lang.AllOtherTasks{Span: sp}
	case g.All:
		t := &lang.AllTasks{Span: sp}
		if g.AllVar != nil {
			t.Var = b.identAt(*g.AllVar, g.tokens)
		}
		return t
	case g.Group != nil:
		return &lang.TaskGroup{Span: sp, Name: b.identAt(*g.Group, g.tokens)}
	case g.Ranges != nil:
		t := &lang.TasksInRanges{Span: sp}
		for _, r := range g.Ranges {
			t.Ranges = append(t.Ranges, b.rangeExpr(r))
		}
		return t
	case g.SuchVar != nil:
		return &lang.TasksSuchThat{Span: sp, Var: b.identAt(*g.SuchVar, g.tokens), Cond: b.rel(g.Such)}
	}
	return &lang.TaskExpr{Span: sp, X: b.expr(g.Expr)}
}

var units = map[string]lang.Unit{
	"BITS": lang.Bits, "BYTES": lang.Bytes, "HALFWORDS": lang.Halfwords,
	"WORDS": lang.Words, "INTEGERS": lang.Integers, "DOUBLEWORDS": lang.Doublewords,
	"QUADWORDS": lang.Quadwords, "PAGES": lang.Pages, "KILOBYTE": lang.Kilobytes,
	"MEGABYTE": lang.Megabytes, "GIGABYTE": lang.Gigabytes,
}

var uniqueness = map[string]lang.Uniqueness{"": 0, "UNIQUE": lang.Unique, "NONUNIQUE": lang.Nonunique}

func (b *builder) count(g *gCount) lang.Expr {
	if g.A {
		return nil
	}
	return b.expr(g.Expr)
}

func (b *builder) msgSpec(g *gMsgSpec, bufPrep, verb string) *lang.MsgSpec {
	m := &lang.MsgSpec{
		Span:       b.span(g.tokens),
		Count:      b.count(g.Count),
		Uniqueness: uniqueness[g.Unique],
		Touch:      b.touching(g.Touch),
		Tag:        b.tag(g.Tag),
		Buffer:     b.buffer(g.Buffer, bufPrep, verb),
	}
	if g.Shape.Size != nil {
		m.Size = b.size(g.Shape.Size)
	}
	if a := g.Shape.Align; a != nil {
		m.Align = b.align(a)
	} else if a := g.Shape.OnlyAlign; a != nil {
		m.Align = b.align(a)
	}
	return m
}

func (b *builder) size(g *gSize) *lang.Quantity {
	if g.Amount != nil {
		return b.quantity(g.Amount)
	}
	return &lang.Quantity{Span: b.span(g.tokens), Unit: units[g.Sized]}
}

func (b *builder) quantity(g *gQuantity) *lang.Quantity {
	return &lang.Quantity{Span: b.span(g.tokens), Amount: b.expr(g.Amount), Unit: units[g.Unit]}
}

func (b *builder) align(g *gAlign) *lang.Alignment {
	a := &lang.Alignment{Span: b.span(g.tokens)}
	switch {
	case g.Unaligned:
		a.Kind = lang.Unaligned
		return a
	case g.Amount != nil:
		a.Q = b.quantity(g.Amount)
	default:
		a.Q = &lang.Quantity{Span: a.Span, Unit: units[g.Type]}
	}
	a.Kind = lang.Aligned
	if g.Kind == "MISALIGNED" {
		a.Kind = lang.Misaligned
	}
	return a
}

func (b *builder) touching(g *gTouching) lang.Touching {
	if g == nil {
		return 0
	}
	data := strings.HasPrefix(g.What, "DATA")
	switch {
	case g.With && data:
		return lang.WithDataTouching
	case data:
		return lang.WithoutDataTouching
	case g.With:
		return lang.WithVerification
	}
	return lang.WithoutVerification
}

func (b *builder) tag(g *gTag) *lang.Tag {
	if g == nil {
		return nil
	}
	t := &lang.Tag{Span: b.span(g.tokens)}
	if g.Str != nil {
		t.Str = b.strAt(*g.Str, g.tokens)
	} else {
		t.X = b.expr(g.Expr)
	}
	return t
}

func (b *builder) buffer(g *gBufferRef, prep, verb string) *lang.Buffer {
	if g == nil {
		return nil
	}
	buf := &lang.Buffer{Span: b.span(g.tokens)}
	if g.Prep != prep {
		b.errorf(buf.Span, fmt.Sprintf("write %s BUFFER n or %s THE DEFAULT BUFFER", prep, prep),
			"%s names its message buffer with %s, not %s", verb, prep, g.Prep)
	}
	if g.Offset != nil {
		buf.Offset = b.quantity(g.Offset)
	}
	if g.Number != nil {
		buf.Number = b.expr(g.Number)
	}
	return buf
}

func (b *builder) recvSpec(g *gRecvSpec) *lang.RecvSpec {
	r := &lang.RecvSpec{
		Span:       b.spanFrom(g.Pos, g.tokens),
		Blocking:   blocking[g.Blocking],
		As:         g.As,
		Uniqueness: uniqueness[g.Unique],
		Touch:      b.touching(g.Touch),
		Tag:        b.tag(g.Tag),
		Buffer:     b.buffer(g.Buffer, "INTO", "WHO RECEIVES"),
	}
	if g.Align != nil {
		r.Align = b.align(g.Align)
	}
	if len(g.Tokens) == 0 {
		b.errorf(r.Span, "say how it is received, e.g. WHO RECEIVES IT ASYNCHRONOUSLY, or drop the clause",
			"WHO RECEIVES IT must be followed by at least one receive attribute")
	}
	return r
}

// reduceSpec converts a REDUCE specification. typed says whether a count
// and data type are required (source side, `TO spec`) or belong after AS.
func (b *builder) reduceSpec(g *gReduceSpec, typed bool, prep string) *lang.ReduceSpec {
	r := &lang.ReduceSpec{
		Span:   b.spanFrom(g.Pos, g.tokens),
		Typed:  g.Typed != nil,
		Touch:  b.touching(g.Touch),
		Tag:    b.tag(g.Tag),
		Buffer: b.buffer(g.Buffer, prep, "REDUCES"),
	}
	if t := g.Typed; t != nil {
		r.Count = b.count(t.Count)
		r.Uniqueness = uniqueness[t.Unique]
		r.Type = units[t.Type]
		if t.Align != nil {
			r.Align = b.align(t.Align)
		}
	}
	switch {
	case typed && !r.Typed:
		b.errorf(r.Span, "say what is reduced, e.g. REDUCES 4 DOUBLEWORDS", "a reduction needs a count and a data type")
	case !typed && r.Typed && !g.As:
		b.errorf(r.Span, "write WHO RECEIVES THE RESULT AS n INTEGERS", "the result's count and type follow AS")
	case !typed && !r.Typed && g.As:
		b.errorf(r.Span, "write AS n INTEGERS or AS n DOUBLEWORDS", "AS must be followed by a count and a data type")
	case !typed && len(g.Tokens) == 0:
		b.errorf(r.Span, "describe the result, e.g. WHO RECEIVES THE RESULT AS 4 DOUBLEWORDS, or drop the clause",
			"WHO RECEIVES THE RESULT must be followed by at least one attribute")
	}
	return r
}

// ---------------------------------------------------------------------------
// Relations, ranges and expressions

// rel builds a relation from its flat list of operands and connectives:
// /\ binds tighter than \/, and both associate to the left.
func (b *builder) rel(g *gRel) lang.Rel {
	var or lang.Rel
	and := b.relPrimary(g.X)
	for _, op := range g.Rest {
		y := b.relPrimary(op.Y)
		if op.Op == `/\` {
			and = &lang.Logic{Span: spanOf(and, y), Op: lang.And, X: and, Y: y}
			continue
		}
		or = joinOr(or, and)
		and = y
	}
	return joinOr(or, and)
}

func joinOr(x, y lang.Rel) lang.Rel {
	if x == nil {
		return y
	}
	return &lang.Logic{Span: spanOf(x, y), Op: lang.Or, X: x, Y: y}
}

func (b *builder) relPrimary(p *gRelPrimary) lang.Rel {
	if p.Paren != nil {
		return b.rel(p.Paren)
	}
	return b.eq(p.Eq)
}

var cmpOps = map[string]lang.CmpOp{
	"=": lang.Eq, "<": lang.Lt, ">": lang.Gt, "<=": lang.Le, ">=": lang.Ge, "<>": lang.Ne, "DIVIDES": lang.Divides,
}

func (b *builder) eq(g *gEq) lang.Rel {
	sp := b.span(g.tokens)
	x := b.expr(g.X)
	switch {
	case g.Op != "":
		return &lang.Compare{Span: sp, Op: cmpOps[g.Op], X: x, Y: b.expr(g.Y)}
	case g.Parity != "":
		return &lang.Parity{Span: sp, X: x, Odd: g.Parity == "ODD"}
	case g.Lo != nil:
		return &lang.InInterval{Span: sp, X: x, Lo: b.expr(g.Lo), Hi: b.expr(g.Hi), Not: g.Not}
	}
	r := &lang.InRanges{Span: sp, X: x, Not: g.Not}
	for _, rg := range g.Ranges {
		r.Ranges = append(r.Ranges, b.rangeExpr(rg))
	}
	return r
}

func (b *builder) rangeExpr(g *gRange) lang.Range {
	sp := b.span(g.tokens)
	first := b.expr(g.First)
	if g.Comp != nil {
		c := &lang.CompRange{Span: sp, Expr: first}
		for _, gen := range g.Comp.Gens {
			lg := &lang.Generator{Span: b.span(gen.tokens), Var: b.identAt(gen.Var, gen.tokens)}
			for _, r := range gen.Ranges {
				lg.Ranges = append(lg.Ranges, b.rangeExpr(r))
			}
			c.Gens = append(c.Gens, lg)
		}
		if g.Comp.Where != nil {
			c.Where = b.rel(g.Comp.Where)
		}
		if len(g.Rest) > 0 {
			b.errorf(b.span(g.Rest[0].tokens), "put the comprehension in its own braces: {x FOR EACH ...}, {more}",
				"a list comprehension cannot be followed by more values")
		}
		return c
	}
	items := []lang.Expr{first}
	ellipsis := -1
	for i, it := range g.Rest {
		if it.Ellipsis {
			if ellipsis >= 0 || i != len(g.Rest)-2 {
				b.errorf(b.span(it.tokens), "write a progression as {first, [second, [third,]] ..., last}",
					"an ellipsis must stand just before the last value of a range")
			}
			ellipsis = len(items)
			continue
		}
		items = append(items, b.expr(it.Expr))
	}
	if ellipsis < 0 {
		return &lang.ListRange{Span: sp, Items: items}
	}
	if ellipsis >= len(items) {
		return &lang.ListRange{Span: sp, Items: items}
	}
	return &lang.ProgRange{Span: sp, Initial: items[:ellipsis], Final: items[len(items)-1]}
}

func (b *builder) expr(g *gExpr) lang.Expr {
	x := b.arith(g.X)
	if g.Cond == nil {
		return x
	}
	return &lang.CondExpr{Span: b.span(g.tokens), Then: x, Cond: b.rel(g.Cond), Else: b.expr(g.Else)}
}

var binOps = map[string]lang.BinaryOp{
	"+": lang.Add, "-": lang.Sub, "|": lang.BitOr, "XOR": lang.Xor,
	"*": lang.Mul, "/": lang.Div, "MOD": lang.Mod, ">>": lang.Shr, "<<": lang.Shl, "&": lang.BitAnd,
}

func additive(op lang.BinaryOp) bool {
	return op == lang.Add || op == lang.Sub || op == lang.BitOr || op == lang.Xor
}

// arith builds a binary expression from its flat list of operands and
// operators: multiplicative operators (* / MOD >> << &) bind tighter than
// additive ones (+ - | XOR), and both associate to the left.
func (b *builder) arith(g *gArith) lang.Expr {
	var sum lang.Expr
	var sumOp lang.BinaryOp
	prod := b.unary(g.X)
	for _, o := range g.Rest {
		op, y := binOps[o.Op], b.unary(o.Y)
		if !additive(op) {
			prod = &lang.Binary{Span: spanOf(prod, y), Op: op, X: prod, Y: y}
			continue
		}
		sum = joinSum(sum, sumOp, prod)
		sumOp, prod = op, y
	}
	return joinSum(sum, sumOp, prod)
}

func joinSum(sum lang.Expr, op lang.BinaryOp, term lang.Expr) lang.Expr {
	if sum == nil {
		return term
	}
	return &lang.Binary{Span: spanOf(sum, term), Op: op, X: sum, Y: term}
}

var unaryOps = map[string]lang.UnaryOp{"-": lang.Neg, "+": lang.Plus, "NOT": lang.BitNot}

// unary builds `ops primary [** unary]`; the prefix operators apply to the
// power, innermost last.
func (b *builder) unary(g *gUnary) lang.Expr {
	x := b.primary(g.X)
	if g.Exp != nil {
		y := b.unary(g.Exp)
		x = &lang.Binary{Span: spanOf(x, y), Op: lang.Pow, X: x, Y: y}
	}
	for i := len(g.Ops) - 1; i >= 0; i-- {
		x = &lang.Unary{Span: lang.Span{Start: b.opPos(g.tokens, i), End: x.NodeSpan().End}, Op: unaryOps[g.Ops[i]], X: x}
	}
	return x
}

// opPos is the position of the i'th prefix operator of a unary expression.
func (b *builder) opPos(t tokens, i int) lang.Pos {
	if i < len(t.Tokens) {
		return toLangPos(t.Tokens[i].Pos)
	}
	return toLangPos(t.Tokens[0].Pos)
}

func (b *builder) primary(g *gPrimary) lang.Expr {
	sp := b.span(g.tokens)
	switch {
	case g.Paren != nil:
		return b.expr(g.Paren)
	case g.Int != nil:
		v, _ := lang.IntLiteralValue(*g.Int) // the scanner has validated it
		lit := &lang.IntLit{Span: sp, Value: v}
		if strings.Trim(*g.Int, "0123456789") != "" {
			lit.Text = strings.ToUpper(*g.Int)
		}
		return lit
	case g.Ident != nil:
		return &lang.Ident{Span: sp, Name: *g.Ident}
	case g.MyTask:
		return &lang.MyTask{Span: sp}
	case g.Call != nil:
		c := &lang.Call{Span: sp, Func: functionKeywords[g.Call.Func]}
		for _, a := range g.Call.Args {
			c.Args = append(c.Args, b.expr(a))
		}
		return c
	case g.FileData != nil:
		f := g.FileData
		fd := &lang.FileData{Span: sp, Static: f.Func == "STATIC_FILE_DATA", File: b.strAt(f.File, f.tokens)}
		if f.Column != nil {
			fd.Column = b.expr(f.Column)
		}
		if f.Row != nil {
			fd.Row = b.expr(f.Row)
		}
		if f.ColSeps != nil {
			fd.ColSeps = b.strAt(*f.ColSeps, f.tokens)
		}
		if f.RowSeps != nil {
			fd.RowSeps = b.strAt(*f.RowSeps, f.tokens)
		}
		return fd
	}
	return b.mesh(g.Mesh, sp)
}

func (b *builder) mesh(g *gMesh, sp lang.Span) lang.Expr {
	m := &lang.MeshCall{Span: sp, Func: functionKeywords[g.Func], Task: b.expr(g.Task)}
	for _, d := range g.Dims {
		m.Dims = append(m.Dims, &lang.MeshDim{Span: b.span(d.tokens), Size: b.expr(d.Size), Torus: d.Torus})
	}
	var list []lang.Expr
	for _, o := range g.Offsets {
		list = append(list, b.expr(o))
	}
	switch m.Func {
	case lang.FuncMeshNeighbor:
		if g.Arg != nil {
			b.errorf(sp, "parenthesize the offsets, even a single one: MESH_NEIGHBOR((4), t, (+1))",
				"MESH_NEIGHBOR's third argument is a parenthesized list of offsets")
			list = []lang.Expr{b.expr(g.Arg)}
		}
		m.Offsets = list
	default:
		switch {
		case g.Arg != nil:
			m.Arg = b.expr(g.Arg)
		case len(list) == 1:
			m.Arg = list[0]
		default:
			b.errorf(sp, "give a single number as the third argument", "%s takes a single value, not a list, as its third argument", m.Func)
			if len(list) > 0 {
				m.Arg = list[0]
			}
		}
	}
	return m
}

// spanOf covers two nodes.
func spanOf(a, z lang.Node) lang.Span {
	return lang.Span{Start: a.NodeSpan().Start, End: z.NodeSpan().End}
}
