package lang

import (
	"strconv"
	"strings"
)

// Format prints a program in canonical form: keywords in upper case,
// variables in lower case, verbs agreeing with their subjects, one simple
// statement per line, two-space indentation, every top-level statement
// ended with '.' unless it ends with '}'. Comments are kept: a comment on
// its own line stays before the statement that follows it, and a comment at
// the end of a line stays at the end of that line. Parsing the output gives
// back the same tree.
func Format(p *Program) []byte { return format(p, spelling{}) }

// FormatStrict prints a program as Format does, but spelled so that the
// compiler of coNCePTuaL 1.5 reads it as Parley does: the plural units
// KILOBYTES, MEGABYTES and GIGABYTES are written in the singular, and an
// operand that begins with a keyword (a function name, NOT, MY TASK) after
// a minus sign is parenthesized, because coNCePTuaL's lexer takes a '-'
// before a keyword for white space (x - ABS(y) would read as x ABS(y)).
// It does not lower Parley's extensions: a tree that uses them is printed
// with them (package codegen/ncptl lowers them first).
func FormatStrict(p *Program) []byte { return format(p, spelling{strict: true}) }

func format(p *Program, sp spelling) []byte {
	pr := &printer{spelling: sp, comments: p.Comments}
	pr.program(p)
	return []byte(pr.b.String())
}

// FormatExpr prints an expression in canonical form.
func FormatExpr(e Expr) string { return spelling{}.exprString(e, precCond) }

// FormatRel prints a relational expression in canonical form.
func FormatRel(r Rel) string { return spelling{}.relString(r, precOr) }

// FormatRange prints a range in canonical form.
func FormatRange(r Range) string { return spelling{}.rangeString(r) }

// FormatTasks prints a task description in canonical form.
func FormatTasks(t TaskDesc) string { return spelling{}.taskString(t) }

// FormatStmt prints one statement (and what it contains) in canonical form.
func FormatStmt(s Stmt) string {
	pr := &printer{}
	pr.stmt(s)
	return pr.b.String()
}

// spelling chooses between the canonical spellings and those that
// coNCePTuaL 1.5's own compiler reads (strict).
type spelling struct {
	strict bool
}

type printer struct {
	spelling
	b         strings.Builder
	indent    int
	lineStart bool // nothing written on the current line yet
	comments  []*Comment
	next      int // index of the first comment not yet printed
	lastEnd   Pos // source position that trailing comments attach to
}

func (p *printer) write(s string) {
	if p.lineStart {
		p.b.WriteString(strings.Repeat("  ", p.indent))
		p.lineStart = false
	}
	p.b.WriteString(s)
}

// newline ends the current line, first appending any comment that sat at
// the end of the same source line.
func (p *printer) newline() {
	for p.next < len(p.comments) {
		c := p.comments[p.next]
		if !p.lastEnd.IsValid() || c.Start.Line != p.lastEnd.Line || c.Start.Offset < p.lastEnd.Offset {
			break
		}
		p.write("  " + c.Text)
		p.next++
	}
	p.b.WriteByte('\n')
	p.lineStart = true
}

// leading prints, each on its own line, the comments that come before pos.
func (p *printer) leading(pos Pos) {
	if !pos.IsValid() {
		return
	}
	p.ownLines(func(c *Comment) bool { return c.Start.Offset < pos.Offset })
}

// rest prints the comments that follow the last statement.
func (p *printer) rest() { p.ownLines(func(*Comment) bool { return true }) }

// ownLines prints pending comments on lines of their own while before
// says they come before what is printed next.
func (p *printer) ownLines(before func(*Comment) bool) {
	for p.next < len(p.comments) && before(p.comments[p.next]) {
		if !p.lineStart {
			p.b.WriteByte('\n')
			p.lineStart = true
		}
		p.write(p.comments[p.next].Text)
		p.b.WriteByte('\n')
		p.lineStart = true
		p.next++
	}
}

func (p *printer) program(prog *Program) {
	p.lineStart = true
	var prev Header
	for _, h := range prog.Headers {
		if prev != nil && !sameKind(prev, h) {
			p.b.WriteByte('\n')
		}
		p.leading(h.NodeSpan().Start)
		p.header(h)
		p.write(".")
		p.lastEnd = h.NodeSpan().End
		p.newline()
		prev = h
	}
	for i, top := range prog.Body {
		if i > 0 || len(prog.Headers) > 0 {
			p.b.WriteByte('\n')
		}
		p.leading(top.Start)
		p.chain(top.Stmts)
		if !endsWithBrace(top.Stmts[len(top.Stmts)-1]) {
			p.write(".")
		}
		p.newline()
	}
	p.rest()
}

func sameKind(a, b Header) bool {
	_, pa := a.(*ParamDecl)
	_, pb := b.(*ParamDecl)
	return pa && pb
}

func (p *printer) header(h Header) {
	switch h := h.(type) {
	case *VersionDecl:
		p.write("REQUIRE LANGUAGE VERSION " + quote(h.Version.Value, false))
	case *BackendDecl:
		p.write("THE BACKEND DECLARES " + quote(h.Code.Value, true))
	case *ParamDecl:
		s := h.Name.Name + " IS " + quote(h.Help.Value, false) + " AND COMES FROM " +
			quote(h.Long.Value, false) + " OR " + quote(h.Short.Value, false) +
			" WITH DEFAULT " + p.exprString(h.Default, precCond)
		if len(h.Sweep) > 0 {
			s += " AND RANGES OVER " + p.rangesString(h.Sweep)
		}
		p.write(s)
	}
}

// endsWithBrace reports whether the printed statement ends with '}', which
// makes a following '.' unnecessary.
func endsWithBrace(s Stmt) bool {
	switch s := s.(type) {
	case *Block:
		return true
	case *ForCount:
		return endsWithBrace(s.Body)
	case *ForTime:
		return endsWithBrace(s.Body)
	case *ForEach:
		return endsWithBrace(s.Body)
	case *Let:
		return endsWithBrace(s.Body)
	case *If:
		if s.Else != nil {
			return endsWithBrace(s.Else)
		}
		return endsWithBrace(s.Then)
	}
	return false
}

// openIf reports whether the statement ends with an IF that has no
// OTHERWISE, so that an OTHERWISE printed after it would attach to it.
func openIf(s Stmt) bool {
	switch s := s.(type) {
	case *ForCount:
		return openIf(s.Body)
	case *ForTime:
		return openIf(s.Body)
	case *ForEach:
		return openIf(s.Body)
	case *Let:
		return openIf(s.Body)
	case *If:
		if s.Else == nil {
			return true
		}
		return openIf(s.Else)
	}
	return false
}

func (p *printer) chain(stmts []Stmt) {
	for i, s := range stmts {
		if i > 0 {
			p.write(" THEN")
			p.newline()
		}
		p.stmt(s)
	}
}

func (p *printer) stmt(s Stmt) {
	p.leading(s.NodeSpan().Start)
	switch s := s.(type) {
	case *Block:
		p.block(s)
	case *ForCount:
		h := "FOR " + p.exprString(s.Count, precCond) + " " + plural(s.Count, "REPETITION", "REPETITIONS")
		if s.Warmup != nil {
			h += " PLUS " + p.exprString(s.Warmup, precCond) + " WARMUP " + plural(s.Warmup, "REPETITION", "REPETITIONS")
			if s.Sync {
				h += " AND A SYNCHRONIZATION"
			}
		}
		p.compound(h, s.Span, s.Body)
	case *ForTime:
		h := "FOR " + p.exprString(s.Amount, precCond) + " " + timeUnit(s.Unit, s.Amount)
		if s.Warmup != nil {
			h += " PLUS " + p.exprString(s.Warmup, precCond) + " WARMUP " + timeUnit(s.WarmupUnit, s.Warmup)
			if s.Sync {
				h += " AND A SYNCHRONIZATION"
			}
		}
		p.compound(h, s.Span, s.Body)
	case *ForEach:
		p.compound("FOR EACH "+s.Var.Name+" IN "+p.rangesString(s.Ranges), s.Span, s.Body)
	case *Let:
		parts := make([]string, len(s.Bindings))
		for i, bd := range s.Bindings {
			parts[i] = p.bindingString(bd)
		}
		p.compound("LET "+strings.Join(parts, " AND ")+" WHILE", s.Span, s.Body)
	case *If:
		then := s.Then
		if s.Else != nil && openIf(then) {
			then = &Block{Span: then.NodeSpan(), Stmts: []Stmt{then}}
		}
		p.compound("IF "+p.relString(s.Cond, precOr)+" THEN", s.Span, then)
		if s.Else != nil {
			if _, ok := then.(*Block); ok {
				p.write(" OTHERWISE")
			} else {
				p.newline()
				p.write("OTHERWISE")
			}
			if elif, ok := s.Else.(*If); ok {
				p.write(" ")
				p.stmt(elif)
				return
			}
			p.body(s.Else)
		}
	default:
		p.simple(s)
	}
	p.lastEnd = s.NodeSpan().End
}

// maxLine is the width beyond which LOGS columns go one per line.
const maxLine = 100

// simple prints a simple statement, breaking a long list of LOGS columns
// after each AND.
func (p *printer) simple(s Stmt) {
	line := p.simpleString(s)
	if 2*p.indent+len(line) <= maxLine {
		p.write(line)
		return
	}
	var head string
	var items []string
	switch s := s.(type) {
	case *Log:
		subj, pl := p.subject(s.Tasks)
		head = subj + " " + verb(pl, "LOGS") + " "
		for _, it := range s.Items {
			items = append(items, p.aggregateString(it.Agg)+" AS "+p.itemString(it.Heading))
		}
	}
	if len(items) < 2 {
		p.write(line)
		return
	}
	p.write(head + items[0])
	p.indent += 2
	for _, it := range items[1:] {
		p.write(" AND")
		p.b.WriteByte('\n')
		p.lineStart = true
		p.write(it)
	}
	p.indent -= 2
}

// compound prints a statement header followed by its body.
func (p *printer) compound(header string, sp Span, body Stmt) {
	p.write(header)
	p.lastEnd = sp.Start
	p.body(body)
}

func (p *printer) body(body Stmt) {
	if blk, ok := body.(*Block); ok {
		p.write(" ")
		p.block(blk)
		return
	}
	p.indent++
	p.newline()
	p.stmt(body)
	p.indent--
}

func (p *printer) block(b *Block) {
	if len(b.Stmts) == 0 {
		p.write("{}")
		return
	}
	p.write("{")
	p.lastEnd = b.Start
	p.indent++
	p.newline()
	p.chain(b.Stmts)
	p.indent--
	p.lastEnd = lastStmtEnd(b)
	p.newline()
	p.write("}")
}

func lastStmtEnd(b *Block) Pos {
	return b.Stmts[len(b.Stmts)-1].NodeSpan().End
}

// ---------------------------------------------------------------------------
// Simple statements

// subject returns the printed task description and whether it takes a
// plural verb.
func (p spelling) subject(t TaskDesc) (string, bool) {
	switch t.(type) {
	case *AllTasks, *TasksSuchThat, *TasksInRanges, *AllOtherTasks:
		return p.taskString(t), true
	}
	return p.taskString(t), false
}

func verb(pluralSubject bool, singular string) string {
	if !pluralSubject {
		return singular
	}
	switch {
	case strings.HasSuffix(singular, "CHES"):
		return strings.TrimSuffix(singular, "ES")
	case singular == "IS":
		return "ARE"
	}
	return strings.TrimSuffix(singular, "S")
}

func (p spelling) simpleString(s Stmt) string {
	switch s := s.(type) {
	case *Assert:
		return "ASSERT THAT " + quote(s.Msg.Value, false) + " WITH " + p.relString(s.Cond, precOr)
	case *Send:
		subj, pl := p.subject(s.Source)
		out := subj + blockingWord(s.Blocking) + " " + verb(pl, "SENDS") + " " + p.msgSpecString(s.Msg, "FROM") + " TO "
		if s.Unsuspecting {
			out += "UNSUSPECTING "
		}
		out += p.taskString(s.Target)
		if s.Recv != nil {
			pronoun := "THEM"
			if single(s.Msg.Count) {
				pronoun = "IT"
			}
			_, tpl := p.subject(s.Target)
			out += " WHO " + verb(tpl, "RECEIVES") + " " + pronoun + p.recvSpecString(s.Recv, s.Msg.Count)
		}
		return out
	case *Receive:
		subj, pl := p.subject(s.Target)
		return subj + blockingWord(s.Blocking) + " " + verb(pl, "RECEIVES") + " " + p.msgSpecString(s.Msg, "INTO") + " FROM " + p.taskString(s.Source)
	case *Multicast:
		subj, pl := p.subject(s.Source)
		return subj + blockingWord(s.Blocking) + " " + verb(pl, "MULTICASTS") + " " + p.msgSpecString(s.Msg, "FROM") + " TO " + p.taskString(s.Target)
	case *Reduce:
		subj, pl := p.subject(s.Source)
		out := subj + " " + verb(pl, "REDUCES") + " " + p.reduceSpecString(s.Msg, "FROM")
		switch {
		case s.Target != nil:
			out += " TO " + p.taskString(s.Target)
			if s.Result != nil {
				_, tpl := p.subject(s.Target)
				out += " WHO " + verb(tpl, "RECEIVES") + " THE RESULT" + p.resultSpecString(s.Result)
			}
		case s.Result != nil:
			out += " TO " + p.reduceSpecString(s.Result, "INTO")
		}
		if s.Op != 0 {
			out += " USING OPERATION " + [...]string{OpSum: "SUM", OpProduct: "PRODUCT", OpMinimum: "MINIMUM", OpMaximum: "MAXIMUM"}[s.Op]
		}
		if s.Scatter {
			out += " AND " + verb(pl, "SCATTERS") + " THE RESULT"
		}
		return out
	case *Synchronize:
		subj, pl := p.subject(s.Tasks)
		return subj + " " + verb(pl, "SYNCHRONIZES")
	case *Await:
		subj, pl := p.subject(s.Tasks)
		return subj + " " + verb(pl, "AWAITS") + " COMPLETION"
	case *Scatter:
		subj, pl := p.subject(s.Source)
		return subj + " " + verb(pl, "SCATTERS") + " " + p.msgSpecString(s.Msg, "FROM") + " TO " + p.taskString(s.Target)
	case *Gather:
		subj, pl := p.subject(s.Root)
		return subj + " " + verb(pl, "GATHERS") + " " + p.msgSpecString(s.Msg, "INTO") + " FROM " + p.taskString(s.Source)
	case *Exchange:
		subj, pl := p.subject(s.Tasks)
		return subj + " " + verb(pl, "EXCHANGES") + " " + p.msgSpecString(s.Msg, "FROM") + " WITH " + p.taskString(s.Peers)
	case *Delay:
		subj, pl := p.subject(s.Tasks)
		v := "COMPUTES"
		if s.Sleep {
			v = "SLEEPS"
		}
		return subj + " " + verb(pl, v) + " FOR " + p.exprString(s.Amount, precCond) + " " + timeUnit(s.Unit, s.Amount)
	case *Work:
		subj, pl := p.subject(s.Tasks)
		out := subj + " " + verb(pl, "COMPUTES") + " " + p.exprString(s.Flops, precCond) + " " + plural(s.Flops, "FLOP", "FLOPS")
		if s.Memory != nil {
			out += " AND " + p.quantityNoun(s.Memory) + " OF MEMORY TRAFFIC"
		}
		return out
	case *Touch:
		subj, pl := p.subject(s.Tasks)
		out := subj + " " + verb(pl, "TOUCHES") + " "
		if s.Count != nil {
			out += p.exprString(s.Count, precCond) + " " + unitNoun(s.CountType, s.Count) + " OF "
		}
		region := "MEMORY REGION"
		if s.Region != nil {
			region = p.sizeString(s.Region) + " " + region
		}
		out += article(region) + " " + region
		if s.Repeat != nil {
			out += " " + p.exprString(s.Repeat, precCond) + " " + plural(s.Repeat, "TIME", "TIMES")
		}
		switch s.Stride {
		case StrideRandom:
			out += " WITH RANDOM STRIDE"
		case StrideExplicit:
			out += " WITH STRIDE " + p.exprString(s.StrideX, precCond) + " " + unitNoun(s.StrideType, s.StrideX)
		}
		return out
	case *TouchBuffer:
		subj, pl := p.subject(s.Tasks)
		out := subj + " " + verb(pl, "TOUCHES") + " "
		switch s.Which {
		case AllBuffers:
			return out + "ALL MESSAGE BUFFERS"
		case CurrentBuffer:
			return out + "THE CURRENT MESSAGE BUFFER"
		}
		return out + "MESSAGE BUFFER " + p.exprString(s.Number, precCond)
	case *Log:
		subj, pl := p.subject(s.Tasks)
		parts := make([]string, len(s.Items))
		for i, it := range s.Items {
			parts[i] = p.aggregateString(it.Agg) + " AS " + p.itemString(it.Heading)
		}
		return subj + " " + verb(pl, "LOGS") + " " + strings.Join(parts, " AND ")
	case *ComputeAggregates:
		subj, pl := p.subject(s.Tasks)
		return subj + " " + verb(pl, "COMPUTES") + " AGGREGATES"
	case *Counters:
		subj, pl := p.subject(s.Tasks)
		v := [...]string{ResetCounters: "RESETS", StoreCounters: "STORES", RestoreCounters: "RESTORES"}[s.Op]
		pron := "ITS"
		if pl {
			pron = "THEIR"
		}
		return subj + " " + verb(pl, v) + " " + pron + " COUNTERS"
	case *Output:
		subj, pl := p.subject(s.Tasks)
		return subj + " " + verb(pl, "OUTPUTS") + " " + p.itemsString(s.Items)
	case *BackendExec:
		subj, pl := p.subject(s.Tasks)
		return subj + " BACKEND " + verb(pl, "EXECUTES") + " " + p.itemsString(s.Items)
	case *Assign:
		subj, pl := p.subject(s.Tasks)
		out := subj + " " + verb(pl, "IS") + " ASSIGNED TO "
		if s.Processor == nil {
			return out + "A RANDOM PROCESSOR"
		}
		return out + "PROCESSOR " + p.exprString(s.Processor, precCond)
	}
	return ""
}

func blockingWord(b Blocking) string {
	switch b {
	case Asynchronously:
		return " ASYNCHRONOUSLY"
	case Synchronously:
		return " SYNCHRONOUSLY"
	}
	return ""
}

func (p spelling) itemsString(items []*Item) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = p.itemString(it)
	}
	return strings.Join(parts, " AND ")
}

func (p spelling) itemString(it *Item) string {
	switch {
	case it.X != nil:
		return p.exprString(it.X, precCond)
	case it.ValueOf:
		return "THE VALUE OF " + quote(it.Str.Value, false)
	}
	return quote(it.Str.Value, false)
}

var aggFuncNames = [...]string{
	Mean: "MEAN", ArithmeticMean: "ARITHMETIC MEAN", HarmonicMean: "HARMONIC MEAN",
	GeometricMean: "GEOMETRIC MEAN", Median: "MEDIAN", StandardDeviation: "STANDARD DEVIATION",
	MedianAbsoluteDeviation: "MEDIAN ABSOLUTE DEVIATION", Variance: "VARIANCE", Sum: "SUM",
	Minimum: "MINIMUM", Maximum: "MAXIMUM", Final: "FINAL",
}

func (p spelling) aggregateString(a *Aggregate) string {
	switch a.Kind {
	case AggOnly:
		return "THE " + p.exprString(a.X, precCond)
	case AggHistogram:
		return "A HISTOGRAM OF " + p.exprString(a.X, precCond)
	case AggFuncs:
		parts := make([]string, len(a.Funcs))
		for i, f := range a.Funcs {
			if f.Kind == Percentile {
				parts[i] = "THE " + p.exprString(f.Percentile, precCond) + " PERCENTILE"
			} else {
				parts[i] = "THE " + aggFuncNames[f.Kind]
			}
		}
		return strings.Join(parts, " AND ") + " OF " + p.exprString(a.X, precCond)
	}
	return p.exprString(a.X, precCond)
}

func (p spelling) bindingString(b *LetBinding) string {
	out := b.Name.Name + " BE "
	switch {
	case b.Value != nil:
		return out + p.exprString(b.Value, precCond)
	case b.Group != nil:
		return out + p.taskString(b.Group)
	}
	r := b.Random
	out += "A RANDOM TASK"
	switch r.Kind {
	case RandomOtherThan:
		out += " OTHER THAN " + p.exprString(r.X, precCond)
	case RandomLessThan:
		out += " LESS THAN " + p.exprString(r.X, precCond)
	case RandomGreaterThan:
		out += " GREATER THAN " + p.exprString(r.X, precCond)
	case RandomIn:
		out += " IN [" + p.exprString(r.X, precCond) + ", " + p.exprString(r.Y, precCond) + "]"
	}
	if r.ButNot != nil {
		out += " BUT NOT " + p.exprString(r.ButNot, precCond)
	}
	return out
}

// ---------------------------------------------------------------------------
// Task descriptions and message specifications

func (p spelling) taskString(t TaskDesc) string {
	switch t := t.(type) {
	case *AllTasks:
		if t.Var != nil {
			return "ALL TASKS " + t.Var.Name
		}
		return "ALL TASKS"
	case *AllOtherTasks:
		return "ALL OTHER TASKS"
	case *TaskExpr:
		return "TASK " + p.exprString(t.X, precCond)
	case *TasksSuchThat:
		return "TASKS " + t.Var.Name + " SUCH THAT " + p.relString(t.Cond, precOr)
	case *TaskGroup:
		return "TASK GROUP " + t.Name.Name
	case *TasksInRanges:
		return "TASKS " + p.rangesString(t.Ranges)
	}
	return ""
}

// single reports whether a count means one item: `A`/`AN` or the literal 1.
func single(count Expr) bool {
	if count == nil {
		return true
	}
	lit, ok := count.(*IntLit)
	return ok && lit.Value == 1 && lit.Text == ""
}

func plural(count Expr, one, many string) string {
	if single(count) {
		return one
	}
	return many
}

var unitAdjectives = [...]string{
	Bits: "BIT", Bytes: "BYTE", Halfwords: "HALFWORD", Words: "WORD", Integers: "INTEGER",
	Doublewords: "DOUBLEWORD", Quadwords: "QUADWORD", Pages: "PAGE", Kilobytes: "KILOBYTE",
	Megabytes: "MEGABYTE", Gigabytes: "GIGABYTE",
}

// unitNoun is the unit as a noun counted by amount: "1 WORD", "8 WORDS".
func unitNoun(u Unit, amount Expr) string {
	if single(amount) {
		return unitAdjectives[u]
	}
	return unitAdjectives[u] + "S"
}

func timeUnit(u TimeUnit, amount Expr) string {
	name := [...]string{Microseconds: "MICROSECOND", Milliseconds: "MILLISECOND", Seconds: "SECOND",
		Minutes: "MINUTE", Hours: "HOUR", Days: "DAY"}[u]
	if single(amount) {
		return name
	}
	return name + "S"
}

// sizeString prints a size in adjective form: "64 BYTE", "DOUBLEWORD SIZED".
func (p spelling) sizeString(q *Quantity) string {
	if q.Amount == nil {
		return unitAdjectives[q.Unit] + " SIZED"
	}
	return p.exprString(q.Amount, precCond) + " " + unitAdjectives[q.Unit]
}

// quantityNoun prints a quantity as a noun: "8 BYTES", "1 GIGABYTE".
func (p spelling) quantityNoun(q *Quantity) string {
	noun := unitNoun(q.Unit, q.Amount)
	if p.strict && (q.Unit == Kilobytes || q.Unit == Megabytes || q.Unit == Gigabytes) {
		// coNCePTuaL has no plural of these three units.
		noun = unitAdjectives[q.Unit]
	}
	return p.exprString(q.Amount, precCond) + " " + noun
}

func (p spelling) alignString(a *Alignment) string {
	if a.Kind == Unaligned {
		return "UNALIGNED"
	}
	kind := " ALIGNED"
	if a.Kind == Misaligned {
		kind = " MISALIGNED"
	}
	if a.Q.Amount == nil {
		return unitAdjectives[a.Q.Unit] + kind
	}
	return p.exprString(a.Q.Amount, precCond) + " " + unitAdjectives[a.Q.Unit] + kind
}

var touchingNames = [...]string{
	WithDataTouching: "WITH DATA TOUCHING", WithoutDataTouching: "WITHOUT DATA TOUCHING",
	WithVerification: "WITH VERIFICATION", WithoutVerification: "WITHOUT VERIFICATION",
}

var uniquenessNames = [...]string{Unique: "UNIQUE", Nonunique: "NONUNIQUE"}

// juxtaposed prints an expression that directly follows another one, so it
// must not begin with a sign that would join the two into a sum.
func (p spelling) juxtaposed(e Expr) string {
	s := p.exprString(e, precCond)
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		return "(" + s + ")"
	}
	return s
}

// countAndShape prints "count [UNIQUE] [size] [alignment]" with an
// article for a count of one.
func (p spelling) countPrefix(count Expr, words []string) string {
	rest := strings.Join(words, " ")
	if count == nil {
		if rest == "" {
			return "A"
		}
		return article(rest) + " " + rest
	}
	if rest == "" {
		return p.exprString(count, precCond)
	}
	return p.exprString(count, precCond) + " " + rest
}

func (p spelling) msgSpecString(m *MsgSpec, bufPrep string) string {
	var words []string
	if m.Uniqueness != 0 {
		words = append(words, uniquenessNames[m.Uniqueness])
	}
	first := true
	expr := func(e Expr) string {
		if first && m.Count == nil && m.Uniqueness == 0 {
			first = false
			// A conditional size right after the article parses
			// whole, but parentheses show where it ends:
			// A (75 IF t = 0 OTHERWISE 80) BYTE MESSAGE.
			return p.exprString(e, precAdd)
		}
		first = false
		return p.juxtaposed(e)
	}
	if m.Size != nil {
		if m.Size.Amount == nil {
			words = append(words, unitAdjectives[m.Size.Unit]+" SIZED")
		} else {
			words = append(words, expr(m.Size.Amount)+" "+unitAdjectives[m.Size.Unit])
		}
	}
	if m.Align != nil {
		if m.Align.Q != nil && m.Align.Q.Amount != nil {
			kind := " ALIGNED"
			if m.Align.Kind == Misaligned {
				kind = " MISALIGNED"
			}
			words = append(words, expr(m.Align.Q.Amount)+" "+unitAdjectives[m.Align.Q.Unit]+kind)
		} else {
			words = append(words, p.alignString(m.Align))
		}
	}
	words = append(words, plural(m.Count, "MESSAGE", "MESSAGES"))
	out := p.countPrefix(m.Count, words)
	return out + p.tailString(m.Touch, m.Tag, m.Buffer, bufPrep)
}

func (p spelling) tailString(touch Touching, tag *Tag, buf *Buffer, bufPrep string) string {
	var out string
	if touch != 0 {
		out += " " + touchingNames[touch]
	}
	if tag != nil {
		if tag.Str != nil {
			out += " USING TAG " + quote(tag.Str.Value, false)
		} else {
			out += " USING TAG " + p.exprString(tag.X, precCond)
		}
	}
	if buf != nil {
		out += " " + bufPrep + " "
		if buf.Offset != nil {
			out += p.quantityNoun(buf.Offset) + " INTO "
		}
		if buf.Number == nil {
			out += "THE DEFAULT BUFFER"
		} else {
			out += "BUFFER " + p.exprString(buf.Number, precCond)
		}
	}
	return out
}

func (p spelling) recvSpecString(r *RecvSpec, count Expr) string {
	out := blockingWord(r.Blocking)
	if r.As {
		var words []string
		if r.Uniqueness != 0 {
			words = append(words, uniquenessNames[r.Uniqueness])
		}
		if r.Align != nil {
			words = append(words, p.alignString(r.Align))
		}
		noun := plural(count, "MESSAGE", "MESSAGES")
		words = append(words, noun)
		if single(count) {
			out += " AS " + article(strings.Join(words, " ")) + " " + strings.Join(words, " ")
		} else {
			out += " AS " + strings.Join(words, " ")
		}
	}
	return out + p.tailString(r.Touch, r.Tag, r.Buffer, "INTO")
}

func (p spelling) reduceSpecString(r *ReduceSpec, bufPrep string) string {
	var words []string
	if r.Uniqueness != 0 {
		words = append(words, uniquenessNames[r.Uniqueness])
	}
	if r.Align != nil {
		if r.Align.Q != nil && r.Align.Q.Amount != nil && (r.Count != nil || r.Uniqueness != 0) {
			kind := " ALIGNED"
			if r.Align.Kind == Misaligned {
				kind = " MISALIGNED"
			}
			words = append(words, p.juxtaposed(r.Align.Q.Amount)+" "+unitAdjectives[r.Align.Q.Unit]+kind)
		} else {
			words = append(words, p.alignString(r.Align))
		}
	}
	words = append(words, unitNoun(r.Type, r.Count))
	return p.countPrefix(r.Count, words) + p.tailString(r.Touch, r.Tag, r.Buffer, bufPrep)
}

func (p spelling) resultSpecString(r *ReduceSpec) string {
	if r.Typed {
		return " AS " + p.reduceSpecString(r, "INTO")
	}
	return p.tailString(r.Touch, r.Tag, r.Buffer, "INTO")
}

// article chooses A or AN for the words that follow it.
func article(next string) string {
	w := strings.ToLower(next)
	switch {
	case w == "":
		return "A"
	case w[0] >= '0' && w[0] <= '9':
		num := w
		if i := strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			num = w[:i]
		}
		if num[0] == '8' || num == "11" || num == "18" {
			return "AN"
		}
		return "A"
	case strings.HasPrefix(w, "uni") || strings.HasPrefix(w, "one"):
		return "A"
	case len(w) == 1 || w[1] == ' ':
		// A one-letter name is read as its letter: "an n", "a k".
		if strings.ContainsRune("aefhilmnorsx", rune(w[0])) {
			return "AN"
		}
		return "A"
	case strings.ContainsRune("aeio", rune(w[0])):
		return "AN"
	}
	return "A"
}

// ---------------------------------------------------------------------------
// Ranges, relations and expressions

func (p spelling) rangesString(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = p.rangeString(r)
	}
	return strings.Join(parts, ", ")
}

func (p spelling) rangeString(r Range) string {
	switch r := r.(type) {
	case *ListRange:
		return "{" + p.exprsString(r.Items) + "}"
	case *ProgRange:
		return "{" + p.exprsString(r.Initial) + ", ..., " + p.exprString(r.Final, precCond) + "}"
	case *CompRange:
		out := "{" + p.exprString(r.Expr, precCond)
		for _, g := range r.Gens {
			out += " FOR EACH " + g.Var.Name + " IN " + p.rangesString(g.Ranges)
		}
		if r.Where != nil {
			out += " WHERE " + p.relString(r.Where, precOr)
		}
		return out + "}"
	}
	return ""
}

func (p spelling) exprsString(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = p.exprString(e, precCond)
	}
	return strings.Join(parts, ", ")
}

// Relation precedence: OR < AND < primary.
const (
	precOr = iota + 1
	precAnd
	precRelPrimary
)

func (p spelling) relString(r Rel, min int) string {
	switch r := r.(type) {
	case *Logic:
		prec, op := precOr, ` \/ `
		if r.Op == And {
			prec, op = precAnd, ` /\ `
		}
		s := p.relString(r.X, prec) + op + p.relString(r.Y, prec+1)
		if prec < min {
			return "(" + s + ")"
		}
		return s
	case *Compare:
		op := [...]string{Eq: "=", Lt: "<", Gt: ">", Le: "<=", Ge: ">=", Ne: "<>", Divides: "DIVIDES"}[r.Op]
		return p.exprString(r.X, precCond) + " " + op + " " + p.exprString(r.Y, precCond)
	case *Parity:
		if r.Odd {
			return p.exprString(r.X, precCond) + " IS ODD"
		}
		return p.exprString(r.X, precCond) + " IS EVEN"
	case *InInterval:
		return p.exprString(r.X, precCond) + notIn(r.Not) + "[" + p.exprString(r.Lo, precCond) + ", " + p.exprString(r.Hi, precCond) + "]"
	case *InRanges:
		return p.exprString(r.X, precCond) + notIn(r.Not) + p.rangesString(r.Ranges)
	}
	return ""
}

func notIn(not bool) string {
	if not {
		return " IS NOT IN "
	}
	return " IS IN "
}

// Expression precedence, low to high.
const (
	precCond = iota + 1
	precAdd
	precMul
	precUnary
	precPrimary
)

var binaryOps = [...]struct {
	text string
	prec int
}{
	Add: {"+", precAdd}, Sub: {"-", precAdd}, BitOr: {"|", precAdd}, Xor: {"XOR", precAdd},
	Mul: {"*", precMul}, Div: {"/", precMul}, Mod: {"MOD", precMul}, Shr: {">>", precMul},
	Shl: {"<<", precMul}, BitAnd: {"&", precMul}, Pow: {"**", precUnary},
}

func (p spelling) exprString(e Expr, min int) string {
	var s string
	prec := precPrimary
	switch e := e.(type) {
	case *IntLit:
		if e.Text != "" {
			return e.Text
		}
		return strconv.FormatInt(e.Value, 10)
	case *Ident:
		return e.Name
	case *MyTask:
		return "MY TASK"
	case *Unary:
		prec = precUnary
		op := [...]string{Neg: "-", Plus: "+", BitNot: "NOT "}[e.Op]
		x := p.exprString(e.X, precUnary)
		if e.Op == Neg {
			x = p.afterMinus(x)
		}
		s = op + x
	case *Binary:
		op := binaryOps[e.Op]
		prec = op.prec
		if e.Op == Pow {
			// primary ** unary: the base must be a primary expression.
			s = p.exprString(e.X, precPrimary) + " ** " + p.exprString(e.Y, precUnary)
		} else {
			y := p.exprString(e.Y, op.prec+1)
			if e.Op == Sub {
				y = p.afterMinus(y)
			}
			s = p.exprString(e.X, op.prec) + " " + op.text + " " + y
		}
	case *CondExpr:
		prec = precCond
		s = p.exprString(e.Then, precAdd) + " IF " + p.relString(e.Cond, precOr) + " OTHERWISE " + p.exprString(e.Else, precCond)
	case *Call:
		return string(e.Func) + "(" + p.exprsString(e.Args) + ")"
	case *MeshCall:
		dims := make([]string, len(e.Dims))
		for i, d := range e.Dims {
			dims[i] = p.exprString(d.Size, precCond)
			if d.Torus {
				dims[i] += "*"
			}
		}
		out := string(e.Func) + "((" + strings.Join(dims, ", ") + "), " + p.exprString(e.Task, precCond) + ", "
		if e.Func == FuncMeshNeighbor {
			return out + "(" + p.exprsString(e.Offsets) + "))"
		}
		return out + p.exprString(e.Arg, precCond) + ")"
	case *FileData:
		out := "FILE_DATA("
		if e.Static {
			out = "STATIC_FILE_DATA("
		}
		out += quote(e.File.Value, false)
		if e.Column != nil {
			out += ", " + p.exprString(e.Column, precCond)
			if e.Row != nil {
				out += ", " + p.exprString(e.Row, precCond)
				if e.ColSeps != nil {
					out += ", " + quote(e.ColSeps.Value, false)
					if e.RowSeps != nil {
						out += ", " + quote(e.RowSeps.Value, false)
					}
				}
			}
		}
		return out + ")"
	}
	if prec < min {
		return "(" + s + ")"
	}
	return s
}

// afterMinus returns an operand printed after a minus sign. coNCePTuaL's
// lexer takes a '-' before a keyword for white space, so in strict
// spelling an operand that begins with one (ABS(x), NOT x, MY TASK) is
// parenthesized.
func (p spelling) afterMinus(s string) string {
	if !p.strict {
		return s
	}
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	if end < 0 {
		end = len(s)
	}
	if end == 0 || !IsKeyword(s[:end]) {
		return s
	}
	return "(" + s + ")"
}

// quote writes a string literal. Newlines and tabs stay literal in
// multi-line text (BACKEND DECLARES) and are escaped elsewhere.
func quote(s string, multiline bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			if multiline {
				b.WriteByte('\n')
			} else {
				b.WriteString(`\n`)
			}
		case '\t':
			if multiline {
				b.WriteByte('\t')
			} else {
				b.WriteString(`\t`)
			}
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
