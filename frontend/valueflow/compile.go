package valueflow

import (
	"fmt"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// compile turns a parsed module into the machine's form. What the machine
// does not model is compiled into instructions that fail, with the
// construct and its position, when (and only if) they run.
func compile(mod *ir.Module) (*program, error) {
	c := &compiler{
		prog:   &program{locs: []srcPos{{fn: "?"}}},
		addr:   map[value.Value]uint64{},
		funcOf: map[*ir.Func]*function{},
		locIdx: map[srcPos]int32{},
	}
	p := c.prog
	newObject := func(init objectInit) uint64 {
		p.objects = append(p.objects, init)
		return uint64(len(p.objects)) << 32
	}
	for _, g := range mod.Globals {
		c.addr[g] = newObject(objectInit{name: "@" + g.Name()})
	}
	for _, f := range mod.Funcs {
		fn := &function{name: f.Name(), defined: len(f.Blocks) > 0}
		fn.addr = newObject(objectInit{name: "@" + f.Name(), fn: fn})
		c.funcOf[f] = fn
		c.addr[f] = fn.addr
		p.funcs = append(p.funcs, fn)
		if f.Name() == "main" && fn.defined {
			p.main = fn
		}
	}
	for _, a := range mod.Aliases {
		v, err := c.constScalar(a.Aliasee)
		if err != nil {
			return nil, fmt.Errorf("alias @%s: %w", a.Name(), err)
		}
		c.addr[a] = v
	}
	// Initial contents of the globals, now that every address is known.
	for _, g := range mod.Globals {
		i := c.addr[g]>>32 - 1
		size := sizeOf(g.ContentType)
		if size >= 1<<32 {
			return nil, fmt.Errorf("global @%s has %d bytes; the analysis handles objects up to 4 GiB", g.Name(), size)
		}
		data := make([]byte, size)
		if g.Init != nil {
			if err := c.writeConst(data, g.Init); err != nil {
				return nil, fmt.Errorf("initial value of global @%s: %w", g.Name(), err)
			}
		} else if std := g.Name(); std == "stdout" || std == "stderr" || std == "stdin" {
			// An external FILE*: point it at a stand-in FILE object.
			file := newObject(objectInit{name: std + " FILE", data: make([]byte, 8)})
			putUint(data, 0, 8, file)
			switch std {
			case "stdout":
				p.stdout = file
			case "stderr":
				p.stderr = file
			}
		}
		p.objects[i].data = data
	}
	for _, f := range mod.Funcs {
		fn := c.funcOf[f]
		fn.loc = c.funcLoc(f)
		if !fn.defined {
			fn.ext = lookupExternal(f.Name())
			fn.params, _ = lanesOfParams(f.Sig)
			fn.rets, _ = lanesOfRet(f.Sig.RetType)
			continue
		}
		if err := c.compileFunc(f, fn); err != nil {
			fn.broken = err
			fn.code = nil
		}
	}
	return p, nil
}

func lanesOfParams(sig *types.FuncType) ([]lane, error) {
	var out []lane
	for _, t := range sig.Params {
		ls, err := lanesOf(t)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

func lanesOfRet(t types.Type) ([]lane, error) {
	if t.Equal(types.Void) {
		return nil, nil
	}
	return lanesOf(t)
}

type compiler struct {
	prog   *program
	addr   map[value.Value]uint64
	funcOf map[*ir.Func]*function
	locIdx map[srcPos]int32
}

// loc interns a source position.
func (c *compiler) loc(p srcPos) int32 {
	if i, ok := c.locIdx[p]; ok {
		return i
	}
	c.prog.locs = append(c.prog.locs, p)
	i := int32(len(c.prog.locs) - 1)
	c.locIdx[p] = i
	return i
}

// debugPos is the position a !dbg attachment gives, if any.
func debugPos(md ir.Metadata, fn string) (srcPos, bool) {
	for _, a := range md {
		if a.Name != "dbg" {
			continue
		}
		switch n := a.Node.(type) {
		case *metadata.DILocation:
			return srcPos{file: scopeFile(n.Scope), line: int(n.Line), col: int(n.Column), fn: fn}, n.Line > 0
		case *metadata.DISubprogram:
			return srcPos{file: fileName(n.File), line: int(n.Line), fn: fn}, n.Line > 0
		}
	}
	return srcPos{}, false
}

func scopeFile(f metadata.Field) string {
	switch s := f.(type) {
	case *metadata.DISubprogram:
		return fileName(s.File)
	case *metadata.DILexicalBlock:
		return fileName(s.File)
	case *metadata.DILexicalBlockFile:
		return fileName(s.File)
	case *metadata.DIFile:
		return fileName(s)
	}
	return ""
}

func fileName(f *metadata.DIFile) string {
	if f == nil {
		return ""
	}
	return f.Filename
}

func (c *compiler) funcLoc(f *ir.Func) int32 {
	if p, ok := debugPos(f.Metadata, f.Name()); ok {
		return c.loc(p.base())
	}
	return c.loc(srcPos{fn: f.Name()})
}

// fnCompiler compiles one function.
type fnCompiler struct {
	c       *compiler
	f       *ir.Func
	fn      *function
	slot    map[value.Value]int32
	nregs   int32
	consts  map[uint64]int32
	code    []inst
	start   map[*ir.Block]int32
	counts  map[*ir.Block]int32
	fixups  []fixup
	loc     int32 // position of the instruction being compiled
	lastLoc int32 // last position seen in this function
}

type fixup struct {
	edge  int32
	block *ir.Block
}

func (c *compiler) compileFunc(f *ir.Func, fn *function) error {
	fc := &fnCompiler{c: c, f: f, fn: fn, slot: map[value.Value]int32{}, consts: map[uint64]int32{},
		start: map[*ir.Block]int32{}, counts: map[*ir.Block]int32{}, loc: fn.loc, lastLoc: fn.loc}
	var err error
	if fn.params, err = lanesOfParams(f.Sig); err != nil {
		return err
	}
	if fn.rets, err = lanesOfRet(f.Sig.RetType); err != nil {
		return err
	}
	for _, p := range f.Params {
		if _, err := fc.define(p); err != nil {
			return err
		}
	}
	for _, b := range f.Blocks {
		var n int32 = 1 // the terminator
		for _, in := range b.Insts {
			if skipped(in) {
				continue
			}
			n++
			if v, ok := in.(value.Value); ok && !v.Type().Equal(types.Void) {
				// A type the machine cannot hold fails where it is
				// computed (dst reports it).
				fc.define(v)
			}
		}
		fc.counts[b] = n
		if inv, ok := b.Term.(*ir.TermInvoke); ok && !inv.Type().Equal(types.Void) {
			if _, err := fc.define(inv); err != nil {
				return err
			}
		}
	}
	for _, b := range f.Blocks {
		fc.start[b] = int32(len(fc.code))
		for _, in := range b.Insts {
			if skipped(in) {
				continue
			}
			fc.setLoc(in)
			if err := fc.inst(in); err != nil {
				fc.fail(in, err)
			}
		}
		fc.setLoc(b.Term)
		if err := fc.term(b); err != nil {
			fc.fail(b.Term, err)
		}
	}
	for _, fx := range fc.fixups {
		c.prog.edges[fx.edge].pc = fc.start[fx.block]
	}
	fn.code, fn.nregs = fc.code, fc.nregs
	fn.entry = fc.counts[f.Blocks[0]]
	return nil
}

// skipped reports instructions that do nothing when the program runs:
// debug intrinsics and lifetime markers. They are not counted either.
func skipped(in ir.Instruction) bool {
	call, ok := in.(*ir.InstCall)
	if !ok {
		return false
	}
	f, ok := call.Callee.(*ir.Func)
	if !ok {
		return false
	}
	name := f.Name()
	return strings.HasPrefix(name, "llvm.dbg.") || strings.HasPrefix(name, "llvm.lifetime.") ||
		name == "llvm.experimental.noalias.scope.decl" || strings.HasPrefix(name, "llvm.assume") ||
		strings.HasPrefix(name, "llvm.invariant.") || strings.HasPrefix(name, "llvm.pseudoprobe")
}

func (fc *fnCompiler) setLoc(in any) {
	if md, ok := in.(interface{ MDAttachments() []*metadata.Attachment }); ok {
		if p, ok := debugPos(md.MDAttachments(), fc.f.Name()); ok {
			fc.loc = fc.c.loc(p.base())
			fc.lastLoc = fc.loc
			return
		}
	}
	fc.loc = fc.lastLoc
}

// fail compiles in as an instruction that reports err when it runs.
func (fc *fnCompiler) fail(in any, err error) {
	msg := err.Error()
	if _, ok := err.(*unsupportedError); ok {
		text := ""
		if s, ok := in.(interface{ LLString() string }); ok {
			text = s.LLString()
			if len(text) > 120 {
				text = text[:120] + "..."
			}
			msg += fmt.Sprintf(" (instruction %q)", text)
		}
	}
	fc.c.prog.msgs = append(fc.c.prog.msgs, msg)
	fc.emit(inst{op: opFail, aux: int32(len(fc.c.prog.msgs) - 1)})
}

// define gives a local value its slots.
func (fc *fnCompiler) define(v value.Value) (int32, error) {
	n := laneCount(v.Type())
	if n == 0 {
		if _, err := lanesOf(v.Type()); err != nil {
			return 0, err
		}
	}
	s := fc.nregs
	fc.slot[v] = s
	fc.nregs += int32(n)
	return s, nil
}

func (fc *fnCompiler) emit(in inst) {
	in.loc = fc.loc
	fc.code = append(fc.code, in)
}

// dst returns the slots of a result.
func (fc *fnCompiler) dst(v value.Value) ([]int32, error) {
	s, ok := fc.slot[v]
	if !ok {
		_, err := lanesOf(v.Type())
		return nil, err
	}
	n := laneCount(v.Type())
	out := make([]int32, n)
	for i := range out {
		out[i] = s + int32(i)
	}
	return out, nil
}

// operands is operand of each of vs, in order.
func (fc *fnCompiler) operands(vs ...value.Value) ([][]int32, error) {
	ops := make([][]int32, len(vs))
	for i, v := range vs {
		o, err := fc.operand(v)
		if err != nil {
			return nil, err
		}
		ops[i] = o
	}
	return ops, nil
}

// operand returns the slots holding v's lanes.
func (fc *fnCompiler) operand(v value.Value) ([]int32, error) {
	if s, ok := fc.slot[v]; ok {
		out := make([]int32, laneCount(v.Type()))
		for i := range out {
			out[i] = s + int32(i)
		}
		return out, nil
	}
	k, ok := v.(constant.Constant)
	if !ok {
		return nil, unsupported("the operand %s", v.Ident())
	}
	bits, err := fc.c.constLanes(k)
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(bits))
	for i, b := range bits {
		out[i] = fc.constSlot(b)
	}
	return out, nil
}

func (fc *fnCompiler) constSlot(b uint64) int32 {
	if s, ok := fc.consts[b]; ok {
		return s
	}
	s := fc.nregs
	fc.nregs++
	fc.consts[b] = s
	fc.fn.consts = append(fc.fn.consts, constSlot{slot: s, v: b})
	return s
}

// scalar returns the one slot of a scalar operand.
func (fc *fnCompiler) scalar(v value.Value) (int32, error) {
	s, err := fc.operand(v)
	if err != nil {
		return 0, err
	}
	if len(s) != 1 {
		return 0, unsupported("a vector or aggregate %s where a scalar is expected", v.Type())
	}
	return s[0], nil
}

// intBits is the width of an integer type, or an error for other types.
func intBits(t types.Type) (uint8, error) {
	it, ok := t.(*types.IntType)
	if !ok || it.BitSize < 1 || it.BitSize > 64 {
		return 0, unsupported("%s where an integer of at most 64 bits is expected", t)
	}
	return uint8(it.BitSize), nil
}

// sameShape checks that operands have as many lanes as the result.
func sameShape(d []int32, ops ...[]int32) error {
	for _, o := range ops {
		if len(o) != len(d) {
			return unsupported("operands of a different shape than the result")
		}
	}
	return nil
}

func mask(bits uint8) int64 {
	if bits >= 64 {
		return -1
	}
	return int64(1)<<bits - 1
}

// intBinOps and the others map IR instructions to machine operations.
var intBinOps = map[string]op{"add": opAdd, "sub": opSub, "mul": opMul, "udiv": opUDiv, "sdiv": opSDiv,
	"urem": opURem, "srem": opSRem, "shl": opShl, "lshr": opLShr, "ashr": opAShr, "and": opAnd, "or": opOr, "xor": opXor}

var icmpOps = map[enum.IPred]op{enum.IPredEQ: opIEq, enum.IPredNE: opINe, enum.IPredUGT: opIUgt, enum.IPredUGE: opIUge,
	enum.IPredULT: opIUlt, enum.IPredULE: opIUle, enum.IPredSGT: opISgt, enum.IPredSGE: opISge, enum.IPredSLT: opISlt, enum.IPredSLE: opISle}

func (fc *fnCompiler) inst(in ir.Instruction) error {
	switch in := in.(type) {
	case *ir.InstAdd:
		return fc.intBin(in, "add", in.X, in.Y)
	case *ir.InstSub:
		return fc.intBin(in, "sub", in.X, in.Y)
	case *ir.InstMul:
		return fc.intBin(in, "mul", in.X, in.Y)
	case *ir.InstUDiv:
		return fc.intBin(in, "udiv", in.X, in.Y)
	case *ir.InstSDiv:
		return fc.intBin(in, "sdiv", in.X, in.Y)
	case *ir.InstURem:
		return fc.intBin(in, "urem", in.X, in.Y)
	case *ir.InstSRem:
		return fc.intBin(in, "srem", in.X, in.Y)
	case *ir.InstShl:
		return fc.intBin(in, "shl", in.X, in.Y)
	case *ir.InstLShr:
		return fc.intBin(in, "lshr", in.X, in.Y)
	case *ir.InstAShr:
		return fc.intBin(in, "ashr", in.X, in.Y)
	case *ir.InstAnd:
		return fc.intBin(in, "and", in.X, in.Y)
	case *ir.InstOr:
		return fc.intBin(in, "or", in.X, in.Y)
	case *ir.InstXor:
		return fc.intBin(in, "xor", in.X, in.Y)
	case *ir.InstFAdd:
		return fc.floatBin(in, opFAdd, opFAdd32, in.X, in.Y)
	case *ir.InstFSub:
		return fc.floatBin(in, opFSub, opFSub32, in.X, in.Y)
	case *ir.InstFMul:
		return fc.floatBin(in, opFMul, opFMul32, in.X, in.Y)
	case *ir.InstFDiv:
		return fc.floatBin(in, opFDiv, opFDiv32, in.X, in.Y)
	case *ir.InstFRem:
		return fc.floatBin(in, opFRem, opFRem32, in.X, in.Y)
	case *ir.InstFNeg:
		return fc.floatBin(in, opFNeg, opFNeg32, in.X, in.X)
	case *ir.InstICmp:
		return fc.icmp(in)
	case *ir.InstFCmp:
		return fc.fcmp(in)
	case *ir.InstTrunc:
		return fc.convert(in, in.From)
	case *ir.InstZExt:
		return fc.convert(in, in.From)
	case *ir.InstSExt:
		return fc.convert(in, in.From)
	case *ir.InstFPTrunc:
		return fc.convert(in, in.From)
	case *ir.InstFPExt:
		return fc.convert(in, in.From)
	case *ir.InstFPToUI:
		return fc.convert(in, in.From)
	case *ir.InstFPToSI:
		return fc.convert(in, in.From)
	case *ir.InstUIToFP:
		return fc.convert(in, in.From)
	case *ir.InstSIToFP:
		return fc.convert(in, in.From)
	case *ir.InstPtrToInt:
		return fc.convert(in, in.From)
	case *ir.InstIntToPtr:
		return fc.convert(in, in.From)
	case *ir.InstBitCast:
		return fc.convert(in, in.From)
	case *ir.InstAddrSpaceCast:
		return fc.convert(in, in.From)
	case *ir.InstFreeze:
		return fc.moves(in, in.X)
	case *ir.InstSelect:
		return fc.sel(in)
	case *ir.InstPhi:
		return nil // moves on the incoming edges
	case *ir.InstAlloca:
		return fc.alloca(in)
	case *ir.InstLoad:
		return fc.load(in)
	case *ir.InstStore:
		return fc.store(in)
	case *ir.InstGetElementPtr:
		return fc.gep(in)
	case *ir.InstCall:
		return fc.call(in, in.Callee, in.Args, -1)
	case *ir.InstExtractValue:
		return fc.extractValue(in)
	case *ir.InstInsertValue:
		return fc.insertValue(in)
	case *ir.InstExtractElement:
		return fc.extractElement(in)
	case *ir.InstInsertElement:
		return fc.insertElement(in)
	case *ir.InstShuffleVector:
		return fc.shuffle(in)
	case *ir.InstFence:
		return nil // one thread: a fence orders nothing
	case *ir.InstLandingPad, *ir.InstCatchPad, *ir.InstCleanupPad:
		return unsupported("exception handling (a landing pad reached by a throw)")
	case *ir.InstVAArg:
		return unsupported("va_arg in a variadic function of the program")
	}
	return unsupported("the instruction %q", opcodeName(in.LLString()))
}

// opcodeName is the opcode of an instruction's text.
func opcodeName(text string) string {
	f := strings.Fields(text)
	if len(f) > 2 && f[1] == "=" {
		f = f[2:]
	}
	if len(f) == 0 {
		return text
	}
	return f[0]
}

func (fc *fnCompiler) intBin(res value.Value, name string, x, y value.Value) error {
	d, err := fc.dst(res)
	if err != nil {
		return err
	}
	ops, err := fc.operands(x, y)
	if err != nil {
		return err
	}
	a, b := ops[0], ops[1]
	if err := sameShape(d, a, b); err != nil {
		return err
	}
	ls, _ := lanesOf(res.Type())
	for i := range d {
		bits := ls[i].bits
		fc.emit(inst{op: intBinOps[name], dst: d[i], a: a[i], b: b[i], imm: mask(bits), sh: 64 - bits, w: bits})
	}
	return nil
}

func (fc *fnCompiler) floatBin(res value.Value, o64, o32 op, x, y value.Value) error {
	d, err := fc.dst(res)
	if err != nil {
		return err
	}
	ops, err := fc.operands(x, y)
	if err != nil {
		return err
	}
	a, b := ops[0], ops[1]
	if err := sameShape(d, a, b); err != nil {
		return err
	}
	ls, _ := lanesOf(res.Type())
	for i := range d {
		o := o64
		if ls[i].k == kF32 {
			o = o32
		}
		fc.emit(inst{op: o, dst: d[i], a: a[i], b: b[i]})
	}
	return nil
}

func (fc *fnCompiler) icmp(in *ir.InstICmp) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	ops, err := fc.operands(in.X, in.Y)
	if err != nil {
		return err
	}
	a, b := ops[0], ops[1]
	if err := sameShape(d, a, b); err != nil {
		return err
	}
	ls, _ := lanesOf(in.X.Type())
	o, ok := icmpOps[in.Pred]
	if !ok {
		return unsupported("the icmp predicate %s", in.Pred)
	}
	for i := range d {
		fc.emit(inst{op: o, dst: d[i], a: a[i], b: b[i], sh: 64 - ls[i].bits})
	}
	return nil
}

func (fc *fnCompiler) fcmp(in *ir.InstFCmp) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	ops, err := fc.operands(in.X, in.Y)
	if err != nil {
		return err
	}
	a, b := ops[0], ops[1]
	if err := sameShape(d, a, b); err != nil {
		return err
	}
	ls, _ := lanesOf(in.X.Type())
	for i := range d {
		o := opFCmp
		if ls[i].k == kF32 {
			o = opFCmp32
		}
		fc.emit(inst{op: o, dst: d[i], a: a[i], b: b[i], imm: int64(in.Pred)})
	}
	return nil
}

// convert compiles the cast instructions lane by lane.
func (fc *fnCompiler) convert(in value.Value, from value.Value) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	a, err := fc.operand(from)
	if err != nil {
		return err
	}
	dl, _ := lanesOf(in.Type())
	sl, _ := lanesOf(from.Type())
	if len(d) != len(a) || len(sl) != len(a) || len(dl) != len(d) {
		return unsupported("a cast from %s to %s (different lane counts)", from.Type(), in.Type())
	}
	for i := range d {
		s, t := sl[i], dl[i]
		x := inst{dst: d[i], a: a[i], imm: mask(t.bits), sh: 64 - s.bits}
		switch in.(type) {
		case *ir.InstTrunc, *ir.InstPtrToInt:
			x.op = opTrunc
		case *ir.InstZExt, *ir.InstIntToPtr, *ir.InstAddrSpaceCast:
			x.op = opMov
		case *ir.InstSExt:
			x.op = opSExt
		case *ir.InstFPTrunc:
			x.op = opFPTrunc
		case *ir.InstFPExt:
			x.op = opFPExt
		case *ir.InstFPToSI:
			x.op = pick(s.k == kF32, opFPToSI32, opFPToSI)
		case *ir.InstFPToUI:
			x.op = pick(s.k == kF32, opFPToUI32, opFPToUI)
		case *ir.InstSIToFP:
			x.op = pick(t.k == kF32, opSIToFP32, opSIToFP)
		case *ir.InstUIToFP:
			x.op = pick(t.k == kF32, opUIToFP32, opUIToFP)
		case *ir.InstBitCast:
			if s.bytes() != t.bytes() {
				return unsupported("a bitcast from %s to %s", from.Type(), in.Type())
			}
			x.op = opMov
		}
		fc.emit(x)
	}
	return nil
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// moves copies src's lanes to res's slots.
func (fc *fnCompiler) moves(res value.Value, src value.Value) error {
	d, err := fc.dst(res)
	if err != nil {
		return err
	}
	a, err := fc.operand(src)
	if err != nil {
		return err
	}
	if err := sameShape(d, a); err != nil {
		return err
	}
	for i := range d {
		fc.emit(inst{op: opMov, dst: d[i], a: a[i]})
	}
	return nil
}

func (fc *fnCompiler) sel(in *ir.InstSelect) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	ops, err := fc.operands(in.Cond, in.ValueTrue, in.ValueFalse)
	if err != nil {
		return err
	}
	c, a, b := ops[0], ops[1], ops[2]
	if err := sameShape(d, a, b); err != nil || (len(c) != 1 && len(c) != len(d)) {
		return unsupported("a select of operands of different shapes")
	}
	for i := range d {
		ci := c[0]
		if len(c) == len(d) {
			ci = c[i]
		}
		fc.emit(inst{op: opSelect, dst: d[i], a: a[i], b: b[i], c: ci})
	}
	return nil
}

func (fc *fnCompiler) alloca(in *ir.InstAlloca) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	x := inst{op: opAlloca, dst: d[0], b: -1, imm: sizeOf(in.ElemType)}
	if in.NElems != nil {
		if x.b, err = fc.scalar(in.NElems); err != nil {
			return err
		}
		bits, err := intBits(in.NElems.Type())
		if err != nil {
			return err
		}
		x.sh = 64 - bits
	}
	fc.emit(x)
	return nil
}

var loadOps = map[int64]op{1: opLoad8, 2: opLoad16, 4: opLoad32, 8: opLoad64}
var storeOps = map[int64]op{1: opStore8, 2: opStore16, 4: opStore32, 8: opStore64}

func (fc *fnCompiler) load(in *ir.InstLoad) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	p, err := fc.scalar(in.Src)
	if err != nil {
		return err
	}
	ls, err := lanesOf(in.ElemType)
	if err != nil || len(ls) != len(d) {
		return unsupported("a load of %s into a %s", in.ElemType, in.Type())
	}
	for i, l := range ls {
		o, ok := loadOps[l.bytes()]
		if !ok {
			o = opLoadN
		}
		fc.emit(inst{op: o, dst: d[i], a: p, imm: l.off, w: uint8(l.bytes())})
	}
	return nil
}

func (fc *fnCompiler) store(in *ir.InstStore) error {
	v, err := fc.operand(in.Src)
	if err != nil {
		return err
	}
	p, err := fc.scalar(in.Dst)
	if err != nil {
		return err
	}
	ls, err := lanesOf(in.Src.Type())
	if err != nil {
		return err
	}
	if len(ls) != len(v) {
		return unsupported("a store of %s", in.Src.Type())
	}
	for i, l := range ls {
		o, ok := storeOps[l.bytes()]
		if !ok {
			o = opStoreN
		}
		fc.emit(inst{op: o, a: p, b: v[i], imm: l.off, w: uint8(l.bytes())})
	}
	return nil
}

func (fc *fnCompiler) gep(in *ir.InstGetElementPtr) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	if len(d) != 1 {
		return unsupported("getelementptr on a vector of pointers")
	}
	base, err := fc.scalar(in.Src)
	if err != nil {
		return err
	}
	var terms []gepTerm
	off, err := gepOffset(in.ElemType, in.Indices, func(idx value.Value, scale int64) error {
		bits, err := intBits(idx.Type())
		if err != nil {
			return err
		}
		if k, ok := idx.(constant.Constant); ok {
			if v, err := fc.c.constScalar(k); err == nil {
				terms = append(terms, gepTerm{slot: -1, scale: scale * signExtend(v, 64-bits)})
				return nil
			}
		}
		s, err := fc.scalar(idx)
		if err != nil {
			return err
		}
		terms = append(terms, gepTerm{slot: s, sh: 64 - bits, scale: scale})
		return nil
	})
	if err != nil {
		return err
	}
	var vars []gepTerm
	for _, t := range terms {
		if t.slot < 0 {
			off += t.scale
		} else {
			vars = append(vars, t)
		}
	}
	x := inst{dst: d[0], a: base, imm: off}
	switch {
	case len(vars) == 0:
		x.op = opGEP0
	case len(vars) == 1 && vars[0].scale == int64(int32(vars[0].scale)):
		x.op, x.b, x.sh, x.c = opGEP1, vars[0].slot, vars[0].sh, int32(vars[0].scale)
	default:
		fc.c.prog.geps = append(fc.c.prog.geps, vars)
		x.op, x.aux = opGEP, int32(len(fc.c.prog.geps)-1)
	}
	fc.emit(x)
	return nil
}

func signExtend(v uint64, sh uint8) int64 { return int64(v<<sh) >> sh }

// gepOffset walks the indices of a getelementptr over elem: constant
// struct field offsets are summed into the result, every other index is
// handed to index with its scale.
func gepOffset[V any](elem types.Type, indices []V, index func(V, int64) error) (int64, error) {
	var off int64
	t := elem
	for i, idx := range indices {
		if i == 0 {
			if err := index(idx, sizeOf(elem)); err != nil {
				return 0, err
			}
			continue
		}
		switch tt := t.(type) {
		case *types.StructType:
			k, ok := any(idx).(constant.Constant)
			if !ok {
				return 0, unsupported("a variable struct field index")
			}
			ci, ok := unwrapIndex(k).(*constant.Int)
			if !ok || !ci.X.IsInt64() || ci.X.Int64() < 0 || ci.X.Int64() >= int64(len(tt.Fields)) {
				return 0, unsupported("the struct field index %s", k.Ident())
			}
			f := ci.X.Int64()
			off += fieldOffsets(tt)[f]
			t = tt.Fields[f]
		case *types.ArrayType:
			t = tt.ElemType
			if err := index(idx, sizeOf(t)); err != nil {
				return 0, err
			}
		case *types.VectorType:
			t = tt.ElemType
			if err := index(idx, sizeOf(t)); err != nil {
				return 0, err
			}
		default:
			return 0, unsupported("a getelementptr into %s", t)
		}
	}
	return off, nil
}

func unwrapIndex(k constant.Constant) constant.Constant {
	if ix, ok := k.(*constant.Index); ok {
		return ix.Constant
	}
	return k
}

// call compiles a call (normal < 0) or an invoke continuing at edge
// normal.
func (fc *fnCompiler) call(res value.Value, callee value.Value, args []value.Value, normal int32) error {
	site := callSite{dst: -1, fnSlot: -1, loc: fc.loc}
	switch f := callee.(type) {
	case *ir.Func:
		site.callee = fc.c.funcOf[f]
	case *ir.InlineAsm:
		return unsupported("inline assembly")
	default:
		if k, ok := callee.(constant.Constant); ok {
			if addr, err := fc.c.constScalar(k); err == nil {
				if i := addr>>32 - 1; addr&0xffffffff == 0 && i < uint64(len(fc.c.prog.objects)) && fc.c.prog.objects[i].fn != nil {
					site.callee = fc.c.prog.objects[i].fn
				}
			}
		}
		if site.callee == nil {
			s, err := fc.scalar(callee)
			if err != nil {
				return err
			}
			site.fnSlot = s
		}
	}
	for _, a := range args {
		if wrapped, ok := a.(*ir.Arg); ok {
			a = wrapped.Value // the argument with its attributes
		}
		if _, ok := a.(*metadata.Value); ok {
			continue
		}
		s, err := fc.operand(a)
		if err != nil {
			return err
		}
		ls, err := lanesOf(a.Type())
		if err != nil {
			return err
		}
		site.args = append(site.args, s...)
		site.argLanes = append(site.argLanes, ls...)
	}
	if !res.Type().Equal(types.Void) {
		d, err := fc.dst(res)
		if err != nil {
			return err
		}
		site.dst = d[0]
		site.rets, _ = lanesOf(res.Type())
	}
	fc.c.prog.calls = append(fc.c.prog.calls, site)
	fc.emit(inst{op: opCall, aux: int32(len(fc.c.prog.calls) - 1)})
	if normal >= 0 {
		fc.emit(inst{op: opBr, aux: normal})
	}
	return nil
}

func (fc *fnCompiler) extractValue(in *ir.InstExtractValue) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	a, err := fc.operand(in.X)
	if err != nil {
		return err
	}
	first, n, _, err := subLanes(in.X.Type(), in.Indices)
	if err != nil {
		return err
	}
	if n != len(d) || first+n > len(a) {
		return unsupported("an extractvalue of a different shape than its result")
	}
	for i := 0; i < n; i++ {
		fc.emit(inst{op: opMov, dst: d[i], a: a[first+i]})
	}
	return nil
}

func (fc *fnCompiler) insertValue(in *ir.InstInsertValue) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	ops, err := fc.operands(in.X, in.Elem)
	if err != nil {
		return err
	}
	a, e := ops[0], ops[1]
	first, n, _, err := subLanes(in.X.Type(), in.Indices)
	if err != nil {
		return err
	}
	if len(a) != len(d) || n != len(e) || first+n > len(d) {
		return unsupported("an insertvalue of a different shape than its result")
	}
	for i := range d {
		src := a[i]
		if i >= first && i < first+n {
			src = e[i-first]
		}
		fc.emit(inst{op: opMov, dst: d[i], a: src})
	}
	return nil
}

// constIndex is a vector index that must be constant.
func (fc *fnCompiler) constIndex(v value.Value, n int) (int, error) {
	k, ok := v.(constant.Constant)
	if !ok {
		return 0, unsupported("a vector element index that is not a constant")
	}
	i, err := fc.c.constScalar(k)
	if err != nil {
		return 0, err
	}
	if i >= uint64(n) {
		return 0, unsupported("the vector element index %d of %d", i, n)
	}
	return int(i), nil
}

func (fc *fnCompiler) extractElement(in *ir.InstExtractElement) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	a, err := fc.operand(in.X)
	if err != nil {
		return err
	}
	i, err := fc.constIndex(in.Index, len(a))
	if err != nil {
		return err
	}
	if len(d) != 1 {
		return unsupported("an extractelement of a vector of aggregates")
	}
	fc.emit(inst{op: opMov, dst: d[0], a: a[i]})
	return nil
}

func (fc *fnCompiler) insertElement(in *ir.InstInsertElement) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	a, err := fc.operand(in.X)
	if err != nil {
		return err
	}
	e, err := fc.scalar(in.Elem)
	if err != nil {
		return err
	}
	idx, err := fc.constIndex(in.Index, len(a))
	if err != nil {
		return err
	}
	if err := sameShape(d, a); err != nil {
		return err
	}
	for i := range d {
		fc.emit(inst{op: opMov, dst: d[i], a: pick(i == idx, e, a[i])})
	}
	return nil
}

func (fc *fnCompiler) shuffle(in *ir.InstShuffleVector) error {
	d, err := fc.dst(in)
	if err != nil {
		return err
	}
	ops, err := fc.operands(in.X, in.Y)
	if err != nil {
		return err
	}
	x, y := ops[0], ops[1]
	mk, ok := in.Mask.(constant.Constant)
	if !ok {
		return unsupported("a shufflevector mask that is not a constant")
	}
	var idx []uint64
	switch m := mk.(type) {
	case *constant.Vector:
		for _, e := range m.Elems {
			if _, undef := e.(*constant.Undef); undef {
				idx = append(idx, ^uint64(0))
				continue
			}
			v, err := fc.c.constScalar(e)
			if err != nil {
				return err
			}
			idx = append(idx, v)
		}
	default:
		idx = make([]uint64, len(d)) // zeroinitializer: lane 0 everywhere
		if _, undef := mk.(*constant.Undef); undef {
			for i := range idx {
				idx[i] = ^uint64(0)
			}
		}
	}
	if len(idx) != len(d) {
		return unsupported("a shufflevector mask of a different length than its result")
	}
	both := append(append([]int32{}, x...), y...)
	for i := range d {
		src := fc.constSlot(0)
		if idx[i] < uint64(len(both)) {
			src = both[idx[i]]
		}
		fc.emit(inst{op: opMov, dst: d[i], a: src})
	}
	return nil
}

// edge returns the index of the edge from block from to the block to.
func (fc *fnCompiler) edge(from *ir.Block, to value.Value) (int32, error) {
	tb, ok := to.(*ir.Block)
	if !ok {
		return 0, unsupported("a branch to %s", to.Ident())
	}
	e := edge{count: fc.counts[tb]}
	dsts := map[int32]bool{}
	for _, in := range tb.Insts {
		phi, ok := in.(*ir.InstPhi)
		if !ok {
			continue
		}
		for _, inc := range phi.Incs {
			if inc.Pred != from {
				continue
			}
			d, err := fc.dst(phi)
			if err != nil {
				return 0, err
			}
			s, err := fc.operand(inc.X)
			if err != nil {
				return 0, err
			}
			if err := sameShape(d, s); err != nil {
				return 0, err
			}
			for i := range d {
				e.moves = append(e.moves, move{dst: d[i], src: s[i]})
				dsts[d[i]] = true
			}
			break
		}
	}
	for _, mv := range e.moves {
		if dsts[mv.src] && mv.src != mv.dst {
			e.parallel = true
		}
	}
	p := fc.c.prog
	p.edges = append(p.edges, e)
	idx := int32(len(p.edges) - 1)
	fc.fixups = append(fc.fixups, fixup{edge: idx, block: tb})
	return idx, nil
}

func (fc *fnCompiler) term(b *ir.Block) error {
	switch t := b.Term.(type) {
	case *ir.TermRet:
		if t.X == nil {
			fc.emit(inst{op: opRet})
			return nil
		}
		s, err := fc.operand(t.X)
		if err != nil {
			return err
		}
		first := fc.contiguous(s)
		fc.emit(inst{op: opRet, a: first, imm: int64(len(s))})
	case *ir.TermBr:
		e, err := fc.edge(b, t.Target)
		if err != nil {
			return err
		}
		fc.emit(inst{op: opBr, aux: e})
	case *ir.TermCondBr:
		c, err := fc.scalar(t.Cond)
		if err != nil {
			return err
		}
		et, err := fc.edge(b, t.TargetTrue)
		if err != nil {
			return err
		}
		ef, err := fc.edge(b, t.TargetFalse)
		if err != nil {
			return err
		}
		fc.emit(inst{op: opCondBr, a: c, aux: et, imm: int64(ef)})
	case *ir.TermSwitch:
		x, err := fc.scalar(t.X)
		if err != nil {
			return err
		}
		def, err := fc.edge(b, t.TargetDefault)
		if err != nil {
			return err
		}
		tab := switchTable{def: def, cases: map[uint64]int32{}}
		for _, cs := range t.Cases {
			k, ok := cs.X.(constant.Constant)
			if !ok {
				return unsupported("a switch case that is not a constant")
			}
			v, err := fc.c.constScalar(k)
			if err != nil {
				return err
			}
			e, err := fc.edge(b, cs.Target)
			if err != nil {
				return err
			}
			tab.cases[v] = e
		}
		fc.c.prog.switches = append(fc.c.prog.switches, tab)
		fc.emit(inst{op: opSwitch, a: x, aux: int32(len(fc.c.prog.switches) - 1)})
	case *ir.TermInvoke:
		normal, err := fc.edge(b, t.NormalRetTarget)
		if err != nil {
			return err
		}
		return fc.call(t, t.Invokee, t.Args, normal)
	case *ir.TermUnreachable:
		fc.emit(inst{op: opUnreachable})
	case *ir.TermResume:
		return unsupported("exception handling (resume)")
	default:
		return unsupported("the terminator %q", opcodeName(t.LLString()))
	}
	return nil
}

// contiguous returns the first of slots if they are consecutive, or copies
// them to new consecutive slots.
func (fc *fnCompiler) contiguous(slots []int32) int32 {
	ok := true
	for i := range slots {
		ok = ok && slots[i] == slots[0]+int32(i)
	}
	if ok && len(slots) > 0 {
		return slots[0]
	}
	first := fc.nregs
	fc.nregs += int32(len(slots))
	for i, s := range slots {
		fc.emit(inst{op: opMov, dst: first + int32(i), a: s})
	}
	return first
}
