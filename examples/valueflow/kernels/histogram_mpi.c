/*
 * histogram_mpi.c: the MPI version of histogram.c.
 *
 *   usage: mpirun -np P histogram_mpi [n [bins [iterations]]]
 *          (defaults 16384, 64, 10)
 *
 * Decomposition: the n values in blocks (task r owns values
 * block_lo(n, r, P)..). Each step every task adds its values into a
 * local histogram and sums the histograms of all tasks in place
 * (MPI_Allreduce of `bins` 64-bit integers), then moves its values with
 * the global totals. The checksum is summed on task 0 (MPI_Reduce).
 */
#include <mpi.h>
#include <string.h>

#include "kernels.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long v[] = {16384, 64, 10};
    const long max[] = {1L << 26, 1L << 20, 1000000};
    if (kernel_args(argc, argv, "mpirun -np P histogram_mpi [n [bins [iterations]]]", 3, v, max,
                    rank == 0) != 0) {
        MPI_Finalize();
        return 2;
    }
    long n = v[0], bins = v[1], iters = v[2];
    long lo = block_lo(n, rank, size), nloc = block_lo(n, rank + 1, size) - lo;

    double *x = xmalloc((size_t)nloc, sizeof *x);
    int64_t *hist = xmalloc((size_t)bins, sizeof *hist);
    for (long i = 0; i < nloc; i++)
        x[i] = histogram_x0(lo + i);

    for (long t = 0; t < iters; t++) {
        memset(hist, 0, (size_t)bins * sizeof *hist);
        for (long i = 0; i < nloc; i++)
            hist[histogram_bin(x[i], bins)] += histogram_weight(x[i]);
        MPI_Allreduce(MPI_IN_PLACE, hist, (int)bins, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        for (long i = 0; i < nloc; i++)
            x[i] = histogram_step(x[i], hist[histogram_bin(x[i], bins)], n);
    }

    double local = 0.0, sum = 0.0;
    for (long i = 0; i < nloc; i++)
        local += checksum_weight(lo + i) * x[i];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.17g\n", sum);

    free(x);
    free(hist);
    MPI_Finalize();
    return 0;
}
