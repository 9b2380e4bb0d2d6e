package dperf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// actionNames are the actions of SimGrid's MSG trace replay as dPerf's
// traces use them (examples/msg/actions/actions.c, SimGrid 3.5 to 3.12),
// matched without regard to case: the paper writes Isend and Recv.
var actionNames = []string{
	"allreduce", "barrier", "bcast", "comm_size", "compute", "finalize", "init",
	"irecv", "isend", "recv", "reduce", "send", "sleep", "wait",
}

func isAction(name string) bool {
	_, ok := slices.BinarySearch(actionNames, strings.ToLower(name))
	return ok
}

// usages are the lines each action takes.
var usages = map[string]string{
	"init":      "pRANK init",
	"finalize":  "pRANK finalize",
	"comm_size": "pRANK comm_size N",
	"compute":   "pRANK compute NANOSECONDS",
	"send":      "pRANK send pPEER BYTES",
	"isend":     "pRANK Isend pPEER BYTES",
	"recv":      "pRANK recv pPEER [BYTES]",
	"irecv":     "pRANK Irecv pPEER [BYTES]",
	"wait":      "pRANK wait",
	"barrier":   "pRANK barrier",
	"bcast":     "pRANK bcast BYTES",
	"reduce":    "pRANK reduce BYTES FLOPS",
	"allreduce": "pRANK allReduce BYTES FLOPS",
	"sleep":     "pRANK sleep SECONDS",
}

// ops maps the action names that are MPI calls to their operations.
var ops = map[string]trace.Op{
	"send": trace.Send, "isend": trace.Isend, "recv": trace.Recv, "irecv": trace.Irecv,
	"barrier": trace.Barrier, "bcast": trace.Bcast, "reduce": trace.Reduce, "allreduce": trace.Allreduce,
}

// rankState is what the reader tracks for one rank.
type rankState struct {
	calls    int   // nonblocking calls so far, including completed ones
	irecvs   []int // the call numbers of outstanding Irecvs, oldest first
	commSize int   // the rank's last comm_size, 0 if none yet
	commLine int   // where it was set
}

// parser turns lines into events.
type parser struct {
	n        int
	b        *trace.Builder
	file     string
	states   []*rankState
	sends    map[channel]*sizeQueue // from the survey
	commSize int                    // the trace's first comm_size, 0 if none
	commAt   where
	comms    map[int]int // communicator size -> index in Trace.Comms
}

func (p *parser) state(r int) *rankState {
	if p.states[r] == nil {
		p.states[r] = &rankState{}
	}
	return p.states[r]
}

// errorf reports a problem with field i of l; an i past the last field
// points just after the line's end, where a missing argument would be.
func (p *parser) errorf(l line, i int, format string, args ...any) error {
	return l.Errorf(p.file, i, format, args...)
}

// line reads one line of rank r.
func (p *parser) line(r int, l line) error {
	if len(l.Fields) < 2 {
		return p.errorf(l, 1, "a line needs an action after its rank; expected pRANK ACTION [ARGUMENTS]")
	}
	name := strings.ToLower(l.Fields[1].Text)
	usage, ok := usages[name]
	if !ok {
		return p.errorf(l, 1, "%s is not a dPerf action; known actions (in any case): %s", quote(l.Fields[1].Text), strings.Join(actionNames, ", "))
	}
	st := p.state(r)
	e := trace.Event{Pos: trace.Pos{File: p.file, Line: l.Num}}
	nargs := len(l.Fields) - 2
	switch name {
	case "init", "finalize", "wait", "barrier":
		if err := p.arity(l, 0, 0, usage); err != nil {
			return err
		}
	case "recv", "irecv":
		if err := p.arity(l, 1, 2, usage); err != nil {
			return err
		}
	case "send", "isend", "reduce", "allreduce":
		if err := p.arity(l, 2, 2, usage); err != nil {
			return err
		}
	default:
		if err := p.arity(l, 1, 1, usage); err != nil {
			return err
		}
	}
	switch name {
	case "init":
		e.Op = trace.Init
	case "finalize":
		e.Op = trace.Finalize
	case "comm_size":
		k, ok := parseRankText(l.Fields[2].Text)
		if !ok || k < 1 || k > p.n || strings.HasPrefix(l.Fields[2].Text, "p") {
			return p.errorf(l, 2, "comm_size needs a number of ranks between 1 and %d (the ranks of the trace), found %s; expected %s", p.n, quote(l.Fields[2].Text), usage)
		}
		st.commSize, st.commLine = k, l.Num
		return nil
	case "compute":
		ns, err := p.amount(l, 2, "nanoseconds", usage)
		if err != nil {
			return err
		}
		e.Op, e.Amount = trace.Compute, ns/1000
	case "sleep":
		// A sleep is neither computation nor an MPI call: the model has
		// no event for it.
		_, err := p.amount(l, 2, "seconds", usage)
		return err
	case "send", "isend", "recv", "irecv":
		e.Op = ops[name]
		peer, err := p.peer(l, 2, usage)
		if err != nil {
			return err
		}
		e.Peer, e.TypeSize = peer, 1
		if e.Op.IsRecv() {
			// The size of the message this receive matches: the next
			// one the peer sends this rank.
			e.Count = p.sends[channel{src: peer, dst: r}].pop()
		}
		if e.Op.IsSend() || nargs == 2 {
			if e.Count, err = p.bytes(l, 3, usage); err != nil {
				return err
			}
		}
		if e.Op.IsAsync() {
			st.calls++
			if e.Op == trace.Irecv {
				st.irecvs = append(st.irecvs, st.calls)
			}
		}
	case "wait":
		// MSG's wait pops the rank's most recent Irecv; Isends are
		// never waited for.
		if len(st.irecvs) == 0 {
			return p.errorf(l, 1, "wait with no outstanding Irecv on p%d (a wait completes the most recent Irecv)", r)
		}
		last := st.irecvs[len(st.irecvs)-1]
		st.irecvs = st.irecvs[:len(st.irecvs)-1]
		e.Op, e.Waits = trace.Wait, []int{st.calls - last + 1}
	case "barrier", "bcast", "reduce", "allreduce":
		e.Op = ops[name]
		var err error
		if e.Comm, err = p.comm(l, r, st); err != nil {
			return err
		}
		if name != "barrier" {
			// The root is p0 (MSG's collectives are rooted there); the
			// FLOPS of a reduction has no place in the model.
			e.TypeSize = 1
			if e.Count, err = p.bytes(l, 2, usage); err != nil {
				return err
			}
		}
		if nargs == 2 {
			if _, err := p.amount(l, 3, "flops", usage); err != nil {
				return err
			}
		}
	}
	p.b.Add(r, e)
	return nil
}

// arity checks that l has between min and max arguments after its action.
func (p *parser) arity(l line, min, max int, usage string) error {
	return l.Arity(p.file, min, max, usage)
}

// amount reads a non-negative number (nanoseconds, seconds, flops).
func (p *parser) amount(l line, i int, what, usage string) (float64, error) {
	return l.Amount(p.file, i, what, usage)
}

// bytes reads a message size in bytes, a decimal number (1e9 too), as
// MSG's parse_double does; a fraction is truncated.
func (p *parser) bytes(l line, i int, usage string) (int64, error) {
	v, ok := parseBytes(l.Fields[i].Text)
	if !ok {
		return 0, p.errorf(l, i, "%s needs a size in bytes between 0 and %d, found %s; expected %s", l.Fields[1].Text, int64(maxCount), quote(l.Fields[i].Text), usage)
	}
	return v, nil
}

// parseBytes reads a size in bytes.
func parseBytes(text string) (int64, bool) {
	v, ok := parseFloat(text)
	if !ok || v <= -1 || v >= maxCount+1 {
		return 0, false
	}
	return int64(math.Trunc(v)), true
}

// peer reads the rank of a peer.
func (p *parser) peer(l line, i int, usage string) (int, error) {
	f := l.Fields[i]
	r, ok := parseRankText(f.Text)
	if !ok {
		return 0, p.errorf(l, i, "%s needs a peer rank (p0, p1, ...), found %s; expected %s", l.Fields[1].Text, quote(f.Text), usage)
	}
	if r >= p.n {
		return 0, p.errorf(l, i, "peer p%d is not in the trace, which has ranks p0-p%d; expected %s", r, p.n-1, usage)
	}
	return r, nil
}

// comm returns the communicator of a collective of rank r: ranks p0 to
// pK-1, K being the rank's last comm_size, else the trace's first, else
// every rank. MSG's collectives run over that many processes from p0.
func (p *parser) comm(l line, r int, st *rankState) (int, error) {
	k, from := st.commSize, fmt.Sprintf("comm_size %d at line %d", st.commSize, st.commLine)
	switch {
	case k == 0 && p.commSize > 0:
		k, from = p.commSize, fmt.Sprintf("comm_size %d at %s:%d", p.commSize, p.commAt.file, p.commAt.line)
	case k == 0:
		return 0, nil
	}
	if r >= k {
		return 0, p.errorf(l, 1, "p%d takes part in a %s, but the communicator (%s) holds p0-p%d only", r, l.Fields[1].Text, from, k-1)
	}
	if i, ok := p.comms[k]; ok {
		return i, nil
	}
	members := make([]int, k)
	for i := range members {
		members[i] = i
	}
	p.comms[k] = p.b.Comm(members)
	return p.comms[k], nil
}
