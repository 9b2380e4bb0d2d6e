package interp_test

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/netmodel"
)

// TestNegativeQuantities: negative sizes and counts were accepted (a
// message of -8 bytes cost nothing) and negative durations became 0. They
// are run-time errors at their position, in point-to-point statements and
// collectives alike.
func TestNegativeQuantities(t *testing.T) {
	tests := []struct {
		src, want string
		at        string // where the error is: the first occurrence in src
	}{
		{"TASK 0 SENDS A (num_tasks - 10) BYTE MESSAGE TO TASK 1", "a size cannot be negative (-8)", "num_tasks"},
		{"TASK 0 ASYNCHRONOUSLY SENDS A (num_tasks - 10) BYTE MESSAGE TO TASK 1 THEN ALL TASKS AWAIT COMPLETION", "a size cannot be negative (-8)", "num_tasks"},
		{"TASK 1 RECEIVES A (num_tasks - 10) BYTE MESSAGE FROM TASK 0", "a size cannot be negative (-8)", "num_tasks"},
		{"TASK 0 SENDS A 9223372036854775807 KILOBYTE MESSAGE TO TASK 1", "does not fit in 64 bits", "9223372036854775807"},
		{"TASK 0 SENDS (num_tasks - 5) 8 BYTE MESSAGES TO TASK 1", "a count cannot be negative (-3)", "num_tasks"},
		{"TASK 0 MULTICASTS A (num_tasks - 10) BYTE MESSAGE TO ALL OTHER TASKS", "a size cannot be negative (-8)", "num_tasks"},
		{"TASK 0 MULTICASTS (num_tasks - 5) 8 BYTE MESSAGES TO ALL OTHER TASKS", "a count cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS REDUCE (num_tasks - 5) INTEGERS TO TASK 0", "a count cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS COMPUTE FOR (num_tasks - 5) MICROSECONDS", "a duration cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS SLEEP FOR (num_tasks - 5) SECONDS", "a duration cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS COMPUTE (num_tasks - 5) FLOPS", "a count cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS COMPUTE 1 FLOPS AND (num_tasks - 5) BYTES OF MEMORY TRAFFIC", "a size cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS TOUCH A (num_tasks - 5) BYTE MEMORY REGION", "a size cannot be negative (-3)", "num_tasks"},
		{"ALL TASKS TOUCH A 64 BYTE MEMORY REGION (num_tasks - 5) TIMES", "a count cannot be negative (-3)", "num_tasks"},
	}
	for _, tt := range tests {
		p := problem(t, tt.src, 2, "runtime")
		col := strings.Index(tt.src, tt.at) + 1
		if !strings.Contains(p.Msg, tt.want) || p.Span.Start.Line != 1 || p.Span.Start.Col != col {
			t.Errorf("%s:\ngot %v: %s\nwant 1:%d: ...%s", tt.src, p.Span.Start, p.Msg, col, tt.want)
		}
	}
	// Zero is no message, no time: not an error.
	runOK(t, "TASK 0 SENDS 0 8 BYTE MESSAGES TO TASK 1 THEN TASK 0 SENDS A 0 BYTE MESSAGE TO TASK 1 THEN ALL TASKS SLEEP FOR 0 SECONDS", 2, platform(t, ""))
}

// TestTimeOverflow: simulated time (int64 picoseconds) wrapped around
// silently, giving small or negative times for huge messages, computations
// or sleeps, or a huge tasks_per_node. Runs that would pass
// netmodel.MaxTime stop with a run-time problem at the statement.
func TestTimeOverflow(t *testing.T) {
	tests := []struct {
		src  string
		tpn  string // machine.tasks_per_node, if not 1
		line int
	}{
		{src: "TASK 0 SENDS A 4611686018427387904 BYTE MESSAGE TO TASK 1", line: 1},
		{src: "TASK 0 SENDS A 1 BYTE MESSAGE TO TASK 1 THEN\nTASK 0 MULTICASTS A 4611686018427387904 BYTE MESSAGE TO ALL OTHER TASKS", line: 2},
		{src: "ALL TASKS COMPUTE FOR 3000000 SECONDS", line: 1},
		{src: "ALL TASKS SLEEP FOR 9223372036854775807 DAYS", line: 1},
		{src: "ALL TASKS COMPUTE 4611686018427387904 FLOPS", line: 1},
		{src: "ALL TASKS COMPUTE 1 FLOPS AND 9223372036854775807 BYTES OF MEMORY TRAFFIC", line: 1},
		{src: "ALL TASKS TOUCH A 1 GIGABYTE MEMORY REGION 9223372036854775807 TIMES", line: 1},
		{src: "ALL TASKS COMPUTE 1000 FLOPS", tpn: "9223372036854775807", line: 1},
		// Each sleep fits; together they pass the limit.
		{src: "TASK 0 OUTPUTS 1 THEN\nFOR 200 REPETITIONS ALL TASKS SLEEP FOR 1 DAY", line: 2},
		{src: "FOR 2 REPETITIONS ALL TASKS SLEEP FOR 20 DAYS THEN\nTASK 0 SENDS A 1 BYTE MESSAGE TO TASK 1", line: 1},
	}
	for _, tt := range tests {
		plat := platform(t, "")
		if tt.tpn != "" {
			var err error
			plat, err = netmodel.Parse([]byte(strings.Replace(testPlatform, "tasks_per_node = 1", "tasks_per_node = "+tt.tpn, 1)), "test.toml")
			if err != nil {
				t.Fatal(err)
			}
		}
		res, _ := run(t, tt.src, 2, plat)
		if len(res.Problems) == 0 || res.Problems[0].Kind != "runtime" || !strings.Contains(res.Problems[0].Msg, "simulated time overflows") ||
			res.Problems[0].Span.Start.Line != tt.line {
			t.Errorf("%s: problems %v, want a time overflow on line %d", tt.src, res.Problems, tt.line)
		}
		for _, task := range res.Tasks {
			if task.Finish < 0 {
				t.Errorf("%s: task finishes at %v", tt.src, task.Finish)
			}
		}
	}
	// Just inside the limit is fine, and exact.
	res, _ := runOK(t, "ALL TASKS SLEEP FOR 26 DAYS", 2, platform(t, ""))
	if got := res.Tasks[0].Finish; got != 26*86400e12 {
		t.Errorf("26 days of sleep finish at %v", got)
	}
}
