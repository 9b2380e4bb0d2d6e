package lower

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/scalatrace"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// sharedData holds copies of the shared NAS traces (ScalaTrace-TI, public).
var sharedData = filepath.Join("..", "scalatrace", "testdata", "nas")

// tally is one rank's calls per kind: how many and how many bytes.
type tally map[string][2]int64

func (t tally) add(kind string, bytes int64) {
	v := t[kind]
	t[kind] = [2]int64{v[0] + 1, v[1] + bytes}
}

// collectiveKind names a trace's collectives as the interpreter's
// observer reports them.
var collectiveKind = map[trace.Op]netmodel.Op{
	trace.Barrier: netmodel.Barrier, trace.Bcast: netmodel.Bcast, trace.Reduce: netmodel.Reduce,
	trace.Allreduce: netmodel.Allreduce, trace.Gather: netmodel.Gather, trace.Scatter: netmodel.Scatter,
	trace.Allgather: netmodel.Allgather, trace.Alltoall: netmodel.Alltoall,
	trace.Gatherv: netmodel.Gather, trace.Scatterv: netmodel.Scatter, trace.Allgatherv: netmodel.Allgather,
	trace.Alltoallv: netmodel.Alltoall, trace.ReduceScatter: netmodel.ReduceScatter,
}

// expandTally counts every rank's calls by expanding the trace directly,
// without matching or lowering.
func expandTally(t *trace.Trace) []tally {
	out := make([]tally, t.NumRanks)
	for r := range out {
		out[r] = tally{}
		for e := range t.Events(r) {
			switch {
			case e.Op.IsP2P():
				out[r].add(e.Op.String(), e.Bytes())
			case e.Op == trace.Scan:
				// Written as MPICH's recursive-doubling scan: a receive
				// and a send with rank r XOR m, for m = 1, 2, 4, ...
				for m := 1; m < t.NumRanks; m *= 2 {
					if r^m < t.NumRanks {
						out[r].add("irecv", e.Bytes())
						out[r].add("send", e.Bytes())
					}
				}
			case e.Op == trace.Alltoall:
				// A block for every other member; the observer reports
				// what a rank sends in all.
				out[r].add(collectiveKind[e.Op].String(), e.Bytes()*int64(commSize(t, e.Comm)-1))
			case e.Op == trace.Alltoallv:
				// The block a rank sends itself is a local copy, which
				// Parley's EXCHANGE leaves out.
				out[r].add(collectiveKind[e.Op].String(), e.Bytes()-e.Counts[r]*e.TypeSize)
			case e.Op.IsCollective():
				out[r].add(collectiveKind[e.Op].String(), e.Bytes())
			}
		}
	}
	return out
}

// commSize is the number of ranks in communicator c of t.
func commSize(t *trace.Trace, c int) int {
	if c > 0 && c < len(t.Comms) && t.Comms[c] != nil {
		return len(t.Comms[c])
	}
	return t.NumRanks
}

// observer tallies what the interpreter's tasks issue.
type observer struct{ ranks []tally }

func (o *observer) Send(rank, peer, bytes int64, tag int32, async bool) {
	o.ranks[rank].add(map[bool]string{false: "send", true: "isend"}[async], bytes)
}
func (o *observer) Recv(rank, peer, bytes int64, tag int32, async bool) {
	o.ranks[rank].add(map[bool]string{false: "recv", true: "irecv"}[async], bytes)
}
func (o *observer) Await(int64) {}
func (o *observer) Collective(rank int64, c netmodel.Collective, _ netmodel.Algorithm, _ []int64, me int, _ int32) {
	bytes := c.Bytes
	if c.Sizes != nil {
		// A "v" collective: the rank's own part, as a trace records it.
		switch c.Op {
		case netmodel.Gather, netmodel.Allgather:
			bytes = c.Sizes(me, 0)
		case netmodel.Scatter:
			bytes = c.Sizes(c.Root, me)
		case netmodel.Alltoall:
			bytes = 0
			for d := range c.N {
				bytes += c.Sizes(me, d)
			}
		}
	}
	o.ranks[rank].add(c.Op.String(), bytes)
}
func (o *observer) Compute(int64, netmodel.Duration, int64) {}
func (o *observer) Sleep(int64, netmodel.Duration)          {}

// interpretTally runs a lowered program on n tasks and tallies its calls.
func interpretTally(t *testing.T, res *Result, n int) []tally {
	t.Helper()
	prog, err := ir.Build(res.Program)
	if err != nil {
		t.Fatal(err)
	}
	plat, err := netmodel.Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	obs := &observer{ranks: make([]tally, n)}
	for i := range obs.ranks {
		obs.ranks[i] = tally{}
	}
	run, err := interp.Run(prog, interp.Options{NumTasks: int64(n), Platform: plat, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range run.Problems {
		t.Errorf("interpreting the lowered program: %v", p)
	}
	return obs.ranks
}

// checkCalls interprets res on n tasks and fails t where a rank's calls
// per kind (count, bytes) differ from expanding tr.
func checkCalls(t *testing.T, tr *trace.Trace, res *Result, n int) {
	t.Helper()
	want := expandTally(tr)
	got := interpretTally(t, res, n)
	for r := range n {
		if diff := cmp.Diff(want[r], got[r]); diff != "" {
			t.Errorf("rank %d: calls per kind (count, bytes) differ, -trace +program:\n%s", r, diff)
		}
	}
}

// lowerContaining lowers tr and fails t unless the program holds each of
// wants.
func lowerContaining(t *testing.T, tr *trace.Trace, name string, wants ...string) *Result {
	t.Helper()
	res, err := Lower(tr, Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(string(res.Source), want) {
			t.Errorf("missing %q in:\n%s", want, res.Source)
		}
	}
	return res
}

// TestFidelity lowers each shared trace and checks that interpreting the
// program issues, per rank and per call kind, exactly the calls and bytes
// that expanding the trace gives; and that the program stays small and
// does not grow with the rank count.
func TestFidelity(t *testing.T) {
	if testing.Short() {
		t.Skip("lowers and interprets six real traces")
	}
	lines := map[string][]int{}
	for _, kernel := range []string{"lu-A-%d-td", "cg-A-%d-ti"} {
		for _, n := range []int{4, 8, 16} {
			name := fmt.Sprintf(kernel, n)
			t.Run(name, func(t *testing.T) {
				tr, err := scalatrace.Read(filepath.Join(sharedData, name+".trace"))
				if err != nil {
					t.Fatal(err)
				}
				res, err := Lower(tr, Options{Name: name})
				if err != nil {
					t.Fatal(err)
				}
				checkCalls(t, tr, res, n)
				// Every CG rank does the same; LU's ranks differ by their
				// kind of position on its 2-D mesh (corner, edge, inside)
				// and by nothing else, which a wildcard receive matched to
				// a neighbour running ahead would break.
				want := map[int]int{4: 4, 8: 6, 16: 9}[n]
				if strings.HasPrefix(name, "cg") {
					want = 1
				}
				if res.Classes != want {
					t.Errorf("%d rank behaviours; want %d", res.Classes, want)
				}
				k := strings.Count(string(res.Source), "\n")
				lines[kernel] = append(lines[kernel], k)
				if limit := 300; k >= limit {
					t.Errorf("%d lines; want fewer than %d", k, limit)
				}
				// Rank sets and per-rank values are rules (rows and
				// columns of the mesh, ranges), not lists of ranks.
				if list := rankList.FindString(string(res.Source)); list != "" {
					t.Errorf("a rank list %q in:\n%s", list, res.Source)
				}
			})
		}
	}
	t.Logf("lines for 4, 8, 16 ranks: %v", lines)
	// CG's program is the same from 8 ranks on: its transposes and
	// reduction steps are expressions of the task and loop variables.
	// (From 4 to 8 ranks CG gains a reduction step. LU grows up to 16
	// ranks, the first mesh with every kind of position: only there do
	// ranks have neighbours on both sides, and the work between their
	// two calls needs statements of its own. TestSizeDoesNotGrowOnAMesh
	// checks that a stencil stays the same size beyond that.)
	if cg := lines["cg-A-%d-ti"]; len(cg) == 3 && cg[2] > cg[1] {
		t.Errorf("CG: %d lines on 16 ranks, more than the %d on 8", cg[2], cg[1])
	}
}
