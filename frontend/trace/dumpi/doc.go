// Package dumpi reads DUMPI traces (SST DUMPI, github.com/sstsimulator/sst-dumpi)
// as dumpi2ascii prints them, one text file per rank, into a trace.Trace.
//
// It owns the text format and its mapping to Parley's trace model: which
// MPI calls become which events, how dumpi's per-rank communicator,
// datatype and request handles are resolved, and how the time between calls
// becomes compute. It imports only the standard library and
// frontend/trace.
//
// # Files
//
// libdumpi writes PREFIX-NNNN.bin per rank and PREFIX.meta; dumpi2ascii
// prints one .bin on standard output. Read takes a directory holding one
// trace's PREFIX-NNNN.EXT text files (any extension but .bin; files are
// recognised with Sniff), or one of them, and reads every sibling with the
// same PREFIX and EXT. NNNN is the rank; ranks must run from 0 without a
// gap, and numprocs in PREFIX.meta, if present, must match. Parse reads one
// text: one rank, or several ranks' outputs concatenated in rank order, a
// new rank starting at a header line "version=" or an MPI_Init or
// MPI_Init_thread call that follows a call of the previous rank. A rank's
// MPI_Comm_rank and MPI_Comm_size on MPI_COMM_WORLD are checked against its
// place and the number of ranks.
//
// # Format
//
// The facts below come from sst-dumpi's dumpi/bin/dumpi2ascii.c (header
// and footer), dumpi/bin/dumpi2ascii-defs.h (the DUMPI_ENTERING,
// DUMPI_RETURNING and DUMPI_REPORT_* macros that print each record),
// dumpi/bin/dumpi2ascii-callbacks.c (the parameters of each call, in
// order) and dumpi/common/constants.[ch] (handle numbering and names), and
// were checked against traces of Open MPI programs converted by
// dumpi2ascii.
//
// A call record is
//
//	MPI_Send entering at walltime 9622.661560028, cputime 0.033496500 seconds in thread 0.
//	int count=4
//	MPI_Datatype datatype=9 (MPI_INT)
//	int dest=1
//	int tag=7
//	MPI_Comm comm=2 (MPI_COMM_WORLD)
//	MPI_Send returning at walltime 9622.661563660, cputime 0.033500113 seconds in thread 0.
//
// Times print as "%d.%09d" seconds. "Perfcounters: [...]" lines (PAPI) may
// follow either call line. Each parameter line is "TYPE NAME=VALUE":
//
//   - integers "%d"; a source adds " (MPI_ANY_SOURCE)" to -1, a source
//     or dest " (MPI_ROOT)" to -2, and a tag (but MPI_Isend's)
//     " (MPI_ANY_TAG)" to -1;
//   - handles "%d (NAME)": MPI_Comm 1 MPI_COMM_NULL, 2 MPI_COMM_WORLD,
//     3 MPI_COMM_SELF, 4 and up "user-defined-comm"; MPI_Group 1
//     MPI_GROUP_NULL, 2 MPI_GROUP_EMPTY; MPI_Datatype 0 to 27 the
//     predefined types (2 MPI_CHAR ... 9 MPI_INT ... 14 MPI_DOUBLE ...
//     27 MPI_LONG_DOUBLE_INT), 28 and up "user-defined-datatype". Handles
//     are numbered per rank, in order of first use;
//   - arrays "int NAME[N]=[a, b, c]", or "<IGNORED>" when not recorded
//     (Gatherv's recvcounts on a non-root rank, for one); arrays of
//     datatypes print numbers only;
//   - requests "MPI_Request request=[H]" and "MPI_Request requests[N]=[...]",
//     H 1 being MPI_REQUEST_NULL. A request is printed as the call sees it
//     on entry, so a Wait names the handle its Isend returned; handles are
//     reused once completed;
//   - statuses "MPI_Status status=[{bytes=..., ...}]" or "<IGNORED>";
//   - the two-dimensional ranges of MPI_Group_range_incl print one row per
//     line, and the next parameter follows the closing bracket on its line:
//     "int ranges[2][3]=[[0, 3, 1]", ", [4, 7, 1]", "]MPI_Group newgroup=5 (...)".
//
// Outside records, dumpi2ascii -H prints a header (version=, starttime=,
// hostname=, username=, meshdim=, meshsize=, meshcrd=), -K "Total keyvals:
// N" and "KEY=VALUE" lines, -F "MPI_Xxx called N times and ignored M times",
// -P "Performance counters: N" and indented labels, -A "Function address N
// has label L", and -X "Datatype N (NAME) has size S", the size libdumpi
// measured for each datatype the run used. Only the size table is used; the
// rest is checked for shape and skipped.
//
// # Mapping
//
// Peers and roots are printed as ranks in the call's communicator; events
// hold world ranks. Every communicator is resolved to world ranks before
// events are made, since MPI_Comm_split needs every member's color and key:
// the k-th creating call on a communicator matches the k-th on each of its
// members. MPI_Comm_split, MPI_Comm_dup, MPI_Comm_create (with groups from
// MPI_Comm_group, MPI_Group_incl, _excl, _range_incl, _range_excl, _union,
// _intersection and _difference), MPI_Cart_create and MPI_Cart_sub are
// followed; MPI_Cart_create is assumed not to reorder ranks, which dumpi
// does not record. A communicator made otherwise (intercommunicators,
// MPI_Graph_create, spawning) is an error only when a call uses it.
//
//   - MPI_Init, MPI_Init_thread and MPI_Finalize become Init and Finalize.
//   - MPI_Send, _Bsend, _Ssend, _Rsend become Send; MPI_Isend, _Ibsend,
//     _Issend, _Irsend become Isend; MPI_Recv and MPI_Irecv become Recv and
//     Irecv. A source of -1 is AnySource and a receive's tag of -1 AnyTag.
//   - MPI_Sendrecv and MPI_Sendrecv_replace become Isend, Irecv and a Wait
//     on both, as MPI defines them (blocking halves would deadlock where
//     the call does not).
//   - A call whose peer is MPI_PROC_NULL moves no data and is dropped
//     (a Sendrecv keeps its other half as a blocking Send or Recv).
//     dumpi passes MPI_PROC_NULL through unchanged: it is -2 in Open MPI
//     (printed "(MPI_ROOT)") and -1 in MPICH, where a receive from it cannot
//     be told from MPI_ANY_SOURCE and reads as a wildcard receive. Any
//     other negative peer is taken for MPI_PROC_NULL.
//   - MPI_Wait, _Waitall, _Waitany and _Waitsome become Wait on the
//     requests they complete (Waitany's index, Waitsome's indices); so do
//     MPI_Test, _Testall and _Testany with flag 1 and MPI_Testsome with
//     outcount above 0; the others, and waits on null requests or on
//     requests of dropped calls, make no event. Waits counts requests by
//     age among the rank's nonblocking events; MPI_Request_free forgets
//     one.
//   - Collectives become the event of the same name on the communicator.
//     Count and TypeSize are what the rank contributes: Bcast, Reduce,
//     Allreduce, Scan: count; Gather: sendcount (the root's recvcount at
//     the root); Scatter: recvcount (the root's sendcount at the root);
//     Allgather, Alltoall: recvcount. The "v" collectives carry Counts in
//     communicator rank order: Gatherv the root's recvcounts (other ranks
//     only their sendcount), Scatterv the root's sendcounts (other ranks
//     only their recvcount), Allgatherv recvcounts, Alltoallv sendcounts,
//     Reduce_scatter recvcounts; Count is then the rank's own block
//     (Gatherv, Scatterv, Allgatherv) or the sum (Alltoallv,
//     Reduce_scatter).
//   - Datatype sizes come from the -X table when the trace has one, else
//     from the predefined types' LP64 sizes; derived types from their
//     constructors (MPI_Type_contiguous, _vector, _hvector, _indexed,
//     _hindexed, _struct, _create_struct, _create_indexed_block,
//     _create_subarray, _dup, _create_resized: their size, not extent) or
//     MPI_Type_size. A message of a type of unknown size is an error
//     naming the type.
//   - Calls that move data but have no event (persistent requests,
//     MPI_Alltoallw, MPI_Exscan, one-sided and nonblocking collective
//     calls) are errors naming the call. Other calls (MPI_Comm_rank,
//     MPI_Wtime, MPI_Probe, MPI-IO, ...) are skipped.
//   - Before each event goes a Compute event of the wall time, in
//     microseconds, from the return of the previous call that made events
//     to the entry of this one, if positive: skipped calls count as
//     computation. Threads are not told apart.
//
// Malformed input is reported as a *trace.SyntaxError at file:line:col.
// Lines are limited to 32 MiB, arrays to 2^24 elements and traces to 2^20
// ranks.
package dumpi
