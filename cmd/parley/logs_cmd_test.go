package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/logfile"
)

// predictLogs runs an example in the interpreter with --logs and returns
// the logs' directory. The logs get message totals if the interpreter
// does not write them yet.
func predictLogs(t *testing.T, prog string, tasks int, progArgs ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pred")
	args := []string{"run", prog, "--tasks", strconv.Itoa(tasks), "--logs", dir}
	if len(progArgs) > 0 {
		args = append(append(args, "--"), progArgs...)
	}
	if code, _, errOut := parley(t, "", args...); code != 0 {
		t.Fatalf("parley %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	rewriteLogs(t, dir, dir, func(l *logfile.TaskLog) {
		if _, ok := l.File.Total("Messages sent"); !ok {
			n := strconv.Itoa(10 + l.Rank)
			l.File.Footer = append(l.File.Footer, logfile.KV{Key: "Messages sent", Value: n}, logfile.KV{Key: "Messages received", Value: n},
				logfile.KV{Key: "Bytes sent", Value: n + "00"}, logfile.KV{Key: "Bytes received", Value: n + "00"})
		}
	})
	return dir
}

// rewriteLogs reads each log of the set in dir, lets edit change it, and
// writes it under the same name into out.
func rewriteLogs(t *testing.T, dir, out string, edit func(*logfile.TaskLog)) {
	t.Helper()
	s, err := logfile.LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range s.Logs {
		l := &s.Logs[i]
		edit(l)
		var b bytes.Buffer
		if err := l.File.Write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, filepath.Base(l.Path)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// measure makes a "measured" set from predicted logs as the C backend
// would write it: its backend header, and the times (columns whose
// heading mentions usecs, and the elapsed time) multiplied by factor.
// edit, if not nil, then changes each log further.
func measure(t *testing.T, predDir string, factor float64, edit func(*logfile.TaskLog)) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "meas")
	rewriteLogs(t, predDir, out, func(l *logfile.TaskLog) {
		f := l.File
		for i, kv := range f.Header {
			if kv.Key == "coNCePTuaL backend" {
				f.Header[i].Value = "parley c+mpi (measured times)"
			}
		}
		for _, tab := range f.Tables {
			for _, c := range tab.Columns {
				if strings.Contains(c.Heading, "usecs") {
					scale(t, c.Rows, factor)
				}
			}
		}
		for i, kv := range f.Footer {
			if kv.Key == "Elapsed time" {
				secs, _ := f.Elapsed()
				f.Footer[i].Value = logfile.Number(secs*factor) + " seconds"
			}
		}
		if edit != nil {
			edit(l)
		}
	})
	return out
}

func scale(t *testing.T, rows []string, factor float64) {
	for i, r := range rows {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil {
			t.Fatalf("log value %q: %v", r, err)
		}
		rows[i] = logfile.Number(v * factor)
	}
}

// block returns the lines of out from the one containing start up to the
// next blank line, each with its spaces collapsed.
func block(out, start string) []string {
	_, rest, ok := strings.Cut(out, start)
	if !ok {
		return nil
	}
	var lines []string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if strings.TrimSpace(line) == "" {
			break
		}
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	return lines
}

func TestLogsCompare(t *testing.T) {
	pred := predictLogs(t, "pingpong-latency.parley", 4, "--reps", "5")
	meas := measure(t, pred, 2, nil)
	code, out, errOut := parley(t, "", "logs", meas, pred)
	if code != 0 || errOut != "" {
		t.Fatalf("parley logs MEASURED PREDICTED: exit %d %q\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"measured:   " + meas, "parley c+mpi (measured times)", "predicted:  " + pred, "ratio = predicted / measured",
		`"Bytes" (only value): the same in both sets (22 values, rank 0)`,
		"message totals agree on all 4 ranks",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out)
		}
	}
	// Every row is labelled by its message size and predicted at half the
	// "measured" time.
	rows := block(out, `"1/2 RTT (usecs)" (median)`)
	if len(rows) != 23 || rows[0] != "rank row Bytes measured predicted ratio" {
		t.Fatalf("1/2 RTT block:\n%s", strings.Join(rows, "\n"))
	}
	for i, row := range rows[1:] {
		f := strings.Fields(row)
		if len(f) != 6 || f[0] != "0" || f[1] != strconv.Itoa(i+1) || f[5] != "0.5" {
			t.Errorf("row %d: %q, want rank 0 and ratio 0.5", i+1, row)
		}
	}
	if rows[1] != "0 1 0 2.6 1.3 0.5" || !strings.HasPrefix(rows[22], "0 22 1048576 ") {
		t.Errorf("first and last rows: %q, %q", rows[1], rows[22])
	}
	if el := block(out, "elapsed time (s)"); len(el) != 3 || el[2] != "ratio 0.5 0.5 0.5" {
		t.Errorf("elapsed times:\n%s", strings.Join(el, "\n"))
	}

	// Given the other way round, the sets are swapped back, with a note.
	code, out2, errOut := parley(t, "", "logs", pred, meas)
	if code != 0 || out2 != out || !strings.Contains(errOut, "note: "+pred+" holds predicted times and "+meas+" measured ones") {
		t.Errorf("swapped arguments: exit %d, stderr %q, same output %v", code, errOut, out2 == out)
	}
	// Two predicted sets still compare, with a note.
	code, out, errOut = parley(t, "", "logs", pred, pred)
	if code != 0 || !strings.Contains(errOut, "both hold predicted times") || !strings.Contains(out, `"1/2 RTT (usecs)" (median): the same in both sets`) {
		t.Errorf("two predicted sets: exit %d, %q\n%s", code, errOut, out)
	}
}

func TestLogsTotalsDiffer(t *testing.T) {
	pred := predictLogs(t, "pingpong-latency.parley", 4, "--reps", "5")
	meas := measure(t, pred, 1.5, func(l *logfile.TaskLog) {
		if l.Rank != 1 {
			return
		}
		for i, kv := range l.File.Footer {
			if kv.Key == "Messages sent" {
				n, _ := strconv.Atoi(kv.Value)
				l.File.Footer[i].Value = strconv.Itoa(n + 1)
			}
		}
	})
	code, out, errOut := parley(t, "", "logs", meas, pred)
	if code != 1 {
		t.Errorf("differing totals: exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "message totals differ on rank 1") {
		t.Errorf("stderr: %q", errOut)
	}
	rows := block(out, "message totals DIFFER on 1 of 4 ranks")
	if len(rows) != 2 || rows[0] != "rank total measured predicted difference" ||
		!strings.HasPrefix(rows[1], "1 Messages sent ") || !strings.HasSuffix(rows[1], " -1") {
		t.Errorf("totals block:\n%s\n\nin:\n%s", strings.Join(rows, "\n"), out)
	}
}

func TestLogsDamaged(t *testing.T) {
	pred := predictLogs(t, "pingpong-latency.parley", 2, "--reps", "5")
	meas := measure(t, pred, 2, nil)
	// Cut rank 0's log after its table's heading row.
	path := filepath.Join(meas, "pingpong-latency-0.log")
	data, _ := os.ReadFile(path)
	text := string(data)
	cut := strings.Index(text, `"(only value)"`)
	os.WriteFile(path, []byte(text[:cut]), 0o644)
	code, out, errOut := parley(t, "", "logs", meas, pred)
	if code != 2 || out != "" {
		t.Errorf("damaged log: exit %d\n%s", code, out)
	}
	line := strconv.Itoa(strings.Count(text[:cut], "\n"))
	if want := "parley logs: " + path + ": line " + line + ": a table needs a heading row and a label row"; !strings.Contains(errOut, want) || !strings.Contains(errOut, "rerun") {
		t.Errorf("damaged log: stderr %q, want %q", errOut, want)
	}

	os.WriteFile(path, []byte("Segmentation fault\n"), 0o644)
	if code, _, errOut := parley(t, "", "logs", path); code != 2 || !strings.Contains(errOut, path+": not a coNCePTuaL log file") {
		t.Errorf("not a log: exit %d %q", code, errOut)
	}
	// In a directory, it is left out with a warning.
	if code, out, errOut := parley(t, "", "logs", meas); code != 0 || !strings.Contains(errOut, "warning: left out "+path+": named like a log but not one") || !strings.Contains(out, "Rank 1 (") {
		t.Errorf("not a log among logs: exit %d %q\n%s", code, errOut, out)
	}
	nowhere := filepath.Join(t.TempDir(), "nowhere")
	if code, _, errOut := parley(t, "", "logs", nowhere, pred); code != 2 || !strings.Contains(errOut, "no logs at "+nowhere) || !strings.Contains(errOut, "a prefix such as") {
		t.Errorf("missing logs: exit %d %q", code, errOut)
	}
	for _, args := range [][]string{{"logs"}, {"logs", pred, pred, pred}, {"logs", pred, "--rank", "1", "--all"}, {"logs", pred, pred, "--rank", "0"}, {"logs", "--bogus", pred}} {
		if code, _, errOut := parley(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("parley %s: exit %d %q, want 2 and a message", strings.Join(args, " "), code, errOut)
		}
	}
}

func TestLogsShow(t *testing.T) {
	pred := predictLogs(t, "pingpong-latency.parley", 4, "--reps", "5")
	code, out, errOut := parley(t, "", "logs", pred)
	if code != 0 || errOut != "" {
		t.Fatalf("parley logs: exit %d %q", code, errOut)
	}
	f, err := logfile.LoadSet(filepath.Join(pred, "pingpong-latency-0.log"))
	if err != nil {
		t.Fatal(err)
	}
	col := f.Logs[0].File.Tables[0].Columns
	last := col[0].Rows[len(col[0].Rows)-1] + " " + col[1].Rows[len(col[1].Rows)-1]
	for _, want := range []string{
		"backend:  parley interpreter (predicted times, not measured)", "times:    predicted by a model, not measured",
		"ranks:    0-3 of 4 tasks", "Rank 0 (" + filepath.Join(pred, "pingpong-latency-0.log") + ")",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("parley logs lacks %q:\n%s", want, out)
		}
	}
	table := block(out, "  Table 1")
	if len(table) < 26 || table[0] != "Bytes 1/2 RTT (usecs)" || table[1] != "(only value) (median)" || table[2] != "0 "+col[1].Rows[0] ||
		table[23] != last || table[24] != "Program exited normally." || !strings.HasPrefix(table[25], "Elapsed time: ") {
		t.Errorf("table of rank 0:\n%s", strings.Join(table, "\n"))
	}
	if strings.Contains(out, "Rank 1") {
		t.Errorf("parley logs shows more than rank 0:\n%s", out)
	}

	code, out, _ = parley(t, "", "logs", pred, "--rank", "2")
	if code != 0 || !strings.Contains(out, "Rank 2") || !strings.Contains(out, "no tables: this task logged nothing") ||
		!strings.Contains(out, "rank 0 logged tables: show one with --rank N") {
		t.Errorf("--rank 2: exit %d\n%s", code, out)
	}
	code, out, _ = parley(t, "", "logs", "--all", pred)
	if code != 0 || strings.Count(out, "\nRank ") != 4 {
		t.Errorf("--all: exit %d\n%s", code, out)
	}
	if code, _, errOut := parley(t, "", "logs", pred, "--rank", "9"); code != 2 || !strings.Contains(errOut, "no log for rank 9 (it has ranks 0-3)") {
		t.Errorf("--rank 9: exit %d %q", code, errOut)
	}
	meas := measure(t, pred, 2, nil)
	if code, out, _ := parley(t, "", "logs", meas); code != 0 || !strings.Contains(out, "times:    measured\n") {
		t.Errorf("measured set: exit %d\n%s", code, out)
	}
}

// TestLogsManyRanks: beyond 8 ranks a column is summarized across ranks
// unless --all asks for every rank.
func TestLogsManyRanks(t *testing.T) {
	pred := predictLogs(t, "ring.parley", 16, "--reps", "3")
	meas := measure(t, pred, 4, nil)
	code, out, errOut := parley(t, "", "logs", meas, pred)
	if code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	rows := block(out, `"Shift time (usecs)" (median): 16 ranks (0-15), min/median/max across ranks`)
	if len(rows) != 4 || rows[0] != "row ranks min median max" || !strings.HasPrefix(rows[1], "1 measured 16 ") ||
		!strings.HasPrefix(rows[2], "predicted 16 ") || rows[3] != "ratio 16 0.25 0.25 0.25" {
		t.Errorf("summary:\n%s\n\nin:\n%s", strings.Join(rows, "\n"), out)
	}
	if !strings.Contains(out, "message totals agree on all 16 ranks") {
		t.Errorf("totals:\n%s", out)
	}
	_, out, _ = parley(t, "", "logs", meas, pred, "--all")
	rows = block(out, `"Shift time (usecs)" (median)`)
	if len(rows) != 17 || rows[0] != "rank row measured predicted ratio" || !strings.HasPrefix(rows[16], "15 1 ") || !strings.HasSuffix(rows[16], " 0.25") {
		t.Errorf("--all:\n%s", strings.Join(rows, "\n"))
	}
}

// TestLogsSets: a directory may hold one program's logs; a prefix picks
// one of several, and a single file is a set of one.
func TestLogsSets(t *testing.T) {
	dir := t.TempDir()
	for _, prog := range []string{"ring", "pingpong-latency"} {
		if code, _, errOut := parley(t, "", "run", prog+".parley", "--tasks", "2", "--logs", dir, "--", "--reps", "2"); code != 0 {
			t.Fatalf("run %s: %q", prog, errOut)
		}
	}
	code, _, errOut := parley(t, "", "logs", dir)
	if code != 2 || !strings.Contains(errOut, "holds the logs of 2 programs (pingpong-latency, ring): name one with a prefix, e.g. "+filepath.Join(dir, "pingpong-latency")) {
		t.Errorf("two programs in a directory: exit %d %q", code, errOut)
	}
	if code, out, _ := parley(t, "", "logs", filepath.Join(dir, "ring")); code != 0 || !strings.Contains(out, "program:  ring.parley") || !strings.Contains(out, "ranks:    0-1 of 2 tasks") {
		t.Errorf("prefix: exit %d\n%s", code, out)
	}
	if code, out, _ := parley(t, "", "logs", filepath.Join(dir, "ring-1.log")); code != 0 || !strings.Contains(out, "Rank 1 (") {
		t.Errorf("single file: exit %d\n%s", code, out)
	}
}

func TestLogsHelp(t *testing.T) {
	code, out, _ := parley(t, "", "logs", "--help")
	for _, want := range []string{"Usage: parley logs LOGS [PREDICTED]", "parley run examples/ring.parley --tasks 4 --logs pred",
		"mpirun -np 4 ./ring", "parley logs . pred", "predicted / measured", "Exit status", "-all", "-rank"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("logs --help: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
	if _, out2, _ := parley(t, "", "help", "logs"); out2 != out {
		t.Error("help logs differs from logs --help")
	}
}
