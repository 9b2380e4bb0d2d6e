package interp

import (
	"cmp"
	"slices"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// CollectiveUse says how the collective calls of one statement ran: the
// operation, the algorithm that carried it out (the platform's choice or
// netmodel.Choose's), and how often. A statement whose calls took
// different algorithms (a broadcast swept over message sizes, say) has
// one CollectiveUse per algorithm.
type CollectiveUse struct {
	Span      lang.Span // the statement
	Op        netmodel.Op
	Algorithm netmodel.Algorithm
	Calls     int64 // calls made, each counted once however many tasks took part
	// The smallest and largest message (the vector of a reduction, a
	// rank's block of a gather) and group among the calls.
	MinBytes, MaxBytes int64
	MinRanks, MaxRanks int
}

type collUseKey struct {
	stmt stmtRef
	op   netmodel.Op
	alg  netmodel.Algorithm
}

// noteCollective records a call of spec with algorithm alg by statement
// st. The rank 0 member of each call records it, so a call counts once.
func (s *Sim) noteCollective(st stmtRef, spec *netmodel.Collective, alg netmodel.Algorithm) {
	k := collUseKey{st, spec.Op, alg}
	u := s.collUse[k]
	if u == nil {
		if s.collUse == nil {
			s.collUse = map[collUseKey]*CollectiveUse{}
		}
		u = &CollectiveUse{Span: s.span(st), Op: spec.Op, Algorithm: alg,
			MinBytes: spec.Bytes, MaxBytes: spec.Bytes, MinRanks: spec.N, MaxRanks: spec.N}
		s.collUse[k] = u
	}
	u.Calls++
	u.MinBytes, u.MaxBytes = min(u.MinBytes, spec.Bytes), max(u.MaxBytes, spec.Bytes)
	u.MinRanks, u.MaxRanks = min(u.MinRanks, spec.N), max(u.MaxRanks, spec.N)
}

// collectiveUses lists the recorded uses in source order, then by
// operation and algorithm.
func (s *Sim) collectiveUses() []CollectiveUse {
	var out []CollectiveUse
	for _, u := range s.collUse {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b CollectiveUse) int {
		return cmp.Or(a.Span.Start.Offset-b.Span.Start.Offset, cmp.Compare(a.Op, b.Op), cmp.Compare(a.Algorithm, b.Algorithm))
	})
	return out
}
