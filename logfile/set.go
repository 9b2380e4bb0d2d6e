package logfile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// KeyRunID is the header line that identifies the run that wrote a log,
// coNCePTuaL's name for it: every task of one run writes the same value,
// so logs left by another run in the same directory can be told apart.
const KeyRunID = "Unique execution identifier"

// headSize is how much of a file shows whether it is a log: the banner
// comes within the first few lines.
const headSize = 512

// LoadSet reads the logs of one run. path is a single log file; a
// directory, meaning every <base>-<rank>.log in it (which must all share
// one base); or a prefix dir/base, meaning dir/base-<rank>.log. A prefix
// may also name a file that is not a log, such as the executable that
// writes dir/base-<rank>.log. Each file's rank comes from its "Rank
// (0<=P<tasks)" header (coNCePTuaL's "Processor (0<=P<tasks)"), else from
// its name. Errors name the file.
//
// Files named like logs that do not start like one (a crash message, an
// empty file) are left out of a directory or prefix, as are the logs an
// earlier run with more tasks left behind; Set.Warnings says which. Logs
// of two runs mixed otherwise are an error.
func LoadSet(path string) (*Set, error) {
	files, err := setFiles(path)
	if err != nil {
		return nil, err
	}
	s := &Set{Path: path, Base: files.base}
	if len(files.ignored) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("left out %s: named like a log but not one (no %q line at the start)",
			fileList(files.ignored), banner))
	}
	for _, p := range files.paths {
		l, err := loadTaskLog(p)
		if err != nil {
			return nil, err
		}
		s.Logs = append(s.Logs, *l)
	}
	slices.SortFunc(s.Logs, func(a, b TaskLog) int { return cmp.Compare(a.Rank, b.Rank) })
	for i := 1; i < len(s.Logs); i++ {
		if a, b := s.Logs[i-1], s.Logs[i]; a.Rank == b.Rank {
			return nil, fmt.Errorf("%s and %s are both rank %d: a set holds one log per task (are two runs mixed up?)", a.Path, b.Path, a.Rank)
		}
	}
	if err := s.oneRun(); err != nil {
		return nil, err
	}
	if err := s.describe(); err != nil {
		return nil, err
	}
	return s, nil
}

// maxListed is how many files a message names before it counts the rest.
const maxListed = 8

// fileList names paths in a message, the first few if there are many.
func fileList(paths []string) string {
	if len(paths) <= maxListed {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:maxListed], ", "), len(paths)-maxListed)
}

// verb picks a verb's singular or plural form for n subjects.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// runOf is what a log's header says of the run that wrote it.
type runOf struct {
	tasks, id   string
	hasID, hasN bool
}

func (l *TaskLog) run() runOf {
	var r runOf
	r.tasks, r.hasN = lookup(l.File.Header, keyTasks)
	r.tasks = strings.TrimSpace(r.tasks)
	r.id, r.hasID = lookup(l.File.Header, KeyRunID)
	return r
}

func (r runOf) String() string {
	s := "a run"
	if r.hasN {
		s = fmt.Sprintf("a run of %s tasks", r.tasks)
	}
	if r.hasID {
		s += fmt.Sprintf(", %s %s", strings.ToLower(KeyRunID), r.id)
	}
	return s
}

// oneRun keeps the logs of the run that wrote the lowest rank's log: those
// whose headers give the same task count and run identifier. A writer
// that reuses a directory rewrites the ranks it has, so the other logs of
// ranks at or beyond that run's task count are an earlier, larger run's
// leftovers: they are left out with a warning. Any other log of another
// run means two runs are mixed, which is an error.
func (s *Set) oneRun() error {
	ref := s.Logs[0].run()
	tasks, _ := strconv.Atoi(ref.tasks)
	var keep []TaskLog
	var stale, mixed []string
	for _, l := range s.Logs {
		switch r := l.run(); {
		case r == ref:
			keep = append(keep, l)
		case ref.hasN && tasks > 0 && l.Rank >= tasks:
			stale = append(stale, l.Path)
		default:
			mixed = append(mixed, fmt.Sprintf("%s (%s)", l.Path, r))
		}
	}
	if len(mixed) > 0 {
		return fmt.Errorf("%s %s from another run than %s (%s): keep one run's logs per directory, or rerun to rewrite them",
			fileList(mixed), verb(len(mixed), "comes", "come"), s.Logs[0].Path, ref)
	}
	if len(stale) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("left out %s: left by an earlier run with more tasks than %s, which wrote %s",
			fileList(stale), ref, s.Logs[0].Path))
		s.Logs = keep
	}
	return nil
}

// describe fills in what the headers say about the whole run.
func (s *Set) describe() error {
	first := s.Logs[0]
	s.Backend, _ = lookup(first.File.Header, keyBackend)
	for _, l := range s.Logs[1:] {
		if b, _ := lookup(l.File.Header, keyBackend); b != s.Backend {
			return fmt.Errorf("%s says its backend is %q but %s says %q: the logs come from different runs; keep one run's logs per directory",
				first.Path, s.Backend, l.Path, b)
		}
	}
	s.Predicted = strings.Contains(strings.ToLower(s.Backend), "predicted")
	if v, ok := lookup(first.File.Header, keyTasks); ok {
		s.Tasks, _ = strconv.Atoi(strings.TrimSpace(v))
	}
	s.Program = s.Base
	if v, ok := lookup(first.File.Header, keyProgram); ok && v != "" {
		s.Program = v
	} else if v, ok := lookup(first.File.Header, keyExecutable); ok && v != "" {
		s.Program = filepath.Base(v)
	}
	return nil
}

// setPaths is the files a path names as a set of logs.
type setPaths struct {
	paths   []string
	base    string
	ignored []string // named like the set's logs, but not logs
}

// setFiles lists the log files that path names, with their common base.
func setFiles(path string) (setPaths, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return dirFiles(path)
	case err == nil:
		base, _, named := splitLogName(filepath.Base(path))
		if ok, _ := isLog(path); ok || named {
			return setPaths{paths: []string{path}, base: base}, nil
		}
		// Not a log: the executable beside its logs, say. It names them
		// as a prefix.
		if f, err := prefixFiles(path); err == nil {
			return f, nil
		}
		return setPaths{paths: []string{path}}, nil // loadTaskLog says why it is not a log
	case errors.Is(err, fs.ErrNotExist):
		return prefixFiles(path)
	}
	return setPaths{}, fmt.Errorf("reading logs: %w", err)
}

// dirFiles lists the <base>-<rank>.log files of a directory, which must
// share one base.
func dirFiles(dir string) (setPaths, error) {
	byBase, ignored, err := scanDir(dir)
	if err != nil {
		return setPaths{}, err
	}
	bases := slices.Sorted(func(yield func(string) bool) {
		for b := range byBase {
			if !yield(b) {
				return
			}
		}
	})
	switch len(bases) {
	case 0:
		return setPaths{}, fmt.Errorf("no logs in %s (%w): logs are named <program>-<rank>.log and start with the %q line%s; "+
			"a program that never logs (no LOGS or COMPUTES AGGREGATES) writes none", dir, fs.ErrNotExist, banner, notLogs(ignored))
	case 1:
		return setPaths{paths: byBase[bases[0]], base: bases[0], ignored: ignored[bases[0]]}, nil
	}
	return setPaths{}, fmt.Errorf("%s holds the logs of %d programs (%s): name one with a prefix, e.g. %s",
		dir, len(bases), strings.Join(bases, ", "), filepath.Join(dir, bases[0]))
}

// notLogs lists the files named like logs that are not, for an error.
func notLogs(ignored map[string][]string) string {
	var all []string
	for _, paths := range ignored {
		all = append(all, paths...)
	}
	if len(all) == 0 {
		return ""
	}
	slices.Sort(all)
	return fmt.Sprintf(" (%s %s not)", fileList(all), verb(len(all), "is", "are"))
}

// prefixFiles lists the files dir/base-<rank>.log of a prefix dir/base.
func prefixFiles(prefix string) (setPaths, error) {
	dir, base := filepath.Split(prefix)
	base = strings.TrimSuffix(base, "-")
	if dir == "" {
		dir = "."
	}
	byBase, ignored, err := scanDir(dir)
	if err == nil && len(byBase[base]) > 0 {
		return setPaths{paths: byBase[base], base: base, ignored: ignored[base]}, nil
	}
	return setPaths{}, fmt.Errorf("no logs at %s (%w): give a log file, a directory of logs, or a prefix such as dir/ring for dir/ring-0.log, dir/ring-1.log, ...%s",
		prefix, fs.ErrNotExist, notLogs(map[string][]string{base: ignored[base]}))
}

// scanDir maps each base of the <base>-<rank>.log files in dir that start
// like a log to their paths, and each base of those that do not to theirs.
func scanDir(dir string) (logs, ignored map[string][]string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("reading logs: %w", err)
	}
	logs, ignored = map[string][]string{}, map[string][]string{}
	for _, e := range entries {
		base, _, named := splitLogName(e.Name())
		if !named || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if ok, err := isLog(path); ok {
			logs[base] = append(logs[base], path)
		} else if err == nil {
			ignored[base] = append(ignored[base], path)
		}
	}
	return logs, ignored, nil
}

// splitLogName splits "ring-3.log" into "ring" and 3. The rank is written
// as a writer writes it: decimal, without leading zeros.
func splitLogName(name string) (base string, rank int, ok bool) {
	stem, hasExt := strings.CutSuffix(name, ".log")
	i := strings.LastIndexByte(stem, '-')
	if !hasExt || i < 1 {
		return "", 0, false
	}
	rank, err := strconv.Atoi(stem[i+1:])
	if err != nil || rank < 0 || strconv.Itoa(rank) != stem[i+1:] {
		return "", 0, false
	}
	return stem[:i], rank, true
}

// isLog reports whether the file at path starts like a log: its banner
// line comes within the first headSize bytes. It reports an error only
// when the file cannot be read.
func isLog(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return startsLikeLog(head[:n]), nil
}

func startsLikeLog(data []byte) bool {
	return bytes.Contains(data[:min(len(data), headSize)], []byte(banner))
}

// StaleLogs lists the logs of program base in dir that a run of tasks
// tasks does not write: dir/base-<rank>.log for each rank at or beyond
// tasks, named exactly as a writer names them, that start like a log. A
// writer that reuses a directory removes them, so that they are not read
// as part of its run.
func StaleLogs(dir, base string, tasks int64) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		b, rank, named := splitLogName(e.Name())
		if !named || b != base || int64(rank) < tasks || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if ok, err := isLog(path); err != nil {
			return nil, err
		} else if ok {
			stale = append(stale, path)
		}
	}
	return stale, nil
}

// loadTaskLog reads and parses one log.
func loadTaskLog(path string) (*TaskLog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading log: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: %w: the file is empty (did the run that writes it finish?)", path, ErrNotLog)
	}
	if !startsLikeLog(data) {
		return nil, fmt.Errorf("%s: %w: it lacks the %q line that starts every log", path, ErrNotLog, banner)
	}
	f, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the log is damaged or cut short; rerun the program to rewrite it)", path, err)
	}
	rank, err := rankOf(path, f)
	if err != nil {
		return nil, err
	}
	return &TaskLog{Rank: rank, Path: path, File: f}, nil
}

// rankOf finds a log's rank in its headers, else in its name.
func rankOf(path string, f *File) (int, error) {
	v, ok := lookup(f.Header, keyRank)
	if !ok {
		v, ok = lookup(f.Header, keyProcessor)
	}
	if ok {
		r, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || r < 0 {
			return 0, fmt.Errorf("%s: the rank header says %q, which is not a rank", path, v)
		}
		return r, nil
	}
	if _, r, ok := splitLogName(filepath.Base(path)); ok {
		return r, nil
	}
	return 0, fmt.Errorf("%s: cannot tell which task wrote it: it has no %q header and its name does not end in -<rank>.log", path, keyRank)
}
