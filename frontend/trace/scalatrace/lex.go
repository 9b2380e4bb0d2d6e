package scalatrace

import (
	"strconv"

	"github.com/parley-hpc/parley/frontend/trace"
)

// token is one word of a line, or one of the brackets ( ) [ ], with the
// column it starts at (1-based).
type token struct {
	text string
	col  int
}

// tokenize splits a line at blanks and around brackets.
func tokenize(s string) []token {
	var toks []token
	start := -1
	flush := func(i int) {
		if start >= 0 {
			toks = append(toks, token{s[start:i], start + 1})
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r':
			flush(i)
		case '(', ')', '[', ']':
			flush(i)
			toks = append(toks, token{s[i : i+1], i + 1})
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(s))
	return toks
}

// cursor walks the tokens of one line, reporting errors at their columns.
type cursor struct {
	file string
	line int
	toks []token
	i    int
	end  int // column just past the line, for errors at its end
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

func (c *cursor) peek() string {
	if c.done() {
		return ""
	}
	return c.toks[c.i].text
}

func (c *cursor) col() int {
	if c.done() {
		return c.end
	}
	return c.toks[c.i].col
}

func (c *cursor) errorf(format string, args ...any) error {
	return trace.Errorf(c.file, c.line, c.col(), format, args...)
}

// found describes the current token for an error message.
func (c *cursor) found() string {
	if c.done() {
		return "the end of the line"
	}
	return strconv.Quote(c.peek())
}

// int reads a decimal integer; what names it in errors.
func (c *cursor) int(what string) (int64, error) {
	if c.done() {
		return 0, c.errorf("expected %s, found the end of the line", what)
	}
	v, err := strconv.ParseInt(c.peek(), 10, 64)
	if err != nil {
		return 0, c.errorf("expected %s (an integer), found %s", what, c.found())
	}
	c.i++
	return v, nil
}

// float reads a decimal number.
func (c *cursor) float(what string) (float64, error) {
	if c.done() {
		return 0, c.errorf("expected %s, found the end of the line", what)
	}
	v, err := strconv.ParseFloat(c.peek(), 64)
	if err != nil || v != v {
		return 0, c.errorf("expected %s (a number), found %s", what, c.found())
	}
	c.i++
	return v, nil
}

// expect consumes the token want.
func (c *cursor) expect(want string) error {
	if c.peek() != want {
		return c.errorf("expected %q, found %s", want, c.found())
	}
	c.i++
	return nil
}
