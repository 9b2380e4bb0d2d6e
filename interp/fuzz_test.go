package interp_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/parser"
)

// FuzzRun: any program that checks runs to an end without panicking,
// within the event limit, on any small number of tasks, and its timeline
// is JSON and its logs read back.
func FuzzRun(f *testing.F) {
	names, _ := fs.Glob(examples.FS, "*.parley")
	for _, n := range names {
		src, _ := fs.ReadFile(examples.FS, n)
		f.Add(string(src), uint8(4))
	}
	for _, src := range []string{
		"ALL TASKS t SEND A 1 KILOBYTE MESSAGE TO TASK (t + 1) MOD num_tasks",
		"TASK 0 ASYNCHRONOUSLY RECEIVES A 1 MEGABYTE MESSAGE FROM TASK 1 THEN TASK 1 SENDS A 1 MEGABYTE MESSAGE TO UNSUSPECTING TASK 0",
		"FOR 10 MICROSECONDS PLUS 1 MICROSECOND WARMUP AND A SYNCHRONIZATION ALL TASKS REDUCE 3 WORDS TO TASK 1",
		"TASKS t SUCH THAT t > 0 ARE ASSIGNED TO PROCESSOR num_tasks - t THEN ALL TASKS t SEND A 8 BYTE MESSAGE TO TASK t + 1",
		"LET r BE A RANDOM TASK OTHER THAN 0 WHILE TASK r MULTICASTS 3 1 KILOBYTE MESSAGES TO ALL OTHER TASKS",
		"ALL TASKS STORE THEIR COUNTERS THEN ALL TASKS RESTORE THEIR COUNTERS THEN ALL TASKS RESTORE THEIR COUNTERS",
		`ALL TASKS LOG 1 AS "a\nb\"c,d\\e\tf" AND 2 AS "\r" THEN ALL TASKS SYNCHRONIZE THEN TASK 0 RECEIVES A 8 BYTE MESSAGE FROM TASK 1`,
		// Issue 18: built-ins that hung or overflowed the stack, folded and
		// at run time, quantities that were negative or overflowed time.
		"TASK 0 OUTPUTS ROOT(-9223372036854775807 - 1, 5) AND ROOT(9223372036854775807, 5) AND ROOT(num_tasks - 9223372036854775807 - 2, num_tasks)",
		"TASK 0 OUTPUTS RANDOM_POISSON(746) AND RANDOM_POISSON(4611686018427387904) AND RANDOM_POISSON(num_tasks * 1000000)",
		"TASK 0 OUTPUTS KNOMIAL_CHILDREN(0, 9223372036854775807, 9223372036854775807) AND KNOMIAL_CHILD(1, 5, 4294967296, 9223372036854775807) AND KNOMIAL_PARENT(9223372036854775806, 3, 9223372036854775807)",
		"TASK 0 OUTPUTS RANDOM_PARETO(1, 9223372036854775807)",
		"TASK 0 SENDS A (num_tasks - 10) BYTE MESSAGE TO TASK 1",
		"TASK 0 SENDS (num_tasks - 10) 8 BYTE MESSAGES TO TASK 1 THEN ALL TASKS COMPUTE FOR -5 MICROSECONDS",
		"TASK 0 SENDS A 9223372036854775807 KILOBYTE MESSAGE TO TASK 1",
		"TASK 0 SENDS A 4611686018427387904 BYTE MESSAGE TO TASK 1",
		"FOR 200 REPETITIONS ALL TASKS SLEEP FOR 1 DAY",
		"ALL TASKS COMPUTE 4611686018427387904 FLOPS AND 9223372036854775807 BYTES OF MEMORY TRAFFIC",
		// Issue 20: infinities and NaN in floating-point context, rounded
		// progressions (one that alternates forever), rebinding, a REDUCE
		// whose targets read the sources' variable.
		"LET z BE num_tasks - num_tasks WHILE TASK 0 LOGS 3/z AS \"a\" AND THE MINIMUM OF 0/z AS \"b\" AND ABS(3/z) AS \"c\"",
		"FOR EACH i IN {100, 150, 225, ..., 10000} TASK 0 OUTPUTS i THEN FOR EACH j IN {1, -1, 1, ..., -5} TASK 0 OUTPUTS j",
		"LET n BE 3 WHILE LET n BE n * 2 IF n > 2 OTHERWISE n WHILE FOR n REPETITIONS TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1",
		"TASKS third SUCH THAT 3 DIVIDES third REDUCE A DOUBLEWORD TO TASKS third / 2",
	} {
		f.Add(src, uint8(3))
	}
	f.Fuzz(func(t *testing.T, src string, tasks uint8) {
		prog, diags := parser.Parse("fuzz.parley", []byte(src))
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
		n := int64(tasks%8) + 1
		sim, err := interp.New(p, interp.Options{NumTasks: n, Platform: platform(t, ""), MaxEvents: 20000, Logs: true, Timeline: true})
		if err != nil {
			return
		}
		res := sim.Run()
		if res.Events > 20000 {
			t.Fatalf("%d events past the limit", res.Events)
		}
		var tl bytes.Buffer
		if err := sim.WriteTimeline(&tl); err != nil || !json.Valid(tl.Bytes()) {
			t.Fatalf("the timeline is not JSON (%v):\n%s", err, tl.String())
		}
		dir := t.TempDir()
		if err := sim.WriteLogs(dir, "fuzz"); err != nil {
			t.Fatal(err)
		}
		if !p.UsesLogs() {
			if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
				t.Fatalf("a program that never logs wrote %v (%v)", entries, err)
			}
		} else if _, err := logfile.LoadSet(dir); err != nil {
			t.Fatalf("the logs do not read back: %v", err)
		}
	})
}
