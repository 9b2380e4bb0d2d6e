package interp_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// runShort is runBoth, and also returns how many calls the evaluator
// took in its two shortcuts (see collshort.go): for one task standing
// for all, and one task after another.
func runShort(t *testing.T, src string, n int64, plat *netmodel.Platform) (evaluated, mirrored, treed int64) {
	t.Helper()
	_, evaluated = runBoth(t, src, n, plat)
	s, err := interp.New(build(t, "test.parley", src), interp.Options{NumTasks: n, Platform: plat, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Run()
	return evaluated, s.CollectivesMirrored(), s.CollectivesTreed()
}

// tiePlatform is the default platform with LogGOPS costs of a few whole
// nanoseconds, which make many events fall at one time, and a combine of
// 24 bytes that takes from 3 ns to nothing (0 ps, rounded).
func tiePlatform(t *testing.T, rng *rand.Rand) *netmodel.Platform {
	plat := presets(t, netmodel.DefaultPlatform)[0]
	ns := func(k int) netmodel.Duration { return netmodel.Duration(rng.IntN(k)) * 1000 }
	net := &plat.Network
	net.Latency, net.Overhead, net.Gap = ns(4), ns(3)+1000, ns(9)
	net.ByteGap, net.ByteOverhead = netmodel.PerByte(rng.IntN(3))*125, netmodel.PerByte(rng.IntN(3))*125
	bw := []float64{8e9, 12e9, 24e9, 24e12, 24e15}[rng.IntN(5)]
	plat.Machine.Nodes[0].MemBandwidth = bw / float64(plat.Machine.TasksPerNode)
	return plat
}

// mirrorTails follow the collective in TestCollectiveMirror: all but the
// first make the order in which the tasks leave it show (their output,
// their messages' ties, the same collective again, written COLL).
var mirrorTails = []string{
	"",
	"ALL TASKS t OUTPUT \"end \" AND t AND \" \" AND elapsed_usecs.",
	"ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks.\nALL TASKS AWAIT COMPLETION.\nALL TASKS t OUTPUT t.",
	"COLL\nALL TASKS t OUTPUT t.",
}

// mirrorCollectives are the calls cfMirror takes, with the task counts
// it takes them on: the all-reduce on powers of two (an XOR renumbers
// it), the dissemination barrier on any count (a rotation does).
var mirrorCollectives = []struct {
	stmt  string
	tasks func(*rand.Rand) int64
}{
	{"ALL TASKS REDUCE 1 DOUBLEWORD.", func(rng *rand.Rand) int64 { return int64(1) << (1 + rng.IntN(6)) }},
	{"ALL TASKS SYNCHRONIZE.", func(rng *rand.Rand) int64 { return 2 + rng.Int64N(70) }},
}

// TestCollectiveMirror: an all-reduce over a power of two of tasks, or a
// barrier over any number, that the tasks enter alike is evaluated for
// one task standing for all, and predicts, outputs and logs what the
// event path does, on platforms that make many events fall at one time
// (so that the order of the tasks' continuations, which mirror mode
// tracks rather than simulates, decides the output).
func TestCollectiveMirror(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 61))
	for _, c := range mirrorCollectives {
		var mirroredAfterMessages int64
		for i := range 200 {
			plat := tiePlatform(t, rng)
			n := c.tasks(rng)
			tail := mirrorTails[rng.IntN(len(mirrorTails))]
			src := c.stmt + "\n" + strings.ReplaceAll(tail, "COLL", c.stmt)
			want := int64(1)
			if tail == mirrorTails[3] {
				want = 2
			}
			afterMessages := false
			switch rng.IntN(3) {
			case 1:
				src = "ALL TASKS COMPUTE FOR 1 MICROSECOND.\n" + src
			case 2:
				// The tasks reach the call together, in the order their
				// messages arrived, or not together (then the event path
				// runs it).
				src = "ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks.\n" +
					"ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK (t + num_tasks - 1) MOD num_tasks.\n" +
					"ALL TASKS AWAIT COMPLETION.\nALL TASKS COMPUTE FOR 2 MICROSECONDS.\n" + src
				afterMessages = true
			}
			ev, mir, _ := runShort(t, src, n, plat)
			if afterMessages {
				// The ring can leave the tasks' NICs free at different
				// (past) times, and then cfSymmetric declines.
				mirroredAfterMessages += mir
				continue
			}
			if ev != want || mir != ev {
				t.Errorf("run %d, %d tasks: %d calls evaluated, %d in mirror mode; want %d and all:\n%s", i, n, ev, mir, want, src)
			}
		}
		if mirroredAfterMessages < 20 {
			t.Errorf("%s: %d calls in mirror mode after the ring of messages: too few for the comparison to mean much", c.stmt, mirroredAfterMessages)
		}
		t.Logf("%s: %d calls in mirror mode after the ring of messages", c.stmt, mirroredAfterMessages)
	}
}

// TestCollectiveMirrorStepsAside: where the tasks' parts differ, the
// evaluator takes the all-reduce or barrier for every task, and predicts
// the same.
func TestCollectiveMirrorStepsAside(t *testing.T) {
	// Nodes of two speeds: the slow ones combine for longer.
	mixed := presets(t, "ib-edr")[0]
	fast := mixed.Machine.Nodes[0]
	slow := fast
	slow.Count, slow.MemBandwidth = 3, fast.MemBandwidth/100
	mixed.Machine.Nodes = []netmodel.NodeGroup{slow, fast}
	// Three tasks a node with a link of their own: task x and x ^ 1 share
	// a node for some x and not for others.
	shared := presets(t, "ib-edr")[0]
	shared.Machine.TasksPerNode = 3
	intra := shared.Network
	intra.Latency, intra.Overhead = intra.Latency/4, intra.Overhead/2
	shared.Intra = &intra
	def := presets(t, netmodel.DefaultPlatform)[0]
	for _, c := range []struct {
		name string
		n    int64
		plat *netmodel.Platform
	}{
		{"not a power of two", 12, def},
		{"nodes of two speeds", 16, mixed},
		{"an intra-node link", 16, shared},
	} {
		for _, size := range []int{1, 125} {
			if ev, mir, _ := runShort(t, fmt.Sprintf("ALL TASKS REDUCE %d DOUBLEWORDS.", size), c.n, c.plat); ev != 1 || mir != 0 {
				t.Errorf("%s, %d doublewords: %d calls evaluated, %d in mirror mode; want 1 and 0", c.name, size, ev, mir)
			}
		}
		if c.plat == def {
			continue // a barrier is mirrored on any count
		}
		if ev, mir, _ := runShort(t, "ALL TASKS SYNCHRONIZE.", c.n, c.plat); ev != 1 || mir != 0 {
			t.Errorf("%s, a barrier: %d calls evaluated, %d in mirror mode; want 1 and 0", c.name, ev, mir)
		}
	}
}

// TestCollectiveMirrorLarge: issue 19's all-reduce and a barrier, in
// mirror mode, on counts the comparisons above do not reach.
func TestCollectiveMirrorLarge(t *testing.T) {
	plat := presets(t, netmodel.DefaultPlatform)[0]
	for _, c := range []struct {
		stmt string
		n    int64
	}{
		{"ALL TASKS REDUCE 1 DOUBLEWORD.", 1 << 10},
		{"ALL TASKS REDUCE 1 DOUBLEWORD.", 1 << 13},
		{"ALL TASKS SYNCHRONIZE.", 1000},
		{"ALL TASKS SYNCHRONIZE.", 6000},
	} {
		if ev, mir, _ := runShort(t, c.stmt+"\nALL TASKS t OUTPUT t.", c.n, plat); ev != 1 || mir != 1 {
			t.Errorf("%s on %d tasks: %d calls evaluated, %d in mirror mode, want 1 and 1", c.stmt, c.n, ev, mir)
		}
	}
}

// TestCollectiveTree: binomial broadcasts and reduces from any root,
// evaluated one task after another where the statement's tail is quiet,
// predict and log what the event path does; where the tail is not quiet,
// or a task has two events at one time (messages from two children
// arriving together, common on these platforms), the evaluator takes
// every task's events in order instead. Most calls take the shortcut.
func TestCollectiveTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 62))
	tails := []struct {
		src   string
		quiet bool
	}{
		{"", true},
		{"ALL TASKS t COMPUTE FOR t MICROSECONDS.", true},
		{"ALL TASKS LOG elapsed_usecs AS \"time\".", true},
		{"ALL TASKS t OUTPUT \"end \" AND t AND \" \" AND elapsed_usecs.", false},
	}
	var treed, quiet int64
	for i := range 300 {
		plat := tiePlatform(t, rng)
		if i%3 == 0 {
			plat = presets(t, netmodel.DefaultPlatform)[0]
		}
		n := int64(2 + rng.IntN(70))
		tail := tails[rng.IntN(len(tails))]
		coll := []string{"TASK %d MULTICASTS A %d BYTE MESSAGE TO ALL OTHER TASKS.", "ALL TASKS REDUCE %[2]d DOUBLEWORDS TO TASK %[1]d."}[rng.IntN(2)]
		src := fmt.Sprintf(coll, rng.Int64N(n), 1+rng.IntN(4)) + "\n" + tail.src
		ev, mir, tree := runShort(t, src, n, plat)
		if mir != 0 || tree > ev || !tail.quiet && tree != 0 {
			t.Errorf("run %d, %d tasks: %d calls evaluated, %d in mirror mode, %d one task after another:\n%s", i, n, ev, mir, tree, src)
		}
		if tail.quiet {
			quiet++
			treed += tree
		}
	}
	if treed < quiet/2 {
		t.Errorf("%d of %d calls with a quiet tail taken one task after another: too few for the comparison to mean much", treed, quiet)
	}
	t.Logf("%d of %d calls with a quiet tail taken one task after another", treed, quiet)
}
