package valueflow

import (
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	examples "github.com/parley-hpc/parley/examples/valueflow"
)

// compiled loads and compiles a testdata program once.
func compiled(tb testing.TB, file string) *program {
	tb.Helper()
	needClang(tb)
	mod, err := loadModule([]string{filepath.Join("testdata", file)})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := compile(mod)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// execute runs p's main on args with shadow tracking and returns the
// machine.
func execute(tb testing.TB, p *program, args ...string) *machine {
	tb.Helper()
	m, err := newMachine(p, &Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.runMain("prog", args); err != nil {
		tb.Fatal(err)
	}
	m.sh.flush()
	return m
}

// BenchmarkExecute measures IR instructions executed per second with
// shadow tracking, on a 2-D Jacobi sweep of 128 x 128 points for 10 steps:
// per second of wall time (instr/s) and per second of this process's CPU
// time (instr/cpu-s), which is what one core does when the machine is
// shared. It also reports the bytes the machine keeps per 8-byte word of
// the program's memory.
func BenchmarkExecute(b *testing.B) {
	p := compiled(b, "jacobi2d.c")
	var executed int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for range b.N {
		executed += execute(b, p, "128", "10").executed
	}
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(executed)/b.Elapsed().Seconds(), "instr/s")
	b.ReportMetric(float64(executed)/cpu.Seconds(), "instr/cpu-s")
	b.ReportMetric(bytesPerWord, "B/word")
}

// cpuTime is the user and system time the process has used, all threads.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAnalyze measures the graph, the singletons, the partitions and
// the estimates for 2, 4 and 8 tasks after the same run.
func BenchmarkAnalyze(b *testing.B) {
	m := execute(b, compiled(b, "jacobi2d.c"), "128", "10")
	m.snapshotLive()
	b.ResetTimer()
	for range b.N {
		g := buildGraph(m.sh, m.conform)
		for _, k := range []int{2, 4, 8} {
			if _, err := g.estimate(m.sh, k); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAnalyzeKernels measures, for each kernel of examples/valueflow
// on its measured arguments, what parley analyze does after the run: the
// graph, its partitions into 2, 4 and 8 tasks and the estimates, per
// second of wall time and of CPU time (cpu-ms/op).
func BenchmarkAnalyzeKernels(b *testing.B) {
	needClang(b)
	for _, k := range examples.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			mod, err := loadModule([]string{filepath.Join("..", "..", k.Serial)})
			if err != nil {
				b.Fatal(err)
			}
			p, err := compile(mod)
			if err != nil {
				b.Fatal(err)
			}
			m := execute(b, p, k.Args...)
			m.snapshotLive()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for range b.N {
				g := buildGraph(m.sh, m.conform)
				for _, tasks := range k.Tasks {
					if _, err := g.estimate(m.sh, tasks); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestTenMillionInstructionsFitInAGigabyte runs more than 10^7 IR
// instructions and checks the memory the process took from the system.
func TestTenMillionInstructionsFitInAGigabyte(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run")
	}
	p := compiled(t, "jacobi2d.c")
	runtime.GC()
	m := execute(t, p, "256", "8")
	m.snapshotLive()
	g := buildGraph(m.sh, m.conform)
	if _, err := g.estimate(m.sh, 8); err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if m.executed < 1e7 {
		t.Fatalf("only %d instructions", m.executed)
	}
	t.Logf("%d instructions, %d values, %d flows: %d MB from the system, %d MB estimated", m.executed, len(m.sh.vals), m.sh.flows.len(), ms.Sys>>20, m.footprint()>>20)
	if ms.Sys > 1<<30 {
		t.Errorf("%s bytes taken from the system, more than 1 GB", strconv.FormatUint(ms.Sys, 10))
	}
}
