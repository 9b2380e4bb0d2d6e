package lang

// This file declares the syntax tree. Every node embeds a Span. Optional
// parts are nil pointers or nil interfaces; enumerations have a zero value
// meaning "not written", so the printer can reproduce what the user wrote.

// Program is one parsed source file.
type Program struct {
	Span
	File     string
	Source   []byte // the text the program was parsed from, for diagnostics
	Headers  []Header
	Body     []*TopLevel
	Comments []*Comment
}

// Comment is a `#` comment, kept so that `parley fmt` can print it again.
type Comment struct {
	Span
	Text string // including the leading '#'
}

// TopLevel is a top-level complex statement: a THEN chain. Each one opens a
// new table in the log files.
type TopLevel struct {
	Span
	Stmts []Stmt
}

// ---------------------------------------------------------------------------
// Header declarations

// Header is a declaration before the first statement.
type Header interface {
	Node
	headerNode()
}

// VersionDecl is `REQUIRE LANGUAGE VERSION "1.5"`.
type VersionDecl struct {
	Span
	Version *StringLit
}

// ParamDecl declares a command-line parameter:
// `name IS "help" AND COMES FROM "--long" OR "-s" WITH DEFAULT expr
// [AND RANGES OVER range, ...]`.
type ParamDecl struct {
	Span
	Name    *Ident
	Help    *StringLit
	Long    *StringLit
	Short   *StringLit
	Default Expr
	Sweep   []Range // Parley extension: values a sweep uses
}

// BackendDecl is `THE BACKEND DECLARES "text"`.
type BackendDecl struct {
	Span
	Code *StringLit
}

func (*VersionDecl) headerNode() {}
func (*ParamDecl) headerNode()   {}
func (*BackendDecl) headerNode() {}

// StringLit is a string literal; Value has its escapes resolved.
type StringLit struct {
	Span
	Value string
}

// ---------------------------------------------------------------------------
// Expressions

// Expr is an arithmetic expression.
type Expr interface {
	Node
	exprNode()
}

// IntLit is an integer literal. Text keeps a suffixed spelling such as "64K",
// "1E6" or "95TH" for printing; it is empty for plain decimal literals.
type IntLit struct {
	Span
	Value int64
	Text  string
}

// Ident is a variable reference or, where a construct declares a variable,
// the declared name. Names are stored in lower case.
type Ident struct {
	Span
	Name string
}

// UnaryOp is a prefix operator.
type UnaryOp int

// Unary operators.
const (
	Neg    UnaryOp = iota + 1 // -
	Plus                      // +
	BitNot                    // NOT (bitwise)
)

// Unary is a prefix operation.
type Unary struct {
	Span
	Op UnaryOp
	X  Expr
}

// BinaryOp is an infix arithmetic operator.
type BinaryOp int

// Binary operators, grouped by precedence level.
const (
	Add    BinaryOp = iota + 1 // +
	Sub                        // -
	BitOr                      // |
	Xor                        // XOR
	Mul                        // *
	Div                        // /
	Mod                        // MOD
	Shr                        // >>
	Shl                        // <<
	BitAnd                     // &
	Pow                        // **
)

// Binary is an infix arithmetic operation.
type Binary struct {
	Span
	Op   BinaryOp
	X, Y Expr
}

// CondExpr is `Then IF Cond OTHERWISE Else`.
type CondExpr struct {
	Span
	Then Expr
	Cond Rel
	Else Expr
}

// Func names a built-in function, in canonical upper case.
type Func string

// Built-in functions. MESH_* functions are MeshCall nodes and FILE_DATA /
// STATIC_FILE_DATA are FileData nodes; the rest are Call nodes.
const (
	FuncAbs             Func = "ABS"
	FuncBits            Func = "BITS"
	FuncCbrt            Func = "CBRT"
	FuncCeiling         Func = "CEILING"
	FuncFactor10        Func = "FACTOR10"
	FuncFloor           Func = "FLOOR"
	FuncKnomialChild    Func = "KNOMIAL_CHILD"
	FuncKnomialChildren Func = "KNOMIAL_CHILDREN"
	FuncKnomialParent   Func = "KNOMIAL_PARENT"
	FuncLog10           Func = "LOG10"
	FuncMax             Func = "MAX"
	FuncMin             Func = "MIN"
	FuncProcessorOf     Func = "PROCESSOR_OF"
	FuncRandomGaussian  Func = "RANDOM_GAUSSIAN"
	FuncRandomPareto    Func = "RANDOM_PARETO"
	FuncRandomPoisson   Func = "RANDOM_POISSON"
	FuncRandomUniform   Func = "RANDOM_UNIFORM"
	FuncReal            Func = "REAL"
	FuncRoot            Func = "ROOT"
	FuncRound           Func = "ROUND"
	FuncSqrt            Func = "SQRT"
	FuncTaskOf          Func = "TASK_OF"
	FuncTreeChild       Func = "TREE_CHILD"
	FuncTreeParent      Func = "TREE_PARENT"
	FuncMeshNeighbor    Func = "MESH_NEIGHBOR"
	FuncMeshCoordinate  Func = "MESH_COORDINATE"
	FuncMeshDistance    Func = "MESH_DISTANCE"
	FuncFileData        Func = "FILE_DATA"
	FuncStaticFileData  Func = "STATIC_FILE_DATA"
)

// IsRandom reports whether the function's value may differ between tasks or
// between calls, so it may not steer control flow.
func (f Func) IsRandom() bool {
	switch f {
	case FuncRandomGaussian, FuncRandomPareto, FuncRandomPoisson, FuncRandomUniform, FuncFileData:
		return true
	}
	return false
}

// Call is a built-in function call (including REAL).
type Call struct {
	Span
	Func Func
	Args []Expr
}

// MeshDim is one dimension of a mesh: its size and whether it wraps.
type MeshDim struct {
	Span
	Size  Expr
	Torus bool
}

// MeshCall is MESH_NEIGHBOR((dims), task, (offsets)),
// MESH_COORDINATE((dims), task, coord) or MESH_DISTANCE((dims), t1, t2).
type MeshCall struct {
	Span
	Func    Func
	Dims    []*MeshDim
	Task    Expr
	Offsets []Expr // MESH_NEIGHBOR only
	Arg     Expr   // MESH_COORDINATE: coordinate; MESH_DISTANCE: second task
}

// FileData is FILE_DATA("file"[, col[, row[, "colseps"[, "rowseps"]]]]) or
// its STATIC_ twin.
type FileData struct {
	Span
	Static  bool
	File    *StringLit
	Column  Expr       // nil: 1
	Row     Expr       // nil: 1
	ColSeps *StringLit // nil: " \t"
	RowSeps *StringLit // nil: "\n"
}

// MyTask is `MY TASK`, allowed only in IF conditions.
type MyTask struct {
	Span
}

func (*IntLit) exprNode()   {}
func (*Ident) exprNode()    {}
func (*Unary) exprNode()    {}
func (*Binary) exprNode()   {}
func (*CondExpr) exprNode() {}
func (*Call) exprNode()     {}
func (*MeshCall) exprNode() {}
func (*FileData) exprNode() {}
func (*MyTask) exprNode()   {}

// ---------------------------------------------------------------------------
// Relational expressions

// Rel is a relational (truth-valued) expression.
type Rel interface {
	Node
	relNode()
}

// CmpOp is a binary relation.
type CmpOp int

// Relations.
const (
	Eq      CmpOp = iota + 1 // =
	Lt                       // <
	Gt                       // >
	Le                       // <=
	Ge                       // >=
	Ne                       // <>
	Divides                  // DIVIDES
)

// Compare is `X op Y`.
type Compare struct {
	Span
	Op   CmpOp
	X, Y Expr
}

// Parity is `X IS EVEN` or `X IS ODD`.
type Parity struct {
	Span
	X   Expr
	Odd bool
}

// InInterval is `X IS [NOT] IN [Lo, Hi]`.
type InInterval struct {
	Span
	X, Lo, Hi Expr
	Not       bool
}

// InRanges is `X IS [NOT] IN {range}, ...`.
type InRanges struct {
	Span
	X      Expr
	Ranges []Range
	Not    bool
}

// LogicOp joins relations.
type LogicOp int

// Logical connectives, both short-circuit.
const (
	And LogicOp = iota + 1 // /\
	Or                     // \/
)

// Logic is `X /\ Y` or `X \/ Y`.
type Logic struct {
	Span
	Op   LogicOp
	X, Y Rel
}

func (*Compare) relNode()    {}
func (*Parity) relNode()     {}
func (*InInterval) relNode() {}
func (*InRanges) relNode()   {}
func (*Logic) relNode()      {}

// ---------------------------------------------------------------------------
// Ranges

// Range is a brace-enclosed list of values.
type Range interface {
	Node
	rangeNode()
}

// ListRange is `{a, b, c}`.
type ListRange struct {
	Span
	Items []Expr
}

// ProgRange is `{a[, b[, c...]], ..., Final}`: an arithmetic or geometric
// progression found from the initial terms.
type ProgRange struct {
	Span
	Initial []Expr
	Final   Expr
}

// CompRange is `{Expr FOR EACH v IN r ... [WHERE Where]}`.
type CompRange struct {
	Span
	Expr  Expr
	Gens  []*Generator
	Where Rel
}

// Generator is one `FOR EACH v IN range, ...` clause of a comprehension.
type Generator struct {
	Span
	Var    *Ident
	Ranges []Range
}

func (*ListRange) rangeNode() {}
func (*ProgRange) rangeNode() {}
func (*CompRange) rangeNode() {}

// ---------------------------------------------------------------------------
// Task descriptions

// TaskDesc describes a set of tasks.
type TaskDesc interface {
	Node
	taskNode()
}

// AllTasks is `ALL TASKS [v]`.
type AllTasks struct {
	Span
	Var *Ident
}

// AllOtherTasks is `ALL OTHER TASKS` (targets only).
type AllOtherTasks struct {
	Span
}

// TaskExpr is `TASK expr`.
type TaskExpr struct {
	Span
	X Expr
}

// TasksSuchThat is `TASKS v SUCH THAT rel`.
type TasksSuchThat struct {
	Span
	Var  *Ident
	Cond Rel
}

// TaskGroup is `TASK GROUP g`, a group named by LET.
type TaskGroup struct {
	Span
	Name *Ident
}

// TasksInRanges is `TASKS {range}, ...`.
type TasksInRanges struct {
	Span
	Ranges []Range
}

func (*AllTasks) taskNode()      {}
func (*AllOtherTasks) taskNode() {}
func (*TaskExpr) taskNode()      {}
func (*TasksSuchThat) taskNode() {}
func (*TaskGroup) taskNode()     {}
func (*TasksInRanges) taskNode() {}

// ---------------------------------------------------------------------------
// Message specifications

// Unit is a data multiplier or data type.
type Unit int

// Units of data, in bytes: see Bytes().
const (
	Bits Unit = iota + 1
	Bytes
	Halfwords
	Words
	Integers
	Doublewords
	Quadwords
	Pages
	Kilobytes
	Megabytes
	Gigabytes
)

// IsDataType reports whether the unit is a data type (usable as `TYPE SIZED`,
// `TYPE ALIGNED`, a REDUCE type, a stride or a touch type), as opposed to
// a pure multiplier (BITS, KILOBYTE, MEGABYTE, GIGABYTE).
func (u Unit) IsDataType() bool {
	switch u {
	case Bytes, Halfwords, Words, Integers, Doublewords, Quadwords, Pages:
		return true
	}
	return false
}

// TimeUnit is a unit of time.
type TimeUnit int

// Units of time.
const (
	Microseconds TimeUnit = iota + 1
	Milliseconds
	Seconds
	Minutes
	Hours
	Days
)

// Micros returns the number of microseconds in one unit.
func (t TimeUnit) Micros() int64 {
	switch t {
	case Microseconds:
		return 1
	case Milliseconds:
		return 1000
	case Seconds:
		return 1000000
	case Minutes:
		return 60 * 1000000
	case Hours:
		return 3600 * 1000000
	case Days:
		return 86400 * 1000000
	}
	return 0
}

// Quantity is `Amount UNIT`; with a nil Amount it is one Unit, written
// `UNIT SIZED` as a size or `UNIT ALIGNED` as an alignment.
type Quantity struct {
	Span
	Amount Expr
	Unit   Unit
}

// Blocking says how a communication waits.
type Blocking int

// Blocking modes; zero is "not written" (synchronous).
const (
	Asynchronously Blocking = iota + 1
	Synchronously
)

// Uniqueness says whether message buffers are recycled.
type Uniqueness int

// Uniqueness; zero is "not written" (nonunique).
const (
	Unique Uniqueness = iota + 1
	Nonunique
)

// Touching says what happens to message contents.
type Touching int

// Touching; zero is "not written" (no touching).
const (
	WithDataTouching Touching = iota + 1
	WithoutDataTouching
	WithVerification
	WithoutVerification
)

// AlignKind says how a buffer is placed relative to a page.
type AlignKind int

// Alignment kinds.
const (
	Unaligned AlignKind = iota + 1
	Aligned
	Misaligned
)

// Alignment is `UNALIGNED`, `q ALIGNED` or `q MISALIGNED`.
type Alignment struct {
	Span
	Kind AlignKind
	Q    *Quantity // nil for Unaligned
}

// Tag is `USING TAG expr` or `USING TAG "string"`.
type Tag struct {
	Span
	X   Expr       // numeric tag, or nil
	Str *StringLit // string tag (hashed), or nil
}

// Buffer is `FROM|INTO [offset INTO] (BUFFER n | THE DEFAULT BUFFER)`.
type Buffer struct {
	Span
	Offset *Quantity // byte offset into the buffer, or nil
	Number Expr      // nil: the default buffer
}

// MsgSpec describes a set of messages, in the language's fixed order.
type MsgSpec struct {
	Span
	Count      Expr // nil: `A`/`AN`, one message
	Uniqueness Uniqueness
	Size       *Quantity // nil: zero bytes
	Align      *Alignment
	Touch      Touching
	Tag        *Tag
	Buffer     *Buffer
}

// RecvSpec overrides receive-side attributes in `WHO RECEIVES IT|THEM ...`.
type RecvSpec struct {
	Span
	Blocking   Blocking
	As         bool // `AS [A] [UNIQUE] [alignment] MESSAGES` was written
	Uniqueness Uniqueness
	Align      *Alignment
	Touch      Touching
	Tag        *Tag
	Buffer     *Buffer
}

// ReduceSpec is a REDUCE message specification. In the WHO RECEIVES THE
// RESULT position without AS, Typed is false and only Touch, Tag and Buffer
// are set.
type ReduceSpec struct {
	Span
	Typed      bool
	Count      Expr // nil: `A`/`AN`
	Uniqueness Uniqueness
	Align      *Alignment
	Type       Unit
	Touch      Touching
	Tag        *Tag
	Buffer     *Buffer
}

// ReduceOp is the combining operator of a reduction (Parley extension).
type ReduceOp int

// Reduction operators; zero is "not written" (SUM).
const (
	OpSum ReduceOp = iota + 1
	OpProduct
	OpMinimum
	OpMaximum
)

// ---------------------------------------------------------------------------
// Aggregates and output items

// AggKind is the form of an aggregate expression in a LOGS statement.
type AggKind int

// Aggregate forms.
const (
	AggEach      AggKind = iota + 1 // `e`: every value, "(all data)"
	AggOnly                         // `THE e`: a constant, "(only value)"
	AggFuncs                        // `THE MEAN [AND THE ...] OF e`
	AggHistogram                    // `A HISTOGRAM OF e`
)

// AggFuncKind is a statistic.
type AggFuncKind int

// Statistics.
const (
	Mean AggFuncKind = iota + 1
	ArithmeticMean
	HarmonicMean
	GeometricMean
	Median
	StandardDeviation
	MedianAbsoluteDeviation
	Variance
	Sum
	Minimum
	Maximum
	Final
	Percentile
)

// AggFunc is one statistic; Percentile carries its argument.
type AggFunc struct {
	Span
	Kind       AggFuncKind
	Percentile Expr
}

// Aggregate is an aggregate expression.
type Aggregate struct {
	Span
	Kind  AggKind
	Funcs []*AggFunc // AggFuncs only
	X     Expr
}

// Item is one piece of an OUTPUTS, BACKEND EXECUTES or LOGS heading: an
// expression, a string, or `THE VALUE OF "key"`.
type Item struct {
	Span
	X       Expr
	Str     *StringLit
	ValueOf bool // Str names a log-file comment key
}

// LogItem is `aggregate AS heading`.
type LogItem struct {
	Span
	Agg     *Aggregate
	Heading *Item
}

// ---------------------------------------------------------------------------
// Statements

// Stmt is a simple statement.
type Stmt interface {
	Node
	stmtNode()
}

// Block is `{ s THEN s ... }`, possibly empty.
type Block struct {
	Span
	Stmts []Stmt
}

// ForCount is `FOR n REPETITIONS [PLUS w WARMUP REPETITIONS [AND A
// SYNCHRONIZATION]] body`.
type ForCount struct {
	Span
	Count  Expr
	Warmup Expr // nil: none
	Sync   bool
	Body   Stmt
}

// ForTime is `FOR n UNIT [PLUS w WARMUP UNIT [AND A SYNCHRONIZATION]] body`.
type ForTime struct {
	Span
	Amount     Expr
	Unit       TimeUnit
	Warmup     Expr // nil: none
	WarmupUnit TimeUnit
	Sync       bool
	Body       Stmt
}

// ForEach is `FOR EACH v IN range, ... body`.
type ForEach struct {
	Span
	Var    *Ident
	Ranges []Range
	Body   Stmt
}

// RandomKind is the constraint on `A RANDOM TASK`.
type RandomKind int

// Random-task constraints.
const (
	RandomAny         RandomKind = iota + 1 // A RANDOM TASK
	RandomOtherThan                         // OTHER THAN x
	RandomLessThan                          // LESS THAN x [BUT NOT y]
	RandomGreaterThan                       // GREATER THAN x [BUT NOT y]
	RandomIn                                // IN [x, y] [BUT NOT z]
)

// RandomTask is `A RANDOM TASK [constraint]`.
type RandomTask struct {
	Span
	Kind   RandomKind
	X, Y   Expr // bounds: X for OTHER/LESS/GREATER, X and Y for IN
	ButNot Expr
}

// LetBinding is `v BE expr`, `v BE A RANDOM TASK ...` or `v BE <tasks>`.
// Exactly one of Value, Random and Group is set.
type LetBinding struct {
	Span
	Name   *Ident
	Value  Expr
	Random *RandomTask
	Group  TaskDesc
}

// Let is `LET binding [AND binding]* WHILE body`.
type Let struct {
	Span
	Bindings []*LetBinding
	Body     Stmt
}

// If is `IF rel THEN s [OTHERWISE s]`.
type If struct {
	Span
	Cond Rel
	Then Stmt
	Else Stmt // nil: none
}

// Send is `src [ASYNCHRONOUSLY] SENDS spec TO [UNSUSPECTING] tgt
// [WHO RECEIVES IT|THEM recvspec]`.
type Send struct {
	Span
	Source       TaskDesc
	Blocking     Blocking
	Msg          *MsgSpec
	Unsuspecting bool
	Target       TaskDesc
	Recv         *RecvSpec // nil: the receive inherits the send's attributes
}

// Receive is `tgt [ASYNCHRONOUSLY] RECEIVES spec FROM src`.
type Receive struct {
	Span
	Target   TaskDesc // the receiving tasks
	Blocking Blocking
	Msg      *MsgSpec
	Source   TaskDesc
}

// Multicast is `src [ASYNCHRONOUSLY] MULTICASTS spec TO tgt`.
type Multicast struct {
	Span
	Source   TaskDesc
	Blocking Blocking
	Msg      *MsgSpec
	Target   TaskDesc
}

// Reduce is `src REDUCES spec [TO tgt [WHO RECEIVES THE RESULT spec] |
// TO spec] [USING OPERATION op] [AND SCATTERS THE RESULT]`.
// Without a Target it is an all-reduce among the sources.
type Reduce struct {
	Span
	Source  TaskDesc
	Msg     *ReduceSpec
	Target  TaskDesc    // nil: every source receives the result
	Result  *ReduceSpec // `TO spec` or `WHO RECEIVES THE RESULT ...`; nil: as Msg
	Op      ReduceOp    // Parley extension
	Scatter bool        // Parley extension: reduce-scatter
}

// Synchronize is `tasks SYNCHRONIZE`.
type Synchronize struct {
	Span
	Tasks TaskDesc
}

// Await is `tasks AWAIT COMPLETION`.
type Await struct {
	Span
	Tasks TaskDesc
}

// Scatter is `src SCATTERS spec TO tgt` (Parley extension, MPI_Scatter(v)).
type Scatter struct {
	Span
	Source TaskDesc
	Msg    *MsgSpec
	Target TaskDesc
}

// Gather is `root GATHERS spec FROM src` (Parley extension, MPI_Gather(v),
// or MPI_Allgather(v) when every source is also a root).
type Gather struct {
	Span
	Root   TaskDesc
	Msg    *MsgSpec
	Source TaskDesc
}

// Exchange is `tasks EXCHANGE spec WITH peers` (Parley extension,
// MPI_Alltoall(v)).
type Exchange struct {
	Span
	Tasks TaskDesc
	Msg   *MsgSpec
	Peers TaskDesc
}

// Delay is `tasks COMPUTE|SLEEP FOR n UNIT`.
type Delay struct {
	Span
	Tasks  TaskDesc
	Sleep  bool
	Amount Expr
	Unit   TimeUnit
}

// Work is `tasks COMPUTE n FLOPS [AND q OF MEMORY TRAFFIC]` (Parley
// extension): cost from the machine model's roofline.
type Work struct {
	Span
	Tasks  TaskDesc
	Flops  Expr
	Memory *Quantity // nil: no memory traffic
}

// StrideKind is the access pattern of a TOUCHES statement.
type StrideKind int

// Strides; zero is "not written" (every word).
const (
	StrideExplicit StrideKind = iota + 1
	StrideRandom
)

// Touch is `tasks TOUCH [n TYPE OF] A size MEMORY REGION [r TIMES]
// [WITH STRIDE s TYPE | WITH RANDOM STRIDE]`.
type Touch struct {
	Span
	Tasks      TaskDesc
	Count      Expr // nil: touch every word
	CountType  Unit
	Region     *Quantity
	Repeat     Expr // nil: once
	Stride     StrideKind
	StrideX    Expr
	StrideType Unit
}

// TouchBufferKind names which buffers TOUCHES touches.
type TouchBufferKind int

// Buffers to touch.
const (
	AllBuffers TouchBufferKind = iota + 1
	CurrentBuffer
	NumberedBuffer
)

// TouchBuffer is `tasks TOUCH ALL MESSAGE BUFFERS | THE CURRENT MESSAGE
// BUFFER | MESSAGE BUFFER n`.
type TouchBuffer struct {
	Span
	Tasks  TaskDesc
	Which  TouchBufferKind
	Number Expr
}

// Log is `tasks LOG item [AND item]*`.
type Log struct {
	Span
	Tasks TaskDesc
	Items []*LogItem
}

// ComputeAggregates is `tasks COMPUTE AGGREGATES`.
type ComputeAggregates struct {
	Span
	Tasks TaskDesc
}

// CounterOp is what a counter statement does.
type CounterOp int

// Counter operations.
const (
	ResetCounters CounterOp = iota + 1
	StoreCounters
	RestoreCounters
)

// Counters is `tasks RESET|STORE|RESTORE THEIR COUNTERS`.
type Counters struct {
	Span
	Tasks TaskDesc
	Op    CounterOp
}

// Assert is `ASSERT THAT "msg" WITH rel`.
type Assert struct {
	Span
	Msg  *StringLit
	Cond Rel
}

// Output is `tasks OUTPUT item [AND item]*`.
type Output struct {
	Span
	Tasks TaskDesc
	Items []*Item
}

// BackendExec is `tasks BACKEND EXECUTE item [AND item]*`.
type BackendExec struct {
	Span
	Tasks TaskDesc
	Items []*Item
}

// Assign is `tasks ARE ASSIGNED TO PROCESSOR n | A RANDOM PROCESSOR`.
type Assign struct {
	Span
	Tasks     TaskDesc
	Processor Expr // nil: a random processor
}

func (*Block) stmtNode()             {}
func (*ForCount) stmtNode()          {}
func (*ForTime) stmtNode()           {}
func (*ForEach) stmtNode()           {}
func (*Let) stmtNode()               {}
func (*If) stmtNode()                {}
func (*Send) stmtNode()              {}
func (*Receive) stmtNode()           {}
func (*Multicast) stmtNode()         {}
func (*Reduce) stmtNode()            {}
func (*Synchronize) stmtNode()       {}
func (*Await) stmtNode()             {}
func (*Scatter) stmtNode()           {}
func (*Gather) stmtNode()            {}
func (*Exchange) stmtNode()          {}
func (*Delay) stmtNode()             {}
func (*Work) stmtNode()              {}
func (*Touch) stmtNode()             {}
func (*TouchBuffer) stmtNode()       {}
func (*Log) stmtNode()               {}
func (*ComputeAggregates) stmtNode() {}
func (*Counters) stmtNode()          {}
func (*Assert) stmtNode()            {}
func (*Output) stmtNode()            {}
func (*BackendExec) stmtNode()       {}
func (*Assign) stmtNode()            {}
