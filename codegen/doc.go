// Package codegen owns Parley's C+MPI backend: it turns a resolved program
// (package ir) into readable C99 + MPI-3 source that performs exactly the
// communication the interpreter simulates, measures it, and writes
// coNCePTuaL-format logs.
//
// The generated file keeps the program's structure: loops stay loops, task
// descriptions become loops and conditions over task numbers, every
// statement is preceded by its source line, and parameters become
// command-line options with their defaults and --help. It includes
// parley_rt.h (Runtime), a header-only run-time library holding the
// language's arithmetic (rt_math.h: exact ports of package ir's functions
// and of math/rand/v2's streams, so random programs draw what the
// interpreter draws) and the task's state (rt_core.h: counters, messages,
// communicators for task subsets, collectives, compute kernels, logs).
//
// The semantics follow package interp statement by statement: implied
// receives are posted before sends, asynchronous receives are counted at
// AWAIT COMPLETION, collectives leave the message counters alone,
// warmups suppress output and restore the counters, timed loops agree on
// a trial iteration's time with an all-reduce. The differential test runs
// every example both ways and compares per-task message and byte counts.
//
// codegen imports ir, lang and logfile (for the aggregate numbering) and
// the standard library.
package codegen
