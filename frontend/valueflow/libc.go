package valueflow

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
)

// External functions: the parts of the C library, the C++ runtime and the
// LLVM intrinsics that programs call. Library functions move data like the
// program's own code would: math functions compute (their result is a new
// computation on their arguments' values), memcpy and qsort replicate
// values, memset and the string writers write constants.

// external implements a function the program declares but does not define.
type external func(m *machine, x *extCall) error

// extCall is one call of an external: its arguments are the call site's
// lanes in the caller's registers.
type extCall struct {
	m    *machine
	site *callSite
	base int32
}

func (x *extCall) regs() []reg { return x.m.regs[x.base:] }

func (x *extCall) nargs() int { return len(x.site.args) }

func (x *extCall) arg(i int) uint64 {
	if i >= len(x.site.args) {
		return 0
	}
	return x.regs()[x.site.args[i]].v
}

// int is argument i sign-extended from its width.
func (x *extCall) int(i int) int64 {
	if i >= len(x.site.args) {
		return 0
	}
	return signExtend(x.arg(i), 64-x.site.argLanes[i].bits)
}

func (x *extCall) taint(i int) handle {
	if i >= len(x.site.args) {
		return 0
	}
	return x.regs()[x.site.args[i]].t
}

// float is argument i as a double, whatever its precision.
func (x *extCall) float(i int) float64 {
	if i >= len(x.site.args) {
		return 0
	}
	if x.site.argLanes[i].k == kF32 {
		return float64(f32(x.arg(i)))
	}
	return f64(x.arg(i))
}

// setLane sets result lane i, masked to its width.
func (x *extCall) setLane(i int, v uint64, t handle) {
	if x.site.dst < 0 || i >= len(x.site.rets) {
		return
	}
	l := x.site.rets[i]
	if l.k == kInt {
		v &= uint64(mask(l.bits))
	}
	x.regs()[x.site.dst+int32(i)] = reg{v, t}
}

func (x *extCall) set(v uint64, t handle) { x.setLane(0, v, t) }

// setFloat sets the result as a double or a float, as declared.
func (x *extCall) setFloat(f float64, t handle) {
	if len(x.site.rets) > 0 && x.site.rets[0].k == kF32 {
		x.set(f32bits(float32(f)), t)
		return
	}
	x.set(math.Float64bits(f), t)
}

// computed is the taint of a result computed from arguments.
func (x *extCall) computed(args ...int) handle {
	var h handle
	for _, i := range args {
		switch t := x.taint(i); {
		case t == 0:
		case h == 0:
			h = t
		default:
			h = x.m.sh.node(h, t)
		}
	}
	if h != 0 && h&nodeBit == 0 {
		h = x.m.sh.node(h, 0) // a function of one value is a new value
	}
	return h
}

// extEntry is an external with the arguments it needs.
type extEntry struct {
	args int
	fn   external
}

// lookupExternal finds the implementation of the external function name;
// intrinsics are found without their type suffixes (llvm.memcpy.p0i8.p0i8.i64
// is llvm.memcpy).
func lookupExternal(name string) external {
	e, ok := externals[name]
	for !ok && strings.HasPrefix(name, "llvm.") {
		i := strings.LastIndexByte(name, '.')
		if i <= len("llvm") {
			break
		}
		name = name[:i]
		e, ok = externals[name]
	}
	if !ok {
		return nil
	}
	return func(m *machine, x *extCall) error {
		if x.nargs() < e.args {
			return fmt.Errorf("%s called with %d arguments; it takes %d", name, x.nargs(), e.args)
		}
		return e.fn(m, x)
	}
}

// KnownExternals lists the external functions the analysis models, for
// documentation.
func KnownExternals() []string {
	names := make([]string, 0, len(externals))
	for n := range externals {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var externals = map[string]extEntry{}

func init() {
	unary := map[string]func(float64) float64{
		"sqrt": math.Sqrt, "cbrt": math.Cbrt, "exp": math.Exp, "exp2": math.Exp2, "expm1": math.Expm1,
		"log": math.Log, "log2": math.Log2, "log10": math.Log10, "log1p": math.Log1p,
		"sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan,
		"sinh": math.Sinh, "cosh": math.Cosh, "tanh": math.Tanh, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
		"fabs": math.Abs, "floor": math.Floor, "ceil": math.Ceil, "round": math.Round, "trunc": math.Trunc,
		"rint": math.RoundToEven, "nearbyint": math.RoundToEven, "erf": math.Erf, "erfc": math.Erfc, "tgamma": math.Gamma,
		"lgamma": func(x float64) float64 { v, _ := math.Lgamma(x); return v },
	}
	binary := map[string]func(float64, float64) float64{
		"pow": math.Pow, "atan2": math.Atan2, "fmod": math.Mod, "hypot": math.Hypot, "copysign": math.Copysign,
		"fmin": cFmin, "fmax": cFmax, "fdim": math.Dim, "remainder": math.Remainder,
	}
	for name, f := range unary {
		fn := func(m *machine, x *extCall) error { x.setFloat(f(x.float(0)), x.computed(0)); return nil }
		externals[name] = extEntry{1, fn}
		externals[name+"f"] = extEntry{1, fn}
		externals["llvm."+name] = extEntry{1, fn}
	}
	for name, f := range binary {
		fn := func(m *machine, x *extCall) error {
			x.setFloat(f(x.float(0), x.float(1)), x.computed(0, 1))
			return nil
		}
		externals[name] = extEntry{2, fn}
		externals[name+"f"] = extEntry{2, fn}
	}
	// ldexp and scalbn scale by a power of two given as an integer.
	for _, name := range []string{"ldexp", "ldexpf", "scalbn", "scalbnf", "llvm.ldexp"} {
		externals[name] = extEntry{2, func(m *machine, x *extCall) error {
			x.setFloat(math.Ldexp(x.float(0), int(x.int(1))), x.computed(0, 1))
			return nil
		}}
	}
	// frexp and modf return one part and store the other through a
	// pointer: both are computed from the argument.
	for _, name := range []string{"frexp", "frexpf"} {
		externals[name] = extEntry{2, func(m *machine, x *extCall) error {
			frac, exp := math.Frexp(x.float(0))
			h := x.computed(0)
			if err := m.storeComputed(x.arg(1), uint64(uint32(int32(exp))), 4, h); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			x.setFloat(frac, h)
			return nil
		}}
	}
	externals["modf"] = extEntry{2, func(m *machine, x *extCall) error {
		ip, frac := math.Modf(x.float(0))
		h := x.computed(0)
		if err := m.storeComputed(x.arg(1), math.Float64bits(ip), 8, h); err != nil {
			return fmt.Errorf("modf: %w", err)
		}
		x.setFloat(frac, h)
		return nil
	}}
	externals["modff"] = extEntry{2, func(m *machine, x *extCall) error {
		ip, frac := math.Modf(x.float(0))
		h := x.computed(0)
		if err := m.storeComputed(x.arg(1), f32bits(float32(ip)), 4, h); err != nil {
			return fmt.Errorf("modff: %w", err)
		}
		x.setFloat(frac, h)
		return nil
	}}
	externals["llvm.pow"] = externals["pow"]
	externals["llvm.copysign"] = externals["copysign"]
	externals["llvm.minnum"] = externals["fmin"]
	externals["llvm.maxnum"] = externals["fmax"]
	externals["llvm.minimum"] = extEntry{2, func(m *machine, x *extCall) error {
		x.setFloat(math.Min(x.float(0), x.float(1)), x.computed(0, 1))
		return nil
	}}
	externals["llvm.maximum"] = extEntry{2, func(m *machine, x *extCall) error {
		x.setFloat(math.Max(x.float(0), x.float(1)), x.computed(0, 1))
		return nil
	}}
	fma := extEntry{3, func(m *machine, x *extCall) error {
		// fmuladd may fuse or not; x86-64 code compiled without -mfma
		// rounds twice, as the C source says.
		x.setFloat(x.float(0)*x.float(1)+x.float(2), x.computed(0, 1, 2))
		return nil
	}}
	externals["llvm.fmuladd"] = fma
	externals["llvm.fma"] = extEntry{3, func(m *machine, x *extCall) error {
		x.setFloat(math.FMA(x.float(0), x.float(1), x.float(2)), x.computed(0, 1, 2))
		return nil
	}}
	externals["fma"], externals["fmaf"] = externals["llvm.fma"], externals["llvm.fma"]
	externals["llvm.powi"] = extEntry{2, func(m *machine, x *extCall) error {
		x.setFloat(math.Pow(x.float(0), float64(x.int(1))), x.computed(0, 1))
		return nil
	}}
	for _, name := range []string{"lround", "llround", "lroundf", "llroundf", "lrint", "llrint", "lrintf", "llrintf"} {
		round := math.Round
		if strings.Contains(name, "rint") {
			round = math.RoundToEven
		}
		externals[name] = extEntry{1, func(m *machine, x *extCall) error {
			x.set(uint64(int64(round(x.float(0)))), x.computed(0))
			return nil
		}}
	}
	intUnary := map[string]func(int64, uint8) uint64{
		"abs":  func(v int64, _ uint8) uint64 { return uint64(max(v, -v)) },
		"labs": func(v int64, _ uint8) uint64 { return uint64(max(v, -v)) }, "llabs": func(v int64, _ uint8) uint64 { return uint64(max(v, -v)) },
		"llvm.abs":   func(v int64, _ uint8) uint64 { return uint64(max(v, -v)) },
		"llvm.ctpop": func(v int64, w uint8) uint64 { return uint64(bits.OnesCount64(uint64(v) & uint64(mask(w)))) },
		"llvm.ctlz": func(v int64, w uint8) uint64 {
			return uint64(bits.LeadingZeros64(uint64(v)&uint64(mask(w))) - (64 - int(w)))
		},
		"llvm.cttz": func(v int64, w uint8) uint64 {
			return uint64(min(bits.TrailingZeros64(uint64(v)), int(w)))
		},
		"llvm.bswap": func(v int64, w uint8) uint64 { return bits.ReverseBytes64(uint64(v)) >> (64 - w) },
	}
	for name, f := range intUnary {
		externals[name] = extEntry{1, func(m *machine, x *extCall) error {
			x.set(f(x.int(0), x.site.argLanes[0].bits), x.computed(0))
			return nil
		}}
	}
	intBinary := map[string]func(a, b int64) int64{
		"llvm.smax": func(a, b int64) int64 { return max(a, b) }, "llvm.smin": func(a, b int64) int64 { return min(a, b) },
	}
	for name, f := range intBinary {
		externals[name] = extEntry{2, func(m *machine, x *extCall) error {
			x.set(uint64(f(x.int(0), x.int(1))), x.computed(0, 1))
			return nil
		}}
	}
	externals["llvm.umax"] = extEntry{2, func(m *machine, x *extCall) error { x.set(max(x.arg(0), x.arg(1)), x.computed(0, 1)); return nil }}
	externals["llvm.umin"] = extEntry{2, func(m *machine, x *extCall) error { x.set(min(x.arg(0), x.arg(1)), x.computed(0, 1)); return nil }}
	for _, name := range []string{"sadd", "uadd", "ssub", "usub", "smul", "umul"} {
		externals["llvm."+name+".with.overflow"] = extEntry{2, withOverflow(name)}
	}
	externals["llvm.expect"] = extEntry{1, func(m *machine, x *extCall) error { x.set(x.arg(0), x.taint(0)); return nil }}
	externals["llvm.stacksave"] = extEntry{0, func(m *machine, x *extCall) error { x.set(uint64(len(m.allocas)), 0); return nil }}
	externals["llvm.stackrestore"] = extEntry{1, func(m *machine, x *extCall) error {
		// Variable-length arrays: free those allocated since the save.
		floor := max(int(x.arg(0)), int(m.frames[len(m.frames)-1].allocs))
		for i := len(m.allocas) - 1; i >= floor; i-- {
			m.release(m.allocas[i])
		}
		m.allocas = m.allocas[:min(floor, len(m.allocas))]
		return nil
	}}
	externals["llvm.trap"] = extEntry{0, func(m *machine, x *extCall) error { return errors.New("the program trapped (llvm.trap)") }}
	externals["llvm.ubsantrap"] = externals["llvm.trap"]

	for name, e := range memoryFuncs() {
		externals[name] = e
	}
	for name, e := range stdioFuncs() {
		externals[name] = e
	}
	for name, e := range runtimeFuncs() {
		externals[name] = e
	}
}

// cFmin and cFmax ignore a NaN argument, as C's fmin and fmax do.
func cFmin(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

func cFmax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// withOverflow implements llvm.{s,u}{add,sub,mul}.with.overflow: the
// wrapped result and whether it overflowed.
func withOverflow(name string) external {
	return func(m *machine, x *extCall) error {
		w := x.site.argLanes[0].bits
		sh := 64 - w
		a, b := x.arg(0), x.arg(1)
		sa, sb := signExtend(a, sh), signExtend(b, sh)
		var r uint64
		var over bool
		switch name {
		case "uadd":
			r = a + b
			over = r&uint64(mask(w)) < a || (w == 64 && r < a)
		case "usub":
			r, over = a-b, b > a
		case "umul":
			hi, lo := bits.Mul64(a, b)
			r, over = lo, hi != 0 || (w < 64 && lo>>w != 0)
		case "sadd":
			s := sa + sb
			r, over = uint64(s), signExtend(uint64(s), sh) != s || (sa > 0 && sb > 0 && s < 0) || (sa < 0 && sb < 0 && s >= 0)
		case "ssub":
			s := sa - sb
			r, over = uint64(s), signExtend(uint64(s), sh) != s || (sa >= 0 && sb < 0 && s < 0) || (sa < 0 && sb > 0 && s >= 0)
		case "smul":
			s := sa * sb
			r = uint64(s)
			over = signExtend(uint64(s), sh) != s || (sa != 0 && s/sa != sb)
		}
		t := x.computed(0, 1)
		x.setLane(0, r, t)
		x.setLane(1, b2u(over), t)
		return nil
	}
}

// bytesAt is n bytes of memory at addr.
func (m *machine) bytesAt(addr, n uint64, what string) (*object, uint64, error) {
	o, off := m.at(addr, n)
	if o == nil {
		return nil, 0, m.fault(what, addr, n)
	}
	return o, off, nil
}

// cstring reads the NUL-terminated string at addr.
func (m *machine) cstring(addr uint64) (string, error) {
	o, off := m.at(addr, 1)
	if o == nil {
		return "", m.fault("string read", addr, 1)
	}
	end := bytes.IndexByte(o.data[off:], 0)
	if end < 0 {
		return "", fmt.Errorf("a string without its terminating NUL in a %s", m.describe(o))
	}
	return string(o.data[off : off+uint64(end)]), nil
}

// writeString writes s (with n bytes at most, NUL included when it fits)
// at addr; the bytes written are constants.
func (m *machine) writeBytes(addr uint64, s []byte) error {
	if len(s) == 0 {
		return nil
	}
	o, off, err := m.bytesAt(addr, uint64(len(s)), "write")
	if err != nil {
		return err
	}
	copy(o.data[off:], s)
	m.clearShadow(o, off, uint64(len(s)))
	return nil
}

// heapBlock is the heap object that ptr starts, for free and realloc.
func (m *machine) heapBlock(ptr uint64, what string) (uint32, error) {
	id := ptr >> 32
	if ptr&0xffffffff != 0 || id == 0 || id >= uint64(len(m.objs)) {
		return 0, fmt.Errorf("%s of %#x, which is not a pointer that malloc returned", what, ptr)
	}
	switch m.objs[id].kind {
	case objHeap:
		return uint32(id), nil
	case objFreed:
		return 0, fmt.Errorf("%s of a %s (double free)", what, m.describe(&m.objs[id]))
	}
	return 0, fmt.Errorf("%s of a %s, which malloc did not return", what, m.describe(&m.objs[id]))
}

func memoryFuncs() map[string]extEntry {
	malloc := func(m *machine, x *extCall, n uint64) error {
		addr, err := m.alloc(int64(min(n, 1<<40)), objHeap, x.site.loc)
		if err != nil {
			return err
		}
		x.set(addr, 0)
		return nil
	}
	free := func(m *machine, x *extCall) error {
		if x.arg(0) == 0 {
			return nil
		}
		id, err := m.heapBlock(x.arg(0), "free")
		if err != nil {
			return err
		}
		m.release(id)
		return nil
	}
	memcpy := func(m *machine, x *extCall) error {
		dst, src, n := x.arg(0), x.arg(1), x.arg(2)
		x.set(dst, 0)
		if n == 0 {
			return nil
		}
		so, soff, err := m.bytesAt(src, n, "memcpy read")
		if err != nil {
			return err
		}
		do, doff, err := m.bytesAt(dst, n, "memcpy write")
		if err != nil {
			return err
		}
		copy(do.data[doff:doff+n], so.data[soff:soff+n])
		m.copyShadow(do, doff, so, soff, n)
		return nil
	}
	memset := func(m *machine, x *extCall) error {
		dst, c, n := x.arg(0), byte(x.arg(1)), x.arg(2)
		x.set(dst, 0)
		if n == 0 {
			return nil
		}
		o, off, err := m.bytesAt(dst, n, "memset")
		if err != nil {
			return err
		}
		b := o.data[off : off+n]
		for i := range b {
			b[i] = c
		}
		m.clearShadow(o, off, n)
		return nil
	}
	fns := map[string]extEntry{
		"malloc": {1, func(m *machine, x *extCall) error { return malloc(m, x, x.arg(0)) }},
		"_Znwm":  {1, func(m *machine, x *extCall) error { return malloc(m, x, x.arg(0)) }},
		"_Znam":  {1, func(m *machine, x *extCall) error { return malloc(m, x, x.arg(0)) }},
		"calloc": {2, func(m *machine, x *extCall) error {
			hi, n := bits.Mul64(x.arg(0), x.arg(1))
			if hi != 0 {
				x.set(0, 0)
				return nil
			}
			return malloc(m, x, n)
		}},
		"aligned_alloc": {2, func(m *machine, x *extCall) error { return malloc(m, x, x.arg(1)) }},
		"posix_memalign": {3, func(m *machine, x *extCall) error {
			addr, err := m.alloc(int64(min(x.arg(2), 1<<40)), objHeap, x.site.loc)
			if err != nil {
				return err
			}
			o, off, err := m.bytesAt(x.arg(0), 8, "posix_memalign result write")
			if err != nil {
				return err
			}
			putUint(o.data, int64(off), 8, addr)
			m.storeTaint(o, off, 8, 0)
			x.set(0, 0)
			return nil
		}},
		"realloc": {2, func(m *machine, x *extCall) error {
			old, n := x.arg(0), x.arg(1)
			if old == 0 {
				return malloc(m, x, n)
			}
			id, err := m.heapBlock(old, "realloc")
			if err != nil {
				return err
			}
			addr, err := m.alloc(int64(min(n, 1<<40)), objHeap, x.site.loc)
			if err != nil {
				return err
			}
			src, dst := &m.objs[id], &m.objs[addr>>32]
			k := min(uint64(len(src.data)), n)
			copy(dst.data, src.data[:k])
			m.copyShadow(dst, 0, src, 0, k)
			m.release(id)
			x.set(addr, 0)
			return nil
		}},
		"free":         {1, free},
		"_ZdlPv":       {1, free},
		"_ZdaPv":       {1, free},
		"_ZdlPvm":      {1, free},
		"_ZdaPvm":      {1, free},
		"memcpy":       {3, memcpy},
		"memmove":      {3, memcpy},
		"llvm.memcpy":  {3, memcpy},
		"llvm.memmove": {3, memcpy},
		"memset":       {3, memset},
		"llvm.memset":  {3, memset},
		"strlen": {1, func(m *machine, x *extCall) error {
			s, err := m.cstring(x.arg(0))
			x.set(uint64(len(s)), 0)
			return err
		}},
		"strcmp": {2, func(m *machine, x *extCall) error {
			a, err := m.cstring(x.arg(0))
			if err != nil {
				return err
			}
			b, err := m.cstring(x.arg(1))
			x.set(uint64(int64(strings.Compare(a, b))), 0)
			return err
		}},
		"strncmp": {3, func(m *machine, x *extCall) error {
			a, err := m.cstring(x.arg(0))
			if err != nil {
				return err
			}
			b, err := m.cstring(x.arg(1))
			n := int(min(x.arg(2), 1<<31))
			x.set(uint64(int64(strings.Compare(a[:min(n, len(a))], b[:min(n, len(b))]))), 0)
			return err
		}},
		"strcpy": {2, func(m *machine, x *extCall) error {
			s, err := m.cstring(x.arg(1))
			if err != nil {
				return err
			}
			x.set(x.arg(0), 0)
			return m.writeBytes(x.arg(0), append([]byte(s), 0))
		}},
		"strncpy": {3, func(m *machine, x *extCall) error {
			s, err := m.cstring(x.arg(1))
			if err != nil {
				return err
			}
			b := make([]byte, min(x.arg(2), 1<<32))
			copy(b, s)
			x.set(x.arg(0), 0)
			return m.writeBytes(x.arg(0), b)
		}},
		"strcat": {2, func(m *machine, x *extCall) error {
			a, err := m.cstring(x.arg(0))
			if err != nil {
				return err
			}
			b, err := m.cstring(x.arg(1))
			if err != nil {
				return err
			}
			x.set(x.arg(0), 0)
			return m.writeBytes(x.arg(0)+uint64(len(a)), append([]byte(b), 0))
		}},
		"strdup": {1, func(m *machine, x *extCall) error {
			s, err := m.cstring(x.arg(0))
			if err != nil {
				return err
			}
			addr, err := m.alloc(int64(len(s)+1), objHeap, x.site.loc)
			if err != nil {
				return err
			}
			x.set(addr, 0)
			return m.writeBytes(addr, append([]byte(s), 0))
		}},
		"memcmp": {3, func(m *machine, x *extCall) error {
			n := x.arg(2)
			if n == 0 {
				x.set(0, 0)
				return nil
			}
			a, aoff, err := m.bytesAt(x.arg(0), n, "memcmp read")
			if err != nil {
				return err
			}
			b, boff, err := m.bytesAt(x.arg(1), n, "memcmp read")
			if err != nil {
				return err
			}
			x.set(uint64(int64(bytes.Compare(a.data[aoff:aoff+n], b.data[boff:boff+n]))), x.computed())
			return nil
		}},
		"qsort": {4, qsort},
	}
	return fns
}

// qsort sorts with the program's comparator: a stable merge sort, as
// glibc's qsort is when it can allocate its buffer, so ties keep their
// order as on Linux. The elements move with their values.
func qsort(m *machine, x *extCall) error {
	base, n, size := x.arg(0), x.arg(1), x.arg(2)
	if n < 2 || size == 0 {
		return nil
	}
	cmp, err := m.funcAt(x.arg(3))
	if err != nil {
		return fmt.Errorf("qsort comparator: %w", err)
	}
	if n > 1<<31 || size > 1<<31 {
		return fmt.Errorf("qsort of %d elements of %d bytes", n, size)
	}
	o, off, err := m.bytesAt(base, n*size, "qsort")
	if err != nil {
		return err
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var cerr error
	sort.SliceStable(perm, func(i, j int) bool {
		if cerr != nil {
			return false
		}
		res, err := m.call(cmp, []reg{{v: base + uint64(perm[i])*size}, {v: base + uint64(perm[j])*size}})
		if err != nil {
			cerr = err
			return false
		}
		return len(res) > 0 && int32(res[0].v) < 0
	})
	if cerr != nil {
		return cerr
	}
	// The comparator ran program code, which may have grown the object
	// table: look the array up again.
	o, off, err = m.bytesAt(base, n*size, "qsort")
	if err != nil {
		return err
	}
	data := append([]byte(nil), o.data[off:off+n*size]...)
	for i, p := range perm {
		copy(o.data[off+uint64(i)*size:], data[uint64(p)*size:uint64(p+1)*size])
	}
	if off%slotBytes == 0 && size%slotBytes == 0 {
		m.fillInputs(o, off, n*size) // unread elements are inputs, and move too
		first, per := off/slotBytes, size/slotBytes
		cur := append([]uint32(nil), o.cur[first:first+n*per]...)
		for i, p := range perm {
			copy(o.cur[first+uint64(i)*per:], cur[uint64(p)*per:uint64(p+1)*per])
		}
	}
	return nil
}
