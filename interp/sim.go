package interp

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"runtime/metrics"
	"slices"
	"time"
	"unsafe"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// Options configure a run.
type Options struct {
	NumTasks  int64
	Args      []string // the program's own options, e.g. {"--reps", "10"}
	Platform  *netmodel.Platform
	Seed      uint64
	MaxEvents int64     // stop after this many events; 0: no limit
	Output    io.Writer // where OUTPUTS writes; nil: discarded
	Timeline  bool      // record what each task does when, for Timeline
	Logs      bool      // keep LOGS data, for WriteLogs
	Observer  Observer  // told of every MPI-level operation as it is issued; nil: none

	// Context stops the run when it is done (cancelled from another
	// goroutine, on Ctrl-C say): Run then returns the result so far, with
	// Status Stopped and an "interrupted" problem saying when. nil: never.
	Context context.Context
	// Progress, if set, is called on the run's goroutine while the run
	// goes on, at most every ProgressInterval of wall time, with the
	// events processed and the simulated time reached. It must return
	// quickly and must not call into the Sim.
	Progress func(Progress)
	// ProgressInterval is the least wall time between calls of Progress;
	// 0 means DefaultProgressInterval.
	ProgressInterval time.Duration
	// MaxMemory bounds the memory of the run, in bytes. New refuses a run
	// whose tasks alone would take more, with the estimate; a run whose
	// messages and posted receives outstanding would take it over stops
	// there with a "limit" problem at the statement that sent or posted
	// them. 0 means half the physical memory (4 GiB where it cannot be
	// read); the command line's --max-memory sets it.
	MaxMemory int64
	// FastForward skips the remaining iterations of a FOR n REPETITIONS
	// loop once they repeat with a period (see fastforward.go): exactly,
	// unless FastForwardBound > 0 lets periods that differ by less than
	// that fraction (0.001 for 0.1%) count as one.
	FastForward      bool
	FastForwardBound float64
	// NoCollectiveEvaluator turns off the evaluation of collectives that
	// every task enters at once without their events (see collfast.go).
	// The Result is the same either way; tests compare the two.
	NoCollectiveEvaluator bool
}

// Progress is how far a run has got.
type Progress struct {
	Events int64 // events processed
	Now    Time  // the simulated time reached
}

// DefaultProgressInterval is how often Options.Progress is called at most
// unless Options.ProgressInterval says otherwise.
const DefaultProgressInterval = 200 * time.Millisecond

// pollEvents is how many events pass between looks at the event limit,
// the context and the clock: often enough to answer within milliseconds,
// seldom enough to cost nothing per event.
const pollEvents = 1 << 14

// Problem is something wrong found while running: a failed assertion, a
// runtime error, a deadlock, a message never received, an asynchronous
// operation never awaited.
type Problem struct {
	Kind string // "assertion", "runtime", "deadlock", "unreceived", "unawaited", "limit", "interrupted"
	Task int64  // -1 if it concerns no single task
	Span lang.Span
	Msg  string
}

func (p Problem) Error() string {
	if p.Span.Start.IsValid() {
		return fmt.Sprintf("%s: %s", p.Span.Start, p.Msg)
	}
	return p.Msg
}

// Pretty formats the problem as a diagnostic on the program's source src,
// with the line and a caret under the statement, or as prefix: message
// when it concerns no statement.
func (p Problem) Pretty(src []byte, prefix string) string {
	if !p.Span.Start.IsValid() {
		return prefix + ": " + p.Msg
	}
	return lang.Diagnostic{Pos: p.Span.Start, End: p.Span.End, Severity: lang.Error, Msg: p.Msg}.Pretty(src)
}

// GCPercent is the garbage collector target that parley run sets (see
// runtime/debug.SetGCPercent) unless GOGC is given. The simulator's heap is
// mostly long-lived task state and little garbage, so a target below Go's
// default 100 cuts the peak memory of a million-task run by about a tenth
// at no measured cost in speed.
const GCPercent = 50

// Sim is one run of a program.
type Sim struct {
	prog  *ir.Program
	code  []instr
	opts  Options
	g     *ir.Globals
	plat  *netmodel.Platform
	tasks []task
	slots []int64 // every task's variable slots, NumSlots apiece

	frame   ir.Frame // the frame of task frameOf, if not nil (see task.frame)
	frameOf *task
	q       eventQueue
	now     Time
	nev     int64 // events processed
	// stepping is the task whose statements the event loop is running,
	// which a runtime error stops.
	stepping *task

	maxBytes int64 // the largest message whose costs stay within netmodel.MaxTime
	// spread says every task has a node of its own (one task per node,
	// under either mapping), so only a task's messages to itself may take
	// the platform's intra-node link.
	spread bool

	msgs  slab[message]
	reqs  slab[recvReq]
	costs msgCosts  // the event path's messages' costs, for the size last priced
	stmts []ir.Stmt // by ID
	// sameMsg, by statement ID, says whether a receive statement's message
	// is the same from every sender (senderFree): 0 not yet known, 1 yes,
	// 2 no.
	sameMsg []uint8
	// faces, by statement ID, says whether a send statement is a face
	// (isFace): 0 not yet known, 1 yes, 2 no.
	faces    []uint8
	memos    []msgMemo // by statement ID, twice: the sends' message, the receives' (see message)
	actPool  []*activity
	collPool []*collState
	everyone *group // the group of all tasks
	planner  netmodel.Planner
	net      *netState // the flow or packet model's network; nil under loggp

	patterns patternCache
	collUse  map[collUseKey]*CollectiveUse // the algorithms collectives ran with
	shared   map[sharedKey][]collCall      // one-call lists tasks share (see shareCalls)
	// The list sharedCall returned last, which the next task usually
	// asks for again.
	lastShared struct {
		k sharedKey
		l []collCall
	}
	// The group cachedGroup found last, likewise.
	lastGroup struct {
		k patKey
		g *group
	}
	agree map[agreeKey]*agreement // timed-loop agreements in progress

	out          *bufio.Writer
	problems     []Problem
	problemCount map[string]int64 // by kind, including those not kept
	fatal        bool             // an assertion, a runtime error or the memory limit stopped the run
	halted       bool             // Options.MaxEvents or Options.Context stopped the run
	deadlocked   bool
	budget       int64     // events left until the next poll
	lastProgress time.Time // when Options.Progress was last called
	tl           *timeline // nil unless Options.Timeline
	ff           *ffState  // nil unless Options.FastForward
	cf           *cfState  // nil unless a collective may be evaluated (see collfast.go)
	logID        string    // the run's identifier in its logs, once made
	memLimit     int64     // Options.MaxMemory, or the default
	memBase      int64     // the estimated memory of the tasks (see checkTasks)
	memSureUpTo  int64     // held memory known to fit by measurement (see fits)
	logBytes     int64     // the estimated memory of the logs' data (see logGrowth)
}

// MaxTasks is the most tasks a run can have: an event names a task in 30
// bits.
const MaxTasks = maxID

// ErrHelp is returned when the program's arguments ask for its help text.
var ErrHelp = ir.ErrHelp

// New prepares a run of p.
func New(p *ir.Program, opts Options) (*Sim, error) {
	if opts.Platform == nil {
		return nil, errors.New("interp: no platform")
	}
	if opts.NumTasks > MaxTasks {
		return nil, fmt.Errorf("at most %d tasks", MaxTasks)
	}
	// Validation bounds the platform's times, which keeps every sum of a
	// clock reading and costs within int64 (see netmodel.MaxTime).
	if err := opts.Platform.Validate(); err != nil {
		return nil, err
	}
	base, err := checkTasks(p, opts)
	if err != nil {
		return nil, err
	}
	m := &opts.Platform.Machine
	g, err := p.Configure(ir.Config{NumTasks: opts.NumTasks, Args: opts.Args, Seed: opts.Seed, IntSize: m.IntSize, PageSize: m.PageSize})
	if err != nil {
		return nil, err
	}
	code, stmts := compile(p)
	s := &Sim{prog: p, code: code, stmts: stmts, opts: opts, g: g, plat: opts.Platform, agree: map[agreeKey]*agreement{},
		memLimit: memlimit.Or(opts.MaxMemory), memBase: base}
	s.maxBytes = s.plat.Network.MaxBytes()
	s.spread = s.plat.Machine.TasksPerNode == 1
	if s.plat.Intra != nil {
		s.maxBytes = min(s.maxBytes, s.plat.Intra.MaxBytes())
	}
	if err := s.initNet(); err != nil {
		return nil, err
	}
	s.patterns.init(len(stmts))
	if opts.Timeline {
		s.tl = newTimeline(int(opts.NumTasks))
	}
	s.everyone = &group{all: true, n: int(opts.NumTasks)}
	out := opts.Output
	if out == nil {
		out = io.Discard
	}
	s.out = bufio.NewWriter(out)
	n := int(opts.NumTasks)
	s.tasks = make([]task, n)
	s.slots = make([]int64, n*p.NumSlots)
	s.q.nodes = make([]node, 0, n) // every task's first event, without growing
	for i := range s.tasks {
		t := &s.tasks[i]
		t.sim = s
		t.id = int32(i)
		s.schedule(0, makeEvent(evResume, int32(i)))
	}
	if opts.FastForward {
		s.newFastForward()
	}
	s.newCollectiveEvaluator()
	return s, nil
}

// Run predicts the program's run. It always terminates: a deadlock, a
// failed assertion, a runtime error or the event limit ends it with a
// Problem in the result.
func Run(p *ir.Program, opts Options) (*Result, error) {
	s, err := New(p, opts)
	if err != nil {
		return nil, err
	}
	return s.Run(), nil
}

// Run predicts the run prepared by New; call it once. Keep the Sim to
// write its logs or timeline afterwards.
func (s *Sim) Run() *Result {
	switch {
	case s.ff != nil:
		s.runFastForward()
	case s.cf != nil:
		s.runCollectives()
	default:
		s.run()
	}
	return s.result(s.releasePools())
}

// bigRun is the task count from which Run collects the garbage between
// the run and its Result (see releasePools).
const bigRun = 1 << 16

// releasePools drops the finished activities and collective states kept
// for reuse and returns room for the Result's per-task figures. In a run
// of bigRun tasks or more that may hold garbage worth reusing (see
// garbageOver) it collects the garbage first, so that the figures take
// the memory of what the run no longer holds (the pools; the collective
// evaluator's arrays) instead of adding to the peak: 128 of a
// million-task all-reduce's 737 bytes a task. The collection took no more
// CPU time than faulting in the fresh memory did: a million-task
// broadcast took 1.9 s of CPU with it, 2.1 s without (one run each).
// Where the run holds little garbage (the evaluator's shortcuts make
// none) the collection would find nothing, and the room, mostly new live
// memory, would set off a second one anyway.
func (s *Sim) releasePools() []TaskStats {
	s.actPool, s.collPool = nil, nil
	n := len(s.tasks)
	if n >= bigRun && garbageOver(int64(n)*int64(unsafe.Sizeof(TaskStats{}))/8) {
		runtime.GC()
	}
	return make([]TaskStats, n)
}

// garbageOver reports whether the heap may hold more than b bytes of
// garbage: whether it has grown by more than b since the last collection.
func garbageOver(b int64) bool {
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 || m[1].Value.Kind() != metrics.KindUint64 {
		return true // not told: collect, as if there were
	}
	return int64(m[1].Value.Uint64())-int64(m[0].Value.Uint64()) > b
}

func (s *Sim) schedule(at Time, e event) { s.q.push(at, e) }

// resumeAt schedules task t to continue at time at (or now, if earlier).
func (s *Sim) resumeAt(t *task, at Time) {
	s.schedule(max(at, s.now), makeEvent(evResume, t.id))
}

func (s *Sim) run() {
	defer s.out.Flush()
	if s.cf != nil {
		// A run stopped while tasks were parked at a collective ends as
		// if they had gone on (see collfast.go).
		defer s.cfRelease()
	}
	s.lastProgress = time.Now()
	for {
		// One Catch for the whole loop, not one per event: a task's
		// runtime error stops the run anyway (see stepping).
		var finished bool
		err := ir.Catch(func() { finished = s.events() })
		if err == nil {
			if finished {
				s.finishChecks()
			}
			return
		}
		t := s.stepping
		if t == nil {
			panic(err) // raised outside a task's statements, where nothing caught it before either
		}
		s.stepping = nil
		s.failed(t, err)
	}
}

// events processes events until none is left (it reports true) or the run
// stops.
func (s *Sim) events() bool {
	for !s.fatal {
		watch := false
		if s.ff != nil && len(s.ff.parked) > 0 {
			// Tasks are parked at a loop boundary (see fastforward.go).
			if !s.ffMayWait() {
				s.ffRelease()
				continue
			}
			watch = true
		}
		if s.cf != nil && len(s.cf.parked) > 0 && !s.cfMayWait() {
			// Tasks are parked at a collective (see collfast.go).
			s.cfGo()
			continue
		}
		if s.q.len() == 0 {
			break
		}
		if s.budget == 0 && s.poll() {
			return false
		}
		s.budget--
		at, e := s.q.pop()
		if at > netmodel.MaxTime {
			s.clockOverflow(e)
			return false
		}
		s.now = at
		s.nev++
		switch id := e.id(); e.kind() {
		case evResume:
			s.step(&s.tasks[id], watch)
		case evArrive:
			if id == netWake {
				s.netStep()
			} else {
				s.arrive(id)
			}
		case evCTS:
			s.clearToSend(id)
		case evData:
			s.dataArrive(id)
		}
		if watch {
			s.ffWatch(e)
		}
	}
	return !s.fatal
}

// poll runs when s.budget events have passed: it stops the run at the
// event limit or when the context is done, and reports progress. It
// reports whether the run must stop.
func (s *Sim) poll() bool {
	if s.opts.MaxEvents > 0 && s.nev >= s.opts.MaxEvents {
		s.problem(Problem{Kind: "limit", Task: -1,
			Msg: fmt.Sprintf("stopped after %d events (--max-events) at predicted time %s", s.nev, s.now)})
		s.halted = true
		return true
	}
	if ctx := s.opts.Context; ctx != nil && ctx.Err() != nil {
		s.problem(Problem{Kind: "interrupted", Task: -1,
			Msg: fmt.Sprintf("interrupted after %d events at predicted time %s: %v", s.nev, s.now, context.Cause(ctx))})
		s.halted = true
		return true
	}
	if s.opts.Progress != nil && s.nev > 0 {
		if now := time.Now(); now.Sub(s.lastProgress) >= cmp.Or(s.opts.ProgressInterval, DefaultProgressInterval) {
			s.lastProgress = now
			s.opts.Progress(Progress{Events: s.nev, Now: s.now})
		}
	}
	s.budget = pollEvents
	if s.opts.MaxEvents > 0 {
		s.budget = min(s.budget, s.opts.MaxEvents-s.nev)
	}
	return false
}

// step runs task t from where it stopped until it blocks, sleeps or ends.
// A runtime error stops the run, under the event loop's Catch (see run),
// or under the task's own if caught (the loop is watching the event: see
// ffWatch, which must still see it).
func (s *Sim) step(t *task, caught bool) {
	if t.status == done {
		return
	}
	if t.cpuFree > s.now {
		// The CPU is still busy (handling an incoming message, say).
		s.resumeAt(t, t.cpuFree)
		return
	}
	if caught {
		s.exec(t)
		return
	}
	s.stepping = t
	t.execute()
	s.stepping = nil
}

// exec runs task t's instructions until it blocks, sleeps or ends, under a
// Catch of its own, for callers that look at the run after the task's
// error: cfRelease and ffRelease stop releasing tasks, and a watched event
// is still watched (see step).
func (s *Sim) exec(t *task) {
	if err := ir.Catch(func() { t.execute() }); err != nil {
		s.failed(t, err)
	}
}

// failed stops the run on task t's runtime error.
func (s *Sim) failed(t *task, err error) {
	if err == errOverLimit {
		return // checkGrowth has recorded the problem
	}
	var re *ir.RuntimeError
	sp := lang.Span{}
	msg := err.Error()
	if errors.As(err, &re) {
		sp, msg = re.Span, re.Msg
	}
	s.problem(Problem{Kind: "runtime", Task: int64(t.id), Span: sp, Msg: fmt.Sprintf("task %d: %s", t.id, msg)})
	s.fatal = true
}

// maxTimeText describes netmodel.MaxTime in errors.
const maxTimeText = "2^61 ps (about 26.7 days), the longest a simulation can run"

// timeOverflow stops the run at sp, where what would take simulated time
// past netmodel.MaxTime: beyond it the clock could overflow.
func timeOverflow(sp lang.Span, what string) {
	panic(&ir.RuntimeError{Span: sp, Msg: "simulated time overflows: " + what + " takes the clock past " + maxTimeText})
}

// clockOverflow stops the run at event e, which is due past
// netmodel.MaxTime, naming the statement that scheduled it.
func (s *Sim) clockOverflow(e event) {
	var t *task
	var st stmtRef = noStmt
	if e.kind() == evResume {
		t = &s.tasks[e.id()]
		switch {
		case t.act != nil && t.act != doneActivity && t.act != issuedActivity && t.act != faceSending:
			st = ref(t.act.stmt)
		case t.pc < int32(len(s.code)):
			st = ref(s.code[t.pc].stmt)
		}
	} else if e.id() != netWake {
		m := s.msgs.at(e.id())
		t, st = &s.tasks[m.src], m.stmt
	} else {
		s.problem(Problem{Kind: "runtime", Task: -1,
			Msg: fmt.Sprintf("simulated time overflows: a message's flow would take the run past %s (is a link's bandwidth far too low?)", maxTimeText)})
		s.fatal = true
		return
	}
	s.problem(Problem{Kind: "runtime", Task: int64(t.id), Span: s.span(st),
		Msg: fmt.Sprintf("task %d: simulated time overflows: the run goes past %s", t.id, maxTimeText)})
	s.fatal = true
}

// maxProblemsPerKind bounds the problems kept of each kind: a mistake
// repeated on a million tasks is reported a few times and then counted.
const maxProblemsPerKind = 8

func (s *Sim) problem(p Problem) {
	if s.problemCount == nil {
		s.problemCount = map[string]int64{}
	}
	s.problemCount[p.Kind]++
	if s.problemCount[p.Kind] <= maxProblemsPerKind {
		s.problems = append(s.problems, p)
	}
}

// problemList returns the problems kept, each kind followed by a count of
// the ones left out.
func (s *Sim) problemList() []Problem {
	out := slices.Clone(s.problems)
	for _, kind := range slices.Sorted(maps.Keys(s.problemCount)) {
		if n := s.problemCount[kind] - maxProblemsPerKind; n > 0 {
			out = append(out, Problem{Kind: kind, Task: -1, Msg: fmt.Sprintf("... and %d more %s problem(s) like these", n, kind)})
		}
	}
	return out
}

// stmtRef names a statement by its ID in 4 bytes, for the structures there
// are millions of; noStmt is none.
type stmtRef int32

const noStmt stmtRef = -1

func ref(st ir.Stmt) stmtRef {
	if st == nil {
		return noStmt
	}
	return stmtRef(st.ID())
}

// span is where statement r is, or no position for noStmt.
func (s *Sim) span(r stmtRef) lang.Span {
	if r < 0 || int(r) >= len(s.stmts) || s.stmts[r] == nil {
		return lang.Span{}
	}
	return s.stmts[r].Span()
}
