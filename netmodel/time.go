package netmodel

import (
	"fmt"
	"math"
	"math/bits"
)

// Duration is a span of simulated time in picoseconds. int64 picoseconds
// reach about 106 days.
type Duration int64

// Common durations.
const (
	Picosecond  Duration = 1
	Nanosecond           = 1000 * Picosecond
	Microsecond          = 1000 * Nanosecond
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
)

// MaxTime is the latest simulated time a run may reach: 2^61 ps, about
// 26.7 days. It is a quarter of the int64 range, so that a clock reading
// below it plus two costs that are each below it too (a message's o and
// (n-1)O, say; see LogGP.MaxBytes and the checks of Platform.Validate)
// cannot overflow: a simulator need only compare each cost it computes
// from the program's quantities, and the clock, with MaxTime.
const MaxTime Duration = 1 << 61

// Micros returns the duration in microseconds.
func (d Duration) Micros() float64 { return float64(d) / float64(Microsecond) }

// FromMicros converts microseconds to a Duration, rounding to the nearest
// picosecond and saturating instead of overflowing.
func FromMicros(us float64) Duration { return roundPicos(us * float64(Microsecond)) }

// roundPicos converts picoseconds to a Duration, rounding to the nearest
// and saturating; negative times are 0.
func roundPicos(ps float64) Duration {
	switch {
	case math.IsNaN(ps) || ps <= 0:
		return 0
	case ps >= math.MaxInt64:
		return math.MaxInt64
	}
	return Duration(math.Round(ps))
}

func (d Duration) String() string {
	switch {
	case d >= Second || d <= -Second:
		return fmt.Sprintf("%.6gs", float64(d)/float64(Second))
	case d >= Millisecond || d <= -Millisecond:
		return fmt.Sprintf("%.6gms", float64(d)/float64(Millisecond))
	case d >= Microsecond || d <= -Microsecond:
		return fmt.Sprintf("%.6gus", float64(d)/float64(Microsecond))
	case d >= Nanosecond || d <= -Nanosecond:
		return fmt.Sprintf("%.6gns", float64(d)/float64(Nanosecond))
	}
	return fmt.Sprintf("%dps", int64(d))
}

// PerByte is a cost per byte in femtoseconds per byte: the inverse of a
// bandwidth. 12.5 GB/s is 80,000 fs/B.
type PerByte int64

// Times returns the cost of n bytes, rounded to the nearest picosecond,
// or MaxInt64 if that does not fit in a Duration. The femtoseconds take
// 128 bits past 2^63 fs (about 2.6 hours); one 128-by-64-bit division
// keeps Times small enough to inline on every message's path.
func (p PerByte) Times(n int64) Duration {
	if n <= 0 || p <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(p))
	if hi >= 1000 { // the picoseconds need more than 64 bits
		return math.MaxInt64
	}
	ps, rem := bits.Div64(hi, lo, 1000)
	if ps >= math.MaxInt64 {
		return math.MaxInt64
	}
	if rem >= 500 {
		ps++
	}
	return Duration(ps)
}

// Bandwidth returns the bandwidth in bytes per second (0 for an infinite
// one).
func (p PerByte) Bandwidth() float64 {
	if p == 0 {
		return 0
	}
	return 1e15 / float64(p)
}

// FromBandwidth converts bytes per second to a per-byte cost.
func FromBandwidth(bytesPerSecond float64) PerByte {
	if bytesPerSecond <= 0 || math.IsInf(bytesPerSecond, 1) {
		return 0
	}
	return PerByte(math.Round(1e15 / bytesPerSecond))
}
