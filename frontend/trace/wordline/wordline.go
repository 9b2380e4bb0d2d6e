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
