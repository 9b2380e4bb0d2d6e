package trace

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// symCompress runs stream through a fresh compressor.
func symCompress(window int, stream []int32) (*SymbolCompressor, Seq) {
	c := NewSymbolCompressor(window)
	for _, s := range stream {
		c.Push(s)
	}
	return c, c.Finish()
}

// symLoop and symRep build expected streams: symRep(n, parts...) is the
// concatenation of parts repeated n times.
func symRep(n int, parts ...[]int32) []int32 {
	var one []int32
	for _, p := range parts {
		one = append(one, p...)
	}
	var out []int32
	for range n {
		out = append(out, one...)
	}
	return out
}

func symS(syms ...int32) []int32 { return syms }

// symItems counts the items of s and of every body under it, once per
// occurrence: the size of the compressed tree.
func symItems(s Seq) int {
	n := len(s)
	for _, it := range s {
		if it.Loop != nil {
			n += symItems(it.Loop.Body)
		}
	}
	return n
}

// symCheckWellFormed checks the invariants every result must keep: loops
// repeat at least twice a non-empty body of at most window items.
func symCheckWellFormed(t *testing.T, s Seq, window int) {
	t.Helper()
	for _, it := range s {
		if it.Loop == nil {
			continue
		}
		if it.Loop.Count < 2 || len(it.Loop.Body) == 0 || len(it.Loop.Body) > window {
			t.Fatalf("malformed loop: count %d, body of %d items (window %d)", it.Loop.Count, len(it.Loop.Body), window)
		}
		symCheckWellFormed(t, it.Loop.Body, window)
	}
}

func symCheckLossless(t *testing.T, window int, stream []int32) Seq {
	t.Helper()
	_, s := symCompress(window, stream)
	got := slices.Collect(s.All())
	if !slices.Equal(got, stream) {
		t.Fatalf("window %d: expansion differs from the input\ninput %v\ngot   %v\ncompressed %v", window, stream, got, s)
	}
	if n := s.Len(); n != int64(len(stream)) {
		t.Fatalf("Len() = %d, want %d", n, len(stream))
	}
	w := window
	if w <= 0 {
		w = DefaultWindow
	}
	symCheckWellFormed(t, s, w)
	return s
}

func TestSymbolCompressorShapes(t *testing.T) {
	const a, b, c, d, x, y, z, w = 0, 1, 2, 3, 10, 11, 12, 13
	tests := []struct {
		name   string
		stream []int32
		want   string
	}{
		{"empty", nil, ""},
		{"single", symS(a), "0"},
		{"distinct", symS(a, b, c, d), "0 1 2 3"},
		{"a^100", symRep(100, symS(a)), "(0)^100"},
		{"(ab)^50 c", append(symRep(50, symS(a, b)), c), "(0 1)^50 2"},
		{"c (ab)^50", append(symS(c), symRep(50, symS(a, b))...), "2 (0 1)^50"},
		{"nested ((ab)^3 c)^5", symRep(5, symRep(3, symS(a, b)), symS(c)), "((0 1)^3 2)^5"},
		{"LU ((xy)^62 zw)^249", symRep(249, symRep(62, symS(x, y)), symS(z, w)), "((10 11)^62 12 13)^249"},
		{"three levels", symRep(4, symRep(3, symRep(2, symS(a)), symS(b)), symS(c)), "(((0)^2 1)^3 2)^4"},
		{"loop then body", symRep(7, symS(a, b, c)), "(0 1 2)^7"},
		{"varying inner count", append(append(symRep(3, symS(a)), b), append(symRep(5, symS(a)), b)...), "(0)^3 1 (0)^5 1"},
		{"prefix and suffix", append(append(symS(d), symRep(10, symS(a, b, c))...), d), "3 (0 1 2)^10 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := symCheckLossless(t, 0, tc.stream)
			if got := s.String(); got != tc.want {
				t.Errorf("compressed to %s, want %s", got, tc.want)
			}
		})
	}
}

func TestSymbolCompressorWindow(t *testing.T) {
	stream := symRep(10, symS(0, 1, 2, 3))
	_, s := symCompress(3, stream)
	if got, want := s.String(), "0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3"; got != want {
		t.Errorf("window 3 compressed a 4-symbol period to %s, want it flat", got)
	}
	_, s = symCompress(4, stream)
	if got, want := s.String(), "(0 1 2 3)^10"; got != want {
		t.Errorf("window 4: got %s, want %s", got, want)
	}
	long := make([]int32, 1000)
	for i := range long {
		long[i] = int32(i)
	}
	_, s = symCompress(1<<30, symRep(3, long))
	if len(s) != 1 || s[0].Loop == nil || s[0].Loop.Count != 3 || len(s[0].Loop.Body) != len(long) {
		t.Errorf("window 2^30 did not find a period of 1000: %d top-level items", len(s))
	}
	// The window counts top-level items, so nested bodies fold into
	// bodies far longer than the window once expanded.
	_, s = symCompress(2, symRep(6, symRep(100, symS(0)), symS(1)))
	if got, want := s.String(), "((0)^100 1)^6"; got != want {
		t.Errorf("window 2: got %s, want %s", got, want)
	}
}

// TestSymbolCompressorRandom checks losslessness on uniform random
// streams, where repeats are short and accidental.
func TestSymbolCompressorRandom(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		alphabet := []int32{1, 2, 3, 5, 50}[seed%5]
		n := r.IntN(400)
		stream := make([]int32, n)
		for i := range stream {
			stream[i] = r.Int32N(alphabet) - 1 // include -1: symbols are any int32
		}
		window := []int{0, 1, 2, 3, 8}[seed/5%5]
		symCheckLossless(t, window, stream)
	}
}

// symRandomProgram generates a random nested-loop program over a small
// alphabet, whose expansion is a stream with real loop structure.
func symRandomProgram(r *rand.Rand, depth, alphabet int) Seq {
	n := 1 + r.IntN(5)
	s := make(Seq, n)
	for i := range s {
		if depth > 0 && r.IntN(2) == 0 {
			s[i] = Item{Loop: &SeqLoop{Count: int64(1 + r.IntN(6)), Body: symRandomProgram(r, depth-1, alphabet)}}
		} else {
			s[i] = Item{Sym: int32(r.IntN(alphabet))}
		}
	}
	return s
}

func TestSymbolCompressorRandomPrograms(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 2))
		prog := symRandomProgram(r, 1+r.IntN(4), 1+r.IntN(6))
		if prog.Len() > 20000 {
			continue
		}
		stream := slices.Collect(prog.All())
		for _, window := range []int{0, 2, 5} {
			s := symCheckLossless(t, window, stream)
			if window == 0 && symItems(s) > len(stream) {
				t.Errorf("seed %d: compressed to %d items, more than the %d symbols", seed, symItems(s), len(stream))
			}
		}
	}
}

// TestSymbolCompressorPeriodic checks that memory follows the compressed
// size: a million symbols of period 7 need a handful of items, and the
// working stack never grows past a few periods.
func TestSymbolCompressorPeriodic(t *testing.T) {
	period := symS(4, 8, 15, 16, 23, 42, 7)
	const n = 1_000_000
	c := NewSymbolCompressor(0)
	maxStack := 0
	for i := range n {
		c.Push(period[i%len(period)])
		maxStack = max(maxStack, len(c.stack))
	}
	s := c.Finish()
	if got, want := s.String(), "(4 8 15 16 23 42 7)^142857 4"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if maxStack > 2*len(period)+1 {
		t.Errorf("stack grew to %d items for a period of %d", maxStack, len(period))
	}
	if len(c.arena) > 2*len(period) || len(c.bodies) > 2 {
		t.Errorf("interned %d bodies of %d items in all", len(c.bodies), len(c.arena))
	}
	if s.Len() != n {
		t.Errorf("Len() = %d, want %d", s.Len(), n)
	}

	// A nested period as well: ((0 1)^3 2 (3)^4)^n.
	c = NewSymbolCompressor(0)
	unit := symRep(1, symRep(3, symS(0, 1)), symS(2), symRep(4, symS(3)))
	for i := range n {
		c.Push(unit[i%len(unit)])
	}
	if got := symItems(c.Finish()); got > 12 {
		t.Errorf("nested period compressed to %d items: %v", got, c.Finish())
	}
}

func TestSymbolCompressorFinishTwice(t *testing.T) {
	c := NewSymbolCompressor(0)
	for _, s := range symRep(5, symS(1, 2)) {
		c.Push(s)
	}
	if got, want := c.Finish().String(), "(1 2)^5"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	for _, s := range symRep(5, symS(1, 2)) {
		c.Push(s)
	}
	if got, want := c.Finish().String(), "(1 2)^10"; got != want {
		t.Fatalf("after more pushes: got %s, want %s", got, want)
	}
}

func TestSymbolCompressorDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	stream := slices.Collect(symRandomProgram(r, 4, 3).All())
	_, s1 := symCompress(0, stream)
	_, s2 := symCompress(0, stream)
	if s1.String() != s2.String() {
		t.Fatalf("two runs differ:\n%v\n%v", s1, s2)
	}
}

func TestSymbolCompressorSharing(t *testing.T) {
	// (0 1)^3 appears in two different outer bodies; both must point at
	// one loop, since the compressor interns it.
	stream := symRep(2, symRep(3, symS(0, 1)), symS(2))
	stream = append(stream, 9)
	stream = append(stream, symRep(3, symS(0, 1))...)
	_, s := symCompress(0, stream)
	if got, want := s.String(), "((0 1)^3 2)^2 9 (0 1)^3"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if s[0].Loop.Body[0].Loop != s[2].Loop {
		t.Errorf("equal loops were built twice")
	}
}

func TestSeqLenSaturates(t *testing.T) {
	big := Seq{{Loop: &SeqLoop{Count: math.MaxInt64 / 2, Body: Seq{{Sym: 1}, {Sym: 2}, {Sym: 3}}}}}
	if got := big.Len(); got != math.MaxInt64 {
		t.Errorf("Len() = %d, want MaxInt64", got)
	}
	if got := append(Seq{{Sym: 0}}, Seq{{Loop: &SeqLoop{Count: math.MaxInt64, Body: Seq{{Sym: 1}}}}}...).Len(); got != math.MaxInt64 {
		t.Errorf("Len() = %d, want MaxInt64", got)
	}
	var seen []int32
	big.Expand(func(s int32) bool {
		seen = append(seen, s)
		return len(seen) < 5
	})
	if !slices.Equal(seen, symS(1, 2, 3, 1, 2)) {
		t.Errorf("early stop yielded %v", seen)
	}
}

// BenchmarkSymbolCompressor compresses a whole 64Ki-symbol stream per
// op, Finish included, so B/op and allocs/op are those of one stream.
func BenchmarkSymbolCompressor(b *testing.B) {
	const n = 1 << 16
	nested := make([]int32, 0, n+128)
	for len(nested) < n {
		// An LU-like sweep: ((x y)^62 z w)^k.
		for range 62 {
			nested = append(nested, 0, 1)
		}
		nested = append(nested, 2, 3)
	}
	r := rand.New(rand.NewPCG(1, 1))
	random := make([]int32, n)
	for i := range random {
		random[i] = r.Int32N(16)
	}
	distinct := make([]int32, n)
	for i := range distinct {
		distinct[i] = int32(i)
	}
	for _, bc := range []struct {
		name   string
		stream []int32
	}{{"nested", nested[:n]}, {"random16", random}, {"distinct", distinct}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := NewSymbolCompressor(0)
				for _, s := range bc.stream {
					c.Push(s)
				}
				_ = c.Finish()
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "symbols/s")
		})
	}
}

// TestPushRepeated: pushing a block k times over in one call expands to
// the stream of pushing it k times, whatever the block, and folds the
// same on streams of a prefix and a repeated block, rotated bodies
// included; a million repeats cost a few pushes.
func TestPushRepeated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		prefix := make([]int32, rng.IntN(6))
		for i := range prefix {
			prefix[i] = rng.Int32N(3)
		}
		block := make([]int32, 1+rng.IntN(5))
		for i := range block {
			block[i] = rng.Int32N(3)
		}
		k := int64(1 + rng.IntN(40))
		c := NewSymbolCompressor(0)
		for _, s := range prefix {
			c.Push(s)
		}
		c.PushRepeated(block, k)
		stream := append(slices.Clone(prefix), symRep(int(k), block)...)
		got := c.Finish()
		if !slices.Equal(slices.Collect(got.All()), stream) {
			t.Fatalf("trial %d: prefix %v, block %v x %d: %v expands to %v", trial, prefix, block, k, got, slices.Collect(got.All()))
		}
		if _, want := symCompress(0, stream); got.String() != want.String() {
			t.Errorf("trial %d: prefix %v, block %v x %d: folded %v; pushing each gives %v", trial, prefix, block, k, got, want)
		}
	}
	// A rotated body: the block ends part-way through the loop's body.
	c := NewSymbolCompressor(0)
	for _, s := range symRep(3, symS(1, 2, 3)) {
		c.Push(s)
	}
	c.Push(1)
	c.PushRepeated(symS(2, 3, 1), 1_000_000)
	if got, want := c.Finish().String(), "(1 2 3)^1000003 1"; got != want {
		t.Errorf("rotated body: %s; want %s", got, want)
	}
}
