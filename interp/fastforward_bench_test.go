//go:build unix

package interp_test

import (
	"io/fs"
	"reflect"
	"testing"
	"time"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// BenchmarkFastForwardHalo3D4096 runs the 3-D halo on 4,096 tasks for
// 2,000 steps without and with fast-forward, in the same iteration, checks
// the predictions are identical and reports both wall and CPU times and
// their ratios. Slow (the full run); run it on its own, once:
//
//	go test ./interp -run '^$' -bench FastForwardHalo3D4096 -benchtime 1x
func BenchmarkFastForwardHalo3D4096(b *testing.B) {
	src, err := fs.ReadFile(examples.FS, "halo3d.parley")
	if err != nil {
		b.Fatal(err)
	}
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		b.Fatal(err)
	}
	p := build(b, "halo3d.parley", string(src))
	opts := interp.Options{NumTasks: 4096, Platform: plat,
		Args: []string{"--px", "16", "--py", "16", "--pz", "16", "--steps", "2000"}}
	var wall, cpu [2]time.Duration
	for b.Loop() {
		var res [2]*interp.Result
		for i, ff := range []bool{false, true} {
			opts.FastForward = ff
			w, c := time.Now(), cpuTime(b)
			r, err := interp.Run(p, opts)
			if err != nil {
				b.Fatal(err)
			}
			wall[i] += time.Since(w)
			cpu[i] += cpuTime(b) - c
			res[i] = r
		}
		if res[1].FastForward == nil || !res[0].OK() {
			b.Fatalf("no fast-forward notes, or problems: %v", res[0].Problems)
		}
		res[1].FastForward = nil
		if !reflect.DeepEqual(res[0], res[1]) {
			b.Fatalf("predictions differ: %s vs %s", res[0].Predicted, res[1].Predicted)
		}
	}
	n := float64(b.N)
	b.ReportMetric(wall[0].Seconds()/n, "full-wall-s/op")
	b.ReportMetric(wall[1].Seconds()/n, "ff-wall-s/op")
	b.ReportMetric(cpu[0].Seconds()/n, "full-cpu-s/op")
	b.ReportMetric(cpu[1].Seconds()/n, "ff-cpu-s/op")
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "wall-speedup")
	b.ReportMetric(cpu[0].Seconds()/cpu[1].Seconds(), "cpu-speedup")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	c, ok := processCPU()
	if !ok {
		b.Fatal("no CPU time on this system")
	}
	return c
}
