package ncptl

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// Options say what an export is for.
type Options struct {
	// Platform gives the rates at which FLOPS and MEMORY TRAFFIC become
	// time and the node speeds that divide COMPUTES FOR; required.
	Platform *netmodel.Platform
	// Command is how the export was asked for; the header comment quotes
	// it when it is set.
	Command string
}

// Export returns prog, a program that lang.Check accepts, as strict
// coNCePTuaL 1.5 text with Parley's extensions lowered and each lowering
// named in a header comment. prog is left as it is. When statements have
// no coNCePTuaL form, Export returns no text and a lang.Diagnostics with
// one error per statement, saying what to change.
func Export(prog *lang.Program, opts Options) ([]byte, error) {
	if opts.Platform == nil {
		return nil, errors.New("ncptl: no platform to price compute with")
	}
	if err := opts.Platform.Machine.Validate(); err != nil {
		return nil, fmt.Errorf("ncptl: platform %s: %w", opts.Platform.Name, err)
	}
	x := newExporter(prog, opts.Platform)
	out, err := x.program()
	if err != nil {
		return nil, err
	}
	if len(x.diags) > 0 {
		x.diags.Sort()
		return nil, x.diags
	}
	var b strings.Builder
	x.header(&b, opts.Command)
	b.Write(lang.FormatStrict(out))
	return []byte(b.String()), nil
}

// exporter holds the state of one export.
type exporter struct {
	prog *lang.Program
	plat *netmodel.Platform
	// used holds every name in the program and those the export made up,
	// so that new variables never capture or hide one.
	used map[string]bool
	// groups are the task groups in scope, innermost last; bound are the
	// variables in scope, outermost first.
	groups []groupDef
	bound  []string
	// timed counts the timed loops around the statement being exported.
	timed   int
	random  bool // the program draws random numbers (coNCePTuaL then adds --seed)
	assigns bool // the program moves tasks to other processors
	notes   map[lowering][]int
	diags   lang.Diagnostics
	// rateErr is the first platform rate that cannot be written exactly.
	rateErr error
}

// groupDef is a LET g BE <tasks> in scope: the description (as exported)
// and how many variables were bound where it was defined.
type groupDef struct {
	name  string
	desc  lang.TaskDesc
	depth int
}

var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func newExporter(prog *lang.Program, plat *netmodel.Platform) *exporter {
	x := &exporter{prog: prog, plat: plat, used: map[string]bool{}, notes: map[lowering][]int{}}
	// Every word of the canonical text: each variable, and more.
	text := lang.Format(prog)
	for _, w := range word.FindAll(text, -1) {
		x.used[strings.ToLower(string(w))] = true
	}
	// A task moved by ARE ASSIGNED TO runs on another node; the word in
	// a comment only makes the export look the processor up needlessly.
	x.assigns = x.used["assigned"]
	return x
}

// fresh returns a variable name based on base that the program does not
// use, and reserves it.
func (x *exporter) fresh(base string) string {
	name := base
	for i := 2; x.used[name] || lang.IsKeyword(name) || lang.IsPredeclared(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	x.used[name] = true
	return name
}

// refuse reports that n has no coNCePTuaL form.
func (x *exporter) refuse(n lang.Node, hint, format string, args ...any) {
	sp := n.NodeSpan()
	x.diags = append(x.diags, lang.Diagnostic{
		Pos: sp.Start, End: sp.End, Severity: lang.Error,
		Msg:  "no coNCePTuaL form: " + fmt.Sprintf(format, args...),
		Text: lang.SourceText(x.prog.Source, sp),
		Hint: hint,
	})
}

// note records that lowering l was applied at n.
func (x *exporter) note(l lowering, n lang.Node) {
	line := n.NodeSpan().Start.Line
	if !slices.Contains(x.notes[l], line) {
		x.notes[l] = append(x.notes[l], line)
	}
}

// c is the copier that also rewrites what coNCePTuaL reads differently.
func (x *exporter) c() copier { return copier{x: x} }

// reservedOptions are the long options coNCePTuaL's C run time defines
// for every program; --seed only for those that draw random numbers.
var reservedOptions = []string{"--comment", "--logfile", "--no-trap"}

func (x *exporter) program() (*lang.Program, error) {
	p := x.prog
	out := &lang.Program{Span: p.Span, File: p.File, Source: p.Source, Comments: p.Comments}
	// The body first: it says whether the program draws random numbers.
	for _, top := range p.Body {
		n := &lang.TopLevel{Span: top.Span}
		for _, s := range top.Stmts {
			n.Stmts = append(n.Stmts, x.stmt(s))
		}
		out.Body = append(out.Body, n)
	}
	for _, h := range p.Headers {
		switch h := h.(type) {
		case *lang.ParamDecl:
			long := h.Long.Value
			switch {
			case slices.Contains(reservedOptions, long):
				x.refuse(h.Long, "choose another long option for "+h.Name.Name,
					"coNCePTuaL's run time defines the option %s for every program", long)
			case long == "--seed" && x.random:
				x.refuse(h.Long, "choose another long option for "+h.Name.Name,
					"coNCePTuaL's run time defines the option --seed for every program that draws random numbers, as this one does")
			}
			n := *h
			n.Default = copier{}.expr(h.Default)
			if h.Sweep != nil {
				n.Sweep = nil
				x.note(lowSweep, h)
			}
			out.Headers = append(out.Headers, &n)
		default:
			out.Headers = append(out.Headers, h)
		}
	}
	return out, x.rateErr
}
