package partition

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// sameGraph reports whether a and b have the same rows and weights.
func sameGraph(a, b *Graph) bool {
	return slices.Equal(a.XAdj, b.XAdj) && slices.Equal(a.Adj, b.Adj) &&
		slices.Equal(a.AdjW, b.AdjW) && slices.Equal(a.VW, b.VW) && slices.Equal(a.VSize, b.VSize)
}

func TestMETISRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *Graph
	}{
		{"plain", grid2D(7, 5)},
		{"edge weights", FromEdges(4, []Edge{{0, 1, 5}, {1, 2, 0}, {2, 3, 7}, {3, 0, 1}})},
		{"vertex weights", func() *Graph { g := grid2D(3, 3); g.VW = []int64{1, 2, 3, 4, 0, 6, 7, 8, 9}; return g }()},
		{"both, with an isolated vertex", withWeights(disjoint(1, grid3D(3, 3, 2)), 9, 9, 1)},
		{"empty", &Graph{XAdj: []int32{0}}},
		{"sizes", func() *Graph { g := grid2D(2, 2); g.VSize = []int64{8, 0, 3, 1}; return g }()},
		{"sizes and both weights", func() *Graph { g := withWeights(grid2D(3, 2), 9, 9, 2); g.VSize = []int64{1, 2, 3, 4, 5, 6}; return g }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteMETIS(&buf, tc.g); err != nil {
				t.Fatal(err)
			}
			g, err := ReadMETIS(&buf)
			if err != nil {
				t.Fatalf("reading back what WriteMETIS wrote: %v", err)
			}
			if !sameGraph(g, tc.g) {
				t.Fatalf("round trip changed the graph:\n got %+v\nwant %+v", g, tc.g)
			}
		})
	}
}

func TestReadMETISFormat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     *Graph
	}{
		{
			"comments, tabs, CRLF, fmt with a leading zero, an empty line for an isolated vertex",
			"% a comment\r\n3 1 01\r\n\t2 5\r\n% between vertices\n1  5\n\n",
			&Graph{XAdj: []int32{0, 1, 2, 2}, Adj: []int32{1, 0}, AdjW: []int64{5, 5}},
		},
		{
			"vertex and edge weights with ncon 1, no final newline",
			"3 2 011 1\n2 2 4 3 9\n3 1 4\n0 1 9",
			&Graph{XAdj: []int32{0, 2, 3, 4}, Adj: []int32{1, 2, 0, 0}, AdjW: []int64{4, 9, 4, 9}, VW: []int64{2, 3, 0}},
		},
		{
			"vertex sizes, weights and edge weights",
			"2 1 111\n8 4 2 3\n0 5 1 3\n",
			&Graph{XAdj: []int32{0, 1, 2}, Adj: []int32{1, 0}, AdjW: []int64{3, 3}, VW: []int64{4, 5}, VSize: []int64{8, 0}},
		},
		{
			"vertex weights only",
			"2 1 10\n4 2\n5 1\n",
			&Graph{XAdj: []int32{0, 1, 2}, Adj: []int32{1, 0}, VW: []int64{4, 5}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadMETIS(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !sameGraph(g, tc.want) {
				t.Fatalf("got %+v\nwant %+v", g, tc.want)
			}
		})
	}
}

// TestReadMETISErrors checks that every kind of fault is reported at its
// line and column, with a message that says what is wrong.
func TestReadMETISErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		line, col int
		want      string
	}{
		{"empty file", "", 1, 0, "ends before the header"},
		{"only comments", "% nothing\n", 2, 0, "ends before the header"},
		{"short header", "5\n", 1, 0, "header has 1 fields"},
		{"long header", "1 0 0 1 7\n\n", 1, 0, "header has 5 fields"},
		{"bad n", "x 0\n", 1, 1, "vertex count n is \"x\""},
		{"negative m", "2 -1\n", 1, 3, "edge count m is \"-1\""},
		{"fmt 2", "1 0 2\n\n", 1, 5, "fmt 2 is not supported"},
		{"fmt 1000", "1 0 1000\n\n", 1, 5, "fmt 1000 is not supported"},
		{"missing size", "2 1 100\n\n1\n", 2, 0, "vertex 1 has no size"},
		{"negative size", "2 1 110\n-3 1 2\n1 1 1\n", 2, 1, "vertex 1 has size \"-3\""},
		{"ncon without vertex weights", "1 0 1 2\n\n", 1, 7, "no vertex weights"},
		{"ncon 2", "1 0 10 2\n1\n", 1, 8, "only one weight per vertex"},
		{"too few vertex lines", "3 1\n2\n1\n", 4, 0, "ends before vertex 3 of 3"},
		{"neighbour out of range", "2 1\n2\n3\n", 3, 1, "neighbour \"3\" is not a vertex number 1..2"},
		{"neighbour zero", "2 1\n0\n1\n", 2, 1, "neighbour \"0\""},
		{"not a number", "2 1\n2x\n1\n", 2, 1, "neighbour \"2x\""},
		{"negative edge weight", "2 1 1\n2 -4\n1 -4\n", 2, 3, "edge weight \"-4\""},
		{"missing edge weight", "2 1 1\n2 3\n1\n", 3, 1, "neighbour 1 has no edge weight"},
		{"negative vertex weight", "2 1 10\n-1 2\n1 1\n", 2, 1, "vertex 1 has weight \"-1\""},
		{"missing vertex weight", "2 0 10\n1\n\n", 3, 0, "vertex 2 has no weight"},
		{"more entries than edges", "3 1\n2 3\n1\n1\n", 3, 1, "more neighbour entries than the header's 1 edges"},
		{"fewer entries than edges", "3 2\n2\n1\n\n", 1, 0, "header says 2 edges but the lists hold 2 entries"},
		{"text after the last vertex", "1 0\n\n7\n", 3, 1, "text after the last"},
		{"asymmetric", "3 1\n2\n3\n\n", 2, 0, "vertex 1: lists neighbour 2 but 2 does not list it"},
		{"asymmetric, wrong edge count", "3 1\n2\n\n\n", 2, 0, "vertex 1: lists neighbour 2 but 2 does not list it"},
		{"asymmetric the other way", "3 1\n\n3\n1\n", 2, 0, "vertex 1: is listed as a neighbour by vertex 3 but does not list 3"},
		{"unequal weights", "2 1 1\n2 3\n1 4\n", 2, 0, "vertex 1: edge to 2 has weight 3 here and 4 at 2"},
		{"self loop", "2 1\n1\n2\n", 2, 0, "vertex 1: has a self loop"},
		{"duplicate neighbour", "2 2\n2 2\n1 1\n", 2, 0, "lists neighbour 2 twice"},
		{"huge number", "1 0\n99999999999999999999\n", 2, 1, "neighbour \"99999999999999999999\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadMETIS(strings.NewReader(tc.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a *SyntaxError", err, err)
			}
			if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.want) {
				t.Fatalf("error %q at %d:%d, want %q at %d:%d", se.Msg, se.Line, se.Col, tc.want, tc.line, tc.col)
			}
		})
	}
}

// failingReader returns some bytes and then an error that is not EOF.
type failingReader struct{ data []byte }

var errDisk = errors.New("disk on fire")

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errDisk
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadMETISReadError(t *testing.T) {
	_, err := ReadMETIS(&failingReader{[]byte("3 2\n2\n")})
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "after line 2") {
		t.Fatalf("error %v, want the reader's error wrapped, after line 2", err)
	}
}

func TestWriteMETISRejectsInvalidGraphs(t *testing.T) {
	var buf bytes.Buffer
	err := WriteMETIS(&buf, &Graph{XAdj: []int32{0, 1, 1}, Adj: []int32{1}})
	if err == nil || !strings.Contains(err.Error(), "does not list it") {
		t.Fatalf("error %v, want the asymmetry named", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("wrote %q for an invalid graph", buf.String())
	}
	err = WriteMETIS(&buf, FromArcs(2, []Edge{{0, 1, 1}}))
	if err == nil || !strings.Contains(err.Error(), "cannot hold") || buf.Len() != 0 {
		t.Fatalf("error %v (wrote %q), want directions refused", err, buf.String())
	}
}

// FuzzReadMETIS reads arbitrary text: it must give a valid graph or a
// *SyntaxError, never panic, and what it reads must survive a round trip.
func FuzzReadMETIS(f *testing.F) {
	f.Add("3 2\n2\n1 3\n2\n")
	f.Add("% c\n3 1 01\n2 5\n1 5\n\n")
	f.Add("3 2 011 1\n2 2 4 3 9\n3 1 4\n0 1 9")
	f.Add("2 1 10\n4 2\n5 1\n")
	f.Add("2 1 111\n8 4 2 3\n0 5 1 3\n")
	f.Add("3 1\n\n\n2\n")
	f.Add("2 2\n2 2\n1 1\n")
	f.Add("1 0 100\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		g, err := ReadMETIS(strings.NewReader(in))
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 0 {
				t.Fatalf("error %v (%T), want a *SyntaxError with a position", err, err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("ReadMETIS accepted an invalid graph: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteMETIS(&buf, g); err != nil {
			t.Fatal(err)
		}
		h, err := ReadMETIS(&buf)
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.String())
		}
		if !sameGraph(g, h) {
			t.Fatal("round trip changed the graph")
		}
	})
}
