package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/parley-hpc/parley/frontend/valueflow"
	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/internal/progress"
	"github.com/parley-hpc/parley/lang"
)

func init() {
	register(&command{
		name:     "analyze",
		args:     "FILE.c|FILE.cpp|FILE.ll... [--tasks 2,4,8] [--json] [-o PROG.parley] [--matrix DIR] [-- PROGRAM ARGS]",
		summary:  "estimate the communication of a parallel version of a sequential C/C++ program",
		details:  analyzeHelp,
		progArgs: true,
		argExts:  []string{"c", "cpp", "cc", "ll"},
		flags: func(fs *pflag.FlagSet) any {
			o := &analyzeOptions{}
			fs.StringVar(&o.tasks, "tasks", "2,4,8", "the task counts to estimate for, comma-separated")
			fs.BoolVar(&o.json, "json", false, "print the report as JSON")
			fs.StringVarP(&o.out, "output", "o", "", "write a Parley program for the largest task count here")
			fs.StringVar(&o.matrix, "matrix", "", "write each communication matrix here as CSV and as an SVG heatmap")
			fs.Int64Var(&o.maxInstructions, "max-instructions", valueflow.DefaultMaxInstructions, "stop a program that runs more IR instructions than this")
			return o
		},
		run: runAnalyze,
	})
}

type analyzeOptions struct {
	tasks, out, matrix string
	json               bool
	maxInstructions    int64
}

const analyzeHelp = `
Runs a sequential program on the given arguments and estimates, for each
task count, how many bytes an SPMD version of it would send between tasks
(seed 001, CommAnalyzer): which values each computed value is made of, and
which of them cross between tasks when the values are divided among tasks to
keep those that flow into each other together. Values that almost every
computation touches become broadcasts and reductions.

C and C++ files are compiled with clang-14 (-O1 -g) and linked with
llvm-link-14; .ll files are LLVM 14 IR. The program's own arguments go
after "--"; what it prints goes to standard error, so that standard output
carries the report alone. docs/valueflow.md explains the model and its
limits. For example:
  parley analyze jacobi.c --tasks 2,4,8 -- 256 100
  parley analyze spmv.c --json --matrix out/ -o spmv.parley
  parley run spmv.parley      # predict the estimated traffic
  parley compile spmv.parley  # a benchmark of it`

func runAnalyze(e *env, inv *invocation) int {
	o := inv.opts.(*analyzeOptions)
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(e.stderr, "parley analyze: "+format+"\n", a...)
		return code
	}
	if len(inv.pos) == 0 {
		return fail(2, "give the program's source files, e.g. parley analyze jacobi.c -- 256 100")
	}
	tasks, err := parseTasks(o.tasks)
	if err != nil {
		return fail(2, "--tasks %s: %v", o.tasks, err)
	}
	if o.maxInstructions < 1 {
		return fail(2, "--max-instructions %d: give a positive number of instructions", o.maxInstructions)
	}
	for _, f := range inv.pos {
		if o.out != "" && o.out != "-" && sameFile(f, o.out) {
			return fail(2, "-o %s would overwrite the program's source; name a .parley file elsewhere", o.out)
		}
	}
	if o.matrix != "" {
		if err := checkDir(o.matrix); err != nil {
			return fail(2, "--matrix: %v", err)
		}
	}
	opts := valueflow.Options{Tasks: tasks, Args: inv.rest, MaxInstructions: o.maxInstructions,
		MaxMemory: int64(e.maxMemory), Stdout: e.stderr}
	if e.progress != nil {
		bar := progress.NewCounter(e.progress, "running", "instructions")
		opts.Progress = bar.Set
		defer bar.Finish()
	}
	rep, err := valueflow.Analyze(inv.pos, opts)
	var le *valueflow.LoadError
	var re *valueflow.RunError
	var over *memlimit.OverError
	switch {
	case errors.As(err, &over):
		return fail(1, "%v", err)
	case errors.As(err, &le), errors.As(err, &re):
		return fail(2, "%v", err)
	case err != nil:
		return fail(2, "%v", err)
	}
	if o.json {
		if err := writeAnalyzeJSON(e, rep); err != nil {
			return fail(1, "%v", err)
		}
	} else {
		writeAnalyzeTable(e, rep)
	}
	if o.matrix != "" {
		for _, r := range rep.Results {
			if err := writeMatrix(o.matrix, r); err != nil {
				return fail(1, "--matrix: %v", err)
			}
		}
	}
	if o.out != "" {
		k := tasks[0]
		for _, t := range tasks {
			k = max(k, t)
		}
		prog, err := rep.Program(k)
		if err != nil {
			return fail(1, "%v", err)
		}
		if err := writeOutput(e, o.out, lang.Format(prog)); err != nil {
			return fail(1, "%v", err)
		}
		if o.out != "-" {
			fmt.Fprintf(e.stderr, "parley analyze: wrote %s: the estimate for %d tasks as a Parley program\n", o.out, k)
		}
	}
	return 0
}

// parseTasks reads a comma-separated list of task counts.
func parseTasks(s string) ([]int, error) {
	var tasks []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		k, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a task count; give numbers such as 2,4,8", f)
		}
		if k < 1 {
			return nil, fmt.Errorf("%d tasks; task counts must be at least 1", k)
		}
		tasks = append(tasks, k)
	}
	return tasks, nil
}

func writeAnalyzeTable(e *env, rep *valueflow.Report) {
	fmt.Fprintf(e.stdout, "%s: %d IR instructions; %d values in %d vertices, %d edges\n",
		strings.Join(rep.Files, " "), rep.Instructions, rep.Values, rep.Vertices, rep.Edges)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tasks\ttotal bytes\tmax per task\tsingletons\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t\n", r.Tasks, r.TotalBytes, r.MaxTaskBytes, r.Singletons)
	}
	tw.Flush()
}

// analyzeJSON is the --json report: the keys the issue fixes, and more.
type analyzeJSON struct {
	Instructions int64            `json:"instructions"`
	Results      []resultJSON     `json:"results"`
	Files        []string         `json:"files"`
	Args         []string         `json:"args"`
	ExitCode     int              `json:"exit_code"`
	Graph        map[string]int64 `json:"graph"`
}

type resultJSON struct {
	Tasks          int       `json:"tasks"`
	TotalBytes     int64     `json:"total_bytes"`
	MatrixBytes    [][]int64 `json:"matrix_bytes"`
	Singletons     int       `json:"singletons"`
	MaxTaskBytes   int64     `json:"max_task_bytes"`
	EdgeCut        int64     `json:"edge_cut"`
	BroadcastBytes []int64   `json:"broadcast_bytes"`
	ReduceBytes    []int64   `json:"reduce_bytes"`
	AllreduceBytes int64     `json:"allreduce_bytes"`
	Work           []int64   `json:"work"`
}

func writeAnalyzeJSON(e *env, rep *valueflow.Report) error {
	out := analyzeJSON{Instructions: rep.Instructions, Files: rep.Files, Args: rep.Args, ExitCode: rep.ExitCode,
		Graph: map[string]int64{"values": rep.Values, "vertices": rep.Vertices, "edges": rep.Edges}}
	if out.Args == nil {
		out.Args = []string{}
	}
	for _, r := range rep.Results {
		out.Results = append(out.Results, resultJSON{Tasks: r.Tasks, TotalBytes: r.TotalBytes, MatrixBytes: r.MatrixBytes,
			Singletons: r.Singletons, MaxTaskBytes: r.MaxTaskBytes, EdgeCut: r.EdgeCut, BroadcastBytes: r.BroadcastBytes,
			ReduceBytes: r.ReduceBytes, AllreduceBytes: r.AllreduceBytes, Work: r.Work})
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeMatrix writes r's matrix as dir/matrix-K.csv (row = sender) and as
// a heatmap dir/matrix-K.svg.
func writeMatrix(dir string, r valueflow.Result) error {
	base := filepath.Join(dir, fmt.Sprintf("matrix-%d", r.Tasks))
	f, err := os.Create(base + ".csv")
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	for _, row := range r.MatrixBytes {
		rec := make([]string, len(row))
		for j, b := range row {
			rec[j] = strconv.FormatInt(b, 10)
		}
		w.Write(rec)
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Estimated bytes between %d tasks (%d in all)", r.Tasks, r.TotalBytes)
	p.X.Label.Text = "receiver"
	p.Y.Label.Text = "sender"
	hm := plotter.NewHeatMap(matrixGrid(r.MatrixBytes), palette.Heat(64, 1))
	if hm.Max <= hm.Min {
		hm.Max = hm.Min + 1 // a uniform matrix still needs a colour scale
	}
	p.Add(hm)
	side := vg.Length(4+min(len(r.MatrixBytes), 64)/8) * vg.Inch
	return p.Save(side, side, base+".svg")
}

// matrixGrid shows a matrix as a grid: column = receiver, row = sender.
type matrixGrid [][]int64

func (m matrixGrid) Dims() (c, r int)   { return len(m), len(m) }
func (m matrixGrid) Z(c, r int) float64 { return float64(m[r][c]) }
func (m matrixGrid) X(c int) float64    { return float64(c) }
func (m matrixGrid) Y(r int) float64    { return float64(r) }
