package scalatrace

import "slices"

// maxRanks bounds the rank numbers a trace may name, so that a damaged
// rank list cannot make the reader allocate without bound.
const maxRanks = 1 << 20

// rankList is a ScalaTrace rank list: a union of groups, each a start rank
// plus a nest of (count, stride) dimensions.
type rankList []rankGroup

type rankGroup struct {
	start int64
	dims  [][2]int64 // count, stride
}

// parseRankList reads "<groups> (-depth start (count stride)*depth)*".
func parseRankList(c *cursor) (rankList, error) {
	n, err := c.int("the number of groups in a rank list")
	if err != nil {
		return nil, err
	}
	if n < 1 || n > maxRanks {
		c.i--
		return nil, c.errorf("a rank list needs 1 to %d groups, found %d", maxRanks, n)
	}
	rl := make(rankList, 0, min(n, 64))
	total := int64(0)
	for range n {
		d, err := c.int("a group's depth, as -depth")
		if err != nil {
			return nil, err
		}
		if d > -1 || d < -8 {
			c.i--
			return nil, c.errorf("a rank group's depth is written -1 to -8, found %d", d)
		}
		var g rankGroup
		if g.start, err = c.int("a group's start rank"); err != nil {
			return nil, err
		}
		size := int64(1)
		for range -d {
			cnt, err := c.int("a group's count")
			if err != nil {
				return nil, err
			}
			stride, err := c.int("a group's stride")
			if err != nil {
				return nil, err
			}
			if cnt < 1 || cnt > maxRanks || stride < 0 || stride > maxRanks {
				c.i -= 2
				return nil, c.errorf("a rank group's count must lie in 1..%d and its stride in 0..%d, found %d and %d", maxRanks, maxRanks, cnt, stride)
			}
			size *= cnt
			if size > maxRanks {
				c.i -= 2
				return nil, c.errorf("a rank group holds more than %d ranks", maxRanks)
			}
			g.dims = append(g.dims, [2]int64{cnt, stride})
		}
		if total += size; total > maxRanks {
			return nil, c.errorf("a rank list holds more than %d ranks", maxRanks)
		}
		if g.start < 0 || g.last() >= maxRanks {
			return nil, c.errorf("a rank group reaches outside ranks 0..%d", maxRanks-1)
		}
		rl = append(rl, g)
	}
	return rl, nil
}

// last is the highest rank in g.
func (g rankGroup) last() int64 {
	r := g.start
	for _, d := range g.dims {
		r += (d[0] - 1) * d[1]
	}
	return r
}

// each calls fn for every rank of g.
func (g rankGroup) each(fn func(int)) {
	var walk func(base int64, k int)
	walk = func(base int64, k int) {
		if k == len(g.dims) {
			fn(int(base))
			return
		}
		for i := int64(0); i < g.dims[k][0]; i++ {
			walk(base+i*g.dims[k][1], k+1)
		}
	}
	walk(g.start, 0)
}

// max is the highest rank in the list.
func (rl rankList) max() int64 {
	m := int64(-1)
	for _, g := range rl {
		m = max(m, g.last())
	}
	return m
}

// size is the number of ranks the list names, a rank in two of its
// groups counted twice.
func (rl rankList) size() int64 {
	total := int64(0)
	for _, g := range rl {
		size := int64(1)
		for _, d := range g.dims {
			size *= d[0]
		}
		total += size
	}
	return total
}

// members returns the ranks in the list, ascending, each once. A list
// costs its size, not a table over every rank of the trace: a trace
// declaring a million ranks may name few of them in most lists.
func (rl rankList) members() []int32 {
	out := make([]int32, 0, rl.size())
	for _, g := range rl {
		g.each(func(r int) { out = append(out, int32(r)) })
	}
	slices.Sort(out)
	return slices.Compact(out)
}
