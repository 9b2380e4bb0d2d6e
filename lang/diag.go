package lang

import (
	"fmt"
	"sort"
	"strings"
)

// Severity says whether a diagnostic stops a program from running.
type Severity int

const (
	// Error diagnostics make `parley check` exit 1.
	Error Severity = iota
	// Warning diagnostics are reported but do not fail the check.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a program: where, what, the text at
// fault and a hint saying what to do about it.
type Diagnostic struct {
	Pos      Pos
	End      Pos
	Severity Severity
	Msg      string
	Text     string // the offending source text, if known
	Hint     string // what to do about it, if we can say
}

// Error formats the diagnostic as
//
//	file:line:col: error: message: "text"
//		hint: ...
func (d Diagnostic) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s", d.Pos, d.Severity, d.Msg)
	if d.Text != "" {
		fmt.Fprintf(&b, " (at %q)", d.Text)
	}
	if d.Hint != "" {
		fmt.Fprintf(&b, "\n\thint: %s", d.Hint)
	}
	return b.String()
}

// Diagnostics is a list of problems; as an error it reports them all.
type Diagnostics []Diagnostic

// Error joins every diagnostic, one per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.Error()
	}
	return strings.Join(lines, "\n")
}

// HasErrors reports whether any diagnostic is an error (not a warning).
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns only the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders diagnostics by file position, keeping the order of equal ones.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Offset < b.Offset
	})
}

// SourceText returns the text of src covered by the span, trimmed and with
// runs of white space folded to one space, for quoting in diagnostics. Long
// text is shortened.
func SourceText(src []byte, s Span) string {
	start, end := s.Start.Offset, s.End.Offset
	if start < 0 || end > len(src) || start >= end {
		return ""
	}
	text := strings.Join(strings.Fields(string(src[start:end])), " ")
	const max = 60
	if len(text) > max {
		text = text[:max-3] + "..."
	}
	return text
}

// Pretty formats the diagnostic like Error and, when the source is at hand,
// adds the offending line with a caret under the column:
//
//	prog.parley:3:24: error: undefined variable msgsze
//	    TASK 0 SENDS A msgsze BYTE MESSAGE TO TASK 1
//	                   ^~~~~~
//		hint: did you mean msgsize?
func (d Diagnostic) Pretty(src []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s", d.Pos, d.Severity, d.Msg)
	if line, ok := sourceLine(src, d.Pos); ok {
		width := 1
		if d.End.Line == d.Pos.Line && d.End.Col > d.Pos.Col {
			width = d.End.Col - d.Pos.Col
		}
		// Keep tabs so the caret lines up under tab-indented text.
		var pad strings.Builder
		for i, r := range []rune(line) {
			if i >= d.Pos.Col-1 {
				break
			}
			if r == '\t' {
				pad.WriteByte('\t')
			} else {
				pad.WriteByte(' ')
			}
		}
		fmt.Fprintf(&b, "\n    %s\n    %s^%s", line, pad.String(), strings.Repeat("~", width-1))
	} else if d.Text != "" {
		fmt.Fprintf(&b, " (at %q)", d.Text)
	}
	if d.Hint != "" {
		fmt.Fprintf(&b, "\n\thint: %s", d.Hint)
	}
	return b.String()
}

func sourceLine(src []byte, p Pos) (string, bool) {
	if !p.IsValid() || p.Offset > len(src) {
		return "", false
	}
	start := strings.LastIndexByte(string(src[:p.Offset]), '\n') + 1
	end := strings.IndexByte(string(src[p.Offset:]), '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += p.Offset
	}
	line := strings.TrimRight(string(src[start:end]), "\r")
	if len(line) > 200 {
		return "", false
	}
	return line, true
}
