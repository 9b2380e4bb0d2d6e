package lower

import (
	"fmt"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/internal/memlimit"
)

// Lowering keeps, per rank, its traversal of the trace and its folded
// calls: about rankBytes a rank, and nodeBytes for each site or loop of
// the rank's calls in the trace (counting the trace's own share). Measured
// on ScalaTrace traces of 10^5 and 10^6 ranks: 0.9 kB a rank that does
// nothing, 200 to 310 bytes a node on top. The calls kept for the second
// pass (tape.go) add at most 64 MiB, which the estimate leaves out.
const (
	rankBytes = 1 << 10
	nodeBytes = 600
)

// checkMemory refuses a trace whose lowering would take more memory than
// the limit allows, before anything is allocated per rank.
func checkMemory(t *trace.Trace, opts Options) error {
	nodes := int64(0)
	for _, r := range t.Ranks {
		nodes += countNodes(r.Body)
	}
	est := rankBytes*int64(t.NumRanks) + nodeBytes*nodes
	if limit := memlimit.Or(opts.MaxMemory); est > limit {
		return fmt.Errorf("lowering the trace's %d ranks, whose calls take %d sites and loops, would take about %s of memory (%s a rank, %d bytes a site or loop), over %s: lower a trace of fewer ranks",
			t.NumRanks, nodes, memlimit.Format(est), memlimit.Format(rankBytes), nodeBytes, memlimit.Describe(opts.MaxMemory))
	}
	return nil
}

// countNodes counts the sites and loops of body, loops' bodies included
// once each.
func countNodes(body []trace.Node) int64 {
	n := int64(len(body))
	for _, x := range body {
		if x.Loop != nil {
			n += countNodes(x.Loop.Body)
		}
	}
	return n
}
