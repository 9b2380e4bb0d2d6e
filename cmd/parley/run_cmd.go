package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

func init() {
	register(&command{
		name:    "run",
		args:    "[PROG] [--tasks N] [--platform P] [--logs DIR] [--json] [--timeline FILE] [-- program options]",
		summary: "predict a program's run on a modelled machine and network",
		run:     runRun,
	})
}

// parseInterleaved parses flags that may come before or after positional
// arguments, up to "--"; what follows "--" is returned separately.
func parseInterleaved(fs *flag.FlagSet, args []string) (pos, rest []string, err error) {
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		if fs.NArg() == 0 {
			return pos, rest, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseArgs handles --help (before "--"), then parses flags before and
// after the positional arguments. It returns a non-negative exit code when
// the command should stop.
func parseArgs(e *env, fs *flag.FlagSet, args []string) (pos, rest []string, code int) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return nil, nil, 0
		}
	}
	pos, rest, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, nil, 2
	}
	return pos, rest, -1
}

func runRun(e *env, args []string) int {
	c := find("run")
	f := flags(e, c, fmt.Sprintf(`
Runs PROG for N tasks as a discrete-event simulation priced by a platform's
network and machine models, and prints the predicted run time with where
each task's time goes (compute, communication overhead, waiting) and the
message totals. Without PROG it runs the embedded example %s on 64 tasks.
The program's OUTPUTS go to standard output as they happen.

Platforms: a preset (%s) or a TOML file; the default is %s.
Program options (see "parley params PROG") follow "--", e.g.
  parley run halo2d.parley --tasks 16 -- --points 1024

Exit status: 0 for a clean run; 1 if the run met a problem (deadlock,
failed assertion, runtime error, message never received, asynchronous
operation never awaited, event limit); 2 for bad usage.`, examples.Default, strings.Join(netmodel.Presets(), ", "), netmodel.DefaultPlatform))
	tasks := f.Int64("tasks", 64, "number of tasks")
	platform := f.String("platform", netmodel.DefaultPlatform, "platform: a preset name or a TOML file")
	logs := f.String("logs", "", "write coNCePTuaL-format logs, one per task, into this directory")
	asJSON := f.Bool("json", false, "print the summary as JSON (program OUTPUTS then go to standard error)")
	timeline := f.String("timeline", "", "write a Chrome trace (open in ui.perfetto.dev) to this file")
	seed := f.Uint64("seed", 1, "seed for RANDOM_* functions and A RANDOM TASK")
	maxEvents := f.Int64("max-events", 0, "stop after this many events (0: no limit)")
	show := f.Int("show", 8, "list this many of the slowest tasks")
	stats := f.Bool("stats", false, "print simulator statistics: events, events per second, peak memory")
	pos, progArgs, code := parseArgs(e, f, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintf(e.stderr, "parley run: one program at a time (got %s)\n", strings.Join(pos, ", "))
		return 2
	}
	path := examples.Default
	if len(pos) == 1 {
		path = pos[0]
	}
	prog := load(e, path)
	if prog == nil {
		return 1
	}
	plat, err := netmodel.Resolve(*platform)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley run: %v\n", err)
		return 2
	}
	p, err := ir.Build(prog)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley run: %v\n", err)
		return 1
	}
	out := e.stdout
	if *asJSON {
		out = e.stderr
	}
	opts := interp.Options{NumTasks: *tasks, Args: progArgs, Platform: plat, Seed: *seed, MaxEvents: *maxEvents,
		Output: out, Timeline: *timeline != "", Logs: *logs != ""}
	sim, err := interp.New(p, opts)
	if errors.Is(err, interp.ErrHelp) {
		fmt.Fprintf(e.stdout, "Options of %s (give them after --):\n%s", path, p.Usage())
		return 0
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "parley run: %v\n", err)
		return 2
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(interp.GCPercent)
	}
	start := time.Now()
	res := sim.Run()
	elapsed := time.Since(start)
	if *asJSON {
		if err := res.WriteJSON(e.stdout); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	} else {
		res.WriteSummary(e.stdout, *show)
	}
	if *logs != "" {
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if err := sim.WriteLogs(*logs, base); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	}
	if *timeline != "" {
		if err := writeFile(*timeline, sim.WriteTimeline); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	}
	if *stats {
		printStats(e.stderr, res, elapsed)
	}
	for _, pr := range res.Problems {
		reportProblem(e.stderr, prog, pr)
	}
	if !res.OK() {
		return 1
	}
	return 0
}

// reportProblem prints a run-time problem with the program line it
// concerns, like a diagnostic.
func reportProblem(w io.Writer, prog *lang.Program, p interp.Problem) {
	d := lang.Diagnostic{Pos: p.Span.Start, End: p.Span.End, Severity: lang.Error, Msg: p.Msg}
	if !p.Span.Start.IsValid() {
		fmt.Fprintf(w, "parley run: %s\n", p.Msg)
		return
	}
	fmt.Fprintln(w, d.Pretty(prog.Source))
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// printStats reports the simulator's speed and peak memory (the process's
// maximum resident set size).
func printStats(w io.Writer, r *interp.Result, elapsed time.Duration) {
	peak := peakRSS()
	rate := float64(r.Events) / elapsed.Seconds()
	fmt.Fprintf(w, "stats: %d events in %.3fs (%.3g events/s, GOMAXPROCS=%d); peak memory %.1f MiB (%.0f bytes per task)\n",
		r.Events, elapsed.Seconds(), rate, runtime.GOMAXPROCS(0), float64(peak)/(1<<20), float64(peak)/float64(max(r.NumTasks, 1)))
}
