// Package scalatrace reads ScalaTrace V2 traces: the compressed, whole-run
// traces of ScalaTrace (seed 000, section 3.1) in which one record (an RSD)
// stands for one call site on a list of ranks, loops are marked on their
// first event, peers are relative to the rank and parameters that change
// from one execution to the next are stored as lists.
//
// Read builds each rank's calls as a trace.Rank: its records in file order,
// nested into the loops the LOOP lines describe, each record a trace.Site
// whose events cycle through the record's parameter lists.
//
// # Format
//
// Records are separated by blank lines:
//
//	RANKS: <ranklist>
//	EVENT<k>: <opcode> <stack signature>
//	COMP|COMM <stat>-<i>: <previous signature> (n avg minrank min maxrank max){...} x 5
//	LOOP<d>: iter: ( n )[ranks]... mem: ( m )[ranks]...
//	<param code, hex> <value>...  |  <code> ( v... )[ ranklist ]...
//
// A rank list is a group count, then per group -depth, start and depth
// (count stride) pairs: "1 -1 0 4 1" is {0,1,2,3}; "1 -2 5 2 4 2 1" is
// {5,6,9,10}. Opcodes and parameter codes are the tracer's (see
// ../../../../shared/data/scalatrace/opcodes.tsv and paramtypes.tsv in the
// project's shared data); datatype codes 1-19 are the tracer's built-in
// types.
//
// # Expansion
//
// Rank r takes part in the records whose rank list holds r, in file order.
// LOOP<d> lines sit on a loop's first event (LOOP0 outermost); a rank in no
// group of a LOOP line has no loop there. mem counts r's events in the loop
// body from its first event. A parameter with several values lists the
// shortest repeating block: execution n of the record on the rank uses
// value n mod len (a Waitall's request array uses COUNT values per
// execution). DEST and SOURCE are stored relative to the rank, (peer - rank)
// mod size; INT_MAX is MPI_ANY_SOURCE. A request is a slot offset in a ring
// of 10,000: 9999 is the most recent nonblocking call, so its age is 10000
// minus the offset.
//
// # Computation
//
// COMP lines are histograms of the computation before the record's call,
// one per signature of the call that preceded it: stat 4b counts
// microseconds, 4c instructions. Read turns them into one trace.Compute
// event before each execution of the record: their mean weighted by sample
// counts, which keeps the total computation of every record exact while
// giving each execution the same share. COMM lines (time inside MPI) are
// not used; the network model predicts it.
//
// It imports only the standard library, frontend/trace and
// internal/memlimit.
package scalatrace
