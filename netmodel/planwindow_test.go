package netmodel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlannerWindow: walking a plan window by window gives exactly Plan's
// steps, for every algorithm, and fails exactly when Plan fails.
func TestPlannerWindow(t *testing.T) {
	for op := Op(0); op < numOps; op++ {
		for _, alg := range Algorithms(op) {
			for _, n := range []int{1, 2, 3, 5, 8, 13} {
				for _, bytes := range []int64{0, 7, 4096} {
					for r := range n {
						c := Collective{Op: op, N: n, Root: n - 1, Bytes: bytes}
						want, err := Plan(c, alg, r)
						for _, w := range []int{1, 3, 4} {
							var got []Step
							buf := make([]Step, w)
							for from := 0; ; from += w {
								var pl Planner
								k, total, werr := pl.Window(c, alg, r, from, buf)
								if (werr == nil) != (err == nil) {
									t.Fatalf("%v %s N=%d r=%d: Plan error %v, PlanWindow error %v", op, alg, n, r, err, werr)
								}
								got = append(got, buf[:k]...)
								if from+k >= total {
									break
								}
							}
							if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []Step) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); err == nil && diff != "" {
								t.Fatalf("%v %s N=%d bytes=%d r=%d window %d (-Plan +windows):\n%s", op, alg, n, bytes, r, w, diff)
							}
						}
					}
				}
			}
		}
	}
}

func TestPlannerWindowAllocatesNothing(t *testing.T) {
	c := Collective{Op: Allreduce, N: 1 << 20, Bytes: 8}
	buf := make([]Step, 4)
	var pl Planner
	allocs := testing.AllocsPerRun(100, func() { pl.Window(c, "recursive_doubling", 12345, 4, buf) })
	if allocs > 0 {
		t.Errorf("PlanWindow allocates %v times per call", allocs)
	}
}
