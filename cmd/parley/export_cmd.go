package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/codegen/ncptl"
	"github.com/parley-hpc/parley/codegen/sgplatform"
	"github.com/parley-hpc/parley/codegen/tit"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

func init() {
	register(&command{
		name:     "export",
		args:     "--format tit PROG [--tasks N] -o DIR [--platform P] [--seed S] [-- program options] | --format ncptl PROG [-o FILE.ncptl|-] [--platform P] | --format simgrid-platform --platform P -o FILE",
		summary:  "write a program's run as traces, or a platform, for other simulators (SimGrid), or the program as strict coNCePTuaL",
		progArgs: true,
		argExts:  programExts,
		values:   map[string][]string{"format": exportFormatNames(), "collectives": {"simgrid", "steps"}},
		details:  fmt.Sprintf(exportHelp, netmodel.DefaultPlatform),
		flags: func(fs *pflag.FlagSet) any {
			o := &exportOptions{}
			fs.StringVar(&o.format, "format", "", "what to write: "+exportFormatList())
			fs.StringVarP(&o.out, "output", "o", "", "tit: directory to write the traces into (created if need be); ncptl: the file to write (default: standard output)")
			fs.StringVar(&o.collectives, "collectives", "simgrid", "tit: write collectives over every task as SimGrid collectives (simgrid), or as the point-to-point steps of the interpreter's algorithms (steps)")
			o.sim.register(fs)
			return o
		},
		run: runExport,
	})
}

// exportFormats are the formats export writes, with what each is for.
var exportFormats = []struct{ name, what string }{
	{"tit", "SimGrid time-independent traces, for smpirun -replay"},
	{"ncptl", "the program as strict coNCePTuaL 1.5, for coNCePTuaL's own compiler"},
	{"simgrid-platform", "the platform (--platform) as a SimGrid platform file, for smpirun -platform"},
}

// tit.Writer is what the interpreter reports to.
var _ interp.Observer = (*tit.Writer)(nil)

func exportFormatNames() []string {
	var names []string
	for _, f := range exportFormats {
		names = append(names, f.name)
	}
	return names
}

func exportFormatList() string { return strings.Join(exportFormatNames(), ", ") }

type exportOptions struct {
	sim         simOptions
	format, out string
	collectives string // tit: "simgrid" or "steps"
}

const exportHelp = `
With --format tit, runs PROG for N tasks as "parley run" does and writes
what each task issues, in order, as traces another simulator can replay.
With --format ncptl, writes PROG itself, without running it, as strict
coNCePTuaL 1.5. With --format simgrid-platform, writes the platform
(--platform, a flow platform on a star or a fat tree with one task per
node) as a SimGrid platform file to -o FILE.xml, no program needed.
Formats:
  ncptl  PROG as text that coNCePTuaL's own compiler (lanl/coNCePTuaL
       1.5.1b, c_mpi backend) accepts, Parley's extensions lowered and
       each lowering named, with its lines, in a header comment: FLOPS
       and MEMORY TRAFFIC become COMPUTES FOR at the rates of --platform,
       Parley's collectives become MULTICAST and REDUCE, a message that
       uses its statement's task variables becomes a loop over the tasks.
       A construct with no coNCePTuaL form stops the export, with its
       position and what to change, and nothing is written. The export
       runs on any number of tasks: it takes no --tasks, --seed or
       program options (the exported program takes those when it runs).
         parley export --format ncptl ring.parley -o ring.ncptl
         ncptl --backend=c_mpi --output=ring ring.ncptl
       -o - (the default) is standard output. See docs/export.md.
  simgrid-platform
       parley export --format simgrid-platform --platform star-edr -o star.xml
       SimGrid numbers a cluster's hosts in name order (node-0, node-1,
       node-10, ...): replay with a hostfile listing node-0 to node-(N-1)
       one a line (smpirun -hostfile) so that rank r runs on node r as in
       Parley, and with the options the file's comment gives:
       --cfg=network/model:LV08 for factors = "simgrid", and SMPI's
       eager thresholds set to the platform's S.
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
as the point-to-point steps of the algorithm the interpreter ran them with
(--collectives steps writes every collective so, for a replay that sends
exactly the messages parley priced);
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
printed) or the files could not be written; 2 for bad usage; 130 if Ctrl-C
stopped the run (what was issued up to then is written).`

func runExport(e *env, inv *invocation) int {
	o := inv.opts.(*exportOptions)
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "parley export: "+format+"\n", a...)
		return 2
	}
	switch {
	case o.format == "":
		return usageErr("--format is required (known formats: %s)", exportFormatList())
	case !slices.ContainsFunc(exportFormats, func(x struct{ name, what string }) bool { return x.name == o.format }):
		return usageErr("unknown format %q (known formats: %s)", o.format, exportFormatList())
	case o.format == "simgrid-platform":
		return exportPlatform(e, o)
	case len(inv.pos) == 0:
		return usageErr("no program to export")
	case len(inv.pos) > 1:
		return usageErr("one program at a time (got %s)", strings.Join(inv.pos, ", "))
	case o.format == "ncptl":
		return runExportNcptl(e, inv, o)
	case o.out == "":
		return usageErr("-o DIR is required")
	case o.out == "-":
		return usageErr("-o names a directory (one trace per rank and an index), not standard output")
	case o.collectives != "simgrid" && o.collectives != "steps":
		return usageErr("--collectives %q: simgrid or steps", o.collectives)
	}
	path := inv.pos[0]
	s, code := o.sim.prepare(e, inv, path)
	if s == nil {
		return code
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if path == "-" {
		base = "stdin"
	}
	_, statErr := os.Stat(o.out)
	w, err := tit.Create(o.out, base, s.opts.NumTasks, &s.plat.Machine)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 1
	}
	w.Steps = o.collectives == "steps"
	s.opts.Observer = w
	sim, code := s.start(e, inv)
	if sim == nil {
		// Nothing was written; leave no empty directory behind.
		if statErr != nil {
			os.Remove(o.out)
		}
		return code
	}
	res := s.run(sim)
	werr := w.Close()
	for _, pr := range res.Problems {
		reportProblem(e.stderr, inv.cmd.CommandPath(), s.prog, pr)
	}
	code = s.status(res)
	if werr != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", werr)
		return 1
	}
	writeExportSummary(e.stdout, w, s.opts.NumTasks, s.plat, res)
	if code != 0 {
		fmt.Fprintf(e.stderr, "parley export: the run did not end cleanly; the traces hold what each task issued up to then\n")
	}
	return code
}

// exportPlatform writes the platform as SimGrid XML to -o (a file, or "-"
// for standard output).
func exportPlatform(e *env, o *exportOptions) int {
	if o.out == "" {
		fmt.Fprintln(e.stderr, "parley export: -o FILE.xml is required (- for standard output)")
		return 2
	}
	plat, err := netmodel.Resolve(o.sim.platform)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 2
	}
	var buf strings.Builder
	if err := sgplatform.Write(&buf, plat); err != nil {
		fmt.Fprintf(e.stderr, "parley export: %s: %v\n", plat.Source, err)
		return 2
	}
	if err := writeOutput(e, o.out, []byte(buf.String())); err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 1
	}
	return 0
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

// runExportNcptl writes the program as strict coNCePTuaL 1.5. It runs
// nothing, so the options of a run do not apply.
func runExportNcptl(e *env, inv *invocation, o *exportOptions) int {
	for _, name := range []string{"tasks", "seed", "max-events"} {
		if inv.changed(name) {
			fmt.Fprintf(e.stderr, "parley export: --%s does not apply to --format ncptl: the export runs on any number of tasks, and runs nothing\n", name)
			return 2
		}
	}
	if len(inv.rest) > 0 {
		fmt.Fprintf(e.stderr, "parley export: program options (%s) do not apply to --format ncptl: give them to the exported program when it runs\n", strings.Join(inv.rest, " "))
		return 2
	}
	path, out := inv.pos[0], o.out
	if out == "" {
		out = "-"
	}
	if out != "-" {
		switch {
		case sameFile(path, out):
			fmt.Fprintf(e.stderr, "parley export: -o %s would overwrite the program; name another file\n", out)
			return 2
		case strings.EqualFold(filepath.Ext(out), ".parley"):
			fmt.Fprintf(e.stderr, "parley export: -o %s: the export is coNCePTuaL; name a .ncptl file\n", out)
			return 2
		}
	}
	plat, err := netmodel.Resolve(o.sim.platform)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 2
	}
	prog := load(e, path)
	if prog == nil {
		return 1
	}
	command := "parley export --format ncptl --platform " + plat.Name
	text, err := ncptl.Export(prog, ncptl.Options{Platform: plat, Command: command})
	if diags, ok := errors.AsType[lang.Diagnostics](err); ok {
		for _, d := range diags {
			fmt.Fprintln(e.stderr, d.Pretty(prog.Source))
		}
		fmt.Fprintf(e.stderr, "parley export: %s has %d construct(s) with no coNCePTuaL form; nothing written\n", displayName(path), len(diags))
		return 1
	}
	if err == nil {
		err = writeOutput(e, out, text)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "parley export: %v\n", err)
		return 1
	}
	if out != "-" {
		base := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
		fmt.Fprintf(e.stderr, "parley export: wrote %s; compile it with coNCePTuaL: ncptl --backend=c_mpi --output=%s %s\n", out, base, out)
	}
	return 0
}
