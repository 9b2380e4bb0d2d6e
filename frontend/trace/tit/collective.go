package tit

import (
	"fmt"

	"github.com/parley-hpc/parley/frontend/trace"
)

// collective reads the collectives. Every collective of a replayed trace
// is over MPI_COMM_WORLD (Comm 0); roots are world ranks. The grammar is
// the current one (smpi_replay.cpp's *ArgParser classes), which the old
// form shares but for the spelling of the names.
func (p *parser) collective(l line, name string) error {
	action := l.Fields[1].Text
	nargs := len(l.Fields) - 2
	e := trace.Event{TypeSize: p.cur.typeSize}
	switch name {
	case "barrier":
		if err := p.arity(l, 0, 0, "RANK barrier"); err != nil {
			return err
		}
		e.Op = trace.Barrier

	case "bcast":
		usage := p.usage(action, func() string { return fmt.Sprintf("RANK %s SIZE [ROOT [DATATYPE]]", action) })
		if err := p.arity(l, 1, 3, usage); err != nil {
			return err
		}
		e.Op = trace.Bcast
		if err := p.rooted(l, &e, 3, 4, usage); err != nil {
			return err
		}

	case "reduce", "allreduce", "scan", "exscan":
		// COMP, the flops of the combining, which SimGrid runs after the
		// collective, has no place in the model: it is checked and dropped.
		e.Op = collectiveOps[name]
		usage := p.usage(action, func() string {
			if e.Op == trace.Reduce {
				return fmt.Sprintf("RANK %s SIZE COMP [ROOT [DATATYPE]]", action)
			}
			return fmt.Sprintf("RANK %s SIZE COMP [DATATYPE]", action)
		})
		if e.Op == trace.Reduce {
			if err := p.arity(l, 2, 4, usage); err != nil {
				return err
			}
			if err := p.rooted(l, &e, 4, 5, usage); err != nil {
				return err
			}
		} else {
			if err := p.arity(l, 2, 3, usage); err != nil {
				return err
			}
			var err error
			if e.Count, err = p.size(l, 2, "size", usage); err != nil {
				return err
			}
			if nargs == 3 {
				if e.TypeSize, err = p.datatypeSize(l, 4, usage); err != nil {
					return err
				}
			}
		}
		if _, err := p.amount(l, 3, "flops", usage); err != nil {
			return err
		}

	case "alltoall", "allgather", "gather", "scatter":
		// SEND is what each member sends (to each member for alltoall and
		// scatter, to the root for gather); RECV is its mirror.
		e.Op = collectiveOps[name]
		usage := p.usage(action, func() string {
			if e.Op.IsRooted() {
				return fmt.Sprintf("RANK %s SEND RECV [ROOT [DATATYPE1 [DATATYPE2]]]", action)
			}
			return fmt.Sprintf("RANK %s SEND RECV [DATATYPE1 [DATATYPE2]]", action)
		})
		dtAt := 4
		if e.Op.IsRooted() {
			dtAt = 5
		}
		if err := p.arity(l, 2, dtAt, usage); err != nil {
			return err
		}
		var err error
		if e.Count, err = p.size(l, 2, "send count", usage); err != nil {
			return err
		}
		if _, err = p.size(l, 3, "receive count", usage); err != nil {
			return err
		}
		if e.Op.IsRooted() && nargs >= 3 {
			if e.Root, err = p.peer(l, 4, "root", usage); err != nil {
				return err
			}
		}
		if e.TypeSize, _, err = p.datatypes(l, dtAt, usage); err != nil {
			return err
		}

	case "gatherv", "allgatherv":
		return p.gatherv(l, name)
	case "scatterv":
		return p.scatterv(l)
	case "alltoallv":
		return p.alltoallv(l)
	case "reducescatter":
		return p.reduceScatter(l)
	}
	p.add(l, e)
	return nil
}

// rooted reads SIZE [ROOT [DATATYPE]] with ROOT at field rootAt and the
// datatype at dtAt.
func (p *parser) rooted(l line, e *trace.Event, rootAt, dtAt int, usage string) error {
	var err error
	if e.Count, err = p.size(l, 2, "size", usage); err != nil {
		return err
	}
	if rootAt < len(l.Fields) {
		if e.Root, err = p.peer(l, rootAt, "root", usage); err != nil {
			return err
		}
	}
	if dtAt < len(l.Fields) {
		if e.TypeSize, err = p.datatypeSize(l, dtAt, usage); err != nil {
			return err
		}
	}
	return nil
}

// listUsage writes n numbered words: "R0", "R0 R1", "R0 ... R7".
func listUsage(word string, n int) string {
	switch n {
	case 1:
		return word + "0"
	case 2:
		return word + "0 " + word + "1"
	}
	return fmt.Sprintf("%s0 ... %s%d", word, word, n-1)
}

// counts reads n counts from field i on.
func (p *parser) counts(l line, i, n int, usage string) ([]int64, int64, error) {
	out := make([]int64, n)
	var sum int64
	for k := range out {
		c, err := p.count(l, i+k, usage)
		if err != nil {
			return nil, 0, err
		}
		out[k] = c
		sum += c
	}
	if sum > maxCount {
		return nil, 0, p.errorf(l, i, "%s counts add up to more than %d", l.Fields[1].Text, int64(maxCount))
	}
	return out, sum, nil
}

// inUnits expresses count (of ts1-byte elements) and counts (of ts2-byte
// ones) in one unit: the common size if they agree, else bytes.
func inUnits(count, ts1 int64, counts []int64, ts2 int64) (int64, []int64, int64) {
	if ts1 == ts2 {
		return count, counts, ts1
	}
	for i := range counts {
		counts[i] *= ts2
	}
	return count * ts1, counts, 1
}

// gatherv reads "gatherv SEND R0..RN-1 [ROOT [DT1 [DT2]]]" and
// "allgatherv SEND R0..RN-1 [DT1 DT2] [D0..DN-1]": Count is what this
// member sends, Counts what each member sends as the receivers count it.
func (p *parser) gatherv(l line, name string) error {
	action := l.Fields[1].Text
	n := p.n
	e := trace.Event{Op: trace.Gatherv}
	usage := p.usage(action, func() string {
		if name == "allgatherv" {
			return fmt.Sprintf("RANK %s SEND %s [DATATYPE1 DATATYPE2] [%s] (one count and displacement per rank)", action, listUsage("R", n), listUsage("D", n))
		}
		return fmt.Sprintf("RANK %s SEND %s [ROOT [DATATYPE1 [DATATYPE2]]] (one count per rank)", action, listUsage("R", n))
	})
	rootAt, dtAt, dispAt := -1, 4+n, -1
	extra := len(l.Fields) - 3 - n // fields after the counts
	if name == "allgatherv" {
		e.Op = trace.Allgatherv
		if err := p.arity(l, 1+n, 3+2*n, usage); err != nil {
			return err
		}
		// SimGrid tells the optional parts apart by their number
		// (GatherVArgParser): both datatypes and the displacements, the
		// displacements alone, or up to two datatypes.
		switch {
		case extra == n+2:
			dtAt, dispAt = 3+n, 5+n
		case extra == n && n > 2:
			dtAt, dispAt = -1, 3+n
		case extra <= 2:
			dtAt = 3 + n
		default:
			return p.errorf(l, 3+n, "%s has %d fields after its %d counts; expected %s", action, extra, n, usage)
		}
	} else {
		if err := p.arity(l, 1+n, 4+n, usage); err != nil {
			return err
		}
		if extra > 0 {
			rootAt = 3 + n
		}
	}
	send, err := p.size(l, 2, "send count", usage)
	if err != nil {
		return err
	}
	counts, _, err := p.counts(l, 3, n, usage)
	if err != nil {
		return err
	}
	if rootAt >= 0 {
		if e.Root, err = p.peer(l, rootAt, "root", usage); err != nil {
			return err
		}
	}
	ts1, ts2 := p.cur.typeSize, p.cur.typeSize
	if dtAt >= 0 {
		if ts1, ts2, err = p.datatypes(l, dtAt, usage); err != nil {
			return err
		}
	}
	if dispAt >= 0 {
		// Displacements say where blocks land, not how big they are.
		for i := dispAt; i < dispAt+n; i++ {
			if _, err := p.count(l, i, usage); err != nil {
				return err
			}
		}
	}
	e.Count, e.Counts, e.TypeSize = inUnits(send, ts1, counts, ts2)
	p.add(l, e)
	return nil
}

// scatterv reads "scatterv S0..SN-1 RECV [ROOT [DT1 [DT2]]]": Counts are
// what the root sends each member, Count what this member receives.
func (p *parser) scatterv(l line) error {
	n := p.n
	usage := p.usage(l.Fields[1].Text, func() string {
		return fmt.Sprintf("RANK %s %s RECV [ROOT [DATATYPE1 [DATATYPE2]]] (one count per rank)", l.Fields[1].Text, listUsage("S", n))
	})
	if err := p.arity(l, n+1, n+4, usage); err != nil {
		return err
	}
	counts, _, err := p.counts(l, 2, n, usage)
	if err != nil {
		return err
	}
	recv, err := p.size(l, 2+n, "receive count", usage)
	if err != nil {
		return err
	}
	e := trace.Event{Op: trace.Scatterv}
	if 3+n < len(l.Fields) {
		if e.Root, err = p.peer(l, 3+n, "root", usage); err != nil {
			return err
		}
	}
	ts1, ts2, err := p.datatypes(l, 4+n, usage)
	if err != nil {
		return err
	}
	e.Count, e.Counts, e.TypeSize = inUnits(recv, ts2, counts, ts1)
	p.add(l, e)
	return nil
}

// alltoallv reads "alltoallv SENDBUF S0..SN-1 RECVBUF R0..RN-1 [DT1
// [DT2]]": Counts are what this member sends each member and Count their
// sum; the receive counts mirror the other members' send counts.
func (p *parser) alltoallv(l line) error {
	n := p.n
	usage := p.usage(l.Fields[1].Text, func() string {
		return fmt.Sprintf("RANK %s SENDBUF %s RECVBUF %s [DATATYPE1 [DATATYPE2]] (one count per rank each way)", l.Fields[1].Text, listUsage("S", n), listUsage("R", n))
	})
	if err := p.arity(l, 2*n+2, 2*n+4, usage); err != nil {
		return err
	}
	if _, err := p.size(l, 2, "send buffer size", usage); err != nil {
		return err
	}
	counts, sum, err := p.counts(l, 3, n, usage)
	if err != nil {
		return err
	}
	if _, err := p.size(l, 3+n, "receive buffer size", usage); err != nil {
		return err
	}
	if _, _, err := p.counts(l, 4+n, n, usage); err != nil {
		return err
	}
	ts1, _, err := p.datatypes(l, 4+2*n, usage)
	if err != nil {
		return err
	}
	p.add(l, trace.Event{Op: trace.Alltoallv, Count: sum, Counts: counts, TypeSize: ts1})
	return nil
}

// reduceScatter reads "reducescatter R0..RN-1 COMP [DT]": Counts are the
// block each member receives, Count the whole vector each contributes.
func (p *parser) reduceScatter(l line) error {
	n := p.n
	usage := p.usage(l.Fields[1].Text, func() string {
		return fmt.Sprintf("RANK %s %s COMP [DATATYPE] (one count per rank)", l.Fields[1].Text, listUsage("R", n))
	})
	if err := p.arity(l, n+1, n+2, usage); err != nil {
		return err
	}
	counts, sum, err := p.counts(l, 2, n, usage)
	if err != nil {
		return err
	}
	if _, err := p.amount(l, 2+n, "flops", usage); err != nil {
		return err
	}
	ts := p.cur.typeSize
	if 3+n < len(l.Fields) {
		if ts, err = p.datatypeSize(l, 3+n, usage); err != nil {
			return err
		}
	}
	p.add(l, trace.Event{Op: trace.ReduceScatter, Count: sum, Counts: counts, TypeSize: ts})
	return nil
}
