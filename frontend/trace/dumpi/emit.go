package dumpi

import (
	"regexp"
	"strconv"

	"github.com/parley-hpc/parley/frontend/trace"
)

// dumpi's request handles (dumpi_native_requests in
// dumpi/common/constants.h).
const (
	requestError = 0
	requestNull  = 1
)

// emitter turns one rank's records into events.
type emitter struct {
	b       *trace.Builder
	t       *commTable
	index   map[int]int // communicator → index in the builder's Comms
	rank    int
	file    string
	comms   *rankComms // handles, replayed with the results of resolveComms
	created int        // creating calls replayed so far
	types   *types
	reqs    map[int64]int64 // request handle → number of its nonblocking event
	dropped map[int64]bool  // requests of calls dropped (MPI_PROC_NULL)
	nb      int64           // nonblocking events so far
	last    int64           // walltime the last emitted call returned; -1 before the first
}

// handlers maps the MPI calls that become events.
var handlers = map[string]func(*emitter, call) error{
	"MPI_Init":             (*emitter).init,
	"MPI_Init_thread":      (*emitter).init,
	"MPI_Finalize":         (*emitter).finalize,
	"MPI_Send":             pointToPoint(trace.Send, "dest"),
	"MPI_Bsend":            pointToPoint(trace.Send, "dest"),
	"MPI_Ssend":            pointToPoint(trace.Send, "dest"),
	"MPI_Rsend":            pointToPoint(trace.Send, "dest"),
	"MPI_Isend":            pointToPoint(trace.Isend, "dest"),
	"MPI_Ibsend":           pointToPoint(trace.Isend, "dest"),
	"MPI_Issend":           pointToPoint(trace.Isend, "dest"),
	"MPI_Irsend":           pointToPoint(trace.Isend, "dest"),
	"MPI_Recv":             pointToPoint(trace.Recv, "source"),
	"MPI_Irecv":            pointToPoint(trace.Irecv, "source"),
	"MPI_Sendrecv":         (*emitter).sendrecv,
	"MPI_Sendrecv_replace": (*emitter).sendrecv,
	"MPI_Wait":             (*emitter).wait,
	"MPI_Waitall":          (*emitter).wait,
	"MPI_Waitany":          (*emitter).wait,
	"MPI_Waitsome":         (*emitter).wait,
	"MPI_Test":             (*emitter).wait,
	"MPI_Testall":          (*emitter).wait,
	"MPI_Testany":          (*emitter).wait,
	"MPI_Testsome":         (*emitter).wait,
	"MPI_Request_free":     (*emitter).requestFree,
	"MPI_Barrier":          (*emitter).collective,
	"MPI_Bcast":            (*emitter).collective,
	"MPI_Reduce":           (*emitter).collective,
	"MPI_Allreduce":        (*emitter).collective,
	"MPI_Scan":             (*emitter).collective,
	"MPI_Gather":           (*emitter).collective,
	"MPI_Scatter":          (*emitter).collective,
	"MPI_Allgather":        (*emitter).collective,
	"MPI_Alltoall":         (*emitter).collective,
	"MPI_Gatherv":          (*emitter).vcollective,
	"MPI_Scatterv":         (*emitter).vcollective,
	"MPI_Allgatherv":       (*emitter).vcollective,
	"MPI_Alltoallv":        (*emitter).vcollective,
	"MPI_Reduce_scatter":   (*emitter).vcollective,
}

// unsupported lists calls that move data but have no event; a trace
// holding one is rejected.
var unsupported = map[string]string{
	"MPI_Send_init":  "persistent requests",
	"MPI_Bsend_init": "persistent requests",
	"MPI_Ssend_init": "persistent requests",
	"MPI_Rsend_init": "persistent requests",
	"MPI_Recv_init":  "persistent requests",
	"MPI_Start":      "persistent requests",
	"MPI_Startall":   "persistent requests",
	"MPI_Alltoallw":  "per-member datatypes",
	"MPI_Exscan":     "exclusive scans",
	"MPI_Put":        "one-sided communication",
	"MPI_Get":        "one-sided communication",
	"MPI_Accumulate": "one-sided communication",
}

// movesData matches the names of MPI calls, beyond those dumpi traces
// today, that move data between ranks: nonblocking and persistent
// collectives, matched probes, neighbourhood collectives, one-sided calls.
var movesData = regexp.MustCompile(`(?i)^MPI_(` +
	`[IP]?(b|s|r)?send|[IP]?m?recv|[IP]?sendrecv(_replace)?|` +
	`[IP]?(bcast|barrier|reduce|allreduce|gather|gatherv|scatter|scatterv|allgather|allgatherv|alltoall|alltoallv|alltoallw|reduce_scatter|reduce_scatter_block|scan|exscan)|` +
	`I?neighbor_\w+|R?(put|get|accumulate|get_accumulate)|fetch_and_op|compare_and_swap|start(all)?` +
	`)(_init)?(_c)?$`)

// record turns one record into events.
func (e *emitter) record(c call) error {
	if op, ok, err := commOpOf(c); ok {
		if err != nil {
			return err
		}
		e.replay(&op)
		return nil
	}
	if ok, err := e.types.record(c); ok {
		return err
	}
	if h := handlers[c.name]; h != nil {
		if err := c.wellFormed(); err != nil {
			return err
		}
		return h(e, c)
	}
	if what, ok := unsupported[c.name]; ok {
		return trace.Errorf(c.file, c.line, 1, "%s moves data, but the trace model has no event for it (%s are not supported)", c.name, what)
	}
	if movesData.MatchString(c.name) {
		return trace.Errorf(c.file, c.line, 1, "%s moves data, but the trace model has no event for it", c.name)
	}
	return nil // moves no data: its time becomes part of the next compute
}

// replay applies a communicator call to the rank's handles, with the
// result resolveComms found for it.
func (e *emitter) replay(op *commOp) {
	switch {
	case op.kind == opCommFree:
		delete(e.comms.handles, op.comm)
	case op.kind >= opSplit && e.created < len(e.comms.results):
		e.comms.assign(op, e.comms.results[e.created])
		e.created++
	}
}

// emit adds c's events, preceded by the computation since the last
// emitted call returned.
func (e *emitter) emit(c call, evs ...trace.Event) {
	pos := trace.Pos{File: e.file, Line: c.line}
	if e.last >= 0 && c.enter > e.last {
		e.b.Add(e.rank, trace.Event{Op: trace.Compute, Amount: float64(c.enter-e.last) / 1e3, Pos: pos})
	}
	for _, ev := range evs {
		ev.Pos = pos
		e.b.Add(e.rank, ev)
		if ev.Op.IsAsync() {
			e.nb++
		}
	}
	e.last = c.exit
}

func (e *emitter) init(c call) error {
	e.emit(c, trace.Event{Op: trace.Init})
	return nil
}

func (e *emitter) finalize(c call) error {
	e.emit(c, trace.Event{Op: trace.Finalize})
	return nil
}

// comm returns the members of the communicator parameter name, its index
// in the trace, and this rank's rank in it.
func (e *emitter) comm(c call, name string) (members []int, index, me int, err error) {
	h, label, p, err := c.labelled(name)
	if err != nil {
		return nil, 0, 0, err
	}
	ref := e.comms.comm(e.t, h)
	switch {
	case ref.why != "":
		return nil, 0, 0, c.errorf(p, "%s uses communicator %d (%s), which this reader cannot map to world ranks: %s", c.name, h, label, ref.why)
	case ref.gid < 0:
		return nil, 0, 0, c.errorf(p, "%s on MPI_COMM_NULL: expected a communicator", c.name)
	}
	members = e.t.members[ref.gid]
	me = e.t.rankIn(ref.gid, e.rank)
	if me < 0 {
		return nil, 0, 0, c.errorf(p, "%s on communicator %d, which does not hold rank %d", c.name, h, e.rank)
	}
	index, ok := e.index[ref.gid]
	if !ok {
		index = e.b.Comm(members)
		e.index[ref.gid] = index
	}
	return members, index, me, nil
}

// data reads a count parameter and the datatype parameter that goes with
// it, returning the count and the size in bytes of one element.
func (e *emitter) data(c call, count, datatype string) (int64, int64, error) {
	n, err := c.count(count)
	if err != nil {
		return 0, 0, err
	}
	size, err := e.typeSize(c, datatype, n)
	return n, size, err
}

// typeSize returns the size of the datatype parameter that counts n
// elements; the datatype of no elements need not be known.
func (e *emitter) typeSize(c call, datatype string, n int64) (int64, error) {
	num, label, p, err := c.labelled(datatype)
	if err != nil || n == 0 {
		return 0, err
	}
	if label == "MPI_DATATYPE_NULL" || label == "MPI_DATATYPE_ERROR" {
		return 0, c.errorf(p, "%s moves %d elements of %s: expected a datatype", c.name, n, label)
	}
	size, err := e.types.size(num, label)
	if err != nil {
		return 0, c.errorf(p, "%s: %v", c.name, err)
	}
	if size > 0 && n > maxMessage/size {
		return 0, c.errorf(p, "%s moves %d elements of %d bytes, more than %d bytes in all", c.name, n, size, int64(maxMessage))
	}
	return size, nil
}

// maxMessage bounds the bytes one call moves (1 PiB), so that sizes never
// overflow.
const maxMessage = 1 << 50

// peer maps the dest or source parameter to a world rank; drop is true for
// MPI_PROC_NULL. A source of -1 is MPI_ANY_SOURCE (dumpi maps it so).
func (e *emitter) peer(c call, name string, members []int, recv bool) (peer int, drop bool, err error) {
	v, _, p, err := c.labelled(name)
	switch {
	case err != nil:
		return 0, false, err
	case recv && v == -1:
		return trace.AnySource, false, nil
	case v < 0:
		// MPI_PROC_NULL passes through dumpi unchanged: -2 in Open MPI
		// (printed "(MPI_ROOT)"), -1 in MPICH.
		return 0, true, nil
	case v >= int64(len(members)):
		return 0, false, c.errorf(p, "%s=%d is outside the communicator of %s", name, v, ranks(len(members)))
	}
	return members[v], false, nil
}

// tag reads a tag; a receive's -1 is MPI_ANY_TAG.
func tag(c call, name string, recv bool) (int, error) {
	v, p, err := c.int(name)
	switch {
	case err != nil:
		return 0, err
	case recv && v == -1:
		return trace.AnyTag, nil
	case v < 0:
		return 0, c.errorf(p, "%s=%d is negative: expected a tag of zero or more", name, v)
	}
	return int(v), nil
}

// request reads the request handle a nonblocking call returns.
func request(c call) (int64, error) {
	v, p, err := c.ints("request", 1)
	switch {
	case err != nil:
		return 0, err
	case v == nil:
		return 0, c.errorf(p, "%s request=<IGNORED>: the trace does not record request handles, so waits cannot be matched to calls", c.name)
	}
	return v[0], nil
}

// p2p reads one side of a point-to-point call.
func (e *emitter) p2p(c call, op trace.Op, count, datatype, peer, tagName string) (ev trace.Event, drop bool, err error) {
	ev.Op = op
	members, _, _, err := e.comm(c, "comm")
	if err != nil {
		return ev, false, err
	}
	if ev.Peer, drop, err = e.peer(c, peer, members, op.IsRecv()); err != nil || drop {
		return ev, drop, err
	}
	if ev.Tag, err = tag(c, tagName, op.IsRecv()); err != nil {
		return ev, false, err
	}
	ev.Count, ev.TypeSize, err = e.data(c, count, datatype)
	return ev, false, err
}

// pointToPoint returns the handler of a send (peer "dest") or receive
// (peer "source") that becomes op.
func pointToPoint(op trace.Op, peer string) func(*emitter, call) error {
	return func(e *emitter, c call) error { return e.pointToPoint(c, op, peer) }
}

func (e *emitter) pointToPoint(c call, op trace.Op, peer string) error {
	async := op.IsAsync()
	ev, drop, err := e.p2p(c, op, "count", "datatype", peer, "tag")
	if err != nil {
		return err
	}
	var h int64
	if async {
		if h, err = request(c); err != nil {
			return err
		}
	}
	if drop {
		if async {
			delete(e.reqs, h)
			e.dropped[h] = true
		}
		return nil
	}
	e.emit(c, ev)
	if async {
		delete(e.dropped, h)
		e.reqs[h] = e.nb
	}
	return nil
}

// sendrecv handles MPI_Sendrecv and MPI_Sendrecv_replace as an Isend, an
// Irecv and a Wait on both, which is how MPI defines them: a pair of
// ranks exchanging with blocking Send and Recv would deadlock where
// Sendrecv does not.
func (e *emitter) sendrecv(c call) error {
	sc, st, rc, rt := "sendcount", "sendtype", "recvcount", "recvtype"
	if c.name == "MPI_Sendrecv_replace" {
		sc, st, rc, rt = "count", "datatype", "count", "datatype"
	}
	s, sdrop, err := e.p2p(c, trace.Isend, sc, st, "dest", "sendtag")
	if err != nil {
		return err
	}
	r, rdrop, err := e.p2p(c, trace.Irecv, rc, rt, "source", "recvtag")
	if err != nil {
		return err
	}
	switch {
	case sdrop && rdrop:
		return nil
	case sdrop:
		r.Op = trace.Recv
		e.emit(c, r)
	case rdrop:
		s.Op = trace.Send
		e.emit(c, s)
	default:
		e.emit(c, s, r, trace.Event{Op: trace.Wait, Waits: []int{1, 2}})
	}
	return nil
}

// wait handles the MPI_Wait and MPI_Test families: a Test that completes
// requests is a Wait on them; one that completes none moves no data.
func (e *emitter) wait(c call) error {
	var (
		handles []int64
		p       *param
		err     error
		none    bool // the call completes no request
	)
	// one picks the request index i completed; MPI_UNDEFINED (negative)
	// says none was active.
	one := func(i int64, q *param) error {
		switch {
		case i < 0:
			handles, none = nil, true
		case handles == nil:
		case i >= int64(len(handles)):
			return c.errorf(q, "index=%d is outside the %d requests", i, len(handles))
		default:
			handles = handles[i : i+1]
		}
		return nil
	}
	if c.name == "MPI_Test" || c.name == "MPI_Testall" || c.name == "MPI_Testany" {
		flag, _, err := c.int("flag")
		if err != nil {
			return err
		}
		if flag == 0 {
			return nil
		}
	}
	switch c.name {
	case "MPI_Wait", "MPI_Test":
		handles, p, err = c.ints("request", 1)
	default:
		var n int64
		if n, err = c.count("count"); err != nil {
			return err
		}
		if handles, p, err = c.ints("requests", int(min(n, maxArray+1))); err != nil {
			return err
		}
		switch c.name {
		case "MPI_Waitany", "MPI_Testany":
			i, q, err := c.int("index")
			if err != nil {
				return err
			}
			if err := one(i, q); err != nil {
				return err
			}
		case "MPI_Waitsome", "MPI_Testsome":
			var out int64
			var idx []int64
			var q *param
			if out, q, err = c.int("outcount"); err != nil || out <= 0 {
				handles, none = nil, true
				break
			}
			if out > n {
				return c.errorf(q, "outcount=%d exceeds count=%d", out, n)
			}
			if idx, q, err = c.ints("indices", int(out)); err != nil {
				return err
			}
			if idx == nil {
				return c.errorf(q, "%s indices=<IGNORED>: expected the indices of the %d completed requests", c.name, out)
			}
			if handles != nil {
				picked := make([]int64, 0, len(idx))
				for _, i := range idx {
					if i < 0 || i >= int64(len(handles)) {
						return c.errorf(q, "index %d is outside the %d requests", i, len(handles))
					}
					picked = append(picked, handles[i])
				}
				handles = picked
			}
		}
	}
	if err != nil {
		return err
	}
	if handles == nil && p.value == "<IGNORED>" && !none {
		return c.errorf(p, "%s %s=<IGNORED>: the trace does not record request handles, so waits cannot be matched to calls", c.name, p.name)
	}
	var waits []int
	for _, h := range handles {
		if h == requestNull || h == requestError {
			continue
		}
		if e.dropped[h] {
			delete(e.dropped, h)
			continue
		}
		seq, ok := e.reqs[h]
		if !ok {
			return c.errorf(p, "%s completes request %d, which no earlier nonblocking call of rank %d returned (or which completed already)", c.name, h, e.rank)
		}
		delete(e.reqs, h)
		waits = append(waits, int(e.nb-seq+1))
	}
	if len(waits) > 0 {
		e.emit(c, trace.Event{Op: trace.Wait, Waits: waits})
	}
	return nil
}

// requestFree forgets a request that will never be waited for.
func (e *emitter) requestFree(c call) error {
	h, _, err := c.ints("request", 1)
	if err != nil {
		return err
	}
	for _, r := range h {
		delete(e.reqs, r)
		delete(e.dropped, r)
	}
	return nil
}

var collectiveOps = map[string]trace.Op{
	"MPI_Barrier":        trace.Barrier,
	"MPI_Bcast":          trace.Bcast,
	"MPI_Reduce":         trace.Reduce,
	"MPI_Allreduce":      trace.Allreduce,
	"MPI_Scan":           trace.Scan,
	"MPI_Gather":         trace.Gather,
	"MPI_Scatter":        trace.Scatter,
	"MPI_Allgather":      trace.Allgather,
	"MPI_Alltoall":       trace.Alltoall,
	"MPI_Gatherv":        trace.Gatherv,
	"MPI_Scatterv":       trace.Scatterv,
	"MPI_Allgatherv":     trace.Allgatherv,
	"MPI_Alltoallv":      trace.Alltoallv,
	"MPI_Reduce_scatter": trace.ReduceScatter,
}

// root reads the root parameter as a world rank and reports whether this
// rank is it.
func (e *emitter) root(c call, members []int, me int) (int, bool, error) {
	v, p, err := c.int("root")
	if err != nil {
		return 0, false, err
	}
	if v < 0 || v >= int64(len(members)) {
		return 0, false, c.errorf(p, "root=%d is outside the communicator of %s (intercommunicators are not supported)", v, ranks(len(members)))
	}
	return members[v], int(v) == me, nil
}

// collective handles the collectives with one count.
func (e *emitter) collective(c call) error {
	ev := trace.Event{Op: collectiveOps[c.name]}
	members, index, me, err := e.comm(c, "comm")
	if err != nil {
		return err
	}
	ev.Comm = index
	isRoot := false
	if ev.Op.IsRooted() {
		if ev.Root, isRoot, err = e.root(c, members, me); err != nil {
			return err
		}
	}
	switch c.name {
	case "MPI_Barrier":
	case "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Scan":
		ev.Count, ev.TypeSize, err = e.data(c, "count", "datatype")
	case "MPI_Gather":
		// The root's recvcount is what each member sends; the other
		// members' recv arguments are not significant.
		if isRoot {
			ev.Count, ev.TypeSize, err = e.data(c, "recvcount", "recvtype")
		} else {
			ev.Count, ev.TypeSize, err = e.data(c, "sendcount", "sendtype")
		}
	case "MPI_Scatter":
		if isRoot {
			ev.Count, ev.TypeSize, err = e.data(c, "sendcount", "sendtype")
		} else {
			ev.Count, ev.TypeSize, err = e.data(c, "recvcount", "recvtype")
		}
	case "MPI_Allgather", "MPI_Alltoall":
		// recvcount is significant even with MPI_IN_PLACE.
		ev.Count, ev.TypeSize, err = e.data(c, "recvcount", "recvtype")
	}
	if err != nil {
		return err
	}
	e.emit(c, ev)
	return nil
}

// vcollective handles the collectives with per-member counts.
func (e *emitter) vcollective(c call) error {
	ev := trace.Event{Op: collectiveOps[c.name]}
	members, index, me, err := e.comm(c, "comm")
	if err != nil {
		return err
	}
	ev.Comm = index
	size, p, err := c.int("commsize")
	if err != nil {
		return err
	}
	if size != int64(len(members)) {
		return c.errorf(p, "commsize=%d, but the communicator has %s", size, ranks(len(members)))
	}
	isRoot := false
	if ev.Op.IsRooted() {
		if ev.Root, isRoot, err = e.root(c, members, me); err != nil {
			return err
		}
	}
	// counts reads the per-member counts and the datatype they count.
	counts := func(name, datatype string) error {
		v, q, err := c.ints(name, len(members))
		if err != nil {
			return err
		}
		if v == nil {
			return c.errorf(q, "%s %s=<IGNORED>: expected the %d counts", c.name, name, len(members))
		}
		var sum int64
		for _, x := range v {
			if x < 0 {
				return c.errorf(q, "%s holds the negative count %d", name, x)
			}
			sum += x
		}
		if ev.TypeSize, err = e.typeSize(c, datatype, sum); err != nil {
			return err
		}
		ev.Counts, ev.Count = v, sum
		return nil
	}
	switch c.name {
	case "MPI_Gatherv":
		if isRoot {
			if err = counts("recvcounts", "recvtype"); err == nil {
				ev.Count = ev.Counts[me]
			}
		} else {
			ev.Count, ev.TypeSize, err = e.data(c, "sendcount", "sendtype")
		}
	case "MPI_Scatterv":
		if isRoot {
			if err = counts("sendcounts", "sendtype"); err == nil {
				ev.Count = ev.Counts[me]
			}
		} else {
			ev.Count, ev.TypeSize, err = e.data(c, "recvcount", "recvtype")
		}
	case "MPI_Allgatherv":
		if err = counts("recvcounts", "recvtype"); err == nil {
			ev.Count = ev.Counts[me]
		}
	case "MPI_Alltoallv":
		err = counts("sendcounts", "sendtype")
	case "MPI_Reduce_scatter":
		err = counts("recvcounts", "datatype")
	}
	if err != nil {
		return err
	}
	e.emit(c, ev)
	return nil
}

// ranks says "1 rank" or "n ranks".
func ranks(n int) string {
	if n == 1 {
		return "1 rank"
	}
	return strconv.Itoa(n) + " ranks"
}
