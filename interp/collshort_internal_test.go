package interp

import (
	"reflect"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestCollectiveTreeUndo: on this platform the root of a reduce over ten
// tasks has two messages arriving at one time, so cfTree, which takes the
// tasks one after another, gives up at the root, the last task, and sets
// back the nine it wrote; the full evaluation then takes the call. Task
// 5 enters with more communication time than the others: cfTree, which
// can set the tasks back only to one state for all, must leave such a
// call alone. Both predict what the event path does.
func TestCollectiveTreeUndo(t *testing.T) {
	p := buildInternal(t, "reduce.parley", "ALL TASKS REDUCE 4 DOUBLEWORDS TO TASK 2.")
	plat := defaultPlatform(t)
	net := &plat.Network
	net.Latency, net.Overhead, net.Gap, net.ByteGap, net.ByteOverhead = 1000, 2000, 5000, 250, 0
	plat.Machine.Nodes[0].MemBandwidth = 2.4e10 / float64(plat.Machine.TasksPerNode)
	for _, extra := range []Time{0, 7} {
		var res [2]*Result
		var treed, evaluated int64
		for i, off := range []bool{true, false} {
			s, err := New(p, Options{NumTasks: 10, Platform: plat, NoCollectiveEvaluator: off})
			if err != nil {
				t.Fatal(err)
			}
			s.tasks[5].comm += extra
			res[i] = s.Run()
			if !off {
				treed, evaluated = s.cf.treed, s.cf.evaluated
			}
		}
		if !reflect.DeepEqual(res[0], res[1]) {
			t.Errorf("task 5 entering with %v more: the Results differ:\nwithout the evaluator %+v\nwith it %+v", extra, res[0].Tasks, res[1].Tasks)
		}
		if evaluated != 1 || treed != 0 {
			t.Errorf("task 5 entering with %v more: %d calls evaluated, %d one task after another; want 1 and 0", extra, evaluated, treed)
		}
	}
}

// garbageSink keeps an allocation from being optimised away.
var garbageSink []byte

// TestGarbageOver: the heap's growth since the last collection is seen
// as garbage that may be worth collecting before the Result is made.
func TestGarbageOver(t *testing.T) {
	runtime.GC()
	// No collection may start while the test looks (the allocation
	// below would set one off).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if garbageOver(64 << 20) {
		t.Error("just after a collection: more than 64 MiB of garbage")
	}
	garbageSink = make([]byte, 128<<20)
	garbageSink = nil
	if !garbageOver(64 << 20) {
		t.Error("after dropping 128 MiB: no more than 64 MiB of garbage")
	}
}
