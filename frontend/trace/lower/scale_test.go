package lower

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/scalatrace"
)

// stencilTrace is NAS LU's communication on a side x side mesh, made by
// hand: a halo exchange (post a receive from one side, send to the other,
// wait; west, east, north, south), the two wavefront sweeps and a sum
// along the first and last rows, with computation between the calls. Edge ranks skip the calls to neighbours
// they do not have, as LU's exchange routines do.
func stencilTrace(side int) *trace.Trace {
	n := side * side
	b := trace.NewBuilder("test", n, trace.Microseconds)
	for r := range n {
		x, y := r%side, r/side
		line := 0
		add := func(e trace.Event) {
			line++
			e.Pos = trace.Pos{File: "stencil.trace", Line: line}
			b.Add(r, e)
		}
		has := func(dx, dy int) bool { return x+dx >= 0 && x+dx < side && y+dy >= 0 && y+dy < side }
		at := func(dx, dy int) int { return r + dx + dy*side }
		compute := func(us float64) { add(trace.Event{Op: trace.Compute, Amount: us}) }
		msg := func(op trace.Op, dx, dy int) {
			if has(dx, dy) {
				add(trace.Event{Op: op, Peer: at(dx, dy), Count: 640, TypeSize: 8})
			}
		}
		// A sweep's message is a face of the rank's block, smaller on
		// the mesh's edge rows and columns, as in LU.
		face := func(i int) int64 {
			if i == 0 || i == side-1 {
				return 75
			}
			return 80
		}
		faceMsg := func(op trace.Op, dx, dy int) {
			if has(dx, dy) {
				count := face(y) // along a row
				if dx == 0 {
					count = face(x)
				}
				add(trace.Event{Op: op, Peer: at(dx, dy), Count: count, TypeSize: 8})
			}
		}
		exchange := func() {
			for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				msg(trace.Irecv, d[0], d[1])
				compute(500)
				msg(trace.Send, -d[0], -d[1])
				if has(d[0], d[1]) {
					add(trace.Event{Op: trace.Wait, Waits: []int{1}})
				}
			}
		}
		sweep := func(sign int) {
			for range 10 {
				compute(40)
				faceMsg(trace.Recv, -sign, 0)
				compute(30)
				faceMsg(trace.Recv, 0, -sign)
				compute(20)
				faceMsg(trace.Send, sign, 0)
				compute(10)
				faceMsg(trace.Send, 0, sign)
			}
		}
		// A sum along the mesh's first and last rows, passed west, as
		// LU's pintgr does on the boundary.
		boundary := func() {
			if y != 0 && y != side-1 {
				return
			}
			msg(trace.Irecv, 1, 0)
			compute(15)
			msg(trace.Send, -1, 0)
			if has(1, 0) {
				add(trace.Event{Op: trace.Wait, Waits: []int{1}})
			}
		}
		exchange()
		for range 5 {
			sweep(1)
			sweep(-1)
			exchange()
			add(trace.Event{Op: trace.Allreduce, Count: 5, TypeSize: 8})
		}
		boundary()
		add(trace.Event{Op: trace.Allreduce, Count: 1, TypeSize: 8})
	}
	return b.Trace()
}

// TestSizeDoesNotGrowOnAMesh: a stencil's program is the same size on 16,
// 64 and 256 ranks (4 x 4, 8 x 8 and 16 x 16 meshes, each with every kind
// of position: corners, edges and inside), its peers MESH_NEIGHBOR, its
// rank sets and per-rank sizes rules rather than lists that would grow
// with the mesh, and it agrees with the trace call for call. The shared
// LU traces stop at 16 ranks, the first mesh with ranks inside; this
// carries the check on.
func TestSizeDoesNotGrowOnAMesh(t *testing.T) {
	if testing.Short() {
		t.Skip("lowers and interprets a 256-rank trace")
	}
	var lines []int
	for _, side := range []int{4, 8, 16} {
		n := side * side
		tr := stencilTrace(side)
		res := lowerContaining(t, tr, fmt.Sprintf("stencil-%d", n),
			fmt.Sprintf("ALL TASKS t ASYNCHRONOUSLY RECEIVE A 640 DOUBLEWORD MESSAGE FROM TASK MESH_NEIGHBOR((%d, %d), t, (-1, 0))", side, side),
			fmt.Sprintf("ALL TASKS t SEND A 640 DOUBLEWORD MESSAGE TO UNSUSPECTING TASK MESH_NEIGHBOR((%d, %d), t, (0, 1))", side, side),
			"FOR 10 REPETITIONS {",
			fmt.Sprintf("ALL TASKS t RECEIVE A (80 IF t MOD %d IS IN [1, %d] OTHERWISE 75) DOUBLEWORD MESSAGE FROM TASK MESH_NEIGHBOR((%d, %d), t, (0, -1))", side, side-2, side, side),
			fmt.Sprintf("TASKS t SUCH THAT t / %d IS IN {0, %d} ASYNCHRONOUSLY RECEIVE A 640 DOUBLEWORD MESSAGE FROM TASK MESH_NEIGHBOR((%d, %d), t, (1, 0))", side, side-1, side, side),
		)
		if list := rankList.FindString(string(res.Source)); list != "" {
			t.Errorf("%d ranks: a rank list %q, which grows with the mesh:\n%s", n, list, res.Source)
		}
		if res.Classes != 9 {
			t.Errorf("%d ranks: %d rank behaviours; want 9 (corners, edges, inside)", n, res.Classes)
		}
		checkCalls(t, tr, res, n)
		lines = append(lines, strings.Count(string(res.Source), "\n"))
	}
	t.Logf("lines for 16, 64, 256 ranks: %v", lines)
	if lines[1] != lines[0] || lines[2] != lines[0] {
		t.Errorf("lines for 16, 64, 256 ranks: %v; want the same for each", lines)
	}
}

// BenchmarkLowerStencil4096 lowers the stencil trace on a 64 x 64 mesh.
func BenchmarkLowerStencil4096(b *testing.B) { benchStencil(b, 64) }

// BenchmarkLowerStencil1024 lowers the stencil trace on a 32 x 32 mesh:
// matching, folding, merging and choosing each statement's rank rules,
// whose candidates are tried for every mesh width.
func BenchmarkLowerStencil1024(b *testing.B) { benchStencil(b, 32) }

func benchStencil(b *testing.B, side int) {
	tr := stencilTrace(side)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Lower(tr, Options{Name: fmt.Sprintf("stencil-%d", side*side)}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRepeatsInBulk: taking the iterations the matcher skips in bulk
// (the compressor's loop count, the second pass's cursor) gives the
// program that taking them call by call gives, on the stencil and on the
// shared LU trace, whose main loop is skipped.
func TestRepeatsInBulk(t *testing.T) {
	traces := map[string]func() (*trace.Trace, error){
		"stencil-16": func() (*trace.Trace, error) { return stencilTrace(4), nil },
	}
	if !testing.Short() {
		traces["lu-A-16-td"] = func() (*trace.Trace, error) {
			return scalatrace.Read(filepath.Join(sharedData, "lu-A-16-td.trace"))
		}
	}
	for name, read := range traces {
		t.Run(name, func(t *testing.T) {
			tr, err := read()
			if err != nil {
				t.Fatal(err)
			}
			bulk, err := lower(tr, Options{Name: name}, false)
			if err != nil {
				t.Fatal(err)
			}
			each, err := lower(tr, Options{Name: name}, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(each.Source), string(bulk.Source)); diff != "" {
				t.Errorf("-call by call +in bulk:\n%s", diff)
			}
		})
	}
}
