package interp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/logfile"
)

// writeLogs runs src on n tasks with logs and writes them as dir/base-<rank>.log.
func writeLogs(t *testing.T, src string, n int64, dir, base string) {
	t.Helper()
	sim, err := interp.New(build(t, base+".parley", src), interp.Options{NumTasks: n, Platform: platform(t, ""), Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(); !res.OK() {
		t.Fatal(res.Problems)
	}
	if err := sim.WriteLogs(dir, base); err != nil {
		t.Fatal(err)
	}
}

// awkwardHeading has a newline, a quote, a comma, a backslash and a tab,
// written with the language's escapes.
const awkwardHeading = "a\nb\"c,d\\e\tf"

// TestLogAwkwardHeadings: a heading with the log format's own delimiters
// and control characters keeps its column and values.
func TestLogAwkwardHeadings(t *testing.T) {
	dir := t.TempDir()
	writeLogs(t, `TASK 0 LOGS 1 AS "a\nb\"c,d\\e\tf" AND 2 AS "next"`, 1, dir, "odd")
	s, err := logfile.LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	tabs := s.Log(0).File.Tables
	if len(tabs) != 1 || len(tabs[0].Columns) != 2 {
		t.Fatalf("tables %+v", tabs)
	}
	if c := tabs[0].Columns; c[0].Heading != awkwardHeading || !slices.Equal(c[0].Rows, []string{"1"}) ||
		c[1].Heading != "next" || !slices.Equal(c[1].Rows, []string{"2"}) {
		t.Errorf("columns read back as %+v", c)
	}
}

// TestWriteLogsRemovesStale: a run with fewer tasks removes the logs an
// earlier, larger run of the same program left, and nothing else.
func TestWriteLogsRemovesStale(t *testing.T) {
	dir := t.TempDir()
	const src = `ALL TASKS LOG num_tasks AS "tasks"`
	writeLogs(t, src, 8, dir, "prog")
	writeLogs(t, src, 8, dir, "other")
	keep := []string{"prog-9.log", "prog-07.log", "prog.c", "prog"}
	for _, name := range keep {
		os.WriteFile(filepath.Join(dir, name), []byte("not a log\n"), 0o644)
	}
	first, err := logfile.LoadSet(filepath.Join(dir, "prog"))
	if err != nil {
		t.Fatal(err)
	}

	writeLogs(t, src, 4, dir, "prog")
	for r := range 8 {
		_, err := os.Stat(filepath.Join(dir, fmt.Sprintf("prog-%d.log", r)))
		if r < 4 && err != nil || r >= 4 && !os.IsNotExist(err) {
			t.Errorf("prog-%d.log after a run of 4 tasks: %v", r, err)
		}
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("other-%d.log", r))); err != nil {
			t.Errorf("another program's log: %v", err)
		}
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s, not a log this run writes: %v", name, err)
		}
	}
	s, err := logfile.LoadSet(filepath.Join(dir, "prog"))
	if err != nil || !slices.Equal(s.Ranks(), []int{0, 1, 2, 3}) || len(s.Warnings) != 1 { // prog-9.log is not a log
		t.Fatalf("after a run of 4 tasks: %+v, %v", s, err)
	}

	// The run identifier tells the two runs apart, and stays put when a
	// run is repeated.
	id := func(s *logfile.Set) string {
		for _, kv := range s.Log(0).File.Header {
			if kv.Key == logfile.KeyRunID {
				return kv.Value
			}
		}
		t.Fatalf("no %q header", logfile.KeyRunID)
		return ""
	}
	writeLogs(t, src, 4, dir, "prog")
	again, err := logfile.LoadSet(filepath.Join(dir, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c := id(first), id(s), id(again); a == b || b != c || len(b) != 36 {
		t.Errorf("run identifiers %q (8 tasks), %q and %q (4 tasks, twice)", a, b, c)
	}
}
