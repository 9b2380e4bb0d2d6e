package dperf

import (
	"errors"
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
}

func fileSource(path string) source {
	return source{name: path, open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// Read reads the dPerf trace at path: a file holding every rank's lines,
// or a directory of trace files (one per process, as dPerf writes them;
// files whose first line is not a dPerf line, such as SimGrid's platform
// and deployment files, are skipped), each rank's lines in one of them.
// The highest rank that starts a line says how many ranks there are.
func Read(path string) (*trace.Trace, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	srcs := []source{fileSource(path)}
	if info.IsDir() {
		if srcs, err = dirSources(path); err != nil {
			return nil, err
		}
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
	return read(name, []source{{name: name, open: open}})
}

// read surveys the sources, then reads their lines into a trace.
func read(name string, srcs []source) (*trace.Trace, error) {
	sv, err := surveySources(srcs)
	if err != nil {
		return nil, err
	}
	n := sv.maxRank + 1
	if n == 0 {
		return nil, trace.Errorf(name, 1, 1, "no trace lines: expected lines pRANK ACTION [ARGUMENTS]")
	}
	if idle := n - sv.ranks.Len(); idle > maxIdleRanks {
		at := sv.maxAt
		return nil, trace.Errorf(at.file, at.line, at.col, "p%d makes a trace of %d ranks of which %d have lines; at most %d ranks may have none, so the rank number looks damaged", sv.maxRank, n, sv.ranks.Len(), maxIdleRanks)
	}
	p := &parser{
		n:        n,
		b:        trace.NewBuilder("dperf", n, trace.Microseconds),
		states:   make([]*rankState, n),
		sends:    sv.sends,
		commSize: sv.commSize,
		commAt:   sv.commAt,
		comms:    map[int]int{},
	}
	if p.commSize > n {
		at := sv.commAt
		return nil, trace.Errorf(at.file, at.line, at.col, "comm_size needs a number of ranks between 1 and %d (the ranks of the trace), found %d; expected %s", n, p.commSize, usages["comm_size"])
	}
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
			return p.errorf(l, 0, "a line starts with its rank (p0, p1, ... below p%d), found %s; expected pRANK ACTION [ARGUMENTS]", maxRanks, quote(l.Fields[0].Text))
		}
		if err := p.line(r, l); err != nil {
			return err
		}
	}
	return sc.Err()
}

// isTraceLine reports whether l looks like a dPerf line: a rank and an
// action.
func isTraceLine(l line) bool {
	_, ok := parseRankText(l.Fields[0].Text)
	return ok && len(l.Fields) >= 2 && isAction(l.Fields[1].Text)
}

// dirSources returns the trace files of a directory in name order (as
// os.ReadDir lists them).
func dirSources(dir string) ([]source, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var srcs []source
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := newScanner(path, f)
		l, ok := sc.Next()
		f.Close()
		if ok && isTraceLine(l) {
			srcs = append(srcs, fileSource(path))
		}
	}
	if len(srcs) == 0 {
		return nil, &fs.PathError{Op: "read", Path: dir, Err: errors.New("no dPerf trace files (files whose lines start pRANK ACTION)")}
	}
	return srcs, nil
}

// where is a position in a file.
type where struct {
	file      string
	line, col int
}

// channel is the messages from one rank to another, which MSG delivers in
// order (mailbox "pSRC_pDST").
type channel struct{ src, dst int }

// sizeQueue is the sizes of a channel's messages in order, run-length
// encoded: a channel's messages tend to repeat a size.
type sizeQueue struct {
	runs []sizeRun
	head int
}

type sizeRun struct{ size, n int64 }

func (q *sizeQueue) push(size int64) {
	if k := len(q.runs); k > q.head && q.runs[k-1].size == size {
		q.runs[k-1].n++
		return
	}
	q.runs = append(q.runs, sizeRun{size, 1})
}

// pop returns the next size, 0 if the channel has no more messages (the
// receive matches nothing; trace.Match reports it).
func (q *sizeQueue) pop() int64 {
	if q == nil || q.head == len(q.runs) {
		return 0
	}
	run := &q.runs[q.head]
	run.n--
	if run.n == 0 {
		q.head++
	}
	return run.size
}

// survey is the first pass over a trace: the ranks its lines name, the
// sizes of the messages each rank sends each other rank, which give
// receives their sizes, and the first comm_size.
type survey struct {
	maxRank  int
	maxAt    where
	ranks    wordline.RankSet // the ranks that have lines
	owner    map[int]int      // rank -> index of the source holding its lines
	sends    map[channel]*sizeQueue
	commSize int
	commAt   where
}

func surveySources(srcs []source) (*survey, error) {
	s := &survey{maxRank: -1, owner: map[int]int{}, sends: map[channel]*sizeQueue{}}
	for i, src := range srcs {
		rc, err := src.open()
		if err != nil {
			return nil, err
		}
		sc := newScanner(src.name, rc)
		for l, ok := sc.Next(); ok; l, ok = sc.Next() {
			r, ok := parseRankText(l.Fields[0].Text)
			if !ok {
				continue // the second pass reports it
			}
			if j, seen := s.owner[r]; seen && j != i {
				rc.Close()
				return nil, trace.Errorf(src.name, l.Num, l.Fields[0].Col, "p%d also has lines in %s; in a directory each rank's lines must be in one file", r, srcs[j].name)
			}
			s.owner[r] = i
			s.saw(r, src.name, l)
			s.look(r, src.name, l)
		}
		rc.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// saw records that rank r has line l.
func (s *survey) saw(r int, file string, l line) {
	if r > s.maxRank {
		s.maxRank = r
		s.maxAt = where{file, l.Num, l.Fields[0].Col}
	}
	s.ranks.Add(r)
}

// look records the sends and the first comm_size; lines the second pass
// refuses are skipped.
func (s *survey) look(r int, file string, l line) {
	if len(l.Fields) < 3 {
		return
	}
	switch strings.ToLower(l.Fields[1].Text) {
	case "send", "isend":
		peer, ok := parseRankText(l.Fields[2].Text)
		if !ok || len(l.Fields) != 4 {
			return
		}
		size, ok := parseBytes(l.Fields[3].Text)
		if !ok {
			return
		}
		c := channel{src: r, dst: peer}
		q := s.sends[c]
		if q == nil {
			q = &sizeQueue{}
			s.sends[c] = q
		}
		q.push(size)
	case "comm_size":
		if k, ok := parseRankText(l.Fields[2].Text); ok && s.commSize == 0 && k > 0 && !strings.HasPrefix(l.Fields[2].Text, "p") {
			s.commSize, s.commAt = k, where{file, l.Num, l.Fields[2].Col}
		}
	}
}
