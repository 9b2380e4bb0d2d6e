package valueflow

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
)

// DefaultMaxInstructions bounds a run when Options.MaxInstructions is 0.
const DefaultMaxInstructions = 10_000_000_000

// Options control an analysis.
type Options struct {
	// Tasks are the task counts to estimate for; each at least 1.
	Tasks []int
	// Args are the program's command-line arguments (argv[1:]).
	Args []string
	// MaxInstructions bounds the IR instructions executed (0: the
	// default), so that a program that never ends is an error.
	MaxInstructions int64
	// MaxMemory bounds the bytes the run and its graph may take (0: half
	// the physical memory).
	MaxMemory int64
	// Progress, if set, is called now and then with the instructions
	// executed so far.
	Progress func(executed int64)
	// Stdout receives what the program prints (nil: discarded).
	Stdout io.Writer
}

// Report is the outcome of an analysis.
type Report struct {
	// Files and Args are what was analysed.
	Files []string
	Args  []string
	// Instructions is the number of IR instructions executed.
	Instructions int64
	// ExitCode is the program's exit status.
	ExitCode int
	// Values, Vertices and Edges size the value communication graph:
	// values observed, vertices after liveness compression, and distinct
	// vertex pairs that values flow between.
	Values, Vertices, Edges int64
	// Results has one estimate per task count, in the order asked.
	Results []Result
}

// Result is the estimate for one task count.
type Result struct {
	Tasks int
	// TotalBytes is the sum of MatrixBytes.
	TotalBytes int64
	// MatrixBytes[i][j] is the bytes task i sends to task j, collectives
	// included: a broadcast as the root sending to every other task, a
	// reduction as every other task sending to the root, an all-reduce as
	// a reduction to task 0 and a broadcast from it.
	MatrixBytes [][]int64
	// MaxTaskBytes is the most bytes one task sends.
	MaxTaskBytes int64
	// Singletons is the number of singleton vertices (Algorithm 3).
	Singletons int
	// EdgeCut is the weight of the graph edges between tasks.
	EdgeCut int64
	// PointToPoint is the part of MatrixBytes that is not collective.
	PointToPoint [][]int64
	// BroadcastBytes[i] is the bytes task i broadcasts to all others.
	BroadcastBytes []int64
	// ReduceBytes[i] is the bytes of the values every task contributes to
	// and only task i reads (a printed total is reduced to task 0).
	ReduceBytes []int64
	// AllreduceBytes is the bytes of the values every task contributes to
	// and every task reads.
	AllreduceBytes int64
	// Work is each task's computation: the operations in the slices of
	// the values it owns.
	Work []int64
}

// Analyze compiles and links files (.c, .cpp or .ll), runs the program on
// opts.Args with shadow memory, builds its value communication graph and
// estimates, for each task count, the communication of an SPMD version of
// it that keeps the values each task computes local (seed 001).
//
// Errors: a *LoadError for input that does not compile or parse, a
// *RunError for a program that fails or runs too long, a
// *memlimit.OverError when the analysis outgrows opts.MaxMemory.
func Analyze(files []string, opts Options) (*Report, error) {
	if len(opts.Tasks) == 0 {
		return nil, errors.New("no task counts; give at least one, e.g. 2,4,8")
	}
	for _, k := range opts.Tasks {
		if k < 1 {
			return nil, fmt.Errorf("%d tasks; task counts must be at least 1", k)
		}
		if k > maxTasks {
			return nil, fmt.Errorf("%d tasks; the estimate handles up to %d", k, maxTasks)
		}
	}
	mod, err := loadModule(files)
	if err != nil {
		return nil, err
	}
	prog, err := compile(mod)
	if err != nil {
		return nil, &LoadError{File: files[0], Msg: fmt.Sprintf("%s: %v", files[0], err)}
	}
	if prog.main == nil {
		return nil, &LoadError{File: files[0], Msg: fmt.Sprintf("%s: the program has no main function", files[0])}
	}
	m, err := newMachine(prog, &opts)
	if err != nil {
		return nil, err
	}
	if err := m.runMain(filepath.Base(files[0]), opts.Args); err != nil {
		return nil, err
	}
	rep := &Report{Files: slices.Clone(files), Args: slices.Clone(opts.Args), Instructions: m.executed, ExitCode: m.exitCode}
	m.sh.flush()
	m.snapshotLive()
	g := buildGraph(m.sh, m.conform)
	rep.Values, rep.Vertices, rep.Edges = int64(len(m.sh.vals)-1), int64(g.n), int64(len(g.edges))
	for _, k := range opts.Tasks {
		r, err := g.estimate(m.sh, k)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// maxTasks bounds the task counts (the matrices are k x k).
const maxTasks = 1 << 14

// runMain runs main with argv = name, args.
func (m *machine) runMain(name string, args []string) error {
	argv := append([]string{name}, args...)
	ptrs := make([]byte, 8*(len(argv)+1))
	for i, a := range argv {
		addr, err := m.alloc(int64(len(a)+1), objGlobal, 0)
		if err != nil {
			return err
		}
		m.objs[addr>>32].name = fmt.Sprintf("argv[%d]", i)
		copy(m.objs[addr>>32].data, a)
		putUint(ptrs, int64(8*i), 8, addr)
	}
	vec, err := m.alloc(int64(len(ptrs)), objGlobal, 0)
	if err != nil {
		return err
	}
	m.objs[vec>>32].name = "argv"
	copy(m.objs[vec>>32].data, ptrs)
	env, err := m.alloc(8, objGlobal, 0)
	if err != nil {
		return err
	}
	m.objs[env>>32].name = "envp"
	res, err := m.call(m.prog.main, []reg{{v: uint64(len(argv))}, {v: vec}, {v: env}})
	if errors.Is(err, errExit) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(res) > 0 {
		m.exitCode = int(int32(res[0].v))
		m.sh.output(res[0].t)
	}
	return nil
}
