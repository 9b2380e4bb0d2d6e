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
