package interp

import "testing"

// TestActivityRetired: a task whose statement has issued all its
// operations and waits only for its CPU (an eager send) or for its one
// blocking receive holds no activity while it waits, so every task of an
// SPMD statement reuses the one the task before it gave back, and the
// statement still ends, with its counters, when the task resumes.
func TestActivityRetired(t *testing.T) {
	const n = 64
	for _, tc := range []struct {
		name, src string
		pooled    int // activities in the pool after every task's first event
	}{
		// Each task receives from the one before and sends to the one
		// after: the send, its last operation, leaves its CPU busy. A
		// face (see face.go), which takes no activity at all.
		{"ring", "ALL TASKS t ASYNCHRONOUSLY SEND A 64 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.", 0},
		// Even tasks send as above; odd ones wait in their one blocking
		// receive.
		{"pairs", "TASKS t SUCH THAT t MOD 2 = 0 SEND A 64 BYTE MESSAGE TO TASK t + 1.", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := buildInternal(t, "retire.parley", tc.src)
			s, err := New(p, Options{NumTasks: n, Platform: defaultPlatform(t), MaxEvents: n})
			if err != nil {
				t.Fatal(err)
			}
			s.run() // stops after each task's first event, within the statement
			pooled := len(s.actPool)
			for i := range s.tasks {
				if a := s.tasks[i].act; a != issuedActivity {
					t.Fatalf("task %d after its first event holds %p, want issuedActivity", i, a)
				}
			}
			if pooled != tc.pooled {
				t.Errorf("%d activities in the pool after %d tasks issued theirs, want %d", pooled, n, tc.pooled)
			}
			s.opts.MaxEvents = 0
			s.halted, s.problems, s.problemCount = false, nil, nil
			s.run()
			res := s.result(s.releasePools())
			if !res.OK() {
				t.Fatal(res.Problems)
			}
			for i, ts := range res.Tasks {
				sent, recv := int64(1), int64(1)
				if tc.name == "pairs" {
					sent, recv = int64(1-i%2), int64(i%2)
				}
				if ts.MsgsSent != sent || ts.MsgsReceived != recv || ts.Counters.MsgsSent != sent || ts.Counters.MsgsReceived != recv {
					t.Fatalf("task %d: %d messages sent and %d received (counters %d, %d), want %d and %d", i, ts.MsgsSent, ts.MsgsReceived, ts.Counters.MsgsSent, ts.Counters.MsgsReceived, sent, recv)
				}
			}
		})
	}
}
