package dperf

import (
	"io"

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
	// maxLine bounds a line; dPerf's lines are short.
	maxLine = 1 << 20
)

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
