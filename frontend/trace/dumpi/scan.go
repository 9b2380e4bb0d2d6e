package dumpi

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// Limits that keep malformed input from costing unbounded memory.
const (
	maxLine   = 32 << 20 // bytes in one line
	maxRanks  = 1 << 20  // ranks in a trace
	maxArray  = 1 << 24  // elements in one printed array
	maxSecond = 1 << 33  // walltime seconds (about 270 years)
)

// param is one parameter line of a call record: "TYPE NAME=VALUE", where
// NAME may carry dimensions ("int recvcounts[4]=[1, 2, 3, 4]").
type param struct {
	typ, name, value string
	line, col        int // where value starts (col is 1-based)
}

// record is one MPI call as dumpi2ascii prints it: the "entering" line,
// parameter lines, and the "returning" line.
type record struct {
	name        string
	line        int   // of the "entering" line
	enter, exit int64 // walltime in nanoseconds
	params      []param
	// bad is the first line of the record that is not a parameter line,
	// if any; calls this reader maps reject it, others ignore it.
	bad *param
}

// scanner reads one rank's dumpi2ascii output record by record.
type scanner struct {
	file   string
	in     *bufio.Scanner
	line   int    // number of the current line
	text   string // the current line (or the rest of it, see colOff)
	colOff int    // columns of the current line already consumed
	redo   bool   // text holds a line remainder to read again
	rec    record

	// sizes holds the "Datatype N (NAME) has size S" table (dumpi2ascii -X).
	sizes map[int]sizeEntry
}

type sizeEntry struct {
	name string
	size int64
}

func newScanner(file string, r io.Reader, firstLine int) *scanner {
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 0, 4096), maxLine)
	return &scanner{file: file, in: in, line: firstLine - 1, sizes: map[int]sizeEntry{}}
}

func (s *scanner) errorf(line, col int, format string, args ...any) error {
	return trace.Errorf(s.file, line, col, format, args...)
}

// readLine advances to the next line; it returns false at the end of the
// input or on a read error (then err is set).
func (s *scanner) readLine() (bool, error) {
	if s.redo {
		s.redo = false
		return true, nil
	}
	if !s.in.Scan() {
		if err := s.in.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return false, s.errorf(s.line+1, 1, "line longer than %d bytes: expected dumpi2ascii output", maxLine)
			}
			return false, err
		}
		return false, nil
	}
	s.line++
	s.text = strings.TrimSuffix(s.in.Text(), "\r")
	s.colOff = 0
	return true, nil
}

// next returns the next call record, or io.EOF after the last. The record
// is reused by the following call.
func (s *scanner) next() (*record, error) {
	for {
		ok, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, io.EOF
		}
		t := s.text
		if name, kind, rest := callLine(t); kind == entering {
			return s.record(name, rest)
		} else if kind == returning {
			return nil, s.errorf(s.line, 1, "%s returning without a matching %q line before it", name, name+" entering at walltime")
		}
		if err := s.outside(t); err != nil {
			return nil, err
		}
	}
}

// outside checks a line printed outside call records: the header (-H),
// keyvals (-K), footer (-F), perf counter labels (-P), function addresses
// (-A) and datatype sizes (-X).
func (s *scanner) outside(t string) error {
	switch {
	case strings.TrimSpace(t) == "":
		return nil
	case strings.HasPrefix(t, " "), strings.HasPrefix(t, "\t"):
		return nil // perf counter label
	case strings.HasPrefix(t, "Datatype "):
		return s.sizeLine(t)
	case strings.HasPrefix(t, "Total keyvals: "), strings.HasPrefix(t, "Performance counters: "),
		strings.HasPrefix(t, "Function address "), strings.Contains(t, " called ") && strings.Contains(t, " times and ignored "):
		return nil
	case strings.Contains(t, "="):
		return nil // header or keyval "key=value"
	}
	return s.errorf(s.line, 1, "unexpected line %s: expected a call record (%q) or a dumpi2ascii header or footer line", quote(t), "MPI_Xxx entering at walltime S.NS, cputime S.NS seconds in thread T.")
}

// sizeLine reads "Datatype %d (%s) has size %d".
func (s *scanner) sizeLine(t string) error {
	bad := func() error {
		return s.errorf(s.line, 1, "malformed datatype size line %s: expected %q", quote(t), "Datatype N (NAME) has size S")
	}
	rest := strings.TrimPrefix(t, "Datatype ")
	num, rest, ok := strings.Cut(rest, " (")
	if !ok {
		return bad()
	}
	name, size, ok := strings.Cut(rest, ") has size ")
	if !ok {
		return bad()
	}
	n, err1 := strconv.ParseInt(num, 10, 32)
	z, err2 := strconv.ParseInt(size, 10, 32)
	if err1 != nil || err2 != nil || n < 0 || z < 0 || n >= maxArray {
		return bad()
	}
	s.sizes[int(n)] = sizeEntry{name, z}
	return nil
}

type lineKind int

const (
	other lineKind = iota
	entering
	returning
)

// callLine recognises "NAME entering at walltime ..." and "NAME returning
// at walltime ...", returning the name and the column where the time
// starts (0-based).
func callLine(t string) (name string, kind lineKind, rest int) {
	sp := strings.IndexByte(t, ' ')
	if sp <= 0 || !isIdent(t[:sp]) {
		return "", other, 0
	}
	switch after := t[sp:]; {
	case strings.HasPrefix(after, " entering at walltime "):
		return t[:sp], entering, sp + len(" entering at walltime ")
	case strings.HasPrefix(after, " returning at walltime "):
		return t[:sp], returning, sp + len(" returning at walltime ")
	}
	return "", other, 0
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// record reads one call record whose entering line is the current line.
func (s *scanner) record(name string, rest int) (*record, error) {
	r := &s.rec
	*r = record{name: name, line: s.line, params: r.params[:0]}
	var err error
	if r.enter, err = s.stamp(s.text, rest); err != nil {
		return nil, err
	}
	for {
		ok, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, s.errorf(s.line, len(s.text)+1, "input ends inside the %s record begun at line %d: expected %q", name, r.line, name+" returning at walltime ...")
		}
		t := s.text
		switch n, kind, at := callLine(t); kind {
		case returning:
			if n != name {
				return nil, s.errorf(s.line, 1, "%s returning inside the %s record begun at line %d: expected %q", n, name, r.line, name+" returning at walltime ...")
			}
			if r.exit, err = s.stamp(t, at); err != nil {
				return nil, err
			}
			if r.exit < r.enter {
				return nil, s.errorf(s.line, at+1, "%s returns at walltime %s, before it entered (line %d)", name, fmtNanos(r.exit), r.line)
			}
			return r, nil
		case entering:
			return nil, s.errorf(s.line, 1, "%s entering inside the %s record begun at line %d: expected %q first", n, name, r.line, name+" returning at walltime ...")
		}
		if strings.HasPrefix(t, "Perfcounters: ") {
			continue
		}
		if err := s.param(r); err != nil {
			return nil, err
		}
	}
}

// param reads a parameter line into r.params, or notes it in r.bad.
func (s *scanner) param(r *record) error {
	t := s.text
	col := s.colOff + 1
	eq := strings.IndexByte(t, '=')
	sp := strings.IndexByte(t, ' ')
	if eq < 0 || sp <= 0 || sp > eq {
		if r.bad == nil {
			r.bad = &param{value: t, line: s.line, col: col}
		}
		return nil
	}
	decl := t[sp+1 : eq]
	name, dims, _ := strings.Cut(decl, "[")
	if !isIdent(name) {
		if r.bad == nil {
			r.bad = &param{value: t, line: s.line, col: col}
		}
		return nil
	}
	p := param{typ: t[:sp], name: name, value: t[eq+1:], line: s.line, col: col + eq + 1}
	// A two-dimensional int array prints one row per line:
	// "int ranges[2][3]=[[0, 3, 1]", ", [4, 7, 1]", "]NEXT PARAM".
	if strings.Count(dims, "[") == 1 && strings.HasPrefix(p.value, "[[") && !strings.HasSuffix(p.value, "]]") {
		var b strings.Builder
		b.WriteString(p.value)
		for {
			ok, err := s.readLine()
			if err != nil {
				return err
			}
			if !ok {
				return s.errorf(s.line, len(s.text)+1, "input ends inside the array %s begun at line %d: expected a closing %q", name, p.line, "]")
			}
			if b.Len() > maxLine {
				return s.errorf(s.line, 1, "array %s begun at line %d is longer than %d bytes", name, p.line, maxLine)
			}
			u := s.text
			if strings.HasPrefix(u, ", [") {
				b.WriteString(u)
				continue
			}
			if !strings.HasPrefix(u, "]") {
				return s.errorf(s.line, 1, "unexpected line %s inside the array %s begun at line %d: expected %q or %q", quote(u), name, p.line, ", [...]", "]")
			}
			b.WriteByte(']')
			if u = u[1:]; u != "" {
				s.text, s.colOff, s.redo = u, 1, true
			}
			break
		}
		p.value = b.String()
	}
	r.params = append(r.params, p)
	return nil
}

// stamp reads "S.NS, cputime S.NS seconds in thread T." at t[at:] and
// returns the walltime in nanoseconds.
func (s *scanner) stamp(t string, at int) (int64, error) {
	rest := t[at:]
	num, tail, ok := strings.Cut(rest, ", cputime ")
	if !ok || !strings.Contains(tail, " seconds in thread ") {
		return 0, s.errorf(s.line, at+1, "malformed call line %s: expected %q", quote(t), "... at walltime S.NS, cputime S.NS seconds in thread T.")
	}
	ns, ok := parseSeconds(num)
	if !ok {
		return 0, s.errorf(s.line, at+1, "walltime %q is not a time: expected seconds as %q", num, "S.NNNNNNNNN")
	}
	return ns, nil
}

// parseSeconds reads "S" or "S.F" (non-negative) as nanoseconds; digits
// of F past the ninth are dropped.
func parseSeconds(v string) (int64, bool) {
	whole, frac, _ := strings.Cut(v, ".")
	if whole == "" || len(frac) > 30 {
		return 0, false
	}
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec < 0 || sec >= maxSecond || whole[0] == '+' {
		return 0, false
	}
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			ns += int64(c - '0')
		}
	}
	for i := 9; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return 0, false
		}
	}
	return sec*1e9 + ns, true
}

func fmtNanos(ns int64) string {
	return strconv.FormatInt(ns/1e9, 10) + "." + strconv.FormatInt(1e9+ns%1e9, 10)[1:]
}

// quote shortens and quotes a line for an error message.
func quote(t string) string {
	if len(t) > 60 {
		t = t[:60] + "..."
	}
	return strconv.Quote(t)
}
