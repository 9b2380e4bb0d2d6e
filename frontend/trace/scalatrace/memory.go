package scalatrace

import (
	"github.com/parley-hpc/parley/internal/memlimit"
)

// Building the trace costs about rankBytes a rank (its place in the trace
// and in the lists the builder keeps) and callBytes each time a record
// names a rank (the rank's call site, its events and the computation
// before it, and the record's place in the rank's list), and listBytes a
// rank for the member lists of the records and parameter values. Measured:
// 115 bytes a pair for calls alone, 357 with the computation before them.
const (
	rankBytes = 64
	callBytes = 400
	listBytes = 4
)

// checkMemory refuses, before any rank's calls are built, a trace whose
// estimate passes the limit, naming the record at which it does.
func (b *builder) checkMemory(opts Options) error {
	limit := memlimit.Or(opts.MaxMemory)
	est := rankBytes * int64(b.n)
	calls := int64(0)
	lists := func(gs []values) {
		for _, g := range gs {
			est += listBytes * g.ranks.size()
		}
	}
	for _, rec := range b.recs {
		n := rec.ranks.size()
		calls += n
		est += (callBytes + listBytes) * n
		for _, gs := range rec.params {
			lists(gs)
		}
		for _, l := range rec.loops {
			lists(l.iter)
			lists(l.mem)
		}
		if est > limit {
			return b.errorf(rec.line, 1, "the trace has %d ranks, and its records up to this one make %d calls on them: building those would take more than %s of memory, over %s; read a smaller trace",
				b.n, calls, memlimit.Format(est), memlimit.Describe(opts.MaxMemory))
		}
	}
	return nil
}
