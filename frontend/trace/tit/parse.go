package tit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// form is the generation of the TIT format a trace is written in.
type form uint8

const (
	// newForm is SimGrid 3.20 and later: point-to-point actions carry a
	// tag and wait names the request it completes.
	newForm form = iota
	// oldForm is before SimGrid 3.20 (Isend, waitAll, allReduce, ...): no
	// tags, and wait completes the most recent request.
	oldForm
)

func (f form) String() string {
	if f == oldForm {
		return "the form before SimGrid 3.20"
	}
	return "the current form (SimGrid 3.20 and later)"
}

// SMPI's wildcards (include/smpi/smpi.h) as traces write them. SimGrid's
// tracer writes a receive from MPI_ANY_SOURCE as MPI_UNDEFINED, the world
// rank of no process.
const (
	smpiAnySource = -555
	smpiUndefined = -333
	smpiAnyTag    = -444
)

// actionNames are the actions the reader knows, as SimGrid's current
// replay registers them; names are matched without regard to case, so the
// old spellings (Isend, waitAll, allReduce, ...) are the same actions.
var actionNames = []string{
	"allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "barrier", "bcast",
	"comm_dup", "comm_size", "comm_split", "compute", "exscan", "finalize", "gather", "gatherv",
	"init", "irecv", "isend", "location", "recv", "reduce", "reducescatter", "scan", "scatter",
	"scatterv", "send", "sendrecv", "sleep", "test", "wait", "waitall",
}

func isAction(name string) bool {
	_, ok := slices.BinarySearch(actionNames, strings.ToLower(name))
	return ok
}

// p2pOps and collectiveOps map action names to operations.
var (
	p2pOps        = map[string]trace.Op{"send": trace.Send, "isend": trace.Isend, "recv": trace.Recv, "irecv": trace.Irecv}
	collectiveOps = map[string]trace.Op{
		"reduce": trace.Reduce, "allreduce": trace.Allreduce, "scan": trace.Scan, "exscan": trace.Scan,
		"alltoall": trace.Alltoall, "allgather": trace.Allgather, "gather": trace.Gather, "scatter": trace.Scatter,
	}
)

// rankState is what the reader tracks for one rank.
type rankState struct {
	typeSize int64 // the default datatype's size: 1, or 8 after "init X"
	calls    int   // nonblocking calls so far, including completed ones
	reqs     requests
}

// parser turns lines into events.
type parser struct {
	form    form
	formWhy string // where the trace shows its form, for messages
	n       int
	b       *trace.Builder
	file    string
	states  []*rankState
	cur     *rankState
	curRank int
	usages  map[string]string // by action as spelled, see usage
}

// usage returns the usage line of an action as spelled in the trace,
// making it once.
func (p *parser) usage(action string, build func() string) string {
	u, ok := p.usages[action]
	if !ok {
		u = build()
		p.usages[action] = u
	}
	return u
}

func newParser(n int, f form, why string) *parser {
	return &parser{form: f, formWhy: why, n: n, b: trace.NewBuilder("tit", n, trace.Flops), states: make([]*rankState, n), usages: map[string]string{}}
}

func (p *parser) state(r int) *rankState {
	if p.states[r] == nil {
		p.states[r] = &rankState{typeSize: byteSize}
	}
	return p.states[r]
}

// errorf reports a problem with field i of l; an i past the last field
// points just after the line's end, where a missing argument would be.
func (p *parser) errorf(l line, i int, format string, args ...any) error {
	return l.Errorf(p.file, i, format, args...)
}

// add appends an event of the current rank at line l.
func (p *parser) add(l line, e trace.Event) {
	e.Pos = trace.Pos{File: p.file, Line: l.Num}
	p.b.Add(p.curRank, e)
}

// line reads one line of rank r.
func (p *parser) line(r int, l line) error {
	if len(l.Fields) < 2 {
		return p.errorf(l, 1, "a line needs an action after its rank; expected RANK ACTION [ARGUMENTS]")
	}
	p.curRank, p.cur = r, p.state(r)
	name := strings.ToLower(l.Fields[1].Text)
	nargs := len(l.Fields) - 2
	switch name {
	case "init":
		if err := p.arity(l, 0, 1, "RANK init [DATATYPE]"); err != nil {
			return err
		}
		p.cur.typeSize = byteSize
		if nargs == 1 {
			p.cur.typeSize = doubleSize
		}
		p.add(l, trace.Event{Op: trace.Init})
	case "finalize":
		if err := p.arity(l, 0, 0, "RANK finalize"); err != nil {
			return err
		}
		p.add(l, trace.Event{Op: trace.Finalize})
	case "comm_size", "comm_split", "comm_dup", "location":
		// SimGrid's replay does nothing with these (CommunicatorAction,
		// and LocationAction only annotates its own traces).
	case "compute":
		if err := p.arity(l, 1, 1, "RANK compute FLOPS"); err != nil {
			return err
		}
		flops, err := p.amount(l, 2, "flops", "RANK compute FLOPS")
		if err != nil {
			return err
		}
		p.add(l, trace.Event{Op: trace.Compute, Amount: flops})
	case "sleep":
		// A sleep is neither computation nor an MPI call: the model has
		// no event for it.
		if err := p.arity(l, 1, 1, "RANK sleep SECONDS"); err != nil {
			return err
		}
		if _, err := p.amount(l, 2, "seconds", "RANK sleep SECONDS"); err != nil {
			return err
		}
	case "send", "isend", "recv", "irecv":
		return p.p2p(l, name)
	case "test":
		// MPI_Test may or may not complete its request, which only the
		// replay's timing decides; the request stays outstanding until a
		// wait or waitall completes it.
		if p.form == oldForm {
			return p.arity(l, 0, 0, "RANK test")
		}
		_, err := p.waitKey(l, "RANK test SRC DST TAG")
		return err
	case "wait":
		return p.wait(l)
	case "waitall":
		if err := p.arity(l, 0, 0, "RANK waitall"); err != nil {
			return err
		}
		var ages []int
		for _, q := range p.cur.reqs.popAll() {
			ages = append(ages, p.cur.calls-q.call+1)
		}
		slices.Sort(ages)
		p.add(l, trace.Event{Op: trace.Wait, Waits: ages})
	case "sendrecv":
		return p.sendRecv(l)
	default:
		if isAction(name) {
			return p.collective(l, name)
		}
		return p.errorf(l, 1, "%s is not a TIT action; known actions (in any case): %s", quote(l.Fields[1].Text), strings.Join(actionNames, ", "))
	}
	return nil
}

// arity checks that l has between min and max arguments after its action.
func (p *parser) arity(l line, min, max int, usage string) error {
	return l.Arity(p.file, min, max, usage)
}

// amount reads a non-negative number (flops, seconds).
func (p *parser) amount(l line, i int, what, usage string) (float64, error) {
	return l.Amount(p.file, i, what, usage)
}

// size reads a count as SimGrid's parse_integer does: a decimal number,
// possibly with a fraction or exponent (1e6), truncated.
func (p *parser) size(l line, i int, what, usage string) (int64, error) {
	v, ok := parseFloat(l.Fields[i].Text)
	if !ok || v <= -1 || v >= maxCount+1 {
		return 0, p.errorf(l, i, "%s needs a %s between 0 and %d, found %s; expected %s", l.Fields[1].Text, what, int64(maxCount), quote(l.Fields[i].Text), usage)
	}
	return int64(math.Trunc(v)), nil
}

// count reads one count of a "v" collective, an integer as std::stoi
// reads it.
func (p *parser) count(l line, i int, usage string) (int64, error) {
	v, ok := parseInt32(l.Fields[i].Text)
	if !ok || v < 0 {
		return 0, p.errorf(l, i, "%s needs non-negative integer counts, found %s; expected %s", l.Fields[1].Text, quote(l.Fields[i].Text), usage)
	}
	return int64(v), nil
}

// peer reads the world rank of a peer or root.
func (p *parser) peer(l line, i int, what, usage string) (int, error) {
	f := l.Fields[i]
	r, ok := parseRankText(f.Text)
	if !ok {
		return 0, p.errorf(l, i, "%s needs a %s rank, found %s; expected %s", l.Fields[1].Text, what, quote(f.Text), usage)
	}
	if r >= p.n {
		return 0, p.errorf(l, i, "%s rank %d is not in the trace, which has ranks 0-%d; expected %s", what, r, p.n-1, usage)
	}
	return r, nil
}

// p2p reads send, isend, recv and irecv.
func (p *parser) p2p(l line, name string) error {
	op := p2pOps[name]
	action := l.Fields[1].Text
	args := 3
	if p.form == oldForm {
		args = 2
	}
	usage := p.usage(action, func() string {
		if p.form == oldForm {
			return fmt.Sprintf("RANK %s PEER SIZE [DATATYPE]", action)
		}
		return fmt.Sprintf("RANK %s PEER TAG SIZE [DATATYPE]", action)
	})
	if err := p.arity(l, args, args+1, usage); err != nil {
		return p.withForm(err)
	}
	e := trace.Event{Op: op, TypeSize: p.cur.typeSize}
	// The peer: a rank, or for a receive SMPI's MPI_ANY_SOURCE.
	if v, ok := parseInt32(l.Fields[2].Text); ok && op.IsRecv() && (v == smpiAnySource || v == smpiUndefined) {
		e.Peer = trace.AnySource
	} else {
		peer, err := p.peer(l, 2, "peer", usage)
		if err != nil {
			return err
		}
		e.Peer = peer
	}
	sizeAt := 3
	if p.form == newForm {
		tag, ok := parseInt32(l.Fields[3].Text)
		if !ok {
			return p.errorf(l, 3, "%s needs an integer tag, found %s; expected %s", action, quote(l.Fields[3].Text), usage)
		}
		if tag == smpiAnyTag && op.IsRecv() {
			tag = trace.AnyTag
		}
		e.Tag = tag
		sizeAt = 4
	}
	// A receive of negative size has SimGrid probe for the size of the
	// matching message; the model has no unknown size, so it reads 0.
	if v, ok := parseFloat(l.Fields[sizeAt].Text); ok && v < 0 && op.IsRecv() {
		e.Count = 0
	} else {
		count, err := p.size(l, sizeAt, "size", usage)
		if err != nil {
			return err
		}
		e.Count = count
	}
	if len(l.Fields) > sizeAt+1 {
		ts, err := p.datatypeSize(l, sizeAt+1, usage)
		if err != nil {
			return err
		}
		e.TypeSize = ts
	}
	if op.IsAsync() {
		p.cur.calls++
		key := reqKey{src: p.curRank, dst: e.Peer, tag: e.Tag}
		if op.IsRecv() {
			key = reqKey{src: e.Peer, dst: p.curRank, tag: e.Tag}
		}
		p.cur.reqs.add(&pending{call: p.cur.calls, key: key, op: op, line: l.Num}, p.form == newForm)
	}
	p.add(l, e)
	return nil
}

// withForm adds to an arity error of a point-to-point or wait line which
// form the trace was read in and why, since that decides the arity.
func (p *parser) withForm(err error) error {
	if se, ok := err.(*trace.SyntaxError); ok {
		se.Msg += fmt.Sprintf(" (the trace is read in %s: %s)", p.form, p.formWhy)
	}
	return err
}

// waitKey reads the SRC DST TAG of a current-form wait or test. A negative
// SRC is a receive from any source.
func (p *parser) waitKey(l line, usage string) (reqKey, error) {
	if err := p.arity(l, 3, 3, usage); err != nil {
		return reqKey{}, p.withForm(err)
	}
	var k reqKey
	for i, out := range []*int{&k.src, &k.dst, &k.tag} {
		v, ok := parseInt32(l.Fields[2+i].Text)
		if !ok {
			return reqKey{}, p.errorf(l, 2+i, "%s needs integers SRC DST TAG, found %s; expected %s", l.Fields[1].Text, quote(l.Fields[2+i].Text), usage)
		}
		*out = v
	}
	if k.src < 0 {
		k.src = trace.AnySource
	}
	if k.tag == smpiAnyTag {
		k.tag = trace.AnyTag
	}
	return k, nil
}

// wait reads a wait: in the current form the oldest outstanding request
// filed under SRC DST TAG, in the old form the most recent one.
func (p *parser) wait(l line) error {
	var q *pending
	if p.form == oldForm {
		if err := p.arity(l, 0, 0, "RANK wait"); err != nil {
			return p.withForm(err)
		}
		if q = p.cur.reqs.popLast(); q == nil {
			return p.errorf(l, 1, "wait with no outstanding Isend or Irecv on rank %d", p.curRank)
		}
	} else {
		k, err := p.waitKey(l, "RANK wait SRC DST TAG")
		if err != nil {
			return err
		}
		if q = p.cur.reqs.popKey(k.src, k.dst, k.tag); q == nil {
			return p.errorf(l, 2, "wait %s %s %s completes no request of rank %d: %s", l.Fields[2].Text, l.Fields[3].Text, l.Fields[4].Text, p.curRank, p.cur.reqs.describe())
		}
	}
	p.add(l, trace.Event{Op: trace.Wait, Waits: []int{p.cur.calls - q.call + 1}})
	return nil
}

// sendRecv reads "sendRecv SENDCOUNT DST RECVCOUNT SRC [DT1 [DT2]]" as
// SMPI runs it (Request::sendrecv): an isend and an irecv, both with tag
// 0, then a wait for both.
func (p *parser) sendRecv(l line) error {
	const usage = "RANK sendRecv SENDCOUNT DST RECVCOUNT SRC [DATATYPE1 [DATATYPE2]]"
	if err := p.arity(l, 4, 6, usage); err != nil {
		return err
	}
	sendCount, err := p.size(l, 2, "send count", usage)
	if err != nil {
		return err
	}
	dst, err := p.peer(l, 3, "destination", usage)
	if err != nil {
		return err
	}
	recvCount, err := p.size(l, 4, "receive count", usage)
	if err != nil {
		return err
	}
	src, err := p.peer(l, 5, "source", usage)
	if err != nil {
		return err
	}
	ts1, ts2, err := p.datatypes(l, 6, usage)
	if err != nil {
		return err
	}
	p.add(l, trace.Event{Op: trace.Isend, Peer: dst, Count: sendCount, TypeSize: ts1})
	p.add(l, trace.Event{Op: trace.Irecv, Peer: src, Count: recvCount, TypeSize: ts2})
	p.cur.calls += 2
	p.add(l, trace.Event{Op: trace.Wait, Waits: []int{1, 2}})
	return nil
}

// datatypes reads the optional DATATYPE1 and DATATYPE2 from field i on.
func (p *parser) datatypes(l line, i int, usage string) (ts1, ts2 int64, err error) {
	ts1, ts2 = p.cur.typeSize, p.cur.typeSize
	if i < len(l.Fields) {
		if ts1, err = p.datatypeSize(l, i, usage); err != nil {
			return 0, 0, err
		}
	}
	if i+1 < len(l.Fields) {
		if ts2, err = p.datatypeSize(l, i+1, usage); err != nil {
			return 0, 0, err
		}
	}
	return ts1, ts2, nil
}
