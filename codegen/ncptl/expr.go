package ncptl

import (
	"strings"

	"github.com/parley-hpc/parley/lang"
)

// fixCall rewrites a built-in call that coNCePTuaL computes differently
// from Parley: ROOT with a negative degree, which is 1 / ROOT(n, x) in
// Parley (and in coNCePTuaL's manual) but another integer in coNCePTuaL's
// library. Its arguments are copies already.
func (x *exporter) fixCall(c *lang.Call) lang.Expr {
	if strings.HasPrefix(string(c.Func), "RANDOM_") {
		x.random = true
	}
	if c.Func != lang.FuncRoot || len(c.Args) != 2 {
		return c
	}
	deg, arg := c.Args[0], c.Args[1]
	if v, ok := constant(deg); ok {
		if v >= 0 {
			return c
		}
		x.note(lowRoot, c)
		return binary(lang.Div, num(1), &lang.Call{Span: c.Span, Func: lang.FuncRoot, Args: []lang.Expr{num(-v), arg}})
	}
	// A degree known only at run time: 1 / ROOT(-d, x) IF d < 0 OTHERWISE ROOT(d, x).
	x.note(lowRoot, c)
	cp := copier{}
	neg := &lang.Call{Span: c.Span, Func: lang.FuncRoot, Args: []lang.Expr{&lang.Unary{Op: lang.Neg, X: cp.expr(deg)}, cp.expr(arg)}}
	return &lang.CondExpr{Span: c.Span, Then: binary(lang.Div, num(1), neg), Cond: compare(lang.Lt, cp.expr(deg), num(0)), Else: c}
}

// constant returns the value of a literal, signed or not.
func constant(e lang.Expr) (int64, bool) {
	switch e := e.(type) {
	case *lang.IntLit:
		return e.Value, true
	case *lang.Unary:
		if v, ok := constant(e.X); ok {
			switch e.Op {
			case lang.Neg:
				return -v, true
			case lang.Plus:
				return v, true
			}
		}
	}
	return 0, false
}

// fixMesh gives MESH_NEIGHBOR an offset per dimension: Parley reads the
// missing ones as 0, coNCePTuaL wants them all.
func (x *exporter) fixMesh(m *lang.MeshCall) {
	if m.Func != lang.FuncMeshNeighbor || len(m.Offsets) >= len(m.Dims) {
		return
	}
	for len(m.Offsets) < len(m.Dims) {
		m.Offsets = append(m.Offsets, num(0))
	}
	x.note(lowMesh, m)
}
