package conformance_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
)

// compare requires the sides that ran to agree, and returns the verdict.
func compare(t *testing.T, p *program, prog *ir.Program, res [numSides]*outcome) string {
	// sides lists the sides an aspect of the given scope is compared
	// between.
	sides := func(s scope) []int {
		switch {
		case s == nowhere:
			return nil
		case s == parleyOnly:
			return []int{sideInterp, sideC}
		}
		return []int{sideReal, sideInterp, sideC}
	}
	verdict := "agree"
	if left := p.leftOut(); left != "" {
		verdict += "; " + left
	}
	if p.why != "" {
		verdict += " (" + p.why + ")"
	}

	d := newDiff("The runs end differently", sides(compared))
	for _, s := range d.sides {
		d.cell("outcome", s, res[s].status)
	}
	if d.report(t) {
		for _, s := range d.sides {
			if res[s].detail != "" {
				t.Logf("%s:\n%s", sideNames[s], res[s].detail)
			}
		}
		return "outcomes differ"
	}
	switch res[sideInterp].status {
	case "deadlocked":
		return "all deadlock, as they should"
	case "exited normally":
		d = newDiff("Per-rank point-to-point counts differ", sides(p.counts))
		for rank := range p.tasks {
			for _, s := range d.sides {
				d.cell(fmt.Sprintf("rank %d", rank), s, res[s].counts[rank].String())
			}
		}
		d.report(t)
	}

	d = newDiff("OUTPUTS lines differ (how often each side printed each line)", sides(p.outputs))
	drawn := newDiff("OUTPUTS lines of random draws differ between Parley's sides", sides(parleyOnly))
	d.missing, drawn.missing = "0", "0"
	for _, s := range d.sides {
		for _, line := range res[s].outputs {
			if p.drawn != nil && p.drawn.MatchString(line) {
				if s != sideReal {
					drawn.count(line, s)
				}
				continue
			}
			d.count(line, s)
		}
	}
	d.report(t)
	drawn.report(t)

	compareLogs(t, p, prog, res, sides(compared), sides(p.logs))
	if t.Failed() {
		return "differs"
	}
	return verdict
}

// leftOut says which aspects are not compared between all three sides.
func (k known) leftOut() string {
	var only, none []string
	for _, a := range []struct {
		name string
		s    scope
	}{{"counts", k.counts}, {"OUTPUTS", k.outputs}, {"logs", k.logs}} {
		switch a.s {
		case parleyOnly:
			only = append(only, a.name)
		case nowhere:
			none = append(none, a.name)
		}
	}
	if k.drawn != nil {
		only = append(only, "OUTPUTS of random draws")
	}
	var parts []string
	if len(only) > 0 {
		parts = append(parts, strings.Join(only, ", ")+" between Parley's sides only")
	}
	if len(none) > 0 {
		parts = append(parts, strings.Join(none, ", ")+" not compared")
	}
	return strings.Join(parts, "; ")
}

// compareLogs compares which ranks write logs (between the sides in
// all); and (between the sides in values) each log's tables, their columns
// and row counts, and the values of the columns that do not depend on time,
// leaving coNCePTuaL out of the columns that depend on random draws.
func compareLogs(t *testing.T, p *program, prog *ir.Program, res [numSides]*outcome, all, values []int) {
	d := newDiff("Log files differ", all)
	for rank := range p.tasks {
		for _, s := range all {
			what := "no log"
			if res[s].logs[rank] != nil {
				what = "a log"
			}
			d.cell(fmt.Sprintf("rank %d", rank), s, what)
		}
	}
	if d.report(t) {
		return
	}
	deps := columnDeps(prog)
	d = newDiff("LOG tables differ in shape", values)
	det := newDiff("LOG values differ", values)
	var parley []int
	for _, s := range values {
		if s != sideReal {
			parley = append(parley, s)
		}
	}
	rnd := newDiff("LOG values that depend on random draws differ between Parley's sides", parley)
	for rank := range p.tasks {
		for _, s := range values {
			f := res[s].logs[rank]
			if f == nil {
				continue
			}
			d.cell(fmt.Sprintf("rank %d", rank), s, fmt.Sprintf("%d tables", len(f.Tables)))
			for ti, tab := range f.Tables {
				for ci, c := range tab.Columns {
					key := fmt.Sprintf("rank %d table %d column %d", rank, ti+1, ci+1)
					dep := deps[c.Heading]
					label := c.Label
					if c.Hist {
						label = "(histogram)"
					}
					shape := fmt.Sprintf("%q %s", c.Heading, label)
					// A histogram has a row per distinct value.
					if dep != timing || !c.Hist {
						shape += fmt.Sprintf(": %d rows", len(c.Rows))
					}
					d.cell(key, s, shape)
					vd := det
					switch dep {
					case timing:
						continue
					case random:
						vd = rnd
					}
					for ri, v := range c.Rows {
						vd.cell(fmt.Sprintf("%s %q row %d", key, c.Heading, ri+1), s, v)
					}
				}
			}
		}
	}
	if !d.report(t) {
		det.report(t)
		rnd.report(t)
	}
}

// dep is what a value depends on besides the program and its options.
type dep int

const (
	fixed  dep = iota
	random     // random draws: Parley's two sides agree, coNCePTuaL draws others
	timing     // the clock, or counters in a program whose timed loops run as often as the machine allows
)

func (d dep) String() string { return [...]string{"nothing", "random draws", "the clock"}[d] }

// columnDeps finds, for each LOG heading of prog, what its values depend
// on; headings not in the map hold fixed values. The value of a variable
// is followed through the LET and FOR EACH that bind it.
func columnDeps(prog *ir.Program) map[string]dep {
	c := &colDeps{slots: map[int]dep{}, heads: map[string]dep{}}
	for _, top := range prog.Body {
		for _, s := range top.Stmts {
			walk(s, func(s ir.Stmt) {
				if _, ok := s.(*ir.Timed); ok {
					c.timed = true
				}
			})
		}
	}
	for _, top := range prog.Body {
		for _, s := range top.Stmts {
			walk(s, c.stmt)
		}
	}
	return c.heads
}

type colDeps struct {
	timed bool
	slots map[int]dep
	heads map[string]dep
}

// walk calls f for s and every statement inside it, outer ones first, so
// that a binding is seen before its uses.
func walk(s ir.Stmt, f func(ir.Stmt)) {
	f(s)
	var inner []ir.Stmt
	switch s := s.(type) {
	case *ir.Block:
		inner = s.Stmts
	case *ir.Repeat:
		inner = []ir.Stmt{s.Body}
	case *ir.Timed:
		inner = []ir.Stmt{s.Body}
	case *ir.ForEach:
		inner = []ir.Stmt{s.Body}
	case *ir.Let:
		inner = []ir.Stmt{s.Body}
	case *ir.If:
		inner = []ir.Stmt{s.Then, s.Else}
	}
	for _, in := range inner {
		if in != nil {
			walk(in, f)
		}
	}
}

func (c *colDeps) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.ForEach:
		var nodes []any
		for _, r := range s.Ranges {
			nodes = append(nodes, r)
		}
		c.slots[s.Slot] = c.of(nodes...)
	case *ir.Let:
		for _, b := range s.Bindings {
			if b.Slot < 0 {
				continue
			}
			d := c.of(b.Value)
			if b.Random != nil {
				d = max(d, random)
			}
			c.slots[b.Slot] = d
		}
	case *ir.Log:
		for _, col := range s.Columns {
			c.heads[col.Heading] = max(c.heads[col.Heading], c.of(col.X, col.Pct))
		}
	}
}

// of says what the given expressions depend on.
func (c *colDeps) of(nodes ...any) dep {
	d := fixed
	ir.Inspect(func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.CounterRef:
			if e.C == ir.ElapsedUsecs || c.timed {
				d = max(d, timing)
			}
		case *ir.Call:
			if e.Func.IsRandom() {
				d = max(d, random)
			}
		case *ir.Var:
			d = max(d, c.slots[e.Slot])
		}
	}, nodes...)
	return d
}

// diff collects what each side gave per key, and reports side by side the
// keys the compared sides disagree on.
type diff struct {
	title   string
	sides   []int // the sides compared
	missing string
	keys    []string
	cells   map[string]*[numSides]*string
}

func newDiff(title string, sides []int) *diff {
	return &diff{title: title, sides: sides, missing: "(none)", cells: map[string]*[numSides]*string{}}
}

func (d *diff) row(key string) *[numSides]*string {
	r := d.cells[key]
	if r == nil {
		r = &[numSides]*string{}
		d.cells[key] = r
		d.keys = append(d.keys, key)
	}
	return r
}

// cell records side s's value for key.
func (d *diff) cell(key string, s int, v string) { d.row(key)[s] = &v }

// count adds one to side s's count for key.
func (d *diff) count(key string, s int) {
	r := d.row(key)
	n := 0
	if r[s] != nil {
		n, _ = strconv.Atoi(*r[s])
	}
	v := strconv.Itoa(n + 1)
	r[s] = &v
}

// maxRows bounds the rows a report shows.
const maxRows = 40

// report fails t with a side-by-side table of the keys where the compared
// sides disagree, and says whether there were any.
func (d *diff) report(t *testing.T) bool {
	t.Helper()
	if len(d.sides) < 2 {
		return false
	}
	rows := [][]string{append([]string{""}, sidesHeading(d.sides)...)}
	bad := 0
	for _, k := range d.keys {
		r := d.cells[k]
		row := []string{k}
		for _, s := range d.sides {
			v := d.missing
			if r[s] != nil {
				v = *r[s]
			}
			row = append(row, v)
		}
		if allEqual(row[1:]) {
			continue
		}
		bad++
		if bad <= maxRows {
			rows = append(rows, row)
		}
	}
	if bad == 0 {
		return false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n%s", d.title, table(rows))
	if bad > maxRows {
		fmt.Fprintf(&b, "... and %d more\n", bad-maxRows)
	}
	t.Error(b.String())
	return true
}

func sidesHeading(sides []int) []string {
	var h []string
	for _, s := range sides {
		h = append(h, sideNames[s])
	}
	return h
}

func allEqual(vs []string) bool {
	for _, v := range vs[1:] {
		if v != vs[0] {
			return false
		}
	}
	return true
}

// maxCell bounds the width of a side's cell in a report.
const maxCell = 60

// table lays rows out in aligned columns separated by " | ".
func table(rows [][]string) string {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			n := len([]rune(c))
			if i > 0 {
				n = min(n, maxCell)
			}
			width[i] = max(width[i], n)
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if rs := []rune(c); i > 0 && len(rs) > maxCell {
				c = string(rs[:maxCell-1]) + "…"
			}
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprintf(&b, "%-*s", width[i], c)
		}
		b.WriteString("\n")
	}
	return b.String()
}
