/*
 * spmv.c: iterated sparse matrix-vector product x <- A x with A in CSR
 * form (the 5-point pattern of a narrow grid: see spmv_row in kernels.h),
 * the serial kernel that `parley analyze` reads. spmv_mpi.c is its MPI
 * version.
 *
 *   usage: spmv [n [iterations]]        (defaults 4096 and 10)
 *
 * Prints a weighted sum of x's elements after the last iteration.
 */
#include "kernels.h"

int main(int argc, char **argv)
{
    long v[] = {4096, 10};
    const long max[] = {1L << 24, 1000000};
    if (kernel_args(argc, argv, "spmv [n [iterations]]", 2, v, max, 1) != 0)
        return 2;
    long n = v[0], iters = v[1];

    long *rowptr = xmalloc((size_t)n + 1, sizeof *rowptr);
    int *col = xmalloc((size_t)n * SPMV_ROWMAX, sizeof *col);
    double *val = xmalloc((size_t)n * SPMV_ROWMAX, sizeof *val);
    for (long i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + spmv_row(n, i, col + rowptr[i], val + rowptr[i]);

    double *x = xmalloc((size_t)n, sizeof *x);
    double *y = xmalloc((size_t)n, sizeof *y);
    for (long i = 0; i < n; i++)
        x[i] = spmv_x0(i);

    for (long t = 0; t < iters; t++) {
        for (long i = 0; i < n; i++) {
            double s = 0.0;
            for (long k = rowptr[i]; k < rowptr[i + 1]; k++)
                s += val[k] * x[col[k]];
            y[i] = s;
        }
        double *tmp = x;
        x = y;
        y = tmp;
    }

    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += checksum_weight(i) * x[i];
    printf("checksum %.17g\n", sum);
    free(rowptr);
    free(col);
    free(val);
    free(x);
    free(y);
    return 0;
}
