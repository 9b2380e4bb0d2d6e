package lower

import (
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

func TestIterExpr(t *testing.T) {
	for _, c := range []struct {
		runs []valRun
		want string
		ok   bool
	}{
		{[]valRun{{3, 7}, {2, 7}}, "7", true},
		{[]valRun{{1, 1}, {1, 2}}, "1 IF i = 1 OTHERWISE 2", true},
		{[]valRun{{3, 4}, {2, 8}, {1, 40}, {3, 4}}, "4 IF i <= 3 OTHERWISE 8 IF i <= 5 OTHERWISE 40 IF i = 6 OTHERWISE 4", true},
		{[]valRun{{1, 1}, {1, 2}, {1, 4}, {1, 8}}, "2 ** (i - 1)", true},
		{[]valRun{{1, 3}, {1, 6}, {1, 12}}, "3 * 2 ** (i - 1)", true},
		{[]valRun{{1, 5}, {1, 8}, {1, 11}}, "i * 3 + 2", true},
		{[]valRun{{1, 1}, {1, 2}, {1, 3}}, "i", true},
		{[]valRun{{1, 2}, {1, 1}, {1, 2}, {1, 1}}, "2 IF i IS ODD OTHERWISE 1", true},
		{[]valRun{{1, 2}, {1, 1}, {1, 2}}, "2 IF i IS ODD OTHERWISE 1", true},
		{[]valRun{{1, 2}, {1, 1}, {1, 3}, {1, 1}}, "2 IF i = 1 OTHERWISE 1 IF i = 2 OTHERWISE 3 IF i = 3 OTHERWISE 1", true},
		{[]valRun{{1, 1}, {1, 5}, {1, 2}, {1, 7}, {1, 3}}, "", false},
	} {
		got, ok := iterExpr(c.runs)
		if got != c.want || ok != c.ok {
			t.Errorf("iterExpr(%v) = %q, %v; want %q, %v", c.runs, got, ok, c.want, c.ok)
		}
	}
}

// TestRerollPerIterationPeers is CG's reduction: the same exchange with a
// partner t XOR 1, then t XOR 2. It becomes one FOR EACH whose peer is an
// expression of the loop variable, and the program still issues every
// call of the trace.
func TestRerollPerIterationPeers(t *testing.T) {
	const n = 4
	b := trace.NewBuilder("test", n, trace.Microseconds)
	for r := range n {
		line := 0
		for _, x := range []int{1, 2, 1, 2} {
			for _, e := range []trace.Event{
				{Op: trace.Irecv, Peer: r ^ x, Count: 100, TypeSize: 8},
				{Op: trace.Compute, Amount: 10},
				{Op: trace.Send, Peer: r ^ x, Count: 100, TypeSize: 8},
				{Op: trace.Wait, Waits: []int{1}},
			} {
				line++
				e.Pos = trace.Pos{File: "xor.trace", Line: line}
				b.Add(r, e)
			}
		}
	}
	tr := b.Trace()
	res := lowerContaining(t, tr, "xor",
		"FOR EACH i IN {1, ..., 2}",
		"ALL TASKS t ASYNCHRONOUSLY RECEIVE A 100 DOUBLEWORD MESSAGE FROM TASK t XOR (1 IF i = 1 OTHERWISE 2)",
	)
	checkCalls(t, tr, res, n)
}

func TestMeshPeer(t *testing.T) {
	ranks := make([]int, 16)
	peers := make([]int, 16)
	for r := range 16 {
		ranks[r], peers[r] = r, 4*(r%4)+r/4
	}
	if got, ok := meshPeer(ranks, peers, 16, "t"); !ok || got != "4 * (t MOD 4) + t / 4" {
		t.Errorf("transpose: %q, %v", got, ok)
	}
	if _, ok := meshPeer([]int{0, 1, 2, 3}, []int{3, 0, 2, 1}, 4, "t"); ok {
		t.Error("a permutation that is no mesh map fitted")
	}
}

func TestSetRelation(t *testing.T) {
	for _, c := range []struct {
		rs   []int
		n    int
		want string
	}{
		{[]int{5, 6, 7, 9, 10, 11, 13, 14, 15}, 16, "t MOD 4 > 0 /\\ t > 3"},
		{[]int{0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 16, "t IS NOT IN {1, 4}"},
		{[]int{0, 1, 2, 4, 5, 6, 7}, 8, "t <> 3"},
		{[]int{1, 3, 5, 7}, 8, "t IS ODD"},
		{[]int{2, 3, 4}, 8, "t IS IN [2, 4]"},
		// The first and last rows but the last column, on a 4 x 4 mesh.
		{[]int{0, 1, 2, 12, 13, 14}, 16, "t MOD 4 < 3 /\\ t / 4 IS IN {0, 3}"},
		// The two inside columns and the last rank of the first row.
		{[]int{1, 2, 3, 5, 6, 9, 10, 13, 14}, 16, "t MOD 4 IS IN [1, 2] \\/ t = 3"},
		{[]int{1, 2, 3, 5, 6}, 8, "t MOD 4 IS IN [1, 2] \\/ t = 3"},
		// Too many columns to list: the ranks are the shortest.
		{[]int{0, 2, 4, 5, 7, 9, 10, 12, 14}, 15, "t IS IN {0, 2, 4, 5, 7, 9, 10, 12, 14}"},
	} {
		if got := setRelation(c.rs, c.n); got != c.want {
			t.Errorf("setRelation(%v, %d) = %q; want %q", c.rs, c.n, got, c.want)
		}
	}
}

func TestRelationFor(t *testing.T) {
	for _, c := range []struct {
		in, out []int
		n       int
		want    string
	}{
		// The ranks without an east neighbour may go either way.
		{[]int{0, 1, 2, 12, 13, 14}, []int{4, 5, 6, 8, 9, 10}, 16, "t / 4 IS IN {0, 3}"},
		{[]int{5, 6, 9, 10}, []int{1, 2, 13, 14}, 16, "t IS IN [5, 10]"},
		{[]int{1, 2, 3}, []int{5, 6, 7}, 8, "t < 4"},
	} {
		if got := newRelations(c.n).relationFor(c.in, c.out); got != c.want {
			t.Errorf("relationFor(%v, %v, %d) = %q; want %q", c.in, c.out, c.n, got, c.want)
		}
	}
}

// TestTorusNeighbours: a halo exchange on a periodic 4 x 3 mesh, whose
// neighbours wrap around its edges, reads as MESH_NEIGHBOR on a torus
// where a row wraps; a column wraps as a plain (t + d) MOD num_tasks.
func TestTorusNeighbours(t *testing.T) {
	const w, h = 4, 3
	n := w * h
	b := trace.NewBuilder("test", n, trace.Microseconds)
	at := func(x, y int) int { return ((y+h)%h)*w + (x+w)%w }
	for r := range n {
		x, y := r%w, r/w
		for i, e := range []trace.Event{
			{Op: trace.Irecv, Peer: at(x-1, y), Count: 100, TypeSize: 8},
			{Op: trace.Isend, Peer: at(x+1, y), Count: 100, TypeSize: 8},
			{Op: trace.Irecv, Peer: at(x, y-1), Count: 100, TypeSize: 8},
			{Op: trace.Isend, Peer: at(x, y+1), Count: 100, TypeSize: 8},
			{Op: trace.Wait, Waits: []int{4, 3, 2, 1}},
		} {
			e.Pos = trace.Pos{File: "torus.trace", Line: i + 1}
			b.Add(r, e)
		}
	}
	tr := b.Trace()
	res := lowerContaining(t, tr, "torus",
		"ALL TASKS t ASYNCHRONOUSLY RECEIVE A 100 DOUBLEWORD MESSAGE FROM TASK MESH_NEIGHBOR((4*, 3), t, (-1, 0))",
		"ALL TASKS t ASYNCHRONOUSLY SEND A 100 DOUBLEWORD MESSAGE TO UNSUSPECTING TASK MESH_NEIGHBOR((4*, 3), t, (1, 0))",
		"ALL TASKS t ASYNCHRONOUSLY RECEIVE A 100 DOUBLEWORD MESSAGE FROM TASK (t + num_tasks - 4) MOD num_tasks",
	)
	checkCalls(t, tr, res, n)
}
