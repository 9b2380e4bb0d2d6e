package interp_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/logfile"
)

// TestRandomStreamsAcrossEvents: tasks hold no frame of their own, so a
// task's random streams must carry on from one event to the next while
// other tasks evaluate in between: each task's draws are its own stream's
// in order, and every task's random tasks are the shared stream's.
func TestRandomStreamsAcrossEvents(t *testing.T) {
	const n, reps, seed = 5, 4, 3
	src := `
FOR 4 REPETITIONS {
  LET r BE A RANDOM TASK WHILE
    ALL TASKS t OUTPUTS "task " AND t AND " picks " AND r AND " and draws " AND RANDOM_UNIFORM(0, 1000) THEN
  ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN
  ALL TASKS AWAIT COMPLETION THEN
  TASK 0 COMPUTES FOR 1 MICROSECOND
}`
	var out bytes.Buffer
	res, err := interp.Run(build(t, "streams.parley", src), interp.Options{NumTasks: n, Platform: platform(t, ""), Seed: seed, Output: &out})
	if err != nil || !res.OK() {
		t.Fatal(err, res.Problems)
	}
	got := map[int64][]string{}
	for line := range strings.Lines(out.String()) {
		var task, pick int64
		var draw string
		if _, err := fmt.Sscanf(line, "task %d picks %d and draws %s", &task, &pick, &draw); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		got[task] = append(got[task], fmt.Sprintf("%d %s", pick, draw))
	}
	for task := range int64(n) {
		f := &ir.Frame{G: &ir.Globals{Seed: seed}, Task: task}
		var want []string
		for range reps {
			pick := f.SyncRand().Uint64() % n
			want = append(want, fmt.Sprintf("%d %s", pick, logfile.Number(1000*f.Rand().Float64())))
		}
		if fmt.Sprint(got[task]) != fmt.Sprint(want) {
			t.Errorf("task %d drew %q, want %q", task, got[task], want)
		}
	}
}

// TestAssignedTaskNumbers: after a reassignment, the task numbers in
// expressions are the new mapping's at once, for the task that made it as
// for the others: task t computes for t microseconds on processor 4 - t.
func TestAssignedTaskNumbers(t *testing.T) {
	src := `
TASKS t SUCH THAT t > 0 ARE ASSIGNED TO PROCESSOR num_tasks - t THEN
ALL TASKS t COMPUTE FOR t MICROSECONDS THEN
ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN
ALL TASKS AWAIT COMPLETION THEN
ALL TASKS t COMPUTE FOR t MICROSECONDS`
	res, err := interp.Run(build(t, "assign.parley", src), interp.Options{NumTasks: 4, Platform: platform(t, "")})
	if err != nil || !res.OK() {
		t.Fatal(err, res.Problems)
	}
	for proc, task := range []interp.Time{0, 3, 2, 1} {
		if got, want := res.Tasks[proc].Compute, 2*task*interp.Microsecond; got != want {
			t.Errorf("processor %d computed for %v, want %v (task %d's)", proc, got, want, task)
		}
	}
}
