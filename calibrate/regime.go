package calibrate

import (
	"math"
	"slices"
)

// Protocol regimes
//
// An MPI's transport prices messages by size in steps and bends: Open
// MPI's shared memory sends up to about 256 B through a per-peer "fast
// box", larger eager messages through its shared FIFO, copied in and out,
// and from 4 KiB a rendezvous whose data the receiver copies once from
// the sender's memory. One set of LogGOPS parameters cannot follow them,
// so the ping-pong curve is cut at S and at its other breakpoints
// (FindBreaks), and each piece, a regime, gets parameters of its own
// (netmodel's [[network.regime]]).

// maxBreaks is the most breakpoints FindBreaks finds on either side of
// S: Open MPI's shared memory has one or two below it.
const maxBreaks = 2

// FindBreaks returns the sizes after which the ping-pong curve changes
// regime, in increasing order: S when found, and on either side of it the
// optimal cuts into pieces each fitted by its own line (relative least
// squares; optimal segmentation by dynamic programming over the sizes).
// For k = 1, ... maxBreaks cuts on a side it takes the best k if they
// leave less than half the loss of the cuts it has, until the lines fit
// within 1% rms; a cut of noise rarely does, a step or a change of slope
// does. Only sizes up to MaxEager are cut, and each piece has minSide
// sizes or more.
func FindBreaks(pts []Point, eager int64, found bool) []int64 {
	pts = sortedBySize(pts)
	sides := [][]Point{pts}
	if found {
		sides = [][]Point{piece(pts, -1, eager), piece(pts, eager, math.MaxInt64)}
	}
	var breaks []int64
	for i, side := range sides {
		if i == 1 {
			breaks = append(breaks, eager)
		}
		// Larger sizes vary too much on a busy machine: they would
		// outweigh every step.
		side = slices.DeleteFunc(side, func(p Point) bool { return p.Size > MaxEager })
		breaks = append(breaks, cuts(side)...)
	}
	return breaks
}

// noiseRMS is the relative residual, root mean square, that cuts leaves
// to noise: no machine times a message more closely.
const noiseRMS = 0.01

// cuts returns the sizes after which pts, sorted, are best cut into
// lines of at least minSide sizes each: the best k cuts for k = 1, ...,
// maxBreaks, each taken over the cuts before if it leaves less than half
// their loss, until the lines fit within noiseRMS.
func cuts(pts []Point) []int64 {
	seg := newSegmenter(pts)
	if seg == nil {
		return nil
	}
	var out []int64
	loss := seg.costs[0][len(pts)-1]
	for k := 1; k <= maxBreaks; k++ {
		ends, l := seg.best(k)
		// Lines within noiseRMS of every point need no more cuts.
		if loss <= float64(len(pts))*noiseRMS*noiseRMS {
			break
		}
		if ends == nil || l >= 0.5*loss {
			continue
		}
		out, loss = out[:0], l
		for _, e := range ends[:k] {
			out = append(out, pts[e].Size)
		}
	}
	return out
}

// segmenter finds the optimal cuts of sorted ping-pong points into pieces
// fitted by lines.
type segmenter struct {
	pts   []Point
	costs [][]float64 // costs[i][j]: the relative loss of the line through pts[i..j]; +Inf where no piece may be
}

func newSegmenter(pts []Point) *segmenter {
	n := len(pts)
	if n < 2*minSide {
		return nil
	}
	s := &segmenter{pts: pts, costs: make([][]float64, n)}
	for i := range n {
		s.costs[i] = make([]float64, n)
		for j := range n {
			s.costs[i][j] = math.Inf(1)
			// A piece has minSide sizes and does not split a size's
			// repeats.
			if j-i+1 < minSide || i > 0 && pts[i-1].Size == pts[i].Size || j+1 < n && pts[j+1].Size == pts[j].Size {
				continue
			}
			if l, err := fitPoints(pts[i : j+1]); err == nil {
				s.costs[i][j] = relLoss(pts[i:j+1], l)
			}
		}
	}
	return s
}

// best returns the last index of each of the k+1 pieces of the least
// total loss, and that loss; nil if no k cuts fit.
func (s *segmenter) best(k int) (ends []int, loss float64) {
	n := len(s.pts)
	// total[m][j]: the least loss of pts[0..j] in m+1 pieces; from[m][j]
	// the last index of its m-th piece.
	total := make([][]float64, k+1)
	from := make([][]int, k+1)
	for m := range total {
		total[m] = make([]float64, n)
		from[m] = make([]int, n)
		for j := range n {
			total[m][j] = math.Inf(1)
			if m == 0 {
				total[0][j] = s.costs[0][j]
				continue
			}
			for i := 1; i <= j; i++ {
				if v := total[m-1][i-1] + s.costs[i][j]; v < total[m][j] {
					total[m][j], from[m][j] = v, i-1
				}
			}
		}
	}
	if math.IsInf(total[k][n-1], 1) {
		return nil, 0
	}
	ends = make([]int, k+1)
	ends[k] = n - 1
	for m := k; m > 0; m-- {
		ends[m-1] = from[m][ends[m]]
	}
	return ends, total[k][n-1]
}

// piece returns the points of sizes in (lo, hi].
func piece(pts []Point, lo, hi int64) []Point {
	var p []Point
	for _, pt := range pts {
		if pt.Size > lo && pt.Size <= hi {
			p = append(p, pt)
		}
	}
	return p
}

// fitPoints fits time = a + (n-1) b to ping-pong points.
func fitPoints(pts []Point) (Line, error) {
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = float64(max(p.Size-1, 0))
	}
	return fitLine(xs, pp2us(pts))
}

// relLoss is the sum of squared relative residuals of the line l over
// ping-pong points.
func relLoss(pts []Point, l Line) float64 {
	var s float64
	for _, p := range pts {
		if p.Us > 0 {
			r := (l.At(float64(max(p.Size-1, 0))) - p.Us) / p.Us
			s += r * r
		}
	}
	return s
}

// Regime is the LogGOPS parameters fitted to the ping-pong sizes of one
// regime, in microseconds and bytes.
type Regime struct {
	UpTo       int64 // the largest size of the regime; math.MaxInt64 for the last
	Rendezvous bool  // its sizes are above S

	L, O, G, Gap float64 // us, us, us/B, us
	// OwnO says whether o was fitted to the overheads of the regime's
	// sizes (eager regimes with at least two of each); otherwise it is
	// the regime's below for a rendezvous, the eager fit's for others.
	OwnO bool
	// OFromPingPong says that o was fitted to the ping-pong with L = 0,
	// the overheads leaving no room for a positive L.
	OFromPingPong bool
	// OwnGap says whether g was fitted to the train periods of the
	// regime's sizes (at least two); otherwise it is the eager fit's.
	OwnGap bool
	// PingPong is the model's quality over the regime's ping-pong sizes.
	PingPong Quality
}

// fitRegimes fits each regime cut by breaks: o from the regime's send and
// receive overheads (eager regimes; a rendezvous send waits for its
// receiver, so rendezvous regimes keep the o of the largest eager
// messages), then L and G by
// relative least squares of its ping-pong sizes with o fixed, where a
// rendezvous pays 3L (request, clear-to-send, data), and g from its train
// periods: a rendezvous message holds the sender's NIC twice, for the
// request and for the data, so its period is 2g + (n-1)G.
func (f *Fit) fitRegimes(d *Data, breaks []int64) error {
	lo := int64(-1)
	for _, hi := range append(slices.Clone(breaks), math.MaxInt64) {
		r := Regime{UpTo: hi, Rendezvous: f.EagerFound && lo >= f.Eager, O: f.O, Gap: f.Gap}
		pts := piece(f.Measured, lo, hi)
		if r.Rendezvous && len(f.Regimes) > 0 {
			r.O = f.Regimes[len(f.Regimes)-1].O
		} else {
			if send, recv, ok := overheadLines(d, lo, hi); ok {
				r.O, r.OwnO = max((send.Intercept+recv.Intercept)/2, 0), true
			}
		}
		hops := 1.0
		if r.Rendezvous {
			hops = 3
		}
		var negL bool
		var err error
		if r.L, r.G, negL, err = fitLG(pts, r.O, hops); err != nil {
			return err
		}
		if negL {
			// The overheads exceed half the ping-pong (tasks that take
			// turns on the processors): L is 0, and o is fitted to the
			// ping-pong instead.
			if o, g, ok := fitOG(pts); ok {
				r.O, r.G, r.OwnO, r.OFromPingPong = o, g, false, true
			}
		}
		var px, py []float64
		for _, p := range f.Periods {
			if p.Size > lo && p.Size <= hi {
				px, py = append(px, float64(max(p.Size-1, 0))), append(py, p.Us)
			}
		}
		if l, err := fitLine(px, py); err == nil && len(px) >= 2 {
			r.Gap, r.OwnGap = max(l.Intercept, 0), true
			if r.Rendezvous {
				r.Gap /= 2
			}
		}
		f.Regimes = append(f.Regimes, r)
		model := make([]float64, len(pts))
		for i, p := range pts {
			model[i] = f.HalfRTT(p.Size)
		}
		f.Regimes[len(f.Regimes)-1].PingPong = quality(pp2us(pts), model)
		lo = hi
	}
	return nil
}

// fitOG fits half-RTT(n) = 2o + (n-1)G to ping-pong points by relative
// least squares; ok is false unless both come out positive.
func fitOG(pts []Point) (o, g float64, ok bool) {
	x := make([][]float64, len(pts))
	for i, p := range pts {
		x[i] = []float64{2, float64(max(p.Size-1, 0))}
	}
	c, err := leastSquares(x, pp2us(pts), relWeights(pp2us(pts)))
	if err != nil || c[0] <= 0 || c[1] < 0 {
		return 0, 0, false
	}
	return c[0], c[1], true
}

// regime returns the regime of n-byte messages, nil if there are none.
func (f *Fit) regime(n int64) *Regime {
	for i := range f.Regimes {
		if n <= f.Regimes[i].UpTo {
			return &f.Regimes[i]
		}
	}
	return nil
}
