package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/parley-hpc/parley/repl"
)

func init() {
	register(&command{
		name:    "repl",
		args:    "[PROG] [--platform P]",
		summary: "explore what-ifs interactively: tasks, parameters, platform fields, sweeps, plots",
		argExts: programExts,
		details: `
Starts a what-if session on PROG (a file or an embedded example), or on an
empty program whose statements you type. At a terminal it has history,
tab completion, statements over several lines, and Ctrl-C stops a run
without ending the session; "help" lists the commands. Without a terminal
it reads commands from standard input, one a line, prints no prompts, and
exits 1 if any command failed. For example:

  parley repl halo3d.parley <<'EOF'
  run
  scale compute 0.5
  run
  compare
  sweep tasks 8 64 512
  plot scaling.svg
  EOF

docs/repl.md describes every command.`,
		flags: func(fs *pflag.FlagSet) any {
			o := &replOptions{}
			fs.StringVar(&o.platform, "platform", "", "platform to start on: a preset or a TOML file (default ib-edr)")
			return o
		},
		run: runRepl,
	})
}

type replOptions struct{ platform string }

func runRepl(e *env, inv *invocation) int {
	o := inv.opts.(*replOptions)
	if len(inv.pos) > 1 {
		fmt.Fprintf(e.stderr, "parley repl: one program at a time (got %d)\n", len(inv.pos))
		return 2
	}
	s, err := repl.New(e.stdout, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley repl: %v\n", err)
		return 1
	}
	s.Progress = e.progress
	if o.platform != "" {
		if err := s.SetPlatform(o.platform); err != nil {
			fmt.Fprintf(e.stderr, "parley repl: %v\n", err)
			return 2
		}
	}
	if len(inv.pos) == 1 {
		if err := s.Load(inv.pos[0]); err != nil {
			fmt.Fprintf(e.stderr, "parley repl: %v\n", err)
			return 1
		}
	}
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if err := s.Interactive(repl.HistoryFile()); err != nil {
			fmt.Fprintf(e.stderr, "parley repl: %v\n", err)
			return 1
		}
		return 0
	}
	return s.Script(e.stdin)
}
