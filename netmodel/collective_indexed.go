package netmodel

import "math/bits"

// Indexed plans. A simulator that evaluates a collective of a million ranks
// round by round (interp's collective evaluator) walks every rank's part a
// step at a time, each rank's steps interleaved with everyone else's, and
// keeps no plan per rank: Planner.Window would replan from the start at
// every step, O(S*S) a rank. StepAt gives any step of the log-depth
// algorithms the default selection picks for small messages in O(1), from
// the same trees and folds their planners use; TestStepAtMatchesPlan checks
// it against Plan for every rank of many sizes.

// Indexed reports whether StepAt covers alg for c: the binomial broadcast
// and reduce, the recursive-doubling allreduce and the dissemination
// barrier, without Sizes.
func Indexed(c Collective, alg Algorithm) bool {
	if c.Sizes != nil {
		return false
	}
	switch c.Op {
	case Bcast, Reduce:
		return alg == "binomial"
	case Allreduce:
		return alg == "recursive_doubling"
	case Barrier:
		return alg == "dissemination"
	}
	return false
}

// StepAt returns step k of rank r's part in c under alg, Plan(c, alg,
// r)[k], and how many steps the part has. c, alg and r must be valid (as
// Plan checks them) and Indexed(c, alg) true; k < total.
func StepAt(c Collective, alg Algorithm, r, k int) (s Step, total int) {
	if c.N < 2 || c.Bytes == 0 && c.Op != Barrier {
		return Step{}, 0
	}
	switch c.Op {
	case Bcast:
		return bcastBinomialStep(c, r, k)
	case Reduce:
		return reduceBinomialStep(c, r, k)
	case Allreduce:
		return allreduceRecursiveDoublingStep(c, r, k)
	}
	// Barrier: dissemination, one exchange per power of two below N.
	m := 1 << k
	return Step{SendTo: (r + m) % c.N, RecvFrom: ((r-m)%c.N + c.N) % c.N}, bits.Len(uint(c.N - 1))
}

// bcastBinomialStep is bcastBinomial's step k: the receive from the parent
// (but at the root), then the sends to the children, farthest first; the
// children are the m below the subtree's span with rel+m < N, which are
// the powers of two up to the smaller of span/2 and N-1-rel.
func bcastBinomialStep(c Collective, r, k int) (Step, int) {
	rel := (r - c.Root + c.N) % c.N
	span := binomialSpan(c.N, rel)
	recv := 0
	if rel != 0 {
		recv = 1
	}
	m0 := 0
	if rel < c.N-1 {
		m0 = min(span/2, collFloorPow2(c.N-1-rel))
	}
	total := recv + bits.Len(uint(m0))
	if k < recv {
		return Step{SendTo: -1, RecvFrom: (rel - span + c.Root) % c.N, RecvBytes: c.Bytes}, total
	}
	m := m0 >> (k - recv)
	return Step{SendTo: (rel + m + c.Root) % c.N, SendBytes: c.Bytes, RecvFrom: -1}, total
}

// reduceBinomialStep is reduceBinomial's step k: the receives from the
// children, nearest first (m = 1, 2, 4, ... while m < span and rel+m <
// N), each combined, then the send to the parent (but at the root).
func reduceBinomialStep(c Collective, r, k int) (Step, int) {
	rel := (r - c.Root + c.N) % c.N
	span := binomialSpan(c.N, rel)
	kids := 0
	if rel < c.N-1 {
		// The m = 2^j with m < span and m <= N-1-rel.
		kids = bits.Len(uint(min(span/2, collFloorPow2(c.N-1-rel))))
	}
	total := kids
	if rel != 0 {
		total++
	}
	if k < kids {
		return Step{SendTo: -1, RecvFrom: (rel + 1<<k + c.Root) % c.N, RecvBytes: c.Bytes, Reduce: c.Bytes}, total
	}
	return Step{SendTo: (rel - span + c.Root) % c.N, SendBytes: c.Bytes, RecvFrom: -1}, total
}

// allreduceRecursiveDoublingStep is allreduceRecursiveDoubling's step k:
// the fold's pre-step for the first 2*rem ranks, the exchanges among the
// survivors, and the fold's post-step.
func allreduceRecursiveDoublingStep(c Collective, r, k int) (Step, int) {
	f := collNewFold(c.N, true)
	n := c.Bytes
	x := f.survivor(r)
	folded := r < 2*f.rem
	if x < 0 {
		// Sits out: hands its vector over, then receives the result.
		if k == 0 {
			return Step{SendTo: r ^ 1, SendBytes: n, RecvFrom: -1}, 2
		}
		return Step{SendTo: -1, RecvFrom: r ^ 1, RecvBytes: n}, 2
	}
	rounds := bits.Len(uint(f.pof2)) - 1
	total := rounds
	if folded {
		total += 2
		if k == 0 {
			return Step{SendTo: -1, RecvFrom: r ^ 1, RecvBytes: n, Reduce: n}, total
		}
		if k == total-1 {
			return Step{SendTo: r ^ 1, SendBytes: n, RecvFrom: -1}, total
		}
		k--
	}
	peer := f.rank(x ^ 1<<k)
	return Step{SendTo: peer, SendBytes: n, RecvFrom: peer, RecvBytes: n, Reduce: n}, total
}
