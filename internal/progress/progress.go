// Package progress draws how far a long simulation or analysis has got on
// a terminal, for `parley run`, `parley analyze` and the REPL, with
// github.com/schollz/progressbar.
//
// progress imports interp, progressbar and the standard library.
package progress

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/parley-hpc/parley/interp"
)

// Run is a line showing a run's events, simulated time and event rate.
type Run struct{ bar *progressbar.ProgressBar }

// NewRun starts a progress line on w, a terminal.
func NewRun(w io.Writer) *Run {
	return &Run{progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("events"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(0), // the simulator calls at most every interval
	)}
}

// Update shows p; it is what interp.Options.Progress calls.
func (r *Run) Update(p interp.Progress) {
	r.bar.Describe("simulated " + p.Now.String())
	r.bar.Set64(p.Events)
}

// Finish clears the line.
func (r *Run) Finish() { r.bar.Finish() }

// Steps is a bar over a known number of steps, such as a sweep's runs.
type Steps struct{ bar *progressbar.ProgressBar }

// NewSteps starts a bar of n steps, described by what, on w.
func NewSteps(w io.Writer, n int, what string) *Steps {
	return &Steps{progressbar.NewOptions(n, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())}
}

// Step marks one step done.
func (s *Steps) Step() { s.bar.Add(1) }

// Finish clears the bar.
func (s *Steps) Finish() { s.bar.Finish() }

// Counter is a line showing how much of an unbounded job is done and how
// fast, such as the instructions `parley analyze` has executed.
type Counter struct{ bar *progressbar.ProgressBar }

// NewCounter starts a counter described by what, counting units, on w.
func NewCounter(w io.Writer, what, units string) *Counter {
	return &Counter{progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(units),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(100*time.Millisecond),
	)}
}

// Set shows n units done.
func (c *Counter) Set(n int64) { c.bar.Set64(n) }

// Finish clears the line.
func (c *Counter) Finish() { c.bar.Finish() }
