// Package calibrate measures this machine's MPI and processor and fits
// the platform parameters Parley prices programs with: LogGOPS's L, o, g,
// G, O and S for the network, again for each protocol regime between the
// breakpoints of the ping-pong (regime.go), and a roofline's flop rate
// and memory bandwidth for the nodes. It owns the measurement kernels (csrc/, a C+MPI
// program embedded in the binary and built with mpicc), their runs under
// mpirun, the least-squares fits (FitAll, whose estimators its doc lists)
// and the platform file it writes (WritePlatform), which netmodel reads.
//
// The compute kernels are the C backend's own (pr_work in codegen's
// run-time header), so that the roofline is fitted to the code a compiled
// benchmark runs.
//
// calibrate imports codegen (for the run-time header), internal/mpirun,
// gonum's linear algebra and the standard library.
package calibrate
