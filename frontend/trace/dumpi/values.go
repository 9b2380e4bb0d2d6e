package dumpi

import (
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// call gives typed access to a record's parameters, with errors placed in
// file.
type call struct {
	file string
	*record
}

func (c call) errorf(p *param, format string, args ...any) error {
	return trace.Errorf(c.file, p.line, p.col, format, args...)
}

// wellFormed reports a record line that is not a parameter line.
func (c call) wellFormed() error {
	if b := c.bad; b != nil {
		return trace.Errorf(c.file, b.line, b.col, "unexpected line %s in the %s record begun at line %d: expected a parameter line %q or %q",
			quote(b.value), c.name, c.line, "TYPE NAME=VALUE", c.name+" returning at walltime ...")
	}
	return nil
}

// get returns the parameter called name.
func (c call) get(name string) (*param, error) {
	for i := range c.params {
		if c.params[i].name == name {
			return &c.params[i], nil
		}
	}
	return nil, trace.Errorf(c.file, c.line, 1, "%s record has no parameter %s: expected a line %q before %q",
		c.name, name, name+"=VALUE", c.name+" returning")
}

// has reports whether the record has a parameter called name.
func (c call) has(name string) bool {
	for i := range c.params {
		if c.params[i].name == name {
			return true
		}
	}
	return false
}

// int reads "%d" or "%d (LABEL)" and returns the number and the label.
func (c call) labelled(name string) (int64, string, *param, error) {
	p, err := c.get(name)
	if err != nil {
		return 0, "", nil, err
	}
	num, label, hasLabel := strings.Cut(p.value, " ")
	if hasLabel {
		if !strings.HasPrefix(label, "(") || !strings.HasSuffix(label, ")") {
			return 0, "", p, c.errorf(p, "%s %s=%s: expected an integer, optionally followed by a name in parentheses", p.typ, name, quote(p.value))
		}
		label = label[1 : len(label)-1]
	}
	v, err := strconv.ParseInt(num, 10, 32)
	if err != nil {
		return 0, "", p, c.errorf(p, "%s %s=%s: expected a 32-bit integer", p.typ, name, quote(p.value))
	}
	return v, label, p, nil
}

// int reads an integer parameter.
func (c call) int(name string) (int64, *param, error) {
	v, _, p, err := c.labelled(name)
	return v, p, err
}

// count reads a non-negative integer parameter.
func (c call) count(name string) (int64, error) {
	v, p, err := c.int(name)
	if err == nil && v < 0 {
		err = c.errorf(p, "%s=%d is negative: expected a count of zero or more", name, v)
	}
	return v, err
}

// ints reads an int array "[a, b, c]" of want elements (any number if
// want < 0). It returns nil for "<IGNORED>".
func (c call) ints(name string, want int) ([]int64, *param, error) {
	p, err := c.get(name)
	if err != nil {
		return nil, nil, err
	}
	if p.value == "<IGNORED>" {
		return nil, p, nil
	}
	v, err := parseInts(p.value, want, maxArray)
	if err != nil {
		return nil, p, c.errorf(p, "%s %s: %v", p.typ, name, err)
	}
	return v, p, nil
}

// ranges reads a two-dimensional int array "[[a, b, c], [d, e, f]]" of
// rows of width elements each.
func (c call) ranges(name string, rows, width int) ([][]int64, *param, error) {
	p, err := c.get(name)
	if err != nil {
		return nil, nil, err
	}
	if p.value == "<IGNORED>" {
		return nil, p, nil
	}
	v := p.value
	if !strings.HasPrefix(v, "[[") || !strings.HasSuffix(v, "]]") {
		return nil, p, c.errorf(p, "%s %s=%s: expected rows %q", p.typ, name, quote(v), "[[a, b, c], [d, e, f]]")
	}
	parts := strings.Split(v[1:len(v)-1], ", [")
	if len(parts) != rows {
		return nil, p, c.errorf(p, "%s %s has %d rows: expected %d", p.typ, name, len(parts), rows)
	}
	out := make([][]int64, 0, rows)
	for i, part := range parts {
		if i > 0 {
			part = "[" + part
		}
		row, err := parseInts(part, width, width)
		if err != nil {
			return nil, p, c.errorf(p, "%s %s row %d: %v", p.typ, name, i, err)
		}
		out = append(out, row)
	}
	return out, p, nil
}

type valueError string

func (e valueError) Error() string { return string(e) }

// parseInts reads "[a, b, c]" holding want elements (any number up to
// limit if want < 0).
func parseInts(v string, want, limit int) ([]int64, error) {
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, valueError("value " + quote(v) + " is not an array: expected \"[a, b, ...]\" or \"<IGNORED>\"")
	}
	v = v[1 : len(v)-1]
	bound := limit
	if want >= 0 {
		bound = min(want, limit)
	}
	out := make([]int64, 0, min(bound, 1024))
	if v == "" {
		if want > 0 {
			return nil, valueError("array is empty: expected " + strconv.Itoa(want) + " elements")
		}
		return out, nil
	}
	for v != "" {
		elem, rest, more := strings.Cut(v, ", ")
		x, err := strconv.ParseInt(elem, 10, 32)
		if err != nil {
			return nil, valueError("element " + quote(elem) + " is not a 32-bit integer")
		}
		out = append(out, x)
		if len(out) > bound {
			return nil, valueError("array has more than " + strconv.Itoa(bound) + " elements")
		}
		if more && rest == "" {
			return nil, valueError("array ends in a comma")
		}
		v = rest
	}
	if want >= 0 && len(out) != want {
		return nil, valueError("array has " + strconv.Itoa(len(out)) + " elements: expected " + strconv.Itoa(want))
	}
	return out, nil
}
