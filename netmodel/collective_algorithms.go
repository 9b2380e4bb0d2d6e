package netmodel

// The algorithms below follow MPICH 4.x, src/mpi/coll/OP/OP_intra_ALG.c:
// the same peers in the same order, and the same bytes per message.

// binomialSpan returns the size of relative rank rel's subtree in MPICH's
// binomial tree over n ranks rooted at relative rank 0: rel's lowest set
// bit, which is also the distance to its parent, or for the root the
// smallest power of two >= n.
func binomialSpan(n, rel int) int {
	if rel == 0 {
		return collCeilPow2(n)
	}
	return rel & -rel
}

// binomialDown walks the binomial tree as broadcast and scatter do: rel
// receives from its parent, then sends to its children, farthest first.
// Each call names the peer and the subtree [lo, hi) of the receiving side,
// all in relative ranks.
func binomialDown(n, rel int, recv, send func(peer, lo, hi int)) {
	span := binomialSpan(n, rel)
	if rel != 0 {
		recv(rel-span, rel, min(rel+span, n))
	}
	for m := span / 2; m > 0; m /= 2 {
		if rel+m < n {
			send(rel+m, rel+m, min(rel+2*m, n))
		}
	}
}

// binomialUp walks the tree the other way, as reduce and gather do: rel
// receives from its children, nearest first, then sends to its parent. Each
// call names the peer and the subtree [lo, hi) of the sending side.
func binomialUp(n, rel int, recv, send func(peer, lo, hi int)) {
	span := binomialSpan(n, rel)
	for m := 1; m < span && rel+m < n; m *= 2 {
		recv(rel+m, rel+m, min(rel+2*m, n))
	}
	if rel != 0 {
		send(rel-span, rel, min(rel+span, n))
	}
}

// binomialRecvBlocks and binomialSendBlocks move the blocks of subtree
// [lo, hi) (relative ranks) for the binomial gather and scatter.
func (p *collPlanner) binomialRecvBlocks(peer, lo, hi int) {
	n, _ := p.blockSpan(p.abs(lo), hi-lo)
	p.recv(p.abs(peer), n, false)
}

func (p *collPlanner) binomialSendBlocks(peer, lo, hi int) {
	n, what := p.blockSpan(p.abs(lo), hi-lo)
	p.send(p.abs(peer), n, what)
}

// recursiveDoublingAllgather adds the allgather by recursive doubling among
// n ranks, n a power of two, x being this rank's index among them: at
// distance m, x swaps the m blocks it holds with those of x^m. rank maps an
// index to a rank; blocks sizes and names blocks [lo, hi).
func recursiveDoublingAllgather(p *collPlanner, n, x int, rank func(int) int, blocks func(lo, hi int) (int64, collSpan)) {
	for m := 1; m < n; m *= 2 {
		mine, theirs := x&^(m-1), (x^m)&^(m-1)
		sn, what := blocks(mine, mine+m)
		rn, _ := blocks(theirs, theirs+m)
		peer := rank(x ^ m)
		p.exchange(peer, sn, what, peer, rn, false)
	}
}

// ringPass adds the N-1 steps of a pass around the ring: at step i =
// 1..N-1, r sends block start-i+1 to r+1 and receives block start-i from
// r-1 (blocks mod N), combining it if reduce.
func ringPass(p *collPlanner, start int, block func(b int) (int64, collSpan), reduce bool) {
	right, left := p.mod(p.r+1), p.mod(p.r-1)
	for i := 1; i < p.c.N; i++ {
		sn, what := block(p.mod(start - i + 1))
		rn, _ := block(p.mod(start - i))
		p.exchange(right, sn, what, left, rn, reduce)
	}
}

func bcastBinomial(p *collPlanner) {
	n, whole := p.c.Bytes, collSpan{count: p.c.Bytes}
	binomialDown(p.c.N, p.rel(),
		func(peer, _, _ int) { p.recv(p.abs(peer), n, false) },
		func(peer, _, _ int) { p.send(p.abs(peer), n, whole) })
}

// bcastPieces is how the scatter-allgather broadcasts cut the message:
// piece i, of ceil(Bytes/N) bytes or fewer, goes to relative rank i.
func bcastPieces(p *collPlanner) collSplit {
	return collSplit{total: p.c.Bytes, n: p.c.N, ceil: true}
}

// bcastScatter is MPII_Scatter_for_bcast: a binomial scatter of the pieces
// that skips empty ones.
func bcastScatter(p *collPlanner, pieces collSplit) {
	binomialDown(p.c.N, p.rel(),
		func(peer, lo, hi int) {
			n, _ := pieces.span(lo, hi)
			p.sparseExchange(-1, 0, collSpan{}, p.abs(peer), n, false)
		},
		func(peer, lo, hi int) {
			n, what := pieces.span(lo, hi)
			p.sparseExchange(p.abs(peer), n, what, -1, 0, false)
		})
}

// bcastScatterRecursiveDoublingAllgather is van de Geijn's broadcast for
// medium messages: scatter, then allgather by recursive doubling (power of
// two N only; MPICH marks its non-power-of-two path experimental and never
// selects it).
func bcastScatterRecursiveDoublingAllgather(p *collPlanner) {
	pieces := bcastPieces(p)
	bcastScatter(p, pieces)
	recursiveDoublingAllgather(p, p.c.N, p.rel(), p.abs, pieces.span)
}

// bcastScatterRingAllgather is van de Geijn's broadcast for long messages:
// scatter, then a ring allgather.
func bcastScatterRingAllgather(p *collPlanner) {
	pieces := bcastPieces(p)
	bcastScatter(p, pieces)
	p.reserve(p.c.N - 1)
	ringPass(p, p.r, func(b int) (int64, collSpan) {
		rel := p.mod(b - p.c.Root)
		return pieces.span(rel, rel+1)
	}, false)
}

func reduceBinomial(p *collPlanner) {
	n, whole := p.c.Bytes, collSpan{count: p.c.Bytes}
	binomialUp(p.c.N, p.rel(),
		func(peer, _, _ int) { p.recv(p.abs(peer), n, true) },
		func(peer, _, _ int) { p.send(p.abs(peer), n, whole) })
}

// collFold is how MPICH runs power-of-two algorithms on N ranks: with pof2
// the largest power of two <= N and rem = N-pof2, the ranks 2i and 2i+1,
// i < rem, fold into one survivor, the other one handing over its vector
// first and sitting out. Allreduce and ReduceScatter keep the odd rank,
// Reduce the even one (so that root 0 takes part).
type collFold struct {
	pof2, rem int
	keepOdd   bool
}

func collNewFold(n int, keepOdd bool) collFold {
	pof2 := collFloorPow2(n)
	return collFold{pof2: pof2, rem: n - pof2, keepOdd: keepOdd}
}

// survivor returns r's index among the pof2 survivors, or -1 if r sits out.
func (f collFold) survivor(r int) int {
	switch {
	case r >= 2*f.rem:
		return r - f.rem
	case (r%2 == 1) == f.keepOdd:
		return r / 2
	}
	return -1
}

// rank returns survivor x's rank.
func (f collFold) rank(x int) int {
	switch {
	case x >= f.rem:
		return x + f.rem
	case f.keepOdd:
		return 2*x + 1
	}
	return 2 * x
}

// first returns the first of the ranks survivor x stands for; first(pof2)
// is N.
func (f collFold) first(x int) int {
	if x < f.rem {
		return 2 * x
	}
	return x + f.rem
}

// in adds the pre-step: a rank that sits out sends its whole vector to its
// partner, which combines it with its own.
func (f collFold) in(p *collPlanner) {
	if p.r >= 2*f.rem {
		return
	}
	if f.survivor(p.r) < 0 {
		p.send(p.r^1, p.c.Bytes, collSpan{count: p.c.Bytes})
	} else {
		p.recv(p.r^1, p.c.Bytes, true)
	}
}

// out adds the post-step: a survivor sends its partner's n bytes of result
// (what), unless empty, as MPICH's reduce-scatter skips them.
func (f collFold) out(p *collPlanner, n int64, what collSpan) {
	if p.r >= 2*f.rem || n == 0 {
		return
	}
	if f.survivor(p.r) >= 0 {
		p.send(p.r^1, n, what)
	} else {
		p.recv(p.r^1, n, false)
	}
}

func allreduceRecursiveDoubling(p *collPlanner) {
	f := collNewFold(p.c.N, true)
	n, whole := p.c.Bytes, collSpan{count: p.c.Bytes}
	f.in(p)
	if x := f.survivor(p.r); x >= 0 {
		for m := 1; m < f.pof2; m *= 2 {
			peer := f.rank(x ^ m)
			p.exchange(peer, n, whole, peer, n, true)
		}
	}
	f.out(p, n, whole)
}

// rabenseifnerBlocks returns the blocks [lo, hi) of the pof2 that survivor
// x holds once the reduce-scatter steps of distance below m are done.
// MPICH's recursive halving splits on the lowest bit first (x keeps the
// lower half at distance m if x&m == 0), so each survivor ends with the
// block numbered by its bits reversed.
func rabenseifnerBlocks(x, m, pof2 int) (lo, hi int) {
	size := pof2
	for bit := 1; bit < m; bit *= 2 {
		size /= 2
		if x&bit != 0 {
			lo += size
		}
	}
	return lo, lo + size
}

// rabenseifnerReduceScatter adds the reduce-scatter by recursive halving
// among the survivors, x being this rank's survivor index.
func rabenseifnerReduceScatter(p *collPlanner, f collFold, x int, blocks collSplit) {
	for m := 1; m < f.pof2; m *= 2 {
		sn, what := blocks.span(rabenseifnerBlocks(x^m, 2*m, f.pof2))
		rn, _ := blocks.span(rabenseifnerBlocks(x, 2*m, f.pof2))
		peer := f.rank(x ^ m)
		p.exchange(peer, sn, what, peer, rn, true)
	}
}

// reduceRabenseifner is MPICH's reduce_scatter_gather: reduce-scatter by
// recursive halving, then a binomial gather of the blocks to the root.
func reduceRabenseifner(p *collPlanner) {
	f := collNewFold(p.c.N, false)
	blocks := collSplit{total: p.c.Bytes, n: f.pof2}
	root := p.c.Root
	f.in(p)
	x := f.survivor(p.r)
	if x >= 0 {
		rabenseifnerReduceScatter(p, f, x, blocks)
	}
	// A root that sat out takes survivor 0's block and place in the gather.
	newroot, rootOut := f.survivor(root), f.survivor(root) < 0
	if rootOut {
		newroot = 0
		n, what := blocks.span(rabenseifnerBlocks(0, f.pof2, f.pof2))
		switch {
		case p.r == root:
			p.recv(f.rank(0), n, false)
			x = 0
		case x == 0:
			p.send(root, n, what)
			x = -1
		}
	}
	if x < 0 {
		return
	}
	for m := f.pof2 / 2; m > 0; m /= 2 {
		peerX := x ^ m
		peer := f.rank(peerX)
		if peerX == 0 && rootOut {
			peer = root
		}
		if peerX^newroot < m { // the peer's half holds the root: hand over
			n, what := blocks.span(rabenseifnerBlocks(x, 2*m, f.pof2))
			p.send(peer, n, what)
			return
		}
		n, _ := blocks.span(rabenseifnerBlocks(peerX, 2*m, f.pof2))
		p.recv(peer, n, false)
	}
}

// allreduceRabenseifner is MPICH's reduce_scatter_allgather: reduce-scatter
// by recursive halving, then allgather by recursive doubling.
func allreduceRabenseifner(p *collPlanner) {
	f := collNewFold(p.c.N, true)
	f.in(p)
	if x := f.survivor(p.r); x >= 0 {
		blocks := collSplit{total: p.c.Bytes, n: f.pof2}
		rabenseifnerReduceScatter(p, f, x, blocks)
		for m := f.pof2 / 2; m > 0; m /= 2 {
			sn, what := blocks.span(rabenseifnerBlocks(x, 2*m, f.pof2))
			rn, _ := blocks.span(rabenseifnerBlocks(x^m, 2*m, f.pof2))
			peer := f.rank(x ^ m)
			p.exchange(peer, sn, what, peer, rn, false)
		}
	}
	f.out(p, p.c.Bytes, collSpan{count: p.c.Bytes})
}

// allreduceRing is a ring reduce-scatter then a ring allgather of the N
// blocks of ceil(Bytes/N) bytes. MPICH's allgather phase
// (MPIR_Allgatherv_intra_ring) also cuts blocks above
// MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE into chunks; that is not modelled.
func allreduceRing(p *collPlanner) {
	blocks := collSplit{total: p.c.Bytes, n: p.c.N, ceil: true}
	block := func(b int) (int64, collSpan) { return blocks.span(b, b+1) }
	p.reserve(2 * (p.c.N - 1))
	ringPass(p, p.r-1, block, true)
	ringPass(p, p.r, block, false)
}

// reduceScatterRecursiveHalving halves from the highest bit down, so
// survivor x ends with block x, which stands for the blocks of the ranks
// it stands for.
func reduceScatterRecursiveHalving(p *collPlanner) {
	f := collNewFold(p.c.N, true)
	blocks := collSplit{total: p.c.Bytes, n: p.c.N}
	f.in(p)
	if x := f.survivor(p.r); x >= 0 {
		for m := f.pof2 / 2; m > 0; m /= 2 {
			keep, give := x&^(m-1), (x^m)&^(m-1)
			sn, what := blocks.span(f.first(give), f.first(give+m))
			rn, _ := blocks.span(f.first(keep), f.first(keep+m))
			peer := f.rank(x ^ m)
			p.sparseExchange(peer, sn, what, peer, rn, true)
		}
	}
	sitter := p.r &^ 1
	n, what := blocks.span(sitter, sitter+1)
	f.out(p, n, what)
}

func reduceScatterPairwise(p *collPlanner) {
	blocks := collSplit{total: p.c.Bytes, n: p.c.N}
	rn, _ := blocks.span(p.r, p.r+1)
	p.reserve(p.c.N - 1)
	for i := 1; i < p.c.N; i++ {
		to := p.mod(p.r + i)
		sn, what := blocks.span(to, to+1)
		p.exchange(to, sn, what, p.mod(p.r-i), rn, true)
	}
}

func barrierDissemination(p *collPlanner) {
	for m := 1; m < p.c.N; m *= 2 {
		p.exchange(p.mod(p.r+m), 0, collSpan{}, p.mod(p.r-m), 0, false)
	}
}

// gatherBinomial: intermediate ranks forward their subtree's blocks.
func gatherBinomial(p *collPlanner) {
	binomialUp(p.c.N, p.rel(), p.binomialRecvBlocks, p.binomialSendBlocks)
}

func scatterBinomial(p *collPlanner) {
	binomialDown(p.c.N, p.rel(), p.binomialRecvBlocks, p.binomialSendBlocks)
}

func gatherLinear(p *collPlanner)  { linearRooted(p, true) }
func scatterLinear(p *collPlanner) { linearRooted(p, false) }

// linearRooted is MPICH's Gatherv/Scatterv: each other rank exchanges its
// block with the root (toRoot: they send), and the root handles them in
// rank order.
func linearRooted(p *collPlanner, toRoot bool) {
	root := p.c.Root
	move := func(peer, block int) {
		n, what := p.blockSpan(block, 1)
		if (p.r == root) == toRoot {
			p.recv(peer, n, false)
		} else {
			p.send(peer, n, what)
		}
	}
	if p.r != root {
		move(root, p.r)
		return
	}
	p.reserve(p.c.N - 1)
	for i := range p.c.N {
		if i != root {
			move(i, i)
		}
	}
}

func allgatherRecursiveDoubling(p *collPlanner) {
	recursiveDoublingAllgather(p, p.c.N, p.r, func(x int) int { return x },
		func(lo, hi int) (int64, collSpan) { return p.blockSpan(lo, hi-lo) })
}

// allgatherBruck: at distance d, r sends the blocks r..r+k-1 it holds to r-d
// and receives r+d..r+d+k-1 from r+d, where k = d except in the last step
// of a non-power-of-two N, which completes the N blocks.
func allgatherBruck(p *collPlanner) {
	n := p.c.N
	for d := 1; d < n; d *= 2 {
		k := min(d, n-d)
		sn, what := p.blockSpan(p.r, k)
		rn, _ := p.blockSpan(p.mod(p.r+d), k)
		p.exchange(p.mod(p.r-d), sn, what, p.mod(p.r+d), rn, false)
	}
}

func allgatherRing(p *collPlanner) {
	p.reserve(p.c.N - 1)
	ringPass(p, p.r, func(b int) (int64, collSpan) { return p.blockSpan(b, 1) }, false)
}

// alltoallBruck: after rotating its blocks so that the block for r+d sits
// at index d, r sends at distance 2^k all blocks whose index has bit k set.
func alltoallBruck(p *collPlanner) {
	for d := 1; d < p.c.N; d *= 2 {
		k := bruckCount(p.c.N, d)
		n := int64(k) * p.c.Bytes
		p.exchange(p.mod(p.r+d), n, collSpan{count: int64(k), bruck: d}, p.mod(p.r-d), n, false)
	}
}

// bruckCount counts the i in 1..n-1 with i&bit != 0.
func bruckCount(n, bit int) int {
	return n/(2*bit)*bit + max(0, n%(2*bit)-bit)
}

// alltoallScattered is MPICH's medium-message algorithm, which posts all
// receives (from r+i) and sends (to r-i) at once, MPIR_CVAR_ALLTOALL_THROTTLE
// (32) at a time; it is modelled as N-1 steps, one per distance i.
func alltoallScattered(p *collPlanner) {
	p.reserve(p.c.N - 1)
	for i := 1; i < p.c.N; i++ {
		alltoallExchange(p, p.mod(p.r-i), p.mod(p.r+i))
	}
}

// alltoallPairwise pairs r with r^i for a power-of-two N, otherwise sends to
// r+i and receives from r-i.
func alltoallPairwise(p *collPlanner) {
	p.reserve(p.c.N - 1)
	pow2 := collIsPow2(p.c.N)
	for i := 1; i < p.c.N; i++ {
		if pow2 {
			alltoallExchange(p, p.r^i, p.r^i)
		} else {
			alltoallExchange(p, p.mod(p.r+i), p.mod(p.r-i))
		}
	}
}

// alltoallExchange sends r's block for to and receives from's block for r;
// empty blocks of Alltoallv are skipped, as MPICH does.
func alltoallExchange(p *collPlanner, to, from int) {
	what := collSpan{first: int64(p.r)*int64(p.c.N) + int64(to), count: 1}
	p.sparseExchange(to, p.c.pair(p.r, to), what, from, p.c.pair(from, p.r), false)
}
