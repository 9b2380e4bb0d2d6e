package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/dperf"
	"github.com/parley-hpc/parley/frontend/trace/dumpi"
	"github.com/parley-hpc/parley/frontend/trace/lower"
	"github.com/parley-hpc/parley/frontend/trace/ptrace"
	"github.com/parley-hpc/parley/frontend/trace/scalatrace"
	"github.com/parley-hpc/parley/frontend/trace/tit"
)

func init() {
	register(&command{
		name:    "lower",
		args:    "TRACE [-o PROG.parley] [--format F]",
		summary: "turn an MPI trace into a readable Parley program",
		details: lowerHelp,
		values:  map[string][]string{"format": traceFormatNames()},
		flags: func(fs *pflag.FlagSet) any {
			o := &lowerOptions{}
			fs.StringVarP(&o.out, "output", "o", "", "the program to write (default: standard output)")
			fs.StringVar(&o.format, "format", "", "the trace format: scalatrace, tit, dperf, dumpi or ptrace (default: recognise it)")
			return o
		},
		run: runLower,
	})
}

// traceFormat is one trace reader: its name, its sniffer and its reader.
type traceFormat struct {
	name  string
	sniff func([]byte) bool
	read  func(path string, maxMemory int64) (*trace.Trace, error)
}

// unbounded is a reader that takes no memory limit: a ScalaTrace file of
// a few lines can give a million ranks a call each, but the other readers
// refuse ranks their files do not back with calls, so that their memory
// follows the trace's size.
func unbounded(read func(string) (*trace.Trace, error)) func(string, int64) (*trace.Trace, error) {
	return func(path string, _ int64) (*trace.Trace, error) { return read(path) }
}

func readScalaTrace(path string, maxMemory int64) (*trace.Trace, error) {
	return scalatrace.ReadWith(path, scalatrace.Options{MaxMemory: maxMemory})
}

// traceFormats are tried in this order when --format is not given.
var traceFormats = []traceFormat{
	{"scalatrace", scalatrace.Sniff, readScalaTrace},
	{"dumpi", dumpi.Sniff, unbounded(dumpi.Read)},
	{"dperf", dperf.Sniff, unbounded(dperf.Read)},
	{"tit", tit.Sniff, unbounded(tit.Read)},
	{"ptrace", ptrace.Sniff, unbounded(ptrace.Read)},
}

type lowerOptions struct{ out, format string }

const lowerHelp = `
Reads an MPI trace and writes a Parley program that performs the traced
communication exactly: per rank, the same calls with the same peers and
sizes, in the same order, with the traced computation between them. Loops
in the trace stay loops and ranks that behave alike share statements.

TRACE is a ScalaTrace V2 file, a SimGrid time-independent trace (an index
of per-rank files, or one file of every rank's lines), a dPerf trace (a
file or a directory of per-rank files), a directory of dumpi2ascii
outputs or the directory "parley trace" wrote; the format is recognised from the content unless --format says.

Wildcard receives get the sender they matched when the ranks' calls are run
against each other; a trace that could deadlock is refused with the cycle
of ranks and calls. Then, for example:
  parley lower lu.trace -o lu.parley
  parley run lu.parley        # on the trace's 16 ranks
  parley compile lu.parley --build`

func runLower(e *env, inv *invocation) int {
	o := inv.opts.(*lowerOptions)
	if len(inv.pos) != 1 {
		fmt.Fprintln(e.stderr, "parley lower: give exactly one trace, e.g. parley lower lu.trace -o lu.parley")
		return 2
	}
	path := inv.pos[0]
	if o.out != "" && o.out != "-" && overwritesTrace(path, o.out) {
		fmt.Fprintf(e.stderr, "parley lower: -o %s would overwrite the trace; name a .parley file elsewhere\n", o.out)
		return 2
	}
	tf, err := pickFormat(path, o.format)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley lower: %v\n", err)
		return 2
	}
	tr, err := tf.read(path, int64(e.maxMemory))
	if err != nil {
		fmt.Fprintf(e.stderr, "parley lower: %v\n", err)
		// A damaged trace is bad input, as a missing one is; a trace
		// over the memory limit or one that cannot be read is a problem.
		if _, damaged := errors.AsType[*trace.SyntaxError](err); damaged {
			return 2
		}
		return 1
	}
	if tr.Partial != "" {
		fmt.Fprintf(e.stderr, "parley lower: warning: a partial trace: %s\n", tr.Partial)
	}
	res, err := lower.Lower(tr, lower.Options{Name: filepath.Base(path), MaxMemory: int64(e.maxMemory)})
	if err != nil {
		fmt.Fprintf(e.stderr, "parley lower: %v\n", err)
		return 1
	}
	if o.out == "" || o.out == "-" {
		e.stdout.Write(res.Source)
		return 0
	}
	if err := writeOutput(e, o.out, res.Source); err != nil {
		fmt.Fprintf(e.stderr, "parley lower: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.stderr, "parley lower: wrote %s: %d lines for %d ranks (%d distinct behaviours)\n",
		o.out, strings.Count(string(res.Source), "\n"), tr.NumRanks, res.Classes)
	return 0
}

// traceFormatNames lists the trace formats lower reads.
func traceFormatNames() []string {
	var names []string
	for _, tf := range traceFormats {
		names = append(names, tf.name)
	}
	return names
}

// pickFormat returns the reader named by format, or recognises the trace
// at path from its first bytes (a directory from the first of its files
// that a reader recognises: trace directories hold other files too, such
// as dumpi's .meta and a program's source).
func pickFormat(path, format string) (traceFormat, error) {
	for _, tf := range traceFormats {
		if tf.name == format {
			return tf, nil
		}
	}
	names := traceFormatNames()
	if format != "" {
		return traceFormat{}, fmt.Errorf("unknown trace format %q; known: %s", format, strings.Join(names, ", "))
	}
	files, err := traceFiles(path)
	if err != nil {
		return traceFormat{}, err
	}
	for _, file := range files {
		head, err := fileHead(file)
		if err != nil {
			return traceFormat{}, err
		}
		for _, tf := range traceFormats {
			if tf.sniff(head) {
				return tf, nil
			}
		}
	}
	return traceFormat{}, fmt.Errorf("%s: not a trace format parley knows (%s); name one with --format", path, strings.Join(names, ", "))
}

// traceFiles is path itself, or the regular files of the directory at
// path in name order.
func traceFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, de := range entries {
		if de.Type().IsRegular() {
			files = append(files, filepath.Join(path, de.Name()))
		}
	}
	if len(files) == 0 {
		return nil, errors.New(path + ": an empty directory, not a trace")
	}
	sort.Strings(files)
	return files, nil
}

// overwritesTrace reports whether out is the trace at path or one of its
// files.
func overwritesTrace(path, out string) bool {
	files, err := traceFiles(path)
	if err != nil {
		return false
	}
	for _, f := range files {
		if sameFile(f, out) {
			return true
		}
	}
	return false
}

// fileHead reads the first 4 KiB of the file at path.
func fileHead(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}
