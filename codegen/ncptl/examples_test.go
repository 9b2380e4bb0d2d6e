package ncptl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/codegen/ncptl"
	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// exampleRun is how an exported program runs in these tests: on few
// tasks, with options small enough for a second's run on a shared
// 2-core machine.
type exampleRun struct {
	tasks int64
	args  []string
}

var exampleRuns = map[string]exampleRun{
	"allreduce-loop.parley":     {4, []string{"--reps", "20"}},
	"alltoall.parley":           {4, []string{"--block", "1K", "--reps", "2"}},
	"barrier.parley":            {4, []string{"--reps", "5"}},
	"broadcast.parley":          {4, []string{"--maxbytes", "4K", "--reps", "3"}},
	"compute-model.parley":      {2, []string{"--length", "64K"}},
	"deadlock-ring.parley":      {4, nil},
	"gather-scatter.parley":     {4, []string{"--block", "1K", "--reps", "2"}},
	"halo2d.parley":             {4, []string{"--px", "2", "--py", "2", "--points", "64", "--reps", "3"}},
	"halo3d.parley":             {4, []string{"--px", "2", "--py", "2", "--pz", "1", "--points", "8", "--steps", "3"}},
	"hotspot.parley":            {4, []string{"--msgsize", "1K", "--rounds", "3"}},
	"lulesh.parley":             {8, []string{"--side", "2", "--elements", "4", "--steps", "2"}}, // a cube of tasks
	"pingpong-bandwidth.parley": {2, []string{"--maxbytes", "16K", "--burst", "4", "--reps", "3"}},
	"pingpong-latency.parley":   {2, []string{"--maxbytes", "4K", "--reps", "5"}},
	"reduce.parley":             {4, []string{"--maxcount", "64", "--reps", "2"}},
	"ring.parley":               {4, []string{"--msgsize", "1K", "--reps", "3"}},
	"wavefront.parley":          {4, []string{"--px", "2", "--py", "2", "--work", "10", "--sweeps", "2"}},
}

// program is a program to export, with how to run it.
type program struct {
	name string
	src  []byte
	run  exampleRun
	// refused is the reason the export gives for refusing the program,
	// where it must.
	refused string
}

// refusedExports are the differential test's programs that have no
// coNCePTuaL form, with the reason the export must give.
var refusedExports = map[string]string{
	"reduce-targets.parley": "a REDUCE whose targets' SUCH THAT reads the sources' variable s",
}

// export exports pr; for a program the export must refuse, it checks the
// reason and returns nil.
func export(t *testing.T, pr program, plat *netmodel.Platform) []byte {
	t.Helper()
	text, err := ncptl.Export(parse(t, pr.name, pr.src), ncptl.Options{Platform: plat})
	switch {
	case pr.refused == "" && err != nil:
		t.Fatal(err)
	case pr.refused != "" && (err == nil || !strings.Contains(err.Error(), pr.refused)):
		t.Fatalf("the export must refuse with %q; got %v", pr.refused, err)
	case pr.refused != "":
		return nil
	}
	return text
}

// programs are every example, and the differential test's programs of
// package codegen on 4 tasks: together they use every lowering the
// examples do not.
func programs(t *testing.T) []program {
	t.Helper()
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil || len(names) < 15 {
		t.Fatalf("%d examples, %v", len(names), err)
	}
	var out []program
	for _, name := range names {
		run, ok := exampleRuns[name]
		if !ok {
			t.Fatalf("%s: add it to exampleRuns", name)
		}
		src, _ := fs.ReadFile(examples.FS, name)
		out = append(out, program{name: name, src: src, run: run})
	}
	more, _ := filepath.Glob("../testdata/diff/*.parley")
	for _, path := range more {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		out = append(out, program{name, src, exampleRun{tasks: 4}, refusedExports[name]})
	}
	return out
}

func parse(t *testing.T, name string, src []byte) *lang.Program {
	t.Helper()
	prog, diags := parser.Parse(name, src)
	if prog != nil && !diags.HasErrors() {
		diags = append(diags, lang.Check(prog)...)
	}
	if diags.HasErrors() {
		t.Fatalf("%s:\n%v\n%s", name, diags, src)
	}
	return prog
}

func platform(t *testing.T) *netmodel.Platform {
	t.Helper()
	plat, err := netmodel.Resolve(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	return plat
}

// predict runs prog on Parley's interpreter on the default platform.
func predict(t *testing.T, prog *lang.Program, run exampleRun) (*interp.Result, string) {
	t.Helper()
	var out bytes.Buffer
	res := predictTo(t, prog, run, platform(t), &out)
	return res, out.String()
}

// predictOn runs prog on Parley's interpreter on plat.
func predictOn(t *testing.T, prog *lang.Program, run exampleRun, plat *netmodel.Platform) *interp.Result {
	t.Helper()
	return predictTo(t, prog, run, plat, io.Discard)
}

// predictLogs runs prog on Parley's interpreter on the default platform
// and writes its logs into dir as prog-RANK.log.
func predictLogs(t *testing.T, prog *lang.Program, run exampleRun, dir string) (*interp.Result, string) {
	t.Helper()
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sim, err := interp.New(p, interp.Options{NumTasks: run.tasks, Args: run.args, Platform: platform(t), Seed: 1, Output: &out, Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run()
	if err := sim.WriteLogs(dir, "prog"); err != nil {
		t.Fatal(err)
	}
	return res, out.String()
}

func predictTo(t *testing.T, prog *lang.Program, run exampleRun, plat *netmodel.Platform, out io.Writer) *interp.Result {
	t.Helper()
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	res, err := interp.Run(p, interp.Options{NumTasks: run.tasks, Args: run.args, Platform: plat, Seed: 1, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestExportedExamplesRunInParley exports every program and runs the
// export on Parley's interpreter beside the original (see sameRun):
// strict coNCePTuaL is Parley too, and the lowerings must keep every
// message of the program.
func TestExportedExamplesRunInParley(t *testing.T) {
	plat := platform(t)
	for _, pr := range programs(t) {
		t.Run(pr.name, func(t *testing.T) {
			text := export(t, pr, plat)
			if text == nil {
				return
			}
			sameRun(t, parse(t, pr.name, pr.src), parse(t, pr.name+".ncptl", text), pr.run)
		})
	}
}

// sameRun runs the original and its export on Parley's interpreter: their
// statuses, and per task the point-to-point messages and bytes over the
// whole run, the counters' final values and the OUTPUTS, must agree. The
// collectives' own messages may differ (a MULTICAST is not an
// MPI_Scatter), and times do (COMPUTES FOR is rounded to microseconds).
func sameRun(t *testing.T, orig, exported *lang.Program, run exampleRun) {
	t.Helper()
	want, wantOut := predict(t, orig, run)
	got, gotOut := predict(t, exported, run)
	if want.Status != got.Status || len(want.Problems) != len(got.Problems) {
		t.Fatalf("original: %v %v; export: %v %v", want.Status, want.Problems, got.Status, got.Problems)
	}
	for r := range want.Tasks {
		w, g := want.Tasks[r], got.Tasks[r]
		if w.MsgsSent != g.MsgsSent || w.MsgsReceived != g.MsgsReceived || w.BytesSent != g.BytesSent || w.BytesReceived != g.BytesReceived {
			t.Errorf("task %d: messages and bytes sent/received: original %d %d %d %d, export %d %d %d %d", r,
				w.MsgsSent, w.BytesSent, w.MsgsReceived, w.BytesReceived, g.MsgsSent, g.BytesSent, g.MsgsReceived, g.BytesReceived)
		}
		wc, gc := w.Counters, g.Counters
		wc.ElapsedUsecs, gc.ElapsedUsecs = 0, 0
		if wc != gc {
			t.Errorf("task %d: final counters: original %+v, export %+v", r, wc, gc)
		}
	}
	if !slices.Equal(lines(wantOut), lines(gotOut)) {
		t.Errorf("OUTPUTS differ:\noriginal:\n%s\nexport:\n%s", wantOut, gotOut)
	}
}

func lines(s string) []string {
	out := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(out)
	return out
}

// TestExportedExamplesOnRealCoNCePTuaL compiles every program's export
// with coNCePTuaL's own compiler (c_mpi backend), runs it under mpirun and
// compares each task's message counters at the end of the run with those
// of Parley's interpreter on the original program. The counters come from
// a LOGS statement appended to the exported text here (the product never
// adds it): msgs_sent, bytes_sent, msgs_received and bytes_received, as
// each task last saw them, which is what interp.TaskStats.Counters holds.
// The OUTPUTS lines must agree too, and so must the logs' shape: per
// task, table and column, the heading, the aggregate and the number of
// rows, which follow the program's loops and warmups. Programs that draw
// random numbers compare only the counters summed over the tasks, since
// the two draw differently (and print and log different draws);
// deadlock-ring, which deadlocks by design, is compiled and not run.
func TestExportedExamplesOnRealCoNCePTuaL(t *testing.T) {
	compiler := realCompiler(t)
	_, mpirun := mpitest.Tools(t)
	plat := platform(t)
	for _, pr := range programs(t) {
		t.Run(pr.name, func(t *testing.T) {
			text := export(t, pr, plat)
			if text == nil {
				return
			}
			orig := parse(t, pr.name, pr.src)
			text = append(text, countersLog...)
			dir := t.TempDir()
			exe := compileReal(t, compiler, dir, "prog", text, true)
			wantLogs := filepath.Join(dir, "predicted")
			want, wantOut := predictLogs(t, orig, pr.run, wantLogs)
			if want.Status == interp.Deadlocked {
				t.Logf("%s: exported and compiled by coNCePTuaL; not run: it deadlocks by design", pr.name)
				return
			}
			logs := filepath.Join(dir, "logs")
			if err := os.Mkdir(logs, 0o755); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--logfile", filepath.Join(logs, "prog-%p.log")}, pr.run.args...)
			res, err := mpitest.Run(t, mpirun, exe, pr.run.tasks, args, 2*time.Minute)
			if err != nil {
				t.Fatalf("mpirun: %v\n%s", err, res)
			}
			out := string(res.Stdout)
			random := bytes.Contains(bytes.ToUpper(pr.src), []byte("RANDOM"))
			var wantRows, gotRows [][4]int64
			for r := range pr.run.tasks {
				c := want.Tasks[r].Counters
				wantRows = append(wantRows, [4]int64{c.MsgsSent, c.BytesSent, c.MsgsReceived, c.BytesReceived})
				real := readLog(t, filepath.Join(logs, fmt.Sprintf("prog-%d.log", r)))
				gotRows = append(gotRows, lastRow(t, real))
				// The program's own tables, without the counters' one.
				real.Tables = real.Tables[:len(real.Tables)-1]
				pred := readLog(t, filepath.Join(wantLogs, fmt.Sprintf("prog-%d.log", r)))
				if a, b := logRows(pred), logRows(real); !random && !slices.Equal(a, b) {
					t.Errorf("task %d: LOG rows per table and column: Parley %v, coNCePTuaL %v", r, a, b)
				}
			}
			how := "per task"
			if random {
				wantRows, gotRows, how = [][4]int64{sum(wantRows)}, [][4]int64{sum(gotRows)}, "summed over the tasks"
			} else if !slices.Equal(lines(wantOut), lines(out)) {
				t.Errorf("OUTPUTS differ:\nParley:\n%s\ncoNCePTuaL:\n%s", wantOut, out)
			}
			if !slices.Equal(wantRows, gotRows) {
				t.Errorf("msgs_sent, bytes_sent, msgs_received, bytes_received %s:\nParley:     %v\ncoNCePTuaL: %v", how, wantRows, gotRows)
				return
			}
			t.Logf("%s: exported, compiled and run by coNCePTuaL on %d tasks; counters agree %s: %v", pr.name, pr.run.tasks, how, gotRows)
		})
	}
}

// countersLog is the statement appended to exports to read the counters.
const countersLog = `
ALL TASKS LOG msgs_sent AS "msgs_sent" AND bytes_sent AS "bytes_sent" AND
    msgs_received AS "msgs_received" AND bytes_received AS "bytes_received".
`

// readLog reads a log file; a task that logs nothing may have none.
func readLog(t *testing.T, path string) *logfile.File {
	t.Helper()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return &logfile.File{}
	}
	return mpitest.ReadLog(t, path)
}

// lastRow returns the row of the last table of a coNCePTuaL log, the
// counters' table: msgs_sent, bytes_sent, msgs_received, bytes_received.
func lastRow(t *testing.T, lf *logfile.File) [4]int64 {
	t.Helper()
	if len(lf.Tables) == 0 {
		t.Fatal("the log has no table")
	}
	cols := lf.Tables[len(lf.Tables)-1].Columns
	var row [4]int64
	for k, h := range []string{"msgs_sent", "bytes_sent", "msgs_received", "bytes_received"} {
		i := slices.IndexFunc(cols, func(c logfile.Column) bool { return c.Heading == h })
		if i < 0 || len(cols[i].Rows) != 1 {
			t.Fatalf("the last table has no single row of %s: %+v", h, cols)
		}
		var err error
		if row[k], err = strconv.ParseInt(cols[i].Rows[0], 10, 64); err != nil {
			t.Fatalf("%s: %v", h, err)
		}
	}
	return row
}

// logRows lists, per table and column, the heading, the aggregate and the
// number of rows: what the program logs, whatever the times.
func logRows(f *logfile.File) []string {
	var out []string
	for i, tab := range f.Tables {
		for _, c := range tab.Columns {
			out = append(out, fmt.Sprintf("table %d %q %s: %d rows", i, c.Heading, c.Label, len(c.Rows)))
		}
	}
	return out
}

func sum(rows [][4]int64) [4]int64 {
	var s [4]int64
	for _, r := range rows {
		for i, v := range r {
			s[i] += v
		}
	}
	return s
}

// realCompiler returns coNCePTuaL's compiler under PARLEY_NCPTL, its
// install prefix, or skips the test.
func realCompiler(t *testing.T) string {
	t.Helper()
	prefix := os.Getenv("PARLEY_NCPTL")
	if prefix == "" {
		t.Skip("PARLEY_NCPTL is not set: set it to the install prefix of coNCePTuaL 1.5.1b (see docs/backend.md) to compile the exports with the real compiler")
	}
	exe := filepath.Join(prefix, "bin", "ncptl")
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("PARLEY_NCPTL=%s: %v", prefix, err)
	}
	return exe
}

// compileReal writes src to dir/name.ncptl and compiles it with
// coNCePTuaL's c_mpi backend: to an executable (returned) if build is
// set, else to C only. A refusal fails the test with the compiler's words.
func compileReal(t *testing.T, compiler, dir, name string, src []byte, build bool) string {
	t.Helper()
	file := filepath.Join(dir, name+".ncptl")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	// The program file comes before any backend option (see
	// docs/backend.md).
	args := []string{"--quiet", "--backend=c_mpi", "--output=" + out, file}
	if !build {
		out += ".c"
		args = []string{"--quiet", "--backend=c_mpi", "--no-compile", "--output=" + out, file}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, compiler, args...)
	cmd.Dir = dir
	lib := filepath.Join(filepath.Dir(filepath.Dir(compiler)), "lib")
	cmd.Env = append(os.Environ(), "MPILDFLAGS=-Wl,-rpath,"+lib)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("coNCePTuaL refuses the export: %v\n%s\n--- export:\n%s", err, msg, src)
	}
	return out
}
