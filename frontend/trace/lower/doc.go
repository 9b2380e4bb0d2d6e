// Package lower turns an MPI trace into a readable Parley program that
// performs the traced communication exactly: seed 000's benchmark
// generator, for every trace format package trace models.
//
// The pipeline:
//
//  1. trace.MatchInto runs the ranks' calls against each other: wildcard
//     receives get the sender they matched (chosen once no rank can move
//     otherwise, the longest-waiting message first), collectives are
//     checked to line up, and a trace that could deadlock is refused with
//     the cycle. The lowerer is the matcher's trace.Sink: iterations the
//     matcher skips come as repeats of a block of calls, which the folding
//     and the second pass take in bulk (repeat.go).
//  2. Each rank's matched calls become symbols in a rank-relative form (a
//     peer is an offset from the rank, modulo the rank count) and are
//     folded into loops as they arrive (trace.SymbolCompressor), so memory
//     follows the compressed size (and the calls matched one by one, up
//     to 64 MiB of pointers, that the second pass replays). Computation is folded without its
//     amount; a second pass replays the calls the first took (tape.go)
//     along each rank's folded program (tree.go) and gives every compute
//     position the mean of its runs.
//  3. Ranks whose folded sequences are equal in shape (calls without their
//     peers and message sizes; with their direction when every message
//     goes one step along a 2-D or 3-D mesh) form one class.
//  4. The classes are merged into one program (align.go), the class with
//     the most calls first: equal loops
//     become one FOR n REPETITIONS whose bodies are merged in turn, the
//     same call on several classes becomes one statement over the union of
//     their ranks, and a collective is placed where all its members reach
//     it (Algorithm 1), unrolling short loops where that is needed.
//  5. Runs of blocks that differ only in message sizes or peers become FOR
//     EACH loops with those values as expressions of the loop variable
//     (reroll.go).
//  6. Each statement's rank set becomes the simplest task description that
//     fits (ALL TASKS, TASK k, a range, EVEN/ODD, a progression, rows and
//     columns of a mesh, whole columns or rows \/ the rest, a short
//     complement, else a list) and each peer an expression in the task
//     variable (t + 1, t - 4, (t + 1) MOD num_tasks, t XOR 1, a mesh map
//     such as 4 * (t MOD 4) + t / 4, MESH_NEIGHBOR on a torus, and on a
//     stencil mesh MESH_NEIGHBOR for ALL TASKS t when the statement's
//     ranks are those that have the neighbour, or for a rule that may
//     ignore the ranks without it); sizes that differ per rank likewise
//     (80 IF t IS IN [5, 11] OTHERWISE 75, the condition free on ranks
//     outside the statement). A wait is also written for the ranks with
//     nothing outstanding there (await.go) when that reads simpler.
//
// Calls map to statements as follows: MPI_Send and MPI_Isend to SENDS and
// ASYNCHRONOUSLY SENDS ... TO UNSUSPECTING TASK, MPI_Recv and MPI_Irecv to
// RECEIVES and ASYNCHRONOUSLY RECEIVES, a wait to AWAITS COMPLETION (which
// completes all of the rank's outstanding requests; when a wait completed
// only some of them the program's header comment says how many such waits
// there were), each collective to the Parley collective with the same MPI
// meaning, the "v" collectives with sizes that are expressions of the
// bound task variables (vcoll.go); MPI_Scan, which has no Parley
// statement, as the point-to-point exchange of MPICH's recursive-doubling
// scan, which the header notes. Computation becomes COMPUTES FOR n MICROSECONDS for timed
// traces (the per-call mean rounded to whole microseconds; calls under half
// a microsecond are dropped; ranks whose means differ by more than 5% keep
// theirs, in up to four groups, see computeByRank) and COMPUTES n FLOPS for instruction or flop
// counts: one traced instruction is one flop, so the machine model's flop
// rate prices it; the header gives the totals before and after rounding.
//
// It imports frontend/trace, parser, lang and internal/memlimit.
package lower
