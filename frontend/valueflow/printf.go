package valueflow

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Standard output: printf and friends format as glibc does and write to
// Options.Stdout; what is written to stderr is dropped. Printed data is an
// output of the program: the values it is made of must reach the task that
// prints (task 0).

// cformat formats a C format string with the call's arguments from lane
// first on, recording each argument's data as an output.
func (m *machine) cformat(format string, x *extCall, first int) ([]byte, error) {
	var out []byte
	arg := first
	next := func() int {
		arg++
		return arg - 1
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(format) {
			out = append(out, '%')
			break
		}
		var flags string
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			flags += string(format[i])
			i++
		}
		width, prec := -1, -1
		if i < len(format) && format[i] == '*' {
			width = int(int32(x.arg(next())))
			if width < 0 {
				flags += "-"
				width = -width
			}
			i++
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			width = max(width, 0)*10 + int(format[i]-'0')
			i++
		}
		if i < len(format) && format[i] == '.' {
			i++
			prec = 0
			if i < len(format) && format[i] == '*' {
				prec = int(int32(x.arg(next())))
				i++
			}
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				prec = prec*10 + int(format[i]-'0')
				i++
			}
		}
		bits := 32
		for i < len(format) && strings.IndexByte("hlLqjzt", format[i]) >= 0 {
			switch format[i] {
			case 'h':
				bits /= 2
			default:
				bits = 64
			}
			i++
		}
		if i >= len(format) {
			return nil, fmt.Errorf("printf format %q ends inside a conversion", format)
		}
		conv := format[i]
		var s string
		switch conv {
		case '%':
			out = append(out, '%')
			continue
		case 'd', 'i', 'u', 'x', 'X', 'o', 'c':
			a := next()
			m.sh.output(x.taint(a))
			v := x.arg(a)
			sh := uint8(64 - bits)
			if conv == 'c' {
				s = string([]byte{byte(v)})
				break
			}
			verb := map[byte]string{'d': "d", 'i': "d", 'u': "d", 'x': "x", 'X': "X", 'o': "o"}[conv]
			if conv == 'd' || conv == 'i' {
				s = fmt.Sprintf(goVerb(flags, width, prec, verb), signExtend(v, sh))
			} else {
				s = fmt.Sprintf(goVerb(strings.ReplaceAll(strings.ReplaceAll(flags, "+", ""), " ", ""), width, prec, verb), v&uint64(mask(uint8(bits))))
			}
			if prec == 0 && v&uint64(mask(uint8(bits))) == 0 {
				s = pad("", width, strings.Contains(flags, "-"))
			}
			out = append(out, s...)
			continue
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			a := next()
			m.sh.output(x.taint(a))
			s = cfloat(x.float(a), flags, width, prec, conv)
			out = append(out, s...)
			continue
		case 's':
			a := next()
			p := x.arg(a)
			str := "(null)"
			if p != 0 {
				var err error
				if str, err = m.cstring(p); err != nil {
					return nil, fmt.Errorf("printf %%s argument: %w", err)
				}
			}
			if prec >= 0 && prec < len(str) {
				str = str[:prec]
			}
			s = str
		case 'p':
			v := x.arg(next())
			s = "(nil)"
			if v != 0 {
				s = "0x" + strconv.FormatUint(v, 16)
			}
		case 'n':
			return nil, errors.New("printf %n is not supported by the analysis")
		default:
			return nil, fmt.Errorf("printf conversion %%%c is not supported by the analysis", conv)
		}
		out = append(out, pad(s, width, strings.Contains(flags, "-"))...)
	}
	return out, nil
}

// goVerb builds the Go verb that formats an integer as the C conversion.
func goVerb(flags string, width, prec int, verb string) string {
	var b strings.Builder
	b.WriteByte('%')
	if strings.Contains(flags, "-") || prec >= 0 {
		flags = strings.ReplaceAll(flags, "0", "") // C ignores 0 with - or a precision
	}
	b.WriteString(flags)
	if width >= 0 {
		b.WriteString(strconv.Itoa(width))
	}
	if prec >= 0 {
		b.WriteString("." + strconv.Itoa(prec))
	}
	b.WriteString(verb)
	return b.String()
}

func pad(s string, width int, left bool) string {
	if len(s) >= width {
		return s
	}
	if left {
		return s + strings.Repeat(" ", width-len(s))
	}
	return strings.Repeat(" ", width-len(s)) + s
}

// cfloat formats x as the C conversion conv (f, e, g, a and upper case).
func cfloat(x float64, flags string, width, prec int, conv byte) string {
	upper := conv >= 'A' && conv <= 'Z'
	lower := conv | 0x20
	sign := ""
	switch {
	case math.Signbit(x):
		sign = "-"
	case strings.Contains(flags, "+"):
		sign = "+"
	case strings.Contains(flags, " "):
		sign = " "
	}
	left := strings.Contains(flags, "-")
	if math.IsInf(x, 0) || math.IsNaN(x) {
		s := "inf"
		if math.IsNaN(x) {
			s = "nan"
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return pad(sign+s, width, left)
	}
	ax := math.Abs(x)
	alt := strings.Contains(flags, "#")
	var body string
	switch lower {
	case 'f':
		body = strconv.FormatFloat(ax, 'f', precOr(prec, 6), 64)
		if alt && precOr(prec, 6) == 0 {
			body += "."
		}
	case 'e':
		body = cExp(strconv.FormatFloat(ax, 'e', precOr(prec, 6), 64))
		if alt && precOr(prec, 6) == 0 {
			body = strings.Replace(body, "e", ".e", 1)
		}
	case 'g':
		p := precOr(prec, 6)
		if p == 0 {
			p = 1
		}
		exp := 0
		if ax != 0 {
			e := strconv.FormatFloat(ax, 'e', p-1, 64)
			exp, _ = strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		}
		if exp < -4 || exp >= p {
			body = cExp(strconv.FormatFloat(ax, 'e', p-1, 64))
			if !alt {
				mant, ex, _ := strings.Cut(body, "e")
				body = trimZeros(mant) + "e" + ex
			}
		} else {
			body = strconv.FormatFloat(ax, 'f', p-1-exp, 64)
			if !alt {
				body = trimZeros(body)
			}
		}
	case 'a':
		body = strconv.FormatFloat(ax, 'x', prec, 64)
		mant, ex, _ := strings.Cut(body, "p")
		n, _ := strconv.Atoi(ex)
		body = mant + "p" + fmt.Sprintf("%+d", n)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	s := sign + body
	if strings.Contains(flags, "0") && !left && len(s) < width {
		return sign + strings.Repeat("0", width-len(s)) + body
	}
	return pad(s, width, left)
}

func precOr(p, def int) int {
	if p < 0 {
		return def
	}
	return p
}

// cExp gives an exponent at least two digits, as C does (Go does too, but
// keep the form explicit for three-digit exponents).
func cExp(s string) string {
	mant, ex, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	sign, digits := ex[:1], ex[1:]
	for len(digits) < 2 {
		digits = "0" + digits
	}
	return mant + "e" + sign + digits
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// stream is where a FILE* argument writes: standard output, or nowhere.
func (m *machine) stream(file uint64) io.Writer {
	if file != 0 && file == m.prog.stdout {
		return m.stdout
	}
	return io.Discard
}

func stdioFuncs() map[string]extEntry {
	printTo := func(m *machine, x *extCall, w io.Writer, fmtArg int) error {
		format, err := m.cstring(x.arg(fmtArg))
		if err != nil {
			return fmt.Errorf("printf format: %w", err)
		}
		out, err := m.cformat(format, x, fmtArg+1)
		if err != nil {
			return err
		}
		w.Write(out)
		x.set(uint64(len(out)), 0)
		return nil
	}
	sprint := func(m *machine, x *extCall, limit uint64, fmtArg int) error {
		format, err := m.cstring(x.arg(fmtArg))
		if err != nil {
			return fmt.Errorf("sprintf format: %w", err)
		}
		out, err := m.cformat(format, x, fmtArg+1)
		if err != nil {
			return err
		}
		x.set(uint64(len(out)), 0)
		if limit == 0 {
			return nil
		}
		b := append(out[:min(uint64(len(out)), limit-1)], 0)
		return m.writeBytes(x.arg(0), b)
	}
	puts := func(m *machine, x *extCall, w io.Writer, nl bool) error {
		s, err := m.cstring(x.arg(0))
		if err != nil {
			return err
		}
		if nl {
			s += "\n"
		}
		io.WriteString(w, s)
		x.set(uint64(len(s)), 0)
		return nil
	}
	putc := func(m *machine, x *extCall, w io.Writer) error {
		m.sh.output(x.taint(0))
		w.Write([]byte{byte(x.arg(0))})
		x.set(x.arg(0)&0xff, 0)
		return nil
	}
	return map[string]extEntry{
		"printf":   {1, func(m *machine, x *extCall) error { return printTo(m, x, m.stdout, 0) }},
		"fprintf":  {2, func(m *machine, x *extCall) error { return printTo(m, x, m.stream(x.arg(0)), 1) }},
		"sprintf":  {2, func(m *machine, x *extCall) error { return sprint(m, x, math.MaxUint32, 1) }},
		"snprintf": {3, func(m *machine, x *extCall) error { return sprint(m, x, x.arg(1), 2) }},
		"puts":     {1, func(m *machine, x *extCall) error { return puts(m, x, m.stdout, true) }},
		"fputs":    {2, func(m *machine, x *extCall) error { return puts(m, x, m.stream(x.arg(1)), false) }},
		"putchar":  {1, func(m *machine, x *extCall) error { return putc(m, x, m.stdout) }},
		"fputc":    {2, func(m *machine, x *extCall) error { return putc(m, x, m.stream(x.arg(1))) }},
		"putc":     {2, func(m *machine, x *extCall) error { return putc(m, x, m.stream(x.arg(1))) }},
		"fwrite": {4, func(m *machine, x *extCall) error {
			n := x.arg(1) * x.arg(2)
			if n > 0 {
				o, off, err := m.bytesAt(x.arg(0), n, "fwrite read")
				if err != nil {
					return err
				}
				m.sh.output(m.loadTaintSlow(o, off, n))
				m.stream(x.arg(3)).Write(o.data[off : off+n])
			}
			x.set(x.arg(2), 0)
			return nil
		}},
		"fflush": {1, func(m *machine, x *extCall) error { x.set(0, 0); return nil }},
	}
}
