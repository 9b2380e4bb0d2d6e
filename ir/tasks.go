package ir

import (
	"math"
	"slices"

	"github.com/parley-hpc/parley/lang"
)

// SetKind is the form of a task description.
type SetKind int

// Task-set forms.
const (
	AllSet      SetKind = iota // ALL TASKS [v]
	OthersSet                  // ALL OTHER TASKS: everyone but the task on the other side
	SingleSet                  // TASK expr
	SuchThatSet                // TASKS v SUCH THAT rel
	RangeSet                   // TASKS {range}, ...
	GroupSet                   // TASK GROUP g
)

// TaskSet is a resolved task description. It is evaluated lazily: Contains
// tests one task and Each visits the members in ascending order, binding the
// set's variable (if it has one) in the frame. Task numbers outside
// 0..num_tasks-1 are never members: they are silently dropped.
type TaskSet struct {
	at
	Kind   SetKind
	Slot   int    // slot of the variable bound to each member, or -1
	Name   string // the variable's name, if any
	X      Expr   // SingleSet
	Cond   Rel    // SuchThatSet
	Ranges []Range
	Group  *TaskSet // GroupSet: the group's definition
	bounds []bound  // SuchThatSet: limits on the variable found in Cond
}

// bound is a conjunct of a SUCH THAT condition that limits the variable:
// var op X, with X independent of the variable.
type bound struct {
	op lang.CmpOp
	x  Expr
}

func (s *TaskSet) bind(f *Frame, task int64) {
	if s.Slot >= 0 {
		f.Slots[s.Slot] = task
	}
}

// Contains reports whether task is a member, binding the set's variable to
// task. other is the task on the other side of the statement (the source,
// for ALL OTHER TASKS), or -1.
func (s *TaskSet) Contains(f *Frame, task, other int64) bool {
	if task < 0 || task >= f.G.NumTasks {
		return false
	}
	s.bind(f, task)
	switch s.Kind {
	case AllSet:
		return true
	case OthersSet:
		return task != other
	case SingleSet:
		return s.X.Int(f) == task
	case SuchThatSet:
		return s.Cond.Holds(f)
	case RangeSet:
		for _, r := range s.Ranges {
			if r.Contains(f, task) {
				return true
			}
		}
		return false
	}
	return s.Group.Contains(f, task, other)
}

// One returns the single member of a TASK expr set, or -1 if the task it
// names does not exist. It is only meaningful for SingleSet.
func (s *TaskSet) One(f *Frame) int64 {
	t := s.X.Int(f)
	if t < 0 || t >= f.G.NumTasks {
		return -1
	}
	s.bind(f, t)
	return t
}

// Each calls fn for every member in ascending order, with the set's
// variable bound, until fn returns false. It reports whether it ran to the
// end.
func (s *TaskSet) Each(f *Frame, other int64, fn func(task int64) bool) bool {
	n := f.G.NumTasks
	switch s.Kind {
	case AllSet, OthersSet:
		for t := int64(0); t < n; t++ {
			if s.Kind == OthersSet && t == other {
				continue
			}
			s.bind(f, t)
			if !fn(t) {
				return false
			}
		}
		return true
	case SingleSet:
		if t := s.One(f); t >= 0 {
			return fn(t)
		}
		return true
	case SuchThatSet:
		lo, hi := s.limits(f)
		for t := lo; t <= hi; t++ {
			s.bind(f, t)
			if s.Cond.Holds(f) && !fn(t) {
				return false
			}
		}
		return true
	case RangeSet:
		return s.eachInRanges(f, fn)
	}
	return s.Group.Each(f, other, func(t int64) bool {
		s.bind(f, t)
		return fn(t)
	})
}

// limits narrows the scan of a SUCH THAT set to the interval its
// condition's bounds allow; the condition itself is still tested.
func (s *TaskSet) limits(f *Frame) (lo, hi int64) {
	lo, hi = 0, f.G.NumTasks-1
	for _, b := range s.bounds {
		x := b.x.Int(f)
		switch b.op {
		case lang.Eq:
			lo, hi = max(lo, x), min(hi, x)
		case lang.Lt:
			if x == math.MinInt64 {
				return 0, -1
			}
			hi = min(hi, x-1)
		case lang.Le:
			hi = min(hi, x)
		case lang.Gt:
			if x == math.MaxInt64 {
				return 0, -1
			}
			lo = max(lo, x+1)
		case lang.Ge:
			lo = max(lo, x)
		}
	}
	return lo, hi
}

// eachInRanges visits the tasks named by ranges in ascending order without
// duplicates. A single arithmetic progression is walked directly; anything
// else costs the size of the ranges, never the number of tasks.
func (s *TaskSet) eachInRanges(f *Frame, fn func(int64) bool) bool {
	n := f.G.NumTasks
	if len(s.Ranges) == 1 {
		if pr, ok := s.Ranges[0].(*ProgRange); ok {
			p := pr.Pattern(f)
			if p.Kind == ProgArith {
				return eachArith(p, n, func(t int64) bool { s.bind(f, t); return fn(t) })
			}
		}
	}
	var tasks []int64
	for _, r := range s.Ranges {
		r.Each(f, func(v int64) bool {
			if v >= 0 && v < n {
				tasks = append(tasks, v)
			}
			return true
		})
	}
	slices.Sort(tasks)
	tasks = slices.Compact(tasks)
	for _, t := range tasks {
		s.bind(f, t)
		if !fn(t) {
			return false
		}
	}
	return true
}

// eachArith visits the members of an arithmetic progression that lie in
// [0, n), in ascending order.
func eachArith(p Progression, n int64, fn func(int64) bool) bool {
	lo, hi, step := p.Start, p.End, p.Step
	if step < 0 {
		step = -step
		// Walk the same terms upward, starting from the last one.
		k := (p.Start - p.End) / step
		lo, hi = p.Start-k*step, p.Start
	}
	if hi >= n {
		hi = n - 1
	}
	if lo < 0 {
		lo += (-lo + step - 1) / step * step
	}
	for t := lo; t <= hi; t += step {
		if !fn(t) {
			return false
		}
		if t > math.MaxInt64-step {
			break
		}
	}
	return true
}

// Count returns the number of members.
func (s *TaskSet) Count(f *Frame, other int64) int64 {
	n := f.G.NumTasks
	switch s.Kind {
	case AllSet:
		return n
	case OthersSet:
		if other >= 0 && other < n {
			return n - 1
		}
		return n
	case SingleSet:
		if s.One(f) >= 0 {
			return 1
		}
		return 0
	}
	c := int64(0)
	s.Each(f, other, func(int64) bool { c++; return true })
	return c
}
