package interp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/logfile"
)

// problem runs src and returns its only problem of the given kind.
func problem(t *testing.T, src string, n int64, kind string) interp.Problem {
	t.Helper()
	res, _ := run(t, src, n, platform(t, ""))
	for _, p := range res.Problems {
		if p.Kind == kind {
			return p
		}
	}
	t.Fatalf("no %s problem; got %v", kind, res.Problems)
	return interp.Problem{}
}

func TestDeadlockCycle(t *testing.T) {
	p := problem(t, "ALL TASKS t SEND A 1 KILOBYTE MESSAGE TO TASK (t + 1) MOD num_tasks", 4, "deadlock")
	if !strings.Contains(p.Msg, "0 -> 3 -> 2 -> 1 -> 0") {
		t.Errorf("no cycle in %q", p.Msg)
	}
	if p.Span.Start.Line != 1 || p.Span.Start.Col != 1 {
		t.Errorf("deadlock reported at %v, want 1:1", p.Span.Start)
	}
	if !strings.Contains(p.Msg, "task 2 waits to receive from task 1 at test.parley:1:1") {
		t.Errorf("no per-task wait in %q", p.Msg)
	}
}

func TestDeadlockLongCycleIsElided(t *testing.T) {
	p := problem(t, "ALL TASKS t SEND A 1 KILOBYTE MESSAGE TO TASK (t + 1) MOD num_tasks", 1000, "deadlock")
	if !strings.Contains(p.Msg, "0 -> 999 -> 998") || !strings.Contains(p.Msg, "... -> ") || !strings.Contains(p.Msg, "and 994 more") {
		t.Errorf("long cycle not summarised: %q", p.Msg)
	}
	if len(p.Msg) > 2000 {
		t.Errorf("deadlock report of %d bytes", len(p.Msg))
	}
}

func TestDeadlockOnFinishedTask(t *testing.T) {
	p := problem(t, "TASK 0 RECEIVES A 4 BYTE MESSAGE FROM TASK 1", 2, "deadlock")
	if !strings.Contains(p.Msg, "task 0 waits to receive from task 1, which has finished") {
		t.Errorf("got %q", p.Msg)
	}
	// A rendezvous send waits for its receiver.
	p = problem(t, "TASK 0 SENDS A 1 MEGABYTE MESSAGE TO UNSUSPECTING TASK 1", 2, "deadlock")
	if !strings.Contains(p.Msg, "task 0 waits for task 1 to receive its message, which has finished") {
		t.Errorf("got %q", p.Msg)
	}
}

func TestUnreceivedAndUnawaited(t *testing.T) {
	p := problem(t, "TASK 0 SENDS A 1 KILOBYTE MESSAGE TO UNSUSPECTING TASK 1", 2, "unreceived")
	if p.Task != 1 || !strings.Contains(p.Msg, "1 from task 0") || p.Span.Start.Line != 1 {
		t.Errorf("got %+v", p)
	}
	src := "TASK 0 SENDS A 1 KILOBYTE MESSAGE TO TASK 1 THEN\nTASK 0 ASYNCHRONOUSLY SENDS A 1 KILOBYTE MESSAGE TO TASK 1"
	res, _ := run(t, src, 2, platform(t, ""))
	var tasks []int64
	for _, p := range res.Problems {
		if p.Kind != "unawaited" || p.Span.Start.Line != 2 {
			t.Errorf("unexpected %+v", p)
		}
		tasks = append(tasks, p.Task)
	}
	if !cmp.Equal(tasks, []int64{0, 1}) {
		t.Errorf("unawaited on tasks %v, want both", tasks)
	}
	runOK(t, src+" THEN\nALL TASKS AWAIT COMPLETION", 2, platform(t, ""))
}

func TestAssertionAndRuntimeError(t *testing.T) {
	p := problem(t, "ALL TASKS SLEEP FOR 1 SECOND THEN\nASSERT THAT \"need 3 tasks\" WITH num_tasks = 3", 2, "assertion")
	if p.Span.Start.Line != 2 || !strings.Contains(p.Msg, "need 3 tasks") {
		t.Errorf("got %+v", p)
	}
	// Integer context: a division by zero is an error (OUTPUTS, in
	// floating point, would print inf).
	p = problem(t, "TASK 0 SLEEPS FOR 1 / (num_tasks - 2) SECONDS", 2, "runtime")
	if p.Span.Start.Line != 1 || !strings.Contains(p.Msg, "divi") {
		t.Errorf("got %+v", p)
	}
}

// TestRuntimeErrorMidRun: a runtime error in a task's statements after
// other tasks' events (the event loop catches it once for the whole loop)
// is the task's, and stops the run there: tasks 0 and 1, whose events
// come first, write their OUTPUTS, task 3 never does.
func TestRuntimeErrorMidRun(t *testing.T) {
	res, out := run(t, `ALL TASKS COMPUTE FOR 1 MICROSECOND THEN
TASKS x SUCH THAT x > 1 SLEEP FOR 1 / (num_tasks - 2 * x) SECONDS THEN
ALL TASKS OUTPUT "after"`, 4, platform(t, ""))
	if len(res.Problems) != 1 {
		t.Fatalf("problems %v, want one", res.Problems)
	}
	p := res.Problems[0]
	if p.Kind != "runtime" || p.Task != 2 || !strings.HasPrefix(p.Msg, "task 2: ") || p.Span.Start.Line != 2 {
		t.Errorf("got %+v, want task 2's runtime error on line 2", p)
	}
	if out != "after\nafter\n" {
		t.Errorf("output %q, want tasks 0 and 1's", out)
	}
}

func TestMaxEvents(t *testing.T) {
	res, err := interp.Run(build(t, "loop.parley", "FOR 1000000000 REPETITIONS ALL TASKS SYNCHRONIZE"),
		interp.Options{NumTasks: 4, Platform: platform(t, ""), MaxEvents: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Kind != "limit" || res.Events != 5000 {
		t.Errorf("events %d, problems %v", res.Events, res.Problems)
	}
}

// A timed loop runs a trial iteration (undone in the counters), agrees on
// the slowest trial time T, then runs max(1, duration/T) iterations.
func TestTimedLoop(t *testing.T) {
	plat := platform(t, "")
	res, out := runOK(t, `
FOR 100 MICROSECONDS TASK 0 SENDS A 0 BYTE MESSAGE TO TASK 1 THEN
TASK 1 OUTPUTS msgs_received`, 2, plat)
	// T is task 1's trial: one one-way time, 7us; 100/7 = 14 iterations.
	if got := res.Tasks[0].MsgsSent; got != 15 {
		t.Errorf("task 0 sent %d messages, want 1 trial + 14", got)
	}
	if out != "14\n" {
		t.Errorf("msgs_received after the loop = %q, want 14", out)
	}
}

func TestWarmupAndStoredCounters(t *testing.T) {
	res, out := runOK(t, `
FOR 3 REPETITIONS PLUS 2 WARMUP REPETITIONS AND A SYNCHRONIZATION
  TASK 0 SENDS A 1 KILOBYTE MESSAGE TO TASK 1 THEN
TASK 0 OUTPUTS "after the loop: " AND msgs_sent AND " " AND bytes_sent THEN
TASK 0 STORES ITS COUNTERS THEN
TASK 0 SENDS A 10 BYTE MESSAGE TO TASK 1 THEN
TASK 0 OUTPUTS "stored then sent: " AND msgs_sent THEN
TASK 0 RESTORES ITS COUNTERS THEN
TASK 0 OUTPUTS "restored: " AND msgs_sent AND " " AND total_bytes`, 2, platform(t, ""))
	want := "after the loop: 3 3072\nstored then sent: 4\nrestored: 3 3072\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if res.Tasks[0].MsgsSent != 6 {
		t.Errorf("task 0 sent %d messages in all, want 2 warmups + 3 + 1", res.Tasks[0].MsgsSent)
	}
}

func TestAsyncReceiveCountedAtAwait(t *testing.T) {
	_, out := runOK(t, `
TASK 1 ASYNCHRONOUSLY RECEIVES A 64 BYTE MESSAGE FROM TASK 0 THEN
TASK 0 SENDS A 64 BYTE MESSAGE TO UNSUSPECTING TASK 1 THEN
TASK 1 SLEEPS FOR 1 SECOND THEN
TASK 1 OUTPUTS msgs_received AND " " AND bytes_received THEN
TASK 1 AWAITS COMPLETION THEN
TASK 1 OUTPUTS msgs_received AND " " AND bytes_received`, 2, platform(t, ""))
	if out != "0 0\n1 64\n" {
		t.Errorf("output %q", out)
	}
}

// TestImpliedReceiveSizes: an implied receive takes each sender's own
// message where the size reads the sender's variable, and one message for
// all where it reads none (evaluated once then).
func TestImpliedReceiveSizes(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []int64 // bytes each task received
	}{
		{"TASKS s SUCH THAT s > 0 SEND A s * 8 BYTE MESSAGE TO TASK 0", []int64{8 * (1 + 2 + 3), 0, 0, 0}},
		{"ALL TASKS s ASYNCHRONOUSLY SEND A (s + 1) * 100 BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION", []int64{400, 100, 200, 300}},
		{"ALL TASKS s ASYNCHRONOUSLY SEND A num_tasks * 10 BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION", []int64{40, 40, 40, 40}},
		{"TASKS s SUCH THAT s > 0 SEND A 16 BYTE MESSAGE TO TASK 0", []int64{48, 0, 0, 0}},
		{"ALL TASKS s ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO ALL OTHER TASKS THEN ALL TASKS AWAIT COMPLETION", []int64{24, 24, 24, 24}},
	} {
		res, _ := runOK(t, c.src, 4, platform(t, ""))
		for i, ts := range res.Tasks {
			if ts.BytesReceived != c.want[i] {
				t.Errorf("%s: task %d received %d bytes, want %d", c.src, i, ts.BytesReceived, c.want[i])
			}
		}
	}
}

// TestSendTargetsFromPattern: a send to a single task whose implied
// receives cached the statement's pattern takes its target from that
// pattern instead of evaluating it again; each task still sends to its own
// target, none where the set names no task, in every iteration, and a
// pattern that reads a variable is found again when the variable changes.
func TestSendTargetsFromPattern(t *testing.T) {
	for _, c := range []struct {
		src            string
		sent, received []int64
	}{
		{`FOR 2 REPETITIONS
  ALL TASKS s SEND A (s + 1) * 100 BYTE MESSAGE TO TASK MESH_NEIGHBOR((num_tasks), s, (+1))`,
			[]int64{200, 400, 600, 0}, []int64{0, 200, 400, 600}},
		{`FOR EACH i IN {1, 2, 1} {
  ALL TASKS s ASYNCHRONOUSLY SEND A (s + 1) * 100 BYTE MESSAGE TO TASK (s + i) MOD num_tasks THEN
  ALL TASKS AWAIT COMPLETION
}`,
			[]int64{300, 600, 900, 1200}, []int64{1100, 600, 500, 800}},
	} {
		res, _ := runOK(t, c.src, 4, platform(t, ""))
		for i, ts := range res.Tasks {
			if ts.BytesSent != c.sent[i] || ts.BytesReceived != c.received[i] {
				t.Errorf("%s: task %d sent %d and received %d bytes, want %d and %d", c.src, i, ts.BytesSent, ts.BytesReceived, c.sent[i], c.received[i])
			}
		}
	}
}

// TestSendReusesReceiveSize: a send takes its count and size from its
// implied receives where they evaluated them once for every sender, and
// evaluates its own where the size reads the statement's variables, in
// every iteration; its tag stays its own where WHO RECEIVES changes the
// receive's (the messages then never match).
func TestSendReusesReceiveSize(t *testing.T) {
	for _, c := range []struct {
		src  string
		sent []int64
	}{
		{"ALL TASKS s ASYNCHRONOUSLY SEND A num_tasks * 10 BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION",
			[]int64{40, 40, 40, 40}},
		{"ALL TASKS s ASYNCHRONOUSLY SEND A (s + 1) * 100 BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION",
			[]int64{100, 200, 300, 400}},
		{"ALL TASKS s ASYNCHRONOUSLY SEND 2 (s + 1) * 100 BYTE MESSAGES TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION",
			[]int64{200, 400, 600, 800}},
		{`FOR EACH i IN {1, 3} {
  ALL TASKS s ASYNCHRONOUSLY SEND i 8 * i BYTE MESSAGES TO TASK MESH_NEIGHBOR((num_tasks*), s, (+1)) THEN
  ALL TASKS AWAIT COMPLETION
}`, []int64{8 + 3*24, 8 + 3*24, 8 + 3*24, 8 + 3*24}},
	} {
		res, _ := runOK(t, c.src, 4, platform(t, ""))
		for i, ts := range res.Tasks {
			if ts.BytesSent != c.sent[i] || ts.BytesReceived != c.sent[(i+3)%4] {
				t.Errorf("%s: task %d sent %d and received %d bytes, want %d and %d", c.src, i, ts.BytesSent, ts.BytesReceived, c.sent[i], c.sent[(i+3)%4])
			}
		}
	}
	p := problem(t, "ALL TASKS s ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE USING TAG 1 TO TASK (s + 1) MOD num_tasks WHO RECEIVES IT ASYNCHRONOUSLY USING TAG 2 THEN ALL TASKS AWAIT COMPLETION", 4, "deadlock")
	if !strings.Contains(p.Msg, "0 -> 3 -> 2 -> 1 -> 0") {
		t.Errorf("deadlock %q, want the cycle 0 -> 3 -> 2 -> 1 -> 0", p.Msg)
	}
}

// TestMessageMemo: a statement's message is evaluated again wherever the
// last evaluation may not tell its value: the variables it reads hold
// other values (a loop's, each task's own), or it reads a counter.
func TestMessageMemo(t *testing.T) {
	for _, c := range []struct {
		src  string
		sent func(task int) int64
	}{
		// Step after step: the counter grows between the evaluations.
		{"FOR 3 REPETITIONS { ALL TASKS s ASYNCHRONOUSLY SEND A bytes_sent + 8 BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION }",
			func(int) int64 { return 8 + 16 + 32 }},
		// Task after task: each reads its own variable.
		{"FOR EACH k IN {1, 2} { ALL TASKS s ASYNCHRONOUSLY SEND A (s + 1) * k BYTE MESSAGE TO TASK (s + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION }",
			func(i int) int64 { return int64(i+1) * 3 }},
	} {
		res, _ := runOK(t, c.src, 4, platform(t, ""))
		for i, ts := range res.Tasks {
			if want := c.sent(i); ts.BytesSent != want {
				t.Errorf("%s: task %d sent %d bytes, want %d", c.src, i, ts.BytesSent, want)
			}
		}
	}
}

// TestMulticastGroupsPerSource: each source of a multicast broadcasts to
// the targets and itself, a group of its own, though the targets are the
// same for every source and the groups are cached per statement.
func TestMulticastGroupsPerSource(t *testing.T) {
	res, _ := runOK(t, "TASKS s SUCH THAT s < 2 MULTICAST A 1 KILOBYTE MESSAGE TO TASKS d SUCH THAT d > 5", 8, platform(t, ""))
	for i, ts := range res.Tasks {
		if took := ts.Finish > 0; took != (i < 2 || i > 5) {
			t.Errorf("task %d finished at %v", i, ts.Finish)
		}
	}
	if res.Tasks[6].Finish <= res.Tasks[1].Finish {
		t.Errorf("task 6 finished at %v, before its second broadcast's root (%v)", res.Tasks[6].Finish, res.Tasks[1].Finish)
	}
}

func TestMatchingBySourceAndTag(t *testing.T) {
	runOK(t, `
TASK 0 SENDS A 10 BYTE MESSAGE USING TAG 1 TO UNSUSPECTING TASK 1 THEN
TASK 0 SENDS A 20 BYTE MESSAGE USING TAG 2 TO UNSUSPECTING TASK 1 THEN
TASK 1 RECEIVES A 20 BYTE MESSAGE USING TAG 2 FROM TASK 0 THEN
TASK 1 RECEIVES A 10 BYTE MESSAGE USING TAG 1 FROM TASK 0`, 2, platform(t, ""))
	p := problem(t, `
TASK 0 SENDS A 10 BYTE MESSAGE USING TAG 1 TO UNSUSPECTING TASK 1 THEN
TASK 1 RECEIVES A 10 BYTE MESSAGE USING TAG 3 FROM TASK 0`, 2, "deadlock")
	if p.Span.Start.Line != 3 {
		t.Errorf("deadlock at %v, want line 3", p.Span.Start)
	}
}

// TestBusyReceiverEventsLinear: messages reaching a busy task wait in line
// for its CPU, each handled once it is free, so the events of a run grow
// with the number of messages, not its square. The rendezvous variant
// queues the clear-to-sends at a busy sender the same way.
func TestBusyReceiverEventsLinear(t *testing.T) {
	const n = 10000
	for _, size := range []string{"8", "1M"} {
		res, _ := runOK(t, `
TASK 1 SLEEPS FOR 1 SECOND THEN
TASK 0 ASYNCHRONOUSLY SENDS `+strconv.Itoa(n)+` `+size+` BYTE MESSAGES TO TASK 1 WHO RECEIVES THEM ASYNCHRONOUSLY THEN
ALL TASKS AWAIT COMPLETION`, 2, platform(t, ""))
		if res.Events > 10*n {
			t.Errorf("%s-byte messages: %d events for %d messages", size, res.Events, n)
		}
	}
}

// TestMemoryLimit: a run that would not fit in its memory limit is refused
// before it allocates its tasks, and one whose outstanding messages or
// receives grow past the limit stops there with a problem, instead of
// dying out of memory.
func TestMemoryLimit(t *testing.T) {
	p := build(t, "tasks.parley", "ALL TASKS SYNCHRONIZE.")
	_, err := interp.New(p, interp.Options{NumTasks: 100_000_000, Platform: platform(t, ""), MaxMemory: 1 << 30})
	if err == nil || !strings.Contains(err.Error(), "100000000 tasks need about 1") ||
		!strings.Contains(err.Error(), "over the memory limit of 1.07 GB") {
		t.Errorf("New(10^8 tasks) = %v", err)
	}
	// A limit above the machine's memory does not make a run fit in it.
	if phys, ok := memlimit.Physical(); ok && phys < 1<<40 {
		_, err = interp.New(p, interp.Options{NumTasks: interp.MaxTasks, Platform: platform(t, ""), MaxMemory: 1 << 62})
		if err == nil || !strings.Contains(err.Error(), "1073741823 tasks need about 1") ||
			!strings.Contains(err.Error(), "more than this machine's "+memlimit.Format(phys)) {
			t.Errorf("New(MaxTasks tasks, --max-memory 4 EiB) = %v", err)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"TASK 0 ASYNCHRONOUSLY SENDS 1000000 8 BYTE MESSAGES TO UNSUSPECTING TASK 1.",
			"; task 1 alone has "},
		{"TASK 1 ASYNCHRONOUSLY RECEIVES 1000000 8 BYTE MESSAGES FROM TASK 0.",
			"0 messages in flight or unreceived and "},
	} {
		res, err := interp.Run(build(t, "grow.parley", "\n"+c.src), interp.Options{NumTasks: 2, Platform: platform(t, ""), MaxMemory: 20 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) != 1 || res.Problems[0].Kind != "limit" || res.Problems[0].Span.Start.Line != 2 ||
			!strings.Contains(res.Problems[0].Msg, c.want) || !strings.Contains(res.Problems[0].Msg, "more would pass the memory limit of 21 MB") {
			t.Errorf("%s\nproblems %v", c.src, res.Problems)
		}
	}
	// A timeline that would outgrow the limit stops the run, which has no
	// prediction; the same run without a timeline is fine.
	long := build(t, "long.parley", "FOR 1000000 REPETITIONS TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1.")
	res, err := interp.Run(long, interp.Options{NumTasks: 2, Platform: platform(t, ""), MaxMemory: 20 << 20, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Kind != "limit" || !strings.Contains(res.Problems[0].Msg, "the timeline's ") ||
		!strings.Contains(res.Problems[0].Msg, "drop --timeline") || !strings.Contains(res.Headline(), "over the memory limit") {
		t.Errorf("timeline over the limit: %s %v", res.Headline(), res.Problems)
	}
	if res, err := interp.Run(long, interp.Options{NumTasks: 2, Platform: platform(t, ""), MaxMemory: 20 << 20}); err != nil || !res.OK() {
		t.Errorf("without a timeline: %v %v", err, res.Problems)
	}
	// So do logs that would.
	logs := build(t, "logs.parley", "\nFOR 10000000 REPETITIONS TASK 0 LOGS 1 AS \"x\".")
	res, err = interp.Run(logs, interp.Options{NumTasks: 2, Platform: platform(t, ""), MaxMemory: 20 << 20, Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Kind != "limit" || res.Problems[0].Span.Start.Line != 2 ||
		!strings.Contains(res.Problems[0].Msg, "the logs' data would hold") {
		t.Errorf("logs over the limit: %s %v", res.Headline(), res.Problems)
	}
}

func TestOutputsAndRandomSeed(t *testing.T) {
	src := `
LET r BE A RANDOM TASK WHILE
  ALL TASKS t OUTPUTS "task " AND t AND " picks " AND r AND " and draws " AND RANDOM_UNIFORM(0, 1000)`
	outs := map[uint64]string{}
	for _, seed := range []uint64{1, 1, 2} {
		var out bytes.Buffer
		res, err := interp.Run(build(t, "rand.parley", src), interp.Options{NumTasks: 4, Platform: platform(t, ""), Seed: seed, Output: &out})
		if err != nil || !res.OK() {
			t.Fatal(err, res.Problems)
		}
		if prev, ok := outs[seed]; ok && prev != out.String() {
			t.Errorf("seed %d gave different outputs:\n%s\n%s", seed, prev, out.String())
		}
		outs[seed] = out.String()
	}
	if outs[1] == outs[2] {
		t.Errorf("seeds 1 and 2 gave the same output:\n%s", outs[1])
	}
	// Every task agrees on the random task.
	picks := regexp.MustCompile(`picks (\d+)`).FindAllStringSubmatch(outs[1], -1)
	if len(picks) != 4 {
		t.Fatalf("output %q", outs[1])
	}
	for _, p := range picks {
		if p[1] != picks[0][1] {
			t.Errorf("tasks disagree on A RANDOM TASK: %q", outs[1])
		}
	}
}

// TestDeterministic: the same program, platform and seed give identical
// results, down to every task's statistics and the timeline.
func TestDeterministic(t *testing.T) {
	src := `
FOR 5 REPETITIONS {
  LET hot BE A RANDOM TASK WHILE
    TASKS t SUCH THAT t <> hot ASYNCHRONOUSLY SEND A 100 KILOBYTE MESSAGE TO TASK hot THEN
  ALL TASKS AWAIT COMPLETION THEN
  ALL TASKS COMPUTE FOR RANDOM_UNIFORM(1, 100) MICROSECONDS THEN
  ALL TASKS REDUCE 100 DOUBLEWORDS
}`
	p := build(t, "det.parley", src)
	var results []*interp.Result
	var timelines []string
	for range 2 {
		sim, err := interp.New(p, interp.Options{NumTasks: 12, Platform: platform(t, ""), Seed: 7, Timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, sim.Run())
		var tl bytes.Buffer
		sim.WriteTimeline(&tl)
		timelines = append(timelines, tl.String())
	}
	if diff := cmp.Diff(results[0], results[1]); diff != "" {
		t.Errorf("two runs differ:\n%s", diff)
	}
	if timelines[0] != timelines[1] {
		t.Error("timelines differ")
	}
}

func TestLogs(t *testing.T) {
	p := build(t, "logs.parley", `
FOR EACH i IN {1, ..., 4}
  TASK 0 LOGS THE MEAN OF i AS "mean" AND i AS "all" AND A HISTOGRAM OF i MOD 2 AS "parity".
ALL TASKS LOG elapsed_usecs AS "time"`)
	sim, err := interp.New(p, interp.Options{NumTasks: 2, Platform: platform(t, ""), Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(); !res.OK() {
		t.Fatal(res.Problems)
	}
	dir := t.TempDir()
	if err := sim.WriteLogs(dir, "logs"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "logs-0.log"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"predicted by the loggp network model", "# Number of tasks: 2", "# Rank (0<=P<tasks): 0", "#     FOR EACH i IN {1, ..., 4}", "# Program exited normally."} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	f, err := logfile.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []logfile.Table{
		{Columns: []logfile.Column{
			{Heading: "mean", Label: "(mean)", Rows: []string{"2.5"}},
			{Heading: "all", Label: "(all data)", Rows: []string{"1", "2", "3", "4"}},
			{Heading: "parity", Label: logfile.Label(logfile.Histogram, 0), Hist: true, Rows: []string{"0", "2", "1", "2"}},
		}},
		{Columns: []logfile.Column{{Heading: "time", Label: "(all data)", Rows: []string{"0"}}}},
	}
	if diff := cmp.Diff(want, f.Tables); diff != "" {
		t.Errorf("task 0's tables (-want +got):\n%s", diff)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "logs-1.log"))
	f, _ = logfile.Read(bytes.NewReader(data))
	if len(f.Tables) != 1 || f.Tables[0].Columns[0].Heading != "time" {
		t.Errorf("task 1's tables: %+v", f.Tables)
	}
}

func TestJSONAndTimeline(t *testing.T) {
	p := build(t, "pp.parley", "TASK 0 COMPUTES FOR 10 MICROSECONDS THEN TASK 0 SENDS A 1000 BYTE MESSAGE TO TASK 1")
	sim, err := interp.New(p, interp.Options{NumTasks: 2, Platform: platform(t, ""), Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run()
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Predicted float64 `json:"predicted_us"`
		Tasks     int64   `json:"tasks"`
		PerTask   []struct {
			Finish  float64 `json:"finish_us"`
			Compute float64 `json:"compute_us"`
			Wait    float64 `json:"wait_us"`
			Sent    int64   `json:"msgs_sent"`
		} `json:"per_task"`
		Problems []any `json:"problems"`
	}
	if err := json.Unmarshal(js.Bytes(), &summary); err != nil {
		t.Fatal(err)
	}
	// 10us of compute, then o + L + o + 999 ns.
	if summary.Predicted != 17.999 || summary.Tasks != 2 || len(summary.PerTask) != 2 || summary.Problems == nil {
		t.Errorf("summary %+v", summary)
	}
	if pt := summary.PerTask[1]; pt.Finish != 17.999 || pt.Wait != 17.999-1.999 || summary.PerTask[0].Compute != 10 || summary.PerTask[0].Sent != 1 {
		t.Errorf("per task %+v", summary.PerTask)
	}
	var tl bytes.Buffer
	if err := sim.WriteTimeline(&tl); err != nil {
		t.Fatal(err)
	}
	var trace struct {
		Events []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Tid  int     `json:"tid"`
			Ts   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(tl.Bytes(), &trace); err != nil {
		t.Fatalf("timeline is not JSON: %v\n%s", err, tl.String())
	}
	var spans []string
	for _, e := range trace.Events {
		if e.Ph == "X" {
			spans = append(spans, e.Name+"@"+itoa(int64(e.Tid))+":"+formatUs(e.Ts)+"+"+formatUs(e.Dur))
		}
	}
	want := []string{"compute@0:0+10", "send overhead@0:10+1", "wait: receive from task 0@1:0+17.999", "receive overhead@1:16+1.999"}
	if diff := cmp.Diff(want, spans); diff != "" {
		t.Errorf("timeline spans (-want +got):\n%s", diff)
	}
}

func formatUs(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// TestLogAggregates: every aggregate function, by its coNCePTuaL label.
func TestLogAggregates(t *testing.T) {
	p := build(t, "agg.parley", `
FOR EACH i IN {1, 2, 3, 4, 10}
  TASK 0 LOGS THE MEAN OF i AS "a" AND THE ARITHMETIC MEAN OF i AS "b" AND THE HARMONIC MEAN OF i AS "c" AND
      THE GEOMETRIC MEAN OF i AS "d" AND THE MEDIAN OF i AS "e" AND THE STANDARD DEVIATION OF i AS "f" AND
      THE VARIANCE OF i AS "g" AND THE MEDIAN ABSOLUTE DEVIATION OF i AS "h" AND THE SUM OF i AS "i" AND
      THE MINIMUM OF i AS "j" AND THE MAXIMUM OF i AS "k" AND THE FINAL i AS "l" AND THE 90 PERCENTILE OF i AS "m"`)
	sim, err := interp.New(p, interp.Options{NumTasks: 1, Platform: platform(t, ""), Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(); !res.OK() {
		t.Fatal(res.Problems)
	}
	dir := t.TempDir()
	if err := sim.WriteLogs(dir, "agg"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "agg-0.log"))
	f, err := logfile.Read(bytes.NewReader(data))
	if err != nil || len(f.Tables) != 1 {
		t.Fatalf("%v\n%s", err, data)
	}
	var got []string
	for _, c := range f.Tables[0].Columns {
		got = append(got, c.Label+"="+strings.Join(c.Rows, ","))
	}
	want := []string{"(mean)=4", "(mean)=4", "(harm. mean)=2.290076336", "(geom. mean)=2.992555739", "(median)=3",
		"(std. dev.)=3.535533906", "(variance)=12.5", "(med. abs. dev.)=1", "(sum)=20", "(minimum)=1", "(maximum)=10",
		"(final)=10", "(90th percentile)=7.6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("aggregates (-want +got):\n%s", diff)
	}
}
