package repl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// command is one REPL command.
type command struct {
	name    string
	args    string // synopsis of its arguments
	summary string
	details string
	// nargs is the least and most arguments it takes; max -1: any.
	min, max int
	run      func(s *Session, ctx context.Context, args []string) error
}

// commands are the REPL's commands, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{
		{name: "load", args: "FILE", summary: "make a program file (or an embedded example) the session's program", min: 1, max: 1,
			details: "The file's parameters start at their defaults; tasks and platform stay as they are.",
			run:     func(s *Session, _ context.Context, a []string) error { return s.Load(a[0]) }},
		{name: "new", summary: "start an empty program, then type its statements", max: 0,
			run: func(s *Session, _ context.Context, _ []string) error { return s.Clear() }},
		{name: "show", summary: "print the program and the session's settings", max: 0,
			run: func(s *Session, _ context.Context, _ []string) error { s.Show(); return nil }},
		{name: "tasks", args: "[N]", summary: "set the number of tasks (0: the program's own); without N, print it", max: 1,
			run: cmdTasks},
		{name: "set", args: "NAME VALUE", summary: "set a program parameter, a platform field or a run setting", min: 2, max: 2,
			details: `NAME is one of
  a parameter of the program, by name (see "params"): set reps 1000
  a platform field with its name and units as in a platform file:
      set network.L 20us      set network.G 25GB/s      set network.S 8KiB
      set machine.tasks_per_node 4
      set machine.nodes.flops 2TF/s       (every node group)
      set machine.nodes[1].memory_bandwidth 400GB/s
      set collectives.allreduce ring
  a run setting: max-events (0: no limit), random-seed, show-tasks
VALUE goes as typed; numbers take the language's suffixes (64K, 1E6).`,
			run: func(s *Session, _ context.Context, a []string) error { return s.Set(a[0], a[1]) }},
		{name: "unset", args: "NAME", summary: "take back a parameter value or platform field set earlier", min: 1, max: 1,
			run: func(s *Session, _ context.Context, a []string) error { return s.Unset(a[0]) }},
		{name: "params", summary: "list the program's parameters with their values", max: 0,
			run: func(s *Session, _ context.Context, _ []string) error { s.Params(); return nil }},
		{name: "platform", args: "[NAME|FILE]", summary: "use a preset or platform file (clears fields set and scales); without it, print the platform", max: 1,
			run: cmdPlatform},
		{name: "scale", args: "compute|network F", summary: "multiply the time of computation or of communication by F (0.5: twice as fast)", min: 2, max: 2,
			details: `scale compute F divides every node group's flop rate, memory bandwidth
and speed by F, so that computation takes F times as long; scale network F
multiplies every LogGOPS time (L, o, g, G, O) by F. 0 makes computation
or communication free. Scales are relative to the platform as loaded:
scale compute 1 takes one back.`,
			run: func(s *Session, _ context.Context, a []string) error { return s.Scale(a[0], a[1]) }},
		{name: "run", summary: "predict the program's run, as parley run does", max: 0,
			run: func(s *Session, ctx context.Context, _ []string) error { return s.Run(ctx) }},
		{name: "sweep", args: "NAME V1 V2 ...", summary: "run once per value of tasks, a parameter, a platform field or a scale", min: 2, max: -1,
			details: `NAME is tasks, a parameter, a platform field (as for set), or
scale.compute or scale.network. The session's own settings do not change.
Then "plot FILE.svg" draws the sweep.`,
			run: func(s *Session, ctx context.Context, a []string) error { return s.Sweep(ctx, a[0], a[1:]) }},
		{name: "compare", summary: "set the last two runs side by side, with ratios", max: 0,
			run: func(s *Session, _ context.Context, _ []string) error { return s.Compare() }},
		{name: "plot", args: "FILE.svg|FILE.png", summary: "draw the last sweep: predicted time and its split against the swept value", min: 1, max: 1,
			run: func(s *Session, _ context.Context, a []string) error { return s.Plot(a[0]) }},
		{name: "timeline", args: "FILE.json", summary: "write the last run's timeline (open it in ui.perfetto.dev); - for standard output", min: 1, max: 1,
			run: func(s *Session, ctx context.Context, a []string) error { return s.Timeline(ctx, a[0]) }},
		{name: "help", args: "[COMMAND]", summary: "list the commands, or say what one does", max: 1,
			run: func(s *Session, _ context.Context, a []string) error { return s.Help(a) }},
		{name: "quit", summary: "end the session (also exit, or Ctrl-D)", max: 0},
		{name: "exit", summary: "end the session", max: 0},
	}
}

// errQuit ends the session.
var errQuit = errors.New("quit")

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// isCommand reports whether line is a command rather than Parley text:
// its first word names a command, unless the line declares a parameter
// (NAME IS "...") or is a statement over TASKS t.
func isCommand(line string) bool {
	f := strings.Fields(line)
	if len(f) == 0 || findCommand(strings.ToLower(f[0])) == nil {
		return false
	}
	if len(f) > 1 && strings.EqualFold(f[1], "is") {
		return false
	}
	// TASKS t SUCH THAT ... is a statement; TASKS and one word never is.
	return !strings.EqualFold(f[0], "tasks") || len(f) <= 2
}

// Exec runs one command or adds one piece of Parley text. ctx cancels a
// run. It returns errQuit to end the session.
func (s *Session) Exec(ctx context.Context, line string) error {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	if !isCommand(line) {
		if err := unknownCommand(line); err != nil {
			return err
		}
		return s.Add(line)
	}
	f := strings.Fields(line)
	c := findCommand(strings.ToLower(f[0]))
	args := f[1:]
	if c.name == "quit" || c.name == "exit" {
		return errQuit
	}
	switch {
	case len(args) < c.min, c.max >= 0 && len(args) > c.max:
		return fmt.Errorf("usage: %s %s", c.name, c.args)
	}
	return c.run(s, ctx, args)
}

// unknownCommand reports a line that is neither a command nor Parley
// text: Parley text starts with a keyword, or declares a parameter (NAME
// IS ...).
func unknownCommand(line string) error {
	f := strings.Fields(line)
	if lang.IsKeyword(f[0]) || strings.HasPrefix(f[0], "{") || len(f) > 1 && strings.EqualFold(f[1], "is") {
		return nil
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("%s is not a command, nor the start of a Parley statement", f[0])
	if near := lang.Suggest(strings.ToLower(f[0]), names); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return errors.New(msg + ` ("help" lists the commands)`)
}

func cmdTasks(s *Session, _ context.Context, a []string) error {
	if len(a) == 0 {
		args := s.args()
		how := "set with tasks N"
		if s.tasks == 0 {
			how = "the program's own count"
			if _, ok := s.prog.ir.AssertedTasks(args); !ok {
				how = "the default"
			}
		}
		fmt.Fprintf(s.out, "%d tasks (%s)\n", s.numTasks(args), how)
		return nil
	}
	n, err := strconv.ParseInt(a[0], 10, 64)
	if err != nil {
		return fmt.Errorf("tasks %s: not a whole number", a[0])
	}
	return s.SetTasks(n)
}

func cmdPlatform(s *Session, _ context.Context, a []string) error {
	if len(a) == 0 {
		fmt.Fprintf(s.out, "%s (presets: %s)\n", s.plat.describe(), strings.Join(netmodel.Presets(), ", "))
		return nil
	}
	return s.SetPlatform(a[0])
}

// SetPlatform starts from the preset or platform file nameOrPath, without
// fields set or scales.
func (s *Session) SetPlatform(nameOrPath string) error {
	p, err := loadPlatform(nameOrPath)
	if err != nil {
		return err
	}
	s.plat = p
	return nil
}

// Run settings that set takes besides parameters and platform fields;
// their names cannot be parameter names, which have no hyphens.
const (
	setMaxEvents = "max-events"
	setSeed      = "random-seed"
	setShow      = "show-tasks"
)

// Set sets a run setting, a platform field (a name with a dot) or a
// program parameter.
func (s *Session) Set(name, value string) error {
	switch {
	case name == setMaxEvents || name == setSeed || name == setShow:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%s takes a whole number of at least 0, not %q", name, value)
		}
		switch name {
		case setMaxEvents:
			s.maxEvents = n
		case setSeed:
			s.seed = uint64(n)
		default:
			s.show = int(n)
		}
		return nil
	case strings.Contains(name, "."):
		p, err := s.plat.with(func(q *platform) {
			q.sets = slices.DeleteFunc(q.sets, func(f fieldSet) bool { return f.field == name })
			q.sets = append(q.sets, fieldSet{name, value})
		})
		if err != nil {
			return err
		}
		s.plat = p
		return nil
	}
	return s.SetParam(name, value)
}

// Unset takes back a parameter value or a platform field set earlier.
func (s *Session) Unset(name string) error {
	if strings.Contains(name, ".") {
		if !slices.ContainsFunc(s.plat.sets, func(f fieldSet) bool { return f.field == name }) {
			return fmt.Errorf("%s was not set", name)
		}
		p, err := s.plat.with(func(q *platform) {
			q.sets = slices.DeleteFunc(q.sets, func(f fieldSet) bool { return f.field == name })
		})
		if err != nil {
			return err
		}
		s.plat = p
		return nil
	}
	p, err := s.param(name)
	if err != nil {
		return err
	}
	delete(s.params, p.Name)
	return nil
}

// Scale scales the time of computation or of communication.
func (s *Session) Scale(what, factor string) error {
	f, err := parseFactor(factor)
	if err != nil {
		return fmt.Errorf("scale %s: %w", what, err)
	}
	var p *platform
	switch strings.ToLower(what) {
	case "compute":
		p, err = s.plat.with(func(q *platform) { q.compute = f })
	case "network":
		p, err = s.plat.with(func(q *platform) { q.network = f })
	default:
		return fmt.Errorf("scale %s: scale compute or network", what)
	}
	if err != nil {
		return err
	}
	s.plat = p
	return nil
}

// parseFactor reads a scale factor: 0 (free) up to a million.
func parseFactor(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0) || f > 1e6 {
		return 0, fmt.Errorf("the factor must be a number from 0 (free) to 1e6, not %q", s)
	}
	return f, nil
}

// Show prints the program in canonical form and the settings.
func (s *Session) Show() {
	if len(s.prog.lang.Body) == 0 && len(s.prog.lang.Headers) == 0 {
		fmt.Fprintln(s.out, "# (no program yet: load a file, or type statements)")
	} else {
		fmt.Fprintf(s.out, "# %s\n", s.prog.file)
		s.out.Write(lang.Format(s.prog.lang))
	}
	args := s.args()
	fmt.Fprintf(s.out, "# tasks: %d\n# platform: %s\n", s.numTasks(args), s.plat.describe())
	if len(args) > 0 {
		fmt.Fprintf(s.out, "# program options: %s\n", strings.Join(args, " "))
	}
	fmt.Fprintf(s.out, "# %s %d, %s %d, %s %d\n", setMaxEvents, s.maxEvents, setSeed, s.seed, setShow, s.show)
}

// Params lists the program's parameters with the values runs use.
func (s *Session) Params() {
	if len(s.prog.ir.Params) == 0 {
		fmt.Fprintln(s.out, "(the program declares no parameters)")
		return
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PARAMETER\tVALUE\tDEFAULT\tDESCRIPTION")
	for _, p := range s.prog.ir.Params {
		v := s.params[p.Name]
		def := lang.FormatExpr(p.Decl.Default)
		if v == "" {
			v = def
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, v, def, p.Help)
	}
	tw.Flush()
}

// Help lists the commands, or explains one.
func (s *Session) Help(args []string) error {
	if len(args) == 1 {
		c := findCommand(strings.ToLower(args[0]))
		if c == nil {
			return fmt.Errorf("no command %q; help lists them", args[0])
		}
		fmt.Fprintf(s.out, "%s %s\n  %s\n", c.name, c.args, c.summary)
		if c.details != "" {
			fmt.Fprintf(s.out, "\n%s\n", c.details)
		}
		return nil
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s %s\t%s\n", c.name, c.args, c.summary)
	}
	tw.Flush()
	fmt.Fprint(s.out, `Anything else is Parley text: declarations and statements typed here are
checked and added to the program (a statement goes on over several lines
while it is unfinished). Ctrl-C stops a run; Ctrl-D ends the session.
`)
	return nil
}
