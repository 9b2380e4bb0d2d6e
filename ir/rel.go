package ir

import "github.com/parley-hpc/parley/lang"

// Rel is a resolved relational expression. Holds evaluates it in integer
// context; HoldsFloat in floating-point context, which is where it stands
// inside a conditional expression in OUTPUTS or LOGS.
type Rel interface {
	Holds(f *Frame) bool
	HoldsFloat(f *Frame) bool
	Span() lang.Span
}

// Compare is a binary relation.
type Compare struct {
	at
	Op   lang.CmpOp
	X, Y Expr
}

// Parity is IS EVEN or IS ODD.
type Parity struct {
	at
	X   Expr
	Odd bool
}

// InInterval is IS [NOT] IN [Lo, Hi].
type InInterval struct {
	at
	X, Lo, Hi Expr
	Not       bool
}

// InRanges is IS [NOT] IN {range}, ....
type InRanges struct {
	at
	X      Expr
	Ranges []Range
	Not    bool
}

// Logic is /\ or \/, short-circuiting.
type Logic struct {
	at
	Op   lang.LogicOp
	X, Y Rel
}

// Holds evaluates the relation in integer context.
func (c *Compare) Holds(f *Frame) bool {
	x, y := c.X.Int(f), c.Y.Int(f)
	if c.Op == lang.Divides {
		return imod(c.sp, y, x) == 0
	}
	return compare(c.Op, x, y)
}

// HoldsFloat evaluates the relation in floating-point context; DIVIDES
// works on the truncated values.
func (c *Compare) HoldsFloat(f *Frame) bool {
	x, y := c.X.Float(f), c.Y.Float(f)
	if c.Op == lang.Divides {
		finite(c.sp, "DIVIDES", y, x)
		return imod(c.sp, int64(y), int64(x)) == 0
	}
	return compare(c.Op, x, y)
}

func compare[T int64 | float64](op lang.CmpOp, x, y T) bool {
	switch op {
	case lang.Eq:
		return x == y
	case lang.Lt:
		return x < y
	case lang.Gt:
		return x > y
	case lang.Le:
		return x <= y
	case lang.Ge:
		return x >= y
	}
	return x != y
}

// Holds evaluates the relation.
func (p *Parity) Holds(f *Frame) bool { return (p.X.Int(f)&1 != 0) == p.Odd }

// HoldsFloat evaluates the relation on the truncated value.
func (p *Parity) HoldsFloat(f *Frame) bool {
	x := p.X.Float(f)
	finite(p.sp, "IS EVEN", x)
	return (int64(x)&1 != 0) == p.Odd
}

// Holds evaluates the relation.
func (r *InInterval) Holds(f *Frame) bool {
	x := r.X.Int(f)
	return (r.Lo.Int(f) <= x && x <= r.Hi.Int(f)) != r.Not
}

// HoldsFloat evaluates the relation.
func (r *InInterval) HoldsFloat(f *Frame) bool {
	x := r.X.Float(f)
	return (r.Lo.Float(f) <= x && x <= r.Hi.Float(f)) != r.Not
}

// Holds evaluates the relation.
func (r *InRanges) Holds(f *Frame) bool { return r.in(f, r.X.Int(f)) }

// HoldsFloat evaluates the relation on the truncated value; ranges hold
// integers.
func (r *InRanges) HoldsFloat(f *Frame) bool {
	x := r.X.Float(f)
	finite(r.sp, "IS IN", x)
	return r.in(f, int64(x))
}

func (r *InRanges) in(f *Frame, x int64) bool {
	for _, rg := range r.Ranges {
		if rg.Contains(f, x) {
			return !r.Not
		}
	}
	return r.Not
}

// Holds evaluates the relation, short-circuiting.
func (l *Logic) Holds(f *Frame) bool {
	if l.Op == lang.And {
		return l.X.Holds(f) && l.Y.Holds(f)
	}
	return l.X.Holds(f) || l.Y.Holds(f)
}

// HoldsFloat evaluates the relation, short-circuiting.
func (l *Logic) HoldsFloat(f *Frame) bool {
	if l.Op == lang.And {
		return l.X.HoldsFloat(f) && l.Y.HoldsFloat(f)
	}
	return l.X.HoldsFloat(f) || l.Y.HoldsFloat(f)
}
