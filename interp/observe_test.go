package interp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// recorder writes what an Observer is told, one line per call, by rank.
type recorder struct{ lines map[int64][]string }

func (r *recorder) add(rank int64, format string, a ...any) {
	r.lines[rank] = append(r.lines[rank], fmt.Sprintf(format, a...))
}

func (r *recorder) Send(rank, peer, bytes int64, tag int32, async bool) {
	r.add(rank, "send %d %d %d %v", peer, bytes, tag, async)
}

func (r *recorder) Recv(rank, peer, bytes int64, tag int32, async bool) {
	r.add(rank, "recv %d %d %d %v", peer, bytes, tag, async)
}

func (r *recorder) Await(rank int64) { r.add(rank, "await") }

func (r *recorder) Collective(rank int64, c netmodel.Collective, alg netmodel.Algorithm, members []int64, me int, tag int32) {
	r.add(rank, "%v n=%d root=%d bytes=%d %s members=%v me=%d", c.Op, c.N, c.Root, c.Bytes, alg, members, me)
}

func (r *recorder) Compute(rank int64, d netmodel.Duration, flops int64) {
	r.add(rank, "compute %s %d", d, flops)
}

func (r *recorder) Sleep(rank int64, d netmodel.Duration) { r.add(rank, "sleep %s", d) }

// TestObserver: each operation is reported once per task when issued: a
// collective once per call (three broadcasts for three messages), not per
// step; an AWAIT COMPLETION once although the task blocks in it (1 MiB
// goes by rendezvous); a blocked receive although it never completes.
func TestObserver(t *testing.T) {
	p := build(t, "obs.parley", `REQUIRE LANGUAGE VERSION "1.5".

TASK 0 MULTICASTS 3 8 BYTE MESSAGES TO ALL OTHER TASKS.

TASK 0 SENDS 2 100 KILOBYTE MESSAGES TO TASK 1.

ALL TASKS t ASYNCHRONOUSLY SEND A 1 MEGABYTE MESSAGE TO TASK (t + 1) MOD num_tasks.

ALL TASKS AWAIT COMPLETION.

TASKS t SUCH THAT t > 0 SYNCHRONIZE.

TASK 1 COMPUTES FOR 2 MICROSECONDS.

TASK 2 SLEEPS FOR 3 MICROSECONDS.

TASK 2 COMPUTES 4000 FLOPS.

TASK 1 RECEIVES A 1 BYTE MESSAGE FROM TASK 2.
`)
	plat, err := netmodel.Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{lines: map[int64][]string{}}
	res, err := interp.Run(p, interp.Options{NumTasks: 3, Platform: plat, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() {
		t.Error("the unmatched receive did not deadlock")
	}
	bcast := "bcast n=3 root=0 bytes=8 binomial members=[] me=%d"
	want := map[int64][]string{
		0: {
			fmt.Sprintf(bcast, 0), fmt.Sprintf(bcast, 0), fmt.Sprintf(bcast, 0),
			"send 1 102400 0 false", "send 1 102400 0 false",
			"recv 2 1048576 0 true", "send 1 1048576 0 true", "await",
		},
		1: {
			fmt.Sprintf(bcast, 1), fmt.Sprintf(bcast, 1), fmt.Sprintf(bcast, 1),
			"recv 0 102400 0 false", "recv 0 102400 0 false",
			"recv 0 1048576 0 true", "send 2 1048576 0 true", "await",
			"barrier n=2 root=0 bytes=0 dissemination members=[1 2] me=0",
			"compute 2us -1",
			"recv 2 1 0 false",
		},
		2: {
			fmt.Sprintf(bcast, 2), fmt.Sprintf(bcast, 2), fmt.Sprintf(bcast, 2),
			"recv 1 1048576 0 true", "send 0 1048576 0 true", "await",
			"barrier n=2 root=0 bytes=0 dissemination members=[1 2] me=1",
			// 4000 flops at 2 Tflop/s.
			"sleep 3us", "compute 2ns 4000",
		},
	}
	for r := range int64(3) {
		got := strings.Join(rec.lines[r], "\n")
		if w := strings.Join(want[r], "\n"); got != w {
			t.Errorf("task %d was reported:\n%s\nwant:\n%s", r, got, w)
		}
	}
}
