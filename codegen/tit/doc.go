// Package tit writes SimGrid time-independent traces (TIT) of a Parley
// run, so that SimGrid's SMPI can replay the program on a platform of its
// own (smpirun -replay). It owns the trace format and the mapping of
// Parley's operations onto it; the interpreter tells it what each task
// issues through the methods of interp.Observer, which Writer implements.
//
// # Files
//
// A trace set for N ranks is N files DIR/BASE-R.tit, one per rank R, and an
// index DIR/BASE.tit that lists them one a line in rank order, which is what
// smpirun -replay takes:
//
//	smpirun -np N -platform cluster.xml -replay DIR/BASE.tit
//
// The index names the files by the path DIR as the exporter was given it,
// and SimGrid opens them relative to its working directory: run smpirun from
// the directory the export ran in, or export to an absolute DIR. With one
// rank the index's single line makes SimGrid read it as a shared trace,
// which works the same since every line starts with its rank.
//
// # Actions
//
// Each line is "RANK ACTION ARGS...", as SimGrid's src/smpi/internals/
// smpi_replay.cpp parses it (the format of SimGrid 3.20 and later, with tags;
// unchanged through 4.x). A rank file opens with "R init" (no argument, so
// the default datatype is MPI_BYTE and every size below is in bytes) and
// closes with "R finalize". In between, in the order the task issues them:
//
//	R send PEER TAG BYTES        blocking send (SEND)
//	R recv PEER TAG BYTES        blocking receive (RECEIVE, or SEND's implied one)
//	R isend PEER TAG BYTES       ASYNCHRONOUSLY SEND
//	R irecv PEER TAG BYTES       ASYNCHRONOUSLY RECEIVE
//	R waitall                    AWAIT COMPLETION
//	R compute FLOPS              COMPUTES FOR, COMPUTES n FLOPS, TOUCHES
//	R sleep SECONDS              SLEEPS FOR
//	R barrier                    SYNCHRONIZE, and the barrier of AND A SYNCHRONIZATION
//	R bcast BYTES ROOT           MULTICAST
//	R reduce BYTES FLOPS ROOT    REDUCE ... TO one task
//	R allreduce BYTES FLOPS      REDUCE without TO, and a timed loop's agreement
//	R reducescatter B0 ... BN-1 FLOPS   REDUCE ... AND SCATTER THE RESULT
//	R gather BYTES BYTES ROOT    GATHER to one task; gatherv S C0 ... CN-1 ROOT
//	R allgather BYTES BYTES      GATHER to all tasks; allgatherv S C0 ... CN-1
//	R scatter BYTES BYTES ROOT   SCATTER; scatterv C0 ... CN-1 BYTES ROOT
//	R alltoall BYTES BYTES       EXCHANGE; alltoallv S C0 ... CN-1 R C0 ... CN-1
//
// The "v" forms are written when the sizes differ by member. A message sent
// n times is n lines. Warmup repetitions are traced: their messages are
// sent. Ranks are processors: the task number unless the program reassigns
// tasks with ARE ASSIGNED TO.
//
// # Collectives over some of the tasks
//
// Replayed collectives act on MPI_COMM_WORLD: SimGrid's replay reads
// comm_size, comm_split and comm_dup but ignores them. A collective over a
// proper subset of the tasks is therefore written as the point-to-point
// steps of the algorithm the interpreter ran it with (netmodel.Plan, the
// algorithm MPICH would choose unless the platform names one): per step
// "irecv", "isend" and a "wait" for each when it both sends and receives,
// "send" or "recv" when it does one of the two, and a "compute" for the
// combining of a reduction step. The steps carry the interpreter's
// collective tag, a negative number below -2^30 that no program message
// uses, and are completed with "wait SRC DST TAG", never "waitall", so the
// program's outstanding asynchronous operations stay outstanding.
// Collectives over every task are written as SimGrid collectives, which
// SimGrid runs with algorithms of its own choosing, unless Writer.Steps is
// set (parley export --collectives steps): then they too are written as
// their steps, so that the replay sends the messages the interpreter
// priced, and a comparison of the two measures the network models alone.
// With SimGrid's collectives, keep its default selector: with
// smpi/coll-selector (or smpi/bcast, smpi/reduce, smpi/allreduce) set to
// mpich or ompi, SimGrid 3.32's replay crashed on broadcasts and
// reductions in our tests.
//
// # Compute
//
// SimGrid prices "compute" in flops at the speed of the rank's host, so
// durations are converted to flops at the rank's per-core flop rate: the
// flops of its node group in the platform divided by tasks_per_node. A
// SimGrid host of that speed (e.g. speed="250Gf" for a 1 TF/s node with
// 4 tasks per node) replays each computation in the interpreter's time:
// COMPUTES FOR d (already divided by the node's speed) becomes d*rate flops,
// COMPUTES n FLOPS becomes n when it is flop-bound and the roofline time
// times the rate when memory-bound, TOUCHES its memory time times the rate;
// all are rounded to whole flops and zero ones are left out. The combining
// inside reductions, which the interpreter prices as memory traffic, is
// converted the same way into the FLOPS argument of reduce, allreduce and
// reducescatter. SLEEPS FOR is written as seconds and does not depend on the
// host.
//
// # Tags and sizes
//
// Program tags are written as they are, except negative ones: MPI tags are
// non-negative and SMPI's own collectives use negative tags (-444 is its
// MPI_ANY_TAG), so a negative tag t is written as t + 2^31. Close reports an
// error if the program also used tags of 2^30 or more, which the shift could
// then collide with. SimGrid's replay reads counts as C ints: a message or
// block over 2^31-1 bytes is an error.
//
// # Memory
//
// Each rank's lines are buffered in memory up to a limit (16 MiB shared
// among the ranks, at most 64 KiB and at least 1 KiB each) and then
// appended to its file, which is opened only for the write, so a trace of
// any length for thousands of ranks needs neither much memory nor many open
// files.
//
// tit imports only the standard library and netmodel.
package tit
