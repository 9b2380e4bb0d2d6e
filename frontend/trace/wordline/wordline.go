// Package wordline reads the line-per-call trace formats that SimGrid's
// replays take (TIT, and dPerf's which fed SimGrid's MSG replay): lines
// split into blank-separated fields with their columns, ranks written
// with or without a "p" prefix, and numbers as SimGrid parses them.
//
// It imports only the standard library and frontend/trace.
package wordline

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// Field is one word of a line and the column (1-based, in bytes) it
// starts at.
type Field struct {
	Text string
	Col  int
}

// Line is one non-blank, non-comment line split into fields.
type Line struct {
	Num    int
	Text   string // the line, trimmed
	Fields []Field
}

// Scanner reads the lines of one file as SimGrid's replays do: fields
// are separated by runs of spaces and tabs, surrounding white space is
// trimmed, and blank lines and lines starting with '#' are skipped.
type Scanner struct {
	maxLine int
	name    string
	br      *bufio.Reader
	num     int
	buf     []byte
	fields  []Field // reused: a line's fields are valid until the next call
	err     error
}

// NewScanner reads r, named name in errors; lines longer than maxLine
// bytes are an error.
func NewScanner(name string, r io.Reader, maxLine int) *Scanner {
	return &Scanner{name: name, br: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine}
}

// Next returns the next line, whose fields are overwritten by the next
// call; ok is false at the end of the input or on an error, which Err then
// returns.
func (s *Scanner) Next() (l Line, ok bool) {
	for s.err == nil {
		raw, err := s.readLine()
		switch {
		case err == io.EOF:
			// The last line may lack its newline; the next call ends.
			s.err = io.EOF
			if len(raw) == 0 {
				return Line{}, false
			}
		case err != nil:
			s.err = err
			return Line{}, false
		}
		s.num++
		text := strings.TrimRight(string(raw), " \t\r\n\v\f")
		start := len(text) - len(strings.TrimLeft(text, " \t\r\n\v\f"))
		if start == len(text) || text[start] == '#' {
			continue
		}
		l = Line{Num: s.num, Text: text[start:], Fields: s.fields[:0]}
		for i := start; i < len(text); {
			if text[i] == ' ' || text[i] == '\t' {
				i++
				continue
			}
			j := i
			for j < len(text) && text[j] != ' ' && text[j] != '\t' {
				j++
			}
			l.Fields = append(l.Fields, Field{Text: text[i:j], Col: i + 1})
			i = j
		}
		s.fields = l.Fields
		return l, true
	}
	return Line{}, false
}

// readLine returns the next line without its newline, or an error if it
// is longer than s.maxLine.
func (s *Scanner) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(s.buf)+len(chunk) > s.maxLine {
			return nil, trace.Errorf(s.name, s.num+1, 1, "line longer than %d bytes", s.maxLine)
		}
		s.buf = append(s.buf, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(s.buf, []byte{'\n'}), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return s.buf, err
		}
	}
}

// Err returns the error that stopped the scanner, nil at a clean end.
func (s *Scanner) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

// ParseRank reads a rank: a decimal number, optionally written with
// the "p" prefix of old traces (p0, p1, ...). ok is false if text is not
// one or is maxRanks or more.
func ParseRank(text string, maxRanks int) (r int, ok bool) {
	text = strings.TrimPrefix(text, "p")
	if text == "" || len(text) > 8 {
		return 0, false
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return 0, false
		}
		r = r*10 + int(text[i]-'0')
	}
	return r, r < maxRanks
}

// IsDecimal reports whether text looks like a decimal number, with an
// optional sign, fraction and exponent: what C's strtod reads, less the
// hexadecimal, infinite and NaN forms no trace uses.
func IsDecimal(text string) bool {
	if text == "" {
		return false
	}
	digits := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= '0' && c <= '9':
			digits = true
		case c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digits
}

// ParseFloat reads a decimal number.
func ParseFloat(text string) (float64, bool) {
	if !IsDecimal(text) {
		return 0, false
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// Errorf reports a problem with field i of l in file; an i past the last
// field points just after the line's end, where a missing argument would
// be.
func (l Line) Errorf(file string, i int, format string, args ...any) error {
	col := 1
	switch {
	case i < len(l.Fields):
		col = l.Fields[i].Col
	case len(l.Fields) > 0:
		last := l.Fields[len(l.Fields)-1]
		col = last.Col + len(last.Text) + 1
	}
	return trace.Errorf(file, l.Num, col, format, args...)
}

// Arity checks that l, "RANK ACTION ARGUMENTS...", has between min and max
// arguments; usage is the action's syntax, for the message.
func (l Line) Arity(file string, min, max int, usage string) error {
	n := len(l.Fields) - 2
	action := l.Fields[1].Text
	switch {
	case n < min && min == max:
		return l.Errorf(file, len(l.Fields), "%s needs %d argument%s, found %d; expected %s", action, min, plural(min), n, usage)
	case n < min:
		return l.Errorf(file, len(l.Fields), "%s needs at least %d argument%s, found %d; expected %s", action, min, plural(min), n, usage)
	case n > max:
		return l.Errorf(file, 2+max, "%s takes at most %d argument%s, found %d; expected %s", action, max, plural(max), n, usage)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Amount reads field i of l as a non-negative number of what (seconds,
// flops, ...) below trace.MaxAmount.
func (l Line) Amount(file string, i int, what, usage string) (float64, error) {
	v, ok := ParseFloat(l.Fields[i].Text)
	if !ok || v < 0 || v >= trace.MaxAmount {
		return 0, l.Errorf(file, i, "%s needs a non-negative number of %s below 2^63 (9.2e18), found %s; expected %s", l.Fields[1].Text, what, Quote(l.Fields[i].Text), usage)
	}
	return v, nil
}

// Quote quotes a field for a message, shortening a long one.
func Quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

// Reopener returns a function that opens r from where it stands now, as
// many times as a reader needs to pass over it: by seeking if r is an
// io.Seeker, else over a copy in memory.
func Reopener(r io.Reader) (func() (io.ReadCloser, error), error) {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		rs = bytes.NewReader(data)
	}
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	return func() (io.ReadCloser, error) {
		_, err := rs.Seek(start, io.SeekStart)
		return io.NopCloser(rs), err
	}, nil
}

// RankSet is a set of rank numbers, a bit per rank.
type RankSet struct {
	words []uint64
	n     int
}

// Add adds r and reports whether it was new.
func (s *RankSet) Add(r int) bool {
	word, bit := r/64, uint64(1)<<(r%64)
	if word >= len(s.words) {
		s.words = append(s.words, make([]uint64, word+1-len(s.words))...)
	}
	if s.words[word]&bit != 0 {
		return false
	}
	s.words[word] |= bit
	s.n++
	return true
}

// Len is the number of ranks in the set.
func (s *RankSet) Len() int { return s.n }
