package parser

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/parley-hpc/parley/lang"
)

// The grammar, as participle structs. Keywords appear in their canonical
// spelling (see lang.CanonicalKeyword): "AN" matches A and AN, "ARE" matches
// IS and ARE, "TASKS" matches TASK and TASKS, "THEM" matches IT and THEM.
// Lower-case literals ("flops", "scatters", ...) are Parley's contextual
// keywords: identifiers that act as keywords only where the grammar expects
// them, so programs may still use them as variable names.
//
// These structs mirror the surface syntax; build.go turns them into lang
// nodes and checks what the grammar is too loose to say (FROM versus INTO,
// unit kinds, where an ellipsis may stand).

// tokens gives every grammar node its source tokens, for spans. The first
// token says where the node starts: a Pos field would say it again at 48
// bytes a node, a third of the tree.
type tokens struct {
	Tokens []lexer.Token
}

// optTokens is tokens for the nodes whose every part is optional, which
// may match no tokens: Pos says where such a node stands.
type optTokens struct {
	Pos lexer.Position
	tokens
}

type gProgram struct {
	optTokens
	Items []*gTopItem `parser:"( @@ '.'? )*"`
}

type gTopItem struct {
	tokens
	Version *gVersion `parser:"  @@"`
	Backend *gBackend `parser:"| @@"`
	Param   *gParam   `parser:"| @@"`
	Chain   *gChain   `parser:"| @@"`
}

type gVersion struct {
	tokens
	Version string `parser:"'REQUIRE' 'LANGUAGE' 'VERSION' @String"`
}

type gBackend struct {
	tokens
	Code string `parser:"'THE' 'BACKEND' 'DECLARES' @String"`
}

type gParam struct {
	tokens
	Name    string    `parser:"@Ident 'ARE'"`
	Help    string    `parser:"@String 'AND' 'COMES' 'FROM'"`
	Long    string    `parser:"@String 'OR'"`
	Short   string    `parser:"@String 'WITH' 'DEFAULT'"`
	Default *gExpr    `parser:"@@"`
	Sweep   []*gRange `parser:"( 'AND' ('ranges' | 'range') 'over' @@ ( ',' @@ )* )?"`
}

type gChain struct {
	tokens
	Stmts []*gSimple `parser:"@@ ( 'THEN' @@ )*"`
}

type gSimple struct {
	tokens
	Task   *gTaskStmt `parser:"  @@"`
	For    *gFor      `parser:"| @@"`
	Let    *gLet      `parser:"| @@"`
	If     *gIf       `parser:"| @@"`
	Block  *gBlock    `parser:"| @@"`
	Assert *gAssert   `parser:"| @@"`
}

type gBlock struct {
	tokens
	Body *gChain `parser:"'{' @@? '}'"`
}

type gFor struct {
	tokens
	Each   *gForEach   `parser:"'FOR' ( 'EACH' @@"`
	Amount *gForAmount `parser:"      | @@ )"`
}

type gForEach struct {
	tokens
	Var    string    `parser:"@Ident 'IN'"`
	Ranges []*gRange `parser:"@@ ( ',' @@ )*"`
	Body   *gSimple  `parser:"@@"`
}

// gForAmount covers counted and timed loops; build.go checks that the
// warmup unit matches the main one.
type gForAmount struct {
	tokens
	Amount     *gExpr   `parser:"@@"`
	Unit       string   `parser:"@('REPETITIONS' | 'MICROSECONDS' | 'MILLISECONDS' | 'SECONDS' | 'MINUTES' | 'HOURS' | 'DAYS')"`
	Warmup     *gExpr   `parser:"( 'PLUS' @@"`
	WarmupUnit string   `parser:"  'WARMUP' @('REPETITIONS' | 'MICROSECONDS' | 'MILLISECONDS' | 'SECONDS' | 'MINUTES' | 'HOURS' | 'DAYS')"`
	Sync       bool     `parser:"  @( 'AND' 'AN' 'SYNCHRONIZATION' )? )?"`
	Body       *gSimple `parser:"@@"`
}

type gLet struct {
	tokens
	Bindings []*gBinding `parser:"'LET' @@ ( 'AND' @@ )*"`
	Body     *gSimple    `parser:"'WHILE' @@"`
}

type gBinding struct {
	tokens
	Name   string     `parser:"@Ident 'BE'"`
	Random *gRandom   `parser:"(   'AN' 'RANDOM' 'TASKS' @@"`
	Group  *gTaskDesc `parser:"  | @@"`
	Value  *gExpr     `parser:"  | @@ )"`
}

type gRandom struct {
	tokens
	Other   *gExpr `parser:"(   'OTHER' 'THAN' @@"`
	Less    *gExpr `parser:"  | 'LESS' 'THAN' @@"`
	Greater *gExpr `parser:"  | 'GREATER' 'THAN' @@"`
	InLo    *gExpr `parser:"  | 'IN' '[' @@"`
	InHi    *gExpr `parser:"    ',' @@ ']' )?"`
	ButNot  *gExpr `parser:"( 'BUT' 'NOT' @@ )?"`
}

type gIf struct {
	tokens
	Cond *gRel    `parser:"'IF' @@"`
	Then *gSimple `parser:"'THEN' @@"`
	Else *gSimple `parser:"( 'OTHERWISE' @@ )?"`
}

type gAssert struct {
	tokens
	Msg  string `parser:"'ASSERT' 'THAT' @String"`
	Cond *gRel  `parser:"'WITH' @@"`
}

// gTaskStmt is every statement that begins with a task description.
type gTaskStmt struct {
	tokens
	Tasks *gTaskDesc `parser:"@@"`
	Verb  *gVerb     `parser:"@@"`
}

type gVerb struct {
	tokens
	Comm     *gComm      `parser:"  @@"`
	Reduce   *gReduce    `parser:"| @@"`
	Sync     bool        `parser:"| @'SYNCHRONIZES'"`
	Await    bool        `parser:"| @( 'AWAITS' 'COMPLETIONS' )"`
	Computes *gComputes  `parser:"| 'COMPUTES' @@"`
	Sleep    *gDuration  `parser:"| 'SLEEPS' 'FOR' @@"`
	Touch    *gTouch     `parser:"| 'TOUCHES' @@"`
	Log      []*gLogItem `parser:"| 'LOGS' @@ ( 'AND' @@ )*"`
	Counters string      `parser:"| @( 'RESETS' | 'STORES' | 'RESTORES' ) 'THEIR' 'COUNTERS'"`
	Output   []*gItem    `parser:"| 'OUTPUTS' @@ ( 'AND' @@ )*"`
	Backend  []*gItem    `parser:"| 'BACKEND' 'EXECUTES' @@ ( 'AND' @@ )*"`
	Assign   *gAssign    `parser:"| 'ARE' 'ASSIGNED' 'TO' @@"`
	Scatter  *gExtComm   `parser:"| ( 'scatters' | 'scatter' ) @@"`
	Gather   *gExtComm   `parser:"| ( 'gathers' | 'gather' ) @@"`
	Exchange *gExtComm   `parser:"| ( 'exchanges' | 'exchange' ) @@"`
}

// gComm is SENDS, MULTICASTS and RECEIVES.
type gComm struct {
	tokens
	Blocking     string     `parser:"@( 'ASYNCHRONOUSLY' | 'SYNCHRONOUSLY' )?"`
	Verb         string     `parser:"@( 'SENDS' | 'MULTICASTS' | 'RECEIVES' )"`
	Msg          *gMsgSpec  `parser:"@@"`
	To           bool       `parser:"(   @'TO'"`
	Unsuspecting bool       `parser:"    @'UNSUSPECTING'?"`
	Target       *gTaskDesc `parser:"    @@"`
	Who          *gRecvSpec `parser:"    ( 'WHO' 'RECEIVES' 'THEM' @@ )?"`
	From         *gTaskDesc `parser:"  | 'FROM' @@ )"`
}

// gExtComm is the tail of SCATTERS ... TO, GATHERS ... FROM and
// EXCHANGE ... WITH.
type gExtComm struct {
	tokens
	Msg   *gMsgSpec  `parser:"@@"`
	Prep  string     `parser:"@( 'TO' | 'FROM' | 'WITH' )"`
	Peers *gTaskDesc `parser:"@@"`
}

type gReduce struct {
	tokens
	Msg     *gReduceSpec `parser:"'REDUCES' @@"`
	Target  *gTaskDesc   `parser:"( 'TO' ( @@"`
	Who     *gReduceSpec `parser:"        ( 'WHO' 'RECEIVES' 'THE' 'RESULTS' @@ )?"`
	To      *gReduceTo   `parser:"      | @@ ) )?"`
	Op      string       `parser:"( 'USING' 'operation' @( 'SUM' | 'product' | 'MINIMUM' | 'MAXIMUM' ) )?"`
	Scatter bool         `parser:"@( 'AND' ( 'scatters' | 'scatter' ) 'THE' 'RESULTS' )?"`
}

type gComputes struct {
	tokens
	For        *gDuration `parser:"  'FOR' @@"`
	Aggregates bool       `parser:"| @'AGGREGATES'"`
	Flops      *gExpr     `parser:"| @@ ( 'flops' | 'flop' )"`
	Memory     *gQuantity `parser:"  ( 'AND' @@ 'OF' 'MEMORY' 'traffic' )?"`
}

type gDuration struct {
	tokens
	Amount *gExpr `parser:"@@"`
	Unit   string `parser:"@( 'MICROSECONDS' | 'MILLISECONDS' | 'SECONDS' | 'MINUTES' | 'HOURS' | 'DAYS' )"`
}

type gTouch struct {
	tokens
	AllBuffers bool       `parser:"  @( 'ALL' 'MESSAGES' 'BUFFERS' )"`
	Current    bool       `parser:"| @( 'THE' 'CURRENT' 'MESSAGES' 'BUFFERS' )"`
	Buffer     *gExpr     `parser:"| 'MESSAGES' 'BUFFERS' @@"`
	Count      *gExpr     `parser:"| ( @@"`
	CountType  string     `parser:"    @( 'BYTES' | 'HALFWORDS' | 'WORDS' | 'INTEGERS' | 'DOUBLEWORDS' | 'QUADWORDS' | 'PAGES' ) 'OF' )?"`
	Region     *gSize     `parser:"  'AN' @@? 'MEMORY' 'REGION'"`
	Repeat     *gExpr     `parser:"  ( @@ 'TIMES' )?"`
	Random     bool       `parser:"  ( 'WITH' ( @( 'RANDOM' 'STRIDE' )"`
	Stride     *gQuantity `parser:"           | 'STRIDE' @@ ) )?"`
}

type gLogItem struct {
	tokens
	Agg     *gAggregate `parser:"@@ 'AS'"`
	Heading *gItem      `parser:"@@"`
}

type gAggregate struct {
	tokens
	Histogram *gExpr     `parser:"  'AN' 'HISTOGRAM' 'OF' 'THE'? @@"`
	Funcs     []*gAggFun `parser:"| 'THE' @@ ( 'AND' 'THE'? @@ )*"`
	FuncsOf   *gExpr     `parser:"  ( 'OF' 'THE'? )? @@"`
	Only      *gExpr     `parser:"| 'THE' @@"`
	Each      *gExpr     `parser:"| 'EACH'? @@"`
}

type gAggFun struct {
	tokens
	Name       string `parser:"  @( 'MEAN' | 'ARITHMETIC' 'MEAN' | 'HARMONIC' 'MEAN' | 'GEOMETRIC' 'MEAN' | 'MEDIAN' 'ABSOLUTE' 'DEVIATION' | 'MEDIAN' | 'STANDARD' 'DEVIATION' | 'VARIANCE' | 'SUM' | 'MINIMUM' | 'MAXIMUM' | 'FINAL' )"`
	Percentile *gExpr `parser:"| @@ 'PERCENTILE'"`
}

// gItem is an OUTPUTS / BACKEND EXECUTES item or a LOGS heading.
type gItem struct {
	tokens
	Str     *string `parser:"  @String"`
	ValueOf *string `parser:"| 'THE' 'VALUE' 'OF' @String"`
	Expr    *gExpr  `parser:"| @@"`
}

type gAssign struct {
	tokens
	Random    bool   `parser:"  @( 'AN' 'RANDOM' 'PROCESSORS' )"`
	Processor *gExpr `parser:"| 'PROCESSORS' @@"`
}

// ---------------------------------------------------------------------------
// Task descriptions

type gTaskDesc struct {
	tokens
	AllOthers bool      `parser:"  'ALL' ( @( 'OTHER' 'TASKS' )"`
	All       bool      `parser:"        | @'TASKS'"`
	AllVar    *string   `parser:"          ( (?! 'scatters' | 'scatter' | 'gathers' | 'gather' | 'exchanges' | 'exchange' ) @Ident )? )"`
	Group     *string   `parser:"| 'TASKS' ( 'GROUP' @Ident"`
	Ranges    []*gRange `parser:"          | @@ ( ',' @@ )*"`
	SuchVar   *string   `parser:"          | @Ident 'SUCH' 'THAT'"`
	Such      *gRel     `parser:"            @@"`
	Expr      *gExpr    `parser:"          | @@ )"`
}

// ---------------------------------------------------------------------------
// Message specifications

type gMsgSpec struct {
	tokens
	Count  *gCount     `parser:"@@"`
	Unique string      `parser:"@( 'UNIQUE' | 'NONUNIQUE' )?"`
	Shape  *gMsgShape  `parser:"@@"`
	Touch  *gTouching  `parser:"@@?"`
	Tag    *gTag       `parser:"@@?"`
	Buffer *gBufferRef `parser:"@@?"`
}

type gCount struct {
	tokens
	A    bool   `parser:"  @'AN'"`
	Expr *gExpr `parser:"| @@"`
}

// gMsgShape is `[size] [alignment] MESSAGES`. The first alternative tries a
// size before the alignment; the second covers alignment alone, as in
// `A 64 BYTE ALIGNED MESSAGE`.
type gMsgShape struct {
	tokens
	Size      *gSize  `parser:"(   @@"`
	Align     *gAlign `parser:"    @@? 'MESSAGES'"`
	OnlyAlign *gAlign `parser:"  | @@? 'MESSAGES' )"`
}

type gSize struct {
	tokens
	Sized  string     `parser:"  @( 'BYTES' | 'HALFWORDS' | 'WORDS' | 'INTEGERS' | 'DOUBLEWORDS' | 'QUADWORDS' | 'PAGES' ) 'SIZED'"`
	Amount *gQuantity `parser:"| @@"`
}

type gQuantity struct {
	tokens
	Amount *gExpr `parser:"@@"`
	Unit   string `parser:"@( 'BITS' | 'BYTES' | 'HALFWORDS' | 'WORDS' | 'INTEGERS' | 'DOUBLEWORDS' | 'QUADWORDS' | 'PAGES' | 'KILOBYTE' | 'MEGABYTE' | 'GIGABYTE' )"`
}

type gAlign struct {
	tokens
	Unaligned bool       `parser:"  @'UNALIGNED'"`
	Type      string     `parser:"| ( @( 'BYTES' | 'HALFWORDS' | 'WORDS' | 'INTEGERS' | 'DOUBLEWORDS' | 'QUADWORDS' | 'PAGES' )"`
	Amount    *gQuantity `parser:"  | @@ )"`
	Kind      string     `parser:"  @( 'ALIGNED' | 'MISALIGNED' )"`
}

type gTouching struct {
	tokens
	With bool   `parser:"( @'WITH' | 'WITHOUT' )"`
	What string `parser:"@( 'DATA' 'TOUCHING' | 'VERIFICATION' )"`
}

type gTag struct {
	tokens
	Str  *string `parser:"'USING' 'TAG' ( @String"`
	Expr *gExpr  `parser:"              | @@ )"`
}

type gBufferRef struct {
	tokens
	Prep    string     `parser:"@( 'FROM' | 'INTO' )"`
	Offset  *gQuantity `parser:"( @@ 'INTO' )?"`
	Default bool       `parser:"(   @( 'THE' 'DEFAULT' 'BUFFERS' )"`
	Number  *gExpr     `parser:"  | 'BUFFERS' @@ )"`
}

// gRecvSpec is the receive side of `WHO RECEIVES IT ...`.
type gRecvSpec struct {
	optTokens
	Blocking string      `parser:"@( 'ASYNCHRONOUSLY' | 'SYNCHRONOUSLY' )?"`
	As       bool        `parser:"( @'AS' 'AN'?"`
	Unique   string      `parser:"  @( 'UNIQUE' | 'NONUNIQUE' )?"`
	Align    *gAlign     `parser:"  @@? 'MESSAGES' )?"`
	Touch    *gTouching  `parser:"@@?"`
	Tag      *gTag       `parser:"@@?"`
	Buffer   *gBufferRef `parser:"@@?"`
}

// gReduceSpec is a REDUCE source specification or, with AS or without a
// type, the WHO RECEIVES THE RESULT specification.
type gReduceSpec struct {
	optTokens
	As     bool         `parser:"@'AS'?"`
	Typed  *gReduceType `parser:"@@?"`
	Touch  *gTouching   `parser:"@@?"`
	Tag    *gTag        `parser:"@@?"`
	Buffer *gBufferRef  `parser:"@@?"`
}

// gReduceTo is the result of an all-reduce written `TO n INTEGERS`; unlike
// gReduceSpec it cannot be empty, so it can stand in an alternative.
type gReduceTo struct {
	tokens
	As     bool         `parser:"@'AS'?"`
	Typed  *gReduceType `parser:"@@"`
	Touch  *gTouching   `parser:"@@?"`
	Tag    *gTag        `parser:"@@?"`
	Buffer *gBufferRef  `parser:"@@?"`
}

// gReduceType is `count [UNIQUE] [alignment] TYPE`.
type gReduceType struct {
	tokens
	Count  *gCount `parser:"@@"`
	Unique string  `parser:"@( 'UNIQUE' | 'NONUNIQUE' )?"`
	Align  *gAlign `parser:"@@?"`
	Type   string  `parser:"@( 'BYTES' | 'HALFWORDS' | 'WORDS' | 'INTEGERS' | 'DOUBLEWORDS' | 'QUADWORDS' | 'PAGES' )"`
}

// ---------------------------------------------------------------------------
// Relational expressions

type gRel struct {
	tokens
	X    *gRelPrimary `parser:"@@"`
	Rest []*gRelOp    `parser:"@@*"`
}

// gRelOp is a connective and its right operand; build.go gives AND its
// higher precedence.
type gRelOp struct {
	tokens
	Op string       `parser:"@( '/\\\\' | '\\\\/' )"`
	Y  *gRelPrimary `parser:"@@"`
}

type gRelPrimary struct {
	tokens
	Paren *gRel `parser:"  '(' @@ ')'"`
	Eq    *gEq  `parser:"| @@"`
}

type gEq struct {
	tokens
	X      *gExpr    `parser:"@@"`
	Op     string    `parser:"(   @( '=' | '<' | '>' | '<=' | '>=' | '<>' | 'DIVIDES' )"`
	Y      *gExpr    `parser:"    @@"`
	Parity string    `parser:"  | 'ARE' ( @( 'EVEN' | 'ODD' )"`
	Not    bool      `parser:"          | @'NOT'? 'IN'"`
	Lo     *gExpr    `parser:"            ( '[' @@"`
	Hi     *gExpr    `parser:"              ',' @@ ']'"`
	Ranges []*gRange `parser:"            | @@ ( ',' @@ )* ) ) )"`
}

// ---------------------------------------------------------------------------
// Ranges

// gRange is `{...}`: a list, a progression (an ellipsis item before the
// final value) or a comprehension.
type gRange struct {
	tokens
	First *gExpr        `parser:"'{' @@"`
	Comp  *gCompTail    `parser:"@@?"`
	Rest  []*gRangeItem `parser:"( ',' @@ )* '}'"`
}

type gRangeItem struct {
	tokens
	Ellipsis bool   `parser:"  @'...'"`
	Expr     *gExpr `parser:"| @@"`
}

type gCompTail struct {
	tokens
	Gens  []*gGen `parser:"@@+"`
	Where *gRel   `parser:"( 'WHERE' @@ )?"`
}

type gGen struct {
	tokens
	Var    string    `parser:"'FOR' 'EACH' @Ident 'IN'"`
	Ranges []*gRange `parser:"@@ ( ',' @@ )*"`
}

// ---------------------------------------------------------------------------
// Arithmetic expressions. Binary operators of both precedence levels are
// read as one flat list and build.go applies precedence and left
// associativity: fewer grammar levels make parsing much faster.

type gExpr struct {
	tokens
	X    *gArith `parser:"@@"`
	Cond *gRel   `parser:"( 'IF' @@"`
	Else *gExpr  `parser:"  'OTHERWISE' @@ )?"`
}

type gArith struct {
	tokens
	X    *gUnary   `parser:"@@"`
	Rest []*gBinOp `parser:"@@*"`
}

type gBinOp struct {
	tokens
	Op string  `parser:"@( '+' | '-' | '|' | 'XOR' | '*' | '/' | 'MOD' | '>>' | '<<' | '&' )"`
	Y  *gUnary `parser:"@@"`
}

// gUnary is prefix operators applied to `primary [** unary]`: unary minus
// binds looser than **, so -2**2 is -(2**2).
type gUnary struct {
	tokens
	Ops []string  `parser:"@( '+' | '-' | 'NOT' )*"`
	X   *gPrimary `parser:"@@"`
	Exp *gUnary   `parser:"( '**' @@ )?"`
}

type gPrimary struct {
	tokens
	Int      *string    `parser:"  @Int"`
	Ident    *string    `parser:"| @Ident"`
	Paren    *gExpr     `parser:"| '(' @@ ')'"`
	Call     *gCall     `parser:"| @@"`
	Mesh     *gMesh     `parser:"| @@"`
	FileData *gFileData `parser:"| @@"`
	MyTask   bool       `parser:"| @( 'MY' 'TASKS' )"`
}

type gCall struct {
	tokens
	Func string   `parser:"@( 'ABS' | 'BITS' | 'CBRT' | 'CEILING' | 'FACTOR10' | 'FLOOR' | 'KNOMIAL_CHILD' | 'KNOMIAL_CHILDREN' | 'KNOMIAL_PARENT' | 'LOG10' | 'MAX' | 'MIN' | 'PROCESSOR_OF' | 'RANDOM_GAUSSIAN' | 'RANDOM_PARETO' | 'RANDOM_POISSON' | 'RANDOM_UNIFORM' | 'REAL' | 'ROOT' | 'ROUND' | 'SQRT' | 'TASK_OF' | 'TREE_CHILD' | 'TREE_PARENT' )"`
	Args []*gExpr `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
}

type gMesh struct {
	tokens
	Func    string   `parser:"@( 'MESH_NEIGHBOR' | 'MESH_COORDINATE' | 'MESH_DISTANCE' )"`
	Dims    []*gDim  `parser:"'(' '(' @@ ( ',' @@ )* ')'"`
	Task    *gExpr   `parser:"',' @@ ','"`
	Offsets []*gExpr `parser:"(   '(' @@ ( ',' @@ )* ')' (?= ')' )"`
	Arg     *gExpr   `parser:"  | @@ ) ')'"`
}

type gDim struct {
	tokens
	Size  *gExpr `parser:"@@"`
	Torus bool   `parser:"@'*'?"`
}

type gFileData struct {
	tokens
	Func    string  `parser:"@( 'FILE_DATA' | 'STATIC_FILE_DATA' )"`
	File    string  `parser:"'(' @String"`
	Column  *gExpr  `parser:"( ',' @@"`
	Row     *gExpr  `parser:"  ( ',' @@"`
	ColSeps *string `parser:"    ( ',' @String"`
	RowSeps *string `parser:"      ( ',' @String )? )? )? )? ')'"`
}

// functionKeywords maps the keywords that name built-in functions.
var functionKeywords = map[string]lang.Func{
	"ABS": lang.FuncAbs, "BITS": lang.FuncBits, "CBRT": lang.FuncCbrt,
	"CEILING": lang.FuncCeiling, "FACTOR10": lang.FuncFactor10,
	"FLOOR": lang.FuncFloor, "KNOMIAL_CHILD": lang.FuncKnomialChild,
	"KNOMIAL_CHILDREN": lang.FuncKnomialChildren,
	"KNOMIAL_PARENT":   lang.FuncKnomialParent, "LOG10": lang.FuncLog10,
	"MAX": lang.FuncMax, "MIN": lang.FuncMin,
	"PROCESSOR_OF":    lang.FuncProcessorOf,
	"RANDOM_GAUSSIAN": lang.FuncRandomGaussian,
	"RANDOM_PARETO":   lang.FuncRandomPareto,
	"RANDOM_POISSON":  lang.FuncRandomPoisson,
	"RANDOM_UNIFORM":  lang.FuncRandomUniform, "REAL": lang.FuncReal,
	"ROOT": lang.FuncRoot, "ROUND": lang.FuncRound, "SQRT": lang.FuncSqrt,
	"TASK_OF": lang.FuncTaskOf, "TREE_CHILD": lang.FuncTreeChild,
	"TREE_PARENT":      lang.FuncTreeParent,
	"MESH_NEIGHBOR":    lang.FuncMeshNeighbor,
	"MESH_COORDINATE":  lang.FuncMeshCoordinate,
	"MESH_DISTANCE":    lang.FuncMeshDistance,
	"FILE_DATA":        lang.FuncFileData,
	"STATIC_FILE_DATA": lang.FuncStaticFileData,
}
