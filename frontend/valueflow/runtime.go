package valueflow

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The process, random numbers, clocks, number parsing and the C++ runtime.
// Clocks read the instruction count, so runs are repeatable: time() is
// 0 at the start, clock() counts a microsecond per thousand instructions.

func runtimeFuncs() map[string]extEntry {
	exit := func(m *machine, x *extCall) error {
		m.exitCode = int(int32(x.arg(0)))
		return errExit
	}
	randFn := func(m *machine, x *extCall) error { x.set(uint64(m.rand.next()), 0); return nil }
	srandFn := func(m *machine, x *extCall) error { m.rand.seed(uint32(x.arg(0))); return nil }
	atol := func(m *machine, x *extCall) error {
		s, err := m.cstring(x.arg(0))
		if err != nil {
			return err
		}
		v, _ := cstrtol(s, 10, true)
		x.set(uint64(v), 0)
		return nil
	}
	strtol := func(signed bool) external {
		return func(m *machine, x *extCall) error {
			s, err := m.cstring(x.arg(0))
			if err != nil {
				return err
			}
			v, n := cstrtol(s, int(int32(x.arg(2))), signed)
			x.set(uint64(v), 0)
			return m.setEnd(x.arg(1), x.arg(0), n)
		}
	}
	strtod := func(m *machine, x *extCall) error {
		s, err := m.cstring(x.arg(0))
		if err != nil {
			return err
		}
		v, n := cstrtod(s)
		x.setFloat(v, 0)
		if x.nargs() > 1 {
			return m.setEnd(x.arg(1), x.arg(0), n)
		}
		return nil
	}
	throw := func(what string) extEntry {
		return extEntry{0, func(m *machine, x *extCall) error {
			return fmt.Errorf("the program threw a C++ exception (%s); exceptions are not modelled", what)
		}}
	}
	fns := map[string]extEntry{
		"exit":  {1, exit},
		"_exit": {1, exit},
		"abort": {0, func(m *machine, x *extCall) error { return errors.New("the program called abort()") }},
		"__assert_fail": {4, func(m *machine, x *extCall) error {
			expr, _ := m.cstring(x.arg(0))
			file, _ := m.cstring(x.arg(1))
			return fmt.Errorf("assertion %q failed (%s:%d)", expr, file, int32(x.arg(2)))
		}},
		"atexit":       {1, func(m *machine, x *extCall) error { x.set(0, 0); return nil }},
		"__cxa_atexit": {3, func(m *machine, x *extCall) error { x.set(0, 0); return nil }},
		"rand":         {0, randFn},
		"random":       {0, randFn},
		"srand":        {1, srandFn},
		"srandom":      {1, srandFn},
		"srand48": {1, func(m *machine, x *extCall) error {
			m.drand = (uint64(uint32(x.arg(0)))<<16 | 0x330e) & (1<<48 - 1)
			return nil
		}},
		"drand48": {0, func(m *machine, x *extCall) error {
			x.setFloat(float64(m.next48())/(1<<48), 0)
			return nil
		}},
		"lrand48": {0, func(m *machine, x *extCall) error { x.set(m.next48()>>17, 0); return nil }},
		"time": {1, func(m *machine, x *extCall) error {
			if p := x.arg(0); p != 0 {
				o, off, err := m.bytesAt(p, 8, "time result write")
				if err != nil {
					return err
				}
				putUint(o.data, int64(off), 8, 0)
				m.storeTaint(o, off, 8, 0)
			}
			x.set(0, 0)
			return nil
		}},
		"clock": {0, func(m *machine, x *extCall) error { x.set(uint64(m.executed/1000), 0); return nil }},
		"gettimeofday": {2, func(m *machine, x *extCall) error {
			us := m.executed / 1000
			x.set(0, 0)
			return m.writeWords(x.arg(0), uint64(us/1e6), uint64(us%1e6))
		}},
		"clock_gettime": {2, func(m *machine, x *extCall) error {
			ns := m.executed
			x.set(0, 0)
			return m.writeWords(x.arg(1), uint64(ns/1e9), uint64(ns%1e9))
		}},
		"atoi":     {1, atol},
		"atol":     {1, atol},
		"atoll":    {1, atol},
		"strtol":   {3, strtol(true)},
		"strtoll":  {3, strtol(true)},
		"strtoul":  {3, strtol(false)},
		"strtoull": {3, strtol(false)},
		"atof":     {1, strtod},
		"strtod":   {2, strtod},
		"strtof":   {2, strtod},
		"getenv":   {1, func(m *machine, x *extCall) error { x.set(0, 0); return nil }},
		"__cxa_guard_acquire": {1, func(m *machine, x *extCall) error {
			g := x.arg(0)
			x.set(b2u(!m.guards[g]), 0)
			return nil
		}},
		"__cxa_guard_release": {1, func(m *machine, x *extCall) error { m.guards[x.arg(0)] = true; return nil }},
		"__cxa_guard_abort":   {1, func(m *machine, x *extCall) error { return nil }},
		"__cxa_pure_virtual": {0, func(m *machine, x *extCall) error {
			return errors.New("call of a pure virtual function")
		}},
		"_ZSt9terminatev":          {0, func(m *machine, x *extCall) error { return errors.New("std::terminate called") }},
		"__cxa_throw":              throw("__cxa_throw"),
		"__cxa_rethrow":            throw("__cxa_rethrow"),
		"__cxa_allocate_exception": throw("__cxa_allocate_exception"),
	}
	for _, name := range []string{"length_error", "bad_alloc", "bad_array_new_length", "out_of_range", "logic_error", "invalid_argument", "out_of_range_fmt", "bad_function_call"} {
		mangled := fmt.Sprintf("_ZSt%d__throw_%s", len("__throw_"+name), name)
		for _, sig := range []string{"PKc", "v", "PKcz"} {
			fns[mangled+sig] = throw("std::" + name)
		}
	}
	return fns
}

// next48 steps the drand48 family's 48-bit linear congruential generator.
func (m *machine) next48() uint64 {
	m.drand = (m.drand*0x5deece66d + 0xb) & (1<<48 - 1)
	return m.drand
}

// writeWords stores 8-byte words at addr (struct timeval, timespec); a
// null addr is allowed.
func (m *machine) writeWords(addr uint64, words ...uint64) error {
	if addr == 0 {
		return nil
	}
	n := uint64(8 * len(words))
	o, off, err := m.bytesAt(addr, n, "write")
	if err != nil {
		return err
	}
	for i, w := range words {
		putUint(o.data, int64(off)+int64(8*i), 8, w)
	}
	m.clearShadow(o, off, n)
	return nil
}

// storeComputed stores the n-byte datum v of taint h at addr, as the
// program's own store would (frexp's exponent, modf's integer part).
func (m *machine) storeComputed(addr, v, n uint64, h handle) error {
	o, off, err := m.bytesAt(addr, n, "write")
	if err != nil {
		return err
	}
	putUint(o.data, int64(off), int64(n), v)
	m.storeTaint(o, off, n, h)
	return nil
}

// setEnd stores str+n through the char** end, unless end is null.
func (m *machine) setEnd(end, str uint64, n int) error {
	if end == 0 {
		return nil
	}
	o, off, err := m.bytesAt(end, 8, "end pointer write")
	if err != nil {
		return err
	}
	putUint(o.data, int64(off), 8, str+uint64(n))
	m.storeTaint(o, off, 8, 0)
	return nil
}

// cstrtol parses an integer as strtol does and returns it with the bytes
// used (0 when there is no number).
func cstrtol(s string, base int, signed bool) (int64, int) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if (base == 0 || base == 16) && i+2 < len(s)+1 && strings.HasPrefix(strings.ToLower(s[i:]), "0x") && i+2 < len(s) && digitVal(s[i+2]) < 16 {
		i += 2
		base = 16
	} else if base == 0 && i < len(s) && s[i] == '0' {
		base = 8
	} else if base == 0 {
		base = 10
	}
	if base < 2 || base > 36 {
		return 0, 0
	}
	start := i
	var v uint64
	over := false
	for i < len(s) && digitVal(s[i]) < base {
		d := uint64(digitVal(s[i]))
		if v > (math.MaxUint64-d)/uint64(base) {
			over = true
		}
		v = v*uint64(base) + d
		i++
	}
	if i == start {
		return 0, 0
	}
	if signed {
		switch {
		case !neg && (over || v > math.MaxInt64):
			return math.MaxInt64, i
		case neg && (over || v > 1<<63):
			return math.MinInt64, i
		case neg:
			return -int64(v), i
		}
		return int64(v), i
	}
	if over {
		return -1, i
	}
	if neg {
		return -int64(v), i
	}
	return int64(v), i
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// cstrtod parses a floating-point number as strtod does: the longest
// prefix that is one (decimal, hexadecimal, inf, nan).
func cstrtod(s string) (float64, int) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	best, bestEnd := 0.0, 0
	// Try the prefixes from the longest plausible one down.
	end := i
	for end < len(s) && strings.IndexByte("0123456789+-.eEpPxXabcdefABCDEFinftyINFTYna()", s[end]) >= 0 {
		end++
	}
	for e := end; e > i; e-- {
		t := s[i:e]
		if strings.HasPrefix(strings.ToLower(strings.TrimLeft(t, "+-")), "0x") && !strings.ContainsAny(t, "pP") {
			t += "p0"
		}
		if v, err := strconv.ParseFloat(t, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			best, bestEnd = v, e
			break
		}
	}
	return best, bestEnd
}
