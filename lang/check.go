package lang

import (
	"fmt"
	"regexp"
	"strings"
)

// LanguageVersion is the coNCePTuaL language version Parley implements.
const LanguageVersion = "1.5"

// Check runs the semantic checks on a parsed program: names resolve in
// scope, task descriptions are valid for their position, values that steer
// control flow cannot be random, message attributes agree, parameters are
// well formed, and the rest of the rules of the coNCePTuaL manual and
// LANGUAGE.md. It returns errors and warnings sorted by position.
func Check(p *Program) Diagnostics {
	c := &checker{prog: p, root: newScope(nil)}
	c.headers()
	for _, top := range p.Body {
		s := newScope(c.root)
		for _, st := range top.Stmts {
			c.stmt(st, s)
		}
		c.unused(s)
	}
	c.unused(c.root)
	c.diags.Sort()
	return c.diags
}

type checker struct {
	prog  *Program
	root  *scope
	diags Diagnostics
}

func (c *checker) report(sev Severity, n Node, hint, format string, args ...any) {
	sp := n.NodeSpan()
	c.diags = append(c.diags, Diagnostic{
		Pos: sp.Start, End: sp.End, Severity: sev,
		Msg:  fmt.Sprintf(format, args...),
		Text: SourceText(c.prog.Source, sp),
		Hint: hint,
	})
}

func (c *checker) errorf(n Node, hint, format string, args ...any) {
	c.report(Error, n, hint, format, args...)
}

func (c *checker) warnf(n Node, hint, format string, args ...any) {
	c.report(Warning, n, hint, format, args...)
}

// ---------------------------------------------------------------------------
// Scopes

type bindKind int

const (
	bindParam bindKind = iota
	bindLet
	bindLoop
	bindTask
	bindGroup
	bindComprehension
)

type binding struct {
	id   *Ident
	kind bindKind
	used bool
}

// scope holds variables and, in a separate namespace, task groups.
type scope struct {
	parent *scope
	vars   map[string]*binding
	groups map[string]*binding
	order  []*binding
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, vars: map[string]*binding{}, groups: map[string]*binding{}}
}

func (s *scope) lookup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.vars[name]; ok {
			return b
		}
	}
	return nil
}

func (s *scope) lookupGroup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.groups[name]; ok {
			return b
		}
	}
	return nil
}

func (s *scope) visible() []string {
	var names []string
	seen := map[string]bool{}
	for ; s != nil; s = s.parent {
		for n := range s.vars {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for n := range Predeclared {
		names = append(names, n)
	}
	return names
}

// declare binds id in s, refusing predeclared names.
func (c *checker) declare(s *scope, id *Ident, kind bindKind) *binding {
	if IsPredeclared(id.Name) {
		c.errorf(id, "choose another name", "%s is a predeclared variable and cannot be redefined", id.Name)
	}
	b := &binding{id: id, kind: kind}
	if kind == bindGroup {
		s.groups[id.Name] = b
	} else {
		s.vars[id.Name] = b
	}
	s.order = append(s.order, b)
	return b
}

var bindKindNames = [...]string{
	bindParam: "parameter", bindLet: "variable", bindLoop: "loop variable",
	bindTask: "task variable", bindGroup: "task group", bindComprehension: "variable",
}

// unused warns about the bindings of s that were never read.
func (c *checker) unused(s *scope) {
	for _, b := range s.order {
		if !b.used {
			c.warnf(b.id, "remove it, or use it", "%s %s is defined but never used", bindKindNames[b.kind], b.id.Name)
		}
	}
}

// ---------------------------------------------------------------------------
// Headers

var (
	shortOption = regexp.MustCompile(`^-[a-z0-9]$`)
	longOption  = regexp.MustCompile(`^--[-\w]+$`)
)

// reservedOptions are taken by the run time of every Parley benchmark.
var reservedOptions = map[string]bool{"--help": true, "--usage": true}

func (c *checker) headers() {
	longs := map[string]*ParamDecl{}
	shorts := map[string]*ParamDecl{}
	for _, h := range c.prog.Headers {
		switch h := h.(type) {
		case *VersionDecl:
			if h.Version.Value != LanguageVersion {
				c.warnf(h.Version, fmt.Sprintf(`Parley implements version %q; check the program's behaviour carefully`, LanguageVersion),
					"the program requires language version %q", h.Version.Value)
			}
		case *ParamDecl:
			ctx := exprCtx{scope: newScope(nil), where: "a parameter's default value", constant: true}
			if prev := c.root.vars[h.Name.Name]; prev != nil {
				c.errorf(h.Name, "give each parameter its own name",
					"parameter %s is declared twice (first at %s)", h.Name.Name, prev.id.Start)
			} else {
				c.declare(c.root, h.Name, bindParam)
			}
			if !shortOption.MatchString(h.Short.Value) {
				c.errorf(h.Short, `a short option is "-" and one lower-case letter or digit, e.g. "-r"`,
					"%q is not a valid short option", h.Short.Value)
			} else if prev := shorts[h.Short.Value]; prev != nil {
				c.errorf(h.Short, "choose another letter", "short option %s is already used by parameter %s", h.Short.Value, prev.Name.Name)
			} else {
				shorts[h.Short.Value] = h
			}
			switch {
			case !longOption.MatchString(h.Long.Value):
				c.errorf(h.Long, `a long option is "--" and letters, digits, dashes or underscores, e.g. "--reps"`,
					"%q is not a valid long option", h.Long.Value)
			case reservedOptions[h.Long.Value]:
				c.errorf(h.Long, "choose another name", "option %s is reserved for the run time", h.Long.Value)
			case longs[h.Long.Value] != nil:
				c.errorf(h.Long, "choose another name", "long option %s is already used by parameter %s", h.Long.Value, longs[h.Long.Value].Name.Name)
			default:
				longs[h.Long.Value] = h
			}
			c.expr(h.Default, ctx)
			for _, r := range h.Sweep {
				c.rangeExpr(r, ctx)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Expressions

// exprCtx says where an expression stands.
type exprCtx struct {
	scope    *scope
	where    string // set where every task must compute the same value: random functions are errors
	warnRand string // set where random values are suspicious (loop bounds): warnings
	inIf     bool   // MY TASK is allowed
	noCount  string // set where the per-task counters (not num_tasks) are not allowed
	constant bool   // only constants: no variables at all
}

func (x exprCtx) with(s *scope) exprCtx { x.scope = s; return x }

var funcArity = map[Func][2]int{
	FuncAbs: {1, 1}, FuncBits: {1, 1}, FuncCbrt: {1, 1}, FuncCeiling: {1, 1}, FuncFactor10: {1, 1},
	FuncFloor: {1, 1}, FuncLog10: {1, 1}, FuncRound: {1, 1}, FuncSqrt: {1, 1}, FuncReal: {1, 1},
	FuncMax: {1, -1}, FuncMin: {1, -1}, FuncRoot: {2, 2},
	FuncTreeParent: {1, 2}, FuncTreeChild: {2, 3},
	FuncKnomialParent: {1, 3}, FuncKnomialChildren: {1, 3}, FuncKnomialChild: {2, 4},
	FuncRandomUniform: {2, 2}, FuncRandomGaussian: {2, 2}, FuncRandomPoisson: {1, 1}, FuncRandomPareto: {2, 3},
	FuncProcessorOf: {1, 1}, FuncTaskOf: {1, 1},
}

var funcSignatures = map[Func]string{
	FuncRoot: "ROOT(n, x)", FuncTreeParent: "TREE_PARENT(task[, fanout])",
	FuncTreeChild:       "TREE_CHILD(task, child[, fanout])",
	FuncKnomialParent:   "KNOMIAL_PARENT(task[, k[, tasks]])",
	FuncKnomialChildren: "KNOMIAL_CHILDREN(task[, k[, tasks]])",
	FuncKnomialChild:    "KNOMIAL_CHILD(task, child[, k[, tasks]])",
	FuncRandomUniform:   "RANDOM_UNIFORM(low, high)", FuncRandomGaussian: "RANDOM_GAUSSIAN(mean, stddev)",
	FuncRandomPareto: "RANDOM_PARETO(shape, scale) or RANDOM_PARETO(shape, low, high)",
}

func (c *checker) expr(e Expr, x exprCtx) {
	switch e := e.(type) {
	case *IntLit:
	case *Ident:
		c.ident(e, x)
	case *Unary:
		c.expr(e.X, x)
	case *Binary:
		c.expr(e.X, x)
		c.expr(e.Y, x)
	case *CondExpr:
		c.expr(e.Then, x)
		c.rel(e.Cond, x)
		c.expr(e.Else, x)
	case *MyTask:
		if !x.inIf {
			c.errorf(e, "bind the task number with ALL TASKS t (or TASKS t SUCH THAT ...) and use t",
				"MY TASK is allowed only in an IF statement's condition")
		}
	case *Call:
		c.random(e, e.Func, x)
		if ar, ok := funcArity[e.Func]; ok {
			n := len(e.Args)
			if n < ar[0] || (ar[1] >= 0 && n > ar[1]) {
				sig := funcSignatures[e.Func]
				if sig == "" {
					sig = fmt.Sprintf("%s(x)", e.Func)
					if e.Func == FuncMin || e.Func == FuncMax {
						sig = fmt.Sprintf("%s(a, b, ...)", e.Func)
					}
				}
				c.errorf(e, "call it as "+sig, "%s takes %s, not %d", e.Func, arityText(ar), n)
			}
		}
		for _, a := range e.Args {
			c.expr(a, x)
		}
	case *MeshCall:
		if len(e.Dims) > 3 {
			c.errorf(e, "meshes and tori have 1, 2 or 3 dimensions", "%s has %d dimensions", e.Func, len(e.Dims))
		}
		for _, d := range e.Dims {
			c.expr(d.Size, x)
		}
		c.expr(e.Task, x)
		if e.Func == FuncMeshNeighbor {
			if len(e.Offsets) > len(e.Dims) {
				c.errorf(e, "give one offset per dimension", "MESH_NEIGHBOR has %d offsets for a %d-dimensional mesh", len(e.Offsets), len(e.Dims))
			}
			for _, o := range e.Offsets {
				c.expr(o, x)
			}
		} else if e.Arg != nil {
			c.expr(e.Arg, x)
		}
	case *FileData:
		f := FuncStaticFileData
		if !e.Static {
			f = FuncFileData
		}
		c.random(e, f, x)
		for _, a := range []Expr{e.Column, e.Row} {
			if a != nil {
				c.expr(a, x)
			}
		}
	}
}

func arityText(ar [2]int) string {
	switch {
	case ar[1] < 0:
		return fmt.Sprintf("at least %d argument(s)", ar[0])
	case ar[0] == ar[1] && ar[0] == 1:
		return "one argument"
	case ar[0] == ar[1]:
		return fmt.Sprintf("%d arguments", ar[0])
	}
	return fmt.Sprintf("%d to %d arguments", ar[0], ar[1])
}

// random reports a random function used where every task must agree.
func (c *checker) random(n Node, f Func, x exprCtx) {
	if !f.IsRandom() {
		return
	}
	switch {
	case x.where != "":
		hint := "every task must compute the same value here; bind a shared random task with LET x BE A RANDOM TASK"
		if f == FuncFileData {
			hint = "FILE_DATA may read a different value on each task; use STATIC_FILE_DATA if the file does not change"
		}
		c.errorf(n, hint, "%s is not allowed within %s", f, x.where)
	case x.warnRand != "":
		c.warnf(n, "tasks that draw different values run different numbers of iterations and may deadlock",
			"%s in %s gives each task its own value", f, x.warnRand)
	}
}

func (c *checker) ident(id *Ident, x exprCtx) {
	if IsPredeclared(id.Name) {
		switch {
		case x.constant:
			c.errorf(id, "use a constant", "%s cannot appear within %s", id.Name, x.where)
		case x.noCount != "" && id.Name != VarNumTasks:
			c.errorf(id, "only num_tasks is the same on every task; use the counter in a LOGS or OUTPUTS statement instead",
				"%s is not allowed within %s", id.Name, x.noCount)
		}
		return
	}
	if b := x.scope.lookup(id.Name); b != nil {
		b.used = true
		if x.constant {
			c.errorf(id, "use a constant", "%s cannot appear within %s", id.Name, x.where)
		}
		return
	}
	if x.constant {
		c.errorf(id, "a parameter's default must be a constant", "undefined variable %s in %s", id.Name, x.where)
		return
	}
	if g := x.scope.lookupGroup(id.Name); g != nil {
		c.errorf(id, fmt.Sprintf("use the group as a task description: TASK GROUP %s", id.Name),
			"%s is a task group, not a variable", id.Name)
		return
	}
	hint := fmt.Sprintf("declare it as a parameter, bind it with LET %s BE ... WHILE, FOR EACH %s IN ..., or ALL TASKS %s", id.Name, id.Name, id.Name)
	if s := Suggest(id.Name, x.scope.visible()); s != "" {
		hint = fmt.Sprintf("did you mean %s?", s)
	}
	c.errorf(id, hint, "undefined variable %s", id.Name)
}

func (c *checker) rel(r Rel, x exprCtx) {
	switch r := r.(type) {
	case *Logic:
		c.rel(r.X, x)
		c.rel(r.Y, x)
	case *Compare:
		c.expr(r.X, x)
		c.expr(r.Y, x)
	case *Parity:
		c.expr(r.X, x)
	case *InInterval:
		c.expr(r.X, x)
		c.expr(r.Lo, x)
		c.expr(r.Hi, x)
	case *InRanges:
		c.expr(r.X, x)
		for _, rg := range r.Ranges {
			c.rangeExpr(rg, x)
		}
	}
}

func (c *checker) rangeExpr(r Range, x exprCtx) {
	switch r := r.(type) {
	case *ListRange:
		for _, e := range r.Items {
			c.expr(e, x)
		}
	case *ProgRange:
		for _, e := range r.Initial {
			c.expr(e, x)
		}
		c.expr(r.Final, x)
	case *CompRange:
		s := newScope(x.scope)
		inner := x
		if inner.constant {
			// Comprehension variables are constants of their own.
			inner.constant = false
		}
		for _, g := range r.Gens {
			for _, rg := range g.Ranges {
				c.rangeExpr(rg, x.with(s))
			}
			c.declare(s, g.Var, bindComprehension)
		}
		c.expr(r.Expr, inner.with(s))
		if r.Where != nil {
			c.rel(r.Where, inner.with(s))
		}
		c.unused(s)
	}
}

// ---------------------------------------------------------------------------
// Task descriptions

type taskRole int

const (
	roleSource   taskRole = iota // performs the operation
	roleTarget                   // receives: ALL OTHER TASKS allowed, ALL TASKS not
	roleReceiver                 // receives in RECEIVE or a collective: both allowed
	roleGroup                    // LET g BE <tasks>
)

// tasks checks a task description in its role and, if declare is set,
// declares its variable in s. Expressions in it are evaluated in s.
func (c *checker) tasks(t TaskDesc, role taskRole, s *scope, declare bool) {
	x := exprCtx{scope: s, where: "a task description"}
	switch t := t.(type) {
	case *AllTasks:
		if role == roleTarget {
			c.errorf(t, "use ALL OTHER TASKS, or name the targets with TASK or TASKS ... SUCH THAT",
				"ALL TASKS cannot be the target of this statement")
		}
		if t.Var != nil && declare {
			c.declare(s, t.Var, bindTask)
		}
	case *AllOtherTasks:
		if role == roleSource || role == roleGroup {
			c.errorf(t, "ALL OTHER TASKS names targets only; use ALL TASKS, or TASKS t SUCH THAT ...",
				"ALL OTHER TASKS cannot perform an operation")
		}
	case *TaskExpr:
		c.expr(t.X, x)
	case *TasksSuchThat:
		if declare {
			c.declare(s, t.Var, bindTask)
		}
		c.rel(t.Cond, x)
	case *TaskGroup:
		g := s.lookupGroup(t.Name.Name)
		if g == nil {
			hint := fmt.Sprintf("define it first: LET %s BE TASKS t SUCH THAT ... WHILE ...", t.Name.Name)
			if s.lookup(t.Name.Name) != nil {
				hint = fmt.Sprintf("%s is a variable; TASK GROUP needs a group defined with LET %s BE <tasks>", t.Name.Name, t.Name.Name)
			}
			c.errorf(t.Name, hint, "task group %s is not defined", t.Name.Name)
		} else {
			g.used = true
		}
		// Within the statement the group's name is each member's task number.
		b := &binding{id: t.Name, kind: bindTask, used: true}
		s.vars[t.Name.Name] = b
	case *TasksInRanges:
		for _, r := range t.Ranges {
			c.rangeExpr(r, x)
		}
	}
}

// ---------------------------------------------------------------------------
// Statements

func (c *checker) stmt(st Stmt, s *scope) {
	switch st := st.(type) {
	case *Block:
		inner := newScope(s)
		for _, b := range st.Stmts {
			c.stmt(b, inner)
		}
		c.unused(inner)
	case *ForCount:
		x := exprCtx{scope: s, warnRand: "a loop count"}
		c.expr(st.Count, x)
		if st.Warmup != nil {
			c.expr(st.Warmup, x)
		}
		c.stmt(st.Body, s)
	case *ForTime:
		x := exprCtx{scope: s, warnRand: "a loop duration"}
		c.expr(st.Amount, x)
		if st.Warmup != nil {
			c.expr(st.Warmup, x)
		}
		c.stmt(st.Body, s)
	case *ForEach:
		x := exprCtx{scope: s, warnRand: "a loop range"}
		for _, r := range st.Ranges {
			c.rangeExpr(r, x)
		}
		inner := newScope(s)
		c.declare(inner, st.Var, bindLoop)
		c.stmt(st.Body, inner)
		c.unused(inner)
	case *Let:
		inner := newScope(s)
		for _, b := range st.Bindings {
			c.binding(b, inner)
		}
		c.stmt(st.Body, inner)
		c.unused(inner)
	case *If:
		c.rel(st.Cond, exprCtx{scope: s, where: "an IF condition", inIf: true})
		c.stmt(st.Then, s)
		if st.Else != nil {
			c.stmt(st.Else, s)
		}
	case *Assert:
		c.rel(st.Cond, exprCtx{scope: s})
	case *Send:
		c.send(st, s)
	case *Receive:
		c.receive(st, s)
	case *Multicast:
		src := newScope(s)
		c.tasks(st.Source, roleSource, src, true)
		c.msgSpec(st.Msg, src)
		tgt := newScope(src)
		c.tasks(st.Target, roleTarget, tgt, true)
		c.unused(tgt)
		c.unused(src)
	case *Reduce:
		c.reduce(st, s)
	case *Scatter:
		c.collective(st.Source, st.Target, st.Msg, s)
		if _, ok := st.Source.(*TaskExpr); !ok {
			c.errorf(st.Source, "a scatter has one root: TASK n SCATTERS ... TO ...", "a scatter must be performed by a single task")
		}
	case *Gather:
		c.collective(st.Root, st.Source, st.Msg, s)
		_, single := st.Root.(*TaskExpr)
		_, allRoot := st.Root.(*AllTasks)
		_, allSrc := st.Source.(*AllTasks)
		if !single && !(allRoot && allSrc) {
			c.errorf(st.Root, "write TASK n GATHERS ... FROM <tasks>, or ALL TASKS GATHER ... FROM ALL TASKS for an all-gather",
				"a gather has one root, or every task gathers from every task")
		}
	case *Exchange:
		c.collective(st.Tasks, st.Peers, st.Msg, s)
	default:
		c.taskStmt(st, s)
	}
}

func (c *checker) binding(b *LetBinding, s *scope) {
	switch {
	case b.Group != nil:
		c.tasks(b.Group, roleGroup, newScope(s), true)
		c.declare(s, b.Name, bindGroup)
	case b.Random != nil:
		x := exprCtx{scope: s, where: "a LET binding", noCount: "a LET binding"}
		for _, e := range []Expr{b.Random.X, b.Random.Y, b.Random.ButNot} {
			if e != nil {
				c.expr(e, x)
			}
		}
		c.declare(s, b.Name, bindLet)
	default:
		c.expr(b.Value, exprCtx{scope: s, where: "a LET binding", noCount: "a LET binding"})
		c.declare(s, b.Name, bindLet)
	}
}

func (c *checker) send(st *Send, s *scope) {
	src := newScope(s)
	c.tasks(st.Source, roleSource, src, true)
	tgt := newScope(src)
	c.tasks(st.Target, roleTarget, tgt, true)
	// Sizes may depend on the target's variable (one size per peer).
	c.msgSpec(st.Msg, tgt)
	if r := st.Recv; r != nil {
		x := exprCtx{scope: tgt, where: "a message specification"}
		c.attrs(r, r.Uniqueness, r.Align, r.Tag, r.Buffer, x)
		recvTouch := st.Msg.Touch
		if r.Touch != 0 {
			recvTouch = r.Touch
		}
		switch {
		case st.Msg.Touch == WithVerification && recvTouch != WithVerification:
			c.errorf(st, "add WITH VERIFICATION to the WHO RECEIVES clause, or remove it from the send",
				"a message sent WITH VERIFICATION must also be received WITH VERIFICATION")
		case st.Msg.Touch != WithVerification && recvTouch == WithVerification:
			c.errorf(st, "send the message WITH VERIFICATION too",
				"a message received WITH VERIFICATION must also be sent WITH VERIFICATION")
		}
	}
	c.unused(tgt)
	c.unused(src)
}

// declaredVar returns the variable a task description binds, if any.
func declaredVar(t TaskDesc) *Ident {
	switch t := t.(type) {
	case *AllTasks:
		return t.Var
	case *TasksSuchThat:
		return t.Var
	}
	return nil
}

// receive checks a RECEIVE statement. Its variables may flow either way:
// `TASKS src-1 RECEIVE ... FROM ALL TASKS src` and `ALL TASKS dst RECEIVE
// ... FROM TASKS dst+1` are both valid, so both sides see both variables.
func (c *checker) receive(st *Receive, s *scope) {
	_, othersR := st.Target.(*AllOtherTasks)
	_, othersS := st.Source.(*AllOtherTasks)
	if othersR && othersS {
		c.errorf(st, "name one side explicitly", "ambiguous receive: ALL OTHER TASKS on both sides")
	}
	rv, sv := declaredVar(st.Target), declaredVar(st.Source)
	if rv != nil && sv != nil && rv.Name == sv.Name {
		c.errorf(sv, "give the senders and the receivers different variable names",
			"variable %s is declared by both the receivers and the senders", sv.Name)
	}
	both := newScope(s)
	if rv != nil {
		c.declare(both, rv, bindTask)
	}
	if sv != nil && (rv == nil || rv.Name != sv.Name) {
		c.declare(both, sv, bindTask)
	}
	c.tasks(st.Target, roleReceiver, both, false)
	c.tasks(st.Source, roleSource, both, false)
	c.msgSpec(st.Msg, both)
	c.unused(both)
}

func (c *checker) collective(root, peers TaskDesc, msg *MsgSpec, s *scope) {
	src := newScope(s)
	c.tasks(root, roleSource, src, true)
	tgt := newScope(src)
	c.tasks(peers, roleReceiver, tgt, true)
	c.msgSpec(msg, tgt)
	c.unused(tgt)
	c.unused(src)
}

func (c *checker) reduce(st *Reduce, s *scope) {
	src := newScope(s)
	c.tasks(st.Source, roleSource, src, true)
	c.reduceSpec(st.Msg, src)
	if st.Target != nil {
		tgt := newScope(src)
		c.tasks(st.Target, roleSource, tgt, true)
		defer c.unused(tgt)
		if st.Scatter {
			c.errorf(st, "drop TO ... (every source receives its part), or drop AND SCATTER THE RESULT",
				"a reduce-scatter delivers the result to the reducing tasks themselves")
		}
	}
	if r := st.Result; r != nil {
		c.reduceSpec(r, src)
		if r.Typed {
			if r.Type != st.Msg.Type && st.Msg.Type != 0 && r.Type != 0 {
				c.errorf(r, "reduce and receive the same data type", "%s cannot reduce to %s",
					unitNoun(st.Msg.Type, nil)+"S", unitNoun(r.Type, nil)+"S")
			}
			if !sameCount(st.Msg.Count, r.Count) {
				c.errorf(r, "the result has as many items as each contribution",
					"the number of items reduced (%s) must match the number in the result (%s)",
					countText(st.Msg.Count), countText(r.Count))
			}
		}
	}
	c.unused(src)
}

func countText(e Expr) string {
	if e == nil {
		return "1"
	}
	return FormatExpr(e)
}

// sameCount compares two item counts structurally, A/AN being 1.
func sameCount(a, b Expr) bool {
	return countText(a) == countText(b)
}

func (c *checker) reduceSpec(r *ReduceSpec, s *scope) {
	x := exprCtx{scope: s, where: "a message specification"}
	if r.Typed {
		if r.Count != nil {
			c.expr(r.Count, x)
		}
		if r.Type != Integers && r.Type != Doublewords {
			c.errorf(r, "reduce INTEGERS or DOUBLEWORDS", "only INTEGERS and DOUBLEWORDS can be reduced, not %sS", unitAdjectives[r.Type])
		}
	}
	if r.Touch == WithVerification {
		c.errorf(r, "use WITH DATA TOUCHING, or remove it", "WITH VERIFICATION is not allowed in a REDUCE statement")
	}
	c.attrs(r, r.Uniqueness, r.Align, r.Tag, r.Buffer, x)
}

func (c *checker) msgSpec(m *MsgSpec, s *scope) {
	x := exprCtx{scope: s, where: "a message specification"}
	if m.Count != nil {
		c.expr(m.Count, x)
	}
	if m.Size != nil && m.Size.Amount != nil {
		c.expr(m.Size.Amount, x)
	}
	c.attrs(m, m.Uniqueness, m.Align, m.Tag, m.Buffer, x)
}

// attrs checks the attributes shared by every kind of message specification.
func (c *checker) attrs(n Node, u Uniqueness, a *Alignment, tag *Tag, buf *Buffer, x exprCtx) {
	if a != nil && a.Q != nil && a.Q.Amount != nil {
		c.expr(a.Q.Amount, x)
	}
	if tag != nil && tag.X != nil {
		c.expr(tag.X, x)
	}
	if buf != nil {
		if buf.Offset != nil {
			c.expr(buf.Offset.Amount, x)
		}
		if buf.Number != nil {
			c.expr(buf.Number, x)
		}
		if u == Unique {
			c.errorf(buf, "drop UNIQUE, or drop the buffer clause", "UNIQUE and an explicit message buffer are mutually exclusive")
		}
		if a != nil && a.Kind != Unaligned && buf.Offset != nil {
			c.errorf(n, "align the buffer or offset into it, not both", "message alignment and buffer offsets are mutually exclusive")
		}
	}
}

// taskStmt checks the simple statements performed by a set of tasks.
func (c *checker) taskStmt(st Stmt, s *scope) {
	inner := newScope(s)
	defer c.unused(inner)
	if t := Performers(st); t != nil {
		c.tasks(t, roleSource, inner, true)
	}
	x := exprCtx{scope: inner}
	exprs := func(es ...Expr) {
		for _, e := range es {
			if e != nil {
				c.expr(e, x)
			}
		}
	}
	switch st := st.(type) {
	case *Delay:
		exprs(st.Amount)
	case *Work:
		exprs(st.Flops)
		if st.Memory != nil {
			exprs(st.Memory.Amount)
		}
	case *Touch:
		exprs(st.Count, st.Repeat, st.StrideX)
		if st.Region != nil {
			exprs(st.Region.Amount)
		}
	case *TouchBuffer:
		exprs(st.Number)
	case *Log:
		for _, it := range st.Items {
			exprs(it.Agg.X)
			for _, f := range it.Agg.Funcs {
				exprs(f.Percentile)
			}
		}
	case *Output:
		c.items(st.Items, x)
	case *BackendExec:
		c.items(st.Items, x)
	case *Assign:
		exprs(st.Processor)
	}
}

// Performers returns the task description of a statement that a single set
// of tasks performs (SYNCHRONIZE, COMPUTE, LOG, OUTPUT, ...), or nil for
// statements with two sides or none.
func Performers(st Stmt) TaskDesc {
	switch st := st.(type) {
	case *Synchronize:
		return st.Tasks
	case *Await:
		return st.Tasks
	case *Delay:
		return st.Tasks
	case *Work:
		return st.Tasks
	case *Touch:
		return st.Tasks
	case *TouchBuffer:
		return st.Tasks
	case *Log:
		return st.Tasks
	case *ComputeAggregates:
		return st.Tasks
	case *Counters:
		return st.Tasks
	case *Output:
		return st.Tasks
	case *BackendExec:
		return st.Tasks
	case *Assign:
		return st.Tasks
	}
	return nil
}

func (c *checker) items(items []*Item, x exprCtx) {
	for _, it := range items {
		if it.X != nil {
			c.expr(it.X, x)
		}
	}
}

// Suggest returns the candidate closest to word by edit distance, or "" if
// none is close (at most two edits, and fewer than half the word).
func Suggest(word string, candidates []string) string {
	if len(word) < 3 {
		return ""
	}
	best, bestDist := "", 3
	for _, cand := range candidates {
		if d := editDistance(strings.ToLower(word), strings.ToLower(cand)); d < bestDist && d*2 < len(word) {
			best, bestDist = cand, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
