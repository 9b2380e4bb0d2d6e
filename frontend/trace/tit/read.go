package tit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/wordline"
)

// source is one file of a trace, which the reader reads twice.
type source struct {
	name string
	open func() (io.ReadCloser, error)
	// rank is the rank an index gives the file, whose lines for other
	// ranks are skipped; -1 if each line's rank says whose it is.
	rank int
}

func fileSource(path string, rank int) source {
	return source{name: path, rank: rank, open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// Read reads the TIT trace at path, which is one of:
//
//   - an index, as smpirun -replay takes: one trace file per line, rank i's
//     on line i, each path absolute or relative to the index's directory
//     (or, as SimGrid opens them, to the working directory). An index of
//     one line names a file holding every rank's lines;
//   - a trace file holding every rank's lines, each starting with its rank;
//   - a directory of such files (an index among them is skipped), each
//     rank's lines in one of them.
//
// With an index there are as many ranks as files; otherwise the highest
// rank a line starts with says how many.
func Read(path string) (*trace.Trace, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var srcs []source
	if info.IsDir() {
		srcs, err = dirSources(path)
	} else {
		srcs, err = pathSources(path)
	}
	if err != nil {
		return nil, err
	}
	return read(path, srcs)
}

// Parse reads a trace holding every rank's lines from r; name is used in
// positions. It reads r twice: by seeking if r is an io.Seeker, else from
// a copy in memory.
func Parse(name string, r io.Reader) (*trace.Trace, error) {
	open, err := wordline.Reopener(r)
	if err != nil {
		return nil, err
	}
	return read(name, []source{{name: name, open: open, rank: -1}})
}

// read surveys the sources, then reads their lines into a trace.
func read(name string, srcs []source) (*trace.Trace, error) {
	sv, err := surveySources(srcs)
	if err != nil {
		return nil, err
	}
	n := sv.maxRank + 1
	if srcs[0].rank >= 0 {
		n = len(srcs)
	} else if err := sv.checkRanks(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, trace.Errorf(name, 1, 1, "no trace lines: expected lines RANK ACTION [ARGUMENTS]")
	}
	f, why, err := sv.decide()
	if err != nil {
		return nil, err
	}
	p := newParser(n, f, why)
	for _, src := range srcs {
		if err := p.source(src); err != nil {
			return nil, err
		}
	}
	return p.b.Trace(), nil
}

// source reads the lines of one source.
func (p *parser) source(src source) error {
	rc, err := src.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	p.file = src.name
	sc := newScanner(src.name, rc)
	for l, ok := sc.Next(); ok; l, ok = sc.Next() {
		r, ok := parseRankText(l.Fields[0].Text)
		if !ok {
			return p.errorf(l, 0, "a line starts with its rank (a number below %d), found %s; expected RANK ACTION [ARGUMENTS]", maxRanks, quote(l.Fields[0].Text))
		}
		if src.rank >= 0 && r != src.rank {
			continue // SimGrid ignores the lines of a rank's file that are not for it
		}
		if err := p.line(r, l); err != nil {
			return err
		}
	}
	return sc.Err()
}

// isTraceLine reports whether l looks like a trace line rather than the
// path of an index: a rank, then something.
func isTraceLine(l line) bool {
	_, ok := parseRankText(l.Fields[0].Text)
	return ok && len(l.Fields) >= 2
}

// firstLine returns the first line of the file at path; ok is false for a
// file without lines.
func firstLine(path string) (l line, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return line{}, false, err
	}
	defer f.Close()
	sc := newScanner(path, f)
	l, ok = sc.Next()
	return l, ok, sc.Err()
}

// pathSources returns the sources of a file: itself if it is a trace, the
// files it lists if it is an index.
func pathSources(path string) ([]source, error) {
	l, ok, err := firstLine(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, trace.Errorf(path, 1, 1, "empty file: expected trace lines RANK ACTION [ARGUMENTS] or an index of trace files")
	}
	if isTraceLine(l) {
		return []source{fileSource(path, -1)}, nil
	}
	return indexSources(path)
}

// indexSources reads an index: one path a line; blank lines and lines
// starting with '#' are skipped.
func indexSources(path string) ([]source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir := filepath.Dir(path)
	var srcs []source
	sc := newScanner(path, f)
	for l, ok := sc.Next(); ok; l, ok = sc.Next() {
		if len(srcs) == maxRanks {
			return nil, trace.Errorf(path, l.Num, 1, "the index lists more than %d trace files", maxRanks)
		}
		file, err := resolve(dir, l.Text)
		if err != nil {
			return nil, trace.Errorf(path, l.Num, 1, "%v (line %d of the index names it; a trace line would start with a rank and an action)", err, l.Num)
		}
		srcs = append(srcs, fileSource(file, len(srcs)))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(srcs) == 1 {
		// One file: SimGrid reads it as a trace shared by every rank.
		srcs[0].rank = -1
	}
	return srcs, nil
}

// resolve finds an index entry: absolute, relative to the index's
// directory, or relative to the working directory as SimGrid opens it.
func resolve(dir, name string) (string, error) {
	if filepath.IsAbs(name) {
		return name, regularFile(name)
	}
	inDir := filepath.Join(dir, name)
	err := regularFile(inDir)
	if err == nil {
		return inDir, nil
	}
	if regularFile(name) == nil {
		return name, nil
	}
	if dir == "." {
		return "", fmt.Errorf("cannot read trace file %s: %w", name, err)
	}
	return "", fmt.Errorf("cannot read trace file %s: neither %s nor %s (from the working directory) is a file", name, inDir, name)
}

func regularFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// dirSources returns the trace files of a directory in name order (as
// os.ReadDir lists them),
// skipping hidden files, subdirectories and indexes.
func dirSources(dir string) ([]source, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var srcs []source
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") || regularFile(path) != nil {
			continue
		}
		l, ok, err := firstLine(path)
		if err != nil {
			return nil, err
		}
		if ok && isTraceLine(l) {
			srcs = append(srcs, fileSource(path, -1))
		}
	}
	if len(srcs) == 0 {
		return nil, &fs.PathError{Op: "read", Path: dir, Err: errors.New("no trace files (files whose lines start RANK ACTION)")}
	}
	return srcs, nil
}
