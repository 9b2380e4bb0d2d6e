// Package valueflow estimates the communication of a parallel version of a
// sequential C or C++ program from its LLVM IR, after CommAnalyzer (seed
// 001): it runs the program with shadow memory, records which values each
// computed value is made of (value-flow chains), compresses the values
// that share a memory location one after another into one vertex of a
// value communication graph, sets apart the singleton vertices that almost
// everything touches, partitions the rest among k tasks with package
// partition, and counts the values that cross between tasks, each once per
// destination. Singletons become broadcasts and reductions. The result is a
// communication matrix per task count and a Parley program (a lang tree)
// that reproduces it.
//
// Loading: C and C++ files are compiled with clang-14 and linked with
// llvm-link-14; .ll files are read as they are, with github.com/llir/llvm.
// The module is then compiled into the package's own compact form (scalar
// instructions over register slots) that the machine in exec.go runs.
// docs/valueflow.md describes what is modelled and the limits.
//
// valueflow imports lang, partition, internal/memlimit, llir/llvm and the
// standard library.
package valueflow
