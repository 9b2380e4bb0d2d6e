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
// Both report the cut and the CPU time per run, cpu-s (user and system;
// on a shared machine it varies less than the wall time). gpmetis's times
// include starting the program and reading the 41 MB graph file, so its
// own measure of the partitioning alone is reported too, as metis-s.
const (
	benchK    = 64
	benchSide = 100
)

func BenchmarkKWay3DGrid1M(b *testing.B) {
	g := grid3D(benchSide, benchSide, benchSide)
	b.ReportAllocs()
	var cut int64
	runs := 0
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		runs++
		_, c, err := KWay(g, benchK, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		cut = c
	}
	b.ReportMetric(float64(cut), "cut")
	if cpu1, ok := processCPU(); cpuOK && ok {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(runs), "cpu-s")
	}
}

// metisTime finds the partitioning time in gpmetis's report.
var metisTime = regexp.MustCompile(`Partitioning:\s*([0-9.]+) sec`)

func BenchmarkGpmetis3DGrid1M(b *testing.B) {
	if _, err := exec.LookPath("gpmetis"); err != nil {
		b.Skip("gpmetis is not installed (Debian package metis); nothing to compare with")
	}
	g := grid3D(benchSide, benchSide, benchSide)
	file := writeGraphFile(b, b.TempDir(), g)
	var cut int64
	var secs float64
	var cpu time.Duration
	runs := 0
	for b.Loop() {
		runs++
		part, out, used := runGpmetis(b, file, g.N(), benchK, defaultImbalance, 1)
		cpu += used
		cut = g.Cut(part)
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
	b.ReportMetric(float64(cut), "cut")
	b.ReportMetric(cpu.Seconds()/float64(runs), "cpu-s")
	b.ReportMetric(secs/float64(runs), "metis-s")
}
