package ir

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/lang"
)

// Range is a resolved range: a list, a progression or a comprehension.
// Values are produced lazily; nothing is materialized except the values of
// a comprehension when a Cursor walks one.
type Range interface {
	// Each calls fn with every value in order until fn returns false; it
	// reports whether it ran to the end.
	Each(f *Frame, fn func(v int64) bool) bool
	// Contains reports whether v is one of the range's values.
	Contains(f *Frame, v int64) bool
	Span() lang.Span
}

// ListRange is {a, b, c}: the values in order, duplicates kept.
type ListRange struct {
	at
	Items []Expr
}

// ProgRange is {a[, b[, c...]], ..., z}: an arithmetic or geometric
// progression found from the initial terms, stopping at or before z.
type ProgRange struct {
	at
	Initial []Expr
	Final   Expr
}

// CompRange is {e FOR EACH v IN r ... [WHERE rel]}.
type CompRange struct {
	at
	Expr  Expr
	Gens  []*Gen
	Where Rel
}

// Gen is one generator of a comprehension: its variable's slot and ranges.
type Gen struct {
	Slot   int
	Name   string
	Ranges []Range
}

// Each visits the items in order.
func (r *ListRange) Each(f *Frame, fn func(int64) bool) bool {
	for _, e := range r.Items {
		if !fn(e.Int(f)) {
			return false
		}
	}
	return true
}

// Contains scans the items.
func (r *ListRange) Contains(f *Frame, v int64) bool {
	for _, e := range r.Items {
		if e.Int(f) == v {
			return true
		}
	}
	return false
}

// Each visits the comprehension's values, outer generator first.
func (r *CompRange) Each(f *Frame, fn func(int64) bool) bool {
	return r.gen(f, 0, fn)
}

func (r *CompRange) gen(f *Frame, i int, fn func(int64) bool) bool {
	if i == len(r.Gens) {
		if r.Where != nil && !r.Where.Holds(f) {
			return true
		}
		return fn(r.Expr.Int(f))
	}
	g := r.Gens[i]
	for _, rg := range g.Ranges {
		ok := rg.Each(f, func(v int64) bool {
			f.Slots[g.Slot] = v
			return r.gen(f, i+1, fn)
		})
		if !ok {
			return false
		}
	}
	return true
}

// Contains searches the comprehension's values.
func (r *CompRange) Contains(f *Frame, v int64) bool {
	found := false
	r.Each(f, func(x int64) bool {
		found = x == v
		return !found
	})
	return found
}

// ProgKind is the pattern of a progression.
type ProgKind int

// Progression patterns.
const (
	ProgEmpty    ProgKind = iota // no values
	ProgArith                    // Start, Start+Step, ... up to End
	ProgGeoMul                   // Start, Start*Ratio, ... up to End (integers)
	ProgGeoDiv                   // Start, Start/Ratio, ... down to End (integers)
	ProgGeoFloat                 // FStart, FStart*FRatio, ... rounded, toward End
)

// Progression is the pattern found in a ProgRange's initial terms, with
// everything needed to produce its values.
type Progression struct {
	Kind   ProgKind
	Start  int64
	Step   int64 // ProgArith: the increment (never 0)
	Ratio  int64 // ProgGeoMul, ProgGeoDiv: the integer ratio (|Ratio| >= 2)
	End    int64 // ProgGeoFloat: FEnd rounded
	FStart float64
	FRatio float64
	FEnd   float64
	Up     bool // ProgGeoFloat: the values stop above End, else below it
}

// Pattern finds the progression as coNCePTuaL 1.5.1b's C backend does
// (codegen_c_generic.py), whose values users' existing results come from:
//   - one initial term counts by 1 (or -1) toward the final value;
//   - two terms, or more with a common difference, form an arithmetic
//     progression; a zero difference counts up by 1 ({2, 2, ..., 5} is 2,
//     3, 4, 5, where the manual's listing says 2);
//   - otherwise terms with a common exact integer ratio form a geometric
//     one, increasing ({2, 4, 8, ...}) or decreasing ({6561, 2187, 729,
//     ...});
//   - otherwise the terms are evaluated again in floating-point context,
//     the ratios between consecutive terms averaged, and if each term times
//     that ratio, rounded, is the next one in integer context, the values
//     are the first term times the ratio again and again, each rounded:
//     {100, 150, 225, ..., 10000} is 100, 150, 225, 338, 506, ..., 8650
//     (the manual's listing truncates: 337, ..., 8649). Rounding is
//     coNCePTuaL's: x + 0.5 truncated toward zero. The values stop when
//     one rounds to the previous one, so they never repeat;
//   - otherwise there is no pattern ({1, 3/2, 9/4, ..., 10}: 3/2 rounds
//     to 2, not to 1, its value in integer context), a run-time error in
//     coNCePTuaL too.
//
// A progression stops at or before its final value, never after, and is
// empty if the final value lies behind the start. Where coNCePTuaL would
// loop forever, alternating between two values ({1, -1, 1, ..., -5}), the
// progression is an error.
func (r *ProgRange) Pattern(f *Frame) Progression {
	init := make([]int64, len(r.Initial))
	for i, e := range r.Initial {
		init[i] = e.Int(f)
	}
	end := r.Final.Int(f)
	if len(init) == 1 {
		step := int64(1)
		if end < init[0] {
			step = -1
		}
		return arith(init[0], step, end)
	}
	d := init[1] - init[0]
	equal := true
	for i := 2; i < len(init); i++ {
		if init[i]-init[i-1] != d {
			equal = false
		}
	}
	if equal {
		if d == 0 {
			d = 1
		}
		return arith(init[0], d, end)
	}
	p, ok := geoInt(init, end)
	if !ok {
		fi := make([]float64, len(r.Initial))
		for i, e := range r.Initial {
			fi[i] = e.Float(f)
		}
		p, ok = geoFloat(init, fi, r.Final.Float(f))
	}
	if !ok {
		fail(r.sp, "no arithmetic or geometric pattern in {%s, ..., %d} (its initial terms in integer context): "+
			"no common difference, no common integer ratio, and their average ratio in floating point does not "+
			"round each term to the next; list the values instead", terms(init), end)
	}
	if p.Ratio == -1 || p.FRatio == -1 {
		n := 0
		p.Each(func(int64) bool { n++; return n < 3 })
		if n == 3 {
			fail(r.sp, "{%s, ..., %d} alternates between two values and never reaches %d (coNCePTuaL loops forever); "+
				"list the values instead", terms(init), end, end)
		}
	}
	return p
}

func terms(init []int64) string {
	s := make([]string, len(init))
	for i, v := range init {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

func arith(start, step, end int64) Progression {
	if (step > 0 && end < start) || (step < 0 && end > start) {
		return Progression{Kind: ProgEmpty}
	}
	return Progression{Kind: ProgArith, Start: start, Step: step, End: end}
}

// geoInt looks for a common exact integer ratio between the terms.
func geoInt(a []int64, end int64) (Progression, bool) {
	n := len(a)
	var r int64
	if a[0] < a[1] {
		if slices.Contains(a[:n-1], 0) {
			return Progression{}, false
		}
		r = a[1] / a[0]
		for i := 0; i+1 < n; i++ {
			if a[i]*r != a[i+1] {
				return Progression{}, false
			}
		}
		if a[0] > end {
			return Progression{Kind: ProgEmpty}, true
		}
		return Progression{Kind: ProgGeoMul, Start: a[0], Ratio: r, End: end}, true
	}
	if a[0] == a[1] || slices.Contains(a[1:], 0) {
		return Progression{}, false
	}
	r = a[0] / a[1]
	for i := 0; i+1 < n; i++ {
		if a[i+1]*r != a[i] {
			return Progression{}, false
		}
	}
	if a[0] < end {
		return Progression{Kind: ProgEmpty}, true
	}
	return Progression{Kind: ProgGeoDiv, Start: a[0], Ratio: r, End: end}, true
}

// geoFloat looks for a ratio, the average of the ratios between the
// terms in floating point (f), that rounds each term to the next in
// integer context (a).
func geoFloat(a []int64, f []float64, end float64) (Progression, bool) {
	n := len(a)
	if slices.Contains(a[:n-1], 0) {
		return Progression{}, false
	}
	sum := 0.0
	for i := 0; i+1 < n; i++ {
		sum += f[i+1] / f[i]
	}
	ratio := sum / float64(n-1)
	for i := 0; i+1 < n; i++ {
		if Round(f[i]*ratio) != a[i+1] {
			return Progression{}, false
		}
	}
	p := Progression{Kind: ProgGeoFloat, FStart: f[0], FRatio: ratio, FEnd: end, End: Round(end), Up: a[0] < a[1]}
	if first := Round(f[0]); p.Up && first > p.End || !p.Up && first < p.End {
		p.Kind = ProgEmpty
	}
	return p, true
}

// Round rounds as coNCePTuaL's CONC_DBL2INT does: x + 0.5 truncated
// toward zero (so -2.7 rounds to -2). A value out of the range of int64,
// or NaN, gives math.MinInt64, as the conversion does on x86-64.
func Round(x float64) int64 {
	t := float64(x) + 0.5 // the conversion keeps a product x from being fused with the addition
	if !(t >= -1<<63 && t < 1<<63) {
		return math.MinInt64
	}
	return int64(t)
}

// Each produces the progression's values.
func (p Progression) Each(fn func(int64) bool) bool {
	switch p.Kind {
	case ProgArith:
		for v := p.Start; ; v += p.Step {
			if !fn(v) {
				return false
			}
			if p.Step > 0 && (v > p.End-p.Step || v > math.MaxInt64-p.Step) ||
				p.Step < 0 && (v < p.End-p.Step || v < math.MinInt64-p.Step) {
				return true
			}
		}
	case ProgGeoMul:
		for v := p.Start; v <= p.End; {
			if !fn(v) {
				return false
			}
			next := v * p.Ratio
			if next/p.Ratio != v {
				return true // the next term overflows
			}
			v = next
		}
	case ProgGeoDiv:
		for v := p.Start; v >= p.End; v /= p.Ratio {
			if !fn(v) {
				return false
			}
			if v == 0 {
				return true
			}
		}
	case ProgGeoFloat:
		x, prev := p.FStart, Round(p.FStart-1)
		for {
			v, ok := p.floatTerm(x, prev)
			if !ok {
				return true
			}
			if !fn(v) {
				return false
			}
			x, prev = x*p.FRatio, v
		}
	}
	return true
}

// floatTerm rounds x, a term of a floating-point progression whose
// previous term rounded to prev, and reports whether the progression goes
// on to it.
func (p Progression) floatTerm(x float64, prev int64) (int64, bool) {
	v := Round(x)
	return v, v != prev && (p.Up && v <= p.End || !p.Up && v >= p.End)
}

// Contains tests membership, directly for arithmetic progressions.
func (p Progression) Contains(v int64) bool {
	if p.Kind == ProgArith {
		lo, hi := p.Start, p.End
		if p.Step < 0 {
			lo, hi = p.End, p.Start
		}
		if v < lo || v > hi {
			return false
		}
		diff := v - p.Start
		return diff%p.Step == 0
	}
	found := false
	p.Each(func(x int64) bool {
		found = x == v
		return !found
	})
	return found
}

// Each visits the progression's values.
func (r *ProgRange) Each(f *Frame, fn func(int64) bool) bool {
	return r.Pattern(f).Each(fn)
}

// Contains tests membership.
func (r *ProgRange) Contains(f *Frame, v int64) bool {
	return r.Pattern(f).Contains(v)
}

// Cursor walks the ranges of a FOR EACH loop one value at a time, so that a
// loop body may block between values. Its state is small: a progression
// and a position, or the materialized values of a comprehension.
type Cursor struct {
	ranges []Range
	ri     int // current range
	pos    int // position within a list or comprehension
	prog   Progression
	next   int64   // next value of an arithmetic or geometric progression
	x      float64 // next term of a floating-point progression
	prev   int64
	vals   []int64
	primed bool
}

// NewCursor starts walking ranges.
func NewCursor(ranges []Range) *Cursor { return &Cursor{ranges: ranges} }

// Next returns the next value, or false when every range is exhausted.
func (c *Cursor) Next(f *Frame) (int64, bool) {
	for c.ri < len(c.ranges) {
		if v, ok := c.step(f, c.ranges[c.ri]); ok {
			return v, true
		}
		c.ri++
		c.pos, c.primed, c.vals = 0, false, nil
	}
	return 0, false
}

func (c *Cursor) step(f *Frame, r Range) (int64, bool) {
	switch r := r.(type) {
	case *ListRange:
		if c.pos >= len(r.Items) {
			return 0, false
		}
		c.pos++
		return r.Items[c.pos-1].Int(f), true
	case *ProgRange:
		if !c.primed {
			c.prog = r.Pattern(f)
			c.next, c.x, c.prev, c.primed = c.prog.Start, c.prog.FStart, Round(c.prog.FStart-1), true
		}
		return c.progNext()
	}
	if !c.primed {
		r.Each(f, func(v int64) bool { c.vals = append(c.vals, v); return true })
		c.primed = true
	}
	if c.pos >= len(c.vals) {
		return 0, false
	}
	c.pos++
	return c.vals[c.pos-1], true
}

// progNext produces the next term of c.prog, with the same stopping rules
// as Progression.Each.
func (c *Cursor) progNext() (int64, bool) {
	p := &c.prog
	switch p.Kind {
	case ProgArith:
		v := c.next
		if c.pos > 0 && (p.Step > 0 && (v > p.End || v < c.prev) || p.Step < 0 && (v < p.End || v > c.prev)) {
			return 0, false
		}
		c.pos++
		c.prev = v
		c.next = v + p.Step
		return v, true
	case ProgGeoMul:
		v := c.next
		if v > p.End || (c.pos > 0 && v/p.Ratio != c.prev) {
			return 0, false
		}
		c.pos++
		c.prev, c.next = v, v*p.Ratio
		return v, true
	case ProgGeoDiv:
		v := c.next
		if v < p.End || (c.pos > 0 && c.prev == 0) {
			return 0, false
		}
		c.pos++
		c.prev, c.next = v, v/p.Ratio
		return v, true
	case ProgGeoFloat:
		v, ok := p.floatTerm(c.x, c.prev)
		if !ok {
			return 0, false
		}
		c.x, c.prev = c.x*p.FRatio, v
		return v, true
	}
	return 0, false
}
