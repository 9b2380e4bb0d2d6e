// Package tit reads SimGrid time-independent traces (TIT), the traces
// SMPI's replay takes (smpirun -replay), into a trace.Trace. It owns the
// format's grammar, both its current form and the one before SimGrid 3.20,
// and its mapping onto the shared event model; codegen/tit writes the
// current form and everything it writes reads back.
//
// The grammar is SimGrid's own: src/smpi/internals/smpi_replay.cpp (the
// *ArgParser classes and the actions they feed; src/smpi/smpi_replay.c
// before 3.14) and src/xbt/xbt_replay.cpp for the lines.
//
// # Entry points
//
// Read takes an index (one trace file a line, rank i's on line i, paths
// absolute or relative to the index's directory, or failing that to the
// working directory as SimGrid opens them; an index of one line names a
// file holding every rank's lines), a file holding every rank's lines, or
// a directory of such files (indexes in it are skipped; each rank's lines
// must be in one file). Parse reads one stream holding every rank's lines.
// With an index there are as many ranks as files, and a file's lines for
// other ranks are skipped, as SimGrid skips them; otherwise the highest
// rank that starts a line says how many ranks there are. Sniff tells a TIT
// file from other formats.
//
// # Lines
//
// A line is RANK ACTION ARGUMENTS..., fields separated by spaces or tabs;
// blank lines and lines starting with '#' are skipped. RANK, PEER and ROOT
// are world ranks, plain numbers or written p0, p1, ... as old traces had
// them. Action names are matched without regard to case, so the old
// spellings (Isend, Irecv, waitAll, allReduce, allToAll, allToAllV,
// gatherV, scatterV, allGather, allGatherV, reduceScatter) are the same
// actions as the current ones. SIZE and the other scalar counts may be
// written as decimals with a fraction or exponent (1e6) and are truncated,
// as SimGrid's parse_integer does; the per-rank counts of the "v" forms are
// integers, read as std::stoi reads them; there is one per rank (N is the
// number of ranks). COMP and FLOPS are non-negative numbers of flops.
//
// # Actions, current form (SimGrid 3.20 and later)
//
//	RANK init [DATATYPE]             Init; any argument makes the default datatype MPI_DOUBLE
//	RANK finalize                    Finalize
//	RANK compute FLOPS               Compute, Amount FLOPS
//	RANK send PEER TAG SIZE [DT]     Send
//	RANK isend PEER TAG SIZE [DT]    Isend
//	RANK recv PEER TAG SIZE [DT]     Recv
//	RANK irecv PEER TAG SIZE [DT]    Irecv
//	RANK wait SRC DST TAG            Wait for one request (see Waits)
//	RANK waitall                     Wait for every outstanding request
//	RANK sendRecv SCOUNT DST RCOUNT SRC [DT1 [DT2]]   Isend to DST, Irecv from SRC (tag 0), Wait for both
//	RANK barrier                     Barrier
//	RANK bcast SIZE [ROOT [DT]]      Bcast, Count SIZE
//	RANK reduce SIZE COMP [ROOT [DT]]   Reduce, Count SIZE
//	RANK allreduce SIZE COMP [DT]    Allreduce, Count SIZE
//	RANK scan SIZE COMP [DT]         Scan; exscan too
//	RANK alltoall SEND RECV [DT1 [DT2]]          Alltoall, Count SEND (to each member)
//	RANK gather SEND RECV [ROOT [DT1 [DT2]]]     Gather, Count SEND
//	RANK allgather SEND RECV [DT1 [DT2]]         Allgather, Count SEND
//	RANK scatter SEND RECV [ROOT [DT1 [DT2]]]    Scatter, Count SEND (to each member)
//	RANK gatherv SEND R0..RN-1 [ROOT [DT1 [DT2]]]           Gatherv, Count SEND, Counts R
//	RANK allgatherv SEND R0..RN-1 [DT1 DT2] [D0..DN-1]      Allgatherv, Count SEND, Counts R
//	RANK scatterv S0..SN-1 RECV [ROOT [DT1 [DT2]]]          Scatterv, Count RECV, Counts S
//	RANK alltoallv SBUF S0..SN-1 RBUF R0..RN-1 [DT1 [DT2]]  Alltoallv, Counts S, Count their sum
//	RANK reducescatter R0..RN-1 COMP [DT]                   ReduceScatter, Counts R, Count their sum
//	RANK test SRC DST TAG            skipped (see Waits)
//	RANK sleep SECONDS               skipped: the model has no sleep
//	RANK comm_size|comm_split|comm_dup ...   skipped, as SimGrid skips them
//	RANK location FILE LINE          skipped (SimGrid only labels its own traces with it)
//
// allgatherv's optional parts are told apart by their number, as SimGrid
// does: two datatypes and N displacements, N displacements alone (N > 2),
// or up to two datatypes. Displacements are checked and dropped. Every
// other action takes exactly the arguments shown; more are an error, as is
// an action not in the list, which the error names.
//
// # Actions, the form before SimGrid 3.20
//
// Point-to-point actions have no tag (Tag 0, what SimGrid sent them with)
// and wait and test no arguments:
//
//	RANK send PEER SIZE [DT]         likewise Isend, recv, Irecv
//	RANK wait                        Wait for the most recent outstanding request
//	RANK waitAll                     Wait for every outstanding request
//	RANK test                        skipped
//
// Everything else reads as in the current form. Old datatype ids are 0-6;
// any other number meant the default datatype.
//
// Which form a trace is in is decided over the whole trace before it is
// read, from its lines in order of strength: point-to-point actions with 2
// arguments or a wait without arguments are old, ones with 4 arguments or
// a wait with 3 current (two such lines that disagree are an error); then
// values (send 1 1e6 0: a tag is never 1e6, so old; send 1 0 1024: no old
// datatype id is 1024, so current); then the old or current spelling of a
// name (Isend against isend). A trace with no clue is read in the current
// form. Errors about the number of arguments say which form was chosen and
// which line chose it.
//
// # Sizes and datatypes
//
// Count is the number of elements and TypeSize their size. DT is a SimGrid
// datatype id (simgrid::smpi::Datatype: 0 MPI_DOUBLE 8 bytes, 1 MPI_INT 4,
// 2 MPI_CHAR 1, 3 MPI_SHORT 2, 4 MPI_LONG 8, 5 MPI_FLOAT 4, 6 MPI_BYTE 1, up
// to 59 MPI_COUNT; LP64 sizes). Without one, sizes are in the rank's
// default datatype: MPI_BYTE (TypeSize 1), or MPI_DOUBLE (8) after an
// "init" line with an argument, whatever the argument is (InitAction; the
// MPE convention). Where an action's two datatypes differ in size, Count
// and Counts are converted to bytes (TypeSize 1). The COMP of reductions,
// flops SimGrid runs after the collective, has no place in the model and
// is dropped. A receive of negative size (SimGrid then probes for the
// size) has Count 0.
//
// # Peers and wildcards
//
// Peer and Root are world ranks; every collective is over MPI_COMM_WORLD
// (Comm 0), as SimGrid replays them. A receive from PEER -555 (SMPI's
// MPI_ANY_SOURCE) or -333 (MPI_UNDEFINED, which SimGrid's tracer writes for
// a receive from any source) has Peer trace.AnySource; a receive with TAG
// -444 (MPI_ANY_TAG) has Tag trace.AnyTag. Other tags, negative ones
// included (codegen/tit writes the steps of collectives over some of the
// tasks with negative tags), are kept as they are.
//
// # Waits
//
// A Wait lists the requests it completes by age: 1 is the rank's most
// recent nonblocking call (isend, irecv, and the two of a sendRecv),
// counting every one the rank made, completed or not.
//
// In the current form "wait SRC DST TAG" completes the oldest outstanding
// request of the rank whose sender, receiver and tag are SRC, DST and TAG
// (an isend's sender is its rank, an irecv's receiver is): SimGrid files
// requests under that key and WaitAction::kernel takes
// req_storage.pop(src, dst, tag), the front of the key's list
// (RequestStorage::pop; before SimGrid 3.31 each key held one request). A
// receive from any source or with any tag is completed by a wait whose key
// matches it otherwise; a negative SRC is any source. A wait that completes
// nothing is an error (SimGrid ignores it when other requests are
// outstanding, on the grounds that an MPI_Test completed it, but its
// tracer writes no wait for a request a test completed).
//
// In the old form "wait" completes the most recent outstanding request:
// get_reqq_self()->back(), popped (SimGrid 3.10 to 3.19; 3.8 and 3.9 waited
// for receives only). With nothing outstanding it is an error.
//
// waitall completes every outstanding request, in either form; with none
// outstanding it is a Wait with no Waits, as MPI_Waitall with no requests.
// test is skipped: whether MPI_Test completed its request depends on the
// timing of a run, so the request stays outstanding for a later wait or
// waitall. Requests still outstanding when a rank's trace ends stay
// unwaited in the trace (SimGrid's replay completes them after the last
// line; trace.Match counts them).
//
// # Computation
//
// Compute events count flops (Trace.TimeUnit is trace.Flops): SimGrid
// prices them at the speed of the rank's host.
//
// # Limits
//
// Malformed input is reported as a *trace.SyntaxError at the file, line
// and column of the problem, saying what was found and what was expected.
// Ranks are below 2^20, counts at most 2^40 elements, lines at most 32 MiB.
// Where the highest rank says how many ranks there are, at most 4096 of
// them may have no lines: more means a damaged rank number, which would
// otherwise cost memory for every rank up to it.
//
// tit imports only the standard library, frontend/trace and
// frontend/trace/wordline (the line reader it shares with the other
// SimGrid-style format).
package tit
