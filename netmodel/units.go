package netmodel

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// Quantities in platform files are numbers followed by a unit, with or
// without a space between them: "1.5us", "12.5 GB/s". Decimal prefixes
// (k or K, M, G, T) are powers of 1000 and binary ones (Ki, Mi, Gi, Ti)
// powers of 1024; in bandwidths a B counts bytes and a b bits. Zero needs
// no unit. Quantities are never negative.

// A unitTable lists the units one kind of quantity may be written in.
type unitTable struct {
	kind    string             // what the quantity is, for errors: "a duration"
	hint    string             // the units to suggest in errors
	factors map[string]float64 // from each unit to the base unit
	bare    bool               // a number without a unit is in the base unit
}

// productUnits combines every prefix with every unit:
// productUnits({"k": 1e3}, {"B": 1}) is {"kB": 1e3}.
func productUnits(prefixes, units map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(prefixes)*len(units))
	for p, pf := range prefixes {
		for u, uf := range units {
			out[p+u] = pf * uf
		}
	}
	return out
}

var (
	// timeUnits are in picoseconds. µ comes as the micro sign and as
	// the Greek letter mu.
	timeUnits = map[string]float64{
		"ps": 1, "ns": 1e3, "us": 1e6, "\u00b5s": 1e6, "\u03bcs": 1e6, "ms": 1e9, "s": 1e12,
	}
	decimalPrefixes = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
	bytePrefixes    = func() map[string]float64 {
		p := map[string]float64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
		maps.Copy(p, decimalPrefixes)
		return p
	}()

	durationUnits = unitTable{
		kind:    "a duration",
		hint:    "use us, ns, ms or s",
		factors: timeUnits,
	}
	// perByteUnits are in femtoseconds per byte.
	perByteUnits = unitTable{
		kind:    "a bandwidth or time per byte",
		hint:    "use a bandwidth such as 12.5GB/s or 100Gb/s, or a time per byte such as 80ps/B",
		factors: productUnits(timeUnits, map[string]float64{"/B": 1e3}),
	}
	bandwidthUnits = unitTable{
		kind:    "a bandwidth",
		hint:    "use e.g. 12.5GB/s, 100Gb/s (bits) or 10GiB/s",
		factors: productUnits(bytePrefixes, map[string]float64{"B/s": 1, "b/s": 1.0 / 8}),
	}
	sizeUnits = unitTable{
		kind:    "a size",
		hint:    "use B, KB, KiB, MB, MiB, GB or GiB, or a plain number of bytes",
		factors: productUnits(bytePrefixes, map[string]float64{"B": 1}),
		bare:    true,
	}
	flopUnits = unitTable{
		kind:    "a flop rate",
		hint:    "use F/s or FLOPS with k, M, G or T, or a plain number per second",
		factors: productUnits(decimalPrefixes, map[string]float64{"F/s": 1, "FLOP/s": 1, "flop/s": 1, "FLOPS": 1}),
		bare:    true,
	}
)

// splitQuantity splits "1.5 us" into 1.5 and "us".
func splitQuantity(s string) (value float64, unit string, ok bool) {
	s = strings.TrimSpace(s)
	end := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789.+-eE", r) })
	if end < 0 {
		end = len(s)
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	if err != nil {
		return 0, "", false
	}
	return v, strings.TrimSpace(s[end:]), true
}

// parse returns the quantity s in the table's base unit.
func (u *unitTable) parse(s string) (float64, error) {
	v, unit, ok := splitQuantity(s)
	factor, known := u.factors[unit]
	if ok && unit == "" {
		// Zero is zero in any unit.
		factor, known = 1, u.bare || v == 0
		if !known {
			return 0, fmt.Errorf("%q needs a unit (%s)", s, u.hint)
		}
	}
	switch x := v * factor; {
	case !ok || !known:
		return 0, fmt.Errorf("%q is not %s (%s)", s, u.kind, u.hint)
	case v < 0:
		return 0, fmt.Errorf("%q is negative", s)
	case math.IsInf(x, 0):
		return 0, fmt.Errorf("%q is too large", s)
	default:
		return x, nil
	}
}

// roundQuantity rounds x, the value of the quantity s, to an integer.
func roundQuantity(x float64, s string) (int64, error) {
	r := math.Round(x)
	if r >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(r), nil
}

// positiveRate checks that the rate x, the value of s, is not zero.
func positiveRate(x float64, s, kind string) (float64, error) {
	if x == 0 {
		return 0, fmt.Errorf("%q: %s must be positive", s, kind)
	}
	return x, nil
}

// ParseDuration parses a duration such as "1.5us", "1.5 us", "800ns",
// "100ps", "2ms" or "0.5s", rounding to the nearest picosecond. Units are
// ps, ns, us (or µs), ms and s; "0" needs none.
func ParseDuration(s string) (Duration, error) {
	ps, err := durationUnits.parse(s)
	if err != nil {
		return 0, err
	}
	n, err := roundQuantity(ps, s)
	return Duration(n), err
}

// ParsePerByte parses a cost per byte, given either as a bandwidth
// ("12.5GB/s", "100Gb/s", "10 GiB/s"; see ParseBandwidth) or as a time per
// byte ("80ps/B", "0.08ns/B", "0"), rounding to the nearest femtosecond.
func ParsePerByte(s string) (PerByte, error) {
	var fs float64
	if _, unit, ok := splitQuantity(s); ok && bandwidthUnits.factors[unit] != 0 {
		bw, err := ParseBandwidth(s)
		if err != nil {
			return 0, err
		}
		fs = 1e15 / bw
	} else {
		var err error
		if fs, err = perByteUnits.parse(s); err != nil {
			return 0, err
		}
	}
	n, err := roundQuantity(fs, s)
	return PerByte(n), err
}

// ParseBandwidth parses a positive bandwidth such as "12.5GB/s",
// "100Gb/s" (bits), "10 GiB/s" or "800MB/s" into bytes per second.
func ParseBandwidth(s string) (float64, error) {
	bw, err := bandwidthUnits.parse(s)
	if err != nil {
		return 0, err
	}
	return positiveRate(bw, s, "a bandwidth")
}

// ParseSize parses a whole number of bytes: "4096", "64KiB", "64KB"
// (64,000), "1MiB", "4B".
func ParseSize(s string) (int64, error) {
	b, err := sizeUnits.parse(s)
	if err != nil {
		return 0, err
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return roundQuantity(b, s)
}

// ParseFlopRate parses a positive rate of floating-point operations such
// as "50GF/s", "1.2TF/s", "2.5 GFLOPS" or "3e9" (a plain number is per
// second) into operations per second.
func ParseFlopRate(s string) (float64, error) {
	r, err := flopUnits.parse(s)
	if err != nil {
		return 0, err
	}
	return positiveRate(r, s, "a flop rate")
}
