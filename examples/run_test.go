package examples_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
)

// counters are one task's predeclared counters at the end of a run, and
// its program messages over the whole run (warmups included).
type counters struct {
	task                                     int64
	msgsSent, bytesSent, msgsRecv, bytesRecv int64 // the counters
	totalSent                                int64 // every program message the task sent
}

// expectation is what an example's default run must produce, worked out by
// hand from the program text (the comments show the arithmetic).
type expectation struct {
	tasks    []counters
	total    int64  // program messages sent by all tasks
	problem  string // the kind of problem the run must report, if any
	output   int    // lines of OUTPUTS
	logTasks int    // tasks that log something
}

var expected = map[string]expectation{
	// Collectives do not touch the counters.
	"alltoall.parley":       {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	"allreduce-loop.parley": {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	"barrier.parley":        {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	"broadcast.parley":      {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	"compute-model.parley":  {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	"gather-scatter.parley": {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	"reduce.parley":         {tasks: []counters{{task: 0}, {task: 7}}, logTasks: 1},
	// Nobody ever sends: every task waits for its left neighbour.
	"deadlock-ring.parley": {tasks: []counters{{task: 0}, {task: 7}}, problem: "deadlock"},
	// 4x4 mesh, no wraparound, 4096-byte messages; counters reset every
	// repetition, so they hold one exchange; 21 exchanges in all (one warmup).
	// Corner task 0 has 2 neighbours, interior task 5 has 4; the mesh has 24
	// edges, 48 directed, so 48*21 = 1008 messages.
	"halo2d.parley": {tasks: []counters{{0, 2, 8192, 2, 8192, 42}, {5, 4, 16384, 4, 16384, 84}}, total: 1008, logTasks: 16},
	// 6 faces of 64*64*8 = 32768 bytes, 10 steps, counters reset once.
	"halo3d.parley": {tasks: []counters{{0, 60, 1966080, 60, 1966080, 60}, {63, 60, 1966080, 60, 1966080, 60}}, total: 3840, logTasks: 64},
	// Counters reset every round; with --seed 1 the last hot spot is task
	// 7, which hears from the 7 others (32 KiB each); 10 rounds of 7. The
	// hot spots are 2 6 6 0 3 3 2 1 5 7: task 0 sends in 9 rounds, task 7
	// in 9, and 7 distinct tasks log.
	"hotspot.parley": {tasks: []counters{{0, 1, 32768, 0, 0, 9}, {7, 0, 0, 7, 229376, 9}}, total: 70, output: 10, logTasks: 7},
	// 3x3x3 cube without wraparound, s=30, 3 fields of doubles: a face is
	// 30*30*24 = 21600 bytes, an edge 720, a corner 24. Corner task 0: 3
	// faces, 3 edges, 1 corner = 66984 bytes a step; centre task 13: 6, 12
	// and 8 = 138432. Ten steps, counters reset once. All tasks: (2+3+2)^3 -
	// 27 = 316 neighbour pairs a step.
	"lulesh.parley": {tasks: []counters{{0, 70, 669840, 70, 669840, 70}, {13, 260, 1384320, 260, 1384320, 260}}, total: 3160, logTasks: 27},
	// Task 0 resets each burst: 64 messages of the last size, 4 MiB, and the
	// empty acknowledgement. Task 1 never resets; warmups are undone: 20
	// bursts of 64 for each of the 13 sizes 1 KiB..4 MiB (sum 2^23-2^10), one
	// acknowledgement per burst. Sent in all: 13*22*(64+1).
	"pingpong-bandwidth.parley": {tasks: []counters{{0, 64, 268435456, 1, 0, 18304}, {1, 260, 0, 16640, 1280 * (1<<23 - 1<<10), 286}}, total: 18590, logTasks: 1},
	// Task 0 resets each round trip: one message of the last size (1 MiB)
	// each way. Task 1: 100 counted round trips for each of the 22 sizes 0,
	// 1, 2, ..., 2^20 (sum 2^21-1). Sent in all: 2*103*22.
	"pingpong-latency.parley": {tasks: []counters{{0, 1, 1048576, 1, 1048576, 2266}, {1, 2200, 209715100, 2200, 209715100, 2266}}, total: 4532, logTasks: 1},
	// Counters reset every shift: one 64 KiB message each way; 52 shifts.
	"ring.parley": {tasks: []counters{{0, 1, 65536, 1, 65536, 52}, {7, 1, 65536, 1, 65536, 52}}, total: 416, logTasks: 8},
	// 4x4 grid, 8 sweeps, counters reset once: task 0 sends east and south,
	// task 15 receives from west and north, task 5 does both; 24 edges.
	"wavefront.parley": {tasks: []counters{{0, 16, 65536, 0, 0, 16}, {5, 16, 65536, 16, 65536, 16}, {15, 0, 0, 16, 65536, 0}}, total: 192, logTasks: 1},
}

// TestExamplesRun runs every example with its defaults on the ib-edr preset
// and compares the counters with the hand-computed values above.
func TestExamplesRun(t *testing.T) {
	names, _ := fs.Glob(examples.FS, "*.parley")
	plat, err := netmodel.Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, ok := expected[name]
			if !ok {
				t.Fatalf("no expected counters for %s: work them out and add them", name)
			}
			p := buildExample(t, name)
			var out bytes.Buffer
			sim, err := interp.New(p, interp.Options{NumTasks: tasksFor(name), Platform: plat, Seed: 1, Output: &out, Logs: true})
			if err != nil {
				t.Fatal(err)
			}
			res := sim.Run()
			switch {
			case want.problem == "" && !res.OK():
				t.Fatalf("problems: %v", res.Problems)
			case want.problem != "" && (res.OK() || res.Problems[0].Kind != want.problem):
				t.Fatalf("want a %s problem, got %v", want.problem, res.Problems)
			}
			if want.problem == "" && res.Predicted <= 0 {
				t.Errorf("predicted run time %v", res.Predicted)
			}
			var total int64
			for i := range res.Tasks {
				total += res.Tasks[i].MsgsSent
			}
			if total != want.total {
				t.Errorf("%d program messages sent in all, want %d", total, want.total)
			}
			for _, w := range want.tasks {
				got := res.Tasks[w.task]
				c := got.Counters
				if c.MsgsSent != w.msgsSent || c.BytesSent != w.bytesSent || c.MsgsReceived != w.msgsRecv || c.BytesReceived != w.bytesRecv {
					t.Errorf("task %d counters: sent %d msgs %d bytes, received %d msgs %d bytes; want %d %d %d %d",
						w.task, c.MsgsSent, c.BytesSent, c.MsgsReceived, c.BytesReceived, w.msgsSent, w.bytesSent, w.msgsRecv, w.bytesRecv)
				}
				if got.MsgsSent != w.totalSent {
					t.Errorf("task %d sent %d program messages over the run, want %d", w.task, got.MsgsSent, w.totalSent)
				}
			}
			if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != want.output {
				t.Errorf("%d lines of output, want %d:\n%s", lines, want.output, out.String())
			}
			dir := t.TempDir()
			if err := sim.WriteLogs(dir, "run"); err != nil {
				t.Fatal(err)
			}
			logs, _ := fs.Glob(osDirFS(dir), "*.log")
			wantLogs := tasksFor(name)
			if !p.UsesLogs() {
				wantLogs = 0 // as with coNCePTuaL, a program that never logs writes none
			}
			if int64(len(logs)) != wantLogs {
				t.Errorf("%d log files, want %d", len(logs), wantLogs)
			}
			if n := logTasksWithData(t, dir, logs); n != want.logTasks {
				t.Errorf("%d tasks logged data, want %d", n, want.logTasks)
			}
		})
	}
}

func osDirFS(dir string) fs.FS { return os.DirFS(dir) }

// logTasksWithData counts the logs that hold at least one table.
func logTasksWithData(t *testing.T, dir string, logs []string) int {
	t.Helper()
	n := 0
	for _, name := range logs {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lf, err := logfile.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(lf.Tables) > 0 {
			n++
		}
	}
	return n
}
