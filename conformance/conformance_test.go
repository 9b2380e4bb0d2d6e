package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
)

const (
	envInstall = "PARLEY_NCPTL"     // the real coNCePTuaL's install prefix
	envSource  = "PARLEY_NCPTL_SRC" // its source tree, for tests/*.ncptl
)

// setup is how a program runs: on how many tasks and with which options,
// chosen so that each run takes a second or two on two cores. A program
// without one runs on 4 tasks, with mpitest.ExampleArgs if it is one of
// Parley's examples, else with its defaults.
type setup struct {
	tasks int64
	args  string // separated by spaces
}

var setups = map[string]setup{
	// coNCePTuaL's examples (share/conceptual/examples).
	"ncptl/all-alignments":  {2, "--maxofs=64 --reps=3 --size=1024"},
	"ncptl/bisect":          {4, "--trials=5 --bytes=1024 --nummsgs=5"},
	"ncptl/burst":           {2, "--maxburst=8 --maxbytes=1024 --reps=3"},
	"ncptl/butterfly":       {4, "--trials=10"},
	"ncptl/contention":      {4, "--minsize=1024 --maxsize=1024 --reps=5"},
	"ncptl/fixedvol":        {2, "--volume=4096 --trials=3"},
	"ncptl/floodreceiver":   {4, "--reps=5"},
	"ncptl/hotpotato":       {4, "--trials=100"},
	"ncptl/hotspot":         {4, "--burstsize=10 --trials=3 --maxbytes=64"},
	"ncptl/hycom":           {4, "--xdim=2 --ydim=2 --iter=5"},
	"ncptl/iotest":          {4, "--mbytes=1 --reps=1"},
	"ncptl/latency-all":     {3, "--reps=10 --maxbytes=1024"},
	"ncptl/latency":         {2, "--reps=100 --maxbytes=65536"},
	"ncptl/multicast":       {4, "--reps=5 --maxbytes=1024"},
	"ncptl/noise":           {2, "--accesses=1000 --timings=10"},
	"ncptl/osu_latency":     {2, "--max-size=1024 --loop=100 --skip=10 --loop-large=10 --skip-large=2"},
	"ncptl/ping-all":        {3, "--small-reps=10 --large-reps=2 --maxsize=4096"},
	"ncptl/pipeline":        {4, "--msgsize=8192 --reps=3"},
	"ncptl/recvqueue":       {3, "--maxposts=8 --reps=5"},
	"ncptl/red-blue-2Dmesh": {4, "--width=2 --height=2 --bytes=1024 --reps=5"},
	"ncptl/ringtest":        {4, "--reps=10"},
	"ncptl/stencil27":       {4, "--xdim=2 --ydim=2 --zdim=1 --reps=5 --msgsize=1024"},
	"ncptl/sw-multicast":    {4, "--maxarity=2 --reps=3 --size=1024"},
	"ncptl/sweep1d":         {4, "--reps=5"},
	"ncptl/sync-vs-async":   {2, "--bytes=1024 --reps=5"},
	"ncptl/syncdelays":      {3, ""},
	"ncptl/syncpipe":        {4, "--columns=2 --reps=10 --bytes=1024"},
	"ncptl/throughput":      {2, "--reps=10 --maxbytes=65536"},
	"ncptl/verifyradix":     {4, "--bytes=1024 --iters=10 --radix=4"},
	// coNCePTuaL's tests (PARLEY_NCPTL_SRC/tests).
	"tests/regresstest": {4, "--reps=1"},
	// Parley's examples run on 4 tasks with mpitest.ExampleArgs.
	// Probes of known differences (testdata).
	"probe/float-divide-by-zero": {2, ""},
	"probe/geometric-rounding":   {2, ""},
	"probe/let-shadow":           {2, ""},
	"probe/no-log":               {2, ""},
	"probe/reassign":             {3, ""},
	"probe/reduce-to-expression": {6, ""},
}

// scope says between which sides an aspect of a run is compared.
type scope int

const (
	compared   scope = iota // between all three
	parleyOnly              // between Parley's interpreter and its C, which draw the same random numbers; coNCePTuaL draws others
	nowhere                 // it depends on the machine's timing
)

// known is a difference the harness expects: not a defect, but something
// three runs of a program on different machinery cannot make agree.
// Aspects it does not name are compared between all three sides.
type known struct {
	why    string
	notRun bool // nothing is run
	// The real compiler rejects the program, which uses Parley's
	// extensions: the harness checks that it still does and runs nothing
	// (codegen's differential test compares Parley's two sides).
	extension bool
	counts    scope
	outputs   scope
	drawn     *regexp.Regexp // OUTPUTS lines that print random draws: compared between Parley's sides only
	logs      scope          // every LOG value; timing-dependent columns are left out anyway
}

var exclusions = map[string]known{
	"ncptl/verifyall": {notRun: true,
		why: "its --duration is in whole minutes, at least one, of timed verification loops"},
	"ncptl/beff": {notRun: true,
		why: "216 timed loops (FOR 4 MILLISECONDS, run as often as the machine allows) and random processor assignment leave nothing deterministic to compare, for a minute of running"},
	"ncptl/bisect": {counts: parleyOnly, logs: parleyOnly,
		why: "tasks are assigned to random processors: which rank talks to which depends on the generator"},
	"ncptl/iotest": {counts: parleyOnly, outputs: parleyOnly, logs: parleyOnly,
		why: "tasks are assigned to random processors: which rank is an I/O node depends on the generator"},
	"tests/regresstest": {counts: nowhere, drawn: regexp.MustCompile(`^Random funcs: `),
		why: "timed loops (FOR 10 MICROSECONDS) send as often as the machine allows, and its random functions print their draws"},
	"parley/hotspot": {counts: parleyOnly, outputs: parleyOnly, logs: parleyOnly,
		why: "the hot spot is A RANDOM TASK: Parley draws it from Go's generator, coNCePTuaL from its own"},
	"parley/alltoall":         {extension: true, why: "EXCHANGE"},
	"parley/compute-model":    {extension: true, why: "COMPUTES ... FLOPS AND ... MEMORY TRAFFIC"},
	"parley/gather-scatter":   {extension: true, why: "SCATTERS and GATHERS"},
	"parley/halo3d":           {extension: true, why: "COMPUTES ... FLOPS"},
	"parley/lulesh":           {extension: true, why: "x - ABS(y) subtracts; coNCePTuaL takes a - before a keyword for white space"},
	"parley/pingpong-latency": {extension: true, why: "RANGES OVER (parameter sweeps)"},
	"parley/reduce":           {extension: true, why: "USING OPERATION"},
}

// program is one program to run three ways.
type program struct {
	name  string // "ncptl/latency": where it comes from and its base name
	path  string // the file the real compiler reads
	src   []byte
	tasks int64
	args  []string
	known
}

func (p *program) base() string { return filepath.Base(p.name) }

// programs lists every program the harness runs, in a stable order.
func programs(t *testing.T, install, source string) []*program {
	var out []*program
	add := func(group, path string, src []byte) {
		name := group + "/" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".ncptl"), ".parley")
		p := &program{name: name, path: path, src: src, tasks: 4, known: exclusions[name]}
		if s, ok := setups[name]; ok {
			p.tasks, p.args = s.tasks, strings.Fields(s.args)
		} else if group == "parley" {
			p.args = mpitest.ExampleArgs[filepath.Base(path)]
		}
		out = append(out, p)
	}
	files := func(group, glob string) {
		paths, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			add(group, path, src)
		}
	}
	files("ncptl", filepath.Join(install, "share", "conceptual", "examples", "*.ncptl"))
	if len(out) == 0 {
		t.Fatalf("%s=%s holds no share/conceptual/examples/*.ncptl: is it coNCePTuaL's install prefix?", envInstall, install)
	}
	if source != "" {
		n := len(out)
		files("tests", filepath.Join(source, "tests", "*.ncptl"))
		if len(out) == n {
			t.Fatalf("%s=%s holds no tests/*.ncptl: is it coNCePTuaL's source tree?", envSource, source)
		}
	}
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range names {
		src, _ := fs.ReadFile(examples.FS, name)
		// The real compiler reads files: give it a copy.
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		add("parley", path, src)
	}
	files("probe", filepath.Join("testdata", "*.ncptl"))
	// Entries for programs that are gone would hide nothing but mislead.
	found := map[string]bool{}
	for _, p := range out {
		found[p.name] = true
	}
	for _, names := range []iter.Seq[string]{maps.Keys(setups), maps.Keys(exclusions)} {
		for name := range names {
			if !found[name] && (source != "" || !strings.HasPrefix(name, "tests/")) {
				t.Errorf("setups or exclusions name %s, which is no program: take it out", name)
			}
		}
	}
	return out
}

// TestConformance runs every program three ways and requires them to agree.
func TestConformance(t *testing.T) {
	install := os.Getenv(envInstall)
	if install == "" {
		t.Skipf("%s is not set: set it to the install prefix of a real coNCePTuaL 1.5.1b (docs/conformance.md says how to build one) to hold Parley to it", envInstall)
	}
	ncptl := filepath.Join(install, "bin", "ncptl")
	if _, err := os.Stat(ncptl); err != nil {
		t.Fatalf("%s=%s: %v: set it to the prefix coNCePTuaL was installed under", envInstall, install, err)
	}
	mpicc, mpirun := mpitest.Tools(t)
	h := &harness{install: install, ncptl: ncptl, mpicc: mpicc, mpirun: mpirun, shim: buildShim(t, mpicc)}
	progs := programs(t, install, os.Getenv(envSource))

	var mu sync.Mutex
	verdicts := map[string]string{}
	// At most two programs at a time: each runs 2 to 6 ranks under mpirun,
	// on a 2-core machine.
	slots := make(chan struct{}, 2)
	t.Run("programs", func(t *testing.T) {
		for _, p := range progs {
			t.Run(p.name, func(t *testing.T) {
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				// A fatal error ends the subtest early: record it anyway.
				v := "stopped by an error"
				defer func() {
					if t.Failed() {
						v = "FAILS: " + v
					}
					mu.Lock()
					verdicts[p.name] = v
					mu.Unlock()
				}()
				v = h.check(t, p)
			})
		}
	})
	var table strings.Builder
	fmt.Fprintf(&table, "%-32s %5s  %s\n", "program", "ranks", "verdict")
	for _, p := range progs {
		if verdicts[p.name] == "" {
			continue // not selected by -run
		}
		fmt.Fprintf(&table, "%-32s %5d  %s\n", p.name, p.tasks, verdicts[p.name])
	}
	t.Logf("results:\n%s", table.String())
}

type harness struct {
	install, ncptl, mpicc, mpirun string
	shim                          string // the PMPI counting object
}

// buildShim compiles testdata/pmpi_counts.c once.
func buildShim(t *testing.T, mpicc string) string {
	obj := filepath.Join(t.TempDir(), "pmpi_counts.o")
	out, err := exec.Command(mpicc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-c", filepath.Join("testdata", "pmpi_counts.c"), "-o", obj).CombinedOutput()
	if err != nil {
		t.Fatalf("mpicc pmpi_counts.c: %v\n%s", err, out)
	}
	return obj
}

// The three sides, in the order results are shown.
const (
	sideReal = iota
	sideInterp
	sideC
	numSides
)

var sideNames = [numSides]string{"coNCePTuaL c_mpi", "Parley interpreter", "Parley C"}

// outcome is what one side's run gave.
type outcome struct {
	status  string       // "exited normally", "failed", "deadlocked"
	detail  string       // the error or problems, for messages
	counts  map[int64]ct // per rank; nil where not counted
	outputs []string     // OUTPUTS lines, sorted
	logs    map[int64]*logfile.File
}

// ct is one rank's point-to-point totals.
type ct struct{ msgsSent, msgsRecv, bytesSent, bytesRecv int64 }

func (c ct) String() string {
	return fmt.Sprintf("%d msgs/%d B sent, %d msgs/%d B received", c.msgsSent, c.bytesSent, c.msgsRecv, c.bytesRecv)
}

// runTimeout bounds one run; a run the interpreter finds deadlocked gets
// deadlockTimeout to show that it hangs.
const (
	runTimeout      = 30 * time.Second
	deadlockTimeout = 5 * time.Second
)

// check runs p three ways and compares; it returns the verdict for the
// results table.
func (h *harness) check(t *testing.T, p *program) string {
	if p.notRun {
		return "excluded: " + p.why
	}
	if p.extension {
		return "excluded: a Parley extension (" + p.why + "); " + h.rejected(t, p)
	}
	dir := t.TempDir()
	prog := mpitest.Build(t, p.path, p.src)
	var res [numSides]*outcome
	var took [numSides]time.Duration
	run := func(side int, f func() *outcome) {
		start := time.Now()
		res[side] = f()
		took[side] = time.Since(start).Round(time.Millisecond)
	}
	run(sideInterp, func() *outcome { return h.interpret(t, p, prog, filepath.Join(dir, "interp")) })
	timeout := runTimeout
	if res[sideInterp].status == "deadlocked" {
		timeout = deadlockTimeout
	}
	run(sideC, func() *outcome { return h.parleyC(t, p, prog, filepath.Join(dir, "c"), timeout) })
	run(sideReal, func() *outcome { return h.real(t, p, filepath.Join(dir, "real"), timeout) })
	t.Logf("compiling and running took %v (real), %v (interpreter), %v (Parley C)", took[sideReal], took[sideInterp], took[sideC])
	return compare(t, p, prog, res)
}

// interpret runs p through Parley's interpreter.
func (h *harness) interpret(t *testing.T, p *program, prog *ir.Program, dir string) *outcome {
	plat, err := netmodel.Resolve(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sim, err := interp.New(prog, interp.Options{NumTasks: p.tasks, Args: p.args, Platform: plat, Seed: 1, Output: &out, Logs: true})
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	r := sim.Run()
	if err := sim.WriteLogs(dir, p.base()); err != nil {
		t.Fatal(err)
	}
	o := &outcome{status: "exited normally", outputs: mpitest.Lines(out.String()), counts: map[int64]ct{}}
	for _, pr := range r.Problems {
		if pr.Kind == "deadlock" {
			o.status = "deadlocked"
		} else if o.status != "deadlocked" {
			o.status = "failed"
		}
		o.detail += pr.Error() + "\n"
	}
	for i, ts := range r.Tasks {
		o.counts[int64(i)] = ct{ts.MsgsSent, ts.MsgsReceived, ts.BytesSent, ts.BytesReceived}
	}
	o.logs = readLogs(t, dir, p.base(), p.tasks)
	return o
}

// parleyC compiles p with Parley's C backend and runs it under mpirun.
func (h *harness) parleyC(t *testing.T, p *program, prog *ir.Program, dir string, timeout time.Duration) *outcome {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := mpitest.Compile(t, h.mpicc, dir, prog, h.shim)
	args := append(slices.Clone(p.args), "--logfile", filepath.Join(dir, p.base()+"-%d.log"))
	o := h.mpiRun(t, p, exe, dir, args, timeout)
	// Parley's logs end with per-task totals: they must be what MPI saw.
	for rank, f := range o.logs {
		if c, ok := o.counts[rank]; ok && mpitest.Footer(f, "Messages sent") != "" {
			fc := ct{total(f, "Messages sent"), total(f, "Messages received"), total(f, "Bytes sent"), total(f, "Bytes received")}
			if fc != c {
				t.Errorf("Parley C, rank %d: the log's totals (%v) are not what MPI was handed (%v)", rank, fc, c)
			}
		}
	}
	return o
}

func total(f *logfile.File, key string) int64 {
	n, _ := f.Total(key)
	return n
}

// rejected requires the real compiler to refuse p, and returns its
// complaint.
func (h *harness) rejected(t *testing.T, p *program) string {
	out, err := exec.Command(h.ncptl, p.path, "--quiet", "--backend=c_mpi", "--no-compile", "--output="+filepath.Join(t.TempDir(), "x.c")).CombinedOutput()
	if err == nil {
		t.Errorf("the real compiler now accepts %s: take it out of the exclusions", p.name)
		return "the real compiler now accepts it"
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return "the real compiler says " + filepath.Base(first)
}

// real compiles p with the real coNCePTuaL's c_mpi backend, links it with
// the counting shim, and runs it under mpirun.
func (h *harness) real(t *testing.T, p *program, dir string, timeout time.Duration) *outcome {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfile := filepath.Join(dir, p.base()+".c")
	// The program comes first: options before it go to the backend, which
	// then reads the program from standard input.
	cmd := exec.Command(h.ncptl, p.path, "--quiet", "--backend=c_mpi", "--no-compile", "--output="+cfile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the real compiler: %v\n%s", err, out)
	}
	exe := filepath.Join(dir, p.base())
	lib := filepath.Join(h.install, "lib")
	cmd = exec.Command(h.mpicc, "-O2", "-I"+filepath.Join(h.install, "include"), cfile, h.shim,
		"-L"+lib, "-Wl,-rpath,"+lib, "-lncptl", "-lm", "-o", exe)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mpicc (real coNCePTuaL's C): %v\n%s", err, out)
	}
	// Its log template is "<program>-%p.log" in the working directory.
	// NCPTL_FAST_INIT skips the run-time's timer calibration, seconds of
	// spinning per run on an oversubscribed machine that only timings,
	// which are not compared, depend on.
	return h.mpiRun(t, p, exe, dir, p.args, timeout, "NCPTL_FAST_INIT=1")
}

// mpiRun runs a compiled program linked with the shim, in dir, and reads
// back its counts, output and logs.
func (h *harness) mpiRun(t *testing.T, p *program, exe, dir string, args []string, timeout time.Duration, env ...string) *outcome {
	out, err := mpitest.Run(t, h.mpirun, exe, p.tasks, args, timeout, env...)
	o := &outcome{status: "exited normally", outputs: mpitest.Lines(string(out.Stdout))}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		o.status, o.detail = "deadlocked", fmt.Sprintf("still running after %v", timeout)
		return o
	case err != nil:
		o.status, o.detail = "failed", fmt.Sprintf("%v\n%s", err, out.Stderr)
	}
	o.logs = readLogs(t, dir, p.base(), p.tasks)
	if err != nil {
		return o
	}
	o.counts = map[int64]ct{}
	for rank := range p.tasks {
		data, rerr := os.ReadFile(filepath.Join(dir, fmt.Sprintf("pmpi-counts-%d.txt", rank)))
		var c ct
		if rerr == nil {
			_, rerr = fmt.Sscan(string(data), &c.msgsSent, &c.msgsRecv, &c.bytesSent, &c.bytesRecv)
		}
		if rerr != nil {
			t.Fatalf("rank %d's counts: %v", rank, rerr)
		}
		o.counts[rank] = c
	}
	return o
}

// readLogs reads the logs NAME-<rank>.log found in dir.
func readLogs(t *testing.T, dir, name string, tasks int64) map[int64]*logfile.File {
	logs := map[int64]*logfile.File{}
	for rank := range tasks {
		path := filepath.Join(dir, name+"-"+strconv.FormatInt(rank, 10)+".log")
		if _, err := os.Stat(path); err == nil {
			logs[rank] = mpitest.ReadLog(t, path)
		}
	}
	return logs
}
