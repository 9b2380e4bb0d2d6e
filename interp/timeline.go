package interp

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/netmodel"
)

// The timeline records, when Options.Timeline asks for it, what each task
// did when: CPU spans (compute, send and receive overheads), waits (a task
// blocked on a receive, a rendezvous send, an AWAIT COMPLETION or a
// collective step, with what it waited for) and, for every message, the
// send span it left and the receive span it arrived in. Nothing is kept,
// and the hot path tests one nil pointer, when it is off.

type spanKind uint8

const (
	spanCompute spanKind = iota
	spanSend
	spanRecv
	spanWait
)

var spanNames = [...]string{spanCompute: "compute", spanSend: "send overhead", spanRecv: "receive overhead", spanWait: "wait"}

// span is a stretch of one task's time spent on one thing: 40 bytes, as
// there may be many.
type span struct {
	start, end Time
	task       int32
	peer       int32 // the other task of a message or a wait; -1: none
	stmt       stmtRef
	n          int32 // spanWait in AWAIT COMPLETION: operations outstanding
	kind       spanKind
	wait       waitKind // spanWait: what the task waited for
	op         uint8    // spanWait on a collective: which netmodel.Op
	open       bool     // spanWait: the run ended first
}

// flow is a message's arrow from the span that sent it to the span that
// received it.
type flow struct {
	from, to     int32
	sentAt, arAt Time
}

// timeline is what Options.Timeline records.
type timeline struct {
	spans []span
	flows []flow
	// sent is where each message in flight left from, by message index:
	// the sender and the middle of its send span.
	sent []flow
	// waits is each task's wait in progress; waits[t].kind is spanWait
	// while task t is blocked, and the zero span otherwise.
	waits []span
	// full is set once the timeline reached the memory limit.
	full bool
}

func newTimeline(tasks int) *timeline { return &timeline{waits: make([]span, tasks)} }

// Sizes of what the timeline keeps, for the memory limit.
const (
	spanBytes = int64(unsafe.Sizeof(span{}))
	flowBytes = int64(unsafe.Sizeof(flow{}))
)

// bytes estimates the memory the timeline will take once its spans and
// flows next grow (append doubles them) and it is written (writing sorts a
// copy of the spans).
func (tl *timeline) bytes() int64 {
	return 3*int64(cap(tl.spans)+1)*spanBytes + 2*int64(cap(tl.flows)+1)*flowBytes + int64(cap(tl.sent)+len(tl.waits))*flowBytes
}

// addSpan keeps sp, unless the timeline would take the run over its
// memory limit: then the run stops with a "limit" problem.
func (s *Sim) addSpan(sp span) {
	if len(s.tl.spans) == cap(s.tl.spans) && s.timelineFull() {
		return
	}
	s.tl.spans = append(s.tl.spans, sp)
}

// timelineFull reports whether the timeline, about to grow, would take the
// run over its memory limit, and stops the run if so. The timeline is
// checked only as it grows, so that recording costs nothing more.
func (s *Sim) timelineFull() bool {
	if s.tl.full {
		return true
	}
	if s.fits(0) {
		return false
	}
	s.tl.full = true
	s.problem(Problem{Kind: "limit", Task: -1, Msg: fmt.Sprintf(
		"the timeline's %d spans and %d arrows, with %s for the tasks, would pass %s at predicted time %s: drop --timeline, or run fewer tasks or iterations",
		len(s.tl.spans), len(s.tl.flows), memlimit.Format(s.memBase), memlimit.Describe(s.opts.MaxMemory), s.now)})
	s.fatal = true
	return true
}

// record notes a CPU span of task t. stmt is the statement it serves.
func (s *Sim) record(t *task, k spanKind, start, end Time, stmt stmtRef) {
	if s.tl != nil && end > start {
		s.addSpan(span{task: t.id, kind: k, start: start, end: end, stmt: stmt, peer: -1})
	}
}

// recordSend notes message id leaving task t in the span start..end.
func (s *Sim) recordSend(t *task, id int32, start, end Time, stmt stmtRef) {
	s.record(t, spanSend, start, end, stmt)
	for int(id) >= len(s.tl.sent) {
		s.tl.sent = append(s.tl.sent, flow{})
	}
	s.tl.sent[id] = flow{from: t.id, sentAt: start + (end-start)/2}
}

// recordRecv notes message m (index id) taken in by task r in the span
// start..end, and the arrow from where it was sent. The arrows end in the
// middle of spans, where viewers bind them to the enclosing span.
func (s *Sim) recordRecv(r *task, id int32, m *message, start, end Time) {
	s.record(r, spanRecv, start, end, m.stmt)
	f := s.tl.sent[id]
	f.to, f.arAt = r.id, start+(end-start)/2
	if len(s.tl.flows) == cap(s.tl.flows) && s.timelineFull() {
		return
	}
	s.tl.flows = append(s.tl.flows, f)
}

// blocked notes that t waits, from now, for what t.waitOn says; op is the
// collective of a collective step.
func (s *Sim) blocked(t *task, op netmodel.Op) {
	w := &s.tl.waits[t.id]
	if w.kind == spanWait {
		s.unblocked(t, s.now)
	}
	*w = span{task: t.id, kind: spanWait, start: s.now, peer: t.waitOn.peer, stmt: t.waitOn.stmt, wait: t.waitOn.kind, op: uint8(op), n: t.asyncPending()}
	if t.waitOn.kind == waitAwait {
		w.peer = -1
	}
}

// unblocked ends t's wait at at.
func (s *Sim) unblocked(t *task, at Time) {
	w := &s.tl.waits[t.id]
	if w.kind != spanWait {
		return
	}
	w.end = max(at, w.start)
	if w.end > w.start {
		s.addSpan(*w)
	}
	*w = span{}
}

// traceEvent is one event of the Chrome trace format ("Trace Event
// Format", the JSON that Perfetto and chrome://tracing open). Times are
// in microseconds.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Pid  int            `json:"pid"`
	Tid  int32          `json:"tid"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"` // "e": a flow's end binds to the enclosing span
	S    string         `json:"s,omitempty"`  // an instant's scope
	Args map[string]any `json:"args,omitempty"`
}

// WriteTimeline writes what each task did when as Chrome trace JSON, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per
// task, times in microseconds. Spans are the CPU's compute, send and
// receive overheads, and waits, named for what they waited for; each
// carries its statement's text and position. Arrows lead from the span
// that sent each message to the span that received it. A wait the run
// ended in (a deadlock, say) runs to the end and says so.
func (s *Sim) WriteTimeline(w io.Writer) error {
	b := bufio.NewWriter(w)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	n := 0
	emit := func(e *traceEvent) error {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		return enc.Encode(e) // one event per line
	}
	b.WriteString(`{"displayTimeUnit":"ns","traceEvents":[` + "\n")
	if err := emit(&traceEvent{Name: "process_name", Ph: "M", Args: map[string]any{"name": "parley: " + s.prog.Lang.File}}); err != nil {
		return err
	}
	for i := range s.tasks {
		if err := emit(&traceEvent{Name: "thread_name", Ph: "M", Tid: int32(i), Args: map[string]any{"name": fmt.Sprintf("task %d", i)}}); err != nil {
			return err
		}
	}
	var spans []span
	if s.tl != nil {
		spans = slices.Clone(s.tl.spans)
		for _, w := range s.tl.waits {
			if w.kind == spanWait {
				w.end, w.open = max(s.now, w.start), true
				spans = append(spans, w)
			}
		}
	}
	// Enclosing spans first, so that viewers nest them.
	slices.SortStableFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.task, b.task), cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	stmts := map[stmtRef]map[string]any{}
	for _, sp := range spans {
		e := traceEvent{Name: spanNames[sp.kind], Cat: spanNames[sp.kind], Ph: "X", Tid: sp.task, Ts: sp.start.Micros(), Dur: (sp.end - sp.start).Micros()}
		e.Args = s.spanArgs(sp, stmts)
		if sp.kind == spanWait {
			e.Name = s.waitName(sp)
		}
		if err := emit(&e); err != nil {
			return err
		}
	}
	if s.tl != nil {
		for i, f := range s.tl.flows {
			start := traceEvent{Name: "message", Cat: "message", Ph: "s", Tid: f.from, Ts: f.sentAt.Micros(), ID: i + 1}
			end := traceEvent{Name: "message", Cat: "message", Ph: "f", BP: "e", Tid: f.to, Ts: f.arAt.Micros(), ID: i + 1}
			if err := emit(&start); err != nil {
				return err
			}
			if err := emit(&end); err != nil {
				return err
			}
		}
	}
	for i := range s.tasks {
		if t := &s.tasks[i]; t.status == done {
			if err := emit(&traceEvent{Name: "finish", Ph: "i", S: "t", Tid: int32(i), Ts: t.finish.Micros()}); err != nil {
				return err
			}
		}
	}
	b.WriteString("]}\n")
	return b.Flush()
}

// spanArgs are the details a viewer shows for a span: its statement's
// text and position (shared by the spans of one statement), the peer, and
// whether the run ended inside it.
func (s *Sim) spanArgs(sp span, stmts map[stmtRef]map[string]any) map[string]any {
	base, ok := stmts[sp.stmt]
	if !ok {
		base = map[string]any{}
		if pos := s.span(sp.stmt); pos.Start.IsValid() {
			base["statement"] = s.stmtText(sp.stmt)
			base["at"] = pos.Start.String()
		}
		stmts[sp.stmt] = base
	}
	if sp.peer < 0 && !sp.open {
		return base
	}
	args := make(map[string]any, len(base)+2)
	for k, v := range base {
		args[k] = v
	}
	if sp.peer >= 0 {
		args["peer"] = sp.peer
	}
	if sp.open {
		args["unfinished"] = "the run ended during this wait"
	}
	return args
}

// waitName says what a wait was for.
func (s *Sim) waitName(sp span) string {
	switch sp.wait {
	case waitRecv:
		return fmt.Sprintf("wait: receive from task %d", sp.peer)
	case waitSend:
		return fmt.Sprintf("wait: task %d to receive (rendezvous)", sp.peer)
	case waitAwait:
		return fmt.Sprintf("wait: AWAIT COMPLETION of %d operation(s)", sp.n)
	case waitColl:
		return fmt.Sprintf("wait: %s step with task %d", netmodel.Op(sp.op), sp.peer)
	}
	return "wait"
}

// maxStmtText bounds a statement's text in the timeline: a loop's text
// holds its whole body.
const maxStmtText = 160

// stmtText is a statement's source text on one line, shortened if long.
func (s *Sim) stmtText(r stmtRef) string {
	sp := s.span(r)
	src := s.prog.Lang.Source
	if sp.Start.Offset < 0 || sp.End.Offset > len(src) || sp.End.Offset <= sp.Start.Offset {
		return ""
	}
	text := strings.Join(strings.FieldsFunc(string(src[sp.Start.Offset:sp.End.Offset]), unicode.IsSpace), " ")
	if len(text) > maxStmtText {
		cut := maxStmtText - 3
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	return text
}
