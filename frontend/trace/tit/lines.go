package tit

import (
	"io"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace/wordline"
)

// Limits that keep damaged input from costing unbounded time or memory.
const (
	// maxRanks bounds rank numbers: a trace of more ranks is refused
	// rather than allocated for.
	maxRanks = 1 << 20
	// maxIdleRanks bounds the ranks without lines where the highest rank
	// that has lines says how many ranks there are.
	maxIdleRanks = 4096
	// maxCount bounds element counts (as the ScalaTrace reader does).
	maxCount = 1 << 40
	// maxLine bounds a line: an alltoallv over maxRanks ranks needs about
	// 2*maxRanks numbers of up to 12 bytes.
	maxLine = 32 << 20
)

// isInteger reports whether text is a decimal integer with an optional
// sign.
func isInteger(text string) bool {
	text = strings.TrimPrefix(strings.TrimPrefix(text, "-"), "+")
	if text == "" {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return false
		}
	}
	return true
}

// parseInt32 reads a decimal integer that fits a C int, as std::stoi
// does (less stoi's tolerance for trailing garbage).
func parseInt32(text string) (int, bool) {
	if !isInteger(text) {
		return 0, false
	}
	v, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// The line reader is shared with the other SimGrid-style format.
type (
	field = wordline.Field
	line  = wordline.Line
)

func newScanner(name string, r io.Reader) *wordline.Scanner {
	return wordline.NewScanner(name, r, maxLine)
}

func parseRankText(text string) (int, bool) { return wordline.ParseRank(text, maxRanks) }

var (
	isDecimal  = wordline.IsDecimal
	parseFloat = wordline.ParseFloat
	quote      = wordline.Quote
)
