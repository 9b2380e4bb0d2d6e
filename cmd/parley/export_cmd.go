package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/codegen/tit"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
)

func init() {
	register(&command{
		name:    "export",
		args:    "--format tit PROG [--tasks N] -o DIR [--platform P] [--seed S] [-- program options]",
		summary: "write a program's run as traces for other simulators (SimGrid)",
		run:     runExport,
	})
}

// exportFormats are the formats export writes, with what each is for.
var exportFormats = []struct{ name, what string }{
	{"tit", "SimGrid time-independent traces, for smpirun -replay"},
}

// tit.Writer is what the interpreter reports to.
var _ interp.Observer = (*tit.Writer)(nil)

func exportFormatList() string {
	var names []string
	for _, f := range exportFormats {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

func runExport(e *env, args []string) int {
	c := find("export")
	f := flags(e, c, fmt.Sprintf(`
Runs PROG for N tasks as "parley run" does and writes what each task
issues, in order, as traces another simulator can replay. Formats:
  tit  SimGrid time-independent traces (TIT), one file per rank
       DIR/BASE-R.tit and an index DIR/BASE.tit, BASE being PROG's name
       without its extension. Replay them with SimGrid's SMPI:
         smpirun -np N -platform cluster.xml -replay DIR/BASE.tit
       from the directory export ran in (the index names the files by
       the path given to -o; give an absolute -o to replay from anywhere).

What the trace holds, rank by rank (a rank is a task's processor): every
send and receive, blocking or asynchronous (send, recv, isend, irecv, with
peer, tag and bytes); AWAIT COMPLETION as waitall; collectives over every
task as SimGrid collectives (barrier, bcast, reduce, allreduce,
reducescatter, gather(v), allgather(v), scatter(v), alltoall(v));
collectives over some of the tasks, which SimGrid's replay cannot express,
as the point-to-point steps of the algorithm the interpreter ran them with;
COMPUTES, TOUCHES and the combining in reductions as compute; SLEEPS FOR
as sleep. Loops are unrolled as the interpreter ran them: warmups, the
barrier of AND A SYNCHRONIZATION, and a timed loop's trial iteration,
agreement (an allreduce) and iterations are all in the trace. Sizes are
bytes (MPI_BYTE). OUTPUTS and LOGS are not written (use parley run).

Compute is written in flops, converted from the interpreter's durations at
each rank's per-core flop rate: its node group's flops divided by
tasks_per_node in the platform (--platform; the default is %s). A
SimGrid host of that speed replays every computation in the time parley
run predicts; the rate is printed after the export. For ib-edr (2 TF/s
nodes, one task each):
  <cluster id="c" prefix="node-" suffix="" radical="0-63" speed="2Tf"
           bw="12GBps" lat="0.9us" bb_bw="1TBps" bb_lat="0us"/>
COMPUTES n FLOPS that is flop-bound keeps n; memory-bound work, TOUCHES,
COMPUTES FOR (already divided by the node's speed) and reductions'
combining become their duration times the rate. SimGrid prices messages
and collectives with its own models and algorithms; keep its default
collective selector (the mpich and ompi ones crashed SimGrid 3.32's
replay of broadcasts and reductions).

Negative program tags are written as tag+2^31 (SMPI keeps negative tags
for itself); sizes must fit a C int, as SimGrid reads them.

Exit status: 0 for a clean export; 1 if the run met a problem (deadlock,
failed assertion, ...; what was issued is still written, the problems are
printed) or the files could not be written; 2 for bad usage.`, netmodel.DefaultPlatform))
	format := f.String("format", "", "trace format: "+exportFormatList())
	out := f.String("o", "", "directory to write the traces into (created if need be)")
	tasks := f.Int64("tasks", 64, "number of tasks (MPI ranks)")
	platform := f.String("platform", netmodel.DefaultPlatform, "platform: a preset ("+strings.Join(netmodel.Presets(), ", ")+") or a TOML file")
	seed := f.Uint64("seed", 1, "seed for RANDOM_* functions and A RANDOM TASK")
	maxEvents := f.Int64("max-events", 0, "stop after this many events (0: no limit)")
	pos, progArgs, code := parseArgs(e, f, args)
	if code >= 0 {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "parley export: "+format+"\n", a...)
		return 2
	}
	switch {
	case *format == "":
		return usageErr("--format is required (known formats: %s)", exportFormatList())
	case !slices.ContainsFunc(exportFormats, func(x struct{ name, what string }) bool { return x.name == *format }):
		return usageErr("unknown format %q (known formats: %s)", *format, exportFormatList())
	case len(pos) == 0:
		return usageErr("no program to export")
	case len(pos) > 1:
		return usageErr("one program at a time (got %s)", strings.Join(pos, ", "))
	case *out == "":
		return usageErr("-o DIR is required")
	case *tasks < 1:
		return usageErr("--tasks must be at least 1, not %d", *tasks)
	}
	path := pos[0]
	prog := load(e, path)
	if prog == nil {
		return 1
	}
	plat, err := netmodel.Resolve(*platform)
	if err != nil {
		return usageErr("%v", err)
	}
	p, err := ir.Build(prog)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 1
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if path == "-" {
		base = "stdin"
	}
	_, statErr := os.Stat(*out)
	w, err := tit.Create(*out, base, *tasks, &plat.Machine)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 1
	}
	opts := interp.Options{NumTasks: *tasks, Args: progArgs, Platform: plat, Seed: *seed, MaxEvents: *maxEvents, Observer: w}
	sim, err := interp.New(p, opts)
	if err != nil {
		// Nothing was written; leave no empty directory behind.
		if statErr != nil {
			os.Remove(*out)
		}
		if errors.Is(err, interp.ErrHelp) {
			fmt.Fprintf(e.stdout, "Options of %s (give them after --):\n%s", path, p.Usage())
			return 0
		}
		return usageErr("%v", err)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(interp.GCPercent)
	}
	res := sim.Run()
	werr := w.Close()
	code = 0
	for _, pr := range res.Problems {
		if pr.Span.Start.IsValid() {
			reportProblem(e.stderr, prog, pr)
		} else {
			fmt.Fprintf(e.stderr, "parley export: %s\n", pr.Msg)
		}
		code = 1
	}
	if werr != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", werr)
		return 1
	}
	writeExportSummary(e.stdout, w, *tasks, plat, res)
	if code != 0 {
		fmt.Fprintf(e.stderr, "parley export: the run had problems; the traces hold what each task issued up to them\n")
	}
	return code
}

// writeExportSummary says what was written and how to replay it.
func writeExportSummary(w io.Writer, tw *tit.Writer, n int64, plat *netmodel.Platform, res *interp.Result) {
	traces := "traces"
	if n == 1 {
		traces = "trace"
	}
	fmt.Fprintf(w, "Wrote %d rank %s and the index %s (%s on %d tasks, platform %s, predicted %s).\n",
		n, traces, tw.IndexPath(), res.Program, n, plat.Name, res.Predicted)
	// The per-core rate of each node group that holds ranks.
	m := &plat.Machine
	seen := map[*netmodel.NodeGroup]bool{}
	var rates []string
	for node := range m.NodeCount(n) {
		g := m.GroupOf(node)
		if seen[g] {
			continue
		}
		seen[g] = true
		rates = append(rates, fmt.Sprintf("%sf (node group %s)", formatRate(g.FlopRate/float64(m.TasksPerNode)), g.Name))
	}
	fmt.Fprintf(w, "Compute is in flops at %s per rank: give the SimGrid hosts that speed and replay with\n", strings.Join(rates, ", "))
	fmt.Fprintf(w, "  smpirun -np %d -platform PLATFORM.xml -replay %s\n", n, tw.IndexPath())
}

// formatRate prints a flop rate with SimGrid's unit prefixes (speed="2.5Gf").
func formatRate(r float64) string {
	for _, u := range []struct {
		p string
		v float64
	}{{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if r >= u.v {
			return fmt.Sprintf("%g%s", r/u.v, u.p)
		}
	}
	return fmt.Sprintf("%g", r)
}
