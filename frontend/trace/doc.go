// Package trace owns Parley's model of an MPI trace and the work every
// trace format shares: expanding a rank's compressed events, compressing a
// flat event stream into nested loops as it arrives, and matching the
// ranks' events against each other (seed 000's Algorithms 1 and 2: aligned
// collectives, wildcard receives replaced by the matched sender, potential
// deadlocks reported with the ranks and events involved), skipping the
// iterations of a loop once the matching state recurs (repeat.go), so
// that matching costs about the trace's size rather than its expanded
// event count.
//
// The readers live in subpackages (scalatrace, tit, dperf, dumpi, ptrace) and
// produce a *Trace; package lower turns a Trace into Parley source.
//
// It imports only the standard library.
package trace
