/*
 * matmul_mpi.c: the MPI version of matmul.c, C = A B of n x n doubles.
 *
 *   usage: mpirun -np P matmul_mpi [n]        (default n = 64)
 *
 * Decomposition: the P tasks form a pr x pc grid (MPI_Dims_create, pr >= pc,
 * task rank = row * pc + column). Task (i, j) owns block (i, j) of A, B and
 * C: rows block_lo(n, i, pr).. of columns block_lo(n, j, pc)... To compute
 * C(i, j) = A(i, :) B(:, j) it gathers the rest of its block row of A from
 * the pc tasks of its grid row and the rest of its block column of B from
 * the pr tasks of its grid column (MPI_Allgatherv on row and column
 * communicators), then multiplies locally. Each block of A thus travels to
 * pc - 1 tasks and each block of B to pr - 1 tasks: n^2 (pc - 1 + pr - 1)
 * doubles in all, against (P - 1) n^2 for row blocks. The checksum is then
 * summed on task 0 (MPI_Reduce).
 */
#include <mpi.h>

#include "kernels.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long v[] = {64};
    const long max[] = {4096};
    if (kernel_args(argc, argv, "mpirun -np P matmul_mpi [n]", 1, v, max, rank == 0) != 0) {
        MPI_Finalize();
        return 2;
    }
    long n = v[0];

    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int pr = dims[0], pc = dims[1], myrow = rank / pc, mycol = rank % pc;
    MPI_Comm rowcomm, colcomm; /* ranked by grid column, and by grid row */
    MPI_Comm_split(MPI_COMM_WORLD, myrow, mycol, &rowcomm);
    MPI_Comm_split(MPI_COMM_WORLD, mycol, myrow, &colcomm);

    long r0 = block_lo(n, myrow, pr), nr = block_lo(n, myrow + 1, pr) - r0;
    long c0 = block_lo(n, mycol, pc), nc = block_lo(n, mycol + 1, pc) - c0;
    double *a = xmalloc((size_t)(nr * nc), sizeof *a); /* A(myrow, mycol) */
    double *b = xmalloc((size_t)(nr * nc), sizeof *b); /* B(myrow, mycol) */
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++) {
            a[i * nc + j] = matmul_a(r0 + i, c0 + j);
            b[i * nc + j] = matmul_b(r0 + i, c0 + j);
        }

    /* The block row of A arrives as pc blocks one after the other, block q
       being nr x (width of column block q); the block column of B as pr
       blocks stacked in row order, which is B(:, mycol) row by row. */
    int *counts = xmalloc((size_t)(pr > pc ? pr : pc), sizeof *counts);
    int *displs = xmalloc((size_t)(pr > pc ? pr : pc), sizeof *displs);
    double *arow = xmalloc((size_t)(nr * n), sizeof *arow);
    double *bcol = xmalloc((size_t)(n * nc), sizeof *bcol);
    for (int q = 0, off = 0; q < pc; q++) {
        counts[q] = (int)(nr * (block_lo(n, q + 1, pc) - block_lo(n, q, pc)));
        displs[q] = off;
        off += counts[q];
    }
    MPI_Allgatherv(a, (int)(nr * nc), MPI_DOUBLE, arow, counts, displs, MPI_DOUBLE, rowcomm);
    for (int q = 0, off = 0; q < pr; q++) {
        counts[q] = (int)((block_lo(n, q + 1, pr) - block_lo(n, q, pr)) * nc);
        displs[q] = off;
        off += counts[q];
    }
    MPI_Allgatherv(b, (int)(nr * nc), MPI_DOUBLE, bcol, counts, displs, MPI_DOUBLE, colcomm);

    double *c = xmalloc((size_t)(nr * nc), sizeof *c);
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++) {
            double s = 0.0; /* k runs in increasing order, as in matmul.c */
            for (int q = 0; q < pc; q++) {
                long k0 = block_lo(n, q, pc), w = block_lo(n, q + 1, pc) - k0;
                const double *ablk = arow + nr * k0;
                for (long k = 0; k < w; k++)
                    s += ablk[i * w + k] * bcol[(k0 + k) * nc + j];
            }
            c[i * nc + j] = s;
        }

    double local = 0.0, sum = 0.0;
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++)
            local += checksum_weight((r0 + i) * n + c0 + j) * c[i * nc + j];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.17g\n", sum);

    free(a);
    free(b);
    free(c);
    free(arow);
    free(bcol);
    free(counts);
    free(displs);
    MPI_Comm_free(&rowcomm);
    MPI_Comm_free(&colcomm);
    MPI_Finalize();
    return 0;
}
