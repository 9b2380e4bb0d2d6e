package interp

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/netmodel"
)

// TestFace: a face statement (see face.go) taken without an activity
// gives the same Result, events included, as the activity path, which a
// Sim takes when told no statement is a face; and the face path is taken,
// a task waiting to send holding faceSending.
func TestFace(t *testing.T) {
	halo, err := os.ReadFile("../examples/halo3d.parley")
	if err != nil {
		t.Fatal(err)
	}
	halo3d := func(points string) string {
		src := strings.Replace(string(halo), `"--points" OR "-n" WITH DEFAULT 64`, `"--points" OR "-n" WITH DEFAULT `+points, 1)
		return strings.Replace(src, `"--steps" OR "-s" WITH DEFAULT 10`, `"--steps" OR "-s" WITH DEFAULT 3`, 1)
	}
	const n = 64
	for _, tc := range []struct {
		name, src string
		waits     bool // on ib-edr, some task waits to send, holding faceSending
	}{
		// Eager faces (8 KiB), each task's NIC still busy with the face
		// before when it comes to a send, and rendezvous ones (32 KiB).
		{"halo 8 KiB", halo3d("32"), true},
		{"halo 32 KiB", halo3d("64"), false},
		// Back to back, eager: the second waits for the first's NIC.
		{"two faces", "ALL TASKS t ASYNCHRONOUSLY SEND A 8192 BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN ALL TASKS t ASYNCHRONOUSLY SEND A 8192 BYTE MESSAGE TO TASK (t + num_tasks - 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.", true},
		// Half the tasks send, half only receive.
		{"some send", "TASKS t SUCH THAT t MOD 2 = 0 ASYNCHRONOUSLY SEND A 8192 BYTE MESSAGE TO TASK t + 1 THEN ALL TASKS AWAIT COMPLETION.", false},
		// Two sources a task, or none, and several receives each.
		{"two sources", "ALL TASKS t ASYNCHRONOUSLY SEND A 1024 BYTE MESSAGE TO TASK t / 2 THEN ALL TASKS AWAIT COMPLETION.", false},
		// Several messages to send: each task's part is no face's, and
		// takes the activity after the face's evaluations.
		{"three messages", "ALL TASKS t ASYNCHRONOUSLY SEND 3 4096 BYTE MESSAGES TO TASK (t + 1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.", false},
	} {
		for _, plat := range []string{netmodel.DefaultPlatform, "torus-bgq"} {
			t.Run(tc.name+" on "+plat, func(t *testing.T) {
				p := buildInternal(t, "face.parley", tc.src)
				platform, err := netmodel.Preset(plat)
				if err != nil {
					t.Fatal(err)
				}
				run := func(faces, step bool) (*Result, bool) {
					s, err := New(p, Options{NumTasks: n, Platform: platform})
					if err != nil {
						t.Fatal(err)
					}
					if !faces {
						s.faces = slices.Repeat([]uint8{2}, len(s.stmts))
					}
					waited := false
					if step {
						// One event at a time, looking for a task
						// waiting to send.
						for s.opts.MaxEvents = 1; ; s.opts.MaxEvents++ {
							s.run()
							if !s.halted {
								break
							}
							for i := range s.tasks {
								waited = waited || s.tasks[i].act == faceSending
							}
							s.halted, s.problems, s.problemCount = false, nil, nil
						}
						s.opts.MaxEvents = 0
					} else {
						s.run()
					}
					if faces && !slices.Contains(s.faces, 1) {
						t.Error("no statement taken as a face")
					}
					return s.result(s.releasePools()), waited
				}
				want, _ := run(false, false)
				got, _ := run(true, false)
				_, waited := run(true, true)
				if !want.OK() {
					t.Fatal(want.Problems)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("as faces: %+v\nwith activities: %+v", got, want)
				}
				if plat == netmodel.DefaultPlatform && waited != tc.waits {
					t.Errorf("a task held faceSending: %v, want %v", waited, tc.waits)
				}
			})
		}
	}
}
