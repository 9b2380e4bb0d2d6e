package valueflow

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/parley-hpc/parley/internal/memlimit"
)

// reg is a register slot: the value's bits and its taint.
type reg struct {
	v uint64
	t handle
}

// frame is one active call.
type frame struct {
	fn     *function
	pc     int32
	base   int32
	site   *callSite // the call in the caller; nil when Go called
	allocs int32     // len(machine.allocas) on entry
}

// machine runs a program with shadow tracking.
type machine struct {
	prog    *program
	sh      *shadow
	regs    []reg
	top     int32
	frames  []frame
	objs    []object
	freeIDs []uint32
	allocas []uint32
	retBuf  []reg
	tmp     []reg

	executed, limit, nextCheck, nextProgress int64
	progress                                 func(int64)
	maxMemory, memUsed                       int64
	memGiven                                 int64 // the limit as the user gave it (0: default)

	stdout   io.Writer
	rand     glibcRand
	drand    uint64 // drand48 state
	exitCode int
	guards   map[uint64]bool
	// conform holds the arrays' slot vertices by size (conform.go).
	conform map[int][][]uint32
}

// RunError is the analysed program failing: a crash, an operation or
// external function the machine does not model, or a limit reached. Pos is
// the source position (file:line:col from debug information, else the
// function), Stack the calls that led there, innermost first.
type RunError struct {
	Pos   string
	Msg   string
	Stack []string
}

func (e *RunError) Error() string {
	s := e.Pos + ": " + e.Msg
	callers := e.Stack[min(1, len(e.Stack)):]
	if len(callers) > maxCallers {
		callers = append(callers[:maxCallers:maxCallers], fmt.Sprintf("%d more", len(callers)-maxCallers))
	}
	if len(callers) > 0 {
		s += " (called from " + strings.Join(callers, ", ") + ")"
	}
	return s
}

// maxCallers is how many callers a RunError's message lists.
const maxCallers = 6

// errExit ends the run through exit().
var errExit = errors.New("exit")

const (
	checkEvery    = 1 << 16
	progressEvery = 1 << 22
	stackSlots    = 1 << 16
)

func newMachine(p *program, opts *Options) (*machine, error) {
	m := &machine{
		prog:      p,
		sh:        newShadow(),
		regs:      make([]reg, stackSlots),
		objs:      make([]object, len(p.objects)+1),
		limit:     opts.MaxInstructions,
		progress:  opts.Progress,
		maxMemory: memlimit.Or(opts.MaxMemory),
		memGiven:  opts.MaxMemory,
		stdout:    opts.Stdout,
		guards:    map[uint64]bool{},
		conform:   map[int][][]uint32{},
	}
	if m.limit <= 0 {
		m.limit = DefaultMaxInstructions
	}
	if m.stdout == nil {
		m.stdout = io.Discard
	}
	m.rand.seed(1)
	m.nextCheck = min(checkEvery, m.limit)
	m.nextProgress = progressEvery
	for i, o := range p.objects {
		obj := &m.objs[i+1]
		obj.name = o.name
		if o.fn != nil {
			obj.kind, obj.fn = objFunc, o.fn
			continue
		}
		obj.kind = objGlobal
		obj.data = append([]byte(nil), o.data...)
		obj.cur = make([]uint32, slotsFor(int64(len(o.data))))
		obj.last = make([]uint32, len(obj.cur))
		m.memUsed += int64(len(o.data)) * bytesPerWord / 8
	}
	if m.memUsed > m.maxMemory {
		return nil, m.overMemory()
	}
	return m, nil
}

// overMemory is the error of a run outgrowing its memory limit.
func (m *machine) overMemory() error {
	return memlimit.Refuse("the analysis needs more than %s for this program's memory and its value graph; give it more with --max-memory or analyse a smaller input",
		memlimit.Describe(m.memGiven))
}

// footprint estimates the bytes the run holds.
func (m *machine) footprint() int64 {
	return m.memUsed + int64(cap(m.sh.vals))*16 + m.sh.flows.bytes(12) +
		m.sh.nodes.bytes(16) + int64(cap(m.objs))*96 + int64(cap(m.regs))*16
}

// check runs every checkEvery instructions and on calls: the instruction
// limit, progress, the DAG collection and the memory limit.
func (m *machine) check() error {
	if m.executed >= m.limit {
		return fmt.Errorf("the program ran %d IR instructions without finishing, the limit (--max-instructions); it may never end, or give a larger limit or a smaller input", m.limit)
	}
	if m.progress != nil && m.executed >= m.nextProgress {
		m.progress(m.executed)
		m.nextProgress = m.executed + progressEvery
	}
	if m.sh.nodes.len() > m.sh.nodeLimit {
		m.sh.collect(m.regs[:m.top])
	}
	if m.footprint() > m.maxMemory {
		return m.overMemory()
	}
	if len(m.sh.vals) > maxValues {
		return fmt.Errorf("the program created more than %d values; analyse a smaller input", maxValues)
	}
	m.nextCheck = min(m.executed+checkEvery, m.limit)
	return nil
}

// call runs fn on args from Go (main, or a callback such as qsort's
// comparator) and returns its result lanes.
func (m *machine) call(fn *function, args []reg) ([]reg, error) {
	if fn.ext != nil || !fn.defined || fn.broken != nil {
		return nil, m.errorf(fn.loc, "%s", m.undefined(fn))
	}
	stop := len(m.frames)
	regs, err := m.push(fn, nil)
	if err != nil {
		return nil, err
	}
	copy(regs[:min(len(args), len(fn.params))], args)
	if err := m.run(stop); err != nil {
		return nil, err
	}
	return m.retBuf, nil
}

// push enters fn: a new frame with its constants set and the other slots
// clear, returned for the arguments to be copied in.
func (m *machine) push(fn *function, site *callSite) ([]reg, error) {
	if len(m.frames) >= maxDepth {
		return nil, fmt.Errorf("more than %d nested calls (unbounded recursion?)", maxDepth)
	}
	base := m.top
	need := int(base) + int(fn.nregs)
	if need > len(m.regs) {
		if need > math.MaxInt32 {
			return nil, fmt.Errorf("the call stack outgrew the machine")
		}
		grown := make([]reg, max(need, 2*len(m.regs)))
		copy(grown, m.regs[:m.top])
		m.regs = grown
	}
	regs := m.regs[base:need]
	clear(regs)
	for _, c := range fn.consts {
		regs[c.slot].v = c.v
	}
	m.top = int32(need)
	m.frames = append(m.frames, frame{fn: fn, base: base, site: site, allocs: int32(len(m.allocas))})
	m.executed += int64(fn.entry)
	return regs, nil
}

const maxDepth = 1 << 16

// pop leaves the innermost frame, freeing its stack objects.
func (m *machine) pop() frame {
	fr := m.frames[len(m.frames)-1]
	for i := len(m.allocas) - 1; i >= int(fr.allocs); i-- {
		m.release(m.allocas[i])
	}
	m.allocas = m.allocas[:fr.allocs]
	m.frames = m.frames[:len(m.frames)-1]
	m.top = fr.base
	return fr
}

// funcAt is the function whose address is addr.
func (m *machine) funcAt(addr uint64) (*function, error) {
	id := addr >> 32
	if addr&0xffffffff != 0 || id == 0 || id >= uint64(len(m.objs)) || m.objs[id].kind != objFunc {
		if addr == 0 {
			return nil, errors.New("call through a null function pointer")
		}
		return nil, fmt.Errorf("call through %#x, which is not the address of a function", addr)
	}
	return m.objs[id].fn, nil
}

// undefined explains why fn cannot be called.
func (m *machine) undefined(fn *function) string {
	if fn.broken != nil {
		return fmt.Sprintf("function %s cannot be run: %v", fn.name, fn.broken)
	}
	return fmt.Sprintf("call to external function %s, which the analysis does not model; give its source file too, or see docs/valueflow.md for the library functions it knows", fn.name)
}

// errorf is an error at the position loc, with the call stack.
func (m *machine) errorf(loc int32, format string, a ...any) error {
	return m.errorAt(loc, fmt.Errorf(format, a...))
}

func (m *machine) errorAt(loc int32, err error) error {
	if _, ok := errors.AsType[*RunError](err); ok || err == errExit {
		return err
	}
	if _, ok := errors.AsType[*memlimit.OverError](err); ok {
		return err
	}
	re := &RunError{Pos: m.prog.locs[loc].String(), Msg: err.Error()}
	for i := len(m.frames) - 1; i >= 0; i-- {
		fr := m.frames[i]
		where := fr.fn.name
		if fr.site != nil && i > 0 {
			where = fmt.Sprintf("%s at %s", m.frames[i-1].fn.name, m.prog.locs[fr.site.loc])
		} else if i == 0 {
			continue
		}
		re.Stack = append(re.Stack, where)
	}
	re.Stack = append([]string{re.Pos}, re.Stack...)
	return re
}

// run executes until the frame stack is back to stop frames.
func (m *machine) run(stop int) error {
	fr := &m.frames[len(m.frames)-1]
	code := fr.fn.code
	pc := fr.pc
	regs := m.regs[fr.base:m.top]
	sh := m.sh
	var in *inst
	var err error
	for {
		in = &code[pc]
		pc++
		switch in.op {
		case opMov:
			regs[in.dst] = regs[in.a]

		case opAdd:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{(a.v + b.v) & uint64(in.imm), sh.mix(a.t, b.t)}
		case opSub:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{(a.v - b.v) & uint64(in.imm), sh.mix(a.t, b.t)}
		case opMul:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{(a.v * b.v) & uint64(in.imm), sh.mix(a.t, b.t)}
		case opUDiv, opURem:
			a, b := regs[in.a], regs[in.b]
			if b.v == 0 {
				err = errors.New("integer division by zero")
				goto fail
			}
			v := a.v / b.v
			if in.op == opURem {
				v = a.v % b.v
			}
			regs[in.dst] = reg{v, sh.mix(a.t, b.t)}
		case opSDiv, opSRem:
			a, b := regs[in.a], regs[in.b]
			x, y := signExtend(a.v, in.sh), signExtend(b.v, in.sh)
			if y == 0 {
				err = errors.New("integer division by zero")
				goto fail
			}
			if y == -1 && x == signExtend(1<<(in.w-1), in.sh) {
				err = fmt.Errorf("integer overflow dividing the smallest %d-bit integer by -1", in.w)
				goto fail
			}
			v := x / y
			if in.op == opSRem {
				v = x % y
			}
			regs[in.dst] = reg{uint64(v) & uint64(in.imm), sh.mix(a.t, b.t)}
		case opShl:
			a, b := regs[in.a], regs[in.b]
			var v uint64
			if b.v < uint64(in.w) {
				v = a.v << b.v & uint64(in.imm)
			}
			regs[in.dst] = reg{v, sh.mix(a.t, b.t)}
		case opLShr:
			a, b := regs[in.a], regs[in.b]
			var v uint64
			if b.v < uint64(in.w) {
				v = a.v >> b.v
			}
			regs[in.dst] = reg{v, sh.mix(a.t, b.t)}
		case opAShr:
			a, b := regs[in.a], regs[in.b]
			s := min(b.v, uint64(in.w-1))
			regs[in.dst] = reg{uint64(signExtend(a.v, in.sh)>>s) & uint64(in.imm), sh.mix(a.t, b.t)}
		case opAnd:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{a.v & b.v, sh.mix(a.t, b.t)}
		case opOr:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{a.v | b.v, sh.mix(a.t, b.t)}
		case opXor:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{a.v ^ b.v, sh.mix(a.t, b.t)}

		case opFAdd:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{math.Float64bits(f64(a.v) + f64(b.v)), sh.mix(a.t, b.t)}
		case opFSub:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{math.Float64bits(f64(a.v) - f64(b.v)), sh.mix(a.t, b.t)}
		case opFMul:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{math.Float64bits(f64(a.v) * f64(b.v)), sh.mix(a.t, b.t)}
		case opFDiv:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{math.Float64bits(f64(a.v) / f64(b.v)), sh.mix(a.t, b.t)}
		case opFRem:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{math.Float64bits(math.Mod(f64(a.v), f64(b.v))), sh.mix(a.t, b.t)}
		case opFNeg:
			a := regs[in.a]
			regs[in.dst] = reg{a.v ^ 1<<63, sh.mix(a.t, 0)}
		case opFAdd32:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{f32bits(f32(a.v) + f32(b.v)), sh.mix(a.t, b.t)}
		case opFSub32:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{f32bits(f32(a.v) - f32(b.v)), sh.mix(a.t, b.t)}
		case opFMul32:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{f32bits(f32(a.v) * f32(b.v)), sh.mix(a.t, b.t)}
		case opFDiv32:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{f32bits(f32(a.v) / f32(b.v)), sh.mix(a.t, b.t)}
		case opFRem32:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{f32bits(float32(math.Mod(float64(f32(a.v)), float64(f32(b.v))))), sh.mix(a.t, b.t)}
		case opFNeg32:
			a := regs[in.a]
			regs[in.dst] = reg{a.v ^ 1<<31, sh.mix(a.t, 0)}

		case opIEq:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(a.v == b.v), sh.mix(a.t, b.t)}
		case opINe:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(a.v != b.v), sh.mix(a.t, b.t)}
		case opIUgt:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(a.v > b.v), sh.mix(a.t, b.t)}
		case opIUge:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(a.v >= b.v), sh.mix(a.t, b.t)}
		case opIUlt:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(a.v < b.v), sh.mix(a.t, b.t)}
		case opIUle:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(a.v <= b.v), sh.mix(a.t, b.t)}
		case opISgt:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(signExtend(a.v, in.sh) > signExtend(b.v, in.sh)), sh.mix(a.t, b.t)}
		case opISge:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(signExtend(a.v, in.sh) >= signExtend(b.v, in.sh)), sh.mix(a.t, b.t)}
		case opISlt:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(signExtend(a.v, in.sh) < signExtend(b.v, in.sh)), sh.mix(a.t, b.t)}
		case opISle:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(signExtend(a.v, in.sh) <= signExtend(b.v, in.sh)), sh.mix(a.t, b.t)}
		case opFCmp:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(fcmp(in.imm, f64(a.v), f64(b.v))), sh.mix(a.t, b.t)}
		case opFCmp32:
			a, b := regs[in.a], regs[in.b]
			regs[in.dst] = reg{b2u(fcmp(in.imm, float64(f32(a.v)), float64(f32(b.v)))), sh.mix(a.t, b.t)}

		case opTrunc:
			a := regs[in.a]
			regs[in.dst] = reg{a.v & uint64(in.imm), a.t}
		case opSExt:
			a := regs[in.a]
			regs[in.dst] = reg{uint64(signExtend(a.v, in.sh)) & uint64(in.imm), a.t}
		case opFPTrunc:
			a := regs[in.a]
			regs[in.dst] = reg{f32bits(float32(f64(a.v))), a.t}
		case opFPExt:
			a := regs[in.a]
			regs[in.dst] = reg{math.Float64bits(float64(f32(a.v))), a.t}
		case opFPToSI:
			a := regs[in.a]
			regs[in.dst] = reg{uint64(int64(f64(a.v))) & uint64(in.imm), a.t}
		case opFPToSI32:
			a := regs[in.a]
			regs[in.dst] = reg{uint64(int64(f32(a.v))) & uint64(in.imm), a.t}
		case opFPToUI:
			a := regs[in.a]
			regs[in.dst] = reg{fToU(f64(a.v)) & uint64(in.imm), a.t}
		case opFPToUI32:
			a := regs[in.a]
			regs[in.dst] = reg{fToU(float64(f32(a.v))) & uint64(in.imm), a.t}
		case opSIToFP:
			a := regs[in.a]
			regs[in.dst] = reg{math.Float64bits(float64(signExtend(a.v, in.sh))), a.t}
		case opSIToFP32:
			a := regs[in.a]
			regs[in.dst] = reg{f32bits(float32(signExtend(a.v, in.sh))), a.t}
		case opUIToFP:
			a := regs[in.a]
			regs[in.dst] = reg{math.Float64bits(float64(a.v)), a.t}
		case opUIToFP32:
			a := regs[in.a]
			regs[in.dst] = reg{f32bits(float32(a.v)), a.t}

		case opSelect:
			c := regs[in.c]
			x := regs[in.b]
			if c.v&1 != 0 {
				x = regs[in.a]
			}
			if c.t != 0 {
				x.t = sh.mix(c.t, x.t)
			}
			regs[in.dst] = x

		case opLoad8, opLoad16, opLoad32, opLoad64, opLoadN:
			addr := regs[in.a].v + uint64(in.imm)
			n := uint64(in.w)
			o, off := m.at(addr, n)
			if o == nil {
				err = m.fault("load", addr, n)
				goto fail
			}
			var v uint64
			switch in.op {
			case opLoad64:
				v = getUint(o.data, off, 8)
			case opLoad32:
				v = getUint(o.data, off, 4)
			default:
				v = getUint(o.data, off, n)
			}
			regs[in.dst] = reg{v, m.loadTaint(o, off, n)}
		case opStore8, opStore16, opStore32, opStore64, opStoreN:
			addr := regs[in.a].v + uint64(in.imm)
			n := uint64(in.w)
			o, off := m.at(addr, n)
			if o == nil {
				err = m.fault("store", addr, n)
				goto fail
			}
			x := regs[in.b]
			putUint(o.data, int64(off), int64(n), x.v)
			m.storeTaint(o, off, n, x.t)
		case opAlloca:
			n := in.imm
			if in.b >= 0 {
				cnt := regs[in.b].v
				if cnt >= 1<<32 {
					err = fmt.Errorf("alloca of %d elements", cnt)
					goto fail
				}
				n *= int64(cnt)
			}
			var addr uint64
			if addr, err = m.alloc(n, objStack, in.loc); err != nil {
				goto fail
			}
			m.allocas = append(m.allocas, uint32(addr>>32))
			regs[in.dst] = reg{v: addr}
		case opGEP0:
			regs[in.dst] = reg{v: regs[in.a].v + uint64(in.imm)}
		case opGEP1:
			idx := signExtend(regs[in.b].v, in.sh)
			regs[in.dst] = reg{v: regs[in.a].v + uint64(in.imm) + uint64(idx*int64(in.c))}
		case opGEP:
			v := regs[in.a].v + uint64(in.imm)
			for _, t := range m.prog.geps[in.aux] {
				v += uint64(signExtend(regs[t.slot].v, t.sh) * t.scale)
			}
			regs[in.dst] = reg{v: v}

		case opBr:
			pc = m.enter(&m.prog.edges[in.aux], regs)
			if m.executed >= m.nextCheck {
				if err = m.check(); err != nil {
					goto fail
				}
			}
		case opCondBr:
			e := int32(in.imm)
			if regs[in.a].v&1 != 0 {
				e = in.aux
			}
			pc = m.enter(&m.prog.edges[e], regs)
			if m.executed >= m.nextCheck {
				if err = m.check(); err != nil {
					goto fail
				}
			}
		case opSwitch:
			tab := &m.prog.switches[in.aux]
			e, ok := tab.cases[regs[in.a].v]
			if !ok {
				e = tab.def
			}
			pc = m.enter(&m.prog.edges[e], regs)
			if m.executed >= m.nextCheck {
				if err = m.check(); err != nil {
					goto fail
				}
			}

		case opCall:
			site := &m.prog.calls[in.aux]
			callee := site.callee
			if callee == nil {
				if callee, err = m.funcAt(regs[site.fnSlot].v); err != nil {
					goto fail
				}
			}
			fr.pc = pc
			if callee.ext != nil || !callee.defined || callee.broken != nil {
				if callee.ext == nil {
					err = errors.New(m.undefined(callee))
					goto fail
				}
				base := fr.base
				if err = callee.ext(m, &extCall{m: m, site: site, base: base}); err != nil {
					goto fail
				}
				// A callback may have moved the frames and registers.
				fr = &m.frames[len(m.frames)-1]
				regs = m.regs[fr.base:m.top]
				m.executed++
				continue
			}
			var calleeRegs []reg
			if calleeRegs, err = m.push(callee, site); err != nil {
				goto fail
			}
			// fr may point into the frames before push grew them; its
			// base is still right.
			caller := m.regs[fr.base:]
			for i, s := range site.args[:min(len(site.args), len(callee.params))] {
				calleeRegs[i] = caller[s]
			}
			fr = &m.frames[len(m.frames)-1]
			code, pc, regs = callee.code, 0, calleeRegs
			if m.executed >= m.nextCheck {
				if err = m.check(); err != nil {
					goto fail
				}
			}
		case opRet:
			n := int32(in.imm)
			res := regs[in.a : in.a+n]
			done := m.pop()
			if len(m.frames) == stop {
				m.retBuf = append(m.retBuf[:0], res...)
				return nil
			}
			fr = &m.frames[len(m.frames)-1]
			regs = m.regs[fr.base : fr.base+fr.fn.nregs]
			if s := done.site; s.dst >= 0 {
				copy(regs[s.dst:s.dst+int32(min(len(s.rets), int(n)))], res)
			}
			code, pc = fr.fn.code, fr.pc

		case opUnreachable:
			err = errors.New("reached code marked unreachable (the end of a function that should have returned a value, or undefined behaviour the compiler relied on)")
			goto fail
		case opFail:
			err = errors.New(m.prog.msgs[in.aux])
			goto fail
		default:
			err = fmt.Errorf("internal error: unknown machine operation %d", in.op)
			goto fail
		}
	}
fail:
	fr.pc = pc
	return m.errorAt(in.loc, err)
}

// enter takes an edge: its phi moves, its instruction count, its target.
func (m *machine) enter(e *edge, regs []reg) int32 {
	if e.parallel {
		m.tmp = m.tmp[:0]
		for _, mv := range e.moves {
			m.tmp = append(m.tmp, regs[mv.src])
		}
		for i, mv := range e.moves {
			regs[mv.dst] = m.tmp[i]
		}
	} else {
		for _, mv := range e.moves {
			regs[mv.dst] = regs[mv.src]
		}
	}
	m.executed += int64(e.count)
	return e.pc
}

func f64(v uint64) float64 { return math.Float64frombits(v) }
func f32(v uint64) float32 { return math.Float32frombits(uint32(v)) }
func f32bits(x float32) uint64 {
	return uint64(math.Float32bits(x))
}

// fToU converts to unsigned as x86 does for values in range.
func fToU(x float64) uint64 {
	if x >= 1<<63 {
		return uint64(int64(x-(1<<63))) | 1<<63
	}
	return uint64(int64(x))
}

// fcmp evaluates an fcmp predicate (enum.FPred order).
func fcmp(pred int64, a, b float64) bool {
	uno := math.IsNaN(a) || math.IsNaN(b)
	switch pred {
	case 0: // false
		return false
	case 1: // oeq
		return !uno && a == b
	case 2: // oge
		return !uno && a >= b
	case 3: // ogt
		return !uno && a > b
	case 4: // ole
		return !uno && a <= b
	case 5: // olt
		return !uno && a < b
	case 6: // one
		return !uno && a != b
	case 7: // ord
		return !uno
	case 8: // true
		return true
	case 9: // ueq
		return uno || a == b
	case 10: // uge
		return uno || a >= b
	case 11: // ugt
		return uno || a > b
	case 12: // ule
		return uno || a <= b
	case 13: // ult
		return uno || a < b
	case 14: // une
		return uno || a != b
	}
	return uno // uno
}
