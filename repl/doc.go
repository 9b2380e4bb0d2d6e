// Package repl is Parley's interactive what-if shell, `parley repl`.
//
// A Session holds a program, a task count, parameter values, a platform
// (a preset or file, with fields set and compute or network scaled) and
// the last runs and sweep. Each command is a method on Session, so tests
// and benchmarks drive a session without a terminal. Shell reads commands
// and Parley text, from a terminal through github.com/chzyer/readline
// (history, tab completion, multi-line statements, Ctrl-C cancelling a
// run) or line by line from a script, and hands them to the session.
//
// A session keeps its parsed and built program and its platform between
// runs and rebuilds only what a command changed; a command that fails
// leaves the session as it was.
//
// repl imports interp, ir, lang, parser, netmodel, examples, stdlib and
// the standard library, plus readline, progressbar and gonum/plot.
package repl
