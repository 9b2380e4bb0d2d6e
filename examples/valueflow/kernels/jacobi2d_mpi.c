/*
 * jacobi2d_mpi.c: the MPI version of jacobi2d.c, Jacobi iteration of the
 * 5-point stencil on n x n unknowns inside a fixed boundary.
 *
 *   usage: mpirun -np P jacobi2d_mpi [n [iterations]]        (defaults 64, 20)
 *
 * Decomposition: two-dimensional blocks. The P tasks form a pr x pc
 * Cartesian grid without wraparound (MPI_Dims_create, pr >= pc; task rank =
 * row * pc + column, no reordering). Task (i, j) owns unknowns rows
 * block_lo(n, i, pr).. and columns block_lo(n, j, pc).., stored with a
 * one-point halo. Before each sweep it exchanges its edge rows with the
 * tasks above and below and its edge columns (an MPI_Type_vector) with the
 * tasks left and right (MPI_Sendrecv; MPI_PROC_NULL at the grid's edge,
 * where the halo holds the fixed boundary instead). The 5-point stencil
 * needs no corners. The checksum is summed on task 0 (MPI_Reduce).
 */
#include <mpi.h>

#include "kernels.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long v[] = {64, 20};
    const long max[] = {8192, 1000000};
    if (kernel_args(argc, argv, "mpirun -np P jacobi2d_mpi [n [iterations]]", 2, v, max, rank == 0) != 0) {
        MPI_Finalize();
        return 2;
    }
    long n = v[0], iters = v[1];

    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_coords(grid, rank, 2, coords);
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);

    /* Local point (li, lj), 0 <= li <= ni + 1, is global grid point
       (i0 + li, j0 + lj): unknowns are rows and columns 1..n of the grid. */
    long i0 = block_lo(n, coords[0], dims[0]), ni = block_lo(n, coords[0] + 1, dims[0]) - i0;
    long j0 = block_lo(n, coords[1], dims[1]), nj = block_lo(n, coords[1] + 1, dims[1]) - j0;
    long w = nj + 2;
    double *u = xmalloc((size_t)((ni + 2) * w), sizeof *u);
    double *unew = xmalloc((size_t)((ni + 2) * w), sizeof *unew);
    for (long li = 0; li < ni + 2; li++)
        for (long lj = 0; lj < w; lj++) {
            long gi = i0 + li, gj = j0 + lj;
            int owned = li >= 1 && li <= ni && lj >= 1 && lj <= nj;
            int boundary = gi == 0 || gi == n + 1 || gj == 0 || gj == n + 1;
            /* Halo points inside the grid stay 0 until the first exchange. */
            u[li * w + lj] = unew[li * w + lj] = owned || boundary ? jacobi_init(gi, gj) : 0.0;
        }

    MPI_Datatype column;
    MPI_Type_vector((int)ni, 1, (int)w, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    for (long t = 0; t < iters; t++) {
        MPI_Sendrecv(&u[1 * w + 1], (int)nj, MPI_DOUBLE, up, 0,
                     &u[(ni + 1) * w + 1], (int)nj, MPI_DOUBLE, down, 0, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[ni * w + 1], (int)nj, MPI_DOUBLE, down, 1,
                     &u[0 * w + 1], (int)nj, MPI_DOUBLE, up, 1, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * w + 1], 1, column, left, 2,
                     &u[1 * w + nj + 1], 1, column, right, 2, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * w + nj], 1, column, right, 3,
                     &u[1 * w + 0], 1, column, left, 3, grid, MPI_STATUS_IGNORE);
        for (long i = 1; i <= ni; i++)
            for (long j = 1; j <= nj; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
        double *tmp = u;
        u = unew;
        unew = tmp;
    }

    double local = 0.0, sum = 0.0;
    for (long i = 1; i <= ni; i++)
        for (long j = 1; j <= nj; j++)
            local += checksum_weight((i0 + i - 1) * n + j0 + j - 1) * u[i * w + j];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.17g\n", sum);

    MPI_Type_free(&column);
    MPI_Comm_free(&grid);
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
