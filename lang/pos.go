package lang

import "fmt"

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// runes. Offset is the 0-based byte offset. The zero Pos means "unknown".
type Pos struct {
	File   string
	Offset int
	Line   int
	Col    int
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col, the form editors jump to.
func (p Pos) String() string {
	file := p.File
	if file == "" {
		file = "<input>"
	}
	if !p.IsValid() {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

// Span is the half-open source range [Start, End) that a node covers.
type Span struct {
	Start, End Pos
}

// NodeSpan returns the span itself; every node embeds a Span, so every node
// satisfies Node through this method.
func (s Span) NodeSpan() Span { return s }

// Node is implemented by every syntax-tree node.
type Node interface {
	NodeSpan() Span
}
