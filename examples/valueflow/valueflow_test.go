package valueflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/examples/valueflow"
	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/ptrace"
	"github.com/parley-hpc/parley/tracer"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from this run's measurements")

// root is the repository root, seen from this package's directory, where
// go test runs.
const root = "../.."

// cflags are what the examples must build with, warning-free.
var cflags = []string{"-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"}

// TestMPIVolumes builds every kernel's serial and MPI versions, runs the
// MPI version under mpirun on each task count with mpicount preloaded, and
// checks that it prints the serial checksum, that it sent exactly the
// volumes its decomposition implies (worked out independently below), and
// that the golden file holds the same measurements.
func TestMPIVolumes(t *testing.T) {
	mpicc, mpirun, lib := mpiTools(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("cc not found: a C compiler builds the serial kernels")
	}
	// go test caches a passing result keyed on the files the test itself
	// opens; reading the shared header makes an edit to it rerun the test
	// (compile reads each source for the same reason).
	if _, err := os.ReadFile(filepath.Join(root, valueflow.Source, "kernels.h")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tracerLib, _, err := tracer.Build(context.Background(), mpicc, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range valueflow.Kernels() {
		t.Run(k.Name, func(t *testing.T) {
			expect, ok := expected[k.Name]
			if !ok {
				t.Fatalf("no volumes derived for %s: work them out in expected_test.go", k.Name)
			}
			serial := filepath.Join(dir, k.Name)
			compile(t, cc, serial, k.Serial, "-lm")
			parallel := filepath.Join(dir, k.Name+"_mpi")
			compile(t, mpicc, parallel, k.MPI, "-lm")
			out, err := exec.Command(serial, k.Args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", k.Serial, strings.Join(k.Args, " "), err, out)
			}
			wantText, want := checksum(t, out)
			args := make([]int64, len(k.Args))
			for i, a := range k.Args {
				args[i], _ = strconv.ParseInt(a, 10, 64)
			}
			g := valueflow.Golden{Kernel: k.Name, Args: k.Args, Checksum: wantText}
			for _, p := range k.Tasks {
				counts := filepath.Join(dir, fmt.Sprintf("%s-%d", k.Name, p))
				if err := os.Mkdir(counts, 0o755); err != nil {
					t.Fatal(err)
				}
				out := mpiRun(t, mpirun, p, []string{"LD_PRELOAD=" + lib, "MPICOUNT_DIR=" + counts}, parallel, k.Args)
				// The additions happen in another order on P tasks, so the last
				// digits may differ; everything else is computed identically.
				if _, got := checksum(t, out); math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("%d tasks: checksum %v, the serial version prints %v", p, got, want)
				}
				m := collect(t, counts, p)
				if d := cmp.Diff(expect(args, p), volumes{m.P2PBytes, m.CollectiveBytes, m.ExcludedBytes, m.Calls}, cmp.AllowUnexported(volumes{})); d != "" {
					t.Errorf("%d tasks: measured volumes differ from the decomposition's (-want +got):\n%s", p, d)
				}
				g.Results = append(g.Results, m)
				checkTracer(t, mpirun, tracerLib, p, filepath.Join(dir, fmt.Sprintf("%s-%d-trace", k.Name, p)), parallel, k.Args, m)
			}
			checkGolden(t, &g)
		})
	}
}

// checkTracer runs exe on p tasks again, under Parley's own tracer (what
// `parley trace` preloads) writing into dir, and requires its trace to
// show what mpicount measured: the same point-to-point bytes from each
// task to each other, and as many calls of each collective.
func checkTracer(t *testing.T, mpirun, lib string, p int, dir, exe string, args []string, m valueflow.Measurement) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mpiRun(t, mpirun, p, []string{"LD_PRELOAD=" + lib, "PARLEY_TRACE_DIR=" + dir}, exe, args)
	run, err := ptrace.ReadRun(dir)
	if err != nil {
		t.Fatalf("%d tasks: the tracer's trace: %v", p, err)
	}
	p2p := make([][]int64, p)
	calls := map[string]int64{}
	for r := range p2p {
		p2p[r] = make([]int64, p)
		for e := range run.Trace.Events(r) {
			switch {
			case e.Op.IsSend():
				p2p[r][e.Peer] += e.Bytes()
			case e.Op.IsCollective():
				calls[mpiName(e.Op)]++
			}
		}
	}
	if d := cmp.Diff(m.P2PBytes, p2p); d != "" {
		t.Errorf("%d tasks: point-to-point bytes in Parley's trace differ from mpicount's (-mpicount +trace):\n%s", p, d)
	}
	counted := map[string]int64{}
	for op := trace.Barrier; op.IsCollective(); op++ {
		if n := m.Calls[mpiName(op)]; n > 0 {
			counted[mpiName(op)] = n
		}
	}
	if d := cmp.Diff(counted, calls); d != "" {
		t.Errorf("%d tasks: collective calls in Parley's trace differ from mpicount's (-mpicount +trace):\n%s", p, d)
	}
}

// mpiName is a collective operation's MPI function name, as mpicount
// writes it: MPI_Allgatherv for trace.Allgatherv.
func mpiName(op trace.Op) string {
	s := op.String()
	return "MPI_" + strings.ToUpper(s[:1]) + s[1:]
}

// mpiTools finds mpicc and mpirun, or skips the test, and builds mpicount
// into a shared library for LD_PRELOAD.
func mpiTools(t *testing.T) (mpicc, mpirun, lib string) {
	t.Helper()
	mpicc, err1 := exec.LookPath("mpicc")
	mpirun, err2 := exec.LookPath("mpirun")
	if err1 != nil || err2 != nil {
		t.Skip("mpicc or mpirun not found: install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) to measure the MPI kernels")
	}
	lib = filepath.Join(t.TempDir(), "libmpicount.so")
	compile(t, mpicc, lib, "examples/valueflow/mpicount/mpicount.c", "-shared", "-fPIC")
	return mpicc, mpirun, lib
}

// TestMPICount runs mpicount/selftest.c, which makes every call mpicount
// counts, and checks each counting rule (selftestVolumes).
func TestMPICount(t *testing.T) {
	mpicc, mpirun, lib := mpiTools(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "selftest")
	compile(t, mpicc, exe, "examples/valueflow/mpicount/selftest.c")
	const p = 4
	mpiRun(t, mpirun, p, []string{"LD_PRELOAD=" + lib, "MPICOUNT_DIR=" + dir}, exe, nil)
	m := collect(t, dir, p)
	if d := cmp.Diff(selftestVolumes(p), volumes{m.P2PBytes, m.CollectiveBytes, m.ExcludedBytes, m.Calls}, cmp.AllowUnexported(volumes{})); d != "" {
		t.Errorf("mpicount's counts differ from its rules (-want +got):\n%s", d)
	}
}

// compile builds the C file src (relative to the repository root) into exe.
func compile(t *testing.T, compiler, exe, src string, extra ...string) {
	t.Helper()
	path := filepath.Join(root, src)
	if _, err := os.ReadFile(path); err != nil { // see the cache note in TestMPIVolumes
		t.Fatal(err)
	}
	args := append(append(slices.Clone(cflags), "-o", exe, path), extra...)
	if out, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, out)
	}
}

// mpiRun runs exe on p tasks with env (NAME=value pairs: a library to
// preload and where it writes) in every task's environment, and returns
// its output. A run that hangs is killed, with every task it started,
// after two minutes.
func mpiRun(t *testing.T, mpirun string, p int, env []string, exe string, args []string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := []string{"--oversubscribe", "-np", strconv.Itoa(p)}
	for _, e := range env {
		full = append(full, "-x", e)
	}
	full = append(append(full, exe), args...)
	cmd := exec.CommandContext(ctx, mpirun, full...)
	cmd.Env = os.Environ()
	if os.Geteuid() == 0 {
		cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("mpirun %s: %v\n%s", strings.Join(full, " "), err, out.Bytes())
	}
	return out.Bytes()
}

var checksumLine = regexp.MustCompile(`(?m)^checksum (\S+)$`)

// checksum finds the checksum line in a kernel's output and returns it as
// printed and as a number.
func checksum(t *testing.T, out []byte) (string, float64) {
	t.Helper()
	m := checksumLine.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no checksum line in the output:\n%s", out)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatalf("checksum %q: %v", m[1], err)
	}
	return string(m[1]), v
}

// rankCounts is what mpicount writes for one task.
type rankCounts struct {
	Rank       int              `json:"rank"`
	Size       int              `json:"size"`
	P2P        []int64          `json:"p2p_bytes"`
	Collective []int64          `json:"collective_bytes"`
	Excluded   int64            `json:"excluded_bytes"`
	Calls      map[string]int64 `json:"calls"`
}

// collect stacks the p tasks' files in dir into one measurement.
func collect(t *testing.T, dir string, p int) valueflow.Measurement {
	t.Helper()
	m := valueflow.Measurement{Tasks: p, Calls: map[string]int64{}}
	for r := range p {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.json", r)))
		if err != nil {
			t.Fatalf("mpicount wrote no counts for task %d: %v", r, err)
		}
		var c rankCounts
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("task %d's counts: %v\n%s", r, err, data)
		}
		if c.Rank != r || c.Size != p || len(c.P2P) != p || len(c.Collective) != p {
			t.Fatalf("task %d's counts are for task %d of %d with %d and %d peers", r, c.Rank, c.Size, len(c.P2P), len(c.Collective))
		}
		row := make([]int64, p)
		for j := range row {
			row[j] = c.P2P[j] + c.Collective[j]
			m.TotalBytes += row[j]
		}
		m.MatrixBytes = append(m.MatrixBytes, row)
		m.P2PBytes = append(m.P2PBytes, c.P2P)
		m.CollectiveBytes = append(m.CollectiveBytes, c.Collective)
		m.ExcludedBytes += c.Excluded
		for name, n := range c.Calls {
			m.Calls[name] += n
		}
	}
	return m
}

// flatArray is a JSON array of scalars, which MarshalIndent lays out one
// element a line; checkGolden puts it on one line so that a matrix reads as
// a matrix.
var flatArray = regexp.MustCompile(`\[[^\[\]{}]*\]`)

func checkGolden(t *testing.T, g *valueflow.Golden) {
	t.Helper()
	if *update {
		if t.Failed() {
			t.Fatalf("testdata/%s.json left as it was: the measurements are wrong", g.Kernel)
		}
		data, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = flatArray.ReplaceAllFunc(data, func(a []byte) []byte {
			var b bytes.Buffer
			json.Compact(&b, a) // a is valid JSON: MarshalIndent wrote it
			return b.Bytes()
		})
		if err := os.WriteFile(filepath.Join("testdata", g.Kernel+".json"), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := valueflow.ReadGolden(g.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(old, g); d != "" {
		t.Errorf("testdata/%s.json differs from this run (-golden +measured); if the change is meant, run go test -update:\n%s", g.Kernel, d)
	}
}

// TestMeasured: the helper the analyzer's accuracy test calls returns the
// golden figures for every kernel and task count, and says what is wrong
// with a request it cannot answer.
func TestMeasured(t *testing.T) {
	for _, k := range valueflow.Kernels() {
		for _, p := range k.Tasks {
			total, matrix, err := valueflow.Measured(k.Name, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(matrix) != p {
				t.Fatalf("%s on %d tasks: %d matrix rows", k.Name, p, len(matrix))
			}
			var sum int64
			for i, row := range matrix {
				if len(row) != p || row[i] != 0 {
					t.Fatalf("%s on %d tasks: row %d is %v", k.Name, p, i, row)
				}
				for _, b := range row {
					sum += b
				}
			}
			if sum != total || total <= 0 {
				t.Errorf("%s on %d tasks: total %d, the matrix sums to %d", k.Name, p, total, sum)
			}
		}
		for _, src := range []string{k.Serial, k.MPI} {
			if _, err := os.Stat(filepath.Join(root, src)); err != nil {
				t.Errorf("Kernels lists %s: %v", src, err)
			}
		}
	}
	for _, bad := range []struct {
		kernel string
		tasks  int
		want   string
	}{
		{"nosuch", 2, `no kernel "nosuch"`},
		{"matmul", 3, "not measured on 3 tasks (only on [2 4 8])"},
	} {
		if _, _, err := valueflow.Measured(bad.kernel, bad.tasks); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Measured(%q, %d): %v, want an error saying %q", bad.kernel, bad.tasks, err, bad.want)
		}
	}
}

// TestReadmeFigures: README.md states the arguments measured with and the
// golden figures, so a change to either shows there.
func TestReadmeFigures(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range valueflow.Kernels() {
		if args := "| `" + strings.Join(k.Args, " ") + "` ("; !bytes.Contains(readme, []byte(args)) {
			t.Errorf("README.md's kernel table does not show %s's arguments as %q", k.Name, args)
		}
		g, err := valueflow.ReadGolden(k.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range g.Results {
			row := fmt.Sprintf("| `%s` | %d | %d | %d | %d | %d |", k.Name, m.Tasks, m.TotalBytes, sum(m.P2PBytes), sum(m.CollectiveBytes), m.ExcludedBytes)
			if !bytes.Contains(readme, []byte(row)) {
				t.Errorf("README.md's table of measured volumes has no row starting %q", row)
			}
		}
	}
}

func sum(matrix [][]int64) int64 {
	var s int64
	for _, row := range matrix {
		for _, b := range row {
			s += b
		}
	}
	return s
}
