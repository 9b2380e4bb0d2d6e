// Package interp predicts how a Parley program runs: it executes the ir for
// N tasks as a deterministic discrete-event simulation priced by a
// netmodel.Platform, and reports the predicted times, counters, logs,
// timelines and any deadlock.
//
// The engine has one clock and one priority queue ordered by time and then
// by insertion, so a run is a pure function of program, platform, options
// and seed. Tasks walk a flat instruction stream compiled once from the ir:
// loops stay loops, and a task's state is its program counter, a small stack
// of loop frames, its variable slots, its clocks and its counters, which is
// what lets a million tasks fit in memory.
//
// Point-to-point messages follow MPI: receives are matched by source and tag
// in posting order; messages up to the platform's eager limit complete at
// the sender at once, larger ones wait for the receiver (rendezvous); costs
// are LogGOPS as in LogGOPSim (see netmodel.LogGP), or, on a flow or
// packet platform, LogGOPS's CPU costs with each message's bytes sent as a
// flow in a netmodel.FlowNet or as packets in a netmodel.PacketNet (see
// network.go). Collectives are expanded
// into the point-to-point algorithms MPI libraries use (netmodel.Plan) and do
// not touch the message counters, as in coNCePTuaL. A collective that every
// task enters at the same moment, with nothing else left to happen before
// it, is evaluated in flat arrays instead of through the tasks' statements,
// to the same Result (see collfast.go); where the order of the tasks'
// events cannot matter, for one task standing for all or one task at a
// time (see collshort.go). A send statement whose every part is
// asynchronous and found in the statement's cached pattern (a halo's face)
// runs without an activity (see face.go).
//
// A run's memory is bounded by Options.MaxMemory: New refuses a run whose
// tasks would not fit, and a run whose messages and receives outstanding
// outgrow the limit stops with a problem instead of dying.
//
// interp imports ir, lang, netmodel, logfile, internal/memlimit and the
// standard library.
package interp
