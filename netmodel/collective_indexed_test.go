package netmodel

import "testing"

// TestStepAtMatchesPlan: every step StepAt gives is Plan's, with Plan's
// count, for every rank and root of many group sizes, powers of two and
// not.
func TestStepAtMatchesPlan(t *testing.T) {
	cases := []struct {
		op  Op
		alg Algorithm
	}{{Bcast, "binomial"}, {Reduce, "binomial"}, {Allreduce, "recursive_doubling"}, {Barrier, "dissemination"}}
	for _, cs := range cases {
		for n := 1; n <= 70; n++ {
			for _, bytes := range []int64{0, 1, 8, 100000} {
				for root := range n {
					if root > 0 && cs.op != Bcast && cs.op != Reduce {
						break
					}
					c := Collective{Op: cs.op, N: n, Root: root, Bytes: bytes}
					if !Indexed(c, cs.alg) {
						t.Fatalf("%v %s: not indexed", cs.op, cs.alg)
					}
					for r := range n {
						want, err := Plan(c, cs.alg, r)
						if err != nil {
							t.Fatal(err)
						}
						_, total := StepAt(c, cs.alg, r, 0)
						if total != len(want) {
							t.Fatalf("%v %s N=%d root=%d bytes=%d r=%d: %d steps, Plan has %d", cs.op, cs.alg, n, root, bytes, r, total, len(want))
						}
						for k := range want {
							if got, _ := StepAt(c, cs.alg, r, k); got != want[k] {
								t.Fatalf("%v %s N=%d root=%d bytes=%d r=%d step %d: %+v, Plan has %+v", cs.op, cs.alg, n, root, bytes, r, k, got, want[k])
							}
						}
					}
				}
			}
		}
	}
}

func TestIndexedRefuses(t *testing.T) {
	for _, c := range []struct {
		c   Collective
		alg Algorithm
	}{
		{Collective{Op: Bcast, N: 8, Bytes: 1 << 20}, "scatter_ring_allgather"},
		{Collective{Op: Allreduce, N: 8, Bytes: 8}, "ring"},
		{Collective{Op: Gather, N: 8, Bytes: 8}, "binomial"},
		{Collective{Op: Reduce, N: 8, Bytes: 8, Sizes: func(int, int) int64 { return 1 }}, "binomial"},
	} {
		if Indexed(c.c, c.alg) {
			t.Errorf("%v %s: indexed", c.c.Op, c.alg)
		}
	}
}
