package partition

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// The grid benchmarks partition the 100x100x100 grid (a million vertices,
// three million edges) into 64 parts, with KWay and with gpmetis; run them
// in one go to compare:
//
//	go test ./partition -run '^$' -bench 3DGrid1M -benchmem -benchtime 1x
//
// The Volume variants do the same with the Volume objective and
// gpmetis -objtype=vol, and report the volume too:
//
//	go test ./partition -run '^$' -bench 'Volume3DGrid1M' -benchmem -benchtime 1x
//
// All report the cut and the CPU time per run, cpu-s (user and system;
// on a shared machine it varies less than the wall time). gpmetis's times
// include starting the program and reading the 41 MB graph file, so its
// own measure of the partitioning alone is reported too, as metis-s.
const (
	benchK    = 64
	benchSide = 100
)

func BenchmarkKWay3DGrid1M(b *testing.B)       { benchKWay(b, Cut) }
func BenchmarkKWayVolume3DGrid1M(b *testing.B) { benchKWay(b, Volume) }

func benchKWay(b *testing.B, obj Objective) {
	g := grid3D(benchSide, benchSide, benchSide)
	b.ReportAllocs()
	var part []int32
	var cut int64
	runs := 0
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		runs++
		p, c, err := KWay(g, benchK, Options{Seed: 1, Objective: obj})
		if err != nil {
			b.Fatal(err)
		}
		part, cut = p, c
	}
	b.ReportMetric(float64(cut), "cut")
	if obj == Volume {
		b.ReportMetric(float64(g.Volume(part)), "volume")
	}
	if cpu1, ok := processCPU(); cpuOK && ok {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(runs), "cpu-s")
	}
}

// metisTime finds the partitioning time in gpmetis's report.
var metisTime = regexp.MustCompile(`Partitioning:\s*([0-9.]+) sec`)

func BenchmarkGpmetis3DGrid1M(b *testing.B)       { benchGpmetis(b, "cut") }
func BenchmarkGpmetisVolume3DGrid1M(b *testing.B) { benchGpmetis(b, "vol") }

func benchGpmetis(b *testing.B, objtype string) {
	if _, err := exec.LookPath("gpmetis"); err != nil {
		b.Skip("gpmetis is not installed (Debian package metis); nothing to compare with")
	}
	g := grid3D(benchSide, benchSide, benchSide)
	file := writeGraphFile(b, b.TempDir(), g)
	var part []int32
	var secs float64
	var cpu time.Duration
	runs := 0
	for b.Loop() {
		runs++
		p, out, used := runGpmetis(b, file, g.N(), benchK, defaultImbalance, 1, "-objtype="+objtype)
		cpu += used
		part = p
		m := metisTime.FindSubmatch(out)
		if m == nil {
			b.Fatalf("no partitioning time in gpmetis's output:\n%s", out)
		}
		s, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			b.Fatal(err)
		}
		secs += s
	}
	b.ReportMetric(float64(g.Cut(part)), "cut")
	if objtype == "vol" {
		b.ReportMetric(float64(g.Volume(part)), "volume")
	}
	b.ReportMetric(cpu.Seconds()/float64(runs), "cpu-s")
	b.ReportMetric(secs/float64(runs), "metis-s")
}
