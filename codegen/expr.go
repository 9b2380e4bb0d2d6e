package codegen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
)

// Expressions become C expressions over int64_t (integer context) or
// double (floating-point context). Plain operators are used where C and
// the language agree (the program is compiled with -fwrapv, so integer
// overflow wraps as in the interpreter); the run-time's pr_ functions
// cover the rest: division and MOD with their errors, shifts by any
// amount, powers and the built-in functions.

// pos is a statement or expression position as the run-time reports it.
func pos(sp lang.Span) string {
	return fmt.Sprintf(`"%d:%d"`, sp.Start.Line, sp.Start.Col)
}

// cexpr is a C expression with the precedence of its outermost operator,
// so operands are parenthesized only where C needs it.
type cexpr struct {
	s    string
	prec int
}

// C precedence levels, tightest first.
const (
	precAtom  = iota // names, literals, calls
	precUnary        // - ~ ! (casts)
	precMul          // * /
	precAdd          // + -
	precRel          // < > <= >=
	precEq           // == !=
	precBitAnd
	precXor
	precBitOr
	precAnd // &&
	precOr  // ||
	precCond
)

func atom(s string) cexpr { return cexpr{s, precAtom} }

// in returns e as an operand of an operator of precedence p: wrapped if
// it binds more loosely, or as loosely when it is a right operand.
func (e cexpr) in(p int, right bool) string {
	if e.prec > p || right && e.prec == p && p != precAtom {
		return "(" + e.s + ")"
	}
	return e.s
}

// infix joins operands with op; bitwise operators and && inside ||
// parenthesize any compound operand, as gcc's -Wparentheses asks.
func infix(x cexpr, op string, y cexpr, p int) cexpr {
	lp, rp := p, p
	if p >= precBitAnd && p <= precBitOr {
		lp, rp = precUnary, precUnary
	}
	if p == precOr {
		lp, rp = precAnd-1, precAnd-1
	}
	return cexpr{x.in(lp, false) + " " + op + " " + y.in(rp, true), p}
}

func call(fn string, args ...string) cexpr { return atom(fn + "(" + strings.Join(args, ", ") + ")") }

// intLit writes an integer constant.
func intLit(v int64) string {
	if v == math.MinInt64 {
		return "INT64_MIN"
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return fmt.Sprintf("INT64_C(%d)", v)
	}
	return strconv.FormatInt(v, 10)
}

// floatLit writes a double constant that reads back exactly.
func floatLit(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "HUGE_VAL"
	case math.IsInf(v, -1):
		return "(-HUGE_VAL)"
	case math.IsNaN(v):
		return "NAN"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

var counterNames = map[ir.Counter]string{
	ir.ElapsedUsecs: "ELAPSED_USECS", ir.BytesSent: "BYTES_SENT", ir.BytesReceived: "BYTES_RECEIVED",
	ir.TotalBytes: "TOTAL_BYTES", ir.MsgsSent: "MSGS_SENT", ir.MsgsReceived: "MSGS_RECEIVED",
	ir.TotalMsgs: "TOTAL_MSGS", ir.BitErrors: "BIT_ERRORS",
}

// intExpr is e in integer context, as a C expression.
func (g *gen) intExpr(e ir.Expr) string { return g.ie(e).s }

// floatExpr is e in floating-point context, as a C expression.
func (g *gen) floatExpr(e ir.Expr) string { return g.fe(e).s }

// rel is a relation as a C condition, in floating-point context if fl.
func (g *gen) rel(r ir.Rel, fl bool) string { return g.re(r, fl).s }

func (g *gen) ie(e ir.Expr) cexpr {
	switch e := e.(type) {
	case *ir.Const:
		if e.I < 0 {
			return cexpr{intLit(e.I), precUnary}
		}
		return atom(intLit(e.I))
	case *ir.Param:
		return atom(g.paramNames[e.Index])
	case *ir.NumTasks:
		return atom("num_tasks")
	case *ir.CounterRef:
		return cexpr{"(int64_t)pr_counter(" + counterNames[e.C] + ")", precUnary}
	case *ir.Var:
		return atom(g.slotNames[e.Slot])
	case *ir.MyTask:
		return atom("my_task")
	case *ir.Unary:
		switch e.Op {
		case lang.Neg:
			return cexpr{"-" + g.ie(e.X).in(precUnary, true), precUnary}
		case lang.BitNot:
			return cexpr{"~" + g.ie(e.X).in(precUnary, true), precUnary}
		}
		return g.ie(e.X)
	case *ir.Binary:
		return g.intBinary(e.Op, g.ie(e.X), g.ie(e.Y), e.Y, e.Span())
	case *ir.Cond:
		return g.cond(g.re(e.Cond, false), g.ie(e.Then), g.ie(e.Else))
	case *ir.Call:
		return g.intCall(e)
	case *ir.Mesh:
		return g.mesh(e, g.intExpr)
	case *ir.FileData:
		g.fail(e.Span(), "FILE_DATA is not supported by the C backend yet; use a parameter instead")
		return atom("0")
	}
	g.fail(e.Span(), "the C backend cannot translate %T", e)
	return atom("0")
}

func (g *gen) cond(c, x, y cexpr) cexpr {
	return cexpr{c.in(precOr, false) + " ? " + x.in(precOr, false) + " : " + y.in(precCond, false), precCond}
}

// intBinary applies an operator with the language's integer semantics;
// yExpr is the right operand's ir, to spot constant divisors.
func (g *gen) intBinary(op lang.BinaryOp, x, y cexpr, yExpr ir.Expr, sp lang.Span) cexpr {
	p := pos(sp)
	switch op {
	case lang.Add:
		return infix(x, "+", y, precAdd)
	case lang.Sub:
		return infix(x, "-", y, precAdd)
	case lang.Mul:
		return infix(x, "*", y, precMul)
	case lang.BitOr:
		return infix(x, "|", y, precBitOr)
	case lang.Xor:
		return infix(x, "^", y, precXor)
	case lang.BitAnd:
		return infix(x, "&", y, precBitAnd)
	case lang.Div:
		if c, ok := yExpr.(*ir.Const); ok && c.I != 0 && c.I != -1 {
			return infix(x, "/", y, precMul)
		}
		return call("pr_div", x.s, y.s, p)
	case lang.Mod:
		return call("pr_mod", x.s, y.s, p)
	case lang.Shl:
		return call("pr_shl", x.s, y.s)
	case lang.Shr:
		return call("pr_shr", x.s, y.s)
	case lang.Pow:
		return call("pr_ipow", x.s, y.s, p)
	}
	g.fail(sp, "unknown operator %d", op)
	return atom("0")
}

func (g *gen) fe(e ir.Expr) cexpr {
	switch e := e.(type) {
	case *ir.Const:
		if e.F < 0 {
			return cexpr{floatLit(e.F), precUnary}
		}
		return atom(floatLit(e.F))
	case *ir.Param, *ir.NumTasks, *ir.Var, *ir.MyTask:
		return cexpr{"(double)" + g.intExpr(e), precUnary}
	case *ir.CounterRef:
		return call("pr_counter", counterNames[e.C])
	case *ir.Unary:
		switch e.Op {
		case lang.Neg:
			return cexpr{"-" + g.fe(e.X).in(precUnary, true), precUnary}
		case lang.BitNot:
			return cexpr{"(double)~" + g.trunc(e.X), precUnary}
		}
		return g.fe(e.X)
	case *ir.Binary:
		x, y := g.fe(e.X), g.fe(e.Y)
		switch e.Op {
		case lang.Add:
			return infix(x, "+", y, precAdd)
		case lang.Sub:
			return infix(x, "-", y, precAdd)
		case lang.Mul:
			return infix(x, "*", y, precMul)
		case lang.Div:
			return call("pr_fdiv", x.s, y.s, pos(e.Span()))
		case lang.Pow:
			return call("pr_fpow", x.s, y.s, pos(e.Span()))
		}
		// MOD, shifts and bitwise operators work on the truncated values.
		r := g.intBinary(e.Op, atom(g.trunc(e.X)), atom(g.trunc(e.Y)), nil, e.Span())
		return cexpr{"(double)" + r.in(precUnary, false), precUnary}
	case *ir.Cond:
		return g.cond(g.re(e.Cond, true), g.fe(e.Then), g.fe(e.Else))
	case *ir.Call:
		return g.floatCall(e)
	case *ir.Mesh:
		return cexpr{"(double)" + g.mesh(e, g.trunc).s, precUnary}
	}
	return cexpr{"(double)" + g.ie(e).in(precUnary, false), precUnary}
}

// trunc is e evaluated in floating-point context and truncated as Go
// converts to int64.
func (g *gen) trunc(e ir.Expr) string { return "pr_trunc(" + g.floatExpr(e) + ")" }

// mesh writes MESH_NEIGHBOR, MESH_COORDINATE or MESH_DISTANCE with its
// arguments converted by val.
func (g *gen) mesh(m *ir.Mesh, val func(ir.Expr) string) cexpr {
	var dims, offs, torus [3]string
	for i := range 3 {
		dims[i] = val(m.Dims[i])
		offs[i] = "0"
		if m.Offsets[i] != nil {
			offs[i] = val(m.Offsets[i])
		}
		torus[i] = "0"
		if m.Torus[i] {
			torus[i] = "1"
		}
	}
	d := "PR_DIMS(" + strings.Join(dims[:], ", ") + ")"
	t := "PR_TORUS(" + strings.Join(torus[:], ", ") + ")"
	p := pos(m.Span())
	switch m.Func {
	case lang.FuncMeshNeighbor:
		return call("pr_mesh_neighbor", d, t, val(m.Task), "PR_OFFSETS("+strings.Join(offs[:], ", ")+")", p)
	case lang.FuncMeshCoordinate:
		return call("pr_mesh_coordinate", d, val(m.Task), val(m.Arg), p)
	}
	return call("pr_mesh_distance", d, t, val(m.Task), val(m.Arg), p)
}

// intFuncs are the built-ins that take and return integers in both
// contexts (floating-point context truncates their arguments), with
// whether they take a position for errors and draw random numbers.
var intFuncs = map[lang.Func]struct {
	name   string
	at     bool
	random bool
}{
	lang.FuncAbs: {"pr_abs", true, false}, lang.FuncBits: {"pr_bits", false, false},
	lang.FuncCbrt: {"pr_cbrt", true, false}, lang.FuncSqrt: {"pr_sqrt", true, false},
	lang.FuncRoot: {"pr_root", true, false}, lang.FuncLog10: {"pr_log10", true, false},
	lang.FuncFactor10: {"pr_factor10", false, false}, lang.FuncTreeParent: {"pr_tree_parent", true, false},
	lang.FuncTreeChild: {"pr_tree_child", true, false}, lang.FuncKnomialParent: {"pr_knomial_parent", true, false},
	lang.FuncKnomialChildren: {"pr_knomial_children", true, false}, lang.FuncKnomialChild: {"pr_knomial_child", true, false},
	lang.FuncProcessorOf: {"pr_processor_of", true, false}, lang.FuncTaskOf: {"pr_task_of", true, false},
	lang.FuncRandomUniform: {"pr_random_uniform_int", true, true}, lang.FuncRandomPoisson: {"pr_random_poisson", true, true},
}

func (g *gen) intCall(c *ir.Call) cexpr {
	a := c.Args
	switch c.Func {
	case lang.FuncReal:
		return call("pr_round_to_int", g.floatExpr(a[0]))
	case lang.FuncCeiling, lang.FuncFloor, lang.FuncRound:
		return g.ie(a[0]) // meaningless on integers: unchanged
	case lang.FuncRandomGaussian:
		return call("pr_random_gaussian_int", "&pr.rng", g.intExpr(a[0]), g.intExpr(a[1]))
	case lang.FuncRandomPareto:
		return call("pr_random_pareto_int", "&pr.rng", g.intExpr(a[0]), g.intExpr(a[1]), g.intExpr(a[2]), pos(c.Span()))
	}
	args := make([]string, len(a))
	for i, x := range a {
		args[i] = g.intExpr(x)
	}
	return g.intFunc(c, args)
}

// intFunc applies an integer built-in to C argument expressions.
func (g *gen) intFunc(c *ir.Call, args []string) cexpr {
	if c.Func == lang.FuncMin || c.Func == lang.FuncMax {
		fn := "pr_min2"
		if c.Func == lang.FuncMax {
			fn = "pr_max2"
		}
		s := args[0]
		for _, x := range args[1:] {
			s = fn + "(" + s + ", " + x + ")"
		}
		return atom(s)
	}
	f, ok := intFuncs[c.Func]
	if !ok {
		g.fail(c.Span(), "the C backend cannot translate %s", c.Func)
		return atom("0")
	}
	if f.random {
		args = append([]string{"&pr.rng"}, args...)
	}
	if f.at {
		args = append(args, pos(c.Span()))
	}
	return call(f.name, args...)
}

func (g *gen) floatCall(c *ir.Call) cexpr {
	a := c.Args
	p := pos(c.Span())
	switch c.Func {
	case lang.FuncReal:
		return g.fe(a[0])
	case lang.FuncCeiling:
		return call("ceil", g.floatExpr(a[0]))
	case lang.FuncFloor:
		return call("floor", g.floatExpr(a[0]))
	case lang.FuncRound:
		return call("round", g.floatExpr(a[0]))
	case lang.FuncAbs:
		return call("fabs", g.floatExpr(a[0]))
	case lang.FuncCbrt:
		return call("pr_fcbrt", g.floatExpr(a[0]), p)
	case lang.FuncSqrt:
		return call("pr_fsqrt", g.floatExpr(a[0]), p)
	case lang.FuncLog10:
		return call("pr_flog10", g.floatExpr(a[0]), p)
	case lang.FuncFactor10:
		return call("pr_factor10f", g.floatExpr(a[0]))
	case lang.FuncRoot:
		return call("pr_froot", g.floatExpr(a[0]), g.floatExpr(a[1]), p)
	case lang.FuncMin, lang.FuncMax:
		fn := "pr_fmin2"
		if c.Func == lang.FuncMax {
			fn = "pr_fmax2"
		}
		s := g.floatExpr(a[0])
		for _, x := range a[1:] {
			s = fn + "(" + s + ", " + g.floatExpr(x) + ")"
		}
		return atom(s)
	case lang.FuncRandomUniform:
		return call("pr_random_uniform_float", "&pr.rng", g.floatExpr(a[0]), g.floatExpr(a[1]), p)
	case lang.FuncRandomGaussian:
		return call("pr_random_gaussian_float", "&pr.rng", g.floatExpr(a[0]), g.floatExpr(a[1]))
	case lang.FuncRandomPareto:
		return call("pr_random_pareto_float", "&pr.rng", g.floatExpr(a[0]), g.floatExpr(a[1]), g.floatExpr(a[2]), p)
	case lang.FuncRandomPoisson:
		return call("pr_frandom_poisson", "&pr.rng", g.floatExpr(a[0]), p)
	}
	args := make([]string, len(a))
	for i, x := range a {
		args[i] = g.trunc(x)
	}
	return cexpr{"(double)" + g.intFunc(c, args).s, precUnary}
}

var cmpOps = map[lang.CmpOp]string{lang.Eq: "==", lang.Lt: "<", lang.Gt: ">", lang.Le: "<=", lang.Ge: ">=", lang.Ne: "!="}

func (g *gen) re(r ir.Rel, fl bool) cexpr {
	val, ti := g.ie, g.intExpr
	if fl {
		val, ti = g.fe, g.trunc
	}
	switch r := r.(type) {
	case *ir.Compare:
		if r.Op == lang.Divides {
			return infix(call("pr_mod", ti(r.Y), ti(r.X), pos(r.Span())), "==", atom("0"), precEq)
		}
		p := precRel
		if r.Op == lang.Eq || r.Op == lang.Ne {
			p = precEq
		}
		return infix(val(r.X), cmpOps[r.Op], val(r.Y), p)
	case *ir.Parity:
		op := "=="
		if r.Odd {
			op = "!="
		}
		x := g.ie(r.X) // a compound operand keeps its parentheses: (x | y) & 1
		if fl {
			x = atom(g.trunc(r.X))
		}
		return infix(infix(x, "&", atom("1"), precBitAnd), op, atom("0"), precEq)
	case *ir.InInterval:
		x := val(r.X)
		s := infix(infix(val(r.Lo), "<=", x, precRel), "&&", infix(x, "<=", val(r.Hi), precRel), precAnd)
		if r.Not {
			return cexpr{"!" + s.in(precAtom, false), precUnary}
		}
		return s
	case *ir.InRanges:
		s := g.inRanges(r.Ranges, ti(r.X))
		if r.Not {
			return cexpr{"!" + s.in(precAtom, false), precUnary}
		}
		return s
	case *ir.Logic:
		if r.Op == lang.Or {
			return infix(g.re(r.X, fl), "||", g.re(r.Y, fl), precOr)
		}
		return infix(g.re(r.X, fl), "&&", g.re(r.Y, fl), precAnd)
	}
	g.fail(r.Span(), "the C backend cannot translate %T", r)
	return atom("0")
}

// inRanges is a C condition: x is one of the ranges' values.
func (g *gen) inRanges(ranges []ir.Range, x string) cexpr {
	var parts []cexpr
	for _, rg := range ranges {
		switch rg := rg.(type) {
		case *ir.ListRange:
			items := make([]string, len(rg.Items))
			for i, e := range rg.Items {
				items[i] = g.intExpr(e)
			}
			parts = append(parts, call("pr_in_list", x, fmt.Sprint(len(items)), "(const int64_t[]){"+strings.Join(items, ", ")+"}"))
		case *ir.ProgRange:
			parts = append(parts, atom("pr_prog_contains("+g.progArgs(rg)+", "+x+", "+pos(rg.Span())+")"))
		case *ir.CompRange:
			// A GNU statement expression: the comprehension's values are
			// gathered, searched and freed in place.
			v := g.temp("vals")
			code := g.capture(func() { g.fill(rg, v) })
			g.release(v)
			parts = append(parts, atom(fmt.Sprintf("({ pr_vals %s = {0}; %s int found = pr_vals_contains(&%s, %s); pr_vals_free(&%s); found; })",
				v, strings.Join(strings.Fields(code), " "), v, x, v)))
		}
	}
	s := parts[0]
	for _, q := range parts[1:] {
		s = infix(s, "||", q, precOr)
	}
	return s
}

// progArgs are the arguments that describe a progression to pr_prog and
// pr_prog_contains: its initial terms in both contexts and its final value
// (the caller adds the position).
func (g *gen) progArgs(r *ir.ProgRange) string {
	ints := make([]string, len(r.Initial))
	floats := make([]string, len(r.Initial))
	for i, e := range r.Initial {
		ints[i] = g.intExpr(e)
		floats[i] = g.floatExpr(e)
	}
	return fmt.Sprintf("%d, (const int64_t[]){%s}, %s, (const double[]){%s}, %s", len(ints), strings.Join(ints, ", "),
		g.intExpr(r.Final), strings.Join(floats, ", "), g.floatExpr(r.Final))
}
