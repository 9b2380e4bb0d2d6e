package dumpi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// Format is the name of this reader in trace.Trace.Format.
const Format = "dumpi"

// source is one rank's text: a file, or a part of Parse's input.
type source struct {
	name  string // the file name errors and positions use
	first int    // the number of its first line
	open  func() (io.ReadCloser, error)
	// how the rank number was found, for error messages
	how string
}

// Read reads a DUMPI trace converted to text by dumpi2ascii, one file
// per rank named PREFIX-NNNN.EXT, where NNNN is the rank (as dumpi names
// its binary files PREFIX-NNNN.bin). path is a directory holding the
// files of one trace, or one of the files, whose siblings with the same
// prefix and extension are read with it. A file whose name has no rank
// number is read as Parse reads its input.
func Read(path string) (*trace.Trace, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var dir, prefix, ext string
	if fi.IsDir() {
		dir = path
		if prefix, ext, err = pickTrace(dir); err != nil {
			return nil, err
		}
	} else {
		dir = filepath.Dir(path)
		m := rankFile.FindStringSubmatch(filepath.Base(path))
		if m == nil {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return parseBytes(path, data)
		}
		prefix, ext = m[1], m[3]
	}
	files, err := rankFiles(dir, prefix, ext)
	if err != nil {
		return nil, err
	}
	if err := checkMeta(dir, prefix, len(files)); err != nil {
		return nil, err
	}
	srcs := make([]source, len(files))
	for i, f := range files {
		srcs[i] = source{name: f, first: 1, how: "by its file name", open: func() (io.ReadCloser, error) { return os.Open(f) }}
	}
	return read(srcs)
}

// rankFile matches the name of one rank's file: PREFIX-NNNN[.EXT].
var rankFile = regexp.MustCompile(`^(.+)-([0-9]+)((?:\.[A-Za-z0-9_]+)?)$`)

// pickTrace finds the one trace in dir: the PREFIX and EXT of the rank
// files that look like dumpi2ascii output.
func pickTrace(dir string) (prefix, ext string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	seen := map[[2]string]bool{}
	var found [][2]string
	for _, e := range entries {
		m := rankFile.FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil || m[3] == ".bin" {
			continue
		}
		k := [2]string{m[1], m[3]}
		if seen[k] {
			continue
		}
		seen[k] = true
		if sniffFile(filepath.Join(dir, e.Name())) {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("%s: no dumpi2ascii output (files named PREFIX-NNNN.txt, one per rank)", dir)
	case 1:
		return found[0][0], found[0][1], nil
	}
	var names []string
	for _, k := range found {
		names = append(names, k[0]+"-NNNN"+k[1])
	}
	sort.Strings(names)
	return "", "", fmt.Errorf("%s holds several traces (%s): pass one of their files", dir, strings.Join(names, ", "))
}

func sniffFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return Sniff(head[:n])
}

// rankFiles lists dir's files PREFIX-NNNN.EXT in rank order, checking that
// the ranks run from 0 without a gap.
func rankFiles(dir, prefix, ext string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byRank := map[int]string{}
	for _, e := range entries {
		m := rankFile.FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil || m[1] != prefix || m[3] != ext {
			continue
		}
		path := filepath.Join(dir, e.Name())
		r, err := strconv.Atoi(m[2])
		if err != nil || r >= maxRanks {
			return nil, fmt.Errorf("%s: rank %s is larger than %d", path, m[2], maxRanks-1)
		}
		if other, ok := byRank[r]; ok {
			return nil, fmt.Errorf("%s and %s both hold rank %d", other, path, r)
		}
		byRank[r] = path
	}
	files := make([]string, len(byRank))
	for r, path := range byRank {
		if r >= len(files) {
			return nil, fmt.Errorf("%s: rank %d's file is missing (expected %s-%04d%s next to %s)", dir, firstGap(byRank), prefix, firstGap(byRank), ext, filepath.Base(path))
		}
		files[r] = path
	}
	return files, nil
}

func firstGap(m map[int]string) int {
	for r := 0; ; r++ {
		if _, ok := m[r]; !ok {
			return r
		}
	}
}

// checkMeta compares the rank count with numprocs in dumpi's PREFIX.meta,
// if there is one.
func checkMeta(dir, prefix string, n int) error {
	path := filepath.Join(dir, prefix+".meta")
	f, err := os.Open(path)
	if err != nil {
		return nil // the meta file is optional
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for line := 1; sc.Scan(); line++ {
		v, ok := strings.CutPrefix(sc.Text(), "numprocs=")
		if !ok {
			continue
		}
		p, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return trace.Errorf(path, line, len("numprocs=")+1, "numprocs=%q is not a number", v)
		}
		if p != n {
			return trace.Errorf(path, line, len("numprocs=")+1, "numprocs=%d, but %d rank files %s-NNNN were found: expected one per rank", p, n, prefix)
		}
	}
	return nil
}

// Parse reads one rank's dumpi2ascii output from r as rank 0 of a one-rank
// trace; name is the file name positions use. Input holding several ranks'
// outputs one after another is read as a trace of that many ranks in that
// order: a rank's output ends where a header line "version=..." or an
// MPI_Init or MPI_Init_thread call follows a call of the same rank.
func Parse(name string, r io.Reader) (*trace.Trace, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return parseBytes(name, data)
}

func parseBytes(name string, data []byte) (*trace.Trace, error) {
	parts, err := split(name, data)
	if err != nil {
		return nil, err
	}
	srcs := make([]source, len(parts))
	for i, p := range parts {
		srcs[i] = source{name: name, first: p.first, how: "by its place in the input", open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(p.data)), nil
		}}
	}
	return read(srcs)
}

type part struct {
	data  []byte
	first int
}

// split cuts a concatenation of ranks' outputs into one part per rank.
func split(name string, data []byte) ([]part, error) {
	var parts []part
	start, first, line := 0, 1, 0
	seen := false // the current part has a call
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		line++
		t := string(data[off:min(next, off+80)])
		_, kind, _ := callLine(strings.TrimRight(t, "\r\n"))
		newRank := strings.HasPrefix(t, "version=") ||
			kind == entering && (strings.HasPrefix(t, "MPI_Init ") || strings.HasPrefix(t, "MPI_Init_thread "))
		if newRank && seen {
			parts = append(parts, part{data[start:off], first})
			if len(parts) >= maxRanks {
				return nil, trace.Errorf(name, line, 1, "input holds more than %d ranks", maxRanks)
			}
			start, first, seen = off, line, false
		}
		if kind == entering {
			seen = true
		}
		off = next
	}
	return append(parts, part{data[start:], first}), nil
}

// Sniff reports whether head, the start of a file, looks like dumpi2ascii
// output: a header (dumpi2ascii -H) or an MPI call record.
func Sniff(head []byte) bool {
	for len(head) > 0 {
		line, rest, complete := bytes.Cut(head, []byte("\n"))
		t := strings.TrimSuffix(string(line), "\r")
		head = rest
		if strings.TrimSpace(t) == "" {
			continue
		}
		if v, ok := strings.CutPrefix(t, "version="); ok {
			return headerVersion.MatchString(v) || !complete && partialVersion.MatchString(v)
		}
		name, kind, _ := callLine(t)
		if kind == entering && strings.HasPrefix(name, "MPI") {
			return true
		}
		if !complete && strings.HasPrefix(t, "MPI") && !strings.ContainsAny(t, "=") {
			sp := strings.IndexByte(t, ' ')
			return sp > 0 && isIdent(t[:sp]) && strings.HasPrefix(" entering at walltime ", t[sp:])
		}
		return false
	}
	return false
}

var (
	headerVersion  = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
	partialVersion = regexp.MustCompile(`^[0-9]*(\.[0-9]*){0,2}$`)
)

// read reads the ranks' sources in two passes: the first maps every
// communicator to world ranks (creating calls are collective, so this needs
// every rank), the second turns each rank's calls into events.
func read(srcs []source) (*trace.Trace, error) {
	n := len(srcs)
	if n > maxRanks {
		return nil, fmt.Errorf("trace has %d ranks: at most %d are supported", n, maxRanks)
	}
	t := newCommTable(n)
	comms := make([]*rankComms, n)
	tables := make([]map[int]sizeEntry, n)
	for r, src := range srcs {
		rc, sizes, err := firstPass(r, n, src)
		if err != nil {
			return nil, err
		}
		comms[r], tables[r] = rc, sizes
	}
	if err := resolveComms(comms, t); err != nil {
		return nil, err
	}
	b := trace.NewBuilder(Format, n, trace.Microseconds)
	index := map[int]int{}
	for r, src := range srcs {
		rc := newRankComms(r, src.name)
		rc.results = comms[r].results
		e := &emitter{
			b: b, t: t, index: index, rank: r, file: src.name, comms: rc,
			types: newTypes(tables[r]), reqs: map[int64]int64{}, dropped: map[int64]bool{},
			last: -1,
		}
		if err := scan(src, func(c call) error { return e.record(c) }); err != nil {
			return nil, err
		}
	}
	return b.Trace(), nil
}

// scan calls f on each record of src.
func scan(src source, f func(call) error) error {
	rd, err := src.open()
	if err != nil {
		return err
	}
	defer rd.Close()
	s := newScanner(src.name, rd, src.first)
	for {
		rec, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(call{src.name, rec}); err != nil {
			return err
		}
	}
}

// firstPass reads a rank's communicator and group calls, checks what it
// says of MPI_COMM_WORLD against the trace, and returns its datatype size
// table.
func firstPass(rank, numRanks int, src source) (*rankComms, map[int]sizeEntry, error) {
	rc := newRankComms(rank, src.name)
	rd, err := src.open()
	if err != nil {
		return nil, nil, err
	}
	defer rd.Close()
	s := newScanner(src.name, rd, src.first)
	for {
		rec, err := s.next()
		if err == io.EOF {
			return rc, s.sizes, nil
		}
		if err != nil {
			return nil, nil, err
		}
		c := call{src.name, rec}
		op, ok, err := commOpOf(c)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			rc.ops = append(rc.ops, op)
			continue
		}
		if (c.name == "MPI_Comm_rank" || c.name == "MPI_Comm_size") && c.has("comm") {
			if h, _, _, err := c.labelled("comm"); err != nil || h != commWorld {
				continue
			}
			if c.name == "MPI_Comm_rank" && c.has("rank") {
				if v, p, err := c.int("rank"); err == nil && v != int64(rank) {
					return nil, nil, c.errorf(p, "MPI_Comm_rank on MPI_COMM_WORLD returns %d, but this is rank %d (%s)", v, rank, src.how)
				}
			}
			if c.name == "MPI_Comm_size" && c.has("size") {
				if v, p, err := c.int("size"); err == nil && v != int64(numRanks) {
					return nil, nil, c.errorf(p, "MPI_Comm_size on MPI_COMM_WORLD returns %d, but the trace has %s: expected one dumpi2ascii output per rank", v, ranks(numRanks))
				}
			}
		}
	}
}
