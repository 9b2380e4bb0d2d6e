// Package tracer owns Parley's PMPI tracer: its C source (csrc/parley_tracer.c,
// embedded in the parley binary), building it with mpicc into a shared
// library cached per source hash, and running an MPI command with the
// library preloaded under a time limit that leaves no process behind.
// `parley trace` is its command line; frontend/trace/ptrace reads what the
// library writes; docs/tracer.md describes both.
//
// It imports only the standard library.
package tracer
