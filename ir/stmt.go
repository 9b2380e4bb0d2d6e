package ir

import (
	"slices"

	"github.com/parley-hpc/parley/lang"
)

// Program is a resolved program. Its structure is independent of the number
// of tasks and of the parameter values, which Globals supplies, so the
// interpreter and the code generator walk the same tree.
type Program struct {
	Lang     *lang.Program
	Params   []*ParamInfo
	Body     []*TopLevel // each top-level statement opens a table in the logs
	Backends []string    // BACKEND DECLARES text, in order
	NumSlots int         // variable slots in a task's frame
	Slots    []string    // the name of each slot's variable
	NumStmts int         // statements are numbered 0..NumStmts-1
}

// ParamInfo is a declared parameter.
type ParamInfo struct {
	Name, Help, Long, Short string
	Default                 Expr // constant
	Sweep                   []Range
	Decl                    *lang.ParamDecl
}

// TopLevel is a top-level complex statement.
type TopLevel struct {
	at
	Index int
	Stmts []Stmt
}

// Stmt is a resolved statement. Every statement has a program-unique ID,
// which interpreters use to index per-statement state.
type Stmt interface {
	ID() int
	Span() lang.Span
}

type stmt struct {
	at
	id int
}

// ID returns the statement's number.
func (s *stmt) ID() int { return s.id }

// Block is `{ ... }`.
type Block struct {
	stmt
	Stmts []Stmt
}

// Repeat is FOR n REPETITIONS [PLUS w WARMUP REPETITIONS [AND A
// SYNCHRONIZATION]].
type Repeat struct {
	stmt
	Count  Expr
	Warmup Expr // nil: none
	Sync   bool
	Body   Stmt
}

// Timed is FOR n UNIT [PLUS w WARMUP UNIT [AND A SYNCHRONIZATION]]: it
// repeats its body until the time is up.
type Timed struct {
	stmt
	Amount     Expr
	Unit       lang.TimeUnit
	Warmup     Expr // nil: none
	WarmupUnit lang.TimeUnit
	Sync       bool
	Body       Stmt
}

// ForEach is FOR EACH v IN ranges.
type ForEach struct {
	stmt
	Slot   int
	Name   string
	Ranges []Range
	Body   Stmt
}

// Let is LET bindings WHILE body.
type Let struct {
	stmt
	Bindings []*Binding
	Body     Stmt
}

// Binding is one LET binding: a value, a random task shared by all tasks,
// or a task group (which needs no slot: uses refer to the group directly).
type Binding struct {
	Slot   int // -1 for a group
	Name   string
	Value  Expr
	Random *RandomTask
	Group  *TaskSet
}

// RandomTask is A RANDOM TASK with its constraint.
type RandomTask struct {
	at
	Kind   lang.RandomKind
	X, Y   Expr
	ButNot Expr
}

// If is IF rel THEN s [OTHERWISE s].
type If struct {
	stmt
	Cond Rel
	Then Stmt
	Else Stmt // nil: none
}

// Size is an amount of data: Amount (nil: one) times Unit.
type Size struct {
	Amount Expr
	Unit   lang.Unit
}

// Touching is what happens to message contents.
type Touching int

// Touching kinds.
const (
	NoTouching Touching = iota
	TouchData
	Verify
)

// Message describes messages as both sides see them.
type Message struct {
	at
	Count      Expr  // number of messages
	Size       *Size // bytes per message; nil: zero
	Unique     bool
	Align      lang.AlignKind // 0: default
	AlignSize  *Size
	Touch      Touching
	Tag        Expr // message tag; string tags are hashed to a constant
	TagString  string
	Buffer     Expr // nil: the default buffer
	BufferOffs *Size
}

// Send is SENDS. Recv is the receive side the targets perform (with WHO
// RECEIVES overrides applied), unless Unsuspecting.
type Send struct {
	stmt
	Source, Target *TaskSet
	Msg, Recv      *Message
	Async          bool
	RecvAsync      bool
	Unsuspecting   bool
}

// Receive is RECEIVES: Receivers receive from Senders.
type Receive struct {
	stmt
	Receivers, Senders *TaskSet
	Msg                *Message
	Async              bool
}

// Multicast is MULTICASTS.
type Multicast struct {
	stmt
	Source, Target *TaskSet
	Msg            *Message
	Async          bool
}

// ReduceMsg describes a reduction's data.
type ReduceMsg struct {
	at
	Count      Expr      // items
	Type       lang.Unit // Integers or Doublewords
	Unique     bool
	Align      lang.AlignKind
	AlignSize  *Size
	Touch      Touching
	Tag        Expr
	Buffer     Expr
	BufferOffs *Size
}

// Reduce is REDUCES. A nil Target is an all-reduce among the sources;
// Scatter is a reduce-scatter.
type Reduce struct {
	stmt
	Source, Target *TaskSet
	Msg, Result    *ReduceMsg
	Op             lang.ReduceOp // never 0: SUM by default
	Scatter        bool
}

// Synchronize is SYNCHRONIZE: a barrier over exactly Tasks.
type Synchronize struct {
	stmt
	Tasks *TaskSet
}

// Await is AWAIT COMPLETION.
type Await struct {
	stmt
	Tasks *TaskSet
}

// Scatter is SCATTERS: Root sends a distinct message to each target.
type Scatter struct {
	stmt
	Root, Targets *TaskSet
	Msg           *Message
}

// Gather is GATHERS: every root receives a message from each source.
type Gather struct {
	stmt
	Roots, Sources *TaskSet
	Msg            *Message
}

// Exchange is EXCHANGE: every task sends a message to each of its peers.
type Exchange struct {
	stmt
	Tasks, Peers *TaskSet
	Msg          *Message
}

// Delay is COMPUTE FOR or SLEEP FOR.
type Delay struct {
	stmt
	Tasks  *TaskSet
	Sleep  bool
	Amount Expr
	Unit   lang.TimeUnit
}

// Work is COMPUTE n FLOPS [AND m BYTES OF MEMORY TRAFFIC].
type Work struct {
	stmt
	Tasks  *TaskSet
	Flops  Expr
	Memory *Size // nil: none
}

// Touch is TOUCHES ... MEMORY REGION.
type Touch struct {
	stmt
	Tasks      *TaskSet
	Count      Expr // nil: every word of the region
	CountType  lang.Unit
	Region     *Size
	Repeat     Expr // nil: once
	Stride     lang.StrideKind
	StrideX    Expr
	StrideType lang.Unit
}

// TouchBuffer is TOUCHES ... MESSAGE BUFFER(S).
type TouchBuffer struct {
	stmt
	Tasks  *TaskSet
	Which  lang.TouchBufferKind
	Number Expr
}

// Log is LOGS: each column belongs to the table of the enclosing top-level
// statement.
type Log struct {
	stmt
	Tasks   *TaskSet
	Columns []*LogColumn
}

// LogColumn is one column of a log table.
type LogColumn struct {
	Index   int // column number within its table
	Heading string
	ValueOf bool // Heading names a log-file comment key
	Agg     lang.AggKind
	Func    lang.AggFuncKind // for AggFuncs: one column per function
	Pct     Expr             // for Percentile
	X       Expr             // evaluated in floating-point context
}

// ComputeAggregates is COMPUTE AGGREGATES.
type ComputeAggregates struct {
	stmt
	Tasks *TaskSet
}

// Counters is RESET, STORE or RESTORE THEIR COUNTERS.
type Counters struct {
	stmt
	Tasks *TaskSet
	Op    lang.CounterOp
}

// Assert is ASSERT THAT.
type Assert struct {
	stmt
	Msg  string
	Cond Rel
}

// Item is part of an OUTPUTS or BACKEND EXECUTES statement.
type Item struct {
	X       Expr // floating-point context
	Str     string
	ValueOf bool // Str names a log-file comment key
}

// Output is OUTPUTS.
type Output struct {
	stmt
	Tasks *TaskSet
	Items []*Item
}

// BackendExec is BACKEND EXECUTES.
type BackendExec struct {
	stmt
	Tasks *TaskSet
	Items []*Item
}

// Assign is ARE ASSIGNED TO PROCESSOR.
type Assign struct {
	stmt
	Tasks     *TaskSet
	Processor Expr // nil: a random processor
}

// UsesLogs reports whether the program writes log files: whether it has a
// LOGS or COMPUTES AGGREGATES statement, or reads THE VALUE OF a log-file
// comment, anywhere, executed or not. coNCePTuaL decides so when it
// compiles a program: one that does writes a log on every task, even a
// task that logs nothing; one that does not writes none.
func (p *Program) UsesLogs() bool {
	var uses func(Stmt) bool
	uses = func(st Stmt) bool {
		switch st := st.(type) {
		case *Log, *ComputeAggregates:
			return true
		case *Output:
			return slices.ContainsFunc(st.Items, func(it *Item) bool { return it.ValueOf })
		case *Block:
			return slices.ContainsFunc(st.Stmts, uses)
		case *Repeat:
			return uses(st.Body)
		case *Timed:
			return uses(st.Body)
		case *ForEach:
			return uses(st.Body)
		case *Let:
			return uses(st.Body)
		case *If:
			return uses(st.Then) || st.Else != nil && uses(st.Else)
		}
		return false
	}
	return slices.ContainsFunc(p.Body, func(top *TopLevel) bool { return slices.ContainsFunc(top.Stmts, uses) })
}
