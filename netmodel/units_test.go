package netmodel

import (
	"strings"
	"testing"
)

// unitCase is one input to a unit parser: the value it should give, or a
// fragment of the error it should give instead.
type unitCase[T comparable] struct {
	in      string
	want    T
	wantErr string
}

func testUnits[T comparable](t *testing.T, parse func(string) (T, error), cases []unitCase[T]) {
	t.Helper()
	for _, c := range cases {
		got, err := parse(c.in)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%q: unexpected error: %v", c.in, err)
		case c.wantErr == "" && got != c.want:
			t.Errorf("%q = %v, want %v", c.in, got, c.want)
		case c.wantErr != "" && err == nil:
			t.Errorf("%q = %v, want an error containing %q", c.in, got, c.wantErr)
		case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
			t.Errorf("%q: error %q does not contain %q", c.in, err, c.wantErr)
		}
	}
}

func TestParseDuration(t *testing.T) {
	testUnits(t, ParseDuration, []unitCase[Duration]{
		{in: "1.5us", want: 1500 * Nanosecond},
		{in: "1.5 us", want: 1500 * Nanosecond},
		{in: " 1.5us ", want: 1500 * Nanosecond},
		{in: "1.5µs", want: 1500 * Nanosecond},
		{in: "1.5μs", want: 1500 * Nanosecond}, // Greek mu
		{in: "800ns", want: 800 * Nanosecond},
		{in: "2ms", want: 2 * Millisecond},
		{in: "0.5s", want: 500 * Millisecond},
		{in: "100ps", want: 100},
		{in: "0.1us", want: 100 * Nanosecond},
		{in: "1e3ns", want: Microsecond},
		{in: ".25us", want: 250 * Nanosecond},
		{in: "0.4ps", want: 0},
		{in: "0.5ps", want: 1},
		{in: "0", want: 0},
		{in: "0.0", want: 0},
		{in: "0s", want: 0},
		{in: "1.5 parsecs", wantErr: `"1.5 parsecs" is not a duration (use us, ns, ms or s)`},
		{in: "5", wantErr: `"5" needs a unit`},
		{in: "", wantErr: "is not a duration"},
		{in: "us", wantErr: "is not a duration"},
		{in: "1.2.3us", wantErr: "is not a duration"},
		{in: "1 u s", wantErr: "is not a duration"},
		{in: "1US", wantErr: "is not a duration"},
		{in: "-1us", wantErr: `"-1us" is negative`},
		{in: "NaN", wantErr: "is not a duration"},
		{in: "Inf s", wantErr: "is not a duration"},
		{in: "1e400s", wantErr: "is not a duration"},
		{in: "1e8s", wantErr: "is too large"},
	})
}

func TestParsePerByte(t *testing.T) {
	testUnits(t, ParsePerByte, []unitCase[PerByte]{
		{in: "12.5GB/s", want: 80_000},
		{in: "12.5 GB/s", want: 80_000},
		{in: "100Gb/s", want: 80_000}, // bits
		{in: "1GiB/s", want: 931_323},
		{in: "10 GiB/s", want: 93_132},
		{in: "800MB/s", want: 1_250_000},
		{in: "1.5KB/s", want: 666_666_666_667},
		{in: "1.5kB/s", want: 666_666_666_667},
		{in: "1e15B/s", want: 1},
		{in: "80ps/B", want: 80_000},
		{in: "0.08ns/B", want: 80_000},
		{in: "0.08 ns/B", want: 80_000},
		{in: "1us/B", want: 1_000_000_000},
		{in: "0ns/B", want: 0},
		{in: "0", want: 0},
		{in: "0GB/s", wantErr: "a bandwidth must be positive"},
		{in: "-1GB/s", wantErr: "is negative"},
		{in: "-80ps/B", wantErr: "is negative"},
		{in: "80", wantErr: "needs a unit"},
		{in: "fast", wantErr: `"fast" is not a bandwidth or time per byte`},
		{in: "12.5GB", wantErr: "is not a bandwidth or time per byte"},
		{in: "12.5GBps", wantErr: "is not a bandwidth or time per byte"},
		{in: "80ps/b", wantErr: "is not a bandwidth or time per byte"},
		{in: "1e-10B/s", wantErr: "is too large"},
	})
}

func TestParseBandwidth(t *testing.T) {
	testUnits(t, ParseBandwidth, []unitCase[float64]{
		{in: "200GB/s", want: 200e9},
		{in: "100Gb/s", want: 12.5e9},
		{in: "1TB/s", want: 1e12},
		{in: "1TiB/s", want: 1 << 40},
		{in: "1MiB/s", want: 1 << 20},
		{in: "1KiB/s", want: 1024},
		{in: "8b/s", want: 1},
		{in: "3B/s", want: 3},
		{in: "0B/s", wantErr: "must be positive"},
		{in: "0", wantErr: "must be positive"},
		{in: "200", wantErr: "needs a unit"},
		{in: "200GB", wantErr: "is not a bandwidth"},
		{in: "80ps/B", wantErr: "is not a bandwidth"},
		{in: "1e308TB/s", wantErr: "is too large"},
	})
}

func TestParseSize(t *testing.T) {
	testUnits(t, ParseSize, []unitCase[int64]{
		{in: "64KiB", want: 65536},
		{in: "64KB", want: 64000},
		{in: "64kB", want: 64000},
		{in: "64 KiB", want: 65536},
		{in: "4096", want: 4096},
		{in: "4B", want: 4},
		{in: "1MiB", want: 1 << 20},
		{in: "1MB", want: 1e6},
		{in: "2GiB", want: 2 << 30},
		{in: "1.5KiB", want: 1536},
		{in: "1TiB", want: 1 << 40},
		{in: "0", want: 0},
		{in: "16k", wantErr: `"16k" is not a size`},
		{in: "64Kb", wantErr: "is not a size"},
		{in: "64 bytes", wantErr: "is not a size"},
		{in: "1.5B", wantErr: "is not a whole number of bytes"},
		{in: "0.5", wantErr: "is not a whole number of bytes"},
		{in: "-4", wantErr: "is negative"},
		{in: "1e19", wantErr: "is too large"},
	})
}

func TestParseFlopRate(t *testing.T) {
	testUnits(t, ParseFlopRate, []unitCase[float64]{
		{in: "50GF/s", want: 50e9},
		{in: "1.2TF/s", want: 1.2e12},
		{in: "2TF/s", want: 2e12},
		{in: "2.5 GFLOPS", want: 2.5e9},
		{in: "2.5GFLOP/s", want: 2.5e9},
		{in: "3Mflop/s", want: 3e6},
		{in: "3e9", want: 3e9},
		{in: "3e+09", want: 3e9},
		{in: "960", want: 960},
		{in: "0", wantErr: "a flop rate must be positive"},
		{in: "0GF/s", wantErr: "a flop rate must be positive"},
		{in: "-1GF/s", wantErr: "is negative"},
		{in: "2GiF/s", wantErr: `"2GiF/s" is not a flop rate`},
		{in: "2 TB/s", wantErr: "is not a flop rate"},
		{in: "fast", wantErr: "is not a flop rate"},
	})
}
