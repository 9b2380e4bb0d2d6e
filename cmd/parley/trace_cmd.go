package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/frontend/trace/ptrace"
	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/tracer"
)

func init() {
	register(&command{
		name:     "trace",
		args:     "[-o DIR] -- mpirun ... APP ARGS",
		summary:  "run an MPI program with parley's tracer and keep its trace",
		details:  traceHelp,
		progArgs: true,
		flags: func(fs *pflag.FlagSet) any {
			o := &traceOptions{}
			fs.StringVarP(&o.out, "output", "o", "parley-trace", "the directory the trace goes to")
			fs.DurationVar(&o.timeout, "timeout", time.Hour, "stop the program after this long")
			fs.BoolVar(&o.cpu, "cpu-time", false, "also record the CPU time between calls, and lower that as the computation")
			return o
		},
		run: runTrace,
	})
}

type traceOptions struct {
	out     string
	timeout time.Duration
	cpu     bool
}

const traceHelp = `
Runs the command after "--" (an MPI launcher and the application, or the
application alone) with parley's PMPI tracer preloaded, and writes one file
per rank to DIR. The tracer records every point-to-point call, wait, test
and probe, every collective and the communicator calls, with the time
computed between them, and folds loops as they happen, so that a trace
does not grow with the iteration count. Then:
  parley trace -o jacobi.trace -- mpirun -np 4 ./jacobi --iters 100
  parley lower jacobi.trace -o jacobi.parley

The computation between calls is wall-clock time; on a loaded or
oversubscribed machine, where a rank waits for a processor, --cpu-time
records the CPU time too (a system call per MPI call), and lower uses it.

The tracer is built from the source inside parley with mpicc, once, into
the user's cache directory. A program that crashes leaves a partial trace,
which parley lower reads up to the last point every rank reached. The
program must be linked dynamically against MPI (mpicc's default). Exit
status: 0 when the program ran and its trace is complete, 2 otherwise.
See docs/tracer.md.`

// buildTimeout bounds building the tracer; probeTimeout asking the
// launcher its version; grace how long a stopped program may take to go.
const (
	buildTimeout = 2 * time.Minute
	probeTimeout = 20 * time.Second
	grace        = 10 * time.Second
)

// staleFile names what an earlier trace left in a directory: it is removed
// so that two runs never mix.
var staleFile = regexp.MustCompile(`^rank-[0-9]+\.ptrace(\.tmp)?$`)

func runTrace(e *env, inv *invocation) int {
	o := inv.opts.(*traceOptions)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "parley trace: "+format+"\n", a...)
		return 2
	}
	if len(inv.pos) > 0 {
		return fail("put the command after --, e.g. parley trace -o app.trace -- mpirun -np 4 ./app")
	}
	if len(inv.rest) == 0 {
		return fail("give the command to trace after --, e.g. parley trace -- mpirun -np 4 ./app")
	}
	if o.timeout <= 0 {
		return fail("--timeout must be positive")
	}
	argv0, err := exec.LookPath(inv.rest[0])
	if err != nil {
		return fail("%v", err)
	}
	mpicc, err := exec.LookPath("mpicc")
	if err != nil {
		return fail("mpicc not found: the tracer is built with it; install an MPI (on Debian: apt-get install openmpi-bin libopenmpi-dev)")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return fail("no cache directory for the tracer: %v (set XDG_CACHE_HOME or HOME)", err)
	}
	bctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	lib, built, err := tracer.Build(bctx, mpicc, filepath.Join(cache, "parley"))
	cancel()
	if err != nil {
		return fail("%v", err)
	}
	if built {
		fmt.Fprintf(e.stderr, "parley trace: built the tracer: %s\n", lib)
	}
	dir, err := filepath.Abs(o.out)
	if err != nil {
		return fail("%v", err)
	}
	if err := prepareTraceDir(dir); err != nil {
		return fail("%v", err)
	}
	pctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	launcher := tracer.DetectLauncher(pctx, argv0)
	cancel()
	argv, envv := tracer.Preload(append([]string{argv0}, inv.rest[1:]...), os.Environ(), launcher, lib, dir, o.cpu)
	rctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	runErr := tracer.Run(rctx, argv, envv, e.stdout, e.stderr, grace)
	var why string
	switch {
	case errors.Is(runErr, tracer.ErrTimeout):
		why = fmt.Sprintf("stopped after --timeout %v", o.timeout)
	case runErr != nil:
		why = fmt.Sprintf("the program failed (%v)", runErr)
	}
	run, err := ptrace.ReadRun(dir)
	if err != nil {
		if why == "" {
			why = "the program ran"
		}
		return fail("%s, but left no trace: %v.\nDoes %q run an MPI program, linked dynamically against MPI (mpicc's default)?", why, err, strings.Join(inv.rest, " "))
	}
	t := run.Trace
	span := "from MPI_Init to MPI_Finalize"
	if t.Partial != "" {
		span = "from MPI_Init to the end of the trace"
	}
	fmt.Fprintf(e.stderr, "parley trace: wrote %s: %d ranks, %s in %d files, %.3f s %s\n",
		dir, t.NumRanks, memlimit.Format(run.Bytes), countFiles(run), run.Elapsed()/1e6, span)
	if why == "" && t.Partial == "" {
		fmt.Fprintf(e.stderr, "parley trace: next: parley lower %s -o PROG.parley\n", o.out)
		return 0
	}
	if why == "" {
		why = "the program ended early"
	}
	if t.Partial != "" {
		fmt.Fprintf(e.stderr, "parley trace: %s; the trace is partial: %s\n", why, t.Partial)
	} else {
		fmt.Fprintf(e.stderr, "parley trace: %s, though every rank reached MPI_Finalize\n", why)
	}
	fmt.Fprintf(e.stderr, "parley trace: parley lower %s reads what was traced\n", o.out)
	return 2
}

// prepareTraceDir makes dir and removes the rank files of an earlier
// trace in it.
func prepareTraceDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, de := range entries {
		if staleFile.MatchString(de.Name()) {
			if err := os.Remove(filepath.Join(dir, de.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func countFiles(run *ptrace.Run) int {
	n := 0
	for _, f := range run.Files {
		if f != nil {
			n++
		}
	}
	return n
}
