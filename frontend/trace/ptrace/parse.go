package ptrace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// Limits on input, so that damaged files fail cleanly.
const (
	maxLine  = 1 << 20
	maxDepth = 64
	maxRanks = 1 << 20
	// maxCount bounds counts and loop iterations: the tracer writes ints
	// for counts, and 2^40 calls are more than any run makes.
	maxCount = 1 << 40
)

// RankFile is one rank's file.
type RankFile struct {
	Path       string
	Rank, Size int
	// Status is "complete" or "partial ..." (why the trace ends early).
	Status string
	// Elapsed is the microseconds from MPI_Init to MPI_Finalize, or to the
	// end of a partial trace; Calls the MPI calls recorded.
	Elapsed float64
	Calls   int64
	// Body is the rank's calls, with communicators as indexes into the
	// table Parse was given.
	Body []trace.Node
}

// Complete reports whether the rank's trace runs to MPI_Finalize.
func (f *RankFile) Complete() bool { return f.Status == "complete" }

// comms is the trace's communicator table, trace.Trace.Comms, shared by
// the ranks' files: equal member lists get one index, the world index 0.
type comms struct {
	size  int
	list  [][]int
	index map[string]int
}

func newComms(size int) *comms {
	return &comms{size: size, list: [][]int{nil}, index: map[string]int{}}
}

func (c *comms) add(members []int) int {
	world := len(members) == c.size
	for i, m := range members {
		world = world && m == i
	}
	if world {
		return 0
	}
	k := fmt.Sprint(members)
	if i, ok := c.index[k]; ok {
		return i
	}
	c.list = append(c.list, members)
	c.index[k] = len(c.list) - 1
	return len(c.list) - 1
}

// members is the world ranks of communicator index i.
func (c *comms) members(i int) []int {
	if i == 0 {
		w := make([]int, c.size)
		for r := range w {
			w[r] = r
		}
		return w
	}
	return c.list[i]
}

// parser reads one rank's file.
type parser struct {
	f     *RankFile
	line  int
	comms *comms
	local map[int]int // the file's communicator ids -> comms indexes
	// stack of open loops: each frame's body so far and the loop's count
	stack []frame
	calls int64 // records' calls so far, checked against the header
}

type frame struct {
	body  []trace.Node
	count int64
	mult  int64 // the product of the counts of the loops open here
	line  int
}

// Parse reads one rank's file. Its communicators are added to table, which
// must have been made for the file's world size, or is made when nil (for
// a file read alone).
func Parse(name string, r io.Reader) (*RankFile, error) {
	f, _, err := parse(name, r, nil)
	return f, err
}

// parse reads one rank's file, adding its communicators to table, or to a
// table it makes for the file's world when table is nil; it returns the
// table.
func parse(name string, r io.Reader, table *comms) (*RankFile, *comms, error) {
	p := &parser{f: &RankFile{Path: name}, comms: table, local: map[int]int{0: 0}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	header := []func(string) error{p.version, p.rankLine, p.status, p.elapsed, p.callsLine}
	inBody, ended := false, false
	for sc.Scan() {
		p.line++
		text := sc.Text()
		if ended {
			if strings.TrimSpace(text) != "" {
				return nil, nil, p.errorf(1, "text after end-of-trace")
			}
			continue
		}
		var err error
		switch {
		case len(header) > 0:
			err = header[0](text)
			header = header[1:]
		case !inBody && strings.HasPrefix(text, "comm "):
			err = p.comm(text)
		case !inBody && text == "body":
			inBody = true
			p.stack = []frame{{mult: 1}}
		case !inBody:
			err = p.errorf(1, "expected a comm line or body, found %q", clip(text))
		case strings.TrimSpace(text) == "end-of-trace":
			if len(p.stack) > 1 {
				return nil, nil, p.errorf(1, "end-of-trace inside the loop opened on line %d", p.stack[len(p.stack)-1].line)
			}
			ended = true
		default:
			err = p.bodyLine(text)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, p.errorf(1, "%v (lines are limited to %d bytes)", err, maxLine)
	}
	if !ended {
		return nil, nil, p.errorf(1, "the file ends without end-of-trace: it was cut short while being written; trace the program again")
	}
	if p.calls != p.f.Calls {
		return nil, nil, p.errorf(1, "the records stand for %d calls but the header says %d: the file is damaged", p.calls, p.f.Calls)
	}
	p.f.Body = p.stack[0].body
	return p.f, p.comms, nil
}

func (p *parser) errorf(col int, format string, args ...any) error {
	return trace.Errorf(p.f.Path, p.line, col, format, args...)
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

func (p *parser) version(text string) error {
	if text != "parley-trace 1" {
		return p.errorf(1, "expected \"parley-trace 1\", found %q: not a trace of parley's tracer, or a newer version", clip(text))
	}
	return nil
}

func (p *parser) rankLine(text string) error {
	f := strings.Fields(text)
	if len(f) != 4 || f[0] != "rank" || f[2] != "of" {
		return p.errorf(1, "expected \"rank R of N\", found %q", clip(text))
	}
	size, err := strconv.Atoi(f[3])
	if err != nil || size < 1 || size > maxRanks {
		return p.errorf(len(text)-len(f[3])+1, "the world size %q is not a number in 1..%d", f[3], maxRanks)
	}
	rank, err := strconv.Atoi(f[1])
	if err != nil || rank < 0 || rank >= size {
		return p.errorf(6, "the rank %q is not in 0..%d", f[1], size-1)
	}
	p.f.Rank, p.f.Size = rank, size
	if p.comms == nil {
		p.comms = newComms(size)
	} else if p.comms.size != size {
		return p.errorf(1, "this file's world has %d ranks, the trace's other files %d", size, p.comms.size)
	}
	return nil
}

func (p *parser) status(text string) error {
	s, ok := strings.CutPrefix(text, "status ")
	if !ok || (s != "complete" && !strings.HasPrefix(s, "partial")) {
		return p.errorf(1, "expected \"status complete\" or \"status partial ...\", found %q", clip(text))
	}
	p.f.Status = s
	return nil
}

func (p *parser) elapsed(text string) error {
	s, ok := strings.CutPrefix(text, "elapsed ")
	v, err := strconv.ParseFloat(s, 64)
	if !ok || err != nil || !(v >= 0) || v >= trace.MaxAmount {
		return p.errorf(1, "expected \"elapsed MICROSECONDS\", found %q", clip(text))
	}
	p.f.Elapsed = v
	return nil
}

func (p *parser) callsLine(text string) error {
	s, ok := strings.CutPrefix(text, "calls ")
	v, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil || v < 0 {
		return p.errorf(1, "expected \"calls N\", found %q", clip(text))
	}
	p.f.Calls = v
	return nil
}

// comm reads "comm ID W...": a communicator's members as world ranks.
func (p *parser) comm(text string) error {
	f := strings.Fields(text)
	if len(f) < 3 {
		return p.errorf(1, "expected \"comm ID RANK...\", found %q", clip(text))
	}
	id, err := strconv.Atoi(f[1])
	if err != nil || id < 1 {
		return p.errorf(6, "the communicator id %q is not a number from 1 on", f[1])
	}
	if _, dup := p.local[id]; dup {
		return p.errorf(6, "communicator %d is described twice", id)
	}
	if len(f)-2 > p.f.Size {
		return p.errorf(1, "communicator %d has %d members in a world of %d", id, len(f)-2, p.f.Size)
	}
	members := make([]int, len(f)-2)
	seen := map[int]bool{}
	in := false
	for i, s := range f[2:] {
		w, err := strconv.Atoi(s)
		if err != nil || w < 0 || w >= p.f.Size || seen[w] {
			return p.errorf(1, "communicator %d: member %q is not a distinct world rank in 0..%d", id, s, p.f.Size-1)
		}
		seen[w] = true
		in = in || w == p.f.Rank
		members[i] = w
	}
	if !in {
		return p.errorf(1, "communicator %d does not hold rank %d, whose file this is", id, p.f.Rank)
	}
	p.local[id] = p.comms.add(members)
	return nil
}

// bodyLine reads a loop's start or end, or a record.
func (p *parser) bodyLine(text string) error {
	trimmed := strings.TrimSpace(text)
	col := len(text) - len(strings.TrimLeft(text, " ")) + 1
	top := &p.stack[len(p.stack)-1]
	switch {
	case trimmed == "end":
		if len(p.stack) == 1 {
			return p.errorf(col, "end without a loop")
		}
		if len(top.body) == 0 {
			return p.errorf(col, "the loop opened on line %d is empty", top.line)
		}
		l := &trace.Loop{Count: top.count, Body: top.body}
		p.stack = p.stack[:len(p.stack)-1]
		parent := &p.stack[len(p.stack)-1]
		parent.body = append(parent.body, trace.Node{Loop: l})
		return nil
	case strings.HasPrefix(trimmed, "loop "):
		n, err := strconv.ParseInt(strings.TrimSpace(trimmed[5:]), 10, 64)
		if err != nil || n < 1 || n > maxCount {
			return p.errorf(col+5, "a loop's count must be a number in 1..%d", int64(maxCount))
		}
		if len(p.stack) > maxDepth {
			return p.errorf(col, "loops nest deeper than %d", maxDepth)
		}
		if top.mult > maxCount/n {
			return p.errorf(col+5, "the loops around line %d repeat it more than %d times", p.line, int64(maxCount))
		}
		p.stack = append(p.stack, frame{count: n, mult: top.mult * n, line: p.line})
		return nil
	}
	nodes, err := p.record(trimmed, col, top.mult)
	if err != nil {
		return err
	}
	top.body = append(top.body, nodes...)
	return nil
}

// record reads one record line and returns its nodes: the computation
// before the call, then the call's events.
func (p *parser) record(text string, col int, mult int64) ([]trace.Node, error) {
	params, stats, ok := strings.Cut(text, " @ ")
	if !ok {
		return nil, p.errorf(col, "a record ends with \"@ CALLS COMPUTE MIN MAX MPI CPU\"; found %q", clip(text))
	}
	f := strings.Fields(params)
	r := &rec{p: p, op: f[0], col: col, kv: map[string]string{}}
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, p.errorf(col, "%s: expected key=value, found %q", r.op, clip(kv))
		}
		if _, dup := r.kv[k]; dup {
			return nil, p.errorf(col, "%s: %s= given twice", r.op, k)
		}
		r.kv[k] = v
	}
	st := strings.Fields(stats)
	if len(st) != 6 {
		return nil, p.errorf(col+len(params)+3, "expected CALLS COMPUTE MIN MAX MPI CPU after @, found %q", clip(stats))
	}
	n, err := strconv.ParseInt(st[0], 10, 64)
	if err != nil || n != mult {
		return nil, p.errorf(col+len(params)+3, "the record stands for %q calls, but its loops make %d", st[0], mult)
	}
	// The CPU time is "-" where the tracer did not measure it.
	var v [5]float64
	for i := range v {
		if i == 4 && st[5] == "-" {
			v[4] = -1
			break
		}
		v[i], err = strconv.ParseFloat(st[i+1], 64)
		if err != nil || !(v[i] >= 0) || v[i] >= trace.MaxAmount {
			return nil, p.errorf(col+len(params)+3, "the time %q is not a number of microseconds", st[i+1])
		}
	}
	comp := v[4]
	if comp < 0 {
		comp = v[0]
	}
	p.calls += n
	if p.calls < 0 || p.calls > maxCount {
		return nil, p.errorf(col, "the records stand for more than %d calls", int64(maxCount))
	}
	events, err := r.events()
	if err != nil {
		return nil, err
	}
	pos := trace.Pos{File: p.f.Path, Line: p.line}
	var nodes []trace.Node
	if mean := comp / float64(n); mean > 0 {
		nodes = append(nodes, site(trace.Event{Op: trace.Compute, Amount: mean, Pos: pos}))
	}
	for _, e := range events {
		e.Pos = pos
		nodes = append(nodes, site(e))
	}
	return nodes, nil
}

func site(e trace.Event) trace.Node { return trace.Node{Site: &trace.Site{Events: []trace.Event{e}}} }

// rec is one record's operation and parameters.
type rec struct {
	p   *parser
	op  string
	col int
	kv  map[string]string
}

func (r *rec) errorf(format string, args ...any) error {
	return r.p.errorf(r.col, r.op+": "+format, args...)
}

func (r *rec) get(k string) (string, error) {
	v, ok := r.kv[k]
	if !ok {
		return "", r.errorf("%s= is missing", k)
	}
	return v, nil
}

func (r *rec) int(k string, lo, hi int64) (int64, error) {
	s, err := r.get(k)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, r.errorf("%s=%s is not a number in %d..%d", k, clip(s), lo, hi)
	}
	return v, nil
}

// peer reads a relative peer: a world rank, trace.AnySource, or ok false
// for MPI_PROC_NULL.
func (r *rec) peer(k string) (peer int, ok bool, err error) {
	s, err := r.get(k)
	if err != nil {
		return 0, false, err
	}
	switch s {
	case "null":
		return 0, false, nil
	case "any":
		return trace.AnySource, true, nil
	}
	d, err := strconv.Atoi(s)
	w := r.p.f.Rank + d
	if err != nil || w < 0 || w >= r.p.f.Size {
		return 0, false, r.errorf("%s=%s is not an offset to a rank in 0..%d", k, clip(s), r.p.f.Size-1)
	}
	return w, true, nil
}

func (r *rec) tag(k string) (int, error) {
	s, err := r.get(k)
	if err != nil {
		return 0, err
	}
	if s == "any" {
		return trace.AnyTag, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > math.MaxInt32 {
		return 0, r.errorf("%s=%s is not a tag", k, clip(s))
	}
	return v, nil
}

// data reads count= and size= (or their receive-half names).
func (r *rec) data(count, size string) (int64, int64, error) {
	c, err := r.int(count, 0, math.MaxInt32*int64(maxRanks))
	if err != nil {
		return 0, 0, err
	}
	s, err := r.int(size, 0, math.MaxInt32)
	return c, s, err
}

// comm reads comm=: the communicator's index in the trace and its members.
func (r *rec) comm() (int, []int, error) {
	id, err := r.int("comm", 0, math.MaxInt32)
	if err != nil {
		return 0, nil, err
	}
	i, ok := r.p.local[int(id)]
	if !ok {
		return 0, nil, r.errorf("communicator %d is not described in the header", id)
	}
	return i, r.p.comms.members(i), nil
}

var sendOps = map[string]trace.Op{
	"send": trace.Send, "bsend": trace.Send, "ssend": trace.Send, "rsend": trace.Send,
	"isend": trace.Isend, "ibsend": trace.Isend, "issend": trace.Isend, "irsend": trace.Isend,
	"recv": trace.Recv, "irecv": trace.Irecv,
}

var collOps = map[string]trace.Op{
	"barrier": trace.Barrier, "bcast": trace.Bcast, "reduce": trace.Reduce, "allreduce": trace.Allreduce,
	"scan": trace.Scan, "gather": trace.Gather, "scatter": trace.Scatter, "allgather": trace.Allgather,
	"alltoall": trace.Alltoall, "gatherv": trace.Gatherv, "scatterv": trace.Scatterv,
	"allgatherv": trace.Allgatherv, "alltoallv": trace.Alltoallv, "reduce_scatter": trace.ReduceScatter,
	"reduce_scatter_block": trace.ReduceScatter,
}

// noEvent lists the calls that make no event.
var noEvent = map[string]bool{
	"probe": true, "iprobe": true, "comm_split": true, "comm_dup": true, "comm_create": true,
	"cart_create": true, "comm_free": true,
}

var waitOps = map[string]bool{
	"wait": true, "waitall": true, "waitany": true, "waitsome": true,
	"test": true, "testall": true, "testany": true, "testsome": true,
}

// events maps the record to the model's events.
func (r *rec) events() ([]trace.Event, error) {
	switch {
	case r.op == "init":
		return []trace.Event{{Op: trace.Init}}, nil
	case r.op == "finalize":
		return []trace.Event{{Op: trace.Finalize}}, nil
	case noEvent[r.op]:
		return nil, nil
	case waitOps[r.op]:
		return r.wait()
	case r.op == "sendrecv":
		return r.sendrecv()
	case r.op == "exscan":
		return nil, r.errorf("MPI_Exscan has no Parley equivalent; the trace cannot be lowered")
	}
	if op, ok := sendOps[r.op]; ok {
		e, keep, err := r.p2p(op, "peer", "tag", "count", "size")
		if err != nil || !keep {
			return nil, err
		}
		return []trace.Event{e}, nil
	}
	if op, ok := collOps[r.op]; ok {
		e, err := r.collective(op)
		if err != nil {
			return nil, err
		}
		return []trace.Event{e}, nil
	}
	return nil, r.errorf("not a call the tracer records")
}

func (r *rec) p2p(op trace.Op, peer, tag, count, size string) (trace.Event, bool, error) {
	e := trace.Event{Op: op}
	var ok bool
	var err error
	if e.Peer, ok, err = r.peer(peer); err != nil || !ok {
		return e, false, err
	}
	if e.Peer == trace.AnySource && op.IsSend() {
		return e, false, r.errorf("a send to any rank")
	}
	if e.Tag, err = r.tag(tag); err != nil {
		return e, false, err
	}
	if e.Tag == trace.AnyTag && op.IsSend() {
		return e, false, r.errorf("a send with any tag")
	}
	e.Count, e.TypeSize, err = r.data(count, size)
	return e, err == nil, err
}

func (r *rec) sendrecv() ([]trace.Event, error) {
	s, sok, err := r.p2p(trace.Isend, "peer", "tag", "count", "size")
	if err != nil {
		return nil, err
	}
	v, rok, err := r.p2p(trace.Irecv, "rpeer", "rtag", "rcount", "rsize")
	if err != nil {
		return nil, err
	}
	switch {
	case sok && rok:
		return []trace.Event{s, v, {Op: trace.Wait, Waits: []int{2, 1}}}, nil
	case sok:
		s.Op = trace.Send
		return []trace.Event{s}, nil
	case rok:
		v.Op = trace.Recv
		return []trace.Event{v}, nil
	}
	return nil, nil
}

func (r *rec) wait() ([]trace.Event, error) {
	if s, ok := r.kv["unknown"]; ok {
		return nil, r.errorf("completed %s requests the tracer did not see made (persistent requests or nonblocking collectives, which it does not trace); the trace cannot be lowered", s)
	}
	s, err := r.get("done")
	if err != nil || s == "-" {
		return nil, err
	}
	var ages []int
	for a := range strings.SplitSeq(s, ",") {
		v, err := strconv.Atoi(a)
		if err != nil || v < 1 {
			return nil, r.errorf("done=%s: %q is not a request's age (1 is the latest nonblocking call)", clip(s), clip(a))
		}
		ages = append(ages, v)
	}
	return []trace.Event{{Op: trace.Wait, Waits: ages}}, nil
}

func (r *rec) collective(op trace.Op) (trace.Event, error) {
	e := trace.Event{Op: op}
	var members []int
	var err error
	if e.Comm, members, err = r.comm(); err != nil {
		return e, err
	}
	me := -1
	for i, w := range members {
		if w == r.p.f.Rank {
			me = i
		}
	}
	if me < 0 {
		return e, r.errorf("rank %d is not a member of communicator %s", r.p.f.Rank, r.kv["comm"])
	}
	if op.IsRooted() {
		root, err := r.int("root", 0, int64(r.p.f.Size-1))
		if err != nil {
			return e, err
		}
		e.Root = int(root)
		if !slices.Contains(members, e.Root) {
			return e, r.errorf("root=%d is not a member of communicator %s", root, r.kv["comm"])
		}
	}
	if op == trace.Barrier {
		return e, nil
	}
	if e.Count, e.TypeSize, err = r.data("count", "size"); err != nil {
		return e, err
	}
	s, has := r.kv["counts"]
	switch {
	case r.op == "reduce_scatter_block":
		e.Counts = make([]int64, len(members))
		for i := range e.Counts {
			e.Counts[i] = e.Count
		}
		e.Count *= int64(len(members))
		return e, nil
	case op == trace.Gatherv || op == trace.Scatterv:
		if !has {
			if e.Root == r.p.f.Rank {
				return e, r.errorf("the root's counts= is missing")
			}
			return e, nil
		}
	case op == trace.Allgatherv || op == trace.Alltoallv || op == trace.ReduceScatter:
		if !has {
			return e, r.errorf("counts= is missing")
		}
	default:
		return e, nil
	}
	var sum int64
	for c := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseInt(c, 10, 64)
		if err != nil || v < 0 || v > math.MaxInt32 {
			return e, r.errorf("counts=: %q is not a count", clip(c))
		}
		e.Counts = append(e.Counts, v)
		sum += v
	}
	if len(e.Counts) != len(members) {
		return e, r.errorf("counts= has %d counts for a communicator of %d", len(e.Counts), len(members))
	}
	switch op {
	case trace.Alltoallv, trace.ReduceScatter:
		if sum != e.Count {
			return e, r.errorf("count=%d is not the sum of counts=, %d", e.Count, sum)
		}
	default:
		if e.Counts[me] != e.Count {
			return e, r.errorf("count=%d is not this rank's entry of counts=, %d", e.Count, e.Counts[me])
		}
	}
	return e, nil
}

// Sniff reports whether head, the start of a file, is a trace of parley's
// tracer.
func Sniff(head []byte) bool { return bytes.HasPrefix(head, []byte("parley-trace 1\n")) }
