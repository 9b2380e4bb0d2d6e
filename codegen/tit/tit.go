package tit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/parley-hpc/parley/netmodel"
)

// Buffering: each rank's lines wait in memory until they reach its share
// of bufferBudget, within [minBuffer, maxBuffer].
const (
	bufferBudget = 16 << 20
	minBuffer    = 1 << 10
	maxBuffer    = 64 << 10
)

// maxCount is the largest count SimGrid's replay accepts: it reads counts
// as C ints.
const maxCount = math.MaxInt32

// Tags: a negative program tag t is written as t + tagShift; tags at or
// above tagShift/2 could then collide.
const tagShift = 1 << 31

// Writer writes the trace set of one run. It implements interp.Observer;
// call Close when the run is over. Errors are kept: the first one stops the
// writing and Close returns it.
type Writer struct {
	dir, base string
	n         int64
	mach      *netmodel.Machine
	ranks     []rankFile
	limit     int
	err       error
	closed    bool
	// Program tags seen: negative ones (shifted) and ones that a shifted
	// tag could collide with.
	negTag, bigTag bool
	// Steps writes every collective as the point-to-point steps of the
	// interpreter's algorithm, not only those over some of the ranks, so
	// that a replay sends exactly the messages the interpreter priced and
	// a comparison of the two measures their network models alone. Set it
	// before the run.
	Steps bool
}

// rankFile is one rank's buffered lines and whether its file exists yet.
type rankFile struct {
	buf     []byte
	created bool
}

// Create starts a trace set for numRanks ranks in dir, creating dir if
// need be: files dir/base-R.tit and the index dir/base.tit. m is the
// machine of the platform the run is priced on; it converts durations into
// flops (see the package documentation).
func Create(dir, base string, numRanks int64, m *netmodel.Machine) (*Writer, error) {
	switch {
	case numRanks < 1:
		return nil, fmt.Errorf("tit: %d ranks", numRanks)
	case base == "":
		return nil, errors.New("tit: no base name")
	case numRanks > math.MaxInt32:
		return nil, fmt.Errorf("tit: %d ranks: SimGrid numbers ranks with C ints", numRanks)
	case m == nil:
		return nil, errors.New("tit: no machine")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("tit: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, base: base, n: numRanks, mach: m, ranks: make([]rankFile, numRanks)}
	w.limit = int(min(max(bufferBudget/numRanks, minBuffer), maxBuffer))
	return w, nil
}

// RankPath returns the path of rank r's file.
func (w *Writer) RankPath(r int64) string {
	return filepath.Join(w.dir, w.base+"-"+strconv.FormatInt(r, 10)+".tit")
}

// IndexPath returns the path of the index, the file to give smpirun -replay.
func (w *Writer) IndexPath() string { return filepath.Join(w.dir, w.base+".tit") }

// Close ends every rank's trace with "finalize", writes what is buffered
// and the index, and returns the first error met since Create.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	for r := range w.n {
		if w.err == nil {
			w.end(r, w.begin(r, "finalize"))
		}
		w.flush(r)
		w.ranks[r].buf = nil
	}
	if w.negTag && w.bigTag && w.err == nil {
		w.err = fmt.Errorf("tit: the program uses negative tags and tags of %d or more; negative tags are written as tag+%d, so they may collide", tagShift/2, tagShift)
	}
	idx := make([]byte, 0, w.n*int64(len(w.RankPath(0))+2))
	for r := range w.n {
		idx = append(idx, w.RankPath(r)...)
		idx = append(idx, '\n')
	}
	if err := os.WriteFile(w.IndexPath(), idx, 0o644); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// begin starts a line of rank r for action.
func (w *Writer) begin(r int64, action string) []byte {
	b := w.ranks[r].buf
	b = strconv.AppendInt(b, r, 10)
	b = append(b, ' ')
	return append(b, action...)
}

// end finishes the line begun by begin, writing the rank's buffer out if it
// is full.
func (w *Writer) end(r int64, b []byte) {
	w.ranks[r].buf = append(b, '\n')
	if len(w.ranks[r].buf) >= w.limit {
		w.flush(r)
	}
}

// flush appends rank r's buffered lines to its file, creating it, with
// the "init" line, the first time.
func (w *Writer) flush(r int64) {
	rf := &w.ranks[r]
	if w.err != nil || rf.created && len(rf.buf) == 0 {
		return
	}
	flag := os.O_WRONLY | os.O_APPEND
	if !rf.created {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(w.RankPath(r), flag, 0o644)
	if err != nil {
		w.err = err
		return
	}
	data := rf.buf
	if !rf.created {
		data = append(strconv.AppendInt(nil, r, 10), " init\n"...)
		data = append(data, rf.buf...)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.err = err
		return
	}
	rf.created = true
	rf.buf = rf.buf[:0]
}

// ok reports whether rank r may be written to.
func (w *Writer) ok(r int64) bool {
	if w.err != nil {
		return false
	}
	if w.closed {
		w.err = errors.New("tit: operation reported after Close")
		return false
	}
	if r < 0 || r >= w.n {
		w.err = fmt.Errorf("tit: rank %d out of range (%d ranks)", r, w.n)
		return false
	}
	return true
}

// count appends a size, checking that SimGrid can read it.
func (w *Writer) count(b []byte, bytes int64) []byte {
	if (bytes < 0 || bytes > maxCount) && w.err == nil {
		w.err = fmt.Errorf("tit: %d bytes: SimGrid's replay reads sizes as C ints (at most %d)", bytes, maxCount)
	}
	return strconv.AppendInt(append(b, ' '), bytes, 10)
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(append(b, ' '), v, 10) }

// programTag returns the tag a program message is written with.
func (w *Writer) programTag(tag int32) int64 {
	if tag < 0 {
		w.negTag = true
		return int64(tag) + tagShift
	}
	if tag >= tagShift/2 {
		w.bigTag = true
	}
	return int64(tag)
}

// p2p writes "R action PEER TAG BYTES".
func (w *Writer) p2p(r int64, action string, peer, tag, bytes int64) {
	b := w.begin(r, action)
	b = appendInt(b, peer)
	b = appendInt(b, tag)
	b = w.count(b, bytes)
	w.end(r, b)
}

// Send implements interp.Observer.
func (w *Writer) Send(rank, peer, bytes int64, tag int32, async bool) {
	if !w.ok(rank) {
		return
	}
	action := "send"
	if async {
		action = "isend"
	}
	w.p2p(rank, action, peer, w.programTag(tag), bytes)
}

// Recv implements interp.Observer.
func (w *Writer) Recv(rank, peer, bytes int64, tag int32, async bool) {
	if !w.ok(rank) {
		return
	}
	action := "recv"
	if async {
		action = "irecv"
	}
	w.p2p(rank, action, peer, w.programTag(tag), bytes)
}

// Await implements interp.Observer.
func (w *Writer) Await(rank int64) {
	if w.ok(rank) {
		w.end(rank, w.begin(rank, "waitall"))
	}
}

// Compute implements interp.Observer.
func (w *Writer) Compute(rank int64, d netmodel.Duration, flops int64) {
	if !w.ok(rank) {
		return
	}
	f := w.flops(rank, d)
	if flops >= 0 && d == w.mach.Work(rank, w.n, flops, 0) {
		f = flops // flop-bound: the count the program gave
	}
	w.compute(rank, f)
}

// Sleep implements interp.Observer.
func (w *Writer) Sleep(rank int64, d netmodel.Duration) {
	if !w.ok(rank) || d <= 0 {
		return
	}
	b := w.begin(rank, "sleep ")
	b = strconv.AppendFloat(b, float64(d)/float64(netmodel.Second), 'f', -1, 64)
	w.end(rank, b)
}

// Rate returns rank r's flop rate: its node group's flops divided by the
// tasks per node. A SimGrid host of this speed replays "compute" lines in
// the interpreter's time.
func (w *Writer) Rate(r int64) float64 {
	m := w.mach
	return m.GroupOf(m.NodeOf(r, w.n)).FlopRate / float64(m.TasksPerNode)
}

// flops converts a duration of rank r's CPU into flops at its rate.
func (w *Writer) flops(r int64, d netmodel.Duration) int64 {
	f := math.Round(float64(d) / float64(netmodel.Second) * w.Rate(r))
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// compute writes "R compute FLOPS", unless flops is 0.
func (w *Writer) compute(r, flops int64) {
	if flops > 0 {
		w.end(r, appendInt(w.begin(r, "compute"), flops))
	}
}

// Collective implements interp.Observer: a collective over every rank
// becomes a SimGrid collective, one over some of them the point-to-point
// steps of its algorithm.
func (w *Writer) Collective(rank int64, c netmodel.Collective, alg netmodel.Algorithm, members []int64, me int, tag int32) {
	if !w.ok(rank) {
		return
	}
	if w.Steps || members != nil && int64(len(members)) < w.n {
		w.expand(rank, c, alg, members, me, tag)
		return
	}
	if int64(c.N) != w.n {
		w.err = fmt.Errorf("tit: %v over %d ranks of %d without a member list", c.Op, c.N, w.n)
		return
	}
	// world(i) is the world rank of group rank i and group(p) the group
	// rank of world rank p: the same unless tasks were reassigned.
	var inv []int
	if members != nil {
		inv = make([]int, w.n)
		for i, p := range members {
			inv[p] = i
		}
	}
	world := func(i int) int64 {
		if members == nil {
			return int64(i)
		}
		return members[i]
	}
	group := func(p int) int {
		if inv == nil {
			return p
		}
		return inv[p]
	}
	// each appends, for every world rank p in order, size(group(p)).
	each := func(b []byte, size func(g int) int64) []byte {
		for p := range c.N {
			b = w.count(b, size(group(p)))
		}
		return b
	}
	var b []byte
	switch c.Op {
	case netmodel.Barrier:
		b = w.begin(rank, "barrier")
	case netmodel.Bcast:
		b = w.count(w.begin(rank, "bcast"), c.Bytes)
		b = appendInt(b, world(c.Root))
	case netmodel.Reduce:
		b = w.count(w.begin(rank, "reduce"), c.Bytes)
		b = appendInt(b, w.combine(rank, c, alg, me))
		b = appendInt(b, world(c.Root))
	case netmodel.Allreduce:
		b = w.count(w.begin(rank, "allreduce"), c.Bytes)
		b = appendInt(b, w.combine(rank, c, alg, me))
	case netmodel.ReduceScatter:
		// Rank i gets block i of Bytes/N, the remainder spread over the
		// first ranks (netmodel.Collective).
		n := int64(c.N)
		b = each(w.begin(rank, "reducescatter"), func(g int) int64 {
			if int64(g) < c.Bytes%n {
				return c.Bytes/n + 1
			}
			return c.Bytes / n
		})
		b = appendInt(b, w.combine(rank, c, alg, me))
	case netmodel.Gather:
		if c.Sizes == nil {
			b = w.count(w.count(w.begin(rank, "gather"), c.Bytes), c.Bytes)
		} else {
			b = w.count(w.begin(rank, "gatherv"), c.Sizes(me, c.Root))
			b = each(b, func(g int) int64 { return c.Sizes(g, c.Root) })
		}
		b = appendInt(b, world(c.Root))
	case netmodel.Scatter:
		if c.Sizes == nil {
			b = w.count(w.count(w.begin(rank, "scatter"), c.Bytes), c.Bytes)
		} else {
			b = each(w.begin(rank, "scatterv"), func(g int) int64 { return c.Sizes(c.Root, g) })
			b = w.count(b, c.Sizes(c.Root, me))
		}
		b = appendInt(b, world(c.Root))
	case netmodel.Allgather:
		if c.Sizes == nil {
			b = w.count(w.count(w.begin(rank, "allgather"), c.Bytes), c.Bytes)
		} else {
			b = w.count(w.begin(rank, "allgatherv"), c.Sizes(me, me))
			b = each(b, func(g int) int64 { return c.Sizes(g, g) })
		}
	case netmodel.Alltoall:
		if c.Sizes == nil {
			b = w.count(w.count(w.begin(rank, "alltoall"), c.Bytes), c.Bytes)
			break
		}
		var sent, recvd int64
		for g := range c.N {
			sent += c.Sizes(me, g)
			recvd += c.Sizes(g, me)
		}
		b = w.count(w.begin(rank, "alltoallv"), sent)
		b = each(b, func(g int) int64 { return c.Sizes(me, g) })
		b = w.count(b, recvd)
		b = each(b, func(g int) int64 { return c.Sizes(g, me) })
	default:
		w.err = fmt.Errorf("tit: collective %v has no SimGrid action", c.Op)
		return
	}
	w.end(rank, b)
}

// combine returns the flops that take rank as long as the combining steps
// of its part in reduction c take the interpreter: each step that reduces k
// bytes moves 3k bytes of memory (two operands read, the result written).
func (w *Writer) combine(rank int64, c netmodel.Collective, alg netmodel.Algorithm, me int) int64 {
	steps, err := netmodel.Plan(c, alg, me)
	if err != nil {
		w.err = fmt.Errorf("tit: %v with the %s algorithm: %w", c.Op, alg, err)
		return 0
	}
	var d netmodel.Duration
	for _, st := range steps {
		if st.Reduce > 0 {
			d += w.mach.Touch(rank, w.n, 3*st.Reduce)
		}
	}
	return w.flops(rank, d)
}

// expand writes rank's part in a collective as the point-to-point steps
// of its plan. members maps group ranks to ranks, or is nil when they are
// the same.
func (w *Writer) expand(rank int64, c netmodel.Collective, alg netmodel.Algorithm, members []int64, me int, tag int32) {
	steps, err := netmodel.Plan(c, alg, me)
	if err != nil {
		w.err = fmt.Errorf("tit: %v with the %s algorithm: %w", c.Op, alg, err)
		return
	}
	proc := func(g int) int64 {
		if members == nil {
			return int64(g)
		}
		return members[g]
	}
	t := int64(tag)
	for _, st := range steps {
		switch {
		case st.SendTo >= 0 && st.RecvFrom >= 0:
			src, dst := proc(st.RecvFrom), proc(st.SendTo)
			w.p2p(rank, "irecv", src, t, st.RecvBytes)
			w.p2p(rank, "isend", dst, t, st.SendBytes)
			w.wait(rank, src, rank, t)
			w.wait(rank, rank, dst, t)
		case st.SendTo >= 0:
			w.p2p(rank, "send", proc(st.SendTo), t, st.SendBytes)
		case st.RecvFrom >= 0:
			w.p2p(rank, "recv", proc(st.RecvFrom), t, st.RecvBytes)
		}
		if st.Reduce > 0 {
			w.compute(rank, w.flops(rank, w.mach.Touch(rank, w.n, 3*st.Reduce)))
		}
	}
}

// wait writes "R wait SRC DST TAG": SimGrid's wait names the request it
// completes by sender, receiver and tag.
func (w *Writer) wait(r, src, dst, tag int64) {
	b := w.begin(r, "wait")
	b = appendInt(b, src)
	b = appendInt(b, dst)
	b = appendInt(b, tag)
	w.end(r, b)
}
