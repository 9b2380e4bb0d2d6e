package partition

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Options tunes KWay. The zero value gives METIS's defaults.
type Options struct {
	Imbalance float64 // allowed load imbalance, as METIS's ufactor/1000; 0 means 0.03 (METIS's default for k-way)
	Seed      uint64  // for the randomised steps; the result is a pure function of graph, k and options
	// Objective is what to minimise: Cut (the zero value) or Volume, which
	// uses the graph's VSize and Sends.
	Objective Objective
}

// defaultImbalance is METIS's default ufactor for k-way partitioning, 30,
// over 1000.
const defaultImbalance = 0.03

// KWay splits g into k parts of balanced vertex weight with a small edge cut,
// by multilevel k-way partitioning: coarsening by heavy-edge matching, an
// initial partition of the coarsest graph, and refinement while
// uncoarsening, under the balance constraint.
//
// With Options.Objective set to Volume it minimises the communication
// volume (Graph.Volume) instead, with the cut deciding between moves of
// equal volume.
//
// part[v] in [0, k) is v's part and cut the total weight of the edges between
// parts, whichever the objective. The balance constraint is METIS's: no part weighs more than
// (1+Imbalance) times the average part weight, tvw/k. When the vertex
// weights make that impossible (for unit weights, when ceil(tvw/k) is above
// it), KWay keeps the heaviest part as light as its moves allow: with unit
// weights, at ceil(tvw/k). Parts may be empty when k is close to the
// number of vertices; with k = n every vertex gets a part of its own.
//
// It returns an error for k <= 0, k above the number of vertices, an invalid
// graph (Validate's error), an Imbalance that is negative or not finite, or
// an unknown Objective.
func KWay(g *Graph, k int, opts Options) (part []int32, cut int64, err error) {
	if k <= 0 {
		return nil, 0, fmt.Errorf("partition: KWay into %d parts: the number of parts must be at least 1", k)
	}
	if err := g.Validate(); err != nil {
		return nil, 0, err
	}
	n := g.N()
	if k > n {
		return nil, 0, fmt.Errorf("partition: KWay into %d parts: the graph has only %d vertices; ask for at most %d parts", k, n, n)
	}
	imb := opts.Imbalance
	if imb == 0 {
		imb = defaultImbalance
	}
	if imb < 0 || math.IsNaN(imb) || math.IsInf(imb, 0) {
		return nil, 0, errors.New("partition: KWay: Imbalance must be a finite number >= 0 (0.03 allows parts 3% above average)")
	}
	if opts.Objective != Cut && opts.Objective != Volume {
		return nil, 0, fmt.Errorf("partition: KWay: Objective %d is unknown; use partition.Cut or partition.Volume", int(opts.Objective))
	}
	part = make([]int32, n)
	switch {
	case k == 1:
		return part, 0, nil
	case k == n:
		for v := range part {
			part[v] = int32(v)
		}
		return part, g.Cut(part), nil
	case len(g.Adj) == 0 && (g.Nets == nil || len(g.Nets.Pins) == 0):
		// Nothing to cut and nothing to send: only the balance matters.
		pack(g, k, part)
		return part, 0, nil
	}
	r := &rng{s: opts.Seed}
	wg := newWGraph(g, opts.Objective)
	ub := 1 + imb
	// Small graphs get several complete runs, the best kept: a run's cut
	// varies by several percent with the random choices, and on small
	// graphs more runs cost little.
	runs := min(max(runWork/(n+len(g.Adj)), 1), maxRuns)
	if opts.Objective == Volume && g.Nets != nil {
		// One: its recursive bisection compares its tries by the
		// exact volume already, and they are what finds the best.
		runs = 1
	}
	work := newRefineWork(n, k)
	var best *kwayState
	var bestVol int64
	for t := 0; t < runs; t++ {
		s := kway(wg, k, ub, opts.Objective, r, work)
		if opts.Objective == Volume {
			vol := g.Volume(s.where)
			if best == nil || s.betterVolume(vol, best, bestVol, ub) {
				best, bestVol = s, vol
			}
			continue
		}
		if best == nil || s.betterThan(best, ub) {
			best = s
		}
	}
	copy(part, best.where)
	return part, best.cut, nil
}

const (
	// runWork and maxRuns set the number of complete runs KWay makes: as
	// many as fit in runWork vertices plus adjacency entries, at most
	// maxRuns. Graphs of over a million entries get one.
	runWork = 2000000
	maxRuns = 4
)

// kway is KWay's multilevel scheme (METIS's MlevelKWayPartitioning) for
// 2 <= k < g.n, with balance limit ub times the average part weight.
func kway(g *wgraph, k int, ub float64, obj Objective, r *rng, work *refineWork) *kwayState {
	// Coarsen until about 20 log2(k) vertices remain per part, or at
	// least 30 per part (METIS 5.1's choice); a graph that small already
	// is not coarsened.
	log2k := bits.Len(uint(k)) - 1
	coarsenTo := max(g.n/(20*log2k), 30*k)
	tries := 5
	if coarsenTo == 30*k {
		tries = 4
	}
	levels := coarsen(g, coarsenTo, r)
	if g.nets != nil {
		// Refinement at every level counts the exact volume.
		for l := 1; l < len(levels); l++ {
			levels[l].nets = levels[l-1].nets.contract(levels[l-1].cmap, levels[l].n)
		}
	}
	c := levels[len(levels)-1]

	// The initial partition: recursive bisection of the coarsest graph,
	// each bisection held to ub^(1/ln k) so that the log2 k levels of
	// bisection compound to about ub. For k = 2 that would be looser than
	// ub itself, and an initial imbalance costs cut to repair, especially
	// when whole components sit in one part, so there it is ub.
	where := make([]int32, c.n)
	b := &bisector{r: r, ub: min(ub, math.Pow(ub, 1/math.Log(float64(k)))), tries: tries, ghosts: obj == Volume}
	b.partition(c, k, where, 0)

	// Uncoarsening: at every level, greedy refinement and then FM for the
	// cut, or greedy volume refinement, after rebalancing if half the
	// levels are done and the partition is more than 2% beyond the limit.
	// Balancing works on the cut either way: it is a constraint.
	s := newKwayState(c, k, where, work)
	refine := func() {
		if obj == Volume {
			s.volRefine(refineIters, ub, r)
			return
		}
		s.greedy(refineIters, ub, false, r)
	}
	nlevels := len(levels) - 1
	for l := nlevels; ; l-- {
		if 2*(nlevels-l) >= nlevels && s.imbalance()-ub > 0.02 {
			s.greedy(1, ub, true, r)
		}
		refine()
		if obj == Cut {
			s.fm(cutMoves{s}, fmIters, ub, r)
		}
		if l == 0 {
			break
		}
		s = s.project(levels[l-1])
	}
	if s.imbalance() > ub {
		s.greedy(1, ub, true, r)
		refine()
	}
	if s.imbalance() > ub {
		s.forceBalance(ub * float64(g.tvw) / float64(k))
		refine()
	}
	if obj == Volume && g.n+len(g.adj) <= runWork {
		// Recursive bisection of the graph itself, with ghosts, then
		// volume refinement: the multilevel k-way scheme contracts rows
		// and columns of a matrix's graph into pieces that no longer show
		// that 2-D blocks send less than strips, which recursive
		// bisection with ghosts finds on the uncontracted graph. It costs
		// several times the multilevel run (it coarsens the whole graph
		// for every bisection try), so larger graphs go without.
		where := make([]int32, g.n)
		b.partition(g, k, where, 0)
		f := newKwayState(g, k, where, work)
		f.volRefine(refineIters, ub, r)
		if f.imbalance() > ub {
			f.greedy(1, ub, true, r)
			f.volRefine(refineIters, ub, r)
		}
		if f.betterVolume(newVolState(f).vol, s, newVolState(s).vol, ub) {
			s = f
		}
	}
	return s
}

// pack spreads the vertices of g over k parts by weight alone, heaviest
// first, each to the lightest part (longest processing time first): no
// part ends above the average by more than the heaviest vertex, and with
// unit weights none above ceil(average). The multilevel scheme would get
// there by coarsening and refining a graph with nothing to refine.
func pack(g *Graph, k int, part []int32) {
	order := make([]int32, len(part))
	for v := range order {
		order[v] = int32(v)
	}
	if g.VW != nil {
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(g.VW[b], g.VW[a]) })
	}
	light := newMaxHeap(k) // parts by negated weight: the lightest on top
	pw := make([]int64, k)
	for q := int32(0); int(q) < k; q++ {
		light.insert(q, 0)
	}
	for _, v := range order {
		q := light.vtx[0]
		part[v] = q
		if g.VW != nil {
			pw[q] += g.VW[v]
		} else {
			pw[q]++
		}
		light.update(q, -float64(pw[q]))
	}
}
