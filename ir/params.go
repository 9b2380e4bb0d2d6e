package ir

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/parley-hpc/parley/lang"
)

// Config is what a run binds a program to.
type Config struct {
	NumTasks int64
	Args     []string // the program's own options, e.g. {"--reps", "100"}
	Seed     uint64
	IntSize  int64 // bytes in an INTEGER; 0 means 4, the C backend's sizeof(int)
	PageSize int64 // bytes in a PAGE; 0 means 4096
}

// ErrHelp is returned by Configure when the arguments ask for help; Usage
// has the text to show.
var ErrHelp = errors.New("help requested")

// Configure binds the program to a number of tasks and to parameter values:
// each parameter takes the value its option gives (--long=v, --long v,
// -s v) or else its default. Values are Parley integers, so 64K and 1E6 work.
func (p *Program) Configure(cfg Config) (*Globals, error) {
	if cfg.NumTasks < 1 {
		return nil, fmt.Errorf("the number of tasks must be at least 1, not %d", cfg.NumTasks)
	}
	g := &Globals{NumTasks: cfg.NumTasks, IntSize: cfg.IntSize, PageSize: cfg.PageSize, Seed: cfg.Seed}
	if g.IntSize == 0 {
		g.IntSize = 4
	}
	if g.PageSize == 0 {
		g.PageSize = 4096
	}
	g.Params = make([]int64, len(p.Params))
	fr := &Frame{G: g}
	for i, info := range p.Params {
		v, err := EvalInt(info.Default, fr)
		if err != nil {
			return nil, fmt.Errorf("default value of %s: %w", info.Name, err)
		}
		g.Params[i] = v
	}
	byName := map[string]int{}
	for i, info := range p.Params {
		byName[info.Long] = i
		byName[info.Short] = i
	}
	args := cfg.Args
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch a {
		case "-h", "-help", "--help", "-?":
			return nil, ErrHelp
		}
		name, value, hasValue := strings.Cut(a, "=")
		i, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("unknown program option %q; the program's options are:\n%s", a, p.Usage())
		}
		if !hasValue {
			if len(args) == 0 {
				return nil, fmt.Errorf("option %s needs a value", name)
			}
			value, args = args[0], args[1:]
		}
		v, err := ParseInt(value)
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", name, err)
		}
		g.Params[i] = v
	}
	return g, nil
}

// ParseInt reads an integer written as in the language: an optional sign,
// digits, and an optional K, M, G or T multiplier, E exponent or ordinal
// suffix.
func ParseInt(s string) (int64, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "-"), "+")
	if t == "" || t[0] < '0' || t[0] > '9' {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	v, err := lang.IntLiteralValue(t)
	if err != nil {
		return 0, err
	}
	if neg {
		v = -v
	}
	return v, nil
}

// Usage lists the program's options, their help and their defaults.
func (p *Program) Usage() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, info := range p.Params {
		fmt.Fprintf(tw, "  %s, %s=<number>\t%s [default: %s]\n", info.Short, info.Long, info.Help, lang.FormatExpr(info.Decl.Default))
	}
	tw.Flush()
	if len(p.Params) == 0 {
		return "  (the program has no options)\n"
	}
	return b.String()
}

// AssertedTasks returns the number of tasks the program requires through a
// top-level `ASSERT THAT "..." WITH num_tasks = e` (or `e = num_tasks`),
// with its parameters bound by args, as `parley lower` writes for a
// trace's rank count and as hand-written programs say which task counts
// they run on. It reports false when there is no such assertion or e
// itself depends on the number of tasks.
func (p *Program) AssertedTasks(args []string) (int64, bool) {
	for _, top := range p.Body {
		for _, st := range top.Stmts {
			a, ok := st.(*Assert)
			if !ok {
				continue
			}
			c, ok := a.Cond.(*Compare)
			if !ok || c.Op != lang.Eq {
				continue
			}
			e := c.Y
			if _, ok := c.X.(*NumTasks); !ok {
				if _, ok := c.Y.(*NumTasks); !ok {
					continue
				}
				e = c.X
			}
			// e must give the same value whatever the task count.
			var vals [2]int64
			for i := range vals {
				g, err := p.Configure(Config{NumTasks: int64(i + 1), Args: args})
				if err != nil {
					return 0, false
				}
				if vals[i], err = EvalInt(e, &Frame{G: g}); err != nil {
					return 0, false
				}
			}
			if vals[0] == vals[1] && vals[0] >= 1 {
				return vals[0], true
			}
		}
	}
	return 0, false
}
