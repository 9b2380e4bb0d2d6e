package netmodel

import (
	"slices"
	"testing"
)

// TestPaths checks that paths keep each route as given while others are
// added and dropped, reuse a dropped path's room for a route as long (and
// only for one as long), and give a route longer than a block a block of
// its own.
func TestPaths(t *testing.T) {
	var p paths
	route := func(n, seed int) []int32 {
		r := make([]int32, n)
		for i := range r {
			r[i] = int32(seed*1000 + i)
		}
		return r
	}
	kept := map[pathRef][]int32{}
	for i, n := range []int{3, 2, 5, 3, 26, 3} {
		kept[p.add(route(n, i))] = route(n, i)
	}
	check := func() {
		t.Helper()
		for r, want := range kept {
			if got := p.get(r); !slices.Equal(got, want) {
				t.Fatalf("path %+v is %v, want %v", r, got, want)
			}
		}
	}
	check()
	used := p.used
	var three pathRef
	for r, want := range kept {
		if len(want) == 3 {
			three = r
			break
		}
	}
	p.drop(three)
	delete(kept, three)
	check()
	r := p.add(route(4, 7)) // no free path of 4: new room
	kept[r] = route(4, 7)
	if r == three || p.used != used+5 {
		t.Errorf("a route of 4 took %+v (used %d, was %d), want new room after the dropped path of 3 %+v", r, p.used, used, three)
	}
	r = p.add(route(3, 8)) // the dropped path's room
	kept[r] = route(3, 8)
	if r != three {
		t.Errorf("a route of 3 took %+v, want the dropped path's %+v", r, three)
	}
	check()
	long := route(pathBlock+10, 9)
	r = p.add(long)
	kept[r] = long
	if r.off != 0 || len(p.blocks[r.blk]) != pathBlock+11 {
		t.Errorf("a route of %d links is at %+v in a block of %d, want a block of its own", len(long), r, len(p.blocks[r.blk]))
	}
	kept[p.add(route(2, 10))] = route(2, 10) // after the long one: a new block
	check()
	if len(p.blocks) != 3 {
		t.Errorf("%d blocks, want 3", len(p.blocks))
	}
}
