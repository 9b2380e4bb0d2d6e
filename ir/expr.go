package ir

import (
	"math"

	"github.com/parley-hpc/parley/lang"
)

// Expr is a resolved arithmetic expression. Int evaluates it in integer
// context and Float in floating-point context; both panic with
// *RuntimeError on errors (see Catch, EvalInt and EvalFloat).
type Expr interface {
	Int(f *Frame) int64
	Float(f *Frame) float64
	Span() lang.Span
}

// at records where an ir node came from.
type at struct{ sp lang.Span }

// Span returns the source span of the node.
func (a at) Span() lang.Span { return a.sp }

// Const is a constant. I and F are its values in integer and floating-point
// context, which differ when it was folded from an expression such as 24/5
// (4 and 4.8). Orig is that expression, or nil for a literal.
type Const struct {
	at
	I    int64
	F    float64
	Orig lang.Expr
}

// Param is a reference to a command-line parameter.
type Param struct {
	at
	Index int
	Name  string
}

// NumTasks is the predeclared num_tasks.
type NumTasks struct{ at }

// CounterRef is a predeclared counter such as elapsed_usecs.
type CounterRef struct {
	at
	C Counter
}

// Var is a variable held in a task's frame.
type Var struct {
	at
	Slot int
	Name string
}

// MyTask is MY TASK.
type MyTask struct{ at }

// Unary is a prefix operation.
type Unary struct {
	at
	Op lang.UnaryOp
	X  Expr
}

// Binary is an infix arithmetic operation.
type Binary struct {
	at
	Op   lang.BinaryOp
	X, Y Expr
}

// Cond is `Then IF Cond OTHERWISE Else`.
type Cond struct {
	at
	Then Expr
	Cond Rel
	Else Expr
}

// Call is a built-in function (including REAL). Missing optional arguments
// have been filled in with their defaults.
type Call struct {
	at
	Func lang.Func
	Args []Expr
}

// Mesh is MESH_NEIGHBOR, MESH_COORDINATE or MESH_DISTANCE on a mesh of up to
// three dimensions; missing dimensions are 1 and missing offsets 0.
type Mesh struct {
	at
	Func    lang.Func
	Dims    [3]Expr
	Torus   [3]bool
	Task    Expr
	Offsets [3]Expr // MESH_NEIGHBOR
	Arg     Expr    // MESH_COORDINATE's coordinate or MESH_DISTANCE's second task
}

// FileData is FILE_DATA or STATIC_FILE_DATA.
type FileData struct {
	at
	Static           bool
	File             string
	Column, Row      Expr
	ColSeps, RowSeps string
}

// Int returns the integer value.
func (c *Const) Int(*Frame) int64 { return c.I }

// Float returns the floating-point value.
func (c *Const) Float(*Frame) float64 { return c.F }

// Int returns the parameter's value.
func (p *Param) Int(f *Frame) int64 { return f.G.Params[p.Index] }

// Float returns the parameter's value.
func (p *Param) Float(f *Frame) float64 { return float64(f.G.Params[p.Index]) }

// Int returns the number of tasks.
func (*NumTasks) Int(f *Frame) int64 { return f.G.NumTasks }

// Float returns the number of tasks.
func (*NumTasks) Float(f *Frame) float64 { return float64(f.G.NumTasks) }

// Float returns the counter's value.
func (c *CounterRef) Float(f *Frame) float64 {
	if f.Counters == nil {
		return 0
	}
	return f.Counters.Counter(c.C)
}

// Int returns the counter's value, truncated.
func (c *CounterRef) Int(f *Frame) int64 { return int64(c.Float(f)) }

// Int returns the variable's value.
func (v *Var) Int(f *Frame) int64 { return f.Slots[v.Slot] }

// Float returns the variable's value.
func (v *Var) Float(f *Frame) float64 { return float64(f.Slots[v.Slot]) }

// Int returns the task's number.
func (*MyTask) Int(f *Frame) int64 { return f.Task }

// Float returns the task's number.
func (*MyTask) Float(f *Frame) float64 { return float64(f.Task) }

// Int evaluates the operation in integer context.
func (u *Unary) Int(f *Frame) int64 {
	x := u.X.Int(f)
	switch u.Op {
	case lang.Neg:
		return -x
	case lang.BitNot:
		return ^x
	}
	return x
}

// Float evaluates the operation in floating-point context.
func (u *Unary) Float(f *Frame) float64 {
	x := u.X.Float(f)
	switch u.Op {
	case lang.Neg:
		return -x
	case lang.BitNot:
		finite(u.sp, "NOT", x)
		return float64(^int64(x))
	}
	return x
}

// Int evaluates the operation in integer context.
func (b *Binary) Int(f *Frame) int64 {
	return intOp(b.sp, b.Op, b.X.Int(f), b.Y.Int(f))
}

// Float evaluates the operation in floating-point context.
func (b *Binary) Float(f *Frame) float64 {
	return floatOp(b.sp, b.Op, b.X.Float(f), b.Y.Float(f))
}

// intOp applies an operator with coNCePTuaL's integer semantics.
func intOp(sp lang.Span, op lang.BinaryOp, x, y int64) int64 {
	switch op {
	case lang.Add:
		return x + y
	case lang.Sub:
		return x - y
	case lang.Mul:
		return x * y
	case lang.Div:
		if y == 0 {
			fail(sp, "division by zero (%d/0)", x)
		}
		return x / y
	case lang.Mod:
		return imod(sp, x, y)
	case lang.BitOr:
		return x | y
	case lang.Xor:
		return x ^ y
	case lang.BitAnd:
		return x & y
	case lang.Shl:
		return shiftLeft(x, y)
	case lang.Shr:
		if y == math.MinInt64 {
			return shiftLeft(x, math.MaxInt64)
		}
		return shiftLeft(x, -y)
	case lang.Pow:
		return ipow(sp, x, y)
	}
	fail(sp, "unknown operator %d", op)
	return 0
}

// floatOp applies an operator in floating-point context. As in coNCePTuaL,
// +, -, * and / follow IEEE 754: a division by zero gives an infinity (or
// NaN for 0/0), which OUTPUTS and LOGS print as C does (logfile.Number).
// MOD, shifts and bitwise operators work on the truncated integer values,
// and, like ** and the functions, refuse infinities and NaN.
func floatOp(sp lang.Span, op lang.BinaryOp, x, y float64) float64 {
	switch op {
	case lang.Add:
		return x + y
	case lang.Sub:
		return x - y
	case lang.Mul:
		return x * y
	case lang.Div:
		return x / y
	case lang.Pow:
		return fpow(sp, x, y)
	}
	finite(sp, intOpNames[op], x, y)
	return float64(intOp(sp, op, int64(x), int64(y)))
}

// intOpNames are the operators floatOp applies to integers.
var intOpNames = map[lang.BinaryOp]string{
	lang.Mod: "MOD", lang.Shl: "<<", lang.Shr: ">>", lang.BitAnd: "&", lang.BitOr: "|", lang.Xor: "XOR",
}

// finite fails unless every argument of an operator or function is a
// finite number, as coNCePTuaL's run-time library does (VALIDATE_FLOAT).
func finite(sp lang.Span, what string, args ...float64) {
	for _, x := range args {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			fail(sp, "%s of %v is undefined: it needs finite numbers (in floating point, a division by zero gives an infinity and 0/0 NaN)",
				what, x)
		}
	}
}

// imod is MOD: never negative, whatever the signs.
func imod(sp lang.Span, x, y int64) int64 {
	if y == 0 {
		fail(sp, "%d MOD 0 is undefined", x)
	}
	if y < 0 {
		y = -y
	}
	r := x % y
	if r < 0 {
		r += y
	}
	return r
}

// shiftLeft shifts x left by n bits, or right by -n bits for negative n.
func shiftLeft(x, n int64) int64 {
	switch {
	case n >= 64:
		return 0
	case n >= 0:
		return x << uint(n)
	case n <= -64:
		if x < 0 {
			return -1
		}
		return 0
	}
	return x >> uint(-n)
}

// ipow is x ** y in integer context, rounded toward zero.
func ipow(sp lang.Span, x, y int64) int64 {
	if x == 0 && y <= 0 {
		fail(sp, "0 ** %d is undefined", y)
	}
	if y < 0 {
		switch x {
		case 1:
			return 1
		case -1:
			if y&1 != 0 {
				return -1
			}
			return 1
		}
		return 0
	}
	result := int64(1)
	for y > 0 {
		if y&1 != 0 {
			result *= x
		}
		x *= x
		y >>= 1
	}
	return result
}

func fpow(sp lang.Span, x, y float64) float64 {
	finite(sp, "**", x, y)
	if x == 0 && y <= 0 {
		fail(sp, "(%g) ** (%g) is undefined", x, y)
	}
	if x < 0 && y != math.Trunc(y) {
		fail(sp, "(%g) ** (%g) is undefined", x, y)
	}
	return math.Pow(x, y)
}

// Int evaluates the conditional in integer context.
func (c *Cond) Int(f *Frame) int64 {
	if c.Cond.Holds(f) {
		return c.Then.Int(f)
	}
	return c.Else.Int(f)
}

// Float evaluates the conditional in floating-point context.
func (c *Cond) Float(f *Frame) float64 {
	if c.Cond.HoldsFloat(f) {
		return c.Then.Float(f)
	}
	return c.Else.Float(f)
}

// Int evaluates the call in integer context.
func (c *Call) Int(f *Frame) int64 { return callInt(c, f) }

// Float evaluates the call in floating-point context.
func (c *Call) Float(f *Frame) float64 { return callFloat(c, f) }

// Int evaluates the mesh function.
func (m *Mesh) Int(f *Frame) int64 { return m.eval(f, false) }

// Float evaluates the mesh function on its arguments' truncated
// floating-point values.
func (m *Mesh) Float(f *Frame) float64 { return float64(m.eval(f, true)) }

// eval evaluates the mesh function on its arguments' integer values, or on
// their truncated floating-point values if float is set.
func (m *Mesh) eval(f *Frame, float bool) int64 {
	var dims, offs [3]int64
	for i := range 3 {
		dims[i] = m.arg(f, m.Dims[i], float)
		if m.Offsets[i] != nil {
			offs[i] = m.arg(f, m.Offsets[i], float)
		}
	}
	task := m.arg(f, m.Task, float)
	switch m.Func {
	case lang.FuncMeshNeighbor:
		return MeshNeighbor(m.sp, dims, m.Torus, task, offs)
	case lang.FuncMeshCoordinate:
		return MeshCoordinate(m.sp, dims, task, m.arg(f, m.Arg, float))
	}
	return MeshDistance(m.sp, dims, m.Torus, task, m.arg(f, m.Arg, float))
}

// arg evaluates one argument as eval says. It is a method rather than a
// closure eval is handed: the halo's faces evaluate a mesh function once
// per task, and the closure's indirect calls showed in its profile.
func (m *Mesh) arg(f *Frame, e Expr, float bool) int64 {
	if !float {
		return e.Int(f)
	}
	x := e.Float(f)
	finite(m.sp, string(m.Func), x)
	return int64(x)
}

// Float reads the cell.
func (d *FileData) Float(f *Frame) float64 {
	col, row := int64(1), int64(1)
	if d.Column != nil {
		col = d.Column.Int(f)
	}
	if d.Row != nil {
		row = d.Row.Int(f)
	}
	v, err := f.G.files().Cell(d.File, col, row, d.ColSeps, d.RowSeps)
	if err != nil {
		fail(d.sp, "%v", err)
	}
	return v
}

// Int reads the cell, truncated.
func (d *FileData) Int(f *Frame) int64 { return int64(d.Float(f)) }
