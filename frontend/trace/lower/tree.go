package lower

import "github.com/parley-hpc/parley/frontend/trace"

// item is one position of a rank's folded program: a call, or a loop.
// Unlike a trace.Seq, which shares equal loops, each rank has its own
// items, so each position gathers its own computation.
type item struct {
	sym int32
	// shape is what the item does, as alignment and classes compare it
	// (lowerer.shapeAt).
	shape int32
	loop  *loop
	// amount is the computation done at this position over all its runs,
	// in the trace's unit (compute symbols only).
	amount float64
	runs   int64
}

type loop struct {
	count int64
	body  []*item
}

// mean is the computation per run of a compute position.
func (it *item) mean() float64 {
	if it.runs == 0 {
		return 0
	}
	return it.amount / float64(it.runs)
}

// newTree copies a folded sequence into items of their own, each call
// with its shape.
func newTree(s trace.Seq, shape func(int32) int32) []*item {
	out := make([]*item, len(s))
	for i, x := range s {
		if x.Loop != nil {
			out[i] = &item{loop: &loop{count: x.Loop.Count, body: newTree(x.Loop.Body, shape)}}
		} else {
			out[i] = &item{sym: x.Sym, shape: shape(x.Sym)}
		}
	}
	return out
}

// clearAmounts forgets the computation gathered at the positions of tree.
func clearAmounts(tree []*item) {
	for _, it := range tree {
		it.amount, it.runs = 0, 0
		if it.loop != nil {
			clearAmounts(it.loop.body)
		}
	}
}

// cursor walks a folded program call by call, through its loops.
type cursor struct{ stack []frame }

type frame struct {
	body []*item
	idx  int
	left int64 // runs of body still to start after this one
}

func newCursor(tree []*item) *cursor {
	return &cursor{stack: []frame{{body: tree}}}
}

// next returns the next call's item, or nil at the end.
func (c *cursor) next() *item {
	for len(c.stack) > 0 {
		f := &c.stack[len(c.stack)-1]
		if f.idx == len(f.body) {
			if f.left > 0 {
				f.left--
				f.idx = 0
				continue
			}
			c.stack = c.stack[:len(c.stack)-1]
			continue
		}
		it := f.body[f.idx]
		f.idx++
		if it.loop != nil {
			if it.loop.count > 0 && len(it.loop.body) > 0 {
				c.stack = append(c.stack, frame{body: it.loop.body, left: it.loop.count - 1})
			}
			continue
		}
		return it
	}
	return nil
}
