package ir_test

import (
	"math"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// build parses, checks and resolves src, failing the test on any error.
func build(t testing.TB, src string) *ir.Program {
	t.Helper()
	prog, diags := parser.Parse("test.parley", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("parse %q:\n%v", src, diags)
	}
	if d := lang.Check(prog).Errors(); len(d) > 0 {
		t.Fatalf("check %q:\n%v", src, d)
	}
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatalf("build %q: %v", src, err)
	}
	return p
}

func globals(t testing.TB, p *ir.Program, numTasks int64, args ...string) *ir.Globals {
	t.Helper()
	g, err := p.Configure(ir.Config{NumTasks: numTasks, Args: args, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// outputExpr returns the first OUTPUTS item of a program made of one
// OUTPUTS statement, and a frame for task 0.
func outputExpr(t testing.TB, expr string, numTasks int64) (ir.Expr, *ir.Frame) {
	t.Helper()
	p := build(t, "TASK 0 OUTPUTS "+expr+".")
	g := globals(t, p, numTasks)
	out := p.Body[0].Stmts[0].(*ir.Output)
	return out.Items[0].X, ir.NewFrame(g, p, 0)
}

func TestIntegerSemantics(t *testing.T) {
	tests := []struct {
		expr string
		want int64
	}{
		{"24/5*5", 20},
		{"-7 MOD 3", 2},
		{"7 MOD -3", 1},
		{"-16 MOD 7", 5},
		{"-16 MOD -7", 5},
		{"16 MOD -7", 2},
		{"10 MOD 3", 1},
		{"-7/2", -3},
		{"7/-2", -3},
		{"4-3-2", -1},
		{"4**3**2", 262144},
		{"2**10", 1024},
		{"-2**2", -4},
		{"(-2)**3", -8},
		{"2**-1", 0},
		{"1**-5", 1},
		{"(-1)**-3", -1},
		{"(-1)**-4", 1},
		{"3 | 5", 7},
		{"3 & 5", 1},
		{"3 XOR 5", 6},
		{"NOT 0", -1},
		{"1 << 10", 1024},
		{"1024 >> 3", 128},
		{"1 << -1", 0},
		{"8 >> -2", 32},
		{"-8 >> 1", -4},
		{"2 + 3 * 4", 14},
		{"(2 + 3) * 4", 20},
		{"2 + 3 | 4", 5 | 4},
		{"666 IF 2+2=5 OTHERWISE 777", 777},
		{"666 IF 2+2=4 OTHERWISE 777", 666},
		{"2 IF 1=0 OTHERWISE 1 IF 1=1 OTHERWISE 0", 1},
		{"9/2 + 1/2", 4},
		{"REAL(9/2 + 1/2)", 5},
		{"REAL(7/2)", 4},
		{"REAL(-7/2)", -4},
		{"64K", 65536},
		{"1M", 1 << 20},
		{"2G", 2 << 30},
		{"1T", 1 << 40},
		{"8E3", 8000},
		{"1E6", 1000000},
		{"38TH", 38},
		{"-42", -42},
		{"num_tasks", 8},
		{"num_tasks * 2 - 1", 15},
		{"ABS(99)", 99},
		{"ABS(-99)", 99},
		{"BITS(12345)", 14},
		{"BITS(0)", 0},
		{"BITS(-1)", 64},
		{"BITS(1)", 1},
		{"BITS(16384)", 15},
		{"CBRT(27)", 3},
		{"CBRT(26)", 2},
		{"CBRT(0)", 0},
		{"FACTOR10(4975)", 4000},
		{"FACTOR10(-4975)", -4000},
		{"FACTOR10(0)", 0},
		{"FACTOR10(9)", 9},
		{"LOG10(12345)", 4},
		{"LOG10(1000)", 3},
		{"LOG10(999)", 2},
		{"LOG10(1)", 0},
		{"MIN(8,6,7,5,3,0,9)", 0},
		{"MAX(8,6,7,5,3,0,9)", 9},
		{"MIN(-3)", -3},
		{"ROOT(5, 245)", 3},
		{"ROOT(2, 16)", 4},
		{"ROOT(3, 27)", 3},
		{"ROOT(-3, 8)", 0},
		{"ROOT(2, 9223372036854775807)", 3037000499},
		{"SQRT(16)", 4},
		{"SQRT(15)", 3},
		{"SQRT(1)", 1},
		{"SQRT(0)", 0},
		{"SQRT(num_tasks)**2", 4},
		{"CEILING(7)", 7},
		{"FLOOR(7)", 7},
		{"ROUND(7)", 7},
		{"TREE_PARENT(3)", 1},
		{"TREE_PARENT(4)", 1},
		{"TREE_PARENT(0)", -1},
		{"TREE_CHILD(1, 0)", 3},
		{"TREE_CHILD(1, 1)", 4},
		{"TREE_CHILD(1, 2)", -1},
		{"TREE_PARENT(7, 3)", 2},
		{"TREE_PARENT(8, 3)", 2},
		{"TREE_PARENT(9, 3)", 2},
		{"TREE_CHILD(2, 0, 3)", 7},
		{"TREE_CHILD(2, 1, 3)", 8},
		{"TREE_CHILD(2, 2, 3)", 9},
		{"PROCESSOR_OF(3)", 3},
		{"TASK_OF(5)", 5},
	}
	for _, tt := range tests {
		e, f := outputExpr(t, tt.expr, 8)
		got, err := ir.EvalInt(e, f)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %d in integer context, want %d", tt.expr, got, tt.want)
		}
	}
}

func TestFloatingPointSemantics(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{"24/5*5", 24},
		{"24/5", 4.8},
		{"9/2 + 1/2", 5},
		{"REAL(9/2)", 4.5},
		{"CEILING(-7777/10)", -777},
		{"FLOOR(-7777/10)", -778},
		{"ROUND(-7777/10)", -778},
		{"ROUND(5/2)", 3},
		{"SQRT(2)", math.Sqrt2},
		{"CBRT(8)", 2},
		{"LOG10(1000)", 3},
		{"ROOT(2, 2)", math.Sqrt2},
		{"7 MOD 3", 1},
		{"-7 MOD 3", 2},
		{"2**-1", 0.5},
		{"1E6/1M", 1e6 / (1 << 20)},
		{"MIN(1/2, 1/4)", 0.25},
		{"ABS(-1/2)", 0.5},
		{"1/2 IF 1=1 OTHERWISE 0", 0.5},
		{"5 IF 3/2 = 1 OTHERWISE 6", 6}, // the relation is compared in floating point too
		{"BITS(7/2)", 2},
		{"TREE_PARENT(9/2)", 1},
		{"3 | 5", 7},
		{"FACTOR10(4975)", 4000},
	}
	for _, tt := range tests {
		e, f := outputExpr(t, tt.expr, 8)
		got, err := ir.EvalFloat(e, f)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if math.Abs(got-tt.want) > 1e-12*math.Max(1, math.Abs(tt.want)) {
			t.Errorf("%s = %g in floating-point context, want %g", tt.expr, got, tt.want)
		}
	}
}

func TestRuntimeErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"1/(num_tasks-8)", "division by zero"},
		{"1 MOD (num_tasks-8)", "MOD 0"},
		{"0**(num_tasks-8)", "0 ** 0"},
		{"ROOT(num_tasks-8, 4)", "ROOT(0, 4)"},
		{"SQRT(-num_tasks)", "SQRT(-8)"},
		{"LOG10(num_tasks-8)", "LOG10(0)"},
		{"TREE_PARENT(3, num_tasks-8)", "positive n"},
		{"KNOMIAL_PARENT(3, num_tasks-7)", "k of at least 2"},
		{"MESH_COORDINATE((4, 3, 2), 18, num_tasks-5)", "0, 1 or 2"},
		{"MESH_NEIGHBOR((num_tasks-8), 0, (1))", "zero dimension"},
		{"RANDOM_UNIFORM(num_tasks, 1)", "upper bound"},
		{"PROCESSOR_OF(num_tasks)", "only 8 tasks"},
		// Every draw is at least 2**63: once an endless loop.
		{"RANDOM_PARETO(1, 9223372036854775807 + num_tasks * 0)", "lower its bounds"},
	}
	for _, tt := range tests {
		e, f := outputExpr(t, tt.expr, 8)
		_, err := ir.EvalInt(e, f)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.expr, err, tt.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "test.parley:1:") {
			t.Errorf("%s: error %q lacks a file:line:col position", tt.expr, err)
		}
	}
}

func TestConstantFolding(t *testing.T) {
	e, _ := outputExpr(t, "24/5*5", 8)
	c, ok := e.(*ir.Const)
	if !ok {
		t.Fatalf("24/5*5 built as %T, want a folded constant", e)
	}
	if c.I != 20 || c.F != 24 {
		t.Errorf("folded 24/5*5 = (%d, %g), want (20, 24)", c.I, c.F)
	}
	if c.Orig == nil || lang.FormatExpr(c.Orig) != "24 / 5 * 5" {
		t.Errorf("folded constant lost its source expression: %v", c.Orig)
	}
	// Division by zero is not folded away: it must fail when evaluated.
	e, f := outputExpr(t, "1/0", 8)
	if _, ok := e.(*ir.Const); ok {
		t.Fatalf("1/0 was folded")
	}
	if _, err := ir.EvalInt(e, f); err == nil {
		t.Errorf("1/0 evaluated without error")
	}
}

// TestFloatingPointIEEE: in floating-point context, as with coNCePTuaL
// 1.5.1b (c_mpi, observed under mpirun, OUTPUTS shown in the comments), a
// division by zero gives an infinity or NaN and the run goes on; LOG10 of
// 0 or of a negative number is -inf or NaN; MIN and MAX compare as C does;
// every other function, MOD, shifts and ** refuse infinities and NaN; and
// an integer context still refuses them.
func TestFloatingPointIEEE(t *testing.T) {
	z := "(num_tasks-8)" // 0, not folded
	values := []struct {
		expr string
		want float64
	}{
		{"3/" + z, math.Inf(1)},             // inf
		{"-3/" + z, math.Inf(-1)},           // -inf
		{"0/" + z, math.NaN()},              // -nan (x86's default NaN has its sign bit set)
		{"REAL(3)/" + z, math.Inf(1)},       // inf
		{"1/(3/" + z + ")", 0},              // 0
		{"3/" + z + " + 1", math.Inf(1)},    // inf
		{"(3/" + z + ")*0", math.NaN()},     // -nan
		{"LOG10(" + z + ")", math.Inf(-1)},  // -inf
		{"LOG10(" + z + "-1)", math.NaN()},  // nan
		{"MIN(3/" + z + ", 1)", 1},          // 1
		{"MAX(-3/" + z + ", 1)", 1},         // 1
		{"MIN(0/" + z + ", 1)", math.NaN()}, // -nan: the first value stays
		{"MAX(1, 0/" + z + ")", 1},          // 1
		{"MIN(1, 0/" + z + ")", 1},          // 1
		{"10**400", math.Inf(1)},            // inf
		{"-" + z, math.Copysign(0, -1)},     // -0
	}
	for _, tt := range values {
		e, f := outputExpr(t, tt.expr, 8)
		got, err := ir.EvalFloat(e, f)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if !(got == tt.want && math.Signbit(got) == math.Signbit(tt.want) || math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s = %v in floating-point context, want %v", tt.expr, got, tt.want)
		}
	}
	errors := []struct{ expr, want string }{
		// 'unable to perform a numeric operation on "inf"'
		{"ABS(3/" + z + ")", "ABS of +Inf is undefined: it needs finite numbers"},
		{"FLOOR(3/" + z + ")", "FLOOR of +Inf"},
		{"ROUND(0/" + z + ")", "ROUND of NaN"},
		{"LOG10(3/" + z + ")", "LOG10 of +Inf"},
		{"TREE_PARENT(3/" + z + ")", "TREE_PARENT of +Inf"},
		{"RANDOM_UNIFORM(0, 3/" + z + ")", "RANDOM_UNIFORM of +Inf"},
		{"(3/" + z + ") MOD 2", "MOD of +Inf"},
		{"(3/" + z + ") << 1", "<< of +Inf"},
		{"2**(3/" + z + ")", "** of +Inf"},
		{"NOT (3/" + z + ")", "NOT of +Inf"},
		{"3 MOD " + z, "3 MOD 0 is undefined"},         // "3 modulo 0 is not defined"
		{"SQRT(" + z + "-1)", "SQRT(-1) is undefined"}, // "unable to take SQRT(-1)"
		{"ROOT(2, " + z + "-4)", "ROOT(2, -4) is undefined"},
		{"(" + z + "-8)**(1/3)", "(-8) ** (0.3333333333333333) is undefined"},
	}
	for _, tt := range errors {
		e, f := outputExpr(t, tt.expr, 8)
		if _, err := ir.EvalFloat(e, f); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "test.parley:1:") {
			t.Errorf("%s: error %v, want one at a position mentioning %q", tt.expr, err, tt.want)
		}
	}
	for _, tt := range []struct{ expr, want string }{
		{"3/" + z, "division by zero (3/0)"},
		{"REAL(3/" + z + ")", "REAL(+Inf) does not fit in a 64-bit integer"},
		{"REAL(10**30/num_tasks)", "REAL(1.25e+29) does not fit"},
	} {
		e, f := outputExpr(t, tt.expr, 8)
		if _, err := ir.EvalInt(e, f); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s in integer context: error %v, want one mentioning %q", tt.expr, err, tt.want)
		}
	}
}
