package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/parley-hpc/parley/internal/progress"
	"github.com/parley-hpc/parley/interp"
)

// Long runs show how far they have got on standard error when it is a
// terminal (internal/progress), and Ctrl-C stops a run with its partial
// summary.

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
	var bar *progress.Run
	if e.progress != nil {
		bar = progress.NewRun(e.progress)
		opts.Progress = bar.Update
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
