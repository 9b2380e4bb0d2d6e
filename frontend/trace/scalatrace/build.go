package scalatrace

import (
	"bytes"
	"io"
	"os"

	"github.com/parley-hpc/parley/frontend/trace"
)

// Parameter codes (paramtypes.tsv, hex as in traces).
const (
	pArrayOfRequests = 0x0c
	pComm            = 0x10
	pCount           = 0x12
	pDatatype        = 0x14
	pRoot            = 0x19
	pDest            = 0x1a
	pTag             = 0x1b
	pRequest         = 0x1c
	pSource          = 0x2b
)

const (
	// ringSize is the tracer's request ring: offset 9999 is the newest.
	ringSize = 10000
	// storedAnySource is MPI_ANY_SOURCE as the tracer writes it (INT_MAX).
	storedAnySource = 2147483647
	// maxCycle bounds a record's parameter cycle, the least common
	// multiple of its value lists' periods.
	maxCycle = 1 << 16
	// maxEvents bounds one rank's expanded calls, so that a damaged loop
	// count is refused instead of making later passes run for ever.
	maxEvents = 1 << 32
)

// typeSizes are the tracer's built-in datatype codes (datatypes.tsv).
var typeSizes = map[int64]int64{
	1: 1, 2: 2, 3: 4, 4: 8, 5: 1, 6: 2, 7: 4, 8: 8, 9: 4, 10: 8,
	11: 16, 12: 1, 13: 1, 14: 4, 15: 4, 16: 8, 17: 8, 18: 16, 19: 4,
}

// opcodes maps the MPI functions the reader understands to operations.
var opcodes = map[int]trace.Op{
	1084: trace.Init, 1045: trace.Finalize,
	1113: trace.Send, 1117: trace.Send, 1108: trace.Send, 1012: trace.Send,
	1092: trace.Isend, 1093: trace.Isend, 1091: trace.Isend, 1072: trace.Isend,
	1102: trace.Recv, 1090: trace.Irecv,
	1148: trace.Wait, 1149: trace.Wait,
	1010: trace.Barrier, 1011: trace.Bcast, 1104: trace.Reduce, 1004: trace.Allreduce,
	1110: trace.Scan, 1047: trace.Gather, 1111: trace.Scatter, 1002: trace.Allgather,
	1005: trace.Alltoall,
}

// passive lists the MPI functions that move no data and take no part in
// matching: their records count in loop bodies but produce no event.
var passive = map[int]string{
	1001: "MPI_Address", 1007: "MPI_Attr_delete", 1008: "MPI_Attr_get", 1009: "MPI_Attr_put",
	1029: "MPI_Comm_get_name", 1031: "MPI_Comm_rank", 1034: "MPI_Comm_set_name", 1035: "MPI_Comm_size",
	1038: "MPI_Dims_create", 1039: "MPI_Errhandler_create", 1040: "MPI_Errhandler_free",
	1041: "MPI_Errhandler_get", 1042: "MPI_Errhandler_set", 1043: "MPI_Error_class",
	1044: "MPI_Error_string", 1046: "MPI_Finalized", 1049: "MPI_Get_count", 1050: "MPI_Get_elements",
	1051: "MPI_Get_processor_name", 1052: "MPI_Get_version", 1085: "MPI_Initialized",
	1096: "MPI_Op_create", 1097: "MPI_Op_free", 1100: "MPI_Pcontrol",
	1129: "MPI_Type_commit", 1130: "MPI_Type_contiguous", 1135: "MPI_Type_free",
	1143: "MPI_Type_size", 1146: "MPI_Type_vector", 1152: "MPI_Wtick", 1153: "MPI_Wtime",
}

// Sniff reports whether head, the start of a file, looks like a
// ScalaTrace trace.
func Sniff(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("RANKS:"))
}

// Options tune reading.
type Options struct {
	// MaxMemory bounds the memory of the trace read, in bytes: a file of
	// a few lines can give a million ranks a call each, so a trace whose
	// ranks' calls would take more is refused, with the estimate, before
	// they are built. 0 means half the physical memory (4 GiB where it
	// cannot be read); the command line's --max-memory sets it.
	MaxMemory int64
}

// Read reads the ScalaTrace trace in the file at path with the default
// Options.
func Read(path string) (*trace.Trace, error) { return ReadWith(path, Options{}) }

// ReadWith is Read with options.
func ReadWith(path string, opts Options) (*trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseWith(path, f, opts)
}

// Parse reads a ScalaTrace trace from r with the default Options; name is
// the file name errors give.
func Parse(name string, r io.Reader) (*trace.Trace, error) { return ParseWith(name, r, Options{}) }

// ParseWith is Parse with options.
func ParseWith(name string, r io.Reader, opts Options) (*trace.Trace, error) {
	recs, err := parse(name, r)
	if err != nil {
		return nil, err
	}
	b := &builder{name: name, recs: recs, memo: map[*values][]int32{}}
	return b.build(opts)
}

// builder turns records into each rank's sequence.
type builder struct {
	name string
	recs []*record
	n    int
	unit int                 // which COMP statistic to use: 0 4b, 1 4c
	comm int64               // the one communicator handle the trace uses, or -1
	memo map[*values][]int32 // each rank list's members, once needed
}

func (b *builder) errorf(line, col int, format string, args ...any) error {
	return trace.Errorf(b.name, line, col, format, args...)
}

func (b *builder) build(opts Options) (*trace.Trace, error) {
	top := int64(-1)
	b.comm = -1
	// Computation is in microseconds if every record that has COMP lines
	// has 4b ones, else in instructions if every one has 4c.
	timed, counted, computing := 0, 0, 0
	for _, rec := range b.recs {
		top = max(top, rec.ranks.max())
		if rec.comp[0].n > 0 || rec.comp[1].n > 0 {
			computing++
		}
		if rec.comp[0].n > 0 {
			timed++
		}
		if rec.comp[1].n > 0 {
			counted++
		}
	}
	switch {
	case timed == computing:
		b.unit = 0
	case counted == computing:
		b.unit = 1
	default:
		return nil, b.errorf(b.recs[0].line, 1, "some records time their computation (COMP 4b) and others count instructions (COMP 4c); a trace needs one or the other throughout")
	}
	b.n = int(top + 1)
	if err := b.checkMemory(opts); err != nil {
		return nil, err
	}
	// Each rank's records, in file order, gathered from the records' rank
	// lists: the work and memory follow the ranks each record names, not
	// records times ranks.
	recsOf := make([][]*record, b.n)
	for _, rec := range b.recs {
		for _, r := range rec.ranks.members() {
			recsOf[r] = append(recsOf[r], rec)
		}
	}
	t := &trace.Trace{Format: "scalatrace", NumRanks: b.n, Ranks: make([]trace.Rank, b.n), Comms: [][]int{nil}}
	if b.unit == 1 {
		t.TimeUnit = trace.Instructions
	}
	for r, mine := range recsOf {
		recsOf[r] = nil
		rb := &rankBuilder{b: b, r: r, recs: mine}
		body, err := rb.seq(0, len(mine))
		if err != nil {
			return nil, err
		}
		if size := eventCount(body); size < 0 || size > maxEvents {
			return nil, b.errorf(b.recs[0].line, 1, "rank %d expands to more than %d calls; a loop count is damaged", r, int64(maxEvents))
		}
		t.Ranks[r].Body = body
	}
	return t, nil
}

// eventCount is the number of events body expands to, or -1 past
// maxEvents.
func eventCount(body []trace.Node) int64 {
	total := int64(0)
	for _, n := range body {
		if n.Site != nil {
			total++
		} else {
			c := eventCount(n.Loop.Body)
			if c < 0 || (n.Loop.Count > 0 && c > maxEvents/n.Loop.Count) {
				return -1
			}
			total += c * n.Loop.Count
		}
		if total > maxEvents {
			return -1
		}
	}
	return total
}

// rankBuilder builds one rank's sequence from the records it takes part in.
type rankBuilder struct {
	b    *builder
	r    int
	recs []*record
}

// loopAt is one loop starting at a record, for this rank.
type loopAt struct {
	iter, mem int64
	line      int
}

// loopsAt lists the loops that start at record k for this rank, outermost
// first.
func (rb *rankBuilder) loopsAt(k int) ([]loopAt, error) {
	rec := rb.recs[k]
	var ls []loopAt
	for _, spec := range rec.loops {
		it := findValues(spec.iter, rb.r, rb.b.memo)
		if it == nil {
			continue
		}
		m := findValues(spec.mem, rb.r, rb.b.memo)
		if m == nil {
			return nil, rb.b.errorf(spec.line, 1, "LOOP%d gives rank %d an iteration count but no mem", spec.depth, rb.r)
		}
		if it.v[0] < 0 || m.v[0] < 1 {
			return nil, rb.b.errorf(spec.line, it.col, "LOOP%d: rank %d has iter %d and mem %d; iter must be at least 0 and mem at least 1", spec.depth, rb.r, it.v[0], m.v[0])
		}
		ls = append(ls, loopAt{iter: it.v[0], mem: m.v[0], line: spec.line})
	}
	for i := 1; i < len(ls); i++ {
		if ls[i].mem > ls[i-1].mem {
			return nil, rb.b.errorf(ls[i].line, 1, "rank %d: an inner loop's mem %d exceeds its outer loop's %d", rb.r, ls[i].mem, ls[i-1].mem)
		}
	}
	return ls, nil
}

// seq builds records i..j-1 of the rank's list.
func (rb *rankBuilder) seq(i, j int) ([]trace.Node, error) {
	var out []trace.Node
	for k := i; k < j; {
		ls, err := rb.loopsAt(k)
		if err != nil {
			return nil, err
		}
		if len(ls) == 0 {
			nodes, err := rb.site(k)
			if err != nil {
				return nil, err
			}
			out = append(out, nodes...)
			k++
			continue
		}
		n, err := rb.loop(k, ls, j)
		if err != nil {
			return nil, err
		}
		if n != nil {
			out = append(out, *n)
		}
		k += int(ls[0].mem)
	}
	return out, nil
}

// loop builds the loop ls[0] starting at record k, whose body must end by
// limit; ls[1:] are the loops nested in it that start at k too.
func (rb *rankBuilder) loop(k int, ls []loopAt, limit int) (*trace.Node, error) {
	end := int64(k) + ls[0].mem
	if end > int64(limit) {
		return nil, rb.b.errorf(ls[0].line, 1, "rank %d: the loop's mem %d runs past the end of its enclosing body (%d records left)", rb.r, ls[0].mem, limit-k)
	}
	var body []trace.Node
	next := k + 1
	if len(ls) > 1 {
		inner, err := rb.loop(k, ls[1:], int(end))
		if err != nil {
			return nil, err
		}
		if inner != nil {
			body = append(body, *inner)
		}
		next = k + int(ls[1].mem)
	} else {
		nodes, err := rb.site(k)
		if err != nil {
			return nil, err
		}
		body = append(body, nodes...)
	}
	rest, err := rb.seq(next, int(end))
	if err != nil {
		return nil, err
	}
	body = append(body, rest...)
	if len(body) == 0 {
		return nil, nil
	}
	return &trace.Node{Loop: &trace.Loop{Count: ls[0].iter, Body: body}}, nil
}

// site builds record k for this rank: its computation, if any, and its call.
func (rb *rankBuilder) site(k int) ([]trace.Node, error) {
	rec := rb.recs[k]
	op, ok := opcodes[rec.opcode]
	if !ok {
		if _, ok := passive[rec.opcode]; ok {
			return nil, nil
		}
		return nil, rb.b.errorf(rec.opLine, rec.opCol, "opcode %d is not an MPI call this reader supports (see opcodes.tsv); supported: point-to-point, waits, Barrier, Bcast, Reduce, Allreduce, Scan, Gather, Scatter, Allgather, Alltoall", rec.opcode)
	}
	events, err := rb.events(rec, op)
	if err != nil {
		return nil, err
	}
	var nodes []trace.Node
	if st := rec.comp[rb.b.unit]; st.n > 0 && st.sum > 0 {
		c := trace.Event{Op: trace.Compute, Amount: st.sum / st.n, Pos: trace.Pos{File: rb.b.name, Line: st.line}}
		nodes = append(nodes, trace.Node{Site: &trace.Site{Events: []trace.Event{c}}})
	}
	return append(nodes, trace.Node{Site: &trace.Site{Events: events}}), nil
}

// param is one parameter's values for the rank, consumed per execution.
type param struct {
	v   []int64
	per int64 // values one execution consumes
	g   *values
}

func (p *param) at(n int64, j int64) int64 {
	return p.v[(n*p.per+j)%int64(len(p.v))]
}

// events builds the cycle of events a record issues on the rank.
func (rb *rankBuilder) events(rec *record, op trace.Op) ([]trace.Event, error) {
	b := rb.b
	get := func(code int, name string, per int64) (*param, error) {
		gs, ok := rec.params[code]
		if !ok {
			return nil, b.errorf(rec.opLine, rec.opCol, "EVENT%d (%s) has no %s parameter (%x)", rec.event, op, name, code)
		}
		g := findValues(gs, rb.r, b.memo)
		if g == nil {
			return nil, b.errorf(gs[0].line, gs[0].col, "parameter %s (%x) of EVENT%d has no value for rank %d", name, code, rec.event, rb.r)
		}
		return &param{v: g.v, per: per, g: g}, nil
	}
	var ps []*param
	need := func(code int, name string) (*param, error) {
		p, err := get(code, name, 1)
		if err == nil {
			ps = append(ps, p)
		}
		return p, err
	}
	var count, dtype, peer, tag, root, req, comm, reqs *param
	var err error
	if op != trace.Init && op != trace.Finalize && op != trace.Wait {
		if comm, err = need(pComm, "COMM"); err != nil {
			return nil, err
		}
	}
	switch {
	case op.IsP2P():
		if count, err = need(pCount, "COUNT"); err != nil {
			return nil, err
		}
		if dtype, err = need(pDatatype, "DATATYPE"); err != nil {
			return nil, err
		}
		if tag, err = need(pTag, "TAG"); err != nil {
			return nil, err
		}
		code, name := pDest, "DEST"
		if op.IsRecv() {
			code, name = pSource, "SOURCE"
		}
		if peer, err = need(code, name); err != nil {
			return nil, err
		}
	case op == trace.Wait && rec.opcode == 1148:
		if req, err = need(pRequest, "REQUEST"); err != nil {
			return nil, err
		}
	case op == trace.Wait:
		if count, err = need(pCount, "COUNT"); err != nil {
			return nil, err
		}
	case op.IsCollective() && op != trace.Barrier:
		if count, err = need(pCount, "COUNT"); err != nil {
			return nil, err
		}
		if dtype, err = need(pDatatype, "DATATYPE"); err != nil {
			return nil, err
		}
		if op.IsRooted() {
			if root, err = need(pRoot, "RT"); err != nil {
				return nil, err
			}
		}
	}
	// A Waitall's request array is consumed COUNT values per execution,
	// so its period depends on the count; only a fixed count is allowed.
	if op == trace.Wait && rec.opcode == 1149 {
		if len(count.v) != 1 || count.v[0] < 0 || count.v[0] > ringSize {
			return nil, b.errorf(count.g.line, count.g.col, "a Waitall's COUNT must be one number in 0..%d", ringSize)
		}
		if count.v[0] > 0 {
			if reqs, err = get(pArrayOfRequests, "ARRAY_OF_REQUESTS", count.v[0]); err != nil {
				return nil, err
			}
			ps = append(ps, reqs)
		}
	}
	cycle := int64(1)
	for _, p := range ps {
		l := int64(len(p.v))
		period := l / gcd(l, p.per%l)
		if p.per%l == 0 {
			period = 1
		}
		cycle = cycle / gcd(cycle, period) * period
		if cycle > maxCycle {
			return nil, b.errorf(p.g.line, p.g.col, "EVENT%d's parameter lists repeat only every %d or more executions (limit %d)", rec.event, cycle, maxCycle)
		}
	}
	pos := trace.Pos{File: b.name, Line: rec.opLine}
	events := make([]trace.Event, cycle)
	for n := range cycle {
		e := trace.Event{Op: op, Pos: pos, Peer: trace.AnySource, Tag: trace.AnyTag}
		if comm != nil {
			if c := comm.at(n, 0); b.comm < 0 {
				b.comm = c
			} else if c != b.comm {
				return nil, b.errorf(comm.g.line, comm.g.col, "communicator %d: this reader supports MPI_COMM_WORLD only, and the trace's first communicator was %d", c, b.comm)
			}
		}
		if count != nil && op != trace.Wait {
			e.Count = count.at(n, 0)
			if e.Count < 0 || e.Count > 1<<40 {
				return nil, b.errorf(count.g.line, count.g.col, "COUNT %d is out of range", e.Count)
			}
		}
		if dtype != nil {
			size, ok := typeSizes[dtype.at(n, 0)]
			if !ok {
				return nil, b.errorf(dtype.g.line, dtype.g.col, "datatype code %d is not one of the tracer's built-in types 1..19 (codes above 19 depend on how the tracer was built)", dtype.at(n, 0))
			}
			e.TypeSize = size
		}
		if peer != nil {
			v := peer.at(n, 0)
			switch {
			case op.IsRecv() && v == storedAnySource:
			case v < 0 || v >= int64(b.n):
				return nil, b.errorf(peer.g.line, peer.g.col, "peer %d is outside 0..%d (peers are stored as (peer - rank) mod size)", v, b.n-1)
			default:
				e.Peer = int((v + int64(rb.r)) % int64(b.n))
			}
		}
		if tag != nil {
			v := tag.at(n, 0)
			switch {
			case v < 0 && op.IsRecv():
			case v < 0 || v > 1<<31-1:
				return nil, b.errorf(tag.g.line, tag.g.col, "tag %d is outside 0..2147483647", v)
			default:
				e.Tag = int(v)
			}
		}
		if root != nil {
			v := root.at(n, 0)
			if v < 0 || v >= int64(b.n) {
				return nil, b.errorf(root.g.line, root.g.col, "root %d is outside 0..%d", v, b.n-1)
			}
			e.Root = int(v)
		}
		age := func(p *param, j int64) (int, error) {
			o := p.at(n, j)
			if o < 0 || o >= ringSize {
				return 0, b.errorf(p.g.line, p.g.col, "request offset %d is outside the tracer's ring 0..%d", o, ringSize-1)
			}
			return int(ringSize - o), nil
		}
		if req != nil {
			a, err := age(req, 0)
			if err != nil {
				return nil, err
			}
			e.Waits = []int{a}
		}
		if reqs != nil {
			for j := range count.v[0] {
				a, err := age(reqs, j)
				if err != nil {
					return nil, err
				}
				e.Waits = append(e.Waits, a)
			}
		}
		events[n] = e
	}
	return events, nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
