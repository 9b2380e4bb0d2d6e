package lang

import (
	"fmt"
	"math"
	"strings"
)

// maxIntLiteral bounds integer literals: values are 64-bit signed.
const maxIntLiteral = math.MaxInt64

// IntLiteralValue evaluates the text of an unsigned integer literal,
// suffixes included: "64K" is 65536, "1E6" is 1000000, "95TH" is 95.
func IntLiteralValue(text string) (int64, error) {
	t := strings.ToLower(text)
	if len(t) > 2 {
		switch t[len(t)-2:] {
		case "st", "nd", "rd", "th":
			t = t[:len(t)-2]
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	digits, suffix := t[:i], t[i:]
	tooBig := fmt.Errorf("integer %s is too large: values are 64-bit, at most %d", text, int64(maxIntLiteral))
	var v uint64
	for _, d := range digits {
		if v > (maxIntLiteral-uint64(d-'0'))/10 {
			return 0, tooBig
		}
		v = v*10 + uint64(d-'0')
	}
	mul := uint64(1)
	switch {
	case suffix == "":
	case suffix == "k":
		mul = 1 << 10
	case suffix == "m":
		mul = 1 << 20
	case suffix == "g":
		mul = 1 << 30
	case suffix == "t":
		mul = 1 << 40
	case suffix[0] == 'e' && len(suffix) > 1:
		exp := 0
		for _, d := range suffix[1:] {
			exp = exp*10 + int(d-'0')
			if exp > 18 {
				return 0, tooBig
			}
		}
		for range exp {
			mul *= 10
		}
	default:
		return 0, fmt.Errorf("malformed integer %s", text)
	}
	if v != 0 && mul > maxIntLiteral/v {
		return 0, tooBig
	}
	return int64(v * mul), nil
}
