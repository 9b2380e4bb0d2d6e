// Package ncptl owns `parley export --format ncptl`: it writes a Parley
// program as strict coNCePTuaL 1.5, text that coNCePTuaL's own compiler
// (lanl/coNCePTuaL 1.5.1b, with its c_mpi backend) accepts and runs with
// the meaning Parley gives the program, so that the program can go where
// coNCePTuaL programs go: real machines through any coNCePTuaL backend, and
// simulators such as CODES/ROSS through its Union workload manager.
//
// Export builds a new syntax tree from the program's and prints it with
// lang.FormatStrict. Each construct coNCePTuaL lacks is lowered to the
// nearest coNCePTuaL form, and the header comment of the output names every
// lowering with the lines it was applied to: FLOPS and MEMORY TRAFFIC
// become COMPUTES FOR at the platform's rates (compute.go); SCATTERS,
// GATHERS, EXCHANGE and the reduce-scatter become coNCePTuaL collectives
// (collective.go); a message specification that uses its statement's task
// variables, which coNCePTuaL's scoping does not allow, becomes a loop over
// the tasks (stmt.go). A construct with no coNCePTuaL form stops the
// export with the statement's position and what to change; the export
// never writes text the real compiler would reject. docs/backend.md lists
// the lowerings and refusals and why.
//
// The export needs no simulation and no task count: everything that
// depends on the number of tasks or on a task's node is written as an
// expression of num_tasks and the task's number, evaluated by the
// exported program when it runs.
//
// ncptl imports lang (the tree and its printer), netmodel (the machine
// model whose rates price compute) and the standard library.
package ncptl
