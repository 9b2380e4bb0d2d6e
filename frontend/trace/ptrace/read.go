package ptrace

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// Run is a traced run: the trace, and what the tracer measured besides.
type Run struct {
	Trace *trace.Trace
	// Files holds each rank's file, nil for a rank without one.
	Files []*RankFile
	// Bytes is the size of the trace's files together.
	Bytes int64
}

// Elapsed is the run's time in microseconds: the longest of its ranks'
// times from MPI_Init to MPI_Finalize.
func (r *Run) Elapsed() float64 {
	var m float64
	for _, f := range r.Files {
		if f != nil && f.Elapsed > m {
			m = f.Elapsed
		}
	}
	return m
}

var rankName = regexp.MustCompile(`^rank-(0|[1-9][0-9]{0,6})\.ptrace$`)

// Read reads the trace in the directory at path (or the directory of the
// rank file at path).
func Read(path string) (*trace.Trace, error) {
	run, err := ReadRun(path)
	if err != nil {
		return nil, err
	}
	return run.Trace, nil
}

// ReadRun reads the trace in the directory at path (or the directory of
// the rank file at path), with the tracer's measurements.
func ReadRun(path string) (*Run, error) {
	dir := path
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byRank := map[int]string{}
	var ranks []int
	for _, de := range entries {
		m := rankName.FindStringSubmatch(de.Name())
		if m == nil || !de.Type().IsRegular() {
			continue
		}
		r, _ := strconv.Atoi(m[1])
		byRank[r] = filepath.Join(dir, de.Name())
		ranks = append(ranks, r)
	}
	if len(ranks) == 0 {
		return nil, fmt.Errorf("%s: no rank-N.ptrace files: not a trace of parley's tracer (did the program call MPI_Init?)", dir)
	}
	sort.Ints(ranks)
	run := &Run{}
	var table *comms
	for _, r := range ranks {
		f, size, err := readFile(byRank[r], &table)
		if err != nil {
			return nil, err
		}
		if f.Rank != r {
			return nil, fmt.Errorf("%s: the file says it is rank %d's", byRank[r], f.Rank)
		}
		if run.Files == nil {
			if ranks[len(ranks)-1] >= f.Size {
				return nil, fmt.Errorf("%s: a file for rank %d in a world of %d ranks", byRank[ranks[len(ranks)-1]], ranks[len(ranks)-1], f.Size)
			}
			run.Files = make([]*RankFile, f.Size)
		}
		run.Files[r] = f
		run.Bytes += size
	}
	n := len(run.Files)
	t := &trace.Trace{Format: "ptrace", NumRanks: n, Ranks: make([]trace.Rank, n), Comms: table.list}
	var why []string
	for r, f := range run.Files {
		switch {
		case f == nil:
			why = append(why, fmt.Sprintf("rank %d left no file", r))
		case !f.Complete():
			why = append(why, fmt.Sprintf("rank %d: %s", r, describe(f.Status)))
			t.Ranks[r].Body = f.Body
		default:
			t.Ranks[r].Body = f.Body
		}
	}
	run.Trace = t
	if len(why) > 0 {
		kept, total := cut(t)
		t.Partial = fmt.Sprintf("%s; kept the %d of %d calls up to the last point every rank reached consistently",
			strings.Join(why, "; "), kept, total)
	}
	return run, nil
}

// readFile parses the rank file at path into table (made by the first
// file read) and returns it with its size.
func readFile(path string, table **comms) (*RankFile, int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	f, t, err := parse(path, fh, *table)
	if err != nil {
		return nil, 0, err
	}
	*table = t
	return f, st.Size(), nil
}

var signalNames = map[string]string{
	"1": "SIGHUP", "2": "SIGINT", "3": "SIGQUIT", "4": "SIGILL", "6": "SIGABRT", "7": "SIGBUS",
	"8": "SIGFPE", "9": "SIGKILL", "11": "SIGSEGV", "13": "SIGPIPE", "15": "SIGTERM",
}

// describe says what a partial status means.
func describe(status string) string {
	f := strings.Fields(status)
	if len(f) >= 3 && f[1] == "signal" {
		s := "killed by signal " + f[2]
		if name, ok := signalNames[f[2]]; ok {
			s += " (" + name + ")"
		}
		return s + strings.Join(append([]string{""}, f[3:]...), " ")
	}
	if len(f) == 3 && f[1] == "MPI_Abort" {
		return "called MPI_Abort with error code " + f[2]
	}
	return strings.TrimSpace(strings.TrimPrefix(status, "partial"))
}
