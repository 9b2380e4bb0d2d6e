package main

import (
	"context"
	"io"
	"os"
	"os/signal"

	"github.com/schollz/progressbar/v3"

	"github.com/parley-hpc/parley/interp"
)

// Long runs show how far they have got on standard error when it is a
// terminal (github.com/schollz/progressbar, which the REPL's sweeps use
// too), and Ctrl-C stops a run with its partial summary.

// interruptedStatus is the exit status of a run stopped by Ctrl-C, as a
// shell reports a command killed by SIGINT.
const interruptedStatus = 130

// watch prepares opts for a run: Ctrl-C cancels the run instead of
// killing the process (a second Ctrl-C does), and on a terminal a
// progress line tracks events, simulated time and the event rate. The
// returned functions say whether Ctrl-C came, and end both once the run
// is over.
func (e *env) watch(opts *interp.Options) (interrupted func() bool, unwatch func()) {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stopSignals() // the next Ctrl-C kills the process
	}()
	opts.Context = ctx
	var bar *progressbar.ProgressBar
	if e.progress != nil {
		bar = newProgressBar(e.progress)
		opts.Progress = func(p interp.Progress) {
			bar.Describe("simulated " + p.Now.String())
			bar.Set64(p.Events)
		}
		opts.ProgressInterval = e.progressEvery
	}
	interrupted = func() bool {
		// Ending the watch cancels ctx too, with no cause of its own.
		cause := context.Cause(ctx)
		return cause != nil && cause != context.Canceled
	}
	return interrupted, func() {
		if bar != nil {
			bar.Finish() // clears the line
		}
		stopSignals()
	}
}

func newProgressBar(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("events"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(0), // the simulator already calls at most every interval
	)
}
