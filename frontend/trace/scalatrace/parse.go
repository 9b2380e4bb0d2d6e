package scalatrace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// maxLine bounds one line of a trace: long rank and value lists make for
// long lines, but not this long.
const maxLine = 64 << 20

// record is one RSD of the trace, as read.
type record struct {
	line   int // the RANKS line
	ranks  rankList
	event  int // k of EVENT<k>
	opcode int
	opLine int
	opCol  int
	sig    string
	// comp is the computation before the call, per statistic (0: 4b
	// microseconds, 1: 4c instructions): samples, their sum, and the line
	// of the last COMP line.
	comp [2]struct {
		n, sum float64
		line   int
	}
	loops  []loopSpec
	params map[int][]values
}

// loopSpec is one LOOP<d> line.
type loopSpec struct {
	depth     int
	line      int
	iter, mem []values
}

// values is a list of integers, for the ranks in ranks (nil: every rank).
type values struct {
	v     []int64
	ranks rankList
	line  int
	col   int
}

// find returns the values for rank r, or nil.
func findValues(groups []values, r int, memo map[*values][]int32) *values {
	for i := range groups {
		g := &groups[i]
		if g.ranks == nil {
			return g
		}
		in, ok := memo[g]
		if !ok {
			in = g.ranks.members()
			memo[g] = in
		}
		if _, found := slices.BinarySearch(in, int32(r)); found {
			return g
		}
	}
	return nil
}

// parse reads every record of the trace.
func parse(name string, r io.Reader) ([]*record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var recs []*record
	var cur *record
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			cur = nil
			continue
		}
		c := &cursor{file: name, line: line, toks: tokenize(text), end: len(text) + 1}
		head := c.peek()
		switch {
		case head == "RANKS:":
			if cur != nil {
				return nil, c.errorf("RANKS starts a new record, which needs a blank line before it")
			}
			c.i++
			rl, err := parseRankList(c)
			if err != nil {
				return nil, err
			}
			if !c.done() {
				return nil, c.errorf("unexpected %s after the rank list", c.found())
			}
			cur = &record{line: line, ranks: rl, params: map[int][]values{}}
			recs = append(recs, cur)
		case cur == nil:
			return nil, c.errorf("expected a record's \"RANKS:\" line, found %s", c.found())
		case strings.HasPrefix(head, "EVENT") && strings.HasSuffix(head, ":"):
			if cur.opLine != 0 {
				return nil, c.errorf("a second EVENT line in the record of line %d", cur.line)
			}
			k, err := strconv.Atoi(head[len("EVENT") : len(head)-1])
			if err != nil || k < 0 {
				return nil, c.errorf("expected EVENT<number>:, found %s", c.found())
			}
			c.i++
			cur.event = k
			cur.opCol = c.col()
			op, err := c.int("an opcode")
			if err != nil {
				return nil, err
			}
			if op < 0 || op > 1<<20 {
				c.i--
				return nil, c.errorf("opcode %d is out of range", op)
			}
			cur.opcode, cur.opLine = int(op), line
			if c.done() {
				return nil, c.errorf("expected the event's stack signature after the opcode")
			}
			cur.sig = c.peek()
			c.i++
		case head == "COMP" || head == "COMM":
			if err := parseStat(c, cur); err != nil {
				return nil, err
			}
		case strings.HasPrefix(head, "LOOP") && strings.HasSuffix(head, ":"):
			if err := parseLoop(c, cur); err != nil {
				return nil, err
			}
		default:
			if cur.opLine == 0 {
				return nil, c.errorf("expected the record's EVENT line, found %s", c.found())
			}
			if err := parseParam(c, cur); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, trace.Errorf(name, line+1, 1, "line longer than %d bytes", maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, rec := range recs {
		if rec.opLine == 0 {
			return nil, trace.Errorf(name, rec.line, 1, "the record has no EVENT line")
		}
	}
	if len(recs) == 0 {
		return nil, trace.Errorf(name, line+1, 1, "no records: a ScalaTrace trace starts with a \"RANKS:\" line")
	}
	return recs, nil
}

// parseStat reads "COMP|COMM 4b-i: sig (n avg minrank min maxrank max){...}..."
// and keeps COMP's sample count and sum.
func parseStat(c *cursor, rec *record) error {
	kind := c.peek()
	c.i++
	st := c.peek()
	if len(st) < 4 || st[0] != '4' || (st[1] != 'b' && st[1] != 'c') || st[2] != '-' || !strings.HasSuffix(st, ":") {
		return c.errorf("expected a statistic such as 4b-0: (4b microseconds, 4c instructions), found %s", c.found())
	}
	c.i++
	if c.done() || c.peek() == "(" {
		return c.errorf("expected the previous event's signature, found %s", c.found())
	}
	c.i++
	if err := c.expect("("); err != nil {
		return err
	}
	n, err := c.float("the sample count")
	if err != nil {
		return err
	}
	avg, err := c.float("the mean")
	if err != nil {
		return err
	}
	if n < 0 || n > 1e15 || avg < 0 || avg > 1e15 {
		return c.errorf("a statistic's count and mean must be non-negative and below 1e15, found %g and %g", n, avg)
	}
	if kind == "COMM" {
		return nil
	}
	k := 0
	if st[1] == 'c' {
		k = 1
	}
	rec.comp[k].n += n
	rec.comp[k].sum += n * avg
	rec.comp[k].line = c.line
	return nil
}

// parseLoop reads "LOOP<d>: iter: ( n )[ranks]... mem: ( m )[ranks]...".
func parseLoop(c *cursor, rec *record) error {
	head := c.peek()
	d, err := strconv.Atoi(head[len("LOOP") : len(head)-1])
	if err != nil || d < 0 || d > 64 {
		return c.errorf("expected LOOP<depth>: with depth 0..64, found %s", c.found())
	}
	if d != len(rec.loops) {
		return c.errorf("LOOP%d follows %d LOOP lines in this record; depths count up from LOOP0", d, len(rec.loops))
	}
	c.i++
	spec := loopSpec{depth: d, line: c.line}
	if err := c.expect("iter:"); err != nil {
		return err
	}
	if spec.iter, err = parseGroups(c, "mem:"); err != nil {
		return err
	}
	if err := c.expect("mem:"); err != nil {
		return err
	}
	if spec.mem, err = parseGroups(c, ""); err != nil {
		return err
	}
	if len(spec.iter) == 0 || len(spec.mem) == 0 {
		return c.errorf("a LOOP line needs iter: and mem: groups such as ( 4 )[ 1 -1 0 4 1 ]")
	}
	for _, g := range append(append([]values(nil), spec.iter...), spec.mem...) {
		if len(g.v) != 1 {
			return trace.Errorf(c.file, c.line, g.col, "a loop's iter and mem groups hold one number each, found %d", len(g.v))
		}
	}
	rec.loops = append(rec.loops, spec)
	return nil
}

// parseGroups reads "( v... )[ ranklist ]" groups until stop or the end.
func parseGroups(c *cursor, stop string) ([]values, error) {
	var gs []values
	for !c.done() && c.peek() != stop {
		col := c.col()
		if err := c.expect("("); err != nil {
			return nil, err
		}
		var v []int64
		for c.peek() != ")" {
			x, err := c.int("a value or \")\"")
			if err != nil {
				return nil, err
			}
			v = append(v, x)
		}
		c.i++
		if err := c.expect("["); err != nil {
			return nil, err
		}
		rl, err := parseRankList(c)
		if err != nil {
			return nil, err
		}
		if err := c.expect("]"); err != nil {
			return nil, err
		}
		if len(v) == 0 {
			return nil, trace.Errorf(c.file, c.line, col, "an empty value list ( )")
		}
		gs = append(gs, values{v: v, ranks: rl, line: c.line, col: col})
	}
	return gs, nil
}

// parseParam reads "<hex code> v..." or "<hex code> ( v... )[ranks]...".
func parseParam(c *cursor, rec *record) error {
	code, err := strconv.ParseUint(c.peek(), 16, 16)
	if err != nil {
		return c.errorf("expected a parameter line \"<hex code> <values>\", a LOOP, COMP or COMM line, found %s", c.found())
	}
	c.i++
	if c.peek() == "(" {
		gs, err := parseGroups(c, "")
		if err != nil {
			return err
		}
		rec.params[int(code)] = append(rec.params[int(code)], gs...)
		return nil
	}
	g := values{line: c.line, col: c.col()}
	for !c.done() {
		x, err := c.int("a parameter value")
		if err != nil {
			return err
		}
		g.v = append(g.v, x)
	}
	if len(g.v) == 0 {
		return c.errorf("parameter %x has no value", code)
	}
	if len(rec.params[int(code)]) > 0 {
		return c.errorf("parameter %x is given twice", code)
	}
	rec.params[int(code)] = []values{g}
	return nil
}
