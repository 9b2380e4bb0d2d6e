package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

func init() {
	register(&command{
		name: "check", argExts: programExts, args: "FILE...", summary: "check programs and report every problem",
		details: `
Parses and checks each FILE (.parley or .ncptl; "-" is standard input) and
prints every error and warning as file:line:col with the offending text and
a hint. Exits 0 if every file is free of errors, 1 otherwise.`,
		flags: func(fs *pflag.FlagSet) any {
			o := &checkOptions{}
			fs.BoolVarP(&o.quiet, "quiet", "q", false, "print errors only, not warnings")
			fs.BoolVarP(&o.verbose, "verbose", "v", false, "also say which files are free of errors")
			return o
		},
		run: runCheck,
	})
	register(&command{
		name: "fmt", argExts: programExts, args: "[-w | -l] FILE...", summary: "print programs in canonical form",
		details: `
Prints each FILE in canonical form: keywords in upper case, variables in
lower case, verbs agreeing with their subjects, one statement per line.
Comments are kept. A file with syntax errors is left alone.`,
		flags: func(fs *pflag.FlagSet) any {
			o := &fmtOptions{}
			fs.BoolVarP(&o.write, "write", "w", false, "write the result back to each file instead of printing it")
			fs.BoolVarP(&o.list, "list", "l", false, "list the files whose formatting differs from canonical form")
			return o
		},
		run: runFmt,
	})
	register(&command{
		name: "params", argExts: programExts, args: "FILE", summary: "list a program's parameters: help, options, default",
		details: `
Lists the parameters FILE declares, with their help text, command-line
options and default values. Give parameter values to "parley run" after
"--", e.g.  parley run prog.parley --tasks 8 -- --reps 100`,
		run: runParams,
	})
	register(&command{name: "version", summary: "print the version", run: runVersion})
}

type checkOptions struct{ quiet, verbose bool }

type fmtOptions struct{ write, list bool }

// programExts are the extensions of program files, for shell completion.
var programExts = []string{"parley", "ncptl"}

// readSource reads a program: "-" is standard input, and a name that is not
// a file but is one of the embedded examples reads that example.
func readSource(e *env, path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(e.stdin)
	}
	return examples.Read(path)
}

// load reads, parses and checks a program, printing its diagnostics to
// stderr. It returns the program, or nil if it has errors.
func load(e *env, path string) *lang.Program { return loadQuiet(e, path, false) }

// loadQuiet is load that can leave warnings unprinted.
func loadQuiet(e *env, path string, errorsOnly bool) *lang.Program {
	src, err := readSource(e, path)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley: %v\n", err)
		return nil
	}
	prog, diags := parser.ParseWith(displayName(path), src, parser.Options{MaxMemory: int64(e.maxMemory)})
	if prog != nil && !diags.HasErrors() {
		diags = append(diags, lang.Check(prog)...)
		diags.Sort()
	}
	for _, d := range diags {
		if errorsOnly && d.Severity == lang.Warning {
			continue
		}
		fmt.Fprintln(e.stderr, d.Pretty(src))
	}
	if prog == nil || diags.HasErrors() {
		return nil
	}
	return prog
}

func displayName(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

func runCheck(e *env, inv *invocation) int {
	o := inv.opts.(*checkOptions)
	if len(inv.pos) == 0 {
		fmt.Fprintln(e.stderr, "parley check: no files given; e.g. parley check prog.parley")
		return 2
	}
	status := 0
	for _, path := range inv.pos {
		prog := loadQuiet(e, path, o.quiet)
		if prog == nil {
			status = 1
			continue
		}
		if o.verbose {
			params := 0
			for _, h := range prog.Headers {
				if _, ok := h.(*lang.ParamDecl); ok {
					params++
				}
			}
			fmt.Fprintf(e.stderr, "%s: ok: %d parameters, %d top-level statements\n", displayName(path), params, len(prog.Body))
		}
	}
	return status
}

func runFmt(e *env, inv *invocation) int {
	o := inv.opts.(*fmtOptions)
	if len(inv.pos) == 0 {
		fmt.Fprintln(e.stderr, "parley fmt: no files given; e.g. parley fmt -w prog.parley")
		return 2
	}
	status := 0
	for _, path := range inv.pos {
		src, err := readSource(e, path)
		if err != nil {
			fmt.Fprintf(e.stderr, "parley: %v\n", err)
			status = 1
			continue
		}
		prog, diags := parser.ParseWith(displayName(path), src, parser.Options{MaxMemory: int64(e.maxMemory)})
		if prog == nil || diags.HasErrors() {
			for _, d := range diags.Errors() {
				fmt.Fprintln(e.stderr, d.Pretty(src))
			}
			status = 1
			continue
		}
		out := lang.Format(prog)
		switch {
		case o.list:
			if !bytes.Equal(src, out) {
				fmt.Fprintln(e.stdout, path)
			}
		case o.write && path != "-":
			if bytes.Equal(src, out) {
				continue
			}
			info, err := os.Stat(path)
			if err != nil {
				fmt.Fprintf(e.stderr, "parley: %v\n", err)
				status = 1
				continue
			}
			if err := os.WriteFile(path, out, info.Mode().Perm()); err != nil {
				fmt.Fprintf(e.stderr, "parley: %v\n", err)
				status = 1
			}
		default:
			e.stdout.Write(out)
		}
	}
	return status
}

func runParams(e *env, inv *invocation) int {
	if len(inv.pos) != 1 {
		fmt.Fprintln(e.stderr, "parley params: give exactly one file, e.g. parley params prog.parley")
		return 2
	}
	prog := load(e, inv.pos[0])
	if prog == nil {
		return 1
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PARAMETER\tOPTIONS\tDEFAULT\tDESCRIPTION")
	n := 0
	for _, h := range prog.Headers {
		p, ok := h.(*lang.ParamDecl)
		if !ok {
			continue
		}
		n++
		def := lang.FormatExpr(p.Default)
		if len(p.Sweep) > 0 {
			parts := make([]string, len(p.Sweep))
			for i, r := range p.Sweep {
				parts[i] = lang.FormatRange(r)
			}
			def += " (sweeps " + strings.Join(parts, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s, %s\t%s\t%s\n", p.Name.Name, p.Short.Value, p.Long.Value, def, p.Help.Value)
	}
	tw.Flush()
	if n == 0 {
		fmt.Fprintln(e.stdout, "(the program declares no parameters)")
	}
	return 0
}

func runVersion(e *env, inv *invocation) int {
	if len(inv.pos) > 0 {
		fmt.Fprintln(e.stderr, "parley version: takes no arguments")
		return 2
	}
	fmt.Fprint(e.stdout, versionLine())
	return 0
}

// versionLine is what "parley version" and "parley --version" print.
func versionLine() string {
	return fmt.Sprintf("parley %s (language %s, coNCePTuaL-compatible)\n", version, lang.LanguageVersion)
}
