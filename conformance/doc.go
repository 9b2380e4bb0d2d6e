// Package conformance holds Parley to the real coNCePTuaL: a differential
// harness, test code only, that runs every Parley example, every example
// and test program of an installed coNCePTuaL 1.5.1b, and the probes in
// testdata/ three ways — the real compiler's c_mpi backend under mpirun,
// Parley's interpreter, and Parley's C backend under mpirun — and requires
// the same per-task message and byte counts, OUTPUTS lines and
// deterministic LOG columns from all three.
//
// It runs only where PARLEY_NCPTL names the install prefix of the real
// coNCePTuaL (PARLEY_NCPTL_SRC, a source tree, adds its tests/*.ncptl) and
// skips, saying so, otherwise; docs/conformance.md says how to build one.
// The real c_mpi logs carry no message totals, so both compiled programs
// are linked with a PMPI shim (testdata/pmpi_counts.c) that counts what
// each rank hands to MPI, without changing a line of either program.
//
// The known differences that are not defects (random placement, timed
// loops, Parley's extensions) are listed in the test with their reasons.
//
// conformance imports codegen, examples, interp, internal/mpitest, ir,
// logfile and netmodel, from its tests only.
package conformance
