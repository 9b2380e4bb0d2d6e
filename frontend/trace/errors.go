package trace

import "fmt"

// SyntaxError is a malformed trace: where, and what is wrong with it.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errorf returns a *SyntaxError at file:line:col.
func Errorf(file string, line, col int, format string, args ...any) error {
	return &SyntaxError{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}
