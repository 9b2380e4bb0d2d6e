package lower

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// TestComputeTooLarge: computation between two calls that no 64-bit
// integer holds is an error at its place in the trace; it used to become a
// negative integer and vanish from the program.
func TestComputeTooLarge(t *testing.T) {
	compute := func(line int, amount float64) trace.Node {
		return trace.Node{Site: &trace.Site{Events: []trace.Event{{Op: trace.Compute, Amount: amount, Pos: trace.Pos{File: "big.tit", Line: line}}}}}
	}
	tr := &trace.Trace{Format: "test", NumRanks: 1, TimeUnit: trace.Flops, Comms: [][]int{nil},
		Ranks: []trace.Rank{{Body: []trace.Node{compute(1, 5e18), compute(2, 5e18)}}}}
	_, err := Lower(tr, Options{Name: "big"})
	if err == nil || err.Error() != "big.tit:2: rank 0 computes 1e+19 flops between two calls (from big.tit:1 on), more than a program's 64-bit integers hold" {
		t.Errorf("Lower: %v", err)
	}
	tr.Ranks[0].Body = tr.Ranks[0].Body[:1]
	res, err := Lower(tr, Options{Name: "big"})
	if err != nil || !strings.Contains(string(res.Source), "ALL TASKS COMPUTE 5000000000000000000 FLOPS") {
		t.Errorf("5e18 flops: %v\n%s", err, res.Source)
	}
}

// TestComputeKeepsRankImbalance: ranks whose computation differs by more
// than 5% keep their own amounts, grouped by rules on t, and the lowered
// total stays the traced one; within 5%, or where only a list of ranks
// would tell the groups apart, the mean over the ranks is written.
func TestComputeKeepsRankImbalance(t *testing.T) {
	lowerComputes := func(t *testing.T, amounts []float64) *Result {
		t.Helper()
		tr := &trace.Trace{Format: "test", NumRanks: len(amounts), TimeUnit: trace.Microseconds, Comms: [][]int{nil}}
		for r, a := range amounts {
			tr.Ranks = append(tr.Ranks, trace.Rank{Body: []trace.Node{
				{Site: &trace.Site{Events: []trace.Event{{Op: trace.Compute, Amount: a}}}},
				{Site: &trace.Site{Events: []trace.Event{{Op: trace.Allreduce, Count: 1, TypeSize: 8}}}},
			}})
			_ = r
		}
		res, err := Lower(tr, Options{Name: "imbalance"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, c := range []struct {
		name    string
		amounts []float64
		want    string
	}{
		{"two ranks", []float64{75.4, 127.6}, "ALL TASKS t COMPUTE FOR 53 * t + 75 MICROSECONDS"},
		{"within 5%", []float64{100, 104, 102, 101}, "ALL TASKS COMPUTE FOR 102 MICROSECONDS"},
		{"one slow rank", []float64{100, 100, 100, 140, 100, 100, 100, 100}, "ALL TASKS t COMPUTE FOR 140 IF t = 3 OTHERWISE 100 MICROSECONDS"},
		{"slow half", []float64{100, 100, 100, 100, 200, 200, 200, 201}, "ALL TASKS t COMPUTE FOR 100 IF t < 4 OTHERWISE 200 MICROSECONDS"},
		// Scattered values: every grouping would list ranks.
		{"noise", []float64{100, 130, 101, 129, 131, 99, 128, 102, 100, 132, 98, 127}, "ALL TASKS COMPUTE FOR 115 MICROSECONDS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := lowerComputes(t, c.amounts)
			if !strings.Contains(string(res.Source), c.want+" THEN") {
				t.Errorf("want %q in:\n%s", c.want, res.Source)
			}
			if rankList.Match(res.Source) {
				t.Errorf("a list of ranks in:\n%s", res.Source)
			}
			traced := 0.0
			for _, a := range c.amounts {
				traced += a
			}
			if d := res.ComputeLowered - traced; d < -float64(len(c.amounts)) || d > float64(len(c.amounts)) {
				t.Errorf("lowered %.0f us, traced %.1f", res.ComputeLowered, traced)
			}
		})
	}
}
