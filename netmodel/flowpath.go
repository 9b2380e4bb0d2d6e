package netmodel

// pathBlock is how many int32s the flows' paths are allocated in at once
// (64 KiB): few enough allocations that their headers do not count, and
// little room left over at the end of the last.
const pathBlock = 1 << 14

// paths holds the routes of the flows, each as its length and then its
// link ids, in blocks. A flow names its path with a pathRef, 8 bytes where
// a slice header took 24 (which made a flow 64 bytes rather than 48), and
// a path of n links takes 4n+4 bytes where an allocation of its own took
// the next size class up (16 for the halo's 3 links, 12 used). The
// halo has 24,576 flows in flight at once.
//
// The paths of ended flows are chained by length, and a new flow takes
// one of its own length if there is one, so that the room for paths is
// what is in flight of each length, as it was when a flow id kept its
// path's room for the next flow to use it.
type paths struct {
	blocks [][]int32
	used   int // int32s used in the last block
	// free holds, by length, the first free path of that length, its blk
	// one more than its block (0: none free). A free path's first two link
	// ids hold the next one's, as its free entry would: every route has
	// its two host links.
	free []pathRef
}

// pathRef names a path: its block and where its length is in the block.
type pathRef struct{ blk, off int32 }

// get returns path r's link ids.
func (p *paths) get(r pathRef) []int32 {
	b := p.blocks[r.blk]
	n := b[r.off]
	return b[r.off+1 : r.off+1+n]
}

// add keeps a copy of route (at least two links) and returns its name.
func (p *paths) add(route []int32) pathRef {
	n := len(route)
	var r pathRef
	if n < len(p.free) && p.free[n].blk > 0 {
		r = pathRef{p.free[n].blk - 1, p.free[n].off}
		b := p.blocks[r.blk]
		p.free[n] = pathRef{b[r.off+1], b[r.off+2]}
	} else {
		// A route longer than a block (a ring of more than 2^15 nodes
		// can have one) has a block of its own size.
		last := len(p.blocks) - 1
		if last < 0 || p.used+n+1 > len(p.blocks[last]) {
			p.blocks = append(p.blocks, make([]int32, max(pathBlock, n+1)))
			p.used = 0
			last++
		}
		r = pathRef{int32(last), int32(p.used)}
		p.used += n + 1
	}
	b := p.blocks[r.blk]
	b[r.off] = int32(n)
	copy(b[r.off+1:], route)
	return r
}

// drop frees path r for a later add of a route as long.
func (p *paths) drop(r pathRef) {
	b := p.blocks[r.blk]
	n := int(b[r.off])
	if n >= len(p.free) {
		p.free = append(p.free, make([]pathRef, n+1-len(p.free))...)
	}
	b[r.off+1], b[r.off+2] = p.free[n].blk, p.free[n].off
	p.free[n] = pathRef{r.blk + 1, r.off}
}
