package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/calibrate"
	"github.com/parley-hpc/parley/internal/mpirun"
	"github.com/parley-hpc/parley/netmodel"
)

func init() {
	register(&command{
		name:    "calibrate",
		args:    "[--np N] [-o FILE.toml]",
		summary: "measure this machine's MPI and processor and write a platform file",
		details: `
Builds small C+MPI kernels with mpicc and runs them under mpirun on this
machine: a ping-pong sweep from 0 B to --max-size (refined around each
step it finds: the eager/rendezvous switch, the end of a small-message
buffer), send and receive overheads, trains of back-to-back messages, and
the C backend's compute kernel for flops and for memory traffic. It fits
LogGOPS's L, o, g, G, O and S, L, o, g and G again for each protocol
regime between the steps, and a roofline, by least squares
(docs/calibrate.md lists the estimators), and writes a platform file whose
comments give each fit's quality, the measurements beside the model's
values, and the date. Then
  parley validate PROG --tasks N --platform FILE.toml
predicts PROG, runs it for real and compares.

The machine model is for runs of --np tasks on this host: the compute
kernels run on all of them at once and each task gets 1/N of the node.
A sweep takes about a minute; standard error shows its progress.

Exit status: 0 on success; 1 if a measurement failed or timed out; 2 for
bad usage or when mpicc or mpirun is missing.`,
		flags: func(fs *pflag.FlagSet) any {
			o := &calibrateOptions{}
			fs.IntVar(&o.np, "np", 2, "number of tasks to measure with (at least 2)")
			fs.StringVarP(&o.out, "output", "o", "calibrated.toml", "the platform file to write (\"-\": standard output)")
			fs.StringVar(&o.name, "name", "", "the platform's name (default: the host's)")
			fs.Var(&o.maxSize, "max-size", "largest message of the sweeps, e.g. 4MiB")
			fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "time limit of each mpirun")
			fs.StringVar(&o.saveData, "save-data", "", "also write the raw measurements to this JSON file")
			fs.StringVar(&o.fromData, "from-data", "", "fit measurements saved by --save-data instead of measuring")
			return o
		},
		run: runCalibrate,
	})
}

type calibrateOptions struct {
	np      int
	out     string
	name    string
	maxSize byteSize
	timeout time.Duration
	// saveData and fromData name JSON files of raw measurements.
	saveData, fromData string
}

func runCalibrate(e *env, inv *invocation) int {
	o := inv.opts.(*calibrateOptions)
	switch {
	case len(inv.pos) > 0:
		fmt.Fprintf(e.stderr, "parley calibrate: takes no arguments (got %s); see \"parley calibrate --help\"\n", strings.Join(inv.pos, " "))
		return 2
	case o.np < 2:
		fmt.Fprintf(e.stderr, "parley calibrate: --np must be at least 2, not %d\n", o.np)
		return 2
	case o.timeout <= 0:
		fmt.Fprintf(e.stderr, "parley calibrate: --timeout must be positive\n")
		return 2
	}
	if !inv.changed("max-size") {
		o.maxSize = 4 << 20
	}
	if o.maxSize < 1024 {
		fmt.Fprintf(e.stderr, "parley calibrate: --max-size must be at least 1KiB to find the eager limit, not %d bytes\n", int64(o.maxSize))
		return 2
	}
	mpicc, mpiRun, err := mpirun.Tools()
	if err != nil && o.fromData == "" {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return 2
	}
	// The file is opened now, so that a bad path costs no measurement.
	out, err := createOutput(e, o.out)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return 2
	}
	defer out.Close()
	var data *calibrate.Data
	if o.fromData != "" {
		data, err = calibrate.LoadData(o.fromData)
		if err != nil {
			fmt.Fprintf(e.stderr, "parley calibrate: --from-data: %v\n", err)
			return 2
		}
	} else {
		if data = runSweeps(e, o, mpicc, mpiRun); data == nil {
			return 1
		}
	}
	fit, err := calibrate.FitAll(data)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: fitting: %v\n", err)
		return 1
	}
	host, _ := os.Hostname()
	m := calibrate.Machine{Name: o.name, Host: host, MPI: mpiVersion(mpiRun), Cores: runtime.NumCPU(), Date: time.Now()}
	if o.fromData != "" {
		m.Host, m.MPI, m.Cores, m.Date = data.Host, data.MPI, data.Cores, data.Date
	}
	if m.Name == "" {
		m.Name = host
	}
	var text strings.Builder
	if err := calibrate.WritePlatform(&text, m, fit); err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return 1
	}
	// What was written must be what the simulator reads.
	if _, err := netmodel.Parse([]byte(text.String()), o.out); err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: the platform written does not read back: %v\n", err)
		return 1
	}
	if _, err := out.Write([]byte(text.String())); err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return 1
	}
	if err := out.Close(); err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.stderr, "parley calibrate: L = %.3g us, o = %.3g us, g = %.3g us, G = %.4g ns/B, O = %.4g ns/B, S = %d B; %.3g GF/s and %.3g GB/s per task\n",
		fit.L, fit.O, fit.Gap, 1e3*fit.G, 1e3*fit.ByteOverhead, fit.Eager, fit.FlopRate/1e9, fit.MemBandwidth/1e9)
	for i, r := range fit.Regimes {
		if len(fit.Regimes) > 1 {
			fmt.Fprintf(e.stderr, "parley calibrate: regime %d, %s: L = %.3g us, o = %.3g us, g = %.3g us, G = %.4g ns/B (%s)\n",
				i+1, regimeSizes(fit.Regimes, i), r.L, r.O, r.Gap, 1e3*r.G, r.PingPong)
		}
	}
	fmt.Fprintf(e.stderr, "parley calibrate: ping-pong model: %s (one set of parameters for every size: %s)\n", fit.PingPong, fit.Single)
	if fit.PingPong.R2 < 0.5 {
		fmt.Fprintf(e.stderr, "parley calibrate: warning: LogGOPS fits this machine's ping-pong poorly; the file's notes say where it cannot follow\n")
	}
	if o.out != "-" {
		fmt.Fprintf(e.stderr, "parley calibrate: wrote %s; use it with --platform %s\n", o.out, o.out)
	}
	return 0
}

// regimeSizes says which sizes regime i holds.
func regimeSizes(rs []calibrate.Regime, i int) string {
	if rs[i].UpTo == math.MaxInt64 {
		return fmt.Sprintf("above %d B", rs[i-1].UpTo)
	}
	return fmt.Sprintf("up to %d B", rs[i].UpTo)
}

// runSweeps runs the sweeps and saves the data if asked; it returns nil
// after saying why it failed.
func runSweeps(e *env, o *calibrateOptions, mpicc, mpiRun string) *calibrate.Data {
	dir, err := os.MkdirTemp("", "parley-calibrate-")
	if err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return nil
	}
	defer os.RemoveAll(dir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(e.stderr, "parley calibrate: measuring with %d tasks (messages up to %d bytes)\n", o.np, int64(o.maxSize))
	if cores := runtime.NumCPU(); o.np > cores {
		fmt.Fprintf(e.stderr, "parley calibrate: warning: %d tasks on %d processors: they take turns, and the times follow the scheduler more than the MPI\n", o.np, cores)
	}
	data, err := calibrate.Measure(ctx, calibrate.Options{
		MPICC: mpicc, MPIRun: mpiRun, CFlags: mpiccFlags, NP: o.np, Dir: dir,
		MaxSize: int64(o.maxSize), Timeout: o.timeout, Progress: e.calibrationProgress(),
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "parley calibrate: %v\n", err)
		return nil
	}
	host, _ := os.Hostname()
	data.Host, data.MPI, data.Cores, data.Date = host, mpiVersion(mpiRun), runtime.NumCPU(), time.Now().UTC()
	if o.saveData != "" {
		if err := data.Save(o.saveData); err != nil {
			fmt.Fprintf(e.stderr, "parley calibrate: --save-data: %v\n", err)
			return nil
		}
	}
	return data
}

// calibrationProgress shows each measurement on a terminal, one line
// overwritten in place; elsewhere, one line per stage.
func (e *env) calibrationProgress() func(calibrate.Progress) {
	stage, began := "", time.Now()
	return func(p calibrate.Progress) {
		if e.progress != nil {
			fmt.Fprintf(e.progress, "\r\033[K  %s %d/%d: %s", p.Stage, p.Done, p.Total, p.Line)
			if p.Done == p.Total {
				fmt.Fprintln(e.progress)
			}
			return
		}
		if p.Stage != stage {
			stage, began = p.Stage, time.Now()
		}
		if p.Done == p.Total {
			fmt.Fprintf(e.stderr, "  %s: %d measurements in %.1fs\n", p.Stage, p.Total, time.Since(began).Seconds())
		}
	}
}

// mpiVersion returns the first line of mpirun --version.
func mpiVersion(mpiRun string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, mpiRun, "--version").Output()
	if line, _, _ := strings.Cut(string(out), "\n"); err == nil && line != "" {
		return strings.TrimSpace(line)
	}
	return "unknown MPI"
}
