/*
 * spmv_mpi.c: the MPI version of spmv.c, iterated x <- A x with A in CSR.
 *
 *   usage: mpirun -np P spmv_mpi [n [iterations]]        (defaults 4096, 10)
 *
 * Decomposition: one-dimensional row blocks. Task r owns rows
 * block_lo(n, r, P).. of A and the same entries of x, as PETSc or any
 * hand-written CSR code distributes them. At set-up each task lists the
 * columns its rows reference outside its block (its ghosts), tells each
 * owner how many and which it needs (MPI_Alltoall, MPI_Alltoallv), and
 * renumbers its columns into a local x that keeps the ghosts after its own
 * entries. Each iteration then sends every owner's needed entries to the
 * tasks that need them, once each (MPI_Isend, MPI_Irecv), and multiplies.
 * The set-up exchange moves indices, not values, so it runs between
 * MPI_Pcontrol(0) and MPI_Pcontrol(1): profiling tools, mpicount among
 * them, leave it out of the kernel's volume. The checksum is summed on
 * task 0 (MPI_Reduce).
 */
#include <mpi.h>

#include "kernels.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long v[] = {4096, 10};
    const long max[] = {1L << 24, 1000000};
    if (kernel_args(argc, argv, "mpirun -np P spmv_mpi [n [iterations]]", 2, v, max, rank == 0) != 0) {
        MPI_Finalize();
        return 2;
    }
    long n = v[0], iters = v[1];
    long lo = block_lo(n, rank, size), nloc = block_lo(n, rank + 1, size) - lo;

    long *rowptr = xmalloc((size_t)nloc + 1, sizeof *rowptr);
    int *col = xmalloc((size_t)nloc * SPMV_ROWMAX, sizeof *col);
    double *val = xmalloc((size_t)nloc * SPMV_ROWMAX, sizeof *val);
    for (long i = 0; i < nloc; i++)
        rowptr[i + 1] = rowptr[i] + spmv_row(n, lo + i, col + rowptr[i], val + rowptr[i]);
    long nnz = rowptr[nloc];

    MPI_Pcontrol(0);
    /* Ghosts: the distinct remote columns, ascending, hence grouped by
       owner in rank order. */
    int *ghost = xmalloc((size_t)nnz, sizeof *ghost);
    int ng = 0;
    for (long k = 0; k < nnz; k++)
        if (col[k] < lo || col[k] >= lo + nloc)
            ghost[ng++] = col[k];
    qsort(ghost, (size_t)ng, sizeof *ghost, cmp_int);
    int distinct = 0;
    for (int g = 0; g < ng; g++)
        if (distinct == 0 || ghost[distinct - 1] != ghost[g])
            ghost[distinct++] = ghost[g];
    ng = distinct;

    int *rcount = xmalloc((size_t)size, sizeof *rcount), *rdispl = xmalloc((size_t)size, sizeof *rdispl);
    int *scount = xmalloc((size_t)size, sizeof *scount), *sdispl = xmalloc((size_t)size, sizeof *sdispl);
    for (int g = 0; g < ng; g++)
        rcount[block_owner(n, ghost[g], size)]++;
    MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, MPI_COMM_WORLD);
    int nsend = 0;
    for (int q = 0, off = 0; q < size; q++) {
        rdispl[q] = off;
        off += rcount[q];
        sdispl[q] = nsend;
        nsend += scount[q];
    }
    int *sidx = xmalloc((size_t)nsend, sizeof *sidx); /* the entries others need */
    MPI_Alltoallv(ghost, rcount, rdispl, MPI_INT, sidx, scount, sdispl, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < nsend; s++)
        sidx[s] -= (int)lo;
    for (long k = 0; k < nnz; k++) { /* global columns to local x indices */
        if (col[k] >= lo && col[k] < lo + nloc)
            col[k] -= (int)lo;
        else
            col[k] = (int)nloc + (int)((int *)bsearch(&col[k], ghost, (size_t)ng, sizeof *ghost, cmp_int) - ghost);
    }
    MPI_Pcontrol(1);

    double *x = xmalloc((size_t)(nloc + ng), sizeof *x);
    double *y = xmalloc((size_t)(nloc + ng), sizeof *y);
    double *sendbuf = xmalloc((size_t)nsend, sizeof *sendbuf);
    MPI_Request *req = xmalloc(2 * (size_t)size, sizeof *req);
    for (long i = 0; i < nloc; i++)
        x[i] = spmv_x0(lo + i);

    for (long t = 0; t < iters; t++) {
        int nreq = 0;
        for (int q = 0; q < size; q++)
            if (rcount[q] > 0)
                MPI_Irecv(x + nloc + rdispl[q], rcount[q], MPI_DOUBLE, q, 0, MPI_COMM_WORLD, &req[nreq++]);
        for (int s = 0; s < nsend; s++)
            sendbuf[s] = x[sidx[s]];
        for (int q = 0; q < size; q++)
            if (scount[q] > 0)
                MPI_Isend(sendbuf + sdispl[q], scount[q], MPI_DOUBLE, q, 0, MPI_COMM_WORLD, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (long i = 0; i < nloc; i++) {
            double s = 0.0;
            for (long k = rowptr[i]; k < rowptr[i + 1]; k++)
                s += val[k] * x[col[k]];
            y[i] = s;
        }
        double *tmp = x;
        x = y;
        y = tmp;
    }

    double local = 0.0, sum = 0.0;
    for (long i = 0; i < nloc; i++)
        local += checksum_weight(lo + i) * x[i];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.17g\n", sum);

    free(rowptr);
    free(col);
    free(val);
    free(ghost);
    free(rcount);
    free(rdispl);
    free(scount);
    free(sdispl);
    free(sidx);
    free(x);
    free(y);
    free(sendbuf);
    free(req);
    MPI_Finalize();
    return 0;
}
