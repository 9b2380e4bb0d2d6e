package parser

import (
	"fmt"
	"math"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/lang"
)

// Options tune parsing.
type Options struct {
	// MaxMemory bounds the memory that parsing and checking the program
	// may take, in bytes. A program whose estimate (see the constants
	// below) is larger is refused with the estimate, as soon as scanning
	// shows it and before the grammar runs. 0 means half the physical
	// memory (4 GiB where it cannot be read); the command line's
	// --max-memory sets it.
	MaxMemory int64
}

// The peak memory of parsing and checking a program is about tokenBytes a
// token and sourceBytes a byte of source (the source, a copy as a string,
// and the garbage collector's headroom on both). Tokens cost the most: the
// grammar's tree of nodes and the syntax tree built from it. Measured
// peaks are 470 to 560 bytes a token on programs of 0.01 to 0.9 tokens a
// byte, benchmark-like ones (0.2 tokens a byte) at the low end.
const (
	tokenBytes  = 600
	sourceBytes = 6
)

// maxSource bounds a source's size: token ends are kept as 32-bit offsets.
const maxSource = math.MaxInt32

// tokenBudget returns how many tokens a source of n bytes may have within
// the memory limit, or a negative number if the source alone is too big.
func tokenBudget(n int, opts Options) int {
	if n > maxSource {
		return -1
	}
	return int((memlimit.Or(opts.MaxMemory) - sourceBytes*int64(n)) / tokenBytes)
}

// tooBig is the error for a source that would take more memory to parse
// than the limit: at pos, after tokens tokens, scanning has shown it (at
// the start if the source alone is too big).
func tooBig(size int, pos lexer.Position, tokens int, opts Options) *lang.Diagnostic {
	d := &lang.Diagnostic{Pos: toLangPos(pos), Severity: lang.Error,
		Hint: "split the program into smaller ones, or give it more memory with --max-memory"}
	if size > maxSource {
		d.Msg = fmt.Sprintf("the program is %s long; programs may be at most %s", memlimit.Format(int64(size)), memlimit.Format(maxSource))
		return d
	}
	if pos.Offset == 0 {
		d.Msg = fmt.Sprintf("parsing the program would take more than %s of memory for its %s of source alone, over %s",
			memlimit.Format(sourceBytes*int64(size)), memlimit.Format(int64(size)), memlimit.Describe(opts.MaxMemory))
		return d
	}
	// Extrapolate from the part scanned to the whole source.
	tokens = int(float64(tokens) * float64(size) / float64(pos.Offset))
	est := tokenBytes*int64(tokens) + sourceBytes*int64(size)
	d.Msg = fmt.Sprintf("parsing the program would take about %s of memory (%s of source, about %d tokens at %d bytes each), over %s",
		memlimit.Format(est), memlimit.Format(int64(size)), tokens, tokenBytes, memlimit.Describe(opts.MaxMemory))
	return d
}
