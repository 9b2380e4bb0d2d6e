// Package dperf reads the traces of dPerf (seed 002, section 3.2) into a
// trace.Trace. It owns the format's grammar and the reading of each field,
// which the paper leaves partly open; the choices are set out below.
//
// # What the paper says
//
// dPerf instruments a program's blocks, runs it, and replays the traces it
// writes with a simulator built on SimGrid's MSG module ("We use SimGrid's
// MSG module for customizing a trace-based simulator"). Section 3.2 shows
// the lines and what their numbers mean:
//
//	p0 compute 5385
//	p0 Isend p0 8429748
//	p0 Recv p0
//	p0 compute 46447205
//
// "Computation cost is expressed in nanoseconds, while communication is
// expressed in bytes. For instance, p0 compute 5385 means that on process
// 0, a block of instructions has computed for 5385 nanoseconds,
// measurement taken by the hardware counters. Similarly, p0 Isend p0
// 8429748 means that process 0 performs an Isend toward itself (process
// 0) and an amount of 8429748 bytes are transferred." And: "Executing the
// instrumented code generates trace files corresponding to each
// participant process. The traces contain only computation times and the
// relevant parameter for each communication."
//
// # Reading
//
// A line is pRANK ACTION ARGUMENTS..., fields separated by spaces or tabs;
// blank lines and lines starting with '#' are skipped. Ranks and peers are
// written p0, p1, ... (a bare number is accepted too). Actions are matched
// without regard to case (the paper writes Isend and Recv). The paper
// names compute, Isend and Recv; the rest of the vocabulary is that of the
// MSG trace replay dPerf fed (SimGrid's examples/msg/actions, unchanged
// from 3.5 to 3.12), with its arguments:
//
//	pR init                   Init
//	pR finalize               Finalize
//	pR compute NANOSECONDS    Compute; Amount in microseconds (TimeUnit trace.Microseconds)
//	pR send pP BYTES          Send to P, Count BYTES, TypeSize 1
//	pR Isend pP BYTES         Isend
//	pR recv pP [BYTES]        Recv from P
//	pR Irecv pP [BYTES]       Irecv
//	pR wait                   Wait for the rank's most recent outstanding Irecv
//	pR barrier                Barrier
//	pR bcast BYTES            Bcast from p0
//	pR reduce BYTES FLOPS     Reduce to p0
//	pR allReduce BYTES FLOPS  Allreduce
//	pR comm_size N            the number of ranks the collectives that follow span
//	pR sleep SECONDS          skipped: the model has no sleep
//
// Each action takes exactly the arguments shown; others are errors, as is
// an action not in the list, which the error names. BYTES and the other
// numbers are decimals, possibly with a fraction or exponent (1e9, as
// MSG's parse_double reads them); sizes are truncated to whole bytes.
//
// # Choices where the paper is silent
//
// Receives: the paper's "p0 Recv p0" gives the sender but no size, as
// MSG's recv and Irecv took none: the message is whatever the sender sent.
// The reader gives a receive the size of the message it matches: MSG
// delivers a sender's messages to a receiver in order (one mailbox per
// pair of processes), so the k-th receive of pR from pP is the k-th send
// or Isend of pP to pR, found by a first pass over the trace. A size
// written after the peer is used instead; a receive that matches no send
// has Count 0 (trace.Match then reports it).
//
// Tags: the lines carry none, and MSG matched by sender and receiver
// only, so every message has Tag 0, which keeps that order.
//
// Waits: "wait" completes the rank's most recent outstanding Irecv, as
// MSG's action_wait pops the last of the rank's Irecvs. MSG never waits
// for an Isend (it frees finished ones as it goes), so Isends stay
// unwaited in the trace. Ages count every Isend and Irecv of the rank.
//
// Collectives: MSG's bcast and reduce are rooted at p0 (Root 0), and its
// collectives span processes p0 to pN-1, N set by comm_size. A collective
// spans the rank's last comm_size, else the trace's first, else every
// rank; Comm is that communicator (0 when it is every rank). The FLOPS of
// a reduction, computation MSG runs at the root, has no place in the model
// and is dropped.
//
// Ranks: a file holds the lines of any ranks; a directory holds one file
// per process (each rank's lines in one file). The highest rank that
// starts a line says how many ranks there are; a peer beyond it is an
// error, and at most 4096 ranks may have no lines (more means a damaged
// rank number). Ranks are below 2^20, sizes at most 2^40 bytes.
//
// Malformed input is reported as a *trace.SyntaxError at the file, line
// and column of the problem, saying what was found and what was expected.
//
// dperf imports only the standard library, frontend/trace and
// frontend/trace/wordline (the line reader it shares with the other
// SimGrid-style format).
package dperf
