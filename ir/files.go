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
	fields := strings.FieldsFunc(lines[r], func(ch rune) bool { return strings.ContainsRune(colSeps, ch) })
	k := col - 1
	if col < 0 {
		k = int64(len(fields)) + col
	}
	if k < 0 || k >= int64(len(fields)) {
		return 0, fmt.Errorf("row %d of %s has %d columns; column %d does not exist", row, file, len(fields), col)
	}
	return leadingNumber(fields[k]), nil
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

// leadingNumber parses the longest numeric prefix of s, like C's strtod.
func leadingNumber(s string) float64 {
	for end := len(s); end > 0; end-- {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		}
	}
	return 0
}
