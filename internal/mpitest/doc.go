// Package mpitest holds what the tests that run programs under MPI share:
// finding mpicc and mpirun, building a Parley program, compiling its C,
// running an executable under mpirun with a deadline that never leaves
// processes behind, and reading the logs and output back. It is imported
// only by tests (codegen's differential test, the conformance harness, the
// tracer's round trip).
//
// mpitest imports codegen, internal/mpirun, ir, lang, logfile, parser and
// the standard library.
package mpitest
