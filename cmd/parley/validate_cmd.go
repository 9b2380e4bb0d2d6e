package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/calibrate"
	"github.com/parley-hpc/parley/codegen"
	"github.com/parley-hpc/parley/internal/mpirun"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
)

func init() {
	register(&command{
		name:     "validate",
		args:     "PROG --tasks N [--platform P] [--tolerance 10%] [-- program options]",
		summary:  "predict a program, run it for real under mpirun, and compare",
		progArgs: true,
		argExts:  programExts,
		details: `
Checks a prediction against this machine: predicts PROG on the platform
(as parley run --logs does), compiles it to C+MPI and builds it with mpicc
(as parley compile --build does), runs it under mpirun on N tasks, and
compares the measured logs with the predicted ones (as parley logs does,
whose comparison it prints first).

Then, per LOG column that holds timings, it prints the medians of the
measured and predicted values and the error: the mean absolute percentage
error over the column's cells, |predicted / measured - 1| (and the worst
cell). A column is within tolerance when that mean is.

The platform is a preset or a TOML file; by default calibrated.toml, the
file parley calibrate writes. For example:
  parley calibrate -o calibrated.toml
  parley validate examples/pingpong-latency.parley --tasks 2 -- --maxbytes 64K

--runs K runs the program K times and compares, cell by cell, the median
of the K measured values: on a machine shared with other work one run's
medians can be far off. --dir keeps the generated C, the executable and
the logs there (pred/, meas/ and, with --runs, meas/run-1, ...); without
it they go to a temporary directory that is removed afterwards.

Last it runs parley calibrate's compute kernels on the same tasks and
says how the flop rate and memory bandwidth each task gets now compare
with the platform's: on a machine shared with other work these move from
one minute to the next, and predictions of computation with them.

Exit status: 0 when every column is within tolerance and the message
totals agree; 1 when a column is outside it, the totals differ, or the
prediction, the build or the run fails or times out; 2 for bad usage or
a missing mpicc or mpirun.`,
		flags: func(fs *pflag.FlagSet) any {
			o := &validateOptions{}
			o.sim.register(fs)
			fs.Lookup("platform").DefValue = defaultCalibrated
			o.sim.platform = defaultCalibrated
			fs.StringVar(&o.tolerance, "tolerance", "10%", "largest mean error per column, e.g. 5% or 0.05")
			fs.StringVar(&o.dir, "dir", "", "keep the generated program and the logs in this directory")
			fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "time limit of each real run")
			fs.IntVar(&o.runs, "runs", 1, "run the program this many times and compare the median of each measured value")
			return o
		},
		run: runValidate,
	})
}

// defaultCalibrated is the platform file parley calibrate writes by default.
const defaultCalibrated = "calibrated.toml"

type validateOptions struct {
	sim       simOptions
	tolerance string
	dir       string
	timeout   time.Duration
	runs      int
}

// parseTolerance reads "10%" or "0.1" as a fraction.
func parseTolerance(s string) (float64, error) {
	text, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("--tolerance %q is not a percentage such as 10%% or a fraction such as 0.1", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func runValidate(e *env, inv *invocation) int {
	const name = "parley validate"
	o := inv.opts.(*validateOptions)
	tol, err := parseTolerance(o.tolerance)
	switch {
	case len(inv.pos) != 1:
		fmt.Fprintf(e.stderr, "%s: give exactly one program, e.g. parley validate ring.parley --tasks 4\n", name)
		return 2
	case err != nil:
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
		return 2
	case o.timeout <= 0:
		fmt.Fprintf(e.stderr, "%s: --timeout must be positive\n", name)
		return 2
	case o.runs < 1:
		fmt.Fprintf(e.stderr, "%s: --runs must be at least 1, not %d\n", name, o.runs)
		return 2
	}
	if !inv.changed("platform") {
		if _, err := os.Stat(defaultCalibrated); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(e.stderr, "%s: no %s here: run parley calibrate first, or name a platform with --platform\n", name, defaultCalibrated)
			return 2
		}
	}
	mpicc, mpiRun, err := mpirun.Tools()
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
		return 2
	}
	path := inv.pos[0]
	s, code := o.sim.prepare(e, inv, path)
	if s == nil {
		return code
	}
	dir := o.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "parley-validate-"); err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
			return 1
		}
		defer os.RemoveAll(dir)
	}
	predDir, measDir := filepath.Join(dir, "pred"), filepath.Join(dir, "meas")
	for _, d := range []string{predDir, measDir} {
		if err := checkDir(d); err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
			return 1
		}
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))

	// Predict.
	s.opts.Output, s.opts.Logs = io.Discard, true
	sim, code := s.start(e, inv)
	if sim == nil {
		return code
	}
	res := s.run(sim)
	if code := s.status(res); code != 0 {
		for _, pr := range res.Problems {
			reportProblem(e.stderr, name, s.prog, pr)
		}
		fmt.Fprintf(e.stderr, "%s: the prediction failed, so there is nothing to compare with\n", name)
		return code
	}
	if err := sim.WriteLogs(predDir, base); err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(e.stderr, "%s: predicted %d tasks on %s: %v\n", name, s.opts.NumTasks, s.plat.Name, res.Predicted)

	// Compile and build.
	c, err := codegen.C(s.ir, codegen.Options{Name: base, Version: version})
	if err == nil {
		err = os.WriteFile(filepath.Join(measDir, base+".c"), c, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(measDir, codegen.RuntimeName), codegen.Runtime(), 0o644)
	}
	exe := filepath.Join(measDir, base)
	if err == nil {
		err = buildC(exe+".c", exe, nil)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
		return 1
	}

	// Run.
	if code := runReal(e, o, mpiRun, exe, int(s.opts.NumTasks), inv.rest, measDir, base); code != 0 {
		return code
	}

	// Compare.
	cmp, code := writeComparison(e, name, measDir, predDir, false)
	if cmp == nil {
		return code
	}
	accs := cmp.Accuracies()
	if len(accs) == 0 {
		fmt.Fprintf(e.stderr, "%s: the program logs no timings to compare\n", name)
		return 1
	}
	fmt.Fprintf(e.stdout, "\nAccuracy (error: mean |predicted/measured - 1| over a column's cells; tolerance %s)\n", strconv.FormatFloat(100*tol, 'g', -1, 64)+"%")
	within := logfile.WriteAccuracies(e.stdout, accs, tol)
	agree := totalsAgree(e, name, cmp)
	checkMachine(e, name, s.plat, mpicc, mpiRun, measDir, int(s.opts.NumTasks), o.timeout, tol)
	if !within {
		fmt.Fprintf(e.stderr, "%s: some columns are outside the tolerance\n", name)
	}
	if !within || !agree {
		return 1
	}
	return 0
}

// checkMachine runs the calibration's compute kernels on the run's tasks
// and says how the flop rate and memory bandwidth each task gets now
// compare with what the platform gives it. A machine shared with other
// work computes at other speeds from one minute to the next (calibrations
// half a minute apart here measured 5.3 to 9.7 GF/s), and the computation
// in a prediction is then off by as much, whatever the model. It only
// informs: a failure to measure is said, not fatal.
func checkMachine(e *env, name string, plat *netmodel.Platform, mpicc, mpiRun, dir string, tasks int, timeout time.Duration, tol float64) {
	if len(plat.Machine.Nodes) != 1 {
		return // a heterogeneous machine is not this host
	}
	kdir := filepath.Join(dir, "compute-check")
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		fmt.Fprintf(e.stderr, "%s: could not check the machine's speed: %v\n", name, err)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	d, err := calibrate.MeasureCompute(ctx, calibrate.Options{MPICC: mpicc, MPIRun: mpiRun, CFlags: mpiccFlags, NP: tasks, Dir: kdir, Timeout: timeout})
	var flops, bw float64
	if err == nil {
		flops, bw, err = calibrate.ComputeRates(d)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: could not check the machine's speed: %v\n", name, err)
		return
	}
	fmt.Fprintln(e.stderr, machineDrift(name, plat, tasks, flops, bw, tol))
}

// machineDrift compares the per-task rates measured with n tasks at once
// with the platform's share of a node for each of n tasks.
func machineDrift(name string, plat *netmodel.Platform, n int, flops, bw, tol float64) string {
	node := plat.Machine.Nodes[0]
	share := float64(min(plat.Machine.TasksPerNode, n))
	pf, pb := node.FlopRate/share, node.MemBandwidth/share
	df, db := flops/pf-1, bw/pb-1
	msg := fmt.Sprintf("%s: the compute kernels on %d tasks now: %.3g GF/s and %.3g GB/s a task; the platform gives each %.3g GF/s (%+.0f%%) and %.3g GB/s (%+.0f%%)",
		name, n, flops/1e9, bw/1e9, pf/1e9, 100*df, pb/1e9, 100*db)
	if math.Abs(df) > tol || math.Abs(db) > tol {
		msg += fmt.Sprintf("\n%s: this machine does not compute as the platform says: its predictions of computation are off by as much; calibrate again, on a quieter machine, and validate right after", name)
	}
	return msg
}

// runReal runs the built program o.runs times under mpirun and leaves its
// logs in dir: those of the run, or with several runs (each in a
// directory of its own, run-1, run-2, ...) the median of each value across
// them.
func runReal(e *env, o *validateOptions, mpiRun, exe string, np int, args []string, dir, base string) int {
	const name = "parley validate"
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var sets []*logfile.Set
	for i := range o.runs {
		runDir := dir
		if o.runs > 1 {
			runDir = filepath.Join(dir, fmt.Sprintf("run-%d", i+1))
			if err := checkDir(runDir); err != nil {
				fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
				return 1
			}
		}
		fmt.Fprintf(e.stderr, "%s: running mpirun -np %d %s %s\n", name, np, base, strings.Join(args, " "))
		var out bytes.Buffer
		begin := time.Now()
		err := mpirun.Run(ctx, mpirun.Job{MPIRun: mpiRun, NP: np, Exe: exe, Args: args, Dir: runDir,
			Stdout: &out, Stderr: &out, Timeout: o.timeout})
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: the real run failed: %v\n%s", name, err, out.String())
			return 1
		}
		fmt.Fprintf(e.stderr, "%s: ran in %.2fs\n", name, time.Since(begin).Seconds())
		if o.runs > 1 {
			set := loadLogs(e, name, runDir)
			if set == nil {
				return 1
			}
			sets = append(sets, set)
		}
	}
	if o.runs > 1 {
		if err := logfile.MedianSet(sets).WriteFiles(dir, base); err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
			return 1
		}
	}
	return 0
}
