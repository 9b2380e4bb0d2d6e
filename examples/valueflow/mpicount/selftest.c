/*
 * selftest.c: calls every MPI function mpicount counts, with sizes that
 * tell them apart, so that valueflow_test.go can check each counting rule
 * (TestMPICount). Run it on 4 tasks with mpicount preloaded. It computes
 * nothing; the buffers are large enough for every call.
 */
#include <mpi.h>
#include <stdlib.h>

enum { MAXCOUNT = 64 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t len = (size_t)(size > 8 ? size : 8) * MAXCOUNT; /* MAXCOUNT a task or a tag */
    double *a = calloc(len, sizeof *a), *b = calloc(len, sizeof *b);
    int *counts = calloc((size_t)size, sizeof *counts), *counts2 = calloc((size_t)size, sizeof *counts2);
    int *displs = calloc((size_t)size, sizeof *displs);
    MPI_Request req[16];
    if (a == NULL || b == NULL || counts == NULL || counts2 == NULL || displs == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int j = 0; j < size; j++)
        displs[j] = j * MAXCOUNT;

    /* Point to point: sends of 1 to 8 doubles to the right, all received
       first so that MPI_Rsend and MPI_Irsend are legal. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char bsendbuf[2 * MPI_BSEND_OVERHEAD + 8 * sizeof(double)];
    MPI_Buffer_attach(bsendbuf, (int)sizeof bsendbuf);
    for (int k = 0; k < 8; k++)
        MPI_Irecv(b + k * MAXCOUNT, k + 1, MPI_DOUBLE, left, k, MPI_COMM_WORLD, &req[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(a, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
    MPI_Bsend(a, 2, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
    MPI_Ssend(a, 3, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
    MPI_Rsend(a, 4, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Isend(a, 5, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &req[8]);
    MPI_Ibsend(a, 6, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &req[9]);
    MPI_Issend(a, 7, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &req[10]);
    MPI_Irsend(a, 8, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req[11]);
    MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
    void *detached;
    int detachedSize;
    MPI_Buffer_detach(&detached, &detachedSize);
    MPI_Sendrecv_replace(a, 9, MPI_DOUBLE, left, 8, right, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(a, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);

    /* Rooted collectives on a sub-communicator whose ranks run against
       MPI_COMM_WORLD's: tasks of the same parity, highest first. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Bcast(a, 10, MPI_DOUBLE, 0, half);
    MPI_Reduce(a, b, 11, MPI_DOUBLE, MPI_SUM, 0, half);
    MPI_Allreduce(a, b, 12, MPI_DOUBLE, MPI_SUM, half);
    MPI_Comm_free(&half);

    MPI_Scatter(a, 13, MPI_DOUBLE, b, 13, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        counts[j] = j + 1;
    MPI_Scatterv(a, counts, displs, MPI_DOUBLE, b, rank + 1, MPI_DOUBLE, 2, MPI_COMM_WORLD);
    MPI_Gather(a, 14, MPI_DOUBLE, b, 14, MPI_DOUBLE, 3, MPI_COMM_WORLD);
    MPI_Gatherv(a, rank + 1, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 15, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgatherv(a, rank + 1, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Alltoall(a, 16, MPI_DOUBLE, b, 16, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++) {
        counts[j] = rank + j + 1; /* what this task sends to j */
        counts2[j] = j + rank + 1; /* what j sends to this task */
    }
    MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts2, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        counts[j] = j + 1;
    MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 17, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    /* Left out of the counts, into excluded_bytes. */
    MPI_Pcontrol(0);
    MPI_Allreduce(a, b, 18, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Pcontrol(1);

    free(a);
    free(b);
    free(counts);
    free(counts2);
    free(displs);
    MPI_Finalize();
    return 0;
}
