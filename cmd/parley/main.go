// Command parley reads, checks, formats and runs programs in the Parley
// language of communication patterns. Run `parley help` for the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// version is the toolchain's version; the language version is
// lang.LanguageVersion.
const version = "0.1.0"

// command is one `parley` subcommand.
type command struct {
	name    string
	args    string // argument synopsis
	summary string
	run     func(env *env, args []string) int
}

// env is what a command may touch; tests substitute buffers.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

func main() {
	os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

func run(e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := find(args[1]); c != nil {
				return c.run(e, []string{"--help"})
			}
		}
		usage(e.stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	c := find(name)
	if c == nil {
		fmt.Fprintf(e.stderr, "parley: unknown command %q\n\n", name)
		usage(e.stderr)
		return 2
	}
	return c.run(e, args[1:])
}

func find(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Parley: an English-like language of communication patterns.

Usage: parley <command> [arguments]

Commands:
`)
	sorted := append([]*command(nil), commands...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "parley <command> --help" for a command's options.
`)
}

// flags returns a flag set for a command whose --help prints the synopsis,
// the summary and the options to stdout.
func flags(e *env, c *command, details string) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: parley %s %s\n\n%s\n", c.name, c.args, c.summary)
		if details != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(details))
		}
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(w, "\nOptions:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args; it returns a non-negative exit code when the
// command should stop (help was asked for, or the flags were bad).
func parseFlags(e *env, fs *flag.FlagSet, args []string) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return 0
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	return -1
}
