package codegen_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/codegen"
	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// TestUnsupported: constructs the backend cannot translate are reported
// with their position, not miscompiled.
func TestUnsupported(t *testing.T) {
	p := mpitest.Build(t, "file.parley", []byte(`TASK 0 OUTPUTS FILE_DATA("x.csv").`))
	_, err := codegen.C(p, codegen.Options{})
	var ce *codegen.Error
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "file.parley:1:16: FILE_DATA") {
		t.Fatalf("got %v", err)
	}
}

// TestReadableOutput pins what makes the C read like hand-written code:
// loops stay loops, source lines head their statements, parameters are
// named globals, and the 26-neighbour example stays short.
func TestReadableOutput(t *testing.T) {
	src, _ := fs.ReadFile(examples.FS, "lulesh.parley")
	c, err := codegen.C(mpitest.Build(t, "lulesh.parley", src), codegen.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	text := string(c)
	for _, want := range []string{
		"static int64_t steps = 10; /* --steps, -n: Time steps */",
		"for (int64_t rep = 0; rep < steps; rep++) {",
		"for (int64_t dz = -1; dz <= 1; dz++) {",
		"/* 23: ALL TASKS AWAIT COMPLETION */\n    pr_await();",
		"pr_isend(dst, 1, pr_size(pr_ipow(s, 3 - pr_abs(dx, \"22:56\") - pr_abs(dy, \"22:66\") - pr_abs(dz, \"22:76\"), \"22:46\") * fields * 8, 1, \"22:46\"), 0, 0, \"22:11\");",
		"PR_OFFSETS(-dx, -dy, -dz)", // receives find their one sender directly
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lulesh.c lacks %q", want)
		}
	}
	if n := strings.Count(text, "\n"); n >= 400 {
		t.Errorf("lulesh.c has %d lines; hand-written code would have far fewer", n)
	}
	if strings.Count(text, "pr_isend(") != 1 {
		t.Errorf("the 26 sends must stay one call in a loop:\n%s", text)
	}
}

// TestCompoundOperands: an operand keeps the parentheses its C operator
// needs. A parity test of t | 2 is ((t | 2) & 1), not (t | 2 & 1), which C
// reads as t | (2 & 1).
func TestCompoundOperands(t *testing.T) {
	p := mpitest.Build(t, "parity.parley", []byte(`TASKS t SUCH THAT t | 2 IS EVEN OUTPUT t.
TASKS t SUCH THAT (t IF t > 1 OTHERWISE 3) IS ODD OUTPUT t.`))
	c, err := codegen.C(p, codegen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"((t | 2) & 1) == 0", "((t > 1 ? t : 3) & 1) != 0"} {
		if !strings.Contains(string(c), want) {
			t.Errorf("the C lacks %q", want)
		}
	}
}

// TestCollectiveSetsMadeOnce: a collective over every task takes the
// runtime's all-tasks flags, which MPI_COMM_WORLD answers at once; one
// over a set that cannot change fills its flags and finds its
// communicator once (a pr_site); only a set that reads a variable is
// made at every execution. Each making is a pass over the tasks (6 us a
// call at 4096 tasks).
func TestCollectiveSetsMadeOnce(t *testing.T) {
	p := mpitest.Build(t, "coll.parley", []byte(`ALL TASKS REDUCE 1 DOUBLEWORD THEN
TASK 0 MULTICASTS A 8 BYTE MESSAGE TO ALL OTHER TASKS THEN
FOR 10 REPETITIONS {
  TASKS t SUCH THAT t < 2 REDUCE 1 DOUBLEWORD THEN
  FOR EACH k IN {1, 2} {
    TASKS t SUCH THAT t < k + 1 SYNCHRONIZE
  }
}.`))
	c, err := codegen.C(p, codegen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := string(c)
	for _, want := range []struct {
		text string
		n    int
	}{
		{"= pr_all_tasks();", 2},
		{"pr_allreduce(pr_comm(group), 1, 8, 1,", 1},
		{"static pr_site pr_site0;", 1},
		{"pr_allreduce(pr_site_comm(&pr_site0, group), 1, 8, 1,", 1},
		{"if (t < 2) {", 1},
		{"= pr_members(0);", 1},
		{"pr_barrier(pr_comm(group));", 1},
		{"memset(", 0},
	} {
		if n := strings.Count(text, want.text); n != want.n {
			t.Errorf("%q %d times; want %d:\n%s", want.text, n, want.n, text)
		}
	}
}

// FuzzC: any program that checks either compiles to C or is refused with
// a positioned error; the generator never panics.
func FuzzC(f *testing.F) {
	names, _ := fs.Glob(examples.FS, "*.parley")
	for _, n := range names {
		src, _ := fs.ReadFile(examples.FS, n)
		f.Add(src)
	}
	more, _ := filepath.Glob("testdata/diff/*.parley")
	for _, path := range more {
		src, _ := os.ReadFile(path)
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, diags := parser.Parse("fuzz.parley", src)
		if prog == nil || diags.HasErrors() {
			return
		}
		if lang.Check(prog).HasErrors() {
			return
		}
		p, err := ir.Build(prog)
		if err != nil {
			return
		}
		c, err := codegen.C(p, codegen.Options{})
		var ce *codegen.Error
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("unpositioned error %v", err)
		}
		if err == nil && !strings.Contains(string(c), "pr_finish();") {
			t.Fatalf("incomplete program:\n%s", c)
		}
	})
}

// TestCompiledOptions: the benchmark's command line: --help lists the
// parameters with their defaults, values take the language's suffixes,
// TestRebindingNames: a variable declared where another of its name is
// visible (one it rebinds, a parameter) gets a suffix, so that its
// initializer reads the old value; siblings keep their own name.
func TestRebindingNames(t *testing.T) {
	src := `n IS "n" AND COMES FROM "--n" OR "-n" WITH DEFAULT 2.
LET n BE n * 2 WHILE LET n BE n + 1 AND m BE n * 10 WHILE TASK 0 OUTPUTS n AND m.
ALL TASKS t SEND A 1 BYTE MESSAGE TO TASK t + 1.
ALL TASKS t SEND A 2 BYTE MESSAGE TO TASK t - 1.`
	c, err := codegen.C(mpitest.Build(t, "rebind.parley", []byte(src)), codegen.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	text := string(c)
	for _, want := range []string{
		"int64_t n_2 = n * 2;",
		"int64_t n_3 = n_2 + 1;",
		"int64_t m = n_3 * 10;",
		`pr_output("%.10g%.10g", (double)n_3, (double)m);`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the C lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "t_2") {
		t.Errorf("a variable of a sibling statement was renamed:\n%s", text)
	}
}

// and a bad option is refused with exit status 2.
func TestCompiledOptions(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	dir := t.TempDir()
	src, _ := fs.ReadFile(examples.FS, "ring.parley")
	exe := mpitest.Compile(t, mpicc, dir, mpitest.Build(t, "ring.parley", src))
	out, err := mpitest.Run(t, mpirun, exe, 2, []string{"--help"}, time.Minute)
	if err != nil || !strings.Contains(string(out.Stdout), "-s, --msgsize=<number>\tMessage size (bytes) [default: 64K]") {
		t.Errorf("--help: %v\n%s", err, out)
	}
	out, err = mpitest.Run(t, mpirun, exe, 2, []string{"--msgsize", "lots"}, time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(string(out.Stderr), "option --msgsize needs an integer value") {
		t.Errorf("bad value: %v\n%s", err, out)
	}
	logs := filepath.Join(dir, "ring-%d.log")
	if out, err := mpitest.Run(t, mpirun, exe, 2, []string{"--reps=3", "-s", "1K", "--logfile", logs}, time.Minute); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	log0, _ := os.ReadFile(filepath.Join(dir, "ring-0.log"))
	for _, want := range []string{"# Message size (bytes): 1024\n", "# Number of shifts: 3\n", "# Bytes sent: 5120\n", "# Messages sent: 5\n"} {
		if !strings.Contains(string(log0), want) {
			t.Errorf("log lacks %q:\n%s", want, log0)
		}
	}
}

// TestCompiledTimedLoop: a timed loop runs as long as asked on the real
// machine, every task running the same number of iterations.
func TestCompiledTimedLoop(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	dir := t.TempDir()
	p := mpitest.Build(t, "timed.parley", []byte(`FOR 50 MILLISECONDS PLUS 5 WARMUP MILLISECONDS AND A SYNCHRONIZATION {
  ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN
  ALL TASKS AWAIT COMPLETION THEN
  ALL TASKS COMPUTE FOR 100 MICROSECONDS
} THEN
ALL TASKS LOG msgs_sent AS "Sent" AND elapsed_usecs AS "Time".
`))
	exe := mpitest.Compile(t, mpicc, dir, p)
	start := time.Now()
	if out, err := mpitest.Run(t, mpirun, exe, 3, []string{"--logfile", filepath.Join(dir, "timed-%d.log")}, time.Minute); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("a 50 ms loop ended after %v", d)
	}
	var sent string
	for rank := range 3 {
		lf := mpitest.ReadLog(t, filepath.Join(dir, "timed-"+string(rune('0'+rank))+".log"))
		rows := lf.Tables[0].Columns[0].Rows
		if len(rows) != 1 || rows[0] == "0" {
			t.Fatalf("task %d logged %v messages", rank, rows)
		}
		if rank > 0 && rows[0] != sent {
			t.Errorf("task %d sent %s messages, task 0 %s: the tasks must agree on the iterations", rank, rows[0], sent)
		}
		sent = rows[0]
	}
}

// TestCompiledNegativeQuantities: negative sizes, counts and durations
// fail in compiled programs as in the interpreter, with the same message
// at the same position (they were sent as empty messages, or slept for 0).
func TestCompiledNegativeQuantities(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	dir := t.TempDir()
	src := []byte(`amount IS "A quantity" AND COMES FROM "--amount" OR "-a" WITH DEFAULT 1.
which IS "Which statement" AND COMES FROM "--which" OR "-w" WITH DEFAULT 0.
IF which = 1 THEN TASK 0 SENDS A amount BYTE MESSAGE TO TASK 1.
IF which = 2 THEN TASK 0 SENDS amount 8 BYTE MESSAGES TO TASK 1.
IF which = 3 THEN ALL TASKS COMPUTE FOR amount MICROSECONDS.
IF which = 4 THEN ALL TASKS SLEEP FOR amount SECONDS.
IF which = 5 THEN ALL TASKS REDUCE amount INTEGERS TO TASK 0.
IF which = 6 THEN TASK 0 MULTICASTS A amount KILOBYTE MESSAGE TO ALL OTHER TASKS.
IF which = 7 THEN TASK 0 SENDS A amount KILOBYTE MESSAGE TO TASK 1.
`)
	p := mpitest.Build(t, "neg.parley", src)
	exe := mpitest.Compile(t, mpicc, dir, p)
	plat, err := netmodel.Resolve(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for which, n := range map[int]string{1: "-8", 2: "-3", 3: "-5", 4: "-1", 5: "-2", 6: "-4", 7: "9223372036854775807"} {
		args := []string{"--which", fmt.Sprint(which), "--amount", n}
		res, err := interp.Run(p, interp.Options{NumTasks: 2, Args: args, Platform: plat})
		if err != nil || len(res.Problems) == 0 || res.Problems[0].Kind != "runtime" {
			t.Errorf("%v: the interpreter gives %v, %v", args, res, err)
			continue
		}
		// "neg.parley:L:C: task K: message": the same but for the task.
		pr := res.Problems[0].Error()
		_, msg, _ := strings.Cut(pr, ": task ")
		_, msg, _ = strings.Cut(msg, ": ")
		at, _, _ := strings.Cut(pr, ": task ")
		out, err := mpitest.Run(t, mpirun, exe, 2, args, time.Minute)
		if err == nil || !strings.Contains(string(out.Stderr), at+": task ") || !strings.Contains(string(out.Stderr), msg) {
			t.Errorf("%v: the compiled program gives %v:\n%s\nthe interpreter %s", args, err, out, pr)
		}
	}
}

// TestCollectiveCountReadsTaskVariable: a collective's count that reads
// its tasks' variable, which has no value for the statement as a whole,
// is refused with its position rather than written as C that does not
// compile (coNCePTuaL's C does not compile either).
func TestCollectiveCountReadsTaskVariable(t *testing.T) {
	for _, src := range []string{
		"TASKS s SUCH THAT s < 2 REDUCE s DOUBLEWORDS TO TASK 0.",
		"ALL TASKS s EXCHANGE s 8 BYTE MESSAGES WITH ALL OTHER TASKS.",
	} {
		_, err := codegen.C(mpitest.Build(t, "count.parley", []byte(src)), codegen.Options{})
		var ce *codegen.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot read s here") || ce.Span.Start.Line != 1 {
			t.Errorf("%s: got %v", src, err)
		}
	}
}
