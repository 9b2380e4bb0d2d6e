package ir_test

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
)

var sp lang.Span

func writeFile(path, data string) error { return os.WriteFile(path, []byte(data), 0o644) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// loopValues runs `FOR EACH i IN <ranges>` both ways the ir offers (Each and
// a Cursor) and returns the values, requiring that both agree.
func loopValues(t *testing.T, ranges string, numTasks int64, bind ...string) ([]int64, error) {
	t.Helper()
	src := "FOR EACH i IN " + ranges + " TASK 0 OUTPUTS i."
	if len(bind) > 0 {
		src = "LET " + strings.Join(bind, " AND ") + " WHILE " + src
	}
	p := build(t, src)
	g := globals(t, p, numTasks)
	f := ir.NewFrame(g, p, 0)
	var loop *ir.ForEach
	switch s := p.Body[0].Stmts[0].(type) {
	case *ir.ForEach:
		loop = s
	case *ir.Let:
		for _, b := range s.Bindings {
			v, err := ir.EvalInt(b.Value, f)
			if err != nil {
				t.Fatal(err)
			}
			f.Slots[b.Slot] = v
		}
		loop = s.Body.(*ir.ForEach)
	}
	var each []int64
	err := ir.Catch(func() {
		for _, r := range loop.Ranges {
			r.Each(f, func(v int64) bool { each = append(each, v); return true })
		}
	})
	if err != nil {
		return nil, err
	}
	var walked []int64
	c := ir.NewCursor(loop.Ranges)
	err = ir.Catch(func() {
		for {
			v, ok := c.Next(f)
			if !ok {
				break
			}
			walked = append(walked, v)
		}
	})
	if err != nil {
		t.Fatalf("%s: Each succeeded but the cursor failed: %v", ranges, err)
	}
	if !slices.Equal(each, walked) {
		t.Fatalf("%s: Each gives %v but the cursor %v", ranges, each, walked)
	}
	return each, nil
}

func seq(lo, hi, step int64) []int64 {
	var out []int64
	for v := lo; (step > 0 && v <= hi) || (step < 0 && v >= hi); v += step {
		out = append(out, v)
	}
	return out
}

// The coNCePTuaL manual's examples of range expressions and FOR EACH loops,
// and the issue's own two.
func TestRanges(t *testing.T) {
	tests := []struct {
		ranges string
		want   []int64
	}{
		{"{1, 2, 4, ..., 1000}", []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}},
		{"{0, 3, ..., 10}", []int64{0, 3, 6, 9}},
		{"{2**3, 2+4, 14/2, 8-3, 1+1+1, 0, 5*2-1}", []int64{8, 6, 7, 5, 3, 0, 9}},
		{"{9, 3, 9, 5, 5, 5, 0, 1, 1, 3}", []int64{9, 3, 9, 5, 5, 5, 0, 1, 1, 3}},
		{"{10, 100, 1000, ..., 1E6}", []int64{10, 100, 1000, 10000, 100000, 1000000}},
		{"{1, 4, ..., 15}", []int64{1, 4, 7, 10, 13}},
		{"{15, 12, ..., 1}", []int64{15, 12, 9, 6, 3}},
		{"{15, 25, ..., 5}", nil},
		{"{2, 2, 2, 2, 2, 2}", []int64{2, 2, 2, 2, 2, 2}},
		{"{2, 2, ..., 2}", []int64{2}},
		{"{2, 2, ..., 1000}", seq(2, 1000, 1)}, // coNCePTuaL counts up by 1; the manual's listing says 2
		{"{20, 30, 40, ..., 55}", []int64{20, 30, 40, 50}},
		{"{20, 30, 40, ..., 30}", []int64{20, 30}},
		{"{20, 30, 40, ..., 20}", []int64{20}},
		{"{20, 30, 40, ..., 10}", nil},
		{"{2, ..., 50}", seq(2, 50, 1)},
		{"{2, 4, ..., 50}", seq(2, 50, 2)},
		{"{2, 4, 6, ..., 50}", seq(2, 50, 2)},
		{"{2, 4, 8, ..., 50}", []int64{2, 4, 8, 16, 32}},
		{"{1, 3, ..., 25}", seq(1, 25, 2)},
		{"{1, 3, 5, 7, 9, 11, 13, ..., 25}", seq(1, 25, 2)},
		{"{6561, 2187, 729, ..., 1}", []int64{6561, 2187, 729, 243, 81, 27, 9, 3, 1}},
		// Rounded, as coNCePTuaL computes it; the manual's listing truncates
		// (337, 506, 759, 1139, 1708, 2562, 3844, 5766, 8649).
		{"{100, 150, 225, ..., 10000}", []int64{100, 150, 225, 338, 506, 759, 1139, 1709, 2563, 3844, 5767, 8650}},
		{"{SQRT(s)**2 FOR EACH s IN {1, ..., 16}}", []int64{1, 1, 1, 4, 4, 4, 4, 4, 9, 9, 9, 9, 9, 9, 9, 16}},
		{"{y*10+x FOR EACH y IN {0, ..., 6} FOR EACH x IN {0, ..., 6} WHERE (x IS EVEN /\\ y IS ODD) \\/ (y IS EVEN /\\ x IS ODD)}",
			[]int64{1, 3, 5, 10, 12, 14, 16, 21, 23, 25, 30, 32, 34, 36, 41, 43, 45, 50, 52, 54, 56, 61, 63, 65}},
		{"{n/2 FOR EACH n IN {1, ..., 10}}", []int64{0, 1, 1, 2, 2, 3, 3, 4, 4, 5}},
		{"{n/2 FOR EACH n IN {1, ..., 10} WHERE n/2 IS ODD}", []int64{1, 1, 3, 3, 5}},
		{"{diag+ofs FOR EACH diag IN {0, 11, ..., 99} FOR EACH ofs IN {-1, 0, 1} WHERE diag+ofs IS IN {0, ..., 99}}",
			[]int64{0, 1, 10, 11, 12, 21, 22, 23, 32, 33, 34, 43, 44, 45, 54, 55, 56, 65, 66, 67, 76, 77, 78, 87, 88, 89, 98, 99}},
		{"{8, 7, 5, 4, 5}", []int64{8, 7, 5, 4, 5}},
		{"{1, ..., 5}", []int64{1, 2, 3, 4, 5}},
		{"{5, ..., 1}", []int64{5, 4, 3, 2, 1}},
		{"{1, ..., 5}, {8, 7, 5, 4, 5}", []int64{1, 2, 3, 4, 5, 8, 7, 5, 4, 5}},
		{"{1, 4, 7, ..., 30}", seq(1, 28, 3)},
		{"{3**1, 3**2, 3**3, ..., 3**7}", []int64{3, 9, 27, 81, 243, 729, 2187}},
		{"{0}, {1, 2, 4, ..., 256}", []int64{0, 1, 2, 4, 8, 16, 32, 64, 128, 256}},
		{"{neigh FOR EACH neigh IN {0,...,100} WHERE MESH_DISTANCE((10,10), 55, neigh) IS IN {1, 2}}",
			[]int64{35, 44, 45, 46, 53, 54, 56, 57, 64, 65, 66, 75}},
		{"{4, 4, 4, ..., 4}", []int64{4}},
		{"{4, 4, 4, 4, 4}", []int64{4, 4, 4, 4, 4}},
		{"{num_tasks/2, num_tasks/4, num_tasks/8, ..., 1}", []int64{8, 4, 2, 1}},
		{"{-1, -2, ..., -5}", []int64{-1, -2, -3, -4, -5}},
		{"{10, 8, 6, ..., 1}", []int64{10, 8, 6, 4, 2}},
		{"{10, 8, 6, ..., 2}", []int64{10, 8, 6, 4, 2}},
		{"{9223372036854775806, ..., 9223372036854775807}", []int64{9223372036854775806, 9223372036854775807}},
		{"{2, 4, 8, ..., 9223372036854775807}", func() []int64 {
			var out []int64
			for v := int64(2); v > 0; v *= 2 {
				out = append(out, v)
			}
			return out
		}()},
	}
	for _, tt := range tests {
		got, err := loopValues(t, tt.ranges, 16)
		if err != nil {
			t.Errorf("%s: %v", tt.ranges, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.ranges, got, tt.want)
		}
	}
}

// With x bound to 123, {x*10, x*9, x*8, ..., x*3} counts down by 123 and
// stops at or before x*3 = 369. (The manual's listing ends at 492, an
// artefact of its Python interpreter; the stated rule and the C backend
// include 369.)
func TestRangeWithVariables(t *testing.T) {
	got, err := loopValues(t, "{x*10, x*9, x*8, ..., x*3}", 4, "x BE 123")
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{1230, 1107, 984, 861, 738, 615, 492, 369}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestRangeLikeConceptual: progressions give the values coNCePTuaL 1.5.1b's
// C backend gives, observed under mpirun (each value printed by TASK 0
// OUTPUTS i in FOR EACH i IN the range), and fail where it fails.
func TestRangeLikeConceptual(t *testing.T) {
	tests := []struct {
		ranges string
		want   []int64 // nil with fail: an error
		fail   string
	}{
		{"{5, 5, 5, ..., 10}", []int64{5, 6, 7, 8, 9, 10}, ""},
		{"{5, 5, ..., 3}", nil, ""},
		{"{100, 150, 225, ..., 100}", []int64{100}, ""},
		{"{100, 150, 225, ..., 99}", nil, ""},
		{"{100, 75, 56, ..., 1}", []int64{100, 75, 56, 42, 31, 23, 18, 13, 10, 7, 6, 4, 3, 2}, ""}, // 1.73 rounds to 2 again: stop
		{"{100, 75, 56, ..., 0}", []int64{100, 75, 56, 42, 31, 23, 18, 13, 10, 7, 6, 4, 3, 2}, ""},
		{"{100, 50, 25, ..., 0}", []int64{100, 50, 25, 12, 6, 3, 1, 0}, ""},
		{"{1000, 750, 562, ..., 100}", []int64{1000, 750, 562, 421, 316, 237, 178, 133, 100}, ""},
		{"{10, 11, 13, ..., 20}", []int64{10, 11, 13, 15, 17, 19}, ""},
		{"{-2, 4, -8, ..., 100}", []int64{-2, 4, -8, 16, -32, 64, -128}, ""},
		{"{2, 3, 5, ..., 100}", []int64{2, 3, 5, 8, 13, 20, 32, 50, 79}, ""},
		{"{1, -1, 1, ..., 5}", nil, ""}, // dividing by -1 from 1, already below 5
		// "Unable to find an arithmetic or geometric pattern to {1, 1, 2, ..., 10}":
		// 1 * 1.5 rounds to 2, not to 1.
		{"{1, 3/2, 9/4, ..., 10}", nil, "no arithmetic or geometric pattern in {1, 1, 2, ..., 10}"},
		{"{3, 9/2, 27/4, ..., 100}", nil, "no arithmetic or geometric pattern in {3, 4, 6, ..., 100}"},
		{"{2, 4, 4, ..., 50}", nil, "no arithmetic or geometric pattern in {2, 4, 4, ..., 50}"},
		{"{1, 4, 9, ..., 81}", nil, "no arithmetic or geometric pattern in {1, 4, 9, ..., 81}"},
		{"{-100, -150, -225, ..., -10000}", nil, "no arithmetic or geometric pattern"}, // -150 rounds to -149
		{"{10000, 6667, 4444, ..., 100}", nil, "no arithmetic or geometric pattern"},   // 6666.35 rounds to 6666
		// coNCePTuaL never ends these.
		{"{1, -1, 1, ..., -5}", nil, "{1, -1, 1, ..., -5} alternates between two values"},
		{"{-1, 1, -1, ..., 5}", nil, "{-1, 1, -1, ..., 5} alternates between two values"},
	}
	for _, tt := range tests {
		got, err := loopValues(t, tt.ranges, 4)
		switch {
		case tt.fail != "":
			if err == nil || !strings.Contains(err.Error(), tt.fail) || !strings.Contains(err.Error(), "list the values instead") {
				t.Errorf("%s: got %v, error %v; want an error with %q", tt.ranges, got, err, tt.fail)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.ranges, err)
		case !slices.Equal(got, tt.want):
			t.Errorf("%s = %v, want %v", tt.ranges, got, tt.want)
		}
	}
}

// TestRound is coNCePTuaL's CONC_DBL2INT: x + 0.5 truncated toward zero.
func TestRound(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want int64
	}{
		{337.5, 338}, {1708.59375, 1709}, {2.49, 2}, {-2.7, -2}, {-0.6, 0}, {-1.6, -1},
		{1e19, math.MinInt64}, {-1e19, math.MinInt64}, {math.NaN(), math.MinInt64}, {math.Inf(1), math.MinInt64},
	} {
		if got := ir.Round(tt.x); got != tt.want {
			t.Errorf("Round(%g) = %d, want %d", tt.x, got, tt.want)
		}
	}
}

func TestRangeMembership(t *testing.T) {
	tests := []struct {
		rel  string
		want bool
	}{
		{"4 IS IN {3, ..., 5}", true},
		{"4 IS NOT IN {3, ..., 5}", false},
		{"6 IS NOT IN {3, ..., 5}", true},
		{"7 IS IN {1, 4, ..., 15}", true},
		{"8 IS IN {1, 4, ..., 15}", false},
		{"16 IS IN {1, 4, ..., 15}", false},
		{"9 IS IN {15, 12, ..., 1}", true},
		{"256 IS IN {0}, {1, 2, 4, ..., 1000}", true},
		{"0 IS IN {0}, {1, 2, 4, ..., 1000}", true},
		{"1024 IS IN {0}, {1, 2, 4, ..., 1000}", false},
		{"3 IS IN [1, 3]", true},
		{"4 IS IN [1, 3]", false},
		{"4 IS NOT IN [1, 3]", true},
		{"456 IS EVEN", true},
		{"64 MOD 6 IS ODD", false},
		{"2 DIVIDES 1234", true},
		{"2 DIVIDES 4321", false},
		{"2+2 = 4", true},
		{"2**3 > 2**4", false},
		{"456 IS EVEN \\/ 2**3 > 2**4", true},
		{"456 IS EVEN /\\ 2**3 > 2**4", false},
		{"num_tasks <> 0 /\\ 1/num_tasks = 0", true},
		{"num_tasks = 16 \\/ 1/0 = 1", true}, // short-circuit: 1/0 is never evaluated
		{"36 IS IN {y*10+x FOR EACH y IN {0, ..., 6} FOR EACH x IN {0, ..., 6} WHERE x IS EVEN /\\ y IS ODD}", true},
	}
	for _, tt := range tests {
		p := build(t, "IF "+tt.rel+" THEN TASK 0 OUTPUTS 1.")
		g := globals(t, p, 16)
		cond := p.Body[0].Stmts[0].(*ir.If).Cond
		var got bool
		if err := ir.Catch(func() { got = cond.Holds(ir.NewFrame(g, p, 0)) }); err != nil {
			t.Errorf("%s: %v", tt.rel, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s is %v, want %v", tt.rel, got, tt.want)
		}
	}
}
