package ir

import (
	"fmt"
	"math"
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
	ProgGeoFloat                 // trunc(FStart*FRatio^j) toward FEnd
)

// Progression is the pattern found in a ProgRange's initial terms, with
// everything needed to produce its values.
type Progression struct {
	Kind   ProgKind
	Start  int64
	Step   int64 // ProgArith: the increment (never 0)
	Ratio  int64 // ProgGeoMul, ProgGeoDiv: |Ratio| >= 2
	End    int64
	FStart float64
	FRatio float64
	FEnd   float64
}

// Pattern finds the progression, following the coNCePTuaL manual:
//   - one initial term counts by 1 (or -1) toward the final value;
//   - terms with a common difference form an arithmetic progression (a zero
//     difference gives the single value);
//   - otherwise terms with an exact integer ratio form a geometric one,
//     increasing or decreasing;
//   - otherwise the terms are evaluated again in floating-point context and
//     a common ratio gives a geometric progression whose values are
//     truncated (as {100, 150, 225, ..., 10000} gives 100, 150, 225, 337;
//     truncation may repeat a value: {1, 3/2, 9/4, ..., 10} gives 1, 1, 2,
//     3, 5, 7).
//
// A progression stops at or before its final value, never after, and is
// empty if the final value lies behind the start.
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
			return Progression{Kind: ProgArith, Start: init[0], Step: 1, End: init[0]}
		}
		return arith(init[0], d, end)
	}
	if p, ok := geoInt(init, end); ok {
		return p
	}
	fi := make([]float64, len(r.Initial))
	for i, e := range r.Initial {
		fi[i] = e.Float(f)
	}
	if p, ok := geoFloat(fi, r.Final.Float(f)); ok {
		return p
	}
	terms := make([]string, 0, len(init)+1)
	for _, v := range init {
		terms = append(terms, fmt.Sprint(v))
	}
	fail(r.sp, "no arithmetic or geometric pattern in {%s, ..., %d}", strings.Join(terms, ", "), end)
	return Progression{}
}

func arith(start, step, end int64) Progression {
	if (step > 0 && end < start) || (step < 0 && end > start) {
		return Progression{Kind: ProgEmpty}
	}
	return Progression{Kind: ProgArith, Start: start, Step: step, End: end}
}

// geoInt looks for an exact integer ratio of magnitude at least 2.
func geoInt(a []int64, end int64) (Progression, bool) {
	for _, v := range a {
		if v == 0 {
			return Progression{}, false
		}
	}
	if a[0] < a[1] {
		r := a[1] / a[0]
		for i := 0; i+1 < len(a); i++ {
			if a[i]*r != a[i+1] {
				return Progression{}, false
			}
		}
		if r >= 2 || r <= -2 {
			if a[0] > end {
				return Progression{Kind: ProgEmpty}, true
			}
			return Progression{Kind: ProgGeoMul, Start: a[0], Ratio: r, End: end}, true
		}
		return Progression{}, false
	}
	r := a[0] / a[1]
	for i := 0; i+1 < len(a); i++ {
		if a[i+1]*r != a[i] {
			return Progression{}, false
		}
	}
	if r >= 2 || r <= -2 {
		if a[0] < end {
			return Progression{Kind: ProgEmpty}, true
		}
		return Progression{Kind: ProgGeoDiv, Start: a[0], Ratio: r, End: end}, true
	}
	return Progression{}, false
}

// geoFloat looks for a common ratio between floating-point terms.
func geoFloat(a []float64, end float64) (Progression, bool) {
	for _, v := range a {
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Progression{}, false
		}
	}
	r := a[1] / a[0]
	if r <= 0 || r == 1 {
		return Progression{}, false
	}
	for i := 1; i+1 < len(a); i++ {
		if q := a[i+1] / a[i]; math.Abs(q-r) > 1e-9*r {
			return Progression{}, false
		}
	}
	p := Progression{Kind: ProgGeoFloat, FStart: a[0], FRatio: r, FEnd: end}
	if (r > 1 && a[0] > end) || (r < 1 && a[0] < end) {
		p.Kind = ProgEmpty
	}
	return p, true
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
		prev := int64(math.MinInt64)
		for j := 0; ; j++ {
			x := p.FStart * math.Pow(p.FRatio, float64(j))
			if (p.FRatio > 1 && x > p.FEnd) || (p.FRatio < 1 && x < p.FEnd) || math.IsInf(x, 0) {
				return true
			}
			v := int64(x)
			if v == 0 && prev == 0 {
				return true // a shrinking progression has reached zero for good
			}
			if !fn(v) {
				return false
			}
			prev = v
		}
	}
	return true
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
	next   int64 // next value of an arithmetic or geometric progression
	j      int   // term index for floating-point progressions
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
			c.next, c.j, c.prev, c.primed = c.prog.Start, 0, math.MinInt64, true
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
		x := p.FStart * math.Pow(p.FRatio, float64(c.j))
		if (p.FRatio > 1 && x > p.FEnd) || (p.FRatio < 1 && x < p.FEnd) || math.IsInf(x, 0) {
			return 0, false
		}
		v := int64(x)
		if v == 0 && c.prev == 0 {
			return 0, false
		}
		c.j++
		c.prev = v
		return v, true
	}
	return 0, false
}
