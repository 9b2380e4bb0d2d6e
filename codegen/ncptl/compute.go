package ncptl

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// Compute is priced by the machine model (netmodel.Machine.Work and
// ComputeFor): a task's rates are its node's shared by the TasksPerNode
// tasks of a node, and its node follows from its processor and the
// mapping. When the node groups differ, the exported duration chooses the
// task's group with conditions on its node number, computed from
// num_tasks at run time: the export needs no task count.

// work lowers COMPUTES n FLOPS [AND q OF MEMORY TRAFFIC] to COMPUTES FOR
// the roofline time: the slower of the flops and the traffic, in
// microseconds rounded to the nearest one. It stays in integer context, so
// that the program's expressions for the flops and the traffic keep their
// meaning (REAL would evaluate them in floating point, where / does not
// truncate and bitwise operators are refused).
func (x *exporter) work(s *lang.Work) lang.Stmt {
	c := x.c()
	m := &x.plat.Machine
	share := new(big.Rat).SetInt64(int64(m.TasksPerNode) * 1000000)
	perFlop := x.perGroup(func(g *netmodel.NodeGroup) *big.Rat { return new(big.Rat).Quo(share, exact(g.FlopRate)) })
	perByte := x.perGroup(func(g *netmodel.NodeGroup) *big.Rat { return new(big.Rat).Quo(share, exact(g.MemBandwidth)) })
	tasks := x.tasks(s.Tasks)
	var node lang.Expr
	if !perFlop.uniform() || s.Memory != nil && !perByte.uniform() {
		var task lang.Expr
		tasks, task = x.taskOf(tasks)
		node = x.nodeOf(task)
	}
	d := x.scale(c.expr(s.Flops), perFlop, node)
	if s.Memory != nil {
		d = call(lang.FuncMax, d, x.scale(x.bytes(c.quantity(s.Memory)), perByte, node))
	}
	x.note(lowWork, s)
	return &lang.Delay{Span: s.Span, Tasks: tasks, Amount: d, Unit: lang.Microseconds}
}

// delay exports COMPUTES FOR, divided by the speed of the task's node when
// a node group's speed is not 1, and SLEEPS FOR as it is.
func (x *exporter) delay(s *lang.Delay) lang.Stmt {
	n := &lang.Delay{Span: s.Span, Tasks: x.tasks(s.Tasks), Sleep: s.Sleep, Amount: x.c().expr(s.Amount), Unit: s.Unit}
	if s.Sleep || !x.scaledSpeed() {
		return n
	}
	unit := new(big.Rat).SetInt64(s.Unit.Micros())
	perUnit := x.perGroup(func(g *netmodel.NodeGroup) *big.Rat { return new(big.Rat).Quo(unit, exact(g.Speed)) })
	var node lang.Expr
	if !perUnit.uniform() {
		var task lang.Expr
		n.Tasks, task = x.taskOf(n.Tasks)
		node = x.nodeOf(task)
	}
	n.Amount, n.Unit = x.scale(n.Amount, perUnit, node), lang.Microseconds
	x.note(lowSpeed, s)
	return n
}

// scaledSpeed reports whether some node group's speed is not 1.
func (x *exporter) scaledSpeed() bool {
	for _, g := range x.plat.Machine.Nodes {
		if g.Speed != 1 {
			return true
		}
	}
	return false
}

// exact is a platform quantity as an exact fraction: the shortest decimal
// that reads back as it (2e12, not the binary fraction nearest 0.1).
func exact(v float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	if !ok || r.Sign() <= 0 {
		// Machine.Validate has made every rate positive and finite.
		panic("ncptl: bad platform rate " + strconv.FormatFloat(v, 'g', -1, 64))
	}
	return r
}

// perGroup is a factor per node group written as p / q[group] with whole
// numbers: the product of an expression and the factor of a task's group
// is then e * p / q, exact in coNCePTuaL's arithmetic.
type perGroup struct {
	p int64
	q []int64
}

func (pg perGroup) uniform() bool {
	for _, q := range pg.q {
		if q != pg.q[0] {
			return false
		}
	}
	return true
}

// perGroup computes f for every node group and puts the factors over a
// common numerator, in lowest terms.
func (x *exporter) perGroup(f func(*netmodel.NodeGroup) *big.Rat) perGroup {
	nodes := x.plat.Machine.Nodes
	fs := make([]*big.Rat, len(nodes))
	p := big.NewInt(1)
	for i := range nodes {
		fs[i] = f(&nodes[i])
		num := fs[i].Num()
		p.Div(new(big.Int).Mul(p, num), new(big.Int).GCD(nil, nil, p, num))
	}
	qs := make([]*big.Int, len(nodes))
	g := new(big.Int).Set(p)
	for i, r := range fs {
		qs[i] = new(big.Int).Mul(r.Denom(), new(big.Int).Div(p, r.Num()))
		g.GCD(nil, nil, g, qs[i])
	}
	out := perGroup{q: make([]int64, len(nodes))}
	pp := new(big.Int).Div(p, g)
	out.p = x.whole(pp)
	for i, q := range qs {
		out.q[i] = x.whole(q.Div(q, g))
	}
	return out
}

// whole returns v as an int64, recording a platform error if it is too
// large to write (a rate no platform has).
func (x *exporter) whole(v *big.Int) int64 {
	if !v.IsInt64() {
		if x.rateErr == nil {
			x.rateErr = fmt.Errorf("ncptl: platform %s: a rate or speed has no exact form in 64-bit integers (%v)", x.plat.Name, v)
		}
		return 1
	}
	return v.Int64()
}

// scale returns e * p / q for the group of node (nil if pg is uniform),
// rounded to the nearest whole number in integer arithmetic:
// (e * p + q / 2) / q.
func (x *exporter) scale(e lang.Expr, pg perGroup, node lang.Expr) lang.Expr {
	if pg.p != 1 {
		e = binary(lang.Mul, e, num(pg.p))
	}
	if pg.uniform() {
		if q := pg.q[0]; q != 1 {
			return binary(lang.Div, binary(lang.Add, e, num(q/2)), num(q))
		}
		return e
	}
	halves := make([]int64, len(pg.q))
	for i, q := range pg.q {
		halves[i] = q / 2
	}
	return binary(lang.Div, binary(lang.Add, e, x.byGroup(halves, node)), x.byGroup(pg.q, node))
}

// byGroup chooses vs[i] for a node of group i: groups take node numbers in
// order, and the last takes every node after those before it. Neighbouring
// groups with the same value share one test.
func (x *exporter) byGroup(vs []int64, node lang.Expr) lang.Expr {
	groups := x.plat.Machine.Nodes
	bounds := make([]int64, len(groups)) // the first node after group i
	var b int64
	for i, g := range groups {
		b += int64(g.Count)
		bounds[i] = b
	}
	last := len(vs) - 1
	var out lang.Expr = num(vs[last])
	for i := last - 1; i >= 0; i-- {
		if vs[i] != vs[i+1] {
			out = &lang.CondExpr{Then: num(vs[i]), Cond: compare(lang.Lt, copier{}.expr(node), num(bounds[i])), Else: out}
		}
	}
	return out
}

// taskOf returns a task description equivalent to d that binds a variable,
// and the expression of the task's number.
func (x *exporter) taskOf(d lang.TaskDesc) (lang.TaskDesc, lang.Expr) {
	switch d := d.(type) {
	case *lang.TaskExpr:
		return d, d.X
	case *lang.TasksInRanges:
		v := x.fresh("task_number")
		return &lang.TasksSuchThat{Span: d.Span, Var: ident(v), Cond: &lang.InRanges{X: ident(v), Ranges: d.Ranges}}, ident(v)
	case *lang.AllTasks:
		if d.Var == nil {
			d = &lang.AllTasks{Span: d.Span, Var: ident(x.fresh("task_number"))}
		}
		return d, ident(d.Var.Name)
	}
	return d, ident(declaredVar(d))
}

// nodeOf returns the number of the node that task runs on:
// processor / tasks_per_node under the block mapping, processor MOD the
// number of nodes under the cyclic one.
func (x *exporter) nodeOf(task lang.Expr) lang.Expr {
	m := &x.plat.Machine
	proc := copier{}.expr(task)
	if x.assigns {
		proc = call(lang.FuncProcessorOf, proc)
	}
	tpn := int64(m.TasksPerNode)
	if m.Mapping == netmodel.Cyclic {
		if tpn == 1 {
			return proc // as many nodes as tasks
		}
		nodes := binary(lang.Add, binary(lang.Div, binary(lang.Sub, ident(lang.VarNumTasks), num(1)), num(tpn)), num(1))
		return binary(lang.Mod, proc, nodes)
	}
	if tpn == 1 {
		return proc
	}
	return binary(lang.Div, proc, num(tpn))
}

// bytes returns the number of bytes in q, an amount of memory traffic:
// BITS round up to whole bytes, INTEGER and PAGE take the platform's
// sizes, as in ir.Size.Bytes.
func (x *exporter) bytes(q *lang.Quantity) lang.Expr {
	m := &x.plat.Machine
	var per int64
	switch q.Unit {
	case lang.Bits:
		return binary(lang.Div, binary(lang.Add, q.Amount, num(7)), num(8))
	case lang.Bytes:
		return q.Amount
	case lang.Halfwords:
		per = 2
	case lang.Words:
		per = 4
	case lang.Integers:
		per = m.IntSize
	case lang.Doublewords:
		per = 8
	case lang.Quadwords:
		per = 16
	case lang.Pages:
		per = m.PageSize
	case lang.Kilobytes:
		per = 1 << 10
	case lang.Megabytes:
		per = 1 << 20
	case lang.Gigabytes:
		per = 1 << 30
	}
	return binary(lang.Mul, q.Amount, num(per))
}

// rates describes the platform's rates for the header: flops and memory
// bandwidth for work, speeds for COMPUTES FOR.
func (x *exporter) rates(work bool) string {
	m := &x.plat.Machine
	var parts []string
	for i, g := range m.Nodes {
		nodes := fmt.Sprintf("%d nodes", g.Count)
		switch {
		case len(m.Nodes) == 1:
			nodes = "every node"
		case i == len(m.Nodes)-1:
			nodes = "the other nodes"
		}
		if work {
			parts = append(parts, fmt.Sprintf("node group %s, %s: %s and %s per node", g.Name, nodes, si(g.FlopRate, "flop/s"), si(g.MemBandwidth, "B/s")))
		} else {
			parts = append(parts, fmt.Sprintf("node group %s, %s: speed %g", g.Name, nodes, g.Speed))
		}
	}
	out := strings.Join(parts, "; ")
	if work {
		tasks := "tasks"
		if m.TasksPerNode == 1 {
			tasks = "task"
		}
		out += fmt.Sprintf("; %d %s per node, %s mapping", m.TasksPerNode, tasks, m.Mapping)
	}
	return out
}

// si writes a rate with a decimal prefix: 2 Tflop/s, 200 GB/s.
func si(v float64, unit string) string {
	for _, p := range []struct {
		name  string
		scale float64
	}{{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if v >= p.scale {
			return fmt.Sprintf("%g %s%s", v/p.scale, p.name, unit)
		}
	}
	return fmt.Sprintf("%g %s", v, unit)
}
