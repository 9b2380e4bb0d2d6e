package codegen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
)

// TestMathRuntime checks rt_math.h against the interpreter: it compiles
// testdata/rt_math_driver.c, feeds it commands and compares every output
// line with what the ir package (or Go's math and math/rand/v2, which the
// header ports) computes for the same inputs, errors included.
func TestMathRuntime(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("rt_math.h reproduces Go on amd64 (its assembly math.Exp and math.Log, its float-to-int conversion); this is " + runtime.GOARCH)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOAMD64" && s.Value != "v1" && s.Value != "v2" {
				t.Skipf("GOAMD64=%s lets Go fuse multiply-adds, which rt_math.h does not", s.Value)
			}
		}
	}
	// A driver that loops (a bug in the header) must not outlive the test.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	noFMA := os.Getenv("PARLEY_RTMATH_NOFMA") != ""
	driver := os.Getenv("PARLEY_RTMATH_DRIVER")
	built := make(chan error, 1)
	if driver == "" {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			t.Skip("gcc not found: cannot compile the C run-time")
		}
		driver = filepath.Join(t.TempDir(), "rt_math_driver")
		go func() { built <- rtmCompile(ctx, gcc, driver) }()
	} else {
		built <- nil
	}
	l := rtmCases(noFMA) // while gcc runs
	if err := <-built; err != nil {
		t.Fatal(err)
	}

	// Go's math.Exp takes another path on CPUs with AVX and FMA. When the
	// driver finds them too, check the other path as well, in a child run
	// with GODEBUG=cpu.fma=off alongside this one.
	fma := strings.TrimSpace(string(rtmRun(ctx, t, driver, "fma\n")))
	if fma == "1" && !noFMA {
		var childOut bytes.Buffer
		child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMathRuntime$", "-test.count=1")
		child.Env = append(os.Environ(), "GODEBUG=cpu.fma=off", "PARLEY_RTMATH_NOFMA=1", "PARLEY_RTMATH_DRIVER="+driver)
		child.Stdout, child.Stderr = &childOut, &childOut
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := child.Wait(); err != nil {
				t.Errorf("without FMA: %v\n%s", err, childOut.String())
			}
		}()
	}

	var in strings.Builder
	for _, c := range l.cases {
		in.WriteString(c.cmd)
		in.WriteByte('\n')
	}
	lines := strings.Split(strings.TrimSuffix(string(rtmRun(ctx, t, driver, in.String())), "\n"), "\n")
	bad := 0
	for _, c := range l.cases {
		n := min(len(c.want), len(lines))
		got := lines[:n]
		lines = lines[n:]
		for i, w := range c.want {
			if i >= len(got) || got[i] != w {
				g := "<missing>"
				if i < len(got) {
					g = got[i]
				}
				if bad++; bad <= 25 {
					t.Errorf("%s: line %d: C gives %q, Go %q", c.cmd, i+1, g, w)
				}
				break
			}
		}
	}
	if len(lines) > 0 {
		t.Errorf("driver printed %d extra lines, starting %q", len(lines), lines[0])
	}
	if bad > 0 {
		t.Fatalf("%d of %d commands disagree", bad, len(l.cases))
	}
	t.Logf("%d commands agree (Exp's FMA path: %s)", len(l.cases), fma)
}

// rtmCases lists the commands and what Go expects from them; without FMA
// only those that reach math.Exp.
func rtmCases(noFMA bool) *rtmCaseList {
	l := new(rtmCaseList)
	if noFMA {
		l.add("nofma", "ok")
	}
	r := rand.New(rand.NewPCG(1, 2))
	if !noFMA {
		rtmAddIntOps(l, r)
		rtmAddIntFuncs(l, r)
		rtmAddTopology(l, r)
	}
	rtmAddFloatOps(l, r)
	rtmAddGoMath(l, r)
	rtmAddFloatFuncs(l, r)
	rtmAddRandom(l)
	rtmAddProgressions(l, r)
	return l
}

// rtmCompile compiles the driver to exe.
func rtmCompile(ctx context.Context, gcc, exe string) error {
	cmd := exec.CommandContext(ctx, gcc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-I", ".",
		"-o", exe, filepath.Join("testdata", "rt_math_driver.c"), "-lm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("compiling the driver: %v\n%s", err, out)
	}
	return nil
}

// rtmRun runs the driver on input.
func rtmRun(ctx context.Context, t *testing.T, driver, input string) []byte {
	cmd := exec.CommandContext(ctx, driver)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("driver: %v", err)
	}
	return out
}

// rtmMathCase is a driver command and the lines Go expects from it.
type rtmMathCase struct {
	cmd  string
	want []string
}

type rtmCaseList struct{ cases []rtmMathCase }

func (l *rtmCaseList) add(cmd string, want ...string) {
	l.cases = append(l.cases, rtmMathCase{cmd, want})
}

// rtmPos is the position the driver passes for errors.
const rtmPos = "t.parley:1:2"

func rtmFmtI(v int64) string { return fmt.Sprint(v) }

// rtmFmtF prints a double's bits, or "nan": NaN payloads are not observable.
func rtmFmtF(v float64) string {
	if math.IsNaN(v) {
		return "nan"
	}
	return fmt.Sprintf("%016x", math.Float64bits(v))
}

// rtmHexF is a double as a driver argument.
func rtmHexF(v float64) string { return fmt.Sprintf("%016x", math.Float64bits(v)) }

// rtmEval runs f, turning the interpreter's run-time error into the line the
// driver's pr_fail prints.
func rtmEval(f func() string) string {
	var s string
	err := ir.Catch(func() { s = f() })
	if err != nil {
		var re *ir.RuntimeError
		if !errors.As(err, &re) {
			panic(err)
		}
		return "FAIL " + rtmPos + ": " + re.Msg
	}
	return s
}

func rtmFrame() *ir.Frame { return &ir.Frame{G: &ir.Globals{NumTasks: 8}} }

func rtmCi(v int64) ir.Expr   { return &ir.Const{I: v, F: float64(v)} }
func rtmCf(v float64) ir.Expr { return &ir.Const{I: int64(v), F: v} }

func rtmIntArgs(vs ...int64) []ir.Expr {
	es := make([]ir.Expr, len(vs))
	for i, v := range vs {
		es[i] = rtmCi(v)
	}
	return es
}

func rtmFloatArgs(vs ...float64) []ir.Expr {
	es := make([]ir.Expr, len(vs))
	for i, v := range vs {
		es[i] = rtmCf(v)
	}
	return es
}

func rtmJoin[T any](vs []T, f func(T) string) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = f(v)
	}
	return strings.Join(s, " ")
}

// rtmEvalInt and rtmEvalFloat evaluate an expression as the interpreter does.
func rtmEvalInt(e ir.Expr) string {
	f := rtmFrame()
	return rtmEval(func() string { return rtmFmtI(e.Int(f)) })
}

func rtmEvalFloat(e ir.Expr) string {
	f := rtmFrame()
	return rtmEval(func() string { return rtmFmtF(e.Float(f)) })
}

var rtmEdgeInts = []int64{
	0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 62, 63, 64, 65, -62, -63, -64, -65, 1000,
	3037000499, 3037000500, -3037000500, 1 << 31, 1 << 32, -(1 << 32), 1 << 62, -(1 << 62),
	math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, 999999999999999999,
}

var rtmEdgeFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, -1.5, 2, -2, 2.5, -2.5, 3, -3, 10, 0.1, 1.0 / 3,
	100, 1e-300, 1e300, 1e-310, -1e-310, math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
	math.Inf(1), math.Inf(-1), math.NaN(), 1 << 53, 1 << 63, -(1 << 63), 1e19, -1e19, 4503599627370495.5,
	0.49999999999999994, 709.78, -745.2, 1e6, 123456789,
}

// rtmRandInt draws from a mix of small, medium, full-range and edge values.
func rtmRandInt(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return r.Int64N(201) - 100
	case 1:
		return r.Int64N(2_000_001) - 1_000_000
	case 2:
		return int64(r.Uint64())
	case 3:
		return r.Int64N(261) - 130
	}
	return rtmEdgeInts[r.IntN(len(rtmEdgeInts))]
}

// rtmRandFloat draws from a mix of ranges, integers, random bit patterns and
// edge values.
func rtmRandFloat(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return r.Float64()*20 - 10
	case 1:
		return float64(r.Int64N(41) - 20)
	case 2:
		return math.Float64frombits(r.Uint64())
	case 3:
		return math.Ldexp(r.Float64()+0.5, r.IntN(140)-70) * float64(1-2*r.IntN(2))
	case 4:
		return float64(r.Int64N(41)-20) / 2
	}
	return rtmEdgeFloats[r.IntN(len(rtmEdgeFloats))]
}

func rtmAddIntOps(l *rtmCaseList, r *rand.Rand) {
	ops := []struct {
		name string
		op   lang.BinaryOp
	}{{"div", lang.Div}, {"mod", lang.Mod}, {"shl", lang.Shl}, {"shr", lang.Shr}, {"ipow", lang.Pow}}
	pair := func(x, y int64) {
		for _, o := range ops {
			l.add(fmt.Sprintf("%s %d %d", o.name, x, y), rtmEvalInt(&ir.Binary{Op: o.op, X: rtmCi(x), Y: rtmCi(y)}))
		}
	}
	for _, x := range rtmEdgeInts {
		for _, y := range rtmEdgeInts {
			pair(x, y)
		}
	}
	for range 3000 {
		pair(rtmRandInt(r), rtmRandInt(r))
	}
}

func rtmAddFloatOps(l *rtmCaseList, r *rand.Rand) {
	ops := []struct {
		name string
		op   lang.BinaryOp
	}{{"fdiv", lang.Div}, {"fpow", lang.Pow}, {"fmod", lang.Mod}, {"fshl", lang.Shl}, {"fshr", lang.Shr}, {"fand", lang.BitAnd},
		{"for", lang.BitOr}, {"fxor", lang.Xor}}
	pair := func(x, y float64) {
		for _, o := range ops {
			l.add(fmt.Sprintf("%s %s %s", o.name, rtmHexF(x), rtmHexF(y)), rtmEvalFloat(&ir.Binary{Op: o.op, X: rtmCf(x), Y: rtmCf(y)}))
		}
	}
	for _, x := range rtmEdgeFloats {
		for _, y := range rtmEdgeFloats {
			pair(x, y)
		}
	}
	for range 3000 {
		pair(rtmRandFloat(r), rtmRandFloat(r))
	}
	one := func(x float64) {
		l.add("fnot "+rtmHexF(x), rtmEvalFloat(&ir.Unary{Op: lang.BitNot, X: rtmCf(x)}))
		l.add("trunc "+rtmHexF(x), rtmFmtI(int64(x)))
		l.add("round_to_int "+rtmHexF(x), rtmEvalInt(&ir.Call{Func: lang.FuncReal, Args: rtmFloatArgs(x)}))
		for name, f := range map[string]lang.Func{"ceil": lang.FuncCeiling, "floor": lang.FuncFloor, "round": lang.FuncRound} {
			l.add(name+" "+rtmHexF(x), rtmEvalFloat(&ir.Call{Func: f, Args: rtmFloatArgs(x)}))
		}
	}
	for _, x := range rtmEdgeFloats {
		one(x)
	}
	for _, x := range []float64{0.5, -0.5, 1.5, -2.5, 0.49999999999999994, -0.49999999999999994, 9223372036854775807, -9223372036854775808, 9.3e18, -9.3e18} {
		one(x)
	}
	for range 2000 {
		one(rtmRandFloat(r))
	}
}

// rtmAddGoMath checks the ports of Go's math functions directly.
func rtmAddGoMath(l *rtmCaseList, r *rand.Rand) {
	var xs []float64
	xs = append(xs, rtmEdgeFloats...)
	for k := -1074; k <= 1023; k += 7 {
		xs = append(xs, math.Ldexp(0.7071067811865476, k), math.Ldexp(1, k), math.Ldexp(0.7071067811865475, k))
	}
	for range 3000 {
		xs = append(xs, rtmRandFloat(r), r.Float64()*1480-760, r.Float64()*2-1, 1+(r.Float64()-0.5)*1e-6)
	}
	for i, x := range xs {
		if i%4 == 0 {
			l.add("fmtg "+rtmHexF(x), fmt.Sprintf("%g", x))
		}
		l.add("go_exp "+rtmHexF(x), rtmFmtF(math.Exp(x)))
		l.add("go_log "+rtmHexF(x), rtmFmtF(math.Log(x)))
		l.add("go_log10 "+rtmHexF(x), rtmFmtF(math.Log10(x)))
		l.add("go_log1p "+rtmHexF(x), rtmFmtF(math.Log1p(x)))
		l.add("go_cbrt "+rtmHexF(x), rtmFmtF(math.Cbrt(x)))
	}
	pow := func(x, y float64) { l.add("go_pow "+rtmHexF(x)+" "+rtmHexF(y), rtmFmtF(math.Pow(x, y))) }
	for _, x := range rtmEdgeFloats {
		for _, y := range rtmEdgeFloats {
			pow(x, y)
		}
	}
	for range 5000 {
		x := rtmRandFloat(r)
		if r.IntN(2) == 0 {
			x = r.Float64() * 10
		}
		y := rtmRandFloat(r)
		switch r.IntN(3) {
		case 0:
			y = float64(r.Int64N(2001) - 1000)
		case 1:
			y = float64(r.Int64())
		}
		pow(x, y)
	}
}

func rtmAddIntFuncs(l *rtmCaseList, r *rand.Rand) {
	call := func(f lang.Func, args ...int64) string {
		return rtmEvalInt(&ir.Call{Func: f, Args: rtmIntArgs(args...)})
	}
	one := func(x int64) {
		l.add(fmt.Sprintf("abs %d", x), call(lang.FuncAbs, x))
		l.add(fmt.Sprintf("bits %d", x), call(lang.FuncBits, x))
		l.add(fmt.Sprintf("cbrt %d", x), call(lang.FuncCbrt, x))
		l.add(fmt.Sprintf("sqrt %d", x), call(lang.FuncSqrt, x))
		l.add(fmt.Sprintf("log10 %d", x), call(lang.FuncLog10, x))
		l.add(fmt.Sprintf("factor10 %d", x), call(lang.FuncFactor10, x))
	}
	for _, x := range rtmEdgeInts {
		one(x)
	}
	for _, x := range []int64{8, 9, 26, 27, 28, 999, 1000, 1001, 4975, -4975, 1 << 60, 1<<60 - 1} {
		one(x)
	}
	for range 3000 {
		one(rtmRandInt(r))
	}
	ns := []int64{-5, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 10, 31, 32, 62, 63, 64, 100,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -(1 << 40)}
	root := func(n, x int64) { l.add(fmt.Sprintf("root %d %d", n, x), call(lang.FuncRoot, n, x)) }
	for _, n := range ns {
		for _, x := range rtmEdgeInts {
			root(n, x)
		}
		for range 40 {
			root(n, r.Int64()>>r.IntN(63))
		}
	}
	for range 2000 {
		root(r.Int64N(70)-5, r.Int64()>>r.IntN(63))
	}

	// The quantities statements ask for.
	for _, n := range rtmEdgeInts {
		l.add(fmt.Sprintf("count %d", n), rtmEval(func() string { return rtmFmtI(ir.Count(rtmCi(n), rtmFrame())) }))
		for _, unit := range []int64{1, 2, 4, 1 << 10, 1 << 20, 1 << 30, 3 << 40} {
			l.add(fmt.Sprintf("size %d %d", n, unit), rtmEval(func() string { return rtmFmtI(ir.SizeBytes(rtmCi(n), n, unit)) }))
		}
		for _, unit := range []int64{1, 1000, 86400000000} {
			l.add(fmt.Sprintf("usecs %d %d", n, unit), rtmEval(func() string {
				return rtmFmtF(float64(ir.Duration(rtmCi(n), rtmFrame())) * float64(unit))
			}))
		}
	}
}

func rtmAddFloatFuncs(l *rtmCaseList, r *rand.Rand) {
	call := func(f lang.Func, args ...float64) string {
		return rtmEvalFloat(&ir.Call{Func: f, Args: rtmFloatArgs(args...)})
	}
	one := func(x float64) {
		l.add("fabs "+rtmHexF(x), call(lang.FuncAbs, x))
		l.add("fcbrt "+rtmHexF(x), call(lang.FuncCbrt, x))
		l.add("fsqrt "+rtmHexF(x), call(lang.FuncSqrt, x))
		l.add("flog10 "+rtmHexF(x), call(lang.FuncLog10, x))
		l.add("factor10f "+rtmHexF(x), call(lang.FuncFactor10, x))
	}
	for _, x := range rtmEdgeFloats {
		one(x)
		for _, n := range rtmEdgeFloats {
			l.add("froot "+rtmHexF(n)+" "+rtmHexF(x), call(lang.FuncRoot, n, x))
		}
	}
	for _, x := range []float64{4975, -4975, 1000, 999.9999999999999, 1e22, 1e23, 9.999999999999999e22, 5e-324} {
		one(x)
	}
	for range 3000 {
		x, y := rtmRandFloat(r), math.Abs(rtmRandFloat(r))
		one(x)
		l.add("froot "+rtmHexF(x)+" "+rtmHexF(y), call(lang.FuncRoot, x, y))
	}
}

func rtmAddTopology(l *rtmCaseList, r *rand.Rand) {
	call := func(f lang.Func, args ...int64) string {
		return rtmEvalInt(&ir.Call{Func: f, Args: rtmIntArgs(args...)})
	}
	tree := func(task, child, arity int64) {
		l.add(fmt.Sprintf("tree_parent %d %d", task, arity), call(lang.FuncTreeParent, task, arity))
		l.add(fmt.Sprintf("tree_child %d %d %d", task, child, arity), call(lang.FuncTreeChild, task, child, arity))
	}
	knomial := func(task, child, k, n int64) {
		l.add(fmt.Sprintf("knomial_parent %d %d %d", task, k, n), call(lang.FuncKnomialParent, task, k, n))
		l.add(fmt.Sprintf("knomial_children %d %d %d", task, k, n), call(lang.FuncKnomialChildren, task, k, n))
		l.add(fmt.Sprintf("knomial_child %d %d %d %d", task, child, k, n), call(lang.FuncKnomialChild, task, child, k, n))
	}
	for _, x := range rtmEdgeInts {
		for _, a := range []int64{-1, 0, 1, 2, 3, 16, math.MaxInt64} {
			tree(x, 1, a)
			tree(x, a-1, a)
		}
	}
	for range 1000 {
		tree(r.Int64N(1000)-5, r.Int64N(12)-2, r.Int64N(10)-1)
	}
	for range 3000 {
		n := r.Int64N(300)
		knomial(r.Int64N(n+4)-2, r.Int64N(14)-1, r.Int64N(10)+1, n)
	}
	// Huge task counts and arities, which once overflowed and looped.
	const maxI = math.MaxInt64
	for _, n := range []int64{1<<62 + 1, maxI, 4052555153018976272} {
		for _, k := range []int64{2, 3, 1 << 32, maxI - 1, maxI} {
			for _, task := range []int64{0, 1, 2, 5, 1 << 40, 1<<32 + 1, n - 1, n, -1} {
				for _, child := range []int64{0, 3, 62, maxI - 2} {
					knomial(task, child, k, n)
				}
			}
		}
	}
	for range 2000 {
		n := 1 + r.Int64N(maxI)
		knomial(r.Int64N(n), r.Int64N(100)-1, 2+r.Int64N(1<<r.IntN(62)), n)
	}

	type mesh struct {
		dims  [3]int64
		torus [3]bool
	}
	b := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	meshCase := func(m mesh, task int64, offs [3]int64, arg int64) {
		head := fmt.Sprintf("%d %d %d %d %d %d %d", m.dims[0], m.dims[1], m.dims[2], b(m.torus[0]), b(m.torus[1]), b(m.torus[2]), task)
		dims := [3]ir.Expr{rtmCi(m.dims[0]), rtmCi(m.dims[1]), rtmCi(m.dims[2])}
		l.add(fmt.Sprintf("mesh_neighbor %s %d %d %d", head, offs[0], offs[1], offs[2]), rtmEvalInt(&ir.Mesh{
			Func: lang.FuncMeshNeighbor, Dims: dims, Torus: m.torus, Task: rtmCi(task),
			Offsets: [3]ir.Expr{rtmCi(offs[0]), rtmCi(offs[1]), rtmCi(offs[2])},
		}))
		coord := arg%5 - 1
		l.add(fmt.Sprintf("mesh_coordinate %s %d", head, coord), rtmEvalInt(&ir.Mesh{
			Func: lang.FuncMeshCoordinate, Dims: dims, Task: rtmCi(task), Arg: rtmCi(coord),
		}))
		l.add(fmt.Sprintf("mesh_distance %s %d", head, arg), rtmEvalInt(&ir.Mesh{
			Func: lang.FuncMeshDistance, Dims: dims, Torus: m.torus, Task: rtmCi(task), Arg: rtmCi(arg),
		}))
	}
	for range 3000 {
		var m mesh
		for i := range 3 {
			m.dims[i] = r.Int64N(7)
			if r.IntN(20) == 0 {
				m.dims[i] = -r.Int64N(3)
			}
			m.torus[i] = r.IntN(2) == 0
		}
		size := max(m.dims[0]*m.dims[1]*m.dims[2], 1)
		offs := [3]int64{r.Int64N(17) - 8, r.Int64N(17) - 8, r.Int64N(17) - 8}
		meshCase(m, r.Int64N(size+4)-2, offs, r.Int64N(size+4)-2)
	}
	// Sizes that wrap around, and tasks next to the int64 limits.
	for _, m := range []mesh{
		{[3]int64{1 << 32, 1 << 32, 1}, [3]bool{}},
		{[3]int64{3, 6148914691236517205, 1}, [3]bool{true, true, true}},
		{[3]int64{1 << 31, 1 << 31, 3}, [3]bool{}},
		{[3]int64{math.MaxInt64, 1, 1}, [3]bool{true, false, false}},
		{[3]int64{math.MaxInt64, 1, 1}, [3]bool{}},
		{[3]int64{3037000499, 3037000499, 1}, [3]bool{true, true, false}},
	} {
		for _, task := range []int64{0, 1, math.MaxInt64 - 1, math.MaxInt64, math.MinInt64, 3037000498} {
			for _, o := range []int64{-1, 1, math.MaxInt64, math.MinInt64} {
				meshCase(m, task, [3]int64{o, -o, o}, 0)
				meshCase(m, task, [3]int64{o, 0, 0}, math.MaxInt64-1)
			}
		}
	}
}

func rtmAddRandom(l *rtmCaseList) {
	const draws = 10000
	seeds := []uint64{0, 1, 42, 0xdeadbeefcafe, math.MaxUint64}
	for _, seed := range seeds {
		for _, task := range []int64{0, 1, 1000} {
			for _, which := range []string{"task", "sync"} {
				if which == "sync" && task != 0 {
					continue
				}
				stream := func() *rand.Rand {
					f := &ir.Frame{G: &ir.Globals{Seed: seed}, Task: task}
					if which == "sync" {
						return f.SyncRand()
					}
					return f.Rand()
				}
				head := fmt.Sprintf("%s %d %d %d", which, seed, task, draws)
				var u, f, n []string
				su, sf, sn := stream(), stream(), stream()
				for range draws {
					u = append(u, fmt.Sprintf("%016x", su.Uint64()))
					f = append(f, rtmFmtF(sf.Float64()))
					n = append(n, rtmFmtF(sn.NormFloat64()))
				}
				l.add("rand_uint64 "+head, u...)
				l.add("rand_float64 "+head, f...)
				l.add("rand_norm "+head, n...)
			}
		}
	}

	// The language's random functions, drawing from task 3's stream.
	const seed, task, count = 7, 3, 300
	draw := func(name string, e ir.Expr, float bool, args string) {
		fr := &ir.Frame{G: &ir.Globals{Seed: seed}, Task: task}
		var want []string
		for range count {
			s := rtmEval(func() string {
				if float {
					return rtmFmtF(e.Float(fr))
				}
				return rtmFmtI(e.Int(fr))
			})
			want = append(want, s)
			if strings.HasPrefix(s, "FAIL") {
				break // pr_fail leaves the driver's loop
			}
		}
		l.add(fmt.Sprintf("rand_%s task %d %d %d %s", name, seed, task, count, args), want...)
	}
	ints := func(vs ...int64) string { return rtmJoin(vs, rtmFmtI) }
	floats := func(vs ...float64) string { return rtmJoin(vs, rtmHexF) }
	for _, b := range [][2]int64{{0, 10}, {-5, 5}, {0, 1}, {math.MinInt64, math.MaxInt64}, {-1, math.MaxInt64}, {5, 5}, {6, 5}, {1 << 62, math.MaxInt64}} {
		draw("uniform_int", &ir.Call{Func: lang.FuncRandomUniform, Args: rtmIntArgs(b[0], b[1])}, false, ints(b[0], b[1]))
	}
	for _, b := range [][2]float64{{0, 1}, {-2.5, 7.25}, {1e300, math.MaxFloat64}, {1, 1}, {2, 1}, {math.NaN(), 1}, {0, math.Inf(1)}} {
		draw("uniform_float", &ir.Call{Func: lang.FuncRandomUniform, Args: rtmFloatArgs(b[0], b[1])}, true, floats(b[0], b[1]))
	}
	for _, g := range [][2]int64{{0, 1}, {100, 15}, {-50, 1000}, {math.MaxInt64, math.MaxInt64}, {0, 0}} {
		draw("gaussian_int", &ir.Call{Func: lang.FuncRandomGaussian, Args: rtmIntArgs(g[0], g[1])}, false, ints(g[0], g[1]))
	}
	for _, g := range [][2]float64{{0, 1}, {100.5, 15.25}, {-1e10, 1e-3}, {0, math.Inf(1)}} {
		draw("gaussian_float", &ir.Call{Func: lang.FuncRandomGaussian, Args: rtmFloatArgs(g[0], g[1])}, true, floats(g[0], g[1]))
	}
	// Small means multiply uniforms, from 10 on transformed rejection
	// takes over: it must agree bit for bit through Log, Log1p and Sqrt,
	// up to the largest mean allowed.
	for _, m := range []int64{0, 1, 5, 9, 10, 11, 50, 700, 746, 1000, 123456789, 1 << 40, 1 << 53, 1<<62 - 1, 1 << 62, 1<<62 + 1, -1, math.MaxInt64} {
		draw("poisson", &ir.Call{Func: lang.FuncRandomPoisson, Args: rtmIntArgs(m)}, false, ints(m))
	}
	for _, m := range []float64{0, 9.99, 10.5, 1e6, 1e15, 0x1p62, 0x1p62 + 1024, -0.5, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		draw("fpoisson", &ir.Call{Func: lang.FuncRandomPoisson, Args: rtmFloatArgs(m)}, true, floats(m))
	}
	for _, p := range [][3]int64{{1, 1, 1}, {2, 1, 100}, {1, 5, 5}, {3, 10, 1000000}, {1, 1, math.MaxInt64}, {0, 1, 1}, {1, 0, 5}, {1, 5, 3}, {-1, 1, 2},
		{1, math.MaxInt64, math.MaxInt64}, {1, 1 << 62, 1 << 62}, {1, 1<<62 + 1<<61, 1<<62 + 1<<61}, {1, 1 << 62, math.MaxInt64}} {
		draw("pareto_int", &ir.Call{Func: lang.FuncRandomPareto, Args: rtmIntArgs(p[0], p[1], p[2])}, false, ints(p[0], p[1], p[2]))
	}
	for _, p := range [][3]float64{{1, 1, 1}, {0.5, 1, 100}, {2.5, 0.1, 0.1}, {1.5, 3, 1e6}, {0, 1, 1}, {1, 2, 1.5}, {1, math.NaN(), 2}} {
		draw("pareto_float", &ir.Call{Func: lang.FuncRandomPareto, Args: rtmFloatArgs(p[0], p[1], p[2])}, true, floats(p[0], p[1], p[2]))
	}
}

// rtmProgCase is a progression: initial terms and final value in both
// contexts. eachBug marks progressions for which Go's Progression.Each
// runs past the final value (it computes End-Step, which overflows); for
// those the C run-time agrees with ir.Cursor, the FOR EACH loop's walker.
type rtmProgCase struct {
	init    []int64
	finit   []float64
	end     int64
	fend    float64
	eachBug bool
}

func rtmAddProgressions(l *rtmCaseList, r *rand.Rand) {
	var ps []rtmProgCase
	ints := func(init []int64, end int64) rtmProgCase {
		fi := make([]float64, len(init))
		for i, v := range init {
			fi[i] = float64(v)
		}
		return rtmProgCase{init: init, finit: fi, end: end, fend: float64(end)}
	}
	floats := func(fi []float64, fend float64) rtmProgCase {
		init := make([]int64, len(fi))
		for i, v := range fi {
			init[i] = int64(v)
		}
		return rtmProgCase{init: init, finit: fi, end: int64(fend), fend: fend}
	}
	for range 600 {
		start, step := r.Int64N(2001)-1000, r.Int64N(101)-50
		n := 1 + r.IntN(4)
		init := make([]int64, n)
		for i := range init {
			init[i] = start + int64(i)*step
		}
		ps = append(ps, ints(init, start+step*r.Int64N(40)+r.Int64N(7)-3))
	}
	for range 400 {
		start, ratio := (r.Int64N(50)+1)*(1-2*r.Int64N(2)), (r.Int64N(4)+2)*(1-2*r.Int64N(2))
		init := []int64{start, start * ratio}
		if r.IntN(2) == 0 {
			init = append(init, start*ratio*ratio)
		}
		if r.IntN(2) == 0 { // decreasing: the terms reversed
			init[0], init[len(init)-1] = init[len(init)-1], init[0]
		}
		ps = append(ps, ints(init, r.Int64N(6001)-3000))
	}
	for range 400 {
		a, ratio := r.Float64()*100+0.5, r.Float64()*2.9+0.1
		n := 2 + r.IntN(3)
		fi := make([]float64, n)
		for i := range fi {
			fi[i] = a * math.Pow(ratio, float64(i))
		}
		ps = append(ps, floats(fi, r.Float64()*2e4-1e4))
	}
	for range 400 { // terms that round to one another, as coNCePTuaL's own tests write them
		a, ratio := (r.Float64()*200+0.5)*float64(1-2*r.IntN(2)), (r.Float64()*3+0.05)*float64(1-2*r.IntN(4)/3)
		n := 3 + r.IntN(2)
		fi := make([]float64, n)
		for i := range fi {
			fi[i] = float64(ir.Round(a * math.Pow(ratio, float64(i))))
		}
		c := floats(fi, r.Float64()*4e4-2e4)
		c.end = ir.Round(c.fend)
		ps = append(ps, c)
	}
	for range 300 { // mostly no pattern
		init := make([]int64, 2+r.IntN(4))
		for i := range init {
			init[i] = r.Int64N(21) - 10
		}
		ps = append(ps, ints(init, r.Int64N(101)-50))
	}
	const minI, maxI = math.MinInt64, math.MaxInt64
	ps = append(ps,
		ints([]int64{maxI - 10, maxI - 7}, maxI),
		ints([]int64{minI + 10, minI + 7}, minI),
		ints([]int64{maxI - 2}, maxI),
		ints([]int64{minI + 2}, minI),
		ints([]int64{1, 2, 4}, maxI),
		ints([]int64{-1, 2, -4}, maxI),
		ints([]int64{3, -9}, 1000),
		ints([]int64{1, -3}, maxI),
		ints([]int64{maxI, maxI / 2}, 0),
		ints([]int64{minI, minI / 2}, -1),
		ints([]int64{minI, minI / 4, minI / 16}, 0),
		ints([]int64{-1, minI}, maxI),
		ints([]int64{maxI, maxI / 3}, 0),
		ints([]int64{5, 5, 5}, -100),
		ints([]int64{8, 4}, 8),
		ints([]int64{8, 4}, 9),
		ints([]int64{-8, 4}, -8),
		ints([]int64{2, 4, 8}, 2),
		ints([]int64{2, 4, 8}, 1),
		ints([]int64{-2, 4}, -2),
		ints([]int64{7}, 7),
		ints([]int64{minI, 0}, maxI),
		ints([]int64{minI, 0, maxI}, maxI),
		floats([]float64{100, 150, 225}, 10000),
		floats([]float64{1, 1.5, 2.25}, 10),
		floats([]float64{5, 2.5}, -10),
		floats([]float64{1e18, 1e19}, 1e25),
		floats([]float64{-1, -2}, 100),
		floats([]float64{-1, -0.5}, -100),
		floats([]float64{0.1, 0.2, 0.4}, math.Inf(1)),
		floats([]float64{1, math.NaN()}, 100),
		floats([]float64{1, math.NaN(), 3}, 100),
		floats([]float64{1e18, 3e18, 9e18}, 1e19),
		floats([]float64{-1e18, -3e18, -9e18}, -1e19),
		ints([]int64{1, -1, 1}, -5),
		ints([]int64{1, -1, 1}, 0),
		ints([]int64{-1, 1, -1}, 5),
		ints([]int64{-1, 1, -1}, 0),
		ints([]int64{5, 5}, 8),
		ints([]int64{5, 5, 5}, 8),
		ints([]int64{minI, minI}, minI+3),
		ints([]int64{minI, -1, 0}, maxI),
		ints([]int64{100, 75, 56}, 1),
		ints([]int64{100, 150, 225}, 10000),
		ints([]int64{2, 3, 5}, 100),
		ints([]int64{-100, -150, -225}, -10000),
		rtmProgCase{init: []int64{1, 1, 2}, finit: []float64{1, 1.5, 2.25}, end: 10, fend: 10},
		rtmProgCase{init: []int64{1, 1, 2}, finit: []float64{1, 1.4, 1.98}, end: 10, fend: 10},
		rtmProgCase{init: []int64{1, -1, 1}, finit: []float64{1.7, -1.2, 1.553}, end: -5, fend: -5},
		rtmProgCase{init: []int64{1, -1, 1}, finit: []float64{0.3, -0.3, 0.3}, end: -5, fend: -5},
		rtmProgCase{init: []int64{minI, minI + 100}, finit: []float64{-1, -2}, end: minI + 5, fend: 0, eachBug: true},
		rtmProgCase{init: []int64{maxI, maxI - 100}, finit: []float64{-1, -2}, end: maxI - 5, fend: 0, eachBug: true},
	)

	for _, p := range ps {
		consts := make([]ir.Expr, len(p.init))
		for i := range p.init {
			consts[i] = &ir.Const{I: p.init[i], F: p.finit[i]}
		}
		pr := &ir.ProgRange{Initial: consts, Final: &ir.Const{I: p.end, F: p.fend}}
		args := fmt.Sprintf("%d %s %d %s %s", len(p.init), rtmJoin(p.init, rtmFmtI), p.end, rtmJoin(p.finit, rtmHexF), rtmHexF(p.fend))
		f := rtmFrame()
		var pat ir.Progression
		if err := rtmEval(func() string { pat = pr.Pattern(f); return "" }); err != "" {
			l.add("prog "+args, err)
			l.add("prog_contains "+args+" 0", err)
			continue
		}
		// The values, as FOR EACH walks them (and as Each produces them).
		var vals []int64
		cur := ir.NewCursor([]ir.Range{pr})
		for v, ok := cur.Next(f); ok && len(vals) < 100000; v, ok = cur.Next(f) {
			vals = append(vals, v)
		}
		if !p.eachBug {
			var each []int64
			pat.Each(func(v int64) bool { each = append(each, v); return len(each) <= len(vals) })
			if fmt.Sprint(each) != fmt.Sprint(vals) {
				panic(fmt.Sprintf("Each and Cursor disagree on %v (%d and %d values)", p, len(each), len(vals)))
			}
		}
		l.add("prog "+args, strings.TrimSpace(fmt.Sprint(len(vals))+" "+rtmJoin(vals, rtmFmtI)))

		probes := []int64{p.init[0] - 1, p.init[0], p.init[0] + 1, p.end - 1, p.end, p.end + 1, r.Int64N(2001) - 1000, minI, maxI}
		for i := 0; i < len(vals); i += 1 + len(vals)/5 {
			probes = append(probes, vals[i], vals[i]+1)
		}
		for _, v := range probes {
			want := pat.Contains(v)
			if p.eachBug || pat.Kind == ir.ProgArith && rtmDiffOverflows(v, pat.Start) {
				// Go's Contains computes v-Start, which overflows here; the
				// C run-time answers exactly.
				want = rtmArithContains(pat, v)
			}
			l.add(fmt.Sprintf("prog_contains %s %d", args, v), map[bool]string{false: "0", true: "1"}[want])
		}
	}

	// Progressions the C run-time refuses to store; Go walks them lazily.
	tooLong := "FAIL " + rtmPos + ": a progression with more than 100000000 values is too long for the C run-time, which stores them"
	l.add("prog 1 0 200000000 0000000000000000 41a7d78400000000", tooLong)
	l.add(fmt.Sprintf("prog 1 %d %d %s %s", minI, maxI, rtmHexF(minI), rtmHexF(maxI)), tooLong)
	l.add(fmt.Sprintf("prog 2 %d %d %d %s %s %s", minI, minI+3, maxI, rtmHexF(minI), rtmHexF(minI+3), rtmHexF(maxI)), tooLong)
	l.add("prog 1 0 100000000 0000000000000000 4197d78400000000", tooLong)
	l.add(fmt.Sprintf("prog_contains 2 %d %d %d %s %s %s %d", minI, minI+3, maxI, rtmHexF(minI), rtmHexF(minI+3), rtmHexF(maxI), maxI), "1")
	l.add(fmt.Sprintf("prog_contains 2 %d %d %d %s %s %s %d", minI, minI+3, maxI, rtmHexF(minI), rtmHexF(minI+3), rtmHexF(maxI), maxI-1), "0")
}

// rtmDiffOverflows reports whether v-start overflows int64.
func rtmDiffOverflows(v, start int64) bool {
	d := new(big.Int).Sub(big.NewInt(v), big.NewInt(start))
	return !d.IsInt64()
}

// rtmArithContains is membership in an arithmetic progression, computed
// exactly.
func rtmArithContains(p ir.Progression, v int64) bool {
	lo, hi := p.Start, p.End
	if p.Step < 0 {
		lo, hi = hi, lo
	}
	if v < lo || v > hi {
		return false
	}
	d := new(big.Int).Sub(big.NewInt(v), big.NewInt(p.Start))
	return d.Rem(d, big.NewInt(p.Step)).Sign() == 0
}
