package partition

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// SyntaxError is a fault in a METIS graph file, at a 1-based line and
// column (column 0 when the fault is the line as a whole). Its message reads
// "LINE:COL: what", so that a caller can prefix the file name.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// ReadMETIS reads a graph in the METIS graph file format, as gpmetis reads
// it: lines starting with % are comments; the header is "n m [fmt [ncon]]";
// then one line per vertex (an empty line is a vertex without neighbours)
// listing, if fmt's hundreds digit is 1, the vertex size (Graph.VSize), if
// its tens digit is 1, the vertex weight, then its neighbours numbered from
// 1, each followed by the edge weight if fmt's units digit is 1. m counts
// every edge once. fmt's digits are 0 or 1 (written with or without leading
// zeros); several weights per vertex (ncon > 1) are not supported. Weights
// and sizes must be >= 0.
//
// The graph must be valid (see Validate). A fault in the text is a
// *SyntaxError with the line and column of the fault (the line of the
// vertex at fault, for faults Validate finds); an error reading r is
// returned wrapped, with the last line read.
func ReadMETIS(r io.Reader) (*Graph, error) {
	lr := &lineReader{r: bufio.NewReaderSize(r, 1<<16)}
	// The header.
	line, err := lr.next()
	if err != nil {
		return nil, lr.eof(err, "before the header; a METIS graph starts with the line \"n m [fmt [ncon]]\"")
	}
	fields := splitFields(line)
	if len(fields) < 2 || len(fields) > 4 {
		return nil, lr.fail(-1, "the header has %d fields; want \"n m [fmt [ncon]]\"", len(fields))
	}
	var hdr [4]int64
	names := [4]string{"the vertex count n", "the edge count m", "fmt", "ncon"}
	for i, f := range fields {
		v, ok := parseInt(line[f.start:f.end])
		if !ok || v < 0 {
			return nil, lr.fail(f.start, "%s is %q; want a whole number >= 0", names[i], line[f.start:f.end])
		}
		hdr[i] = v
	}
	n, m := hdr[0], hdr[1]
	if n >= math.MaxInt32 {
		return nil, lr.fail(fields[0].start, "%d vertices; at most 2^31-2 are supported", n)
	}
	if 2*m > math.MaxInt32 {
		return nil, lr.fail(fields[1].start, "%d edges; at most 2^30-1 are supported", m)
	}
	var edgeW, vertexW, vertexS bool
	if len(fields) >= 3 {
		fmtCode := line[fields[2].start:fields[2].end]
		switch hdr[2] {
		case 0, 1, 10, 11, 100, 101, 110, 111:
			edgeW, vertexW, vertexS = hdr[2]%10 == 1, hdr[2]/10%10 == 1, hdr[2]/100 == 1
		default:
			return nil, lr.fail(fields[2].start, "fmt %s is not supported; use three binary digits: vertex sizes, vertex weights, edge weights (0, 1, 10, 11, 100, 101, 110 or 111)", fmtCode)
		}
	}
	if len(fields) == 4 && hdr[3] != 1 {
		if !vertexW {
			return nil, lr.fail(fields[3].start, "ncon %d is given but fmt %d has no vertex weights; drop it", hdr[3], hdr[2])
		}
		return nil, lr.fail(fields[3].start, "ncon %d: only one weight per vertex is supported", hdr[3])
	}

	g := &Graph{XAdj: make([]int32, 1, min(n, 1<<20)+1)}
	capAdj := min(2*m, 1<<22)
	g.Adj = make([]int32, 0, capAdj)
	if edgeW {
		g.AdjW = make([]int64, 0, capAdj)
	}
	if vertexW {
		g.VW = make([]int64, 0, min(n, 1<<20))
	}
	if vertexS {
		g.VSize = make([]int64, 0, min(n, 1<<20))
	}
	lines := make([]int32, 0, min(n, 1<<20)) // each vertex's line, for errors found later
	for v := int64(0); v < n; v++ {
		line, err := lr.next()
		if err != nil {
			return nil, lr.eof(err, fmt.Sprintf("before vertex %d of %d; every vertex needs a line (empty when it has no neighbours)", v+1, n))
		}
		lines = append(lines, int32(lr.line))
		fields := splitFields(line)
		if vertexS {
			if len(fields) == 0 {
				return nil, lr.fail(-1, "vertex %d has no size; with fmt %d each vertex line starts with its size", v+1, hdr[2])
			}
			f := fields[0]
			s, ok := parseInt(line[f.start:f.end])
			if !ok || s < 0 {
				return nil, lr.fail(f.start, "vertex %d has size %q; want a whole number >= 0", v+1, line[f.start:f.end])
			}
			g.VSize = append(g.VSize, s)
			fields = fields[1:]
		}
		if vertexW {
			if len(fields) == 0 {
				return nil, lr.fail(-1, "vertex %d has no weight; with fmt %d each vertex line starts with its weight", v+1, hdr[2])
			}
			f := fields[0]
			w, ok := parseInt(line[f.start:f.end])
			if !ok || w < 0 {
				return nil, lr.fail(f.start, "vertex %d has weight %q; want a whole number >= 0", v+1, line[f.start:f.end])
			}
			g.VW = append(g.VW, w)
			fields = fields[1:]
		}
		if edgeW && len(fields)%2 != 0 {
			f := fields[len(fields)-1]
			return nil, lr.fail(f.start, "vertex %d: neighbour %s has no edge weight; with fmt %d neighbours come in pairs \"neighbour weight\"", v+1, line[f.start:f.end], hdr[2])
		}
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			u, ok := parseInt(line[f.start:f.end])
			if !ok || u < 1 || u > n {
				return nil, lr.fail(f.start, "vertex %d: neighbour %q is not a vertex number 1..%d", v+1, line[f.start:f.end], n)
			}
			if len(g.Adj) >= int(2*m) {
				return nil, lr.fail(f.start, "vertex %d: more neighbour entries than the header's %d edges allow (each edge is listed at both ends, 2m entries in all)", v+1, m)
			}
			g.Adj = append(g.Adj, int32(u-1))
			if edgeW {
				i++
				f := fields[i]
				w, ok := parseInt(line[f.start:f.end])
				if !ok || w < 0 {
					return nil, lr.fail(f.start, "vertex %d: edge weight %q; want a whole number >= 0", v+1, line[f.start:f.end])
				}
				g.AdjW = append(g.AdjW, w)
			}
		}
		g.XAdj = append(g.XAdj, int32(len(g.Adj)))
	}
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, lr.eof(err, "")
		}
		if fs := splitFields(line); len(fs) > 0 {
			return nil, lr.fail(fs[0].start, "text after the last of the header's %d vertices; fix the vertex count n", n)
		}
	}
	// A fault in the lists usually makes the edge count wrong too; naming
	// the vertex at fault is the more useful message, so it comes first.
	if v, msg := g.check(1); msg != "" {
		at := 1
		if v >= 0 {
			at = int(lines[v])
			msg = fmt.Sprintf("vertex %d: %s", v+1, msg)
		}
		return nil, &SyntaxError{Line: at, Msg: msg}
	}
	if int64(len(g.Adj)) != 2*m {
		return nil, &SyntaxError{Line: 1, Msg: fmt.Sprintf("the header says %d edges but the lists hold %d entries, %d edges when each is listed at both ends; fix the header or the lists", m, len(g.Adj), len(g.Adj)/2)}
	}
	return g, nil
}

// lineReader hands out the lines of a file, skipping % comments, however
// long the lines are.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int // the number of the line last returned
}

// next returns the next line that is not a comment, without its end of
// line; io.EOF at the end of the input.
func (lr *lineReader) next() ([]byte, error) {
	for {
		lr.buf = lr.buf[:0]
		for {
			chunk, isPrefix, err := lr.r.ReadLine()
			if err != nil {
				if errors.Is(err, io.EOF) && len(lr.buf) > 0 {
					break
				}
				return nil, err
			}
			lr.buf = append(lr.buf, chunk...)
			if !isPrefix {
				break
			}
		}
		lr.line++
		if len(lr.buf) > 0 && lr.buf[0] == '%' {
			continue
		}
		return lr.buf, nil
	}
}

// eof turns an error from next into the error to return: for the end of
// the input, a *SyntaxError saying the file ends where (unless where is
// empty, when the end is expected and eof is not called for it); for a read
// error, that error wrapped with the line.
func (lr *lineReader) eof(err error, where string) error {
	if errors.Is(err, io.EOF) && where != "" {
		return &SyntaxError{Line: lr.line + 1, Msg: "the file ends " + where}
	}
	return fmt.Errorf("partition: reading the METIS graph after line %d: %w", lr.line, err)
}

// fail makes a *SyntaxError at the current line; col is the 0-based byte
// offset in the line, or -1 for the line as a whole.
func (lr *lineReader) fail(col int, format string, args ...any) error {
	c := col + 1
	line := lr.line
	if line == 0 {
		line = 1
	}
	return &SyntaxError{Line: line, Col: c, Msg: fmt.Sprintf(format, args...)}
}

type field struct{ start, end int }

// splitFields returns the spans of the space- or tab-separated fields of
// line.
func splitFields(line []byte) []field {
	var fs []field
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
			j++
		}
		fs = append(fs, field{i, j})
		i = j
	}
	return fs
}

// parseInt parses a decimal integer of at most 18 digits, with an optional
// sign.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// WriteMETIS writes g in the METIS graph file format that ReadMETIS and
// gpmetis read: fmt 1 if it has edge weights, plus 10 if vertex weights,
// plus 100 if vertex sizes. g must be valid and have no Sends: the format
// has no direction.
func WriteMETIS(w io.Writer, g *Graph) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("partition: WriteMETIS: %w", err)
	}
	if g.Sends != nil {
		return errors.New("partition: WriteMETIS: the graph has directions (Sends), which the METIS format cannot hold; set Sends to nil to write it with data flowing both ways")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	n := g.N()
	code := 0
	if g.VSize != nil {
		code += 100
	}
	if g.VW != nil {
		code += 10
	}
	if g.AdjW != nil {
		code++
	}
	if code != 0 {
		fmt.Fprintf(bw, "%d %d %d\n", n, len(g.Adj)/2, code)
	} else {
		fmt.Fprintf(bw, "%d %d\n", n, len(g.Adj)/2)
	}
	var buf []byte
	for v := 0; v < n; v++ {
		buf = buf[:0]
		if g.VSize != nil {
			buf = strconv.AppendInt(buf, g.VSize[v], 10)
		}
		if g.VW != nil {
			if len(buf) > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, g.VW[v], 10)
		}
		for p := g.XAdj[v]; p < g.XAdj[v+1]; p++ {
			if len(buf) > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, int64(g.Adj[p])+1, 10)
			if g.AdjW != nil {
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, g.AdjW[p], 10)
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("partition: WriteMETIS: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("partition: WriteMETIS: %w", err)
	}
	return nil
}
