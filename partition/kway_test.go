package partition

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
)

// checkPartition fails t unless part assigns every vertex of g a part in
// [0, k) and cut is its cut.
func checkPartition(t testing.TB, g *Graph, k int, part []int32, cut int64) {
	t.Helper()
	if len(part) != g.N() {
		t.Fatalf("%d part numbers for %d vertices", len(part), g.N())
	}
	for v, p := range part {
		if p < 0 || int(p) >= k {
			t.Fatalf("vertex %d in part %d, outside [0, %d)", v, p, k)
		}
	}
	if c := g.Cut(part); c != cut {
		t.Fatalf("KWay reported cut %d, the partition's cut is %d", cut, c)
	}
}

// partWeights returns the weight of every part, the total vertex weight and
// the largest vertex weight.
func partWeights(g *Graph, k int, part []int32) (pw []int64, tvw, maxvw int64) {
	pw = make([]int64, k)
	for v, p := range part {
		w := int64(1)
		if g.VW != nil {
			w = g.VW[v]
		}
		pw[p] += w
		tvw += w
		maxvw = max(maxvw, w)
	}
	return pw, tvw, maxvw
}

// checkBalance fails t if a part is heavier than KWay promises: ub times
// the average part weight, or where the vertex weights rule that out, the
// average plus the heaviest vertex; with unit weights, ceil(average).
func checkBalance(t testing.TB, g *Graph, k int, part []int32, ub float64) {
	t.Helper()
	pw, tvw, maxvw := partWeights(g, k, part)
	avg := float64(tvw) / float64(k)
	limit := max(avg*ub, avg+float64(maxvw))
	if g.VW == nil {
		limit = max(math.Floor(avg*ub), math.Ceil(avg))
	}
	if k == g.N() {
		limit = max(limit, float64(maxvw))
	}
	for q, w := range pw {
		if float64(w) > limit+1e-9 {
			t.Fatalf("part %d weighs %d, above the limit %.2f (average %.2f, parts %v)", q, w, limit, avg, pw)
		}
	}
}

func TestKWayRejectsBadArguments(t *testing.T) {
	g := grid2D(4, 4)
	for _, tc := range []struct {
		name string
		g    *Graph
		k    int
		opts Options
		want string
	}{
		{"k=0", g, 0, Options{}, "at least 1"},
		{"k<0", g, -3, Options{}, "at least 1"},
		{"nil graph", nil, 2, Options{}, "nil graph"},
		{"k > n", g, 17, Options{}, "only 16 vertices; ask for at most 16 parts"},
		{"empty graph", &Graph{}, 1, Options{}, "only 0 vertices"},
		{"asymmetric", &Graph{XAdj: []int32{0, 1, 1}, Adj: []int32{1}}, 2, Options{}, "vertex 0: lists neighbour 1 but 1 does not list it"},
		{"negative vertex weight", &Graph{XAdj: []int32{0, 0, 0}, VW: []int64{1, -2}}, 2, Options{}, "vertex 1: weight -2 is negative"},
		{"negative edge weight", &Graph{XAdj: []int32{0, 1, 2}, Adj: []int32{1, 0}, AdjW: []int64{-1, -1}}, 2, Options{}, "vertex 0: edge to 1 has negative weight -1"},
		{"neighbour out of range", &Graph{XAdj: []int32{0, 1, 1}, Adj: []int32{5}}, 2, Options{}, "vertex 0: neighbour 5 is out of range 0..1"},
		{"XAdj too short", &Graph{XAdj: []int32{0, 1}, Adj: []int32{1, 0}}, 1, Options{}, "XAdj[1] is 1 but Adj has 2 entries"},
		{"AdjW too short", &Graph{XAdj: []int32{0, 1, 2}, Adj: []int32{1, 0}, AdjW: []int64{1}}, 2, Options{}, "AdjW has 1 entries, Adj 2"},
		{"negative imbalance", g, 2, Options{Imbalance: -0.1}, "Imbalance"},
		{"NaN imbalance", g, 2, Options{Imbalance: math.NaN()}, "Imbalance"},
		{"infinite imbalance", g, 2, Options{Imbalance: math.Inf(1)}, "Imbalance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := KWay(tc.g, tc.k, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("KWay error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestKWayTrivialCases(t *testing.T) {
	g := withWeights(grid2D(5, 4), 3, 3, 1)
	part, cut, err := KWay(g, 1, Options{})
	if err != nil || cut != 0 || slices.ContainsFunc(part, func(p int32) bool { return p != 0 }) {
		t.Fatalf("k=1: %v %d %v", part, cut, err)
	}
	part, cut, err = KWay(g, 20, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, g, 20, part, cut)
	for v, p := range part {
		if int(p) != v {
			t.Fatalf("k = n: vertex %d in part %d, want its own part %d", v, p, v)
		}
	}
	var total int64
	for _, w := range g.AdjW {
		total += w
	}
	if cut != total/2 {
		t.Fatalf("k = n: cut %d, want every edge, %d", cut, total/2)
	}
}

// TestKWayComponentsAndIsolatedVertices checks graphs of several
// components that can be split without cutting an edge.
func TestKWayComponentsAndIsolatedVertices(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *Graph
		k    int
	}{
		// Each part can take one whole component.
		{"4 equal components into 4", disjoint(0, grid2D(10, 10), grid2D(10, 10), grid2D(10, 10), grid2D(10, 10)), 4},
		{"isolated vertices only", FromEdges(1000, nil), 8},
		// Components that pack into two halves only with the isolated
		// vertices as filler (3600+1728+86 = 3000+2000+414 = 5414).
		{"components and filler", disjoint(500, grid2D(60, 60), grid3D(12, 12, 12), grid2D(60, 50), grid2D(50, 40)), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part, cut, err := KWay(tc.g, tc.k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkPartition(t, tc.g, tc.k, part, cut)
			checkBalance(t, tc.g, tc.k, part, 1.03)
			if cut != 0 {
				t.Errorf("cut %d, want 0", cut)
			}
		})
	}
}

// TestKWayEdgeless partitions graphs without edges, weighted and not,
// for both objectives: nothing is cut or sent, and the parts are as even
// as packing the heaviest vertices first makes them. Nets without pins
// change nothing; nets with pins are partitioned for their volume.
func TestKWayEdgeless(t *testing.T) {
	r := &rng{s: 5}
	weighted := FromEdges(1000, nil)
	weighted.VW = make([]int64, 1000)
	for v := range weighted.VW {
		weighted.VW[v] = 1 + int64(r.intn(50))
	}
	for _, obj := range []Objective{Cut, Volume} {
		for _, g := range []*Graph{FromEdges(1001, nil), weighted} {
			part, cut, err := KWay(g, 7, Options{Objective: obj})
			if err != nil {
				t.Fatal(err)
			}
			checkPartition(t, g, 7, part, cut)
			pw, tvw, maxvw := partWeights(g, 7, part)
			if heaviest, avg := slices.Max(pw), float64(tvw)/7; float64(heaviest) > avg+float64(maxvw) || g.VW == nil && float64(heaviest) > math.Ceil(avg) {
				t.Errorf("%v: parts %v; want none above the average %.1f plus the heaviest vertex %d, ceil(average) for unit weights", obj, pw, avg, maxvw)
			}
			if g.Volume(part) != 0 || cut != 0 {
				t.Errorf("%v: volume %d, cut %d; want 0", obj, g.Volume(part), cut)
			}
		}
	}
	// Two vertices each reading the other's data: they share a part.
	g := FromEdges(4, nil)
	g.Nets = &Nets{Src: []int32{0, 1}, Ptr: []int32{0, 1, 2}, Pins: []int32{1, 0}, Cost: []int64{5, 5}}
	part, _, err := KWay(g, 2, Options{Objective: Volume, Imbalance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if g.Volume(part) != 0 {
		t.Errorf("nets without edges: partition %v sends %d, want 0", part, g.Volume(part))
	}
}

func TestKWayZeroWeights(t *testing.T) {
	g := grid2D(12, 12)
	g.VW = make([]int64, g.N()) // no vertex weighs anything
	part, cut, err := KWay(g, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, g, 4, part, cut)

	g = withWeights(grid2D(12, 12), 4, 3, 2)
	for i := range g.AdjW {
		if g.AdjW[i] == 1 {
			g.AdjW[i] = 0 // free edges, the same both ways
		}
	}
	for v := range g.VW {
		if v%3 == 0 {
			g.VW[v] = 0
		}
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	part, cut, err = KWay(g, 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, g, 5, part, cut)
	checkBalance(t, g, 5, part, 1.03)
}

func TestKWayImbalanceOption(t *testing.T) {
	g := grid2D(40, 40)
	for _, imb := range []float64{0.001, 0.03, 0.2} {
		part, cut, err := KWay(g, 6, Options{Imbalance: imb})
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, g, 6, part, cut)
		checkBalance(t, g, 6, part, 1+imb)
	}
}

func TestKWayDeterministic(t *testing.T) {
	for _, g := range []*Graph{withWeights(randomGeometric(3000, 0.04, 9), 9, 4, 10), powerLaw(2000, 3, 11)} {
		for _, k := range []int{3, 16} {
			p1, c1, err := KWay(g, k, Options{Seed: 42})
			if err != nil {
				t.Fatal(err)
			}
			p2, c2, _ := KWay(g, k, Options{Seed: 42})
			if c1 != c2 || !slices.Equal(p1, p2) {
				t.Fatalf("k=%d: two runs with the same seed differ (cuts %d and %d)", k, c1, c2)
			}
		}
	}
	// The seed does steer the random choices.
	g := randomGeometric(3000, 0.04, 9)
	p1, _, _ := KWay(g, 8, Options{Seed: 1})
	p2, _, _ := KWay(g, 8, Options{Seed: 2})
	if slices.Equal(p1, p2) {
		t.Fatal("seeds 1 and 2 gave the same partition")
	}
}

// TestKWayCutQuality bounds the cut on grids whose optimal cuts are known,
// so that a loss of quality shows even where gpmetis is not installed.
func TestKWayCutQuality(t *testing.T) {
	for _, tc := range []struct {
		name    string
		g       *Graph
		k       int
		optimal int64
	}{
		{"grid2d-100x100", grid2D(100, 100), 2, 100},
		{"grid2d-100x100", grid2D(100, 100), 4, 200},
		{"grid3d-20x20x20", grid3D(20, 20, 20), 8, 1200},
	} {
		part, cut, err := KWay(tc.g, tc.k, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, tc.g, tc.k, part, cut)
		if float64(cut) > 1.3*float64(tc.optimal) {
			t.Errorf("%s into %d: cut %d, more than 1.3 times the optimal %d", tc.name, tc.k, cut, tc.optimal)
		}
	}
}

// randomSmallGraph draws a graph of 1 to 60 vertices, with or without
// vertex and edge weights (zero included), and a number of parts up to the
// vertex count.
func randomSmallGraph(r *rng) (*Graph, int) {
	n := 1 + r.intn(60)
	var es []Edge
	m := 0
	if n > 1 {
		m = r.intn(3 * n)
	}
	for i := 0; i < m; i++ {
		es = append(es, Edge{int32(r.intn(n)), int32(r.intn(n)), int64(r.intn(6))})
	}
	g := FromEdges(n, es)
	if r.intn(2) == 0 {
		g.AdjW = nil
	}
	if r.intn(2) == 0 {
		g.VW = make([]int64, n)
		for v := range g.VW {
			g.VW[v] = int64(r.intn(6))
		}
	}
	return g, 1 + r.intn(n)
}

func TestKWayRandomSmallGraphs(t *testing.T) {
	r := &rng{s: 7}
	for i := 0; i < 500; i++ {
		g, k := randomSmallGraph(r)
		part, cut, err := KWay(g, k, Options{Seed: uint64(i)})
		if err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
		checkPartition(t, g, k, part, cut)
		checkBalance(t, g, k, part, 1.03)
	}
}

// FuzzKWay partitions graphs built from the fuzzer's bytes: n, k and
// flags, then either edges as (u, v, w) triples and vertex weights, given
// to FromEdges, or (flag 4) raw compressed rows, which KWay must reject
// with an error or partition. The high bits of flags choose the allowed
// imbalance, 0 (the default) to 3.875; the high bits of n choose the Volume
// objective, with vertex sizes and directions. KWay must never panic, and a
// partition must be complete, within the balance limit and report its cut.
func FuzzKWay(f *testing.F) {
	f.Add([]byte{10, 3, 0, 0, 1, 1, 1, 2, 1, 2, 3, 1, 3, 4, 1})
	f.Add([]byte{30, 4, 3, 0, 1, 0, 5, 6, 9, 7, 7, 1, 29, 0, 2})
	f.Add([]byte{5, 9, 1})
	f.Add([]byte{0, 1, 0})
	f.Add([]byte{3, 2, 4, 0, 1, 2, 3, 1, 0, 2, 1})
	f.Add([]byte{3, 2, 4, 0, 1, 2, 2, 1, 2, 0, 1, 255, 1})
	f.Add([]byte{128 + 12, 3, 0, 0, 1, 1, 1, 2, 1, 2, 3, 1, 3, 4, 1, 5, 6, 2})
	f.Add([]byte{192 + 30, 4, 3, 0, 1, 0, 5, 6, 9, 7, 7, 1, 29, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		n, k, flags, data0 := int(data[0]%64), 1+int(data[1]%70), data[2], data[0]
		data = data[3:]
		var g *Graph
		if flags&4 != 0 {
			g = rawGraph(n, data)
		} else {
			g = edgeGraph(n, flags, data)
		}
		imb := float64(flags>>3) / 8
		obj := Cut
		if data0 >= 128 {
			// The Volume objective, with sizes and, when bit 6 is set too,
			// data flowing one way along every other entry.
			obj = Volume
			g.VSize = make([]int64, max(g.N(), 0))
			for v := range g.VSize {
				g.VSize[v] = int64(v % 3)
			}
			if data0&64 != 0 {
				g.Sends = make([]bool, len(g.Adj))
				for p := range g.Sends {
					g.Sends[p] = p%2 == 0
				}
			}
		}
		part, cut, err := KWay(g, k, Options{Imbalance: imb, Seed: uint64(flags), Objective: obj})
		valid := g.Validate() == nil
		switch {
		case err != nil && valid && k <= g.N():
			t.Fatalf("KWay rejected a valid graph of %d vertices into %d parts: %v", g.N(), k, err)
		case err != nil:
			if !strings.HasPrefix(err.Error(), "partition: ") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
			return
		case !valid || k > g.N():
			t.Fatalf("KWay accepted a graph of %d vertices into %d parts that it should reject (%v)", g.N(), k, g.Validate())
		}
		checkPartition(t, g, k, part, cut)
		checkBalance(t, g, k, part, 1+cmp.Or(imb, defaultImbalance))
	})
}

// edgeGraph builds FuzzKWay's graph from (u, v, w) triples, with vertex
// weights from the bytes after them if flag 1 is set.
func edgeGraph(n int, flags byte, data []byte) *Graph {
	var es []Edge
	for ; n > 0 && len(data) >= 3 && !(flags&2 != 0 && len(es) >= len(data)/2); data = data[3:] {
		es = append(es, Edge{int32(int(data[0]) % n), int32(int(data[1]) % n), int64(data[2] % 8)})
	}
	g := FromEdges(n, es)
	if flags&1 != 0 {
		g.VW = make([]int64, n)
		for v := range g.VW {
			if v < len(data) {
				g.VW[v] = int64(data[v] % 8)
			} else {
				g.VW[v] = 1
			}
		}
	}
	return g
}

// rawGraph builds FuzzKWay's unchecked graph: n+1 bytes of XAdj, then Adj
// up to XAdj's last entry (short if the bytes run out), then one signed
// weight byte per entry while bytes last.
func rawGraph(n int, data []byte) *Graph {
	g := &Graph{XAdj: make([]int32, 0, n+1)}
	for ; len(g.XAdj) <= n && len(data) > 0; data = data[1:] {
		g.XAdj = append(g.XAdj, int32(data[0]))
	}
	m := 0
	if len(g.XAdj) > 0 {
		m = int(g.XAdj[len(g.XAdj)-1])
	}
	for ; len(g.Adj) < m && len(data) > 0; data = data[1:] {
		g.Adj = append(g.Adj, int32(int8(data[0])))
	}
	if len(data) > 0 {
		g.AdjW = make([]int64, 0, len(g.Adj))
		for ; len(g.AdjW) < len(g.Adj) && len(data) > 0; data = data[1:] {
			g.AdjW = append(g.AdjW, int64(int8(data[0])))
		}
	}
	return g
}
