package interp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// ieeeProgram divides by zero in floating-point context, in OUTPUTS and in
// LOGS, with every aggregate. TestFloatingPointLikeConceptual holds what
// coNCePTuaL 1.5.1b (c_mpi) printed and logged for it, run by hand.
const ieeeProgram = `LET z BE 0 WHILE {
  TASK 0 OUTPUTS 3/z AND " " AND -3/z AND " " AND 0/z AND " " AND -(0/z) AND " " AND -z AND " " AND LOG10(z) AND " " AND
    10**400 AND " " AND MIN(0/z, 1) AND " " AND MAX(1, 0/z) AND " " AND 1/(3/z) THEN
  TASK 0 LOGS REAL(3)/z AS "a" AND -3/z AS "b" AND 0/z AS "c" AND -(0/z) AS "d" AND -z AS "e" AND LOG10(z) AS "f"
}.
LET z BE 0 WHILE FOR EACH i IN {1, ..., 4}
  TASK 0 LOGS THE MEAN OF i/z AS "mean" AND THE MEDIAN OF i/z AS "med" AND THE MINIMUM OF (i-2)/z AS "min" AND
    THE MAXIMUM OF (i-2)/z AS "max" AND THE SUM OF (i-2)/z AS "sum" AND THE STANDARD DEVIATION OF i/z AS "sd" AND
    THE HARMONIC MEAN OF i/z AS "hm" AND THE GEOMETRIC MEAN OF i/z AS "gm" AND THE VARIANCE OF i/z AS "var" AND
    THE FINAL OF i/z AS "fin" AND THE MEDIAN ABSOLUTE DEVIATION OF i/z AS "mad" AND THE MINIMUM OF i/z AS "allinf".`

// TestFloatingPointLikeConceptual: a division by zero in floating-point
// context gives infinities and NaN, printed and logged as coNCePTuaL's C
// backend does (-nan is x86's 0/0, whose sign bit is set; the minimum of
// infinities is the largest double, where coNCePTuaL's loop starts), and
// the run goes on.
func TestFloatingPointLikeConceptual(t *testing.T) {
	var out strings.Builder
	p := build(t, "ieee.parley", ieeeProgram)
	sim, err := interp.New(p, interp.Options{NumTasks: 1, Platform: platform(t, ""), Logs: true, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(); !res.OK() {
		t.Fatal(res.Problems)
	}
	if got, want := out.String(), "inf -inf -nan nan -0 -inf inf -nan 1 0\n"; got != want {
		t.Errorf("OUTPUTS %q, want %q", got, want)
	}
	dir := t.TempDir()
	if err := sim.WriteLogs(dir, "ieee"); err != nil {
		t.Fatal(err)
	}
	s, err := logfile.LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"inf", "-inf", "-nan", "nan", "-0", "-inf"},
		{"inf", "inf", "-inf", "inf", "-nan", "-nan", "inf", "inf", "-nan", "inf", "nan", "1.797693135e+308"},
	}
	tabs := s.Log(0).File.Tables
	if len(tabs) != len(want) {
		t.Fatalf("%d tables, want %d", len(tabs), len(want))
	}
	for i, tab := range tabs {
		var got []string
		for _, c := range tab.Columns {
			got = append(got, c.Rows...)
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("table %d: %q, want %q", i, got, want[i])
		}
	}
}
