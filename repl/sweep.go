package repl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/parley-hpc/parley/internal/progress"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
)

// sweepResult is the last sweep: a name, its values and their runs.
type sweepResult struct {
	name   string
	values []string
	res    []*interp.Result // nil where the run could not start
}

// Sweep runs the program once per value of name: tasks, a parameter, a
// platform field, or scale.compute or scale.network. It prints a row per
// value and keeps the rows for plot; the session's settings stay as they
// are.
func (s *Session) Sweep(ctx context.Context, name string, values []string) error {
	specs := make([]*runSpec, len(values))
	for i, v := range values {
		sp, err := s.specWith(name, v)
		if err != nil {
			return err
		}
		specs[i] = sp
	}
	var bar *progress.Steps
	if s.Progress != nil {
		bar = progress.NewSteps(s.Progress, len(values), "sweep "+name)
	}
	sw := &sweepResult{name: name, values: values, res: make([]*interp.Result, len(values))}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tpredicted\tcompute\tcomm\twait\t\n", name)
	failed := 0
	for i, sp := range specs {
		res, _, err := s.simulate(ctx, sp, false, nil)
		if bar != nil {
			bar.Step()
		}
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\n", values[i], err)
			failed++
			continue
		}
		sw.res[i] = res
		if !res.OK() {
			failed++
			fmt.Fprintf(tw, "%s\t%s (%s)\t\t\t\t\n", values[i], res.Status, res.Problems[0].Kind)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", values[i], res.Predicted, res.Compute().Mean, res.Comm().Mean, res.Wait().Mean)
		if ctx.Err() != nil {
			break
		}
	}
	if bar != nil {
		bar.Finish()
	}
	tw.Flush()
	fmt.Fprintln(s.out, "(compute, comm and wait are means over the tasks)")
	s.sweep = sw
	switch {
	case ctx.Err() != nil:
		return errors.New("the sweep was interrupted")
	case failed > 0:
		return fmt.Errorf("%d of %d runs of the sweep did not finish cleanly; run one alone to see why", failed, len(values))
	}
	return nil
}

// specWith returns the run the session would make with name set to
// value, without changing the session.
func (s *Session) specWith(name, value string) (*runSpec, error) {
	sp, err := s.spec()
	if err != nil {
		return nil, err
	}
	switch {
	case name == "tasks":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > interp.MaxTasks {
			return nil, fmt.Errorf("tasks %s: not a number of tasks", value)
		}
		sp.tasks = n
	case strings.HasPrefix(name, "scale."):
		f, err := parseFactor(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var p *platform
		switch name {
		case "scale.compute":
			p, err = s.plat.with(func(q *platform) { q.compute = f })
		case "scale.network":
			p, err = s.plat.with(func(q *platform) { q.network = f })
		default:
			return nil, fmt.Errorf("%s: sweep scale.compute or scale.network", name)
		}
		if err != nil {
			return nil, err
		}
		sp.plat = p.plat
	case strings.Contains(name, "."):
		p, err := s.plat.with(func(q *platform) { q.sets = append(q.sets, fieldSet{name, value}) })
		if err != nil {
			return nil, err
		}
		sp.plat = p.plat
	default:
		p, err := s.param(name)
		if err != nil {
			return nil, err
		}
		if _, err := ir.ParseInt(value); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		params := maps.Clone(s.params)
		params[p.Name] = value
		sp.args = s.argsFor(params)
		if s.tasks == 0 {
			sp.tasks = s.numTasks(sp.args)
		}
	}
	return sp, nil
}

// Compare sets the last two runs side by side with the ratio of the
// second to the first.
func (s *Session) Compare() error {
	if len(s.runs) < 2 {
		return errors.New("compare needs two runs: run, change something, run again")
	}
	a, b := s.runs[0], s.runs[1]
	fmt.Fprintf(s.out, "run %d: %s\nrun %d: %s\n", a.n, a.spec.label, b.n, b.spec.label)
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\trun %d\trun %d\tratio\t\n", a.n, b.n)
	row := func(name string, x, y interp.Time) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, x, y, ratio(float64(y), float64(x)))
	}
	row("predicted", a.res.Predicted, b.res.Predicted)
	row("compute (mean)", a.res.Compute().Mean, b.res.Compute().Mean)
	row("communication (mean)", a.res.Comm().Mean, b.res.Comm().Mean)
	row("wait (mean)", a.res.Wait().Mean, b.res.Wait().Mean)
	am, ab := a.res.Messages()
	bm, bb := b.res.Messages()
	fmt.Fprintf(tw, "messages\t%d\t%d\t%s\t\n", am, bm, ratio(float64(bm), float64(am)))
	fmt.Fprintf(tw, "bytes\t%d\t%d\t%s\t\n", ab, bb, ratio(float64(bb), float64(ab)))
	tw.Flush()
	return nil
}

// ratio is y/x to four significant digits, or "-" when x is 0.
func ratio(y, x float64) string {
	if x == 0 {
		return "-"
	}
	return strconv.FormatFloat(y/x, 'g', 4, 64)
}
