package ir_test

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
)

// oldRoot is ROOT as it was defined before it was bounded: a
// floating-point estimate walked up and down one at a time. It hangs for
// n = MinInt64 and for huge n; the new Root must agree with it elsewhere.
func oldRoot(n, x int64) int64 {
	if n < 0 {
		r := oldRoot(-n, x)
		if r == 0 {
			return math.MinInt64 // stands for the division-by-zero error
		}
		return 1 / r
	}
	if x <= 1 || n == 1 {
		return x
	}
	powAtMost := func(b int64) bool {
		p := uint64(1)
		for range n {
			hi, lo := bits.Mul64(p, uint64(b))
			if hi != 0 || lo > uint64(x) {
				return false
			}
			p = lo
		}
		return true
	}
	r := int64(math.Pow(float64(x), 1/float64(n)))
	for r > 0 && !powAtMost(r) {
		r--
	}
	for powAtMost(r + 1) {
		r++
	}
	return r
}

func TestRootMatchesOldDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := []int64{0, 1, 2, 3, 4, 7, 8, 9, 26, 27, 28, 63, 64, 65, 1000, 1 << 31, 1<<32 - 1, 1 << 32, 1<<32 + 1,
		3037000499 * 3037000499, 3037000499*3037000499 - 1, 3037000499*3037000499 + 1, 1<<62 - 1, 1 << 62,
		math.MaxInt64, math.MaxInt64 - 1, 999999999999999999, 1000000000000000000}
	for range 20000 {
		xs = append(xs, r.Int64()>>r.IntN(63))
	}
	// Perfect powers and their neighbours, where rounding matters most.
	for b := int64(2); b < 3_000_000_000; b = b*3/2 + 1 {
		for p, n := b, int64(1); ; n++ {
			xs = append(xs, p-1, p, p+1)
			hi, lo := bits.Mul64(uint64(p), uint64(b))
			if hi != 0 || lo > math.MaxInt64-1 {
				break
			}
			p = int64(lo)
		}
	}
	for _, x := range xs {
		for n := int64(-70); n <= 70; n++ {
			if n == 0 || x < 0 {
				continue
			}
			want := oldRoot(n, x)
			got, err := callRoot(n, x)
			if want == math.MinInt64 {
				if err == nil {
					t.Fatalf("ROOT(%d, %d) = %d, want a division by zero", n, x, got)
				}
				continue
			}
			if err != nil || got != want {
				t.Fatalf("ROOT(%d, %d) = %d, %v; want %d", n, x, got, err, want)
			}
		}
	}
}

func callRoot(n, x int64) (r int64, err error) {
	err = ir.Catch(func() { r = ir.Root(lang.Span{}, n, x) })
	return r, err
}

// TestRootExtremes: arguments that used to recurse until the stack
// overflowed or loop for centuries, folded as constants and evaluated at
// run time.
func TestRootExtremes(t *testing.T) {
	tests := []struct {
		n, x int64
		want int64
		err  bool
	}{
		{math.MinInt64, 5, 1, false},
		{math.MinInt64, 0, 0, true},
		{math.MinInt64, 1, 1, false},
		{math.MinInt64, math.MaxInt64, 1, false},
		{math.MaxInt64, 5, 1, false},
		{math.MaxInt64, math.MaxInt64, 1, false},
		{math.MaxInt64, 1, 1, false},
		{math.MinInt64 + 1, 2, 1, false},
		{1 << 40, 1 << 40, 1, false},
		{62, math.MaxInt64, 2, false},
		{63, math.MaxInt64, 1, false},
		{2, math.MaxInt64, 3037000499, false},
		{3, math.MaxInt64, 2097151, false},
	}
	for _, tt := range tests {
		got, err := callRoot(tt.n, tt.x)
		if (err != nil) != tt.err || !tt.err && got != tt.want {
			t.Errorf("ROOT(%d, %d) = %d, %v; want %d (error: %v)", tt.n, tt.x, got, err, tt.want, tt.err)
		}
	}
	for _, src := range []string{"ROOT(-9223372036854775807 - 1, 5)", "ROOT(9223372036854775807, 5)"} {
		// A constant, folded when the program is built ...
		e, f := outputExpr(t, src, 1)
		if _, ok := e.(*ir.Const); !ok {
			t.Errorf("%s was not folded: %T", src, e)
		}
		if got, err := ir.EvalInt(e, f); err != nil || got != 1 {
			t.Errorf("%s = %d, %v; want 1", src, got, err)
		}
		// ... and evaluated while running, from a parameter.
		e, f = outputExpr(t, src[:5]+"num_tasks * 0 + "+src[5:], 1)
		if got, err := ir.EvalInt(e, f); err != nil || got != 1 {
			t.Errorf("%s at run time = %d, %v; want 1", src, got, err)
		}
	}
}
