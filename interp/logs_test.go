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

// TestLogsOnlyWhenTheProgramLogs follows coNCePTuaL 1.5.1b (c_mpi, checked
// by hand under mpirun): a program with no LOGS, COMPUTES AGGREGATES or
// THE VALUE OF writes no log file at all; one with any of them, even in a
// branch never taken or on a task that logs nothing, writes one per task.
// A run of a program that no longer logs removes the logs an earlier
// version left, which would otherwise be read as this run's.
func TestLogsOnlyWhenTheProgramLogs(t *testing.T) {
	files := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	for _, tt := range []struct {
		src  string
		want []string
	}{
		{`TASK 0 OUTPUTS "hi"`, nil},
		{`TASK 0 SENDS A 1 KILOBYTE MESSAGE TO TASK 1`, nil},
		{`TASK 0 LOGS 1 AS "x"`, []string{"p-0.log", "p-1.log", "p-2.log"}},
		{`IF num_tasks > 100 THEN TASK 0 LOGS 1 AS "x"`, []string{"p-0.log", "p-1.log", "p-2.log"}},
		{`ALL TASKS COMPUTE AGGREGATES`, []string{"p-0.log", "p-1.log", "p-2.log"}},
		{`TASK 0 OUTPUTS THE VALUE OF "Number of tasks"`, []string{"p-0.log", "p-1.log", "p-2.log"}},
	} {
		dir := t.TempDir()
		writeLogs(t, tt.src, 3, dir, "p")
		if got := files(dir); !slices.Equal(got, tt.want) {
			t.Errorf("%s: wrote %v, want %v", tt.src, got, tt.want)
		}
	}
	dir := t.TempDir()
	writeLogs(t, `ALL TASKS LOG num_tasks AS "tasks"`, 2, dir, "p")
	writeLogs(t, `TASK 0 OUTPUTS "no more logs"`, 2, dir, "p")
	if got := files(dir); len(got) > 0 {
		t.Errorf("after a run that does not log: %v", got)
	}
}
