package interp_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// runBoth runs src with and without the collective evaluator, checks that
// the Results, outputs and logs are identical, and returns how many calls
// the evaluator took.
func runBoth(t *testing.T, src string, n int64, plat *netmodel.Platform, args ...string) (*interp.Result, int64) {
	t.Helper()
	prog := build(t, "test.parley", src)
	var res [2]*interp.Result
	var out [2]bytes.Buffer
	var logs [2]string
	var evaluated int64
	for i, off := range []bool{true, false} {
		s, err := interp.New(prog, interp.Options{NumTasks: n, Platform: plat, Args: args, Seed: 1, Output: &out[i], Logs: true, NoCollectiveEvaluator: off})
		if err != nil {
			t.Fatal(err)
		}
		res[i] = s.Run()
		if !off {
			evaluated = s.CollectivesEvaluated()
		}
		logs[i] = allLogs(t, s)
	}
	if !reflect.DeepEqual(res[0], res[1]) {
		diffResults(t, res[0], res[1])
	}
	if out[0].String() != out[1].String() {
		t.Errorf("output differs:\nwithout the evaluator:\n%s\nwith it:\n%s", out[0].String(), out[1].String())
	}
	if logs[0] != logs[1] {
		t.Errorf("logs differ:\nwithout the evaluator:\n%s\nwith it:\n%s", logs[0], logs[1])
	}
	return res[1], evaluated
}

// allLogs returns the logs of run s, every task's in turn.
func allLogs(t *testing.T, s *interp.Sim) string {
	t.Helper()
	dir := t.TempDir()
	if err := s.WriteLogs(dir, "run"); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "run-*.log"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

// diffResults reports how two Results differ, the first few tasks only.
func diffResults(t *testing.T, want, got *interp.Result) {
	t.Helper()
	if want.Predicted != got.Predicted || want.Events != got.Events || want.Status != got.Status {
		t.Errorf("predicted %d ps, %d events, %v without the evaluator; %d ps, %d events, %v with it",
			want.Predicted, want.Events, want.Status, got.Predicted, got.Events, got.Status)
	}
	bad := 0
	for i := range want.Tasks {
		if i < len(got.Tasks) && want.Tasks[i] != got.Tasks[i] {
			t.Errorf("task %d: %+v without the evaluator, %+v with it", i, want.Tasks[i], got.Tasks[i])
			if bad++; bad == 4 {
				break
			}
		}
	}
	if !reflect.DeepEqual(want.Collectives, got.Collectives) || !reflect.DeepEqual(want.Problems, got.Problems) {
		t.Errorf("collectives %+v / %+v, problems %v / %v", want.Collectives, got.Collectives, want.Problems, got.Problems)
	}
	if bad == 0 {
		t.Errorf("results differ")
	}
}

// TestCollectiveEvaluatorIssue19: issue 19's three programs predict the
// same with the evaluator, which takes them.
func TestCollectiveEvaluatorIssue19(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range scaleCollectives {
		for _, n := range []int64{2, 3, 5, 8, 13, 64, 100, 1000, 1024} {
			if _, ev := runBoth(t, c.src, n, plat); ev != 1 {
				t.Errorf("%s on %d tasks: %d calls evaluated, want 1", c.name, n, ev)
			}
		}
	}
}

// TestCollectiveEvaluatorHalo: the halo example (issue 19's 262,144-task
// goal) predicts, outputs and logs the same with the evaluator, which
// takes the all-reduce of every step where the tasks leave it together.
// On 27 and 15 tasks the folded ranks of the recursive doubling leave
// later than the others, and the event path runs.
func TestCollectiveEvaluatorHalo(t *testing.T) {
	src, err := fs.ReadFile(examples.FS, "halo3d.parley")
	if err != nil {
		t.Fatal(err)
	}
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		px, py, pz int64
		evaluated  int64
	}{{2, 2, 2, 3}, {4, 4, 4, 3}, {8, 8, 8, 3}, {4, 2, 1, 3}, {3, 3, 3, 0}, {5, 3, 1, 0}} {
		n := c.px * c.py * c.pz
		_, ev := runBoth(t, string(src), n, plat, "--px", fmt.Sprint(c.px), "--py", fmt.Sprint(c.py), "--pz", fmt.Sprint(c.pz), "--steps", "3")
		if ev != c.evaluated {
			t.Errorf("%dx%dx%d: %d calls evaluated, want %d", c.px, c.py, c.pz, ev, c.evaluated)
		}
	}
}

// TestCollectiveEvaluatorLeavingApart: on nodes of two speeds the fast
// task leaves an all-reduce of 1,000 bytes long before the slow ones,
// which are still combining, and its next message reaches one of them
// inside the call. The evaluator takes the call (every task's last event
// is scheduled before the first leaves) and predicts the same.
func TestCollectiveEvaluatorLeavingApart(t *testing.T) {
	plat, err := netmodel.Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	fast := plat.Machine.Nodes[0]
	slow := fast
	slow.Count, slow.MemBandwidth = 3, fast.MemBandwidth/1000
	plat.Machine.Nodes = []netmodel.NodeGroup{slow, fast}
	// A slow task's last combine takes longer than a message's flight.
	if combine := 3 * 1000 / slow.MemBandwidth * 1e12; combine <= float64(plat.Network.Overhead+plat.Network.Latency) {
		t.Fatalf("combining takes %g ps, no longer than o + L", combine)
	}
	src := `FOR 3 REPETITIONS {
  ALL TASKS COMPUTE FOR 1 MICROSECOND THEN
  ALL TASKS REDUCE 125 DOUBLEWORDS THEN
  ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN
  ALL TASKS AWAIT COMPLETION
}`
	if _, ev := runBoth(t, src, 4, plat); ev != 1 {
		t.Errorf("%d calls evaluated, want 1 (the first; then the tasks enter apart)", ev)
	}
}

// TestCollectiveEvaluatorRandom runs generated programs, a collective
// between other statements on various platforms and task counts, with and
// without the evaluator, and checks the whole Result and output agree;
// and that the evaluator did take a good share of the calls, so that the
// comparison compares something.
func TestCollectiveEvaluatorRandom(t *testing.T) {
	plats := presets(t, "ib-edr", "ethernet", "laptop")
	shared, _ := netmodel.Preset("ib-edr")
	shared.Machine.TasksPerNode = 4      // messages within a node take the intra link
	ideal, _ := netmodel.Preset("ideal") // no overheads: the event path
	plats = append(plats, shared, ideal)
	// The first entries of each list are of the kind the evaluator takes.
	before := []string{
		"",
		"ALL TASKS COMPUTE FOR 3 MICROSECONDS.",
		"ALL TASKS t SLEEP FOR t MICROSECONDS.", // staggered: the event path
		"TASK 0 SENDS A 64 BYTE MESSAGE TO TASK 1.",
		"ALL TASKS t SEND A 32 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks.",
		"TASKS t SUCH THAT t < 2 COMPUTE FOR 1 MICROSECOND.",
	}
	colls := []string{
		"TASK %[1]d MULTICASTS A %[2]d BYTE MESSAGE TO ALL OTHER TASKS.",
		"ALL TASKS REDUCE %[3]d DOUBLEWORDS TO TASK %[1]d.",
		"ALL TASKS REDUCE %[3]d DOUBLEWORDS.",
		"ALL TASKS SYNCHRONIZE.",
		"TASKS t SUCH THAT t > %[1]d REDUCE %[3]d DOUBLEWORDS.",
		"TASK %[1]d MULTICASTS 2 %[2]d BYTE MESSAGES TO ALL OTHER TASKS.",
	}
	after := []string{
		"",
		"ALL TASKS t COMPUTE FOR t * 2 MICROSECONDS.",
		"ASSERT THAT \"few tasks\" WITH num_tasks < 40.", // fails, after the evaluator, on 40 tasks and more
		"ALL TASKS SLEEP FOR 1 MICROSECOND THEN ALL TASKS COMPUTE FOR 1 MICROSECOND.",
		"TASK 0 OUTPUTS \"done\".",
		"ALL TASKS REDUCE 1 DOUBLEWORD.",
	}
	compareGenerated(t, rand.New(rand.NewPCG(19, 2026)), 400, func(i int, rng *rand.Rand) (string, int64, *netmodel.Platform) {
		n := int64(2 + rng.IntN(40))
		if rng.IntN(3) == 0 {
			n = 1 << (1 + rng.IntN(7))
		}
		// Two runs in three are of the kind the evaluator takes (quiet
		// before and after, an indexed algorithm, eager sizes); the third
		// is anything.
		pick := picker(i, rng)
		bytes := []int{1, 8, 1000, 0, 100000}[rng.IntN(3+2*(i%3/2))]
		coll := collective(pick(colls, 4), rng.Int64N(n), bytes)
		src := pick(before, 2) + "\n" + coll + "\n" + pick(after, 3) + "\n"
		return src, n, plats[rng.IntN(len(plats)-1+i%3/2)]
	})
}

// compareGenerated runs count generated programs with and without the
// evaluator (runBoth) and requires the evaluator to have taken at least
// a call for every three runs, so that the comparison means something.
func compareGenerated(t *testing.T, rng *rand.Rand, count int, gen func(i int, rng *rand.Rand) (string, int64, *netmodel.Platform)) {
	t.Helper()
	evaluated := int64(0)
	for i := range count {
		src, n, plat := gen(i, rng)
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			_, ev := runBoth(t, src, n, plat)
			if t.Failed() {
				t.Logf("program on %d tasks, platform %s:\n%s", n, plat.Name, src)
			}
			evaluated += ev
		})
	}
	if evaluated < int64(count)/3 {
		t.Errorf("the evaluator took %d calls in %d runs: too few for the comparison to mean much", evaluated, count)
	}
	t.Logf("%d runs, %d calls evaluated", count, evaluated)
}

// presets loads the named platform presets.
func presets(t *testing.T, names ...string) []*netmodel.Platform {
	t.Helper()
	var plats []*netmodel.Platform
	for _, name := range names {
		p, err := netmodel.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		plats = append(plats, p)
	}
	return plats
}

// picker chooses from a list of statements: in two runs of three from
// its first likely ones, the kind the evaluator takes; in the third from
// any.
func picker(i int, rng *rand.Rand) func(l []string, likely int) string {
	return func(l []string, likely int) string {
		if i%3 != 2 {
			return l[rng.IntN(likely)]
		}
		return l[rng.IntN(len(l))]
	}
}

// collective fills a collective's pattern with a task, a size in bytes and
// the doublewords of it.
func collective(pattern string, task int64, bytes int) string {
	coll := fmt.Sprintf(pattern, task, bytes, max(1, bytes/8))
	if k := strings.Index(coll, "%!"); k >= 0 {
		coll = coll[:k] // SYNCHRONIZE takes no numbers
	}
	return coll
}

// TestCollectiveEvaluatorEdges: runs that stop or deadlock around a
// collective the tasks park at, and statements the evaluator must leave to
// the event path, predict as without it.
func TestCollectiveEvaluatorEdges(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, src string
		n         int64
		evaluated int64
		status    interp.Status
	}{
		{"deadlock while parked", "TASK 0 RECEIVES A 8 BYTE MESSAGE FROM TASK 1.\nALL TASKS REDUCE 1 DOUBLEWORD.", 8, 0, interp.Deadlocked},
		{"failure after", "ALL TASKS REDUCE 1 DOUBLEWORD.\nALL TASKS t COMPUTE FOR 5 - t MICROSECONDS.", 8, 0, interp.Failed},
		// The run is made again without the evaluator; what it wrote
		// before the failure is written once.
		{"output, then failure after", "TASK 0 OUTPUTS \"before\".\nALL TASKS COMPUTE FOR 1 MICROSECOND.\nALL TASKS REDUCE 1 DOUBLEWORD.\nALL TASKS t COMPUTE FOR 5 - t MICROSECONDS.", 8, 0, interp.Failed},
		{"quiet after", "ALL TASKS REDUCE 1 DOUBLEWORD.\nALL TASKS t COMPUTE FOR t MICROSECONDS.", 16, 1, interp.Finished},
		// The tasks go from one call to the next through the loop's
		// instructions alone: every call is evaluated.
		{"in a loop", "FOR 3 REPETITIONS ALL TASKS REDUCE 1 DOUBLEWORD.", 16, 3, interp.Finished},
		// The first outer repetition's three calls; in the second the
		// tasks come from an AWAIT COMPLETION, which they re-check when
		// they wake, and so do not park.
		{"nested loops", "FOR 2 REPETITIONS {\n FOR 3 REPETITIONS ALL TASKS REDUCE 1 DOUBLEWORD THEN\n ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN\n ALL TASKS AWAIT COMPLETION\n} THEN\nTASK 0 OUTPUTS \"done\"", 16, 3, interp.Finished},
		// A warmup is bookkeeping the evaluator does not follow: the
		// first call goes through the event path, and the tasks leave it
		// in its events, so no later call is taken either.
		{"warmup", "FOR 3 REPETITIONS PLUS 1 WARMUP REPETITION ALL TASKS REDUCE 1 DOUBLEWORD.", 16, 0, interp.Finished},
		// The tasks leave the evaluated barrier together, in events that
		// go straight into the reduction: it is evaluated too.
		{"two in a row", "ALL TASKS SYNCHRONIZE.\nALL TASKS REDUCE 1 DOUBLEWORD.", 16, 2, interp.Finished},
		{"after computing", "ALL TASKS COMPUTE FOR 2 MICROSECONDS.\nALL TASKS REDUCE 1 DOUBLEWORD.", 16, 1, interp.Finished},
		{"a subgroup", "TASKS t SUCH THAT t < 8 REDUCE 1 DOUBLEWORD.", 16, 0, interp.Finished},
		{"rendezvous", "TASK 0 MULTICASTS A 1 MEGABYTE MESSAGE TO ALL OTHER TASKS.", 16, 0, interp.Finished},
		{"reduce-scatter", "ALL TASKS REDUCE 64 DOUBLEWORDS AND SCATTER THE RESULT.", 16, 0, interp.Finished},
		{"ring allreduce", "ALL TASKS REDUCE 1 DOUBLEWORD.", 16, 0, interp.Finished},
		{"regimes", "ALL TASKS REDUCE 1 DOUBLEWORD.", 16, 0, interp.Finished},
		// A deadlock after an evaluated call: the run is made again
		// without the evaluator.
		{"deadlock after", "ALL TASKS COMPUTE FOR 1 MICROSECOND.\nALL TASKS REDUCE 1 DOUBLEWORD.\nTASK 0 RECEIVES A 8 BYTE MESSAGE FROM TASK 1.", 8, 0, interp.Deadlocked},
	} {
		t.Run(c.name, func(t *testing.T) {
			plat := plat
			switch c.name {
			case "ring allreduce":
				// The platform's choice, which StepAt does not index.
				ring := *plat
				ring.Collectives = map[netmodel.Op]netmodel.Algorithm{netmodel.Allreduce: "ring"}
				plat = &ring
			case "regimes":
				// Small messages priced apart, which the evaluator does
				// not do.
				sized := *plat
				small := sized.Network
				small.Overhead, small.Latency = small.Overhead/2, small.Latency*2
				sized.Network.Regimes = []netmodel.Regime{{UpTo: 64, LogGP: small}}
				plat = &sized
			}
			res, ev := runBoth(t, c.src, c.n, plat)
			if ev != c.evaluated || res.Status != c.status {
				t.Errorf("%d calls evaluated, status %v; want %d, %v", ev, res.Status, c.evaluated, c.status)
			}
		})
	}
}

// TestCollectiveEvaluatorLoops runs generated programs with a collective
// inside a loop, between other work (messages, computation, output, logs,
// counters, another collective), with and without the evaluator, and
// checks the whole Result, output and logs agree; and that the evaluator
// took a good share of the calls.
func TestCollectiveEvaluatorLoops(t *testing.T) {
	plats := presets(t, "ib-edr", "ethernet", "laptop")
	shared, _ := netmodel.Preset("ib-edr")
	shared.Machine.TasksPerNode = 4
	// Nodes of two speeds: the tasks combine in different times, and so
	// leave the call at different times.
	mixed, _ := netmodel.Preset("ib-edr")
	fast := mixed.Machine.Nodes[0]
	slow := fast
	slow.Count, slow.MemBandwidth = 3, fast.MemBandwidth/100
	mixed.Machine.Nodes = []netmodel.NodeGroup{slow, fast}
	plats = append(plats, shared, mixed)
	// Work before the collective: the first ones bring every task to it
	// at once.
	before := []string{
		"ALL TASKS COMPUTE FOR 3 MICROSECONDS",
		"ALL TASKS t ASYNCHRONOUSLY SEND A 64 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN ALL TASKS t ASYNCHRONOUSLY SEND A 64 BYTE MESSAGE TO TASK (t + num_tasks - 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION THEN ALL TASKS COMPUTE FOR 20 MICROSECONDS",
		"",
		"ALL TASKS t SLEEP FOR t MICROSECONDS", // staggered
		"ALL TASKS t SEND A 32 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks",
	}
	colls := []string{
		"ALL TASKS REDUCE %[3]d DOUBLEWORDS",
		"ALL TASKS SYNCHRONIZE",
		"TASK %[1]d MULTICASTS A %[2]d BYTE MESSAGE TO ALL OTHER TASKS",
		"ALL TASKS REDUCE %[3]d DOUBLEWORDS TO TASK %[1]d",
	}
	// Work after it, in the same iteration.
	after := []string{
		"",
		"ALL TASKS t ASYNCHRONOUSLY SEND A 16 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION",
		"ALL TASKS t OUTPUT \"task \" AND t AND \" at \" AND elapsed_usecs",
		"ALL TASKS LOG elapsed_usecs AS \"time\" AND bytes_received AS \"bytes\"",
		"ALL TASKS RESET THEIR COUNTERS",
		"ALL TASKS t SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks",
		"ALL TASKS REDUCE 1 DOUBLEWORD",
		"ALL TASKS t COMPUTE FOR t MICROSECONDS",
		"TASK 0 SENDS A 4 BYTE MESSAGE TO TASK num_tasks - 1",
	}
	compareGenerated(t, rand.New(rand.NewPCG(19, 2027)), 300, func(i int, rng *rand.Rand) (string, int64, *netmodel.Platform) {
		n := int64(2 + rng.IntN(40))
		if rng.IntN(2) == 0 {
			n = 1 << (1 + rng.IntN(6))
		}
		pick := picker(i, rng)
		bytes := []int{1, 8, 1000, 0}[rng.IntN(4)]
		coll := collective(pick(colls, 1), rng.Int64N(n), bytes)
		var body []string
		for _, st := range []string{pick(before, 2), coll, pick(after, len(after)), pick(after, len(after))} {
			if st != "" {
				body = append(body, st)
			}
		}
		src := fmt.Sprintf("FOR %d REPETITIONS {\n  %s\n}\n", 1+rng.IntN(4), strings.Join(body, " THEN\n  "))
		if rng.IntN(2) == 0 {
			// Work after the loop, which the tasks reach where they
			// would otherwise start the call again.
			src += []string{"ALL TASKS t SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks.", "ALL TASKS t OUTPUT \"end \" AND t.", "ALL TASKS REDUCE 2 DOUBLEWORDS."}[rng.IntN(3)] + "\n"
		}
		return src, n, plats[rng.IntN(len(plats))]
	})
}
