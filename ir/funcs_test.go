package ir_test

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
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

// oldKnomialChildren is the k-nomial tree as it was defined before it was
// bounded: a list built digit by digit, k-1 candidates per digit. It
// overflows or loops for huge k and n; below them the new functions must
// agree with it.
func oldKnomialChildren(task, k, n int64) []int64 {
	ipow := func(b, e int64) int64 {
		p := int64(1)
		for range e {
			p *= b
		}
		return p
	}
	digits := int64(1)
	for pow := k; pow-1 < n-1; pow *= k {
		digits++
	}
	if task < 0 || task >= n {
		return nil
	}
	var gen []int64
	for d := digits - 1; d >= 0; d-- {
		p := ipow(k, d)
		if task/p%k != 0 {
			break
		}
		for v := k - 1; v >= 1; v-- {
			if c := task + v*p; c < n {
				gen = append(gen, c)
			}
		}
	}
	slices.Reverse(gen)
	return gen
}

func TestKnomialMatchesOldDefinition(t *testing.T) {
	sp := lang.Span{}
	for k := int64(2); k <= 12; k++ {
		for n := int64(-1); n <= 200; n++ {
			parent := make([]int64, max(n, 0))
			for i := range parent {
				parent[i] = -1
			}
			for task := int64(-2); task < n+2; task++ {
				want := oldKnomialChildren(task, k, n)
				if got := ir.KnomialChildren(sp, task, k, n); got != int64(len(want)) {
					t.Fatalf("KNOMIAL_CHILDREN(%d, %d, %d) = %d, want %d", task, k, n, got, len(want))
				}
				for i := int64(-1); i <= int64(len(want)); i++ {
					w := int64(-1)
					if i >= 0 && i < int64(len(want)) {
						w = want[i]
						parent[w] = task
					}
					if got := ir.KnomialChild(sp, task, i, k, n); got != w {
						t.Fatalf("KNOMIAL_CHILD(%d, %d, %d, %d) = %d, want %d", task, i, k, n, got, w)
					}
				}
			}
			for task := int64(-2); task < n+2; task++ {
				want := int64(-1)
				if task >= 0 && task < n {
					want = parent[task]
				}
				if got := ir.KnomialParent(sp, task, k, n); got != want {
					t.Fatalf("KNOMIAL_PARENT(%d, %d, %d) = %d, want %d", task, k, n, got, want)
				}
			}
		}
	}
}

// TestKnomialHuge: task counts and arities near MaxInt64, which used to
// overflow the powers of k and loop forever (or k-1 times per digit).
func TestKnomialHuge(t *testing.T) {
	sp := lang.Span{}
	const maxI = math.MaxInt64
	tests := []struct {
		name      string
		got, want int64
	}{
		{"children(0, max, max)", ir.KnomialChildren(sp, 0, maxI, maxI), maxI - 1},
		{"child(0, 5, max, max)", ir.KnomialChild(sp, 0, 5, maxI, maxI), 6},
		{"child(0, max-2, max, max)", ir.KnomialChild(sp, 0, maxI-2, maxI, maxI), maxI - 1},
		{"child(0, max-1, max, max)", ir.KnomialChild(sp, 0, maxI-1, maxI, maxI), -1},
		{"parent(max-1, max, max)", ir.KnomialParent(sp, maxI-1, maxI, maxI), 0},
		{"children(1, 2**32, max)", ir.KnomialChildren(sp, 1, 1<<32, maxI), 1<<31 - 1},
		{"child(1, 0, 2**32, max)", ir.KnomialChild(sp, 1, 0, 1<<32, maxI), 1<<32 + 1},
		{"parent(2**32+1, 2**32, max)", ir.KnomialParent(sp, 1<<32+1, 1<<32, maxI), 1},
		{"children(0, 2, max)", ir.KnomialChildren(sp, 0, 2, maxI), 63},
		{"child(0, 62, 2, max)", ir.KnomialChild(sp, 0, 62, 2, maxI), 1 << 62},
		{"children(0, 3, max)", ir.KnomialChildren(sp, 0, 3, maxI), 2 * 40},
		{"parent(max-1, 2, max)", ir.KnomialParent(sp, maxI-1, 2, maxI), maxI - 1 - 1<<62},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	// Parents and children agree at random points of huge trees.
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		k := 2 + r.Int64N(1<<r.IntN(62))
		n := 1 + r.Int64N(maxI)
		task := r.Int64N(n)
		count := ir.KnomialChildren(sp, task, k, n)
		for _, i := range []int64{0, count / 2, count - 1} {
			if i < 0 || i >= count {
				continue
			}
			c := ir.KnomialChild(sp, task, i, k, n)
			if c <= task || c >= n || ir.KnomialParent(sp, c, k, n) != task {
				t.Fatalf("k=%d n=%d: child %d of %d is %d, whose parent is %d", k, n, i, task, c, ir.KnomialParent(sp, c, k, n))
			}
		}
	}
}

// poissonDraws draws n values of RANDOM_POISSON(mean) from task 0's
// stream.
func poissonDraws(t *testing.T, mean int64, n int) []int64 {
	t.Helper()
	f := &ir.Frame{G: &ir.Globals{Seed: 11}}
	e := &ir.Call{Func: lang.FuncRandomPoisson, Args: []ir.Expr{&ir.Const{I: mean, F: float64(mean)}}}
	out := make([]int64, n)
	for i := range out {
		v, err := ir.EvalInt(e, f)
		if err != nil {
			t.Fatalf("RANDOM_POISSON(%d): %v", mean, err)
		}
		out[i] = v
	}
	return out
}

// TestPoissonLargeMeans: RANDOM_POISSON never returned for means of 746
// or more (exp(-mean) underflowed) and took about mean draws below that.
// Transformed rejection must give the right mean and variance up to the
// largest mean allowed, and the right probabilities where they are large.
func TestPoissonLargeMeans(t *testing.T) {
	const n = 20000
	for _, mean := range []int64{10, 11, 30, 100, 745, 746, 10000, 1e6, 1e9, 1e12, 1e15, 1 << 53, 1 << 62} {
		xs := poissonDraws(t, mean, n)
		// Deviations from the mean are exact in int64; sum them as floats.
		var sum, sq float64
		for _, x := range xs {
			if x < 0 {
				t.Fatalf("RANDOM_POISSON(%d) = %d", mean, x)
			}
			d := float64(x - mean)
			sum += d
			sq += d * d
		}
		mu := float64(mean)
		m := sum / n
		v := sq/n - m*m
		if se := math.Sqrt(mu / n); math.Abs(m) > 5*se {
			t.Errorf("RANDOM_POISSON(%d): mean off by %g, more than 5 standard errors (%g)", mean, m, se)
		}
		if se := mu * math.Sqrt(2.0/n+1/(mu*n)); math.Abs(v-mu) > 5*se {
			t.Errorf("RANDOM_POISSON(%d): variance %g, want %g within %g", mean, v, mu, 5*se)
		}
	}
	// The probabilities of the likeliest values, against the exact pmf.
	for _, mean := range []int64{10, 13, 40} {
		xs := poissonDraws(t, mean, n)
		counts := map[int64]int{}
		for _, x := range xs {
			counts[x]++
		}
		mu := float64(mean)
		for k := int64(0); k < 3*mean; k++ {
			lg, _ := math.Lgamma(float64(k + 1))
			want := n * math.Exp(-mu+float64(k)*math.Log(mu)-lg)
			if want < 20 {
				continue
			}
			if got := float64(counts[k]); math.Abs(got-want) > 5*math.Sqrt(want) {
				t.Errorf("RANDOM_POISSON(%d) gave %d %d times in %d, expected %.0f", mean, k, counts[k], n, want)
			}
		}
	}
}

func TestPoissonBounds(t *testing.T) {
	for _, tt := range []struct {
		src   string
		float bool
	}{
		{"RANDOM_POISSON(-1 + num_tasks * 0)", false},
		{"RANDOM_POISSON(4611686018427387905 + num_tasks * 0)", false},
		{"RANDOM_POISSON(num_tasks * 10**30)", true},
		{"RANDOM_POISSON(-num_tasks)", true},
	} {
		var err error
		if tt.float {
			e, f := outputExpr(t, "REAL("+tt.src+")", 1)
			_, err = ir.EvalFloat(e, f)
		} else {
			e, f := outputExpr(t, tt.src, 1)
			_, err = ir.EvalInt(e, f)
		}
		if err == nil || !strings.Contains(err.Error(), "the mean must be from 0 to 2**62") {
			t.Errorf("%s: error %v, want one about the mean's bounds", tt.src, err)
		}
	}
	// An infinite or NaN mean is refused before, as by every function but
	// REAL, MIN and MAX.
	for _, src := range []string{"RANDOM_POISSON(-num_tasks * 10**400)", "RANDOM_POISSON(10**400 - 10**400 + num_tasks)"} {
		e, f := outputExpr(t, "REAL("+src+")", 1)
		if _, err := ir.EvalFloat(e, f); err == nil || !strings.Contains(err.Error(), "it needs finite numbers") {
			t.Errorf("%s: error %v, want one about finite numbers", src, err)
		}
	}
}
