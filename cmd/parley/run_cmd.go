package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

func init() {
	register(&command{
		name:     "run",
		args:     "[PROG] [--tasks N] [--platform P] [--logs DIR] [--json] [--timeline FILE] [-- program options]",
		summary:  "predict a program's run on a modelled machine and network",
		progArgs: true,
		argExts:  programExts,
		details: fmt.Sprintf(`
Runs PROG for N tasks as a discrete-event simulation priced by a platform's
network and machine models, and prints the predicted run time with where
each task's time goes (compute, communication overhead, waiting) and the
message totals. Without PROG it runs the embedded example %s.
The program's OUTPUTS go to standard output as they happen.

The number of tasks is --tasks, else the one the program asserts at its
top level (ASSERT THAT "..." WITH num_tasks = 16, as "parley lower" writes
for a trace's ranks), else 64.

Platforms: a preset (%s) or a TOML file; the default is %s.
Program options (see "parley params PROG") follow "--", e.g.
  parley run halo2d.parley --tasks 16 -- --points 1024
"-" as the --timeline file is standard output (the summary then goes to
standard error).

On a terminal, standard error shows how far a long run has got. Ctrl-C
stops the run and prints the summary so far, marked partial (a second
Ctrl-C ends parley at once).

Exit status: 0 for a clean run; 1 if the run met a problem (deadlock,
failed assertion, runtime error, message never received, asynchronous
operation never awaited, event limit); 2 for bad usage; 130 if Ctrl-C
stopped it.`, examples.Default, strings.Join(netmodel.Presets(), ", "), netmodel.DefaultPlatform),
		flags: func(fs *pflag.FlagSet) any {
			o := &runOptions{}
			o.sim.register(fs)
			fs.StringVar(&o.logs, "logs", "", "write coNCePTuaL-format logs, one per task, into this directory")
			fs.BoolVar(&o.json, "json", false, "print the summary as JSON (program OUTPUTS then go to standard error)")
			fs.StringVar(&o.timeline, "timeline", "", "write a Chrome trace (open in ui.perfetto.dev) to this file")
			fs.IntVar(&o.show, "show", 8, "list this many of the slowest tasks")
			fs.BoolVar(&o.stats, "stats", false, "print simulator statistics: events, events per second, peak memory, collective algorithms")
			fs.StringVar(&o.links, "links", "", "write per-link figures (bytes, utilization) as CSV to this file; needs a flow or packet platform")
			fs.StringVar(&o.fastForward, "fast-forward", "", "skip a loop's remaining iterations once they repeat exactly; with a BOUND (--fast-forward 0.1%), once successive periods differ by less")
			fs.Lookup("fast-forward").NoOptDefVal = exactPeriod
			return o
		},
		run: runRun,
	})
}

type runOptions struct {
	sim            simOptions
	logs, timeline string
	links          string
	fastForward    string // "", exactPeriod or a bound such as "0.1%"
	json, stats    bool
	show           int
}

// simOptions are the options of every command that runs the simulator.
type simOptions struct {
	tasks     int64
	platform  string
	seed      uint64
	maxEvents int64
}

func (o *simOptions) register(fs *pflag.FlagSet) {
	fs.Int64Var(&o.tasks, "tasks", 64, "number of tasks (without it: the count the program asserts, if any)")
	fs.StringVar(&o.platform, "platform", netmodel.DefaultPlatform, "platform: a preset ("+strings.Join(netmodel.Presets(), ", ")+") or a TOML file")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for RANDOM_* functions and A RANDOM TASK")
	fs.Int64Var(&o.maxEvents, "max-events", 0, "stop after this many events (0: no limit)")
}

// simulation is a program made ready to run: checked, built and bound to
// a platform and a task count.
type simulation struct {
	path string
	prog *lang.Program
	ir   *ir.Program
	plat *netmodel.Platform
	opts interp.Options
	// interrupted says whether Ctrl-C stopped the run; unwatch ends the
	// watch for it and the progress line.
	interrupted func() bool
	unwatch     func()
}

// prepare loads the program at path and the platform, and settles the
// number of tasks. It returns a non-zero exit status when it cannot.
func (o *simOptions) prepare(e *env, inv *invocation, path string) (*simulation, int) {
	name := inv.cmd.CommandPath()
	prog := load(e, path)
	if prog == nil {
		return nil, 1
	}
	plat, err := netmodel.Resolve(o.platform)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
		return nil, 2
	}
	p, err := ir.Build(prog)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
		return nil, 1
	}
	tasks := o.tasks
	if !inv.changed("tasks") {
		if n, ok := p.AssertedTasks(inv.rest); ok {
			tasks = n
		}
	}
	if tasks < 1 {
		fmt.Fprintf(e.stderr, "%s: --tasks must be at least 1, not %d\n", name, tasks)
		return nil, 2
	}
	return &simulation{path: path, prog: prog, ir: p, plat: plat, opts: interp.Options{
		NumTasks: tasks, Args: inv.rest, Platform: plat, Seed: o.seed, MaxEvents: o.maxEvents, MaxMemory: int64(e.maxMemory),
	}}, 0
}

// start makes the simulator. The program's --help prints its options and
// stops with status 0; bad program options stop with status 2.
func (s *simulation) start(e *env, inv *invocation) (*interp.Sim, int) {
	s.interrupted, s.unwatch = e.watch(&s.opts)
	sim, err := interp.New(s.ir, s.opts)
	if err != nil {
		s.unwatch()
	}
	if errors.Is(err, interp.ErrHelp) {
		fmt.Fprintf(e.stdout, "Options of %s (give them after --):\n%s", s.path, s.ir.Usage())
		return nil, 0
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", inv.cmd.CommandPath(), err)
		if _, ok := errors.AsType[*memlimit.OverError](err); ok {
			return nil, 1 // not bad usage: the run does not fit
		}
		return nil, 2
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(interp.GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Near the run's memory limit the collector then works harder
		// instead of letting garbage take the heap over it.
		debug.SetMemoryLimit(memlimit.Or(int64(e.maxMemory)))
	}
	return sim, -1
}

// run runs sim, showing progress on a terminal until it ends.
func (s *simulation) run(sim *interp.Sim) *interp.Result {
	res := sim.Run()
	s.unwatch()
	return res
}

// status is the exit status of a run: 0 for a clean one, 1 if it had
// problems, interruptedStatus if Ctrl-C stopped it.
func (s *simulation) status(res *interp.Result) int {
	switch {
	case res.Partial() && s.interrupted():
		return interruptedStatus
	case !res.OK():
		return 1
	}
	return 0
}

func runRun(e *env, inv *invocation) int {
	o := inv.opts.(*runOptions)
	if len(inv.pos) > 1 && !(o.fastForward == exactPeriod && len(inv.pos) == 2 && strings.HasSuffix(inv.pos[1], "%")) {
		fmt.Fprintf(e.stderr, "parley run: one program at a time (got %s)\n", strings.Join(inv.pos, ", "))
		return 2
	}
	if o.json && o.timeline == "-" {
		fmt.Fprintln(e.stderr, "parley run: --json and --timeline - both want standard output; write the timeline to a file")
		return 2
	}
	if o.logs == "-" {
		fmt.Fprintln(e.stderr, "parley run: --logs names a directory (one log per task), not standard output")
		return 2
	}
	bound, err := fastForwardBound(o, inv)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley run: %v\n", err)
		return 2
	}
	path := examples.Default
	if len(inv.pos) == 1 {
		path = inv.pos[0]
	}
	s, code := o.sim.prepare(e, inv, path)
	if s == nil {
		return code
	}
	// The summary, and the program's OUTPUTS before it, go where the
	// machine-readable output does not.
	summary, out := e.stdout, e.stdout
	if o.json {
		out = e.stderr
	}
	if o.timeline == "-" {
		summary, out = e.stderr, e.stderr
	}
	s.opts.Output, s.opts.Timeline, s.opts.Logs = out, o.timeline != "", o.logs != ""
	s.opts.FastForward, s.opts.FastForwardBound = o.fastForward != "", bound
	sim, code := s.start(e, inv)
	if sim == nil {
		return code
	}
	// Outputs are opened before the run, so that a bad path costs nothing.
	var timeline io.WriteCloser
	if o.timeline != "" {
		var err error
		if timeline, err = createOutput(e, o.timeline); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
		defer timeline.Close()
	}
	var links io.WriteCloser
	if o.links != "" {
		if s.plat.Topology == nil {
			fmt.Fprintf(e.stderr, "parley run: --links: %v\n", interp.ErrNoLinks)
			return 2
		}
		var err error
		if links, err = createOutput(e, o.links); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
		defer links.Close()
	}
	if o.logs != "" {
		if err := checkDir(o.logs); err != nil {
			fmt.Fprintf(e.stderr, "parley run: --logs: %v\n", err)
			return 1
		}
	}
	begin := time.Now()
	res := s.run(sim)
	elapsed := time.Since(begin)
	if o.json {
		if err := res.WriteJSON(e.stdout); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	} else {
		res.WriteSummary(summary, o.show)
	}
	if o.logs != "" {
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if err := sim.WriteLogs(o.logs, base); err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	}
	if timeline != nil {
		err := sim.WriteTimeline(timeline)
		if cerr := timeline.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	}
	if links != nil {
		err := sim.WriteLinks(links, res)
		if cerr := links.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "parley run: %v\n", err)
			return 1
		}
	}
	if o.stats {
		printStats(e.stderr, res, elapsed)
	}
	for _, pr := range res.Problems {
		reportProblem(e.stderr, inv.cmd.CommandPath(), s.prog, pr)
	}
	return s.status(res)
}

// reportProblem prints a run-time problem with the program line it
// concerns, like a diagnostic.
func reportProblem(w io.Writer, cmd string, prog *lang.Program, p interp.Problem) {
	fmt.Fprintln(w, p.Pretty(prog.Source, cmd))
}

// printStats reports the simulator's speed and peak memory (the process's
// maximum resident set size), and which algorithm each statement's
// collectives ran with.
func printStats(w io.Writer, r *interp.Result, elapsed time.Duration) {
	peak := peakRSS()
	rate := float64(r.Events) / elapsed.Seconds()
	fmt.Fprintf(w, "stats: %d events in %.3fs (%.3g events/s, GOMAXPROCS=%d); peak memory %.1f MiB (%.0f bytes per task)\n",
		r.Events, elapsed.Seconds(), rate, runtime.GOMAXPROCS(0), float64(peak)/(1<<20), float64(peak)/float64(max(r.NumTasks, 1)))
	for _, u := range r.Collectives {
		calls := "1 call"
		if u.Calls != 1 {
			calls = fmt.Sprintf("%d calls", u.Calls)
		}
		fmt.Fprintf(w, "stats: %s: %s by %s, %s of %s bytes over %s ranks\n", u.Span.Start, u.Op, u.Algorithm, calls,
			span(u.MinBytes, u.MaxBytes), span(int64(u.MinRanks), int64(u.MaxRanks)))
	}
}

// span prints a range of values, or the value if there is one.
func span(lo, hi int64) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// exactPeriod is --fast-forward without a bound.
const exactPeriod = "exact"

// fastForwardBound reads --fast-forward's bound, a percentage ("0.1%"),
// as a fraction; 0 for an exact period. The flag's value is optional, so
// "--fast-forward 0.1%" leaves the bound among the positional arguments,
// whence it is taken.
func fastForwardBound(o *runOptions, inv *invocation) (float64, error) {
	v := o.fastForward
	if v == exactPeriod && len(inv.pos) > 0 && strings.HasSuffix(inv.pos[len(inv.pos)-1], "%") {
		v = inv.pos[len(inv.pos)-1]
		inv.pos = inv.pos[:len(inv.pos)-1]
	}
	if v == "" || v == exactPeriod {
		return 0, nil
	}
	pct, ok := strings.CutSuffix(v, "%")
	f, err := strconv.ParseFloat(pct, 64)
	if !ok || err != nil || f <= 0 || f >= 100 || math.IsNaN(f) {
		return 0, fmt.Errorf("--fast-forward: the bound is a percentage between 0 and 100 such as 0.1%%, not %q", v)
	}
	return f / 100, nil
}
