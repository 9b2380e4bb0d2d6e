package logfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	measuredBackend  = "parley c+mpi (measured times)"
	predictedBackend = "parley interpreter (predicted times, not measured)"
)

// taskFile is a log of rank with one table of message sizes and times.
func taskFile(backend string, rank int, sizes, times []string, footer ...KV) *File {
	return &File{
		Header: []KV{{"coNCePTuaL backend", backend}, {"Number of tasks", "4"}, {"Rank (0<=P<tasks)", fmt.Sprint(rank)}, {"Program", "ring.parley"}},
		Tables: []Table{{Columns: []Column{
			{Heading: "Bytes", Label: "(only value)", Rows: sizes},
			{Heading: "Time (usecs)", Label: "(median)", Rows: times},
		}}},
		Footer: append([]KV{{"", "Program exited normally."}}, footer...),
	}
}

func totals(sent, recvd, bytesSent, bytesRecvd int) []KV {
	return []KV{{"Messages sent", fmt.Sprint(sent)}, {"Messages received", fmt.Sprint(recvd)},
		{"Bytes sent", fmt.Sprint(bytesSent)}, {"Bytes received", fmt.Sprint(bytesRecvd)}}
}

func elapsed(s string) KV { return KV{"Elapsed time", s} }

// writeLogs writes files as dir/base-<rank>.log and returns dir.
func writeLogs(t *testing.T, dir, base string, files map[int]*File) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for rank, f := range files {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.log", base, rank)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadSet(t *testing.T) {
	dir := t.TempDir()
	files := map[int]*File{}
	for r := range 3 {
		files[r] = taskFile(predictedBackend, r, []string{"8"}, []string{"1.5"}, elapsed("0.5 seconds (predicted)"))
	}
	writeLogs(t, dir, "ring", files)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a log"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub-9.log"), 0o755) // a directory is not a log

	for _, path := range []string{dir, filepath.Join(dir, "ring"), filepath.Join(dir, "ring-")} {
		s, err := LoadSet(path)
		if err != nil {
			t.Fatalf("LoadSet(%s): %v", path, err)
		}
		if got := s.Ranks(); !cmp.Equal(got, []int{0, 1, 2}) || !s.Predicted || s.Backend != predictedBackend ||
			s.Program != "ring.parley" || s.Base != "ring" || s.Tasks != 4 || s.Kind() != "predicted" {
			t.Errorf("LoadSet(%s) = ranks %v, %+v", path, got, s)
		}
		if m := s.Missing(); !cmp.Equal(m, []int{3}) {
			t.Errorf("Missing = %v", m)
		}
		if l := s.Log(1); l == nil || l.Path != filepath.Join(dir, "ring-1.log") || s.Log(7) != nil {
			t.Errorf("Log(1) = %+v", l)
		}
	}
	one, err := LoadSet(filepath.Join(dir, "ring-2.log"))
	if err != nil || !cmp.Equal(one.Ranks(), []int{2}) {
		t.Errorf("single file: %v, %v", one, err)
	}

	// The rank comes from the header, else from the name; coNCePTuaL
	// calls it the processor.
	other := t.TempDir()
	f := taskFile(measuredBackend, 0, nil, nil)
	f.Header = []KV{{"coNCePTuaL backend", "c_mpi (C + MPI)"}, {"Processor (0<=P<tasks)", "6"}, {"Executable name", "/home/me/bin/ring"}}
	writeLogs(t, other, "a", map[int]*File{2: f})
	f.Header = f.Header[:1]
	writeLogs(t, other, "b", map[int]*File{3: f})
	s, err := LoadSet(filepath.Join(other, "a-2.log"))
	if err != nil || s.Logs[0].Rank != 6 || s.Predicted || s.Program != "ring" {
		t.Errorf("rank from the processor header: %+v, %v", s, err)
	}
	if s, err := LoadSet(filepath.Join(other, "b")); err != nil || s.Logs[0].Rank != 3 || s.Program != "b" {
		t.Errorf("rank from the file name: %+v, %v", s, err)
	}
}

func TestLoadSetErrors(t *testing.T) {
	dir := t.TempDir()
	good := taskFile(predictedBackend, 0, []string{"8"}, []string{"1.5"})
	writeLogs(t, dir, "ring", map[int]*File{0: good})
	writeLogs(t, dir, "halo", map[int]*File{0: good})
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	var whole bytes.Buffer
	good.Write(&whole)
	cut := whole.String()[:strings.Index(whole.String(), `"(only value)"`)]
	truncated := write("cut-0.log", cut)
	garbage := write("junk-0.log", "hello\n")
	onlyJunk := t.TempDir()
	os.WriteFile(filepath.Join(onlyJunk, "ring-0.log"), []byte("Segmentation fault\n"), 0o644)
	empty := write("empty-0.log", "")
	noRank := write("norank.log", "# coNCePTuaL log file\n")
	badRank := write("bad-0.log", "# coNCePTuaL log file\n# Rank (0<=P<tasks): two\n")
	mixed := t.TempDir()
	writeLogs(t, mixed, "ring", map[int]*File{0: good, 1: taskFile(measuredBackend, 1, nil, nil)})
	dup := t.TempDir()
	writeLogs(t, dup, "ring", map[int]*File{0: good, 1: good}) // both say rank 0

	for _, tc := range []struct {
		path   string
		is     error
		inText []string
	}{
		// junk-0.log and empty-0.log are named like logs but are not.
		{dir, nil, []string{"holds the logs of 4 programs", "(bad, cut, halo, ring)", "name one with a prefix, e.g. " + filepath.Join(dir, "bad")}},
		{filepath.Join(dir, "junk"), fs.ErrNotExist, []string{"no logs at " + filepath.Join(dir, "junk"), "(" + garbage + " is not)"}},
		{filepath.Join(dir, "nowhere"), fs.ErrNotExist, []string{"no logs at " + filepath.Join(dir, "nowhere"), "a prefix such as"}},
		{t.TempDir(), fs.ErrNotExist, []string{"no logs in ", "(file does not exist): logs are named <program>-<rank>.log"}},
		{onlyJunk, fs.ErrNotExist, []string{"no logs in ", "(" + filepath.Join(onlyJunk, "ring-0.log") + " is not)"}},
		{truncated, nil, []string{truncated + ": line 11: a table needs a heading row and a label row", "cut short"}},
		{garbage, ErrNotLog, []string{garbage + ": not a coNCePTuaL log file", `"# coNCePTuaL log file"`}},
		{empty, ErrNotLog, []string{empty + ": not a coNCePTuaL log file: the file is empty"}},
		{noRank, nil, []string{noRank + ": cannot tell which task wrote it"}},
		{badRank, nil, []string{badRank + `: the rank header says "two"`}},
		{mixed, nil, []string{"ring-0.log says its backend is", "ring-1.log says", "different runs"}},
		{dup, nil, []string{"are both rank 0"}},
	} {
		s, err := LoadSet(tc.path)
		if err == nil {
			t.Errorf("LoadSet(%s) = %+v, want an error", tc.path, s)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("LoadSet(%s): %v is not %v", tc.path, err, tc.is)
		}
		for _, want := range tc.inText {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("LoadSet(%s): %q lacks %q", tc.path, err, want)
			}
		}
	}
}

// compareSets writes two sets and compares them.
func compareSets(t *testing.T, measured, predicted map[int]*File) *Comparison {
	t.Helper()
	m, err := LoadSet(writeLogs(t, filepath.Join(t.TempDir(), "meas"), "ring", measured))
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadSet(writeLogs(t, filepath.Join(t.TempDir(), "pred"), "ring", predicted))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(m, p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompare(t *testing.T) {
	sizes := []string{"0", "8", "64"}
	measured := map[int]*File{
		0: taskFile(measuredBackend, 0, sizes, []string{"0", "2", "4"}, append([]KV{elapsed("2 seconds")}, totals(3, 3, 72, 72)...)...),
		1: taskFile(measuredBackend, 1, sizes, []string{"1", "x", "4"}, append([]KV{elapsed("4 seconds")}, totals(3, 3, 72, 72)...)...),
		3: taskFile(measuredBackend, 3, sizes, []string{"1", "2", "4"}, elapsed("1 seconds")),
	}
	predicted := map[int]*File{
		0: taskFile(predictedBackend, 0, sizes, []string{"1", "1", "3"}, append([]KV{elapsed("1 seconds (predicted)")}, totals(3, 3, 72, 72)...)...),
		1: taskFile(predictedBackend, 1, sizes, []string{"1", "1"}, append([]KV{elapsed("1 seconds (predicted)")}, totals(3, 2, 72, 64)...)...),
		2: taskFile(predictedBackend, 2, sizes, []string{"1", "1", "1"}, elapsed("3 seconds (predicted)")),
	}
	predicted[0].Tables[0].Columns = append(predicted[0].Tables[0].Columns, Column{Heading: "Extra", Label: "(mean)", Rows: []string{"5"}})
	c := compareSets(t, measured, predicted)

	if !cmp.Equal(c.Ranks, []int{0, 1}) || !cmp.Equal(c.OnlyMeasured, []int{3}) || !cmp.Equal(c.OnlyPredicted, []int{2}) {
		t.Errorf("ranks: both %v, measured only %v, predicted only %v", c.Ranks, c.OnlyMeasured, c.OnlyPredicted)
	}
	if len(c.Columns) != 3 {
		t.Fatalf("%d columns, want Bytes, Time, Extra", len(c.Columns))
	}
	if !c.Columns[0].Exact() || c.Columns[1].Exact() || c.Columns[0].Name() != `"Bytes" (only value)` {
		t.Errorf("Bytes exact %v, Time exact %v, name %s", c.Columns[0].Exact(), c.Columns[1].Exact(), c.Columns[0].Name())
	}
	wantTime := []Cell{
		{Rank: 0, Row: 0, Measured: "0", Predicted: "1"}, // measured 0: no ratio
		{Rank: 0, Row: 1, Measured: "2", Predicted: "1", Ratio: 0.5, HasRatio: true},
		{Rank: 0, Row: 2, Measured: "4", Predicted: "3", Ratio: 0.75, HasRatio: true},
		{Rank: 1, Row: 0, Measured: "1", Predicted: "1", Ratio: 1, HasRatio: true},
		{Rank: 1, Row: 1, Measured: "x", Predicted: "1"}, // not a number
		{Rank: 1, Row: 2, Measured: "4", Predicted: ""},  // no such row predicted
	}
	if diff := cmp.Diff(wantTime, c.Columns[1].Cells); diff != "" {
		t.Errorf("Time cells (-want +got):\n%s", diff)
	}
	if extra := c.Columns[2]; extra.Heading != "Extra" || len(extra.Cells) != 1 || extra.Cells[0].Measured != "" {
		t.Errorf("Extra column: %+v", extra)
	}
	wantNotes := []string{
		`table 1, column "Extra" (mean): only in the predicted logs (rank 0)`,
		`table 1, column "Time (usecs)" (median): 3 rows measured, 2 predicted (rank 1)`,
	}
	if diff := cmp.Diff(wantNotes, c.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	wantDiffs := []TotalDiff{{1, "Messages received", 3, 2}, {1, "Bytes received", 72, 64}}
	if diff := cmp.Diff(wantDiffs, c.TotalDiffs); diff != "" || c.TotalsChecked != 2 || c.TotalsAgree() || !cmp.Equal(c.DifferingRanks(), []int{1}) {
		t.Errorf("totals: checked %d (-want +got):\n%s", c.TotalsChecked, diff)
	}
	if m, p := c.Elapsed.Measured, c.Elapsed.Predicted; m != (Stats{3, 1, 2, 4}) || p != (Stats{3, 1, 1, 3}) {
		t.Errorf("elapsed: measured %+v, predicted %+v", m, p)
	}
}

func TestCompareNotes(t *testing.T) {
	m := taskFile(measuredBackend, 0, []string{"8"}, []string{"2"}, totals(1, 1, 8, 8)...)
	p := taskFile(predictedBackend, 0, []string{"8"}, []string{"1"})
	p.Header[3].Value = "halo.parley"
	p.Tables = append(p.Tables, p.Tables[0])
	p.Footer = nil
	c := compareSets(t, map[int]*File{0: m}, map[int]*File{0: p})
	want := []string{
		"the logs come from different programs: ring.parley measured, halo.parley predicted",
		"1 tables measured, 2 predicted (rank 0)",
		`table 2, column "Bytes" (only value): only in the predicted logs (rank 0)`,
		`table 2, column "Time (usecs)" (median): only in the predicted logs (rank 0)`,
		"the predicted logs of rank 0 have no footer: the run may have been cut short",
	}
	if diff := cmp.Diff(want, c.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if c.TotalsChecked != 0 || !c.TotalsAgree() {
		t.Errorf("totals on one side only: checked %d, diffs %v", c.TotalsChecked, c.TotalDiffs)
	}
	var b bytes.Buffer
	c.WriteText(&b, TextOptions{})
	if !strings.Contains(b.String(), "message totals not checked: only the measured logs carry them") {
		t.Errorf("text:\n%s", b.String())
	}
	if _, err := Compare(nil, c.Predicted); err == nil {
		t.Error("Compare(nil, set) succeeded")
	}
}

func TestWriteText(t *testing.T) {
	sizes := []string{"8", "1024"}
	tot := totals(2, 2, 16, 16)
	measured := map[int]*File{
		0: taskFile(measuredBackend, 0, sizes, []string{"2", "10"}, append([]KV{elapsed("0.004 seconds")}, tot...)...),
		1: taskFile(measuredBackend, 1, sizes, []string{"4", "20"}, append([]KV{elapsed("0.002 seconds")}, tot...)...),
	}
	predicted := map[int]*File{
		0: taskFile(predictedBackend, 0, sizes, []string{"1", "10"}, append([]KV{elapsed("0.002 seconds (predicted)")}, tot...)...),
		1: taskFile(predictedBackend, 1, sizes, []string{"1", "5"}, append([]KV{elapsed("0.001 seconds (predicted)")}, tot...)...),
	}
	c := compareSets(t, measured, predicted)
	var b bytes.Buffer
	if err := c.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	_, got, _ = strings.Cut(got, "ratio = predicted / measured (1 is a perfect prediction)\n") // the paths vary
	want := `
Table 1
  "Bytes" (only value): the same in both sets (4 values, ranks 0-1)

  "Time (usecs)" (median)
    rank  row  Bytes  measured  predicted  ratio
       0    1      8         2          1    0.5
       0    2   1024        10         10      1
       1    1      8         4          1   0.25
       1    2   1024        20          5   0.25

message totals agree on all 2 ranks

elapsed time (s)  ranks    min  median    max
  measured            2  0.002   0.003  0.004
  predicted           2  0.001  0.0015  0.002
  ratio                    0.5     0.5    0.5
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WriteText (-want +got):\n%s", diff)
	}
}

func TestWriteTextSummary(t *testing.T) {
	measured, predicted := map[int]*File{}, map[int]*File{}
	for r := range 10 {
		measured[r] = taskFile(measuredBackend, r, []string{"8"}, []string{fmt.Sprint(10 + r)}, totals(1, 1, 8, 8)...)
		predicted[r] = taskFile(predictedBackend, r, []string{"8"}, []string{"5"}, totals(1, 1, 8, 8)...)
	}
	predicted[4].Footer = append(predicted[4].Footer[:1], totals(2, 1, 8, 8)...)
	c := compareSets(t, measured, predicted)
	var b bytes.Buffer
	c.WriteText(&b, TextOptions{})
	for _, want := range []string{
		`"Time (usecs)" (median): 10 ranks (0-9), min/median/max across ranks`,
		"    row  Bytes             ranks     min  median  max\n" +
			"      1      8  measured      10      10    14.5   19\n" +
			"                predicted     10       5       5    5\n" +
			"                ratio         10  0.2632  0.3452  0.5\n",
		"message totals DIFFER on 1 of 10 ranks",
		"  rank  total          measured  predicted  difference\n     4  Messages sent         1          2          +1\n",
		"elapsed time: in neither set's footers",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	c.WriteText(&b, TextOptions{AllRanks: true})
	if !strings.Contains(b.String(), "rank  row  Bytes  measured  predicted   ratio") || !strings.Contains(b.String(), "   9    1      8        19          5  0.2632") {
		t.Errorf("AllRanks does not list every rank:\n%s", b.String())
	}
}

func TestSetWriteText(t *testing.T) {
	dir := t.TempDir()
	f := taskFile(predictedBackend, 0, []string{"8", "64"}, []string{"1.5"}, elapsed("0.5 seconds (predicted)"))
	f.Tables = append(f.Tables, Table{Columns: []Column{{Heading: "x", Label: Label(Histogram, 0), Hist: true, Rows: []string{"1", "2", "3", "1"}}}})
	quiet := taskFile(predictedBackend, 1, nil, nil)
	quiet.Tables = nil
	quiet.Footer = nil
	writeLogs(t, dir, "ring", map[int]*File{0: f, 1: quiet})
	s, err := LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b, []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`logs:     %s (2 files)
program:  ring.parley
backend:  parley interpreter (predicted times, not measured)
times:    predicted by a model, not measured
ranks:    0-1 of 4 tasks
missing:  ranks 2-3 (no log)

Rank 0 (%s)
  Table 1
           Bytes  Time (usecs)
    (only value)      (median)
               8           1.5
              64
  Table 2
                 x                x
    (hist. values)  (hist. tallies)
                 1                2
                 3                1
  Program exited normally.
  Elapsed time: 0.5 seconds (predicted)

Rank 1 (%s)
  no tables: this task logged nothing
  no footer: the run may have been cut short
`, dir, filepath.Join(dir, "ring-0.log"), filepath.Join(dir, "ring-1.log"))
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Set.WriteText (-want +got):\n%s", diff)
	}
	if err := s.WriteText(&b, []int{5}); err == nil || !strings.Contains(err.Error(), "no log for rank 5 (it has ranks 0-1)") {
		t.Errorf("missing rank: %v", err)
	}
}

func TestRankList(t *testing.T) {
	for _, tc := range []struct {
		ranks []int
		want  string
	}{
		{nil, "no ranks"},
		{[]int{3}, "rank 3"},
		{[]int{0, 1, 2, 3, 7, 9, 10}, "ranks 0-3, 7, 9-10"},
		{[]int{1, 3}, "ranks 1, 3"},
	} {
		if got := RankList(tc.ranks); got != tc.want {
			t.Errorf("RankList(%v) = %q, want %q", tc.ranks, got, tc.want)
		}
	}
}

// TestLoadSetLeavesOutNonLogs: files beside the logs that are not logs
// (the executable that writes them, a crash message in a file named like
// a log) are left out of a directory or prefix, the latter with a
// warning; a file named explicitly must be a log.
func TestLoadSetLeavesOutNonLogs(t *testing.T) {
	dir := t.TempDir()
	files := map[int]*File{}
	for r := range 2 {
		files[r] = taskFile(measuredBackend, r, []string{"8"}, []string{"1.5"})
	}
	writeLogs(t, dir, "ring", files)
	exe := filepath.Join(dir, "ring")
	os.WriteFile(exe, []byte("\x7fELF\x02\x01\x01\x00binary"), 0o755)
	crashed := filepath.Join(dir, "ring-3.log")
	os.WriteFile(crashed, []byte("Segmentation fault\n"), 0o644)
	empty := filepath.Join(dir, "ring-2.log")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(filepath.Join(dir, "ring.c"), []byte("int main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ring-007.log"), []byte("# coNCePTuaL log file\n"), 0o644) // not a writer's name

	for _, path := range []string{dir, exe, filepath.Join(dir, "ring-")} {
		s, err := LoadSet(path)
		if err != nil {
			t.Fatalf("LoadSet(%s): %v", path, err)
		}
		if !cmp.Equal(s.Ranks(), []int{0, 1}) || s.Base != "ring" {
			t.Errorf("LoadSet(%s) = ranks %v, base %q", path, s.Ranks(), s.Base)
		}
		if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "left out "+empty+", "+crashed+": named like a log but not one") {
			t.Errorf("LoadSet(%s): warnings %q", path, s.Warnings)
		}
	}
	if s, err := LoadSet(crashed); !errors.Is(err, ErrNotLog) {
		t.Errorf("LoadSet of a named file that is not a log = %+v, %v", s, err)
	}
}

// runFile is a log of rank in a run of tasks tasks with identifier id.
func runFile(rank, tasks int, id string) *File {
	f := taskFile(predictedBackend, rank, []string{"8"}, []string{"1.5"})
	f.Header[1].Value = fmt.Sprint(tasks)
	f.Header = append(f.Header, KV{KeyRunID, id})
	return f
}

// TestLoadSetStale: logs left by an earlier run with more tasks are left
// out with a warning; logs of another run among the run's own ranks are
// an error naming them.
func TestLoadSetStale(t *testing.T) {
	dir := t.TempDir()
	files := map[int]*File{}
	for r := range 8 {
		files[r] = runFile(r, 8, "run-a")
	}
	for r := range 4 {
		files[r] = runFile(r, 4, "run-b")
	}
	writeLogs(t, dir, "ring", files)
	s, err := LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(s.Ranks(), []int{0, 1, 2, 3}) || s.Tasks != 4 || len(s.Missing()) != 0 {
		t.Errorf("ranks %v of %d tasks, missing %v", s.Ranks(), s.Tasks, s.Missing())
	}
	var stale []string
	for r := 4; r < 8; r++ {
		stale = append(stale, filepath.Join(dir, fmt.Sprintf("ring-%d.log", r)))
	}
	if want := "left out " + strings.Join(stale, ", ") + ": left by an earlier run with more tasks than a run of 4 tasks, unique execution identifier run-b"; len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], want) {
		t.Errorf("warnings %q, want %q", s.Warnings, want)
	}

	// A run of as many tasks, or logs without the identifier among logs
	// with one, are another run.
	for _, f := range []*File{runFile(2, 4, "run-c"), taskFile(predictedBackend, 2, nil, nil)} {
		f.Header[1].Value = "4"
		writeLogs(t, dir, "ring", map[int]*File{2: f})
		_, err := LoadSet(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "ring-2.log")+" (a run of 4 tasks") ||
			!strings.Contains(err.Error(), "comes from another run than "+filepath.Join(dir, "ring-0.log")) {
			t.Errorf("mixed runs: %v", err)
		}
	}
}

func TestStaleLogs(t *testing.T) {
	dir := t.TempDir()
	files := map[int]*File{}
	for r := range 8 {
		files[r] = runFile(r, 8, "run-a")
	}
	writeLogs(t, dir, "ring", files)
	writeLogs(t, dir, "ring-x", map[int]*File{9: runFile(9, 10, "x")}) // another program, whose name starts alike
	writeLogs(t, dir, "halo", map[int]*File{9: runFile(9, 10, "x")})
	os.WriteFile(filepath.Join(dir, "ring-07.log"), []byte(banner+"\n"), 0o644) // not a name a writer gives
	os.WriteFile(filepath.Join(dir, "ring-9.log"), []byte("my notes\n"), 0o644) // not a log
	os.Mkdir(filepath.Join(dir, "ring-10.log"), 0o755)
	got, err := StaleLogs(dir, "ring", 4)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for r := 4; r < 8; r++ {
		want = append(want, filepath.Join(dir, fmt.Sprintf("ring-%d.log", r)))
	}
	if !cmp.Equal(got, want) {
		t.Errorf("StaleLogs = %q, want %q", got, want)
	}
	if _, err := StaleLogs(filepath.Join(dir, "nowhere"), "ring", 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("StaleLogs of a missing directory: %v", err)
	}
}

func TestFileList(t *testing.T) {
	var paths []string
	for i := range 10 {
		paths = append(paths, fmt.Sprintf("r-%d.log", i))
	}
	if got, want := fileList(paths[:2]), "r-0.log, r-1.log"; got != want {
		t.Errorf("fileList = %q, want %q", got, want)
	}
	if got := fileList(paths); !strings.HasSuffix(got, "r-7.log and 2 more") || strings.Contains(got, "r-8.log") {
		t.Errorf("fileList of 10 = %q", got)
	}
}
