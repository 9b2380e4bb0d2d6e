package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/internal/output"
	"github.com/parley-hpc/parley/internal/progress"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// Defaults of a new session.
const (
	// DefaultTasks is the task count of a program that does not assert
	// one, as for `parley run`.
	DefaultTasks = 64
	// DefaultMaxEvents bounds a run, so that a program that never ends
	// comes back to the prompt (`set max-events 0` lifts it).
	DefaultMaxEvents = 100_000_000
	// sessionFile names a program typed at the prompt.
	sessionFile = "<session>"
	// inputFile names the text of one command in diagnostics.
	inputFile = "<input>"
)

// Session is one REPL session: a program, a task count, parameter
// values, a platform, run settings and the last runs and sweep.
type Session struct {
	out, errOut io.Writer
	// Progress, if set, is where runs and sweeps show how far they have
	// got: a terminal's standard error.
	Progress io.Writer

	prog      *program
	tasks     int64             // 0: the count the program asserts, else DefaultTasks
	params    map[string]string // parameter values by name, as typed
	plat      *platform
	maxEvents int64
	seed      uint64
	show      int

	runs  []*runRecord // the last two runs, oldest first
	sweep *sweepResult // the last sweep
}

// program is a checked and built program with its text.
type program struct {
	file string // its name in summaries and diagnostics
	src  []byte
	lang *lang.Program
	ir   *ir.Program
}

// New returns a session with an empty program on the default platform;
// results go to out and messages to errOut.
func New(out, errOut io.Writer) (*Session, error) {
	prog, err := compile(sessionFile, nil, errOut)
	if err != nil {
		return nil, err
	}
	plat, err := loadPlatform(netmodel.DefaultPlatform)
	if err != nil {
		return nil, err
	}
	return &Session{out: out, errOut: errOut, prog: prog, params: map[string]string{}, plat: plat,
		maxEvents: DefaultMaxEvents, seed: 1, show: 8}, nil
}

// compile parses, checks and builds src, printing warnings to warn. Its
// error holds every error diagnostic, formatted with the source line.
func compile(file string, src []byte, warn io.Writer) (*program, error) {
	prog, diags := parser.Parse(file, src)
	if prog != nil && !diags.HasErrors() {
		diags = append(diags, lang.Check(prog)...)
		diags.Sort()
	}
	if err := diagnosticError(diags, src); err != nil {
		return nil, err
	}
	for _, d := range diags {
		fmt.Fprintln(warn, d.Pretty(src))
	}
	p, err := ir.Build(prog)
	if err != nil {
		return nil, err
	}
	return &program{file: file, src: src, lang: prog, ir: p}, nil
}

// diagnosticError joins the error diagnostics of diags, nil if there is
// none.
func diagnosticError(diags lang.Diagnostics, src []byte) error {
	var lines []string
	for _, d := range diags.Errors() {
		lines = append(lines, d.Pretty(src))
	}
	if lines == nil {
		return nil
	}
	return errors.New(strings.Join(lines, "\n"))
}

// Load makes the program at path (a file, or an embedded example's name)
// the session's program. Parameter values set for the old program are
// dropped; the task count and platform stay.
func (s *Session) Load(path string) error {
	src, err := examples.Read(path)
	if err != nil {
		return err
	}
	prog, err := compile(path, src, s.errOut)
	if err != nil {
		return err
	}
	s.prog, s.params = prog, map[string]string{}
	fmt.Fprintf(s.out, "loaded %s: %d parameters, %d top-level statements\n", path, len(prog.ir.Params), len(prog.lang.Body))
	return nil
}

// Clear starts an empty program (the new command).
func (s *Session) Clear() error {
	prog, err := compile(sessionFile, nil, s.errOut)
	if err != nil {
		return err
	}
	s.prog, s.params = prog, map[string]string{}
	return nil
}

// Incomplete reports whether text, typed at the prompt, stops in the
// middle of a statement, so that the next line continues it.
func Incomplete(text string) bool {
	_, diags := parser.Parse(inputFile, []byte(text))
	return parser.Incomplete(diags)
}

// Add checks Parley text typed at the prompt, declarations or statements,
// and adds it to the program: declarations before the first statement,
// statements at the end. Errors point into the typed text.
func (s *Session) Add(text string) error {
	typed := []byte(strings.TrimSpace(text))
	if !bytes.HasSuffix(typed, []byte(".")) {
		typed = append(typed, '.')
	}
	typed = append(typed, '\n')
	alone, diags := parser.Parse(inputFile, typed)
	if err := diagnosticError(diags, typed); err != nil {
		return err
	}
	if len(alone.Headers) > 0 && len(alone.Body) > 0 {
		return errors.New("type declarations and statements separately: declarations go before the program's first statement")
	}
	// Where the text goes: after the last declaration, or at the end.
	src := s.prog.src
	at := len(src)
	if len(alone.Headers) > 0 && len(s.prog.lang.Body) > 0 {
		at = s.prog.lang.Body[0].Span.Start.Offset
		at = bytes.LastIndexByte(src[:at], '\n') + 1
	}
	var combined []byte
	combined = append(combined, src[:at]...)
	if at > 0 && combined[at-1] != '\n' {
		combined = append(combined, '\n')
	}
	start := len(combined)
	combined = append(combined, typed...)
	combined = append(combined, src[at:]...)
	prog, diags := parser.Parse(s.prog.file, combined)
	if prog != nil && !diags.HasErrors() {
		diags = append(diags, lang.Check(prog)...)
		diags.Sort()
	}
	if errs := diags.Errors(); len(errs) > 0 {
		return typedError(errs, combined, typed, start)
	}
	p, err := ir.Build(prog)
	if err != nil {
		return err
	}
	s.prog = &program{file: s.prog.file, src: combined, lang: prog, ir: p}
	return nil
}

// typedError formats errors found in the program after text typed was
// put in at offset start: those inside it point into the typed text.
func typedError(errs lang.Diagnostics, src, typed []byte, start int) error {
	firstLine := bytes.Count(src[:start], []byte("\n"))
	var lines []string
	for _, d := range errs {
		if o := d.Pos.Offset; o >= start && o < start+len(typed) {
			d.Pos = retarget(d.Pos, start, firstLine)
			if d.End.IsValid() {
				d.End = retarget(d.End, start, firstLine)
			}
			lines = append(lines, d.Pretty(typed))
			continue
		}
		lines = append(lines, d.Pretty(src))
	}
	return errors.New(strings.Join(lines, "\n"))
}

// retarget moves a position in a program to the text typed into it at
// offset start, on line firstLine+1.
func retarget(p lang.Pos, start, firstLine int) lang.Pos {
	return lang.Pos{File: inputFile, Offset: p.Offset - start, Line: p.Line - firstLine, Col: p.Col}
}

// SetTasks sets the number of tasks; 0 goes back to the program's own
// count (its ASSERT ... num_tasks = n, else 64).
func (s *Session) SetTasks(n int64) error {
	if n < 0 || n > interp.MaxTasks {
		return fmt.Errorf("the number of tasks must be between 1 and %d (0: the program's own count), not %d", interp.MaxTasks, n)
	}
	s.tasks = n
	return nil
}

// numTasks is the task count a run uses with program arguments args.
func (s *Session) numTasks(args []string) int64 {
	if s.tasks > 0 {
		return s.tasks
	}
	if n, ok := s.prog.ir.AssertedTasks(args); ok {
		return n
	}
	return DefaultTasks
}

// param returns the declared parameter called name.
func (s *Session) param(name string) (*ir.ParamInfo, error) {
	for _, p := range s.prog.ir.Params {
		if strings.EqualFold(p.Name, name) {
			return p, nil
		}
	}
	var names []string
	for _, p := range s.prog.ir.Params {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("the program has no parameter %s (it declares none); platform fields are written like network.L", name)
	}
	return nil, fmt.Errorf("the program has no parameter %s; its parameters: %s (platform fields are written like network.L)", name, strings.Join(names, ", "))
}

// SetParam gives the program's parameter called name a value for the
// next runs, checked as the program's option would be.
func (s *Session) SetParam(name, value string) error {
	p, err := s.param(name)
	if err != nil {
		return err
	}
	if _, err := ir.ParseInt(value); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	s.params[p.Name] = value
	return nil
}

// args are the program options the session's parameter values make.
func (s *Session) args() []string { return s.argsFor(s.params) }

// argsFor returns the program options that give the parameters values,
// in the order of their declarations.
func (s *Session) argsFor(values map[string]string) []string {
	var args []string
	for _, p := range s.prog.ir.Params {
		if v, ok := values[p.Name]; ok {
			args = append(args, p.Long, v)
		}
	}
	return args
}

// runSpec is everything a run is a pure function of.
type runSpec struct {
	prog      *program
	tasks     int64
	args      []string
	plat      *netmodel.Platform
	label     string // what it ran, for compare and sweeps
	seed      uint64
	maxEvents int64
}

// spec returns the run the session's settings make.
func (s *Session) spec() (*runSpec, error) {
	if len(s.prog.lang.Body) == 0 {
		return nil, errors.New("the program has no statements yet: load a file, or type statements at the prompt")
	}
	args := s.args()
	sp := &runSpec{prog: s.prog, tasks: s.numTasks(args), args: args, plat: s.plat.plat, seed: s.seed, maxEvents: s.maxEvents}
	sp.label = s.describe(sp)
	return sp, nil
}

// describe names a run by what the session was set to.
func (s *Session) describe(sp *runSpec) string {
	parts := []string{fmt.Sprintf("%d tasks", sp.tasks), s.plat.describe()}
	for i := 0; i+1 < len(sp.args); i += 2 {
		parts = append(parts, strings.TrimLeft(sp.args[i], "-")+"="+sp.args[i+1])
	}
	return strings.Join(parts, ", ")
}

// runRecord is a run the session made.
type runRecord struct {
	n    int // its number in the session, from 1
	spec *runSpec
	res  *interp.Result
}

// nextRun numbers runs across the session.
func (s *Session) nextRun() int {
	if len(s.runs) == 0 {
		return 1
	}
	return s.runs[len(s.runs)-1].n + 1
}

// simulate runs sp, cancelled by ctx, with a timeline if asked; the
// program's OUTPUTS go to output (nil: nowhere).
func (s *Session) simulate(ctx context.Context, sp *runSpec, timeline bool, output io.Writer) (*interp.Result, *interp.Sim, error) {
	opts := interp.Options{NumTasks: sp.tasks, Args: sp.args, Platform: sp.plat, Seed: sp.seed,
		MaxEvents: sp.maxEvents, Output: output, Context: ctx, Timeline: timeline}
	if s.Progress != nil && output != nil {
		bar := progress.NewRun(s.Progress)
		opts.Progress = bar.Update
		defer bar.Finish()
	}
	sim, err := interp.New(sp.prog.ir, opts)
	if errors.Is(err, interp.ErrHelp) {
		return nil, nil, fmt.Errorf("the program's options are set with set NAME VALUE:\n%s", sp.prog.ir.Usage())
	}
	if err != nil {
		return nil, nil, err
	}
	return sim.Run(), sim, nil
}

// errProblems marks a command whose run met problems, which have been
// printed.
var errProblems = errors.New("the run had problems")

// Run runs the program with the session's settings and prints the
// summary `parley run` prints, then any problems.
func (s *Session) Run(ctx context.Context) error {
	sp, err := s.spec()
	if err != nil {
		return err
	}
	res, _, err := s.simulate(ctx, sp, false, s.out)
	if err != nil {
		return err
	}
	res.WriteSummary(s.out, s.show)
	s.runs = append(s.runs, &runRecord{n: s.nextRun(), spec: sp, res: res})
	if len(s.runs) > 2 {
		s.runs = slices.Delete(s.runs, 0, 1)
	}
	if !res.OK() {
		for _, p := range res.Problems {
			fmt.Fprintln(s.errOut, p.Pretty(sp.prog.src, "run"))
		}
		return errProblems
	}
	return nil
}

// Timeline runs the last run again with a timeline and writes it, as
// Chrome trace JSON (open in ui.perfetto.dev), to path.
func (s *Session) Timeline(ctx context.Context, path string) error {
	if len(s.runs) == 0 {
		return errors.New("no run yet: run first, then write its timeline")
	}
	last := s.runs[len(s.runs)-1]
	w, err := output.Create(path, s.out)
	if err != nil {
		return err
	}
	_, sim, err := s.simulate(ctx, last.spec, true, io.Discard)
	if err != nil {
		w.Close()
		return err
	}
	err = sim.WriteTimeline(w)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && path != "-" {
		fmt.Fprintf(s.out, "wrote the timeline of run %d (%s) to %s: open it in ui.perfetto.dev\n", last.n, last.spec.label, path)
	}
	return err
}
