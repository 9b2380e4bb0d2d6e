// Package ptrace reads the traces of Parley's own PMPI tracer (tracer/,
// `parley trace`): one text file per rank, DIR/rank-N.ptrace, whose calls
// the tracer has already folded into loops as they happened.
//
// It owns the file format and its mapping to Parley's trace model, and the
// consistent cut that makes a partial trace (a run that crashed) lowerable.
// It imports only the standard library and frontend/trace.
//
// # Format
//
//	parley-trace 1
//	rank 0 of 4
//	status complete
//	elapsed 389664.683
//	calls 2005
//	comm 1 0 2
//	body
//	init @ 1 0.000 0.000 0.000 13.875 -
//	loop 200
//	  irecv peer=+2 tag=1 count=256 size=8 @ 200 32.079 0.100 1.703 97.100 -
//	  waitall done=1,2 null=2 @ 200 23.731 0.089 0.841 1488.107 -
//	  allreduce count=1 size=8 comm=1 @ 200 30868.475 49.555 20021.351 1898.422 -
//	end
//	finalize @ 1 369.874 369.874 369.874 0.240 -
//	end-of-trace
//
// The header: the format's version; the world rank and size; "complete",
// or "partial" and why (signal N, exit before MPI_Finalize, MPI_Abort N);
// the microseconds from MPI_Init's return to MPI_Finalize (or the crash);
// the calls recorded; each communicator other than MPI_COMM_WORLD (id 0)
// the rank used, as world ranks in communicator rank order. Then the body:
// "loop N" ... "end" nest (indentation is for reading only), every other
// line is one record, and "end-of-trace" says the file was written whole.
//
// A record is one call site with fixed parameters: the operation, its
// parameters as key=value, then after "@" the number of calls it stands
// for (the product of its loops' counts), and over them the wall-clock
// microseconds between the previous call's return and this call (sum,
// minimum, maximum), the microseconds spent in the call (sum) and the
// thread's CPU microseconds between the two calls (sum; "-" unless the
// tracer ran with PARLEY_TRACE_CPU, `parley trace --cpu-time`, since
// reading a thread's CPU clock is a system call). Parameters:
//
//   - peer=, rpeer=: the other rank as an offset from this one in world
//     ranks (+1, -4), "any" (MPI_ANY_SOURCE) or "null" (MPI_PROC_NULL);
//     tag=, rtag=: a tag or "any"; count=, size=: elements and bytes per
//     element (rcount=, rsize= for the receive half of a sendrecv);
//   - root=: a world rank; comm=: a communicator id; counts=: the "v"
//     collectives' per-member counts (the root's, at the root);
//   - done=: the requests a wait or test completed, by age among the rank's
//     nonblocking calls (1 is the latest; "-" for none); null=: completed
//     calls to MPI_PROC_NULL; unknown=: completed requests the tracer did
//     not see made (persistent requests, nonblocking collectives);
//   - new=: the id of a communicator made ("null" where the rank got none);
//     found=: whether an MPI_Iprobe found a message.
//
// # Mapping
//
//   - init and finalize become Init and Finalize; send, bsend, ssend and
//     rsend become Send; isend, ibsend, issend, irsend Isend; recv and
//     irecv Recv and Irecv. A call to MPI_PROC_NULL moves no data and makes
//     no event (the tracer does not count it among the nonblocking calls).
//   - sendrecv becomes Isend, Irecv and a Wait on both, as MPI defines it,
//     or the blocking half that is left when the other is MPI_PROC_NULL.
//   - wait, waitall, waitany, waitsome, test, testall, testany, testsome
//     become a Wait on the requests done= lists; with none, no event. A
//     record with unknown= is an error naming the call.
//   - Collectives become the event of the same name on the communicator,
//     sized as frontend/trace/dumpi documents; reduce_scatter_block is a
//     reduce_scatter with even blocks. exscan is an error: Parley has no
//     equivalent.
//   - probe, iprobe, comm_split, comm_dup, comm_create, cart_create and
//     comm_free make no event: their time counts as computation.
//   - Before each record's events goes a Compute event of its mean
//     computation, in microseconds, when that is positive: the CPU time
//     where the trace has it, else the wall time. On a loaded or
//     oversubscribed machine the wall time between calls includes the time
//     the rank waited for a processor, and a benchmark that spins for it
//     asks for that much more processor time; on a quiet machine the two
//     agree. CPU time leaves out time off the processor between calls
//     (sleeping, blocking I/O).
//
// # Partial traces
//
// A trace whose files say "partial", or with a rank's file missing, ends
// early. Read keeps, per rank, the longest prefix of its calls in which
// every message sent is received and every collective is entered by all
// the members of its communicator (a consistent cut), and says so in
// trace.Trace.Partial.
//
// Malformed input is a *trace.SyntaxError at file:line:col. Lines are
// limited to 1 MiB, loops to 64 levels and traces to 2^20 ranks.
package ptrace
