package ir

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// FileCache reads the tables behind FILE_DATA and STATIC_FILE_DATA. A file
// is read once per run; coNCePTuaL rereads FILE_DATA's file at every call,
// but a predicted run happens in no time, so nothing can change in between.
type FileCache struct {
	mu    sync.Mutex
	files map[string][]string // file name -> lines
	last  splitRow            // the row split last
}

// splitRow is a row split into fields. A program that reads every column of
// a long row would otherwise split it once per column: quadratic time.
type splitRow struct {
	file    string
	row     int64
	colSeps string
	fields  []string
}

func (g *Globals) files() *FileCache {
	if g.Files == nil {
		g.Files = &FileCache{}
	}
	return g.Files
}

// Cell returns the number in column col of row row of file (both counted
// from 1; negative numbers count from the end), with columns separated by
// any run of the characters in colSeps (default space and tab). Rows are
// lines. Text that is not a number reads as 0, as in coNCePTuaL.
func (c *FileCache) Cell(file string, col, row int64, colSeps, rowSeps string) (float64, error) {
	if col == 0 {
		return 0, fmt.Errorf("FILE_DATA column numbers start at 1 (or -1 from the end), not 0")
	}
	if row == 0 {
		return 0, fmt.Errorf("FILE_DATA row numbers start at 1 (or -1 from the end), not 0")
	}
	if rowSeps != "" && rowSeps != "\n" {
		return 0, fmt.Errorf("FILE_DATA supports only newline row separators")
	}
	if colSeps == "" {
		colSeps = " \t"
	}
	lines, err := c.lines(file)
	if err != nil {
		return 0, err
	}
	r := row - 1
	if row < 0 {
		r = int64(len(lines)) + row
	}
	if r < 0 || r >= int64(len(lines)) {
		return 0, fmt.Errorf("%s has %d rows; row %d does not exist", file, len(lines), row)
	}
	fields := c.fields(file, r, lines[r], colSeps)
	k := col - 1
	if col < 0 {
		k = int64(len(fields)) + col
	}
	if k < 0 || k >= int64(len(fields)) {
		return 0, fmt.Errorf("row %d of %s has %d columns; column %d does not exist", row, file, len(fields), col)
	}
	return leadingNumber(fields[k]), nil
}

// fields splits row r of file, or returns it split already.
func (c *FileCache) fields(file string, r int64, line, colSeps string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := &c.last; l.fields == nil || l.file != file || l.row != r || l.colSeps != colSeps {
		*l = splitRow{file, r, colSeps, strings.FieldsFunc(line, func(ch rune) bool { return strings.ContainsRune(colSeps, ch) })}
	}
	return c.last.fields
}

func (c *FileCache) lines(file string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.files[file]; ok {
		return l, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("FILE_DATA: %w", err)
	}
	l := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if c.files == nil {
		c.files = map[string][]string{}
	}
	c.files[file] = l
	return l, nil
}

// leadingNumber parses the longest prefix of s that is a number in Go's
// syntax (strconv.ParseFloat's), like C's strtod: 0 if there is none, and
// an infinity when the number is beyond the range of float64. It takes
// time linear in len(s).
func leadingNumber(s string) float64 {
	n := max(specialPrefix(s), numberPrefix(s, false), numberPrefix(s, true))
	v, _ := strconv.ParseFloat(s[:n], 64) // an ErrRange comes with ±Inf
	return v
}

// specialPrefix is the length of the longest prefix of s that is one of
// ParseFloat's special values: [+-]inf, [+-]infinity or nan, in any case.
func specialPrefix(s string) int {
	sign := 0
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign = 1
	}
	switch rest := s[sign:]; {
	case hasPrefixFold(rest, "infinity"):
		return sign + 8
	case hasPrefixFold(rest, "inf"):
		return sign + 3
	case sign == 0 && hasPrefixFold(rest, "nan"):
		return 3
	}
	return 0
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// numberPrefix is the length of the longest prefix of s that ParseFloat
// reads as a decimal number, or as a hexadecimal one (0x...p...) if hex,
// found in one pass that follows ParseFloat's grammar: an optional sign,
// digits with at most one point, an exponent (required in hexadecimal),
// and underscores only between digits (or after the 0x).
func numberPrefix(s string, hex bool) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	var u underscores
	if hex {
		if len(s) < i+3 || s[i] != '0' || lower(s[i+1]) != 'x' {
			return 0
		}
		i += 2
		u.saw = '0' // the 0x counts as a digit before an underscore
	}
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' || hex && 'a' <= lower(c) && lower(c) <= 'f' }
	best := 0
	dot, digits := false, false
mantissa:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !dot:
			dot = true
		case c == '_' || isDigit(c):
			digits = digits || c != '_'
		default:
			break mantissa
		}
		u.next(c, isDigit(c))
		if !hex && digits && u.ok() {
			best = i + 1
		}
	}
	exp := byte('e')
	if hex {
		exp = 'p'
	}
	if !digits || i >= len(s) || lower(s[i]) != exp {
		return best
	}
	u.next(s[i], false)
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		u.next(s[i], false)
		i++
	}
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return best
	}
	for ; i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '_'); i++ {
		u.next(s[i], s[i] != '_')
		if u.ok() {
			best = i + 1
		}
	}
	return best
}

// underscores follows ParseFloat's rule for underscores as it reads a
// number one byte at a time: each must come between digits.
type underscores struct {
	saw byte // '0' after a digit, '_' after an underscore, 0 otherwise
	bad bool
}

func (u *underscores) next(c byte, digit bool) {
	switch {
	case digit:
		u.saw = '0'
	case c == '_':
		u.bad = u.bad || u.saw != '0'
		u.saw = '_'
	default:
		u.bad = u.bad || u.saw == '_'
		u.saw = 0
	}
}

func (u *underscores) ok() bool { return !u.bad && u.saw != '_' }

func lower(c byte) byte { return c | 0x20 }
