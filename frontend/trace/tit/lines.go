package tit

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

// Limits that keep damaged input from costing unbounded time or memory.
const (
	// maxRanks bounds rank numbers: a trace of more ranks is refused
	// rather than allocated for.
	maxRanks = 1 << 20
	// maxIdleRanks bounds the ranks without lines where the highest rank
	// that has lines says how many ranks there are.
	maxIdleRanks = 4096
	// maxCount bounds element counts (as the ScalaTrace reader does).
	maxCount = 1 << 40
	// maxLine bounds a line: an alltoallv over maxRanks ranks needs about
	// 2*maxRanks numbers of up to 12 bytes.
	maxLine = 32 << 20
)

// field is one word of a line and the column (1-based, in bytes) it
// starts at.
type field struct {
	text string
	col  int
}

// line is one non-blank, non-comment line split into fields.
type line struct {
	num    int
	text   string // the line, trimmed
	fields []field
}

// scanner reads the lines of one file as SimGrid's replay does: fields
// are separated by runs of spaces and tabs, surrounding white space is
// trimmed, and blank lines and lines starting with '#' are skipped.
type scanner struct {
	name   string
	br     *bufio.Reader
	num    int
	buf    []byte
	fields []field // reused: a line's fields are valid until the next call
	err    error
}

func newScanner(name string, r io.Reader) *scanner {
	return &scanner{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line, whose fields are overwritten by the next
// call; ok is false at the end of the input or on an error, which Err then
// returns.
func (s *scanner) next() (l line, ok bool) {
	for s.err == nil {
		raw, err := s.readLine()
		switch {
		case err == io.EOF:
			// The last line may lack its newline; the next call ends.
			s.err = io.EOF
			if len(raw) == 0 {
				return line{}, false
			}
		case err != nil:
			s.err = err
			return line{}, false
		}
		s.num++
		text := strings.TrimRight(string(raw), " \t\r\n\v\f")
		start := len(text) - len(strings.TrimLeft(text, " \t\r\n\v\f"))
		if start == len(text) || text[start] == '#' {
			continue
		}
		l = line{num: s.num, text: text[start:], fields: s.fields[:0]}
		for i := start; i < len(text); {
			if text[i] == ' ' || text[i] == '\t' {
				i++
				continue
			}
			j := i
			for j < len(text) && text[j] != ' ' && text[j] != '\t' {
				j++
			}
			l.fields = append(l.fields, field{text: text[i:j], col: i + 1})
			i = j
		}
		s.fields = l.fields
		return l, true
	}
	return line{}, false
}

// readLine returns the next line without its newline, or an error if it
// is longer than maxLine.
func (s *scanner) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(s.buf)+len(chunk) > maxLine {
			return nil, trace.Errorf(s.name, s.num+1, 1, "line longer than %d bytes", maxLine)
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
func (s *scanner) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

// parseRankText reads a rank: a decimal number, optionally written with
// the "p" prefix of old traces (p0, p1, ...). ok is false if text is not
// one or is maxRanks or more.
func parseRankText(text string) (r int, ok bool) {
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

// isDecimal reports whether text looks like a decimal number, with an
// optional sign, fraction and exponent: what C's strtod reads, less the
// hexadecimal, infinite and NaN forms no trace uses.
func isDecimal(text string) bool {
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

// parseFloat reads a decimal number.
func parseFloat(text string) (float64, bool) {
	if !isDecimal(text) {
		return 0, false
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// isInteger reports whether text is a decimal integer with an optional
// sign.
func isInteger(text string) bool {
	text = strings.TrimPrefix(strings.TrimPrefix(text, "-"), "+")
	if text == "" {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return false
		}
	}
	return true
}

// parseInt32 reads a decimal integer that fits a C int, as std::stoi
// does (less stoi's tolerance for trailing garbage).
func parseInt32(text string) (int, bool) {
	if !isInteger(text) {
		return 0, false
	}
	v, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(v), true
}
