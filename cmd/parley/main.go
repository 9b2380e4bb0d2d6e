// Command parley reads, checks, formats and runs programs in the Parley
// language of communication patterns. Run `parley help` for the commands.
//
// The command line is github.com/spf13/cobra over github.com/spf13/pflag:
// GNU-style options that may come before or after the arguments, help per
// command, and shell completion scripts (`parley completion bash`) without
// code of our own.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/parley-hpc/parley/netmodel"
)

// version is the toolchain's version; the language version is
// lang.LanguageVersion.
const version = "0.1.0"

// env is what a command may touch; tests substitute buffers.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// progress, if set, is where long runs show how far they have got (a
	// terminal's standard error), at most every progressEvery (0: the
	// simulator's default).
	progress      io.Writer
	progressEvery time.Duration
	// maxMemory is --max-memory: the bytes parsing, lowering and running
	// may take (0: half the physical memory).
	maxMemory byteSize
}

// byteSize is an option's number of bytes, written with a unit or not
// ("8GiB", "512MB", "1000000").
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "size" }
func (b *byteSize) Set(s string) error {
	n, err := netmodel.ParseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// command is one `parley` subcommand.
type command struct {
	name    string
	args    string // argument synopsis, after the name
	summary string
	details string // help text after the summary
	// progArgs says the command passes what follows "--" to the program.
	progArgs bool
	// argExts are the file extensions shells complete its arguments with;
	// none: any file.
	argExts []string
	// values are the words shells complete an option's value with.
	values map[string][]string
	// flags declares the command's options on fs; the values it binds are
	// what run reads.
	flags func(fs *pflag.FlagSet) any
	// run does the work. pos are the arguments before "--", rest those
	// after; opts is what flags returned. It returns the exit status.
	run func(e *env, c *invocation) int
}

// invocation is one run of a command: its arguments and parsed options.
type invocation struct {
	cmd       *cobra.Command
	pos, rest []string
	opts      any
}

// changed reports whether the option name was given on the command line.
func (inv *invocation) changed(name string) bool { return inv.cmd.Flags().Changed(name) }

var commands []*command

func register(c *command) { commands = append(commands, c) }

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		e.progress = os.Stderr
	}
	os.Exit(run(e, os.Args[1:]))
}

// usageError is bad usage: printed as one line, exit status 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// exitStatus carries a command's non-zero exit status; the command has
// already said why.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// run executes the command line args and returns the exit status.
func run(e *env, args []string) int {
	root := newRoot(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if s, ok := errors.AsType[exitStatus](err); ok {
		return int(s)
	}
	// Everything else cobra or pflag returns is a usage error.
	msg := err.Error()
	if u, ok := errors.AsType[*usageError](err); ok {
		msg = u.msg
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", cmd.CommandPath(), msg)
	return 2
}

// newRoot builds the command tree for one run, writing to e.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "parley",
		Short:         "Parley: an English-like language of communication patterns.",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
		// Bare "parley" prints the usage and fails; anything else that is
		// not a command is reported with the nearest command names.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q%s; \"parley help\" lists the commands", args[0], didYouMean(cmd.SuggestionsFor(args[0])))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rootUsage(cmd, e.stderr)
			return exitStatus(2)
		},
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetVersionTemplate(versionLine())
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		if cmd == root {
			rootUsage(cmd, cmd.OutOrStdout())
			return
		}
		commandHelp(cmd, cmd.OutOrStdout())
	})
	root.SuggestionsMinimumDistance = 2
	root.PersistentFlags().Var(&e.maxMemory, "max-memory",
		"memory that parsing, lowering and running may take, e.g. 8GiB (default: half the physical memory)")
	for _, c := range commands {
		root.AddCommand(c.cobra(e))
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Short = "show the help of a command"
		case "completion":
			c.Short = "print a shell completion script (bash, zsh, fish, powershell)"
		}
	}
	return root
}

// cobra returns c as a cobra command.
func (c *command) cobra(e *env) *cobra.Command {
	inv := &invocation{}
	cmd := &cobra.Command{
		Use:   strings.TrimSpace(c.name + " " + c.args),
		Short: c.summary,
		Long:  strings.TrimSpace(c.details),
		RunE: func(cmd *cobra.Command, args []string) error {
			inv.cmd = cmd
			// Without program options, "--" only ends the options, as in
			// "parley check -- -odd-name.parley".
			inv.pos, inv.rest = args, nil
			if at := cmd.ArgsLenAtDash(); at >= 0 && c.progArgs {
				inv.pos, inv.rest = args[:at], args[at:]
			}
			if code := c.run(e, inv); code != 0 {
				return exitStatus(code)
			}
			return nil
		},
	}
	if c.flags != nil {
		inv.opts = c.flags(cmd.Flags())
	}
	if len(c.argExts) > 0 {
		cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return c.argExts, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	for name, words := range c.values {
		cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return words, cobra.ShellCompDirectiveNoFileComp
		})
	}
	if cmd.Flags().Lookup("platform") != nil {
		// A preset, or a platform file.
		cmd.RegisterFlagCompletionFunc("platform", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return netmodel.Presets(), cobra.ShellCompDirectiveDefault
		})
	}
	return cmd
}

// flagError turns pflag's errors into one line that says what to do: the
// nearest option names, and for commands that run a program, that the
// program's own options go after "--".
func flagError(cmd *cobra.Command, err error) error {
	var name string
	if ne, ok := errors.AsType[*pflag.NotExistError](err); ok {
		name = ne.GetSpecifiedName()
		given := "--" + name
		if short := ne.GetSpecifiedShortnames(); short != "" {
			given = "-" + short
			// "-tasks" is Go flag style for --tasks.
			if cmd.Flags().Lookup(short) != nil {
				return usagef("unknown option %s (did you mean --%s?)", given, short)
			}
		}
		msg := fmt.Sprintf("unknown option %s%s", given, didYouMean(flagSuggestions(cmd.Flags(), name)))
		if c := find(cmd.Name()); c != nil && c.progArgs {
			msg += fmt.Sprintf("; the program's own options go after \"--\", as in parley %s PROG -- %s VALUE", cmd.Name(), given)
		} else {
			msg += fmt.Sprintf("; see \"parley %s --help\"", cmd.Name())
		}
		return usagef("%s", msg)
	}
	return usagef("%v; see \"parley %s --help\"", err, cmd.Name())
}

// flagSuggestions lists fs's long options nearest to name, with dashes:
// those that start with it, or else those fewest edits away (at most 2).
func flagSuggestions(fs *pflag.FlagSet, name string) []string {
	var near []string
	best := 3
	fs.VisitAll(func(f *pflag.Flag) {
		d := levenshtein.ComputeDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) {
			d = 0
		}
		switch {
		case d < best:
			best, near = d, []string{"--" + f.Name}
		case d == best:
			near = append(near, "--"+f.Name)
		}
	})
	return near
}

// didYouMean phrases suggestions: " (did you mean a or b?)".
func didYouMean(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return " (did you mean " + names[0] + "?)"
	}
	return " (did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?)"
}

func find(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// rootUsage lists the commands.
func rootUsage(root *cobra.Command, w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage: parley <command> [arguments]\n\nCommands:\n", root.Short)
	cmds := slices.Clone(root.Commands())
	slices.SortFunc(cmds, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
	for _, c := range cmds {
		if c.IsAvailableCommand() || c.Name() == "help" {
			fmt.Fprintf(w, "  %-11s %s\n", c.Name(), c.Short)
		}
	}
	fmt.Fprint(w, "\nRun \"parley <command> --help\" for a command's options.\n")
}

// commandHelp prints a command's synopsis, summary, details and options.
func commandHelp(cmd *cobra.Command, w io.Writer) {
	fmt.Fprintf(w, "Usage: parley %s\n\n%s\n", cmd.Use, cmd.Short)
	if cmd.Long != "" {
		fmt.Fprintf(w, "\n%s\n", cmd.Long)
	}
	if cmd.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\nOptions:\n%s", cmd.LocalFlags().FlagUsages())
	}
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\nOptions of every command:\n%s", cmd.InheritedFlags().FlagUsages())
	}
}
