package interp_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

// bothWays runs p with and without fast-forward and fails unless the
// results (but for the fast-forward notes) and the outputs are identical.
// It returns the fast-forwarded result.
func bothWays(t *testing.T, name string, p *ir.Program, opts interp.Options) *interp.Result {
	t.Helper()
	var fullOut, ffOut bytes.Buffer
	opts.Output = &fullOut
	full, err := interp.Run(p, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	opts.Output, opts.FastForward = &ffOut, true
	ff, err := interp.Run(p, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	notes := ff.FastForward
	ff.FastForward = nil
	if !reflect.DeepEqual(full, ff) {
		t.Fatalf("%s: the fast-forwarded result differs (%v):\nfull: %s\nfast: %s", name, notes, summary(full), summary(ff))
	}
	if fullOut.String() != ffOut.String() {
		t.Fatalf("%s: the fast-forwarded output differs:\nfull: %q\nfast: %q", name, fullOut.String(), ffOut.String())
	}
	ff.FastForward = notes
	return ff
}

func summary(r *interp.Result) string {
	var b strings.Builder
	r.WriteSummary(&b, 3)
	fmt.Fprintf(&b, "events %d, collectives %+v", r.Events, r.Collectives)
	return b.String()
}

func skipped(r *interp.Result) bool {
	return strings.Contains(strings.Join(r.FastForward, "\n"), "skipped")
}

// TestFastForwardExamples: every example predicts exactly the same with
// fast-forward as without, and the halo examples are fast-forwarded.
func TestFastForwardExamples(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil || len(names) == 0 {
		t.Fatal("no examples", err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			src, err := fs.ReadFile(examples.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			p := build(t, name, string(src))
			n, ok := p.AssertedTasks(nil)
			if !ok {
				n = 16
			}
			res := bothWays(t, name, p, interp.Options{NumTasks: n, Platform: plat, Seed: 1, Logs: true})
			if name == "halo3d.parley" && !skipped(res) {
				t.Errorf("halo3d was not fast-forwarded: %v", res.FastForward)
			}
			for _, note := range res.FastForward {
				if strings.Count(note, "\n") > 0 || !strings.HasPrefix(note, "fast-forward") {
					t.Errorf("a note is not one line about fast-forward: %q", note)
				}
			}
		})
	}
}

// TestFastForwardHalo3DLong: 2,000 steps on 64 tasks skip all but a few
// iterations, with the same prediction and far fewer events processed.
func TestFastForwardHalo3DLong(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	src, err := fs.ReadFile(examples.FS, "halo3d.parley")
	if err != nil {
		t.Fatal(err)
	}
	p := build(t, "halo3d.parley", string(src))
	res := bothWays(t, "halo3d", p, interp.Options{NumTasks: 64, Platform: plat, Args: []string{"--steps", "2000"}})
	if len(res.FastForward) != 1 || !strings.Contains(res.FastForward[0], "skipped 1997 iterations") {
		t.Fatalf("notes %q, want one loop that skipped 1997 of 2000 iterations", res.FastForward)
	}
}

// loopStmts are loop bodies' statements for the randomised check: lockstep
// and not, eager and rendezvous, blocking and asynchronous, collectives.
var loopStmts = []string{
	"ALL TASKS t ASYNCHRONOUSLY SEND A %d BYTE MESSAGE TO TASK (t+1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION",
	"ALL TASKS t ASYNCHRONOUSLY SEND A %d BYTE MESSAGE TO TASK (t+num_tasks-1) MOD num_tasks",
	"TASKS t SUCH THAT t IS EVEN SEND A %d BYTE MESSAGE TO TASK t+1",
	"TASK 0 SENDS A %d BYTE MESSAGE TO TASK num_tasks-1",
	"ALL TASKS COMPUTE FOR %d MICROSECONDS",
	"TASKS t SUCH THAT t IS ODD SLEEP FOR %d MICROSECONDS",
	"ALL TASKS REDUCE %d DOUBLEWORDS",
	"ALL TASKS SYNCHRONIZE",
	"TASK 0 MULTICASTS A %d BYTE MESSAGE TO ALL OTHER TASKS",
	"FOR EACH i IN {1, ..., 3} ALL TASKS COMPUTE FOR i*%d MICROSECONDS",
	"TASKS t SUCH THAT t < 2 COMPUTE FOR RANDOM_UNIFORM(1, %d) MICROSECONDS",
	"ASSERT THAT \"fewer than 12 tasks\" WITH num_tasks < 12",
}

// randomLoopProgram makes a program of one or two nested loops of random
// statements.
func randomLoopProgram(r *rand.Rand) string {
	sizes := []int{0, 8, 1000, 100000, 1 << 20}
	var body []string
	for range 1 + r.IntN(4) {
		s := loopStmts[r.IntN(len(loopStmts))]
		if strings.Contains(s, "%d") {
			s = fmt.Sprintf(s, sizes[r.IntN(len(sizes))]%200000+1)
		}
		body = append(body, s)
	}
	prog := fmt.Sprintf("FOR %d REPETITIONS {\n  %s\n}", 1+r.IntN(40), strings.Join(body, " THEN\n  "))
	if r.IntN(3) == 0 {
		prog = fmt.Sprintf("FOR %d REPETITIONS {\n%s THEN\nALL TASKS COMPUTE FOR 3 MICROSECONDS\n}", 1+r.IntN(4), prog)
	}
	return prog + " THEN\nALL TASKS AWAIT COMPLETION THEN\nALL TASKS LOG elapsed_usecs AS \"t\" AND bytes_sent AS \"b\".\n"
}

// TestFastForwardRandomPrograms: generated loop programs predict exactly
// the same with fast-forward as without.
func TestFastForwardRandomPrograms(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(19, 2026))
	fast := 0
	const programs = 300
	for i := range programs {
		src := randomLoopProgram(r)
		p := build(t, "random.parley", src)
		res := bothWays(t, fmt.Sprintf("program %d:\n%s", i, src), p, interp.Options{NumTasks: 2 + r.Int64N(11), Platform: plat, Seed: 1, Logs: true})
		if skipped(res) {
			fast++
		}
	}
	// Enough of them must be skipped for the check to mean something.
	if fast < programs/20 {
		t.Fatalf("only %d of %d programs were fast-forwarded", fast, programs)
	}
	t.Logf("%d of %d programs fast-forwarded", fast, programs)
}

// TestFastForwardRefusals: loops that fast-forward may not skip run in
// full, and the summary says why in one line.
func TestFastForwardRefusals(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, why string }{
		{"FOR 50 REPETITIONS TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1.", "do not reach its iteration boundary at the same time"},
		{"FOR 50 REPETITIONS ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t+1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.", "in flight"},
		{"FOR 50 REPETITIONS { ALL TASKS COMPUTE FOR RANDOM_UNIFORM(1, 9) MICROSECONDS THEN ALL TASKS SYNCHRONIZE }", "random numbers"},
		{"FOR 50 REPETITIONS { ALL TASKS SYNCHRONIZE THEN ALL TASKS LOG elapsed_usecs AS \"t\" }", "LOGS"},
		{"FOR 50 REPETITIONS { ALL TASKS SYNCHRONIZE THEN TASK 0 OUTPUTS \"x\" }", "OUTPUTS"},
		{"FOR 50 REPETITIONS { ALL TASKS SYNCHRONIZE THEN ALL TASKS RESET THEIR COUNTERS }", "counters"},
		{"FOR 50 REPETITIONS { ALL TASKS SYNCHRONIZE THEN ALL TASKS COMPUTE FOR 1 + msgs_sent MICROSECONDS }", "reads a counter"},
		{"FOR 2 REPETITIONS ALL TASKS SYNCHRONIZE.", "too few iterations"},
	} {
		p := build(t, "refuse.parley", c.src)
		res := bothWays(t, c.src, p, interp.Options{NumTasks: 4, Platform: plat, Seed: 1})
		if len(res.FastForward) != 1 || !strings.Contains(res.FastForward[0], c.why) || !strings.Contains(res.FastForward[0], "did not apply") {
			t.Errorf("%s: notes %q, want one saying %q", c.src, res.FastForward, c.why)
		}
	}
}

// TestFastForwardBound: with a bound, a loop that draws random numbers is
// skipped once eight periods in a row agree within it, and the prediction
// stays within the bound; one whose period keeps changing runs in full.
func TestFastForwardBound(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	const bound = 0.001
	for _, c := range []struct {
		body string
		why  string
	}{
		{"ALL TASKS COMPUTE FOR 10 MICROSECONDS THEN TASK r SLEEPS FOR 0 MICROSECONDS THEN ALL TASKS REDUCE A DOUBLEWORD", "within 0.1% per iteration"},
		{"ALL TASKS SLEEP FOR r MICROSECONDS THEN ALL TASKS REDUCE A DOUBLEWORD", "never settled"},
	} {
		p := build(t, "bound.parley", "FOR 300 REPETITIONS LET r BE A RANDOM TASK WHILE { "+c.body+" }")
		opts := interp.Options{NumTasks: 16, Platform: plat, Seed: 1}
		full, err := interp.Run(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.FastForward, opts.FastForwardBound = true, bound
		ff, err := interp.Run(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(ff.FastForward) != 1 || !strings.Contains(ff.FastForward[0], c.why) {
			t.Errorf("%s: notes %q, want %q", c.body, ff.FastForward, c.why)
		}
		if d := float64(ff.Predicted - full.Predicted); d > bound*float64(full.Predicted) || -d > bound*float64(full.Predicted) {
			t.Errorf("%s: predicted %s with the bound, %s without", c.body, ff.Predicted, full.Predicted)
		}
		opts.FastForwardBound = 0
		if exact, err := interp.Run(p, opts); err != nil || exact.Predicted != full.Predicted || !strings.Contains(exact.FastForward[0], "random task") {
			t.Errorf("%s: without a bound: %v %v", c.body, err, exact.FastForward)
		}
	}
}

// TestFastForwardMemory: under a memory limit the run fits but its cuts
// would not, the loop runs in full and says why. The limit is searched
// for, so that the test does not hang on the exact sizes of the structures.
func TestFastForwardMemory(t *testing.T) {
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	src, err := fs.ReadFile(examples.FS, "halo3d.parley")
	if err != nil {
		t.Fatal(err)
	}
	p := build(t, "halo3d.parley", string(src))
	for limit := int64(300_000); limit < 2_000_000; limit += 10_000 {
		res := bothWays(t, "halo3d", p, interp.Options{NumTasks: 64, Platform: plat, MaxMemory: limit})
		if res.OK() && len(res.FastForward) == 1 && strings.Contains(res.FastForward[0], "would pass the memory limit") {
			return
		}
	}
	t.Fatal("no memory limit let the run fit but not fast-forward's copies of the task state")
}

// TestFastForwardFlowModel: under the flow model (and the packet model,
// through the same network state) fast-forward stands aside, since a cut
// does not hold the links' statistics, and says so.
func TestFastForwardFlowModel(t *testing.T) {
	plat, err := netmodel.Preset("star-edr")
	if err != nil {
		t.Fatal(err)
	}
	src := "FOR 50 REPETITIONS ALL TASKS SYNCHRONIZE."
	res := bothWays(t, src, build(t, "flow.parley", src), interp.Options{NumTasks: 4, Platform: plat, Seed: 1})
	if len(res.FastForward) != 1 || !strings.Contains(res.FastForward[0], "network model") {
		t.Errorf("notes %q, want one saying the flow model stops fast-forward", res.FastForward)
	}
}
