package logfile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// File is one task's log.
type File struct {
	Header []KV // comment lines of the prologue, in order
	Source string
	Tables []Table
	Footer []KV
}

// KV is a `# key: value` comment line.
type KV struct{ Key, Value string }

// Table is one top-level statement's table.
type Table struct {
	Columns []Column
}

// Column is one column of a table. Rows are formatted numbers; an empty
// string is an empty cell. A histogram column has two cells per row,
// value and tally, and two headings.
type Column struct {
	Heading string
	Label   string // "(all data)", "(median)", ...
	Hist    bool
	Rows    []string
}

// Number formats a value as coNCePTuaL logs and prints it: C's "%.10g",
// with glibc's spellings "inf", "-inf", "nan" and "-nan" (a NaN whose sign
// bit is set, as x86's 0/0 is).
func Number(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v) && math.Signbit(v):
		return "-nan"
	case math.IsNaN(v):
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

const rule = "###########################################################################"

// Write writes f in coNCePTuaL's format.
func (f *File) Write(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, rule)
	fmt.Fprintln(b, "# ===================")
	fmt.Fprintln(b, "# coNCePTuaL log file")
	fmt.Fprintln(b, "# ===================")
	for _, kv := range f.Header {
		fmt.Fprintf(b, "# %s: %s\n", comment(kv.Key), comment(kv.Value))
	}
	if f.Source != "" {
		fmt.Fprintln(b, "#")
		fmt.Fprintln(b, "# coNCePTuaL source code")
		fmt.Fprintln(b, "# ----------------------")
		for _, line := range strings.Split(strings.TrimRight(f.Source, "\n"), "\n") {
			fmt.Fprintf(b, "#     %s\n", line)
		}
	}
	fmt.Fprintln(b, "#")
	fmt.Fprintln(b, rule)
	for i, t := range f.Tables {
		if i > 0 {
			fmt.Fprintln(b)
		}
		t.write(b)
	}
	fmt.Fprintln(b, rule)
	for _, kv := range f.Footer {
		if kv.Key == "" {
			fmt.Fprintf(b, "# %s\n", comment(kv.Value))
			continue
		}
		fmt.Fprintf(b, "# %s: %s\n", comment(kv.Key), comment(kv.Value))
	}
	fmt.Fprintln(b, rule)
	return b.Flush()
}

// comment makes s fit on one `#` comment line: each control character
// (a newline would end the comment and start a bogus table row) becomes a
// space. Comment lines are free text that coNCePTuaL's tools read
// verbatim, so they are flattened rather than escaped. The C run-time's
// pr_comment does the same.
func comment(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

// isControl reports the ASCII control characters, as C's iscntrl does in
// the C locale.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func (t *Table) write(b *bufio.Writer) {
	var heads, labs []string
	rows := 0
	for _, c := range t.Columns {
		h := quote(c.Heading)
		heads = append(heads, h)
		if c.Hist {
			heads = append(heads, h)
		}
		labs = append(labs, `"`+c.Label+`"`)
		n := len(c.Rows)
		if c.Hist {
			n /= 2
		}
		rows = max(rows, n)
	}
	fmt.Fprintln(b, strings.Join(heads, ","))
	fmt.Fprintln(b, strings.Join(labs, ","))
	for r := range rows {
		var cells []string
		for _, c := range t.Columns {
			switch {
			case c.Hist && 2*r+1 < len(c.Rows):
				cells = append(cells, c.Rows[2*r], c.Rows[2*r+1])
			case c.Hist:
				cells = append(cells, "", "")
			case r < len(c.Rows):
				cells = append(cells, c.Rows[r])
			default:
				cells = append(cells, "")
			}
		}
		fmt.Fprintln(b, strings.Join(cells, ","))
	}
}

// quote writes a heading as coNCePTuaL does: in double quotes, with a
// backslash before each backslash and double quote. coNCePTuaL writes
// control characters as they are, so a newline in a heading splits the
// row; here each becomes a backslash and three octal digits, as
// coNCePTuaL writes the control characters of the command line it logs.
// The escape cannot be confused with coNCePTuaL's: its headings never
// hold a backslash that is not doubled. splitCSV undoes both, and the C
// run-time's pr_quoted writes the same bytes.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case isControl(rune(c)):
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Read parses a log file written by Write or by coNCePTuaL.
func Read(r io.Reader) (*File, error) {
	f := &File{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	section := 0 // 0 prologue, 1 tables, 2 epilogue
	inSource := false
	lineNo := 0
	var tableLines []string
	flush := func() error {
		if len(tableLines) == 0 {
			return nil
		}
		t, err := parseTable(tableLines)
		if err != nil {
			return fmt.Errorf("line %d: %w", lineNo, err)
		}
		f.Tables = append(f.Tables, *t)
		tableLines = nil
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if line == rule {
			if section == 1 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			if section < 2 && lineNo > 1 {
				section++
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			body := strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ")
			switch {
			case section == 0 && body == "coNCePTuaL source code":
				inSource = true
			case section == 0 && inSource && strings.HasPrefix(body, "    "):
				f.Source += strings.TrimPrefix(body, "    ") + "\n"
			case section == 0 && (strings.HasPrefix(body, "=") || strings.HasPrefix(body, "-") || body == "" || body == "coNCePTuaL log file"):
			default:
				k, v, ok := strings.Cut(body, ": ")
				if !ok {
					k, v = "", body
				}
				if section == 2 {
					f.Footer = append(f.Footer, KV{k, v})
				} else if !inSource {
					f.Header = append(f.Header, KV{k, v})
				}
			}
			continue
		}
		if section != 1 {
			continue
		}
		if line == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		tableLines = append(tableLines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return f, nil
}

// parseTable reads the heading row, the label row and the data rows.
func parseTable(lines []string) (*Table, error) {
	if len(lines) < 2 {
		return nil, fmt.Errorf("a table needs a heading row and a label row")
	}
	heads := splitCSV(lines[0])
	labs := splitCSV(lines[1])
	t := &Table{}
	col := 0
	for _, l := range labs {
		if l == "(hist. values)" {
			continue
		}
		c := Column{Label: l, Hist: l == "(hist. tallies)"}
		if c.Hist {
			c.Label = `(hist. values)","(hist. tallies)`
		}
		if col < len(heads) {
			c.Heading = heads[col]
		}
		col++
		if c.Hist {
			col++
		}
		t.Columns = append(t.Columns, c)
	}
	for _, line := range lines[2:] {
		cells := splitCSV(line)
		i := 0
		for ci := range t.Columns {
			c := &t.Columns[ci]
			take := 1
			if c.Hist {
				take = 2
			}
			for k := 0; k < take && i < len(cells); k++ {
				if cells[i] != "" {
					c.Rows = append(c.Rows, cells[i])
				}
				i++
			}
		}
	}
	return t, nil
}

// splitCSV splits a row on commas outside double quotes and unquotes:
// inside quotes, a backslash and three octal digits is that byte (see
// quote), and a backslash before anything else keeps that character.
func splitCSV(line string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quoted && ch == '\\' && i+3 < len(line) && isOctal(line[i+1:i+4]):
			cur.WriteByte((line[i+1]-'0')<<6 | (line[i+2]-'0')<<3 | (line[i+3] - '0'))
			i += 3
		case quoted && ch == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case ch == '"':
			quoted = !quoted
		case ch == ',' && !quoted:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	return append(out, cur.String())
}

// isOctal reports whether s is three octal digits that make a byte.
func isOctal(s string) bool {
	return s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7'
}
