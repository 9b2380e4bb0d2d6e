// Package trace owns Parley's model of an MPI trace and the work every
// trace format shares: expanding a rank's compressed events, compressing a
// flat event stream into nested loops as it arrives, and matching the
// ranks' events against each other (seed 000's Algorithms 1 and 2: aligned
// collectives, wildcard receives replaced by the matched sender, potential
// deadlocks reported with the ranks and events involved).
//
// The readers live in subpackages (scalatrace, tit, dperf, dumpi, ptrace) and
// produce a *Trace; package lower turns a Trace into Parley source.
//
// It imports only the standard library.
package trace
