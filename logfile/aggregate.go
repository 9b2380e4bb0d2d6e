package logfile

import (
	"fmt"
	"math"
	"slices"
)

// Func is an aggregate function.
type Func int

// Aggregate functions, in coNCePTuaL's order.
const (
	AllData Func = iota // every value: "(all data)"
	Mean
	HarmonicMean
	GeometricMean
	Median
	MAD // median absolute deviation
	StdDev
	Variance
	Sum
	Minimum
	Maximum
	Final
	Only // THE e: every value must be the same
	Histogram
	Percentile
)

var labels = [...]string{
	AllData: "(all data)", Mean: "(mean)", HarmonicMean: "(harm. mean)", GeometricMean: "(geom. mean)",
	Median: "(median)", MAD: "(med. abs. dev.)", StdDev: "(std. dev.)", Variance: "(variance)",
	Sum: "(sum)", Minimum: "(minimum)", Maximum: "(maximum)", Final: "(final)", Only: "(only value)",
	Histogram: `(hist. values)","(hist. tallies)`,
}

// Label is the description row's text for an aggregate; pct is the
// percentile for Percentile.
func Label(f Func, pct float64) string {
	if f == Percentile {
		p := fmt.Sprintf("%.0f", pct)
		return "(" + p + ordinal(p) + " percentile)"
	}
	return labels[f]
}

func ordinal(num string) string {
	if n := len(num); n >= 2 && num[n-2] == '1' {
		return "th"
	}
	switch num[len(num)-1] {
	case '1':
		return "st"
	case '2':
		return "nd"
	case '3':
		return "rd"
	}
	return "th"
}

// Aggregate reduces data to one value with f (not AllData or Histogram).
// It fails for Only when the values differ and for a percentile outside
// 0..100, as coNCePTuaL's library does.
func Aggregate(f Func, data []float64, pct float64) (float64, error) {
	n := float64(len(data))
	switch f {
	case Mean:
		return sum(data) / n, nil
	case HarmonicMean:
		s := 0.0
		for _, x := range data {
			s += 1 / x
		}
		return n / s, nil
	case GeometricMean:
		s := 0.0
		for _, x := range data {
			s += math.Log(x)
		}
		return math.Exp(s / n), nil
	case Median:
		return median(data), nil
	case MAD:
		m := median(data)
		dev := make([]float64, len(data))
		for i, x := range data {
			dev[i] = math.Abs(x - m)
		}
		return median(dev), nil
	case StdDev:
		return math.Sqrt(variance(data)), nil
	case Variance:
		return variance(data), nil
	case Sum:
		return sum(data), nil
	case Minimum, Maximum:
		// coNCePTuaL's loop, from the largest double (or its opposite):
		// a NaN is never taken, and an infinity gives that double.
		m := math.MaxFloat64
		if f == Maximum {
			m = -m
		}
		for _, x := range data {
			if f == Minimum && x < m || f == Maximum && x > m {
				m = x
			}
		}
		return m, nil
	case Final:
		return data[len(data)-1], nil
	case Only:
		for _, x := range data[1:] {
			if x != data[0] {
				return 0, fmt.Errorf("a THE column was logged more than one value (%s and %s)", Number(data[0]), Number(x))
			}
		}
		return data[0], nil
	case Percentile:
		return percentile(data, pct)
	}
	return 0, fmt.Errorf("aggregate %d does not reduce to one value", f)
}

func sum(data []float64) float64 {
	s := 0.0
	for _, x := range data {
		s += x
	}
	return s
}

// variance is the unbiased sample variance, 0 for fewer than two values.
func variance(data []float64) float64 {
	if len(data) <= 1 {
		return 0
	}
	m := sum(data) / float64(len(data))
	v := 0.0
	for _, x := range data {
		v += (x - m) * (x - m)
	}
	return v / float64(len(data)-1)
}

func median(data []float64) float64 {
	s := slices.Sorted(slices.Values(data))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile interpolates between order statistics: with the data sorted
// x_1..x_n and h = (n-1)p/100 + 1, it is x_⌊h⌋ + (h-⌊h⌋)(x_⌊h⌋+1 - x_⌊h⌋).
func percentile(data []float64, p float64) (float64, error) {
	if p < 0 || p > 100 {
		return 0, fmt.Errorf("percentile %g is invalid (it must be from 0 to 100)", p)
	}
	s := slices.Sorted(slices.Values(data))
	n := len(s)
	h := float64(n-1)*p/100 + 1
	k := int(math.Floor(h))
	if k >= n {
		return s[n-1], nil
	}
	return s[k-1] + (h-float64(k))*(s[k]-s[k-1]), nil
}

// Hist returns the distinct values of data in ascending order with their
// tallies.
func Hist(data []float64) (values, tallies []float64) {
	s := slices.Sorted(slices.Values(data))
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		values = append(values, s[i])
		tallies = append(tallies, float64(j-i))
		i = j
	}
	return values, tallies
}
