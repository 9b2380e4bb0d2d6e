package calibrate

import (
	"math"
	"slices"
)

// Protocol regimes
//
// An MPI's transport prices messages by size in steps: Open MPI's shared
// memory sends up to about 256 B through a per-peer "fast box", larger
// eager messages through its shared FIFO, and from 4 KiB a rendezvous.
// One set of LogGOPS parameters cannot follow the steps, so the ping-pong
// curve is cut at its breakpoints, FindBreaks, and each piece, a regime,
// gets parameters of its own (netmodel's [[network.regime]]).

// maxBreaks is the most breakpoints FindBreaks returns: Open MPI's shared
// memory has two, and a third leaves room for one more step.
const maxBreaks = 3

// minStep is the least step, relative to the curve below it, that
// FindBreaks takes for a change of protocol rather than noise.
const minStep = 0.1

// Break is a size after which the ping-pong curve steps up.
type Break struct {
	After int64   // the last size below the step
	Step  float64 // how much the line above lies over the line below, us
}

// FindBreaks returns the sizes after which the ping-pong curve steps up,
// in increasing order, by binary segmentation: while fewer than maxBreaks
// are found, it cuts the piece (between the breaks so far) whose best cut
// into two lines, each fitted on its own by relative least squares,
// removes the most loss, if the cut removes at least half of what one line
// leaves there and the line above starts at least minStep over the one
// below. Only sizes up to MaxEager are considered, and cuts leave minSide
// sizes on either side. Each break's Step is measured between the lines of its
// neighbouring pieces.
func FindBreaks(pts []Point) []Break {
	// Larger sizes vary too much on a busy machine: they would outweigh
	// every step.
	pts = slices.DeleteFunc(sortedBySize(pts), func(p Point) bool { return p.Size > MaxEager })
	var cuts []int64
	for len(cuts) < maxBreaks {
		bestAt, bestGain := int64(0), 0.0
		lo := int64(-1)
		for _, hi := range append(slices.Clone(cuts), math.MaxInt64) {
			if at, gain, ok := bestSplit(piece(pts, lo, hi)); ok && gain > bestGain {
				bestAt, bestGain = at, gain
			}
			lo = hi
		}
		if bestGain == 0 {
			break
		}
		cuts = append(cuts, bestAt)
		slices.Sort(cuts)
	}
	breaks := make([]Break, len(cuts))
	for i, at := range cuts {
		lo, hi := int64(-1), int64(math.MaxInt64)
		if i > 0 {
			lo = cuts[i-1]
		}
		if i+1 < len(cuts) {
			hi = cuts[i+1]
		}
		below, err1 := fitPoints(piece(pts, lo, at))
		above, err2 := fitPoints(piece(pts, at, hi))
		breaks[i] = Break{After: at}
		if err1 == nil && err2 == nil {
			x := float64(max(nextSize(pts, at)-1, 0))
			breaks[i].Step = above.At(x) - below.At(x)
		}
	}
	return breaks
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

// bestSplit returns the size after which pts, sorted, are best cut into
// two independent lines, and how much of the one line's relative loss the
// cut removes; ok is false if no cut removes half of it with a step up of
// at least minStep.
func bestSplit(pts []Point) (at int64, gain float64, ok bool) {
	whole, err := fitPoints(pts)
	if err != nil {
		return 0, 0, false
	}
	wholeLoss := relLoss(pts, whole)
	for i := minSide - 1; i+minSide < len(pts); i++ {
		if pts[i].Size == pts[i+1].Size {
			continue
		}
		left, err1 := fitPoints(pts[:i+1])
		right, err2 := fitPoints(pts[i+1:])
		if err1 != nil || err2 != nil {
			continue
		}
		x := float64(max(pts[i+1].Size-1, 0))
		below := left.At(x)
		if below <= 0 || right.At(x)/below-1 < minStep {
			continue
		}
		loss := relLoss(pts[:i+1], left) + relLoss(pts[i+1:], right)
		if g := wholeLoss - loss; loss <= 0.5*wholeLoss && g > gain {
			at, gain, ok = pts[i].Size, g, true
		}
	}
	return at, gain, ok
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
func (f *Fit) fitRegimes(d *Data, breaks []Break) error {
	lo := int64(-1)
	bounds := make([]int64, 0, len(breaks)+1)
	for _, b := range breaks {
		bounds = append(bounds, b.After)
	}
	for _, hi := range append(bounds, math.MaxInt64) {
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
		var err error
		if r.L, r.G, _, err = fitLG(pts, r.O, hops); err != nil {
			return err
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

// regime returns the regime of n-byte messages, nil if there are none.
func (f *Fit) regime(n int64) *Regime {
	for i := range f.Regimes {
		if n <= f.Regimes[i].UpTo {
			return &f.Regimes[i]
		}
	}
	return nil
}
