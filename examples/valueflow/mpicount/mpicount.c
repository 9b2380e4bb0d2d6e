/*
 * mpicount.c: a PMPI interposition library that measures how many bytes
 * each MPI task sends to each other task, for Parley's value-flow examples
 * (examples/valueflow) and for any C MPI program.
 *
 * Build and use it without relinking the program:
 *
 *   mpicc -std=c99 -O2 -shared -fPIC -o libmpicount.so mpicount.c
 *   mpirun -np 4 -x LD_PRELOAD=$PWD/libmpicount.so -x MPICOUNT_DIR=out ./prog
 *
 * (or link mpicount.c into the program). At MPI_Finalize each task writes
 * MPICOUNT_DIR/rank-R.json (R its rank in MPI_COMM_WORLD; the directory
 * must exist; default the working directory):
 *
 *   {"rank": R, "size": P, "p2p_bytes": [P numbers], "collective_bytes":
 *    [P numbers], "excluded_bytes": B, "calls": {"MPI_Send": 3, ...}}
 *
 * p2p_bytes[j] and collective_bytes[j] are the bytes this task sent to task
 * j, so the files' rows, stacked, form the P x P volume matrix (row =
 * sender). Bytes are count x MPI_Type_size(datatype): payload only, no
 * envelopes or padding.
 *
 * Point to point: every send (MPI_Send, Bsend, Ssend, Rsend, Isend, Ibsend,
 * Issend, Irsend, and the send half of Sendrecv and Sendrecv_replace) counts
 * its payload towards its destination; MPI_PROC_NULL counts nothing.
 * Receives are not counted: each byte is counted once, by its sender.
 *
 * Collectives are counted as the data the operation must move between
 * tasks, whatever algorithm the MPI library picks, attributed as a flat
 * algorithm would move it ("n" is count x type size; "others" are the
 * communicator's other members):
 *   MPI_Bcast          the root sends n to each of the others
 *   MPI_Scatter(v)     the root sends each other its block
 *   MPI_Gather(v)      each non-root sends its block to the root
 *   MPI_Reduce         each non-root sends n to the root
 *   MPI_Allreduce      as a reduce to rank 0 and a broadcast from it: each
 *                      non-zero rank sends n to rank 0, rank 0 sends n to
 *                      each of the others: 2 (P - 1) n in all, which is also
 *                      what reduce-and-broadcast trees and the ring
 *                      algorithm move
 *   MPI_Allgather(v)   each task sends its block to each of the others
 *   MPI_Alltoall(v)    each task sends block j to task j
 *   MPI_Reduce_scatter(_block)  each task sends its contribution to block j
 *                      to task j
 * So a broadcast of n bytes on P tasks is (P - 1) n, the seed paper's
 * "total data transfer volume", which grows linearly with P. A task's own
 * block (to itself) is not counted. With MPI_IN_PLACE the block size comes
 * from the receive arguments.
 *
 * Sub-communicators are fine: peers are translated to MPI_COMM_WORLD
 * ranks; an intercommunicator aborts the run with a message. Calls not
 * listed above pass through uncounted, notably persistent sends
 * (MPI_Send_init), non-blocking and neighbourhood collectives, MPI_Scan
 * and one-sided communication: the "calls" object shows what was counted,
 * so a reader can check that it covers the program's communication. The
 * counters are not locked: use it on single-threaded programs, or ones
 * where only one thread calls MPI.
 *
 * MPI_Pcontrol(0) stops counting into the two vectors, MPI_Pcontrol(1)
 * resumes (the MPI standard's profiling switch, which mpiP also honours);
 * what is sent in between is added to excluded_bytes instead, so a kernel
 * can leave its set-up out and the file still shows it.
 *
 * selftest.c makes every call counted here; TestMPICount in
 * ../valueflow_test.go checks each rule on it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The calls counted, by name, for the "calls" object. */
#define CALLS(X)                                                                                    \
    X(Send) X(Bsend) X(Ssend) X(Rsend) X(Isend) X(Ibsend) X(Issend) X(Irsend) X(Sendrecv)           \
    X(Sendrecv_replace) X(Bcast) X(Scatter) X(Scatterv) X(Gather) X(Gatherv) X(Reduce) X(Allreduce) \
    X(Allgather) X(Allgatherv) X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Reduce_scatter_block)
#define ENUM(name) CALL_##name,
#define NAME(name) "MPI_" #name,
enum { CALLS(ENUM) NCALLS };
static const char *const call_names[NCALLS] = {CALLS(NAME)};

static int world_rank = -1, world_size;
static MPI_Group world_group = MPI_GROUP_NULL;
static long long *p2p, *coll, excluded, calls[NCALLS];
static int counting = 1;
static int *peers; /* scratch: a communicator's ranks in MPI_COMM_WORLD */

static void die(const char *what)
{
    fprintf(stderr, "mpicount: %s\n", what);
    PMPI_Abort(MPI_COMM_WORLD, 3);
}

static void setup(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    p2p = calloc((size_t)world_size, sizeof *p2p);
    coll = calloc((size_t)world_size, sizeof *coll);
    peers = calloc((size_t)world_size, sizeof *peers);
    if (p2p == NULL || coll == NULL || peers == NULL)
        die("out of memory");
}

/* enter counts one call to `call` on comm: it fills peers with comm's
   ranks translated to MPI_COMM_WORLD, stores this task's rank in comm in
   *me, and returns comm's size. */
static int enter(int call, MPI_Comm comm, int *me)
{
    calls[call]++;
    int inter, n;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        die("intercommunicators are not supported");
    PMPI_Comm_rank(comm, me);
    PMPI_Comm_size(comm, &n);
    if (n > world_size)
        die("communicators larger than MPI_COMM_WORLD are not supported");
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (ranks == NULL)
        die("out of memory");
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    PMPI_Group_translate_ranks(g, n, ranks, world_group, peers);
    PMPI_Group_free(&g);
    free(ranks);
    return n;
}

static long long bytes(long long count, MPI_Datatype type)
{
    int size;
    PMPI_Type_size(type, &size);
    return count * size;
}

/* add counts b bytes sent to rank `to` of the communicator last entered. */
static void add(long long *v, int to, long long b)
{
    int w = peers[to];
    if (w == world_rank || b == 0)
        return;
    if (counting)
        v[w] += b;
    else
        excluded += b;
}

/* to_others counts b bytes sent to each of the n members but this task. */
static void to_others(long long b, int n)
{
    for (int j = 0; j < n; j++)
        add(coll, j, b);
}

/* to_each counts counts[j] x type sent to each member j but this task. */
static void to_each(const int counts[], MPI_Datatype type, int n)
{
    for (int j = 0; j < n; j++)
        add(coll, j, bytes(counts[j], type));
}

static void count_send(int call, int count, MPI_Datatype type, int dest, MPI_Comm comm)
{
    int me;
    enter(call, comm, &me);
    if (dest != MPI_PROC_NULL)
        add(p2p, dest, bytes(count, type));
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Pcontrol(const int level, ...)
{
    counting = level != 0;
    return MPI_SUCCESS;
}

static void write_row(FILE *f, const char *key, const long long *v)
{
    fprintf(f, "  \"%s\": [", key);
    for (int j = 0; j < world_size; j++)
        fprintf(f, "%s%lld", j ? ", " : "", v[j]);
    fprintf(f, "],\n");
}

int MPI_Finalize(void)
{
    if (world_rank < 0) /* MPI_Init failed or bypassed this library */
        return PMPI_Finalize();
    const char *dir = getenv("MPICOUNT_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d.json", dir && *dir ? dir : ".", world_rank);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "mpicount: cannot write %s (does the directory exist?)\n", path);
    } else {
        fprintf(f, "{\n  \"rank\": %d,\n  \"size\": %d,\n", world_rank, world_size);
        write_row(f, "p2p_bytes", p2p);
        write_row(f, "collective_bytes", coll);
        fprintf(f, "  \"excluded_bytes\": %lld,\n  \"calls\": {", excluded);
        for (int c = 0, first = 1; c < NCALLS; c++)
            if (calls[c] != 0) {
                fprintf(f, "%s\"%s\": %lld", first ? "" : ", ", call_names[c], calls[c]);
                first = 0;
            }
        fprintf(f, "}\n}\n");
        if (fclose(f) != 0)
            fprintf(stderr, "mpicount: error writing %s\n", path);
    }
    PMPI_Group_free(&world_group);
    free(p2p);
    free(coll);
    free(peers);
    return PMPI_Finalize();
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count_send(CALL_Send, count, type, dest, comm);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count_send(CALL_Bsend, count, type, dest, comm);
    return PMPI_Bsend(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count_send(CALL_Ssend, count, type, dest, comm);
    return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count_send(CALL_Rsend, count, type, dest, comm);
    return PMPI_Rsend(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    count_send(CALL_Isend, count, type, dest, comm);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    count_send(CALL_Ibsend, count, type, dest, comm);
    return PMPI_Ibsend(buf, count, type, dest, tag, comm, req);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    count_send(CALL_Issend, count, type, dest, comm);
    return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    count_send(CALL_Irsend, count, type, dest, comm);
    return PMPI_Irsend(buf, count, type, dest, tag, comm, req);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    count_send(CALL_Sendrecv, sendcount, sendtype, dest, comm);
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    count_send(CALL_Sendrecv_replace, count, type, dest, comm);
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int me, n = enter(CALL_Bcast, comm, &me);
    if (me == root)
        to_others(bytes(count, type), n);
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int me, n = enter(CALL_Scatter, comm, &me);
    if (me == root)
        to_others(bytes(sendcount, sendtype), n);
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    int me, n = enter(CALL_Scatterv, comm, &me);
    if (me == root)
        to_each(sendcounts, sendtype, n);
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int me;
    enter(CALL_Gather, comm, &me);
    if (me != root)
        add(coll, root, bytes(sendcount, sendtype));
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    int me;
    enter(CALL_Gatherv, comm, &me);
    if (me != root)
        add(coll, root, bytes(sendcount, sendtype));
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    int me;
    enter(CALL_Reduce, comm, &me);
    if (me != root)
        add(coll, root, bytes(count, type));
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    int me, n = enter(CALL_Allreduce, comm, &me);
    if (me == 0)
        to_others(bytes(count, type), n);
    else
        add(coll, 0, bytes(count, type));
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int me, n = enter(CALL_Allgather, comm, &me);
    to_others(sendbuf == MPI_IN_PLACE ? bytes(recvcount, recvtype) : bytes(sendcount, sendtype), n);
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    int me, n = enter(CALL_Allgatherv, comm, &me);
    to_others(sendbuf == MPI_IN_PLACE ? bytes(recvcounts[me], recvtype) : bytes(sendcount, sendtype), n);
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int me, n = enter(CALL_Alltoall, comm, &me);
    to_others(sendbuf == MPI_IN_PLACE ? bytes(recvcount, recvtype) : bytes(sendcount, sendtype), n);
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int me, n = enter(CALL_Alltoallv, comm, &me);
    if (sendbuf == MPI_IN_PLACE)
        to_each(recvcounts, recvtype, n);
    else
        to_each(sendcounts, sendtype, n);
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int me, n = enter(CALL_Reduce_scatter, comm, &me);
    to_each(recvcounts, type, n);
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    int me, n = enter(CALL_Reduce_scatter_block, comm, &me);
    to_others(bytes(recvcount, type), n);
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}
