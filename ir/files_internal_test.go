package ir

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// oldLeadingNumber is leadingNumber as it was: ParseFloat on every prefix,
// longest first, quadratic in the length of s.
func oldLeadingNumber(s string) float64 {
	for end := len(s); end > 0; end-- {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		}
	}
	return 0
}

// TestLeadingNumberMatchesOld: the one-pass scanner finds the prefix the
// old search found, on strings made of the characters numbers are made of,
// except that a number beyond float64's range is now an infinity (as in
// strtod) rather than a shorter prefix.
func TestLeadingNumberMatchesOld(t *testing.T) {
	const alphabet = "0123456789012345678901234567890123456789.._eEpPxX+-aAfFiInNtTyY \\t"
	r := rand.New(rand.NewPCG(7, 8))
	cases := []string{"", "0x", "0x1", "0x1p", "0x1p3", "0x_1p3", "0x1_p3", "1_000", "1__0", "_1", "1_", "1._5", "1e_5",
		"1e5_0", "1e+", "1e-5", ".", ".5", "5.", "5..", "+.e1", "-inf", "+Infinity", "infin", "nan", "+nan", "NaNx",
		"1e400", "-1e400", "1e-400", "0x1p99999", "0x1.8p1junk", "0X1P-2", "12abc", "0b101", "0o17", "1.5e3.2"}
	for range 200000 {
		n := 1 + r.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		got := leadingNumber(s)
		if n := max(specialPrefix(s), numberPrefix(s, false), numberPrefix(s, true)); n > 0 {
			if _, err := strconv.ParseFloat(s[:n], 64); errors.Is(err, strconv.ErrRange) {
				if !math.IsInf(got, 0) {
					t.Errorf("leadingNumber(%q) = %g, want an infinity", s, got)
				}
				continue
			}
		}
		want := oldLeadingNumber(s)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("leadingNumber(%q) = %g, the old search %g", s, got, want)
		}
	}
}

// BenchmarkLeadingNumberLong reads a 200,000-digit number.
func BenchmarkLeadingNumberLong(b *testing.B) {
	s := "3." + strings.Repeat("1", 199998)
	for b.Loop() {
		if leadingNumber(s) != 28.0/9 {
			b.Fatal("wrong value")
		}
	}
}
