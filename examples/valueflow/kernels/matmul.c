/*
 * matmul.c: dense matrix multiply C = A B of n x n doubles, the serial
 * kernel that `parley analyze` reads. matmul_mpi.c is its MPI version.
 *
 *   usage: matmul [n]        (default n = 64)
 *
 * Prints a weighted sum of C's elements (checksum_weight); with integer
 * data it is exact.
 */
#include "kernels.h"

int main(int argc, char **argv)
{
    long v[] = {64};
    const long max[] = {4096};
    if (kernel_args(argc, argv, "matmul [n]", 1, v, max, 1) != 0)
        return 2;
    long n = v[0];

    double *a = xmalloc((size_t)(n * n), sizeof *a);
    double *b = xmalloc((size_t)(n * n), sizeof *b);
    double *c = xmalloc((size_t)(n * n), sizeof *c);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = matmul_a(i, j);
            b[i * n + j] = matmul_b(i, j);
        }

    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }

    double sum = 0.0;
    for (long i = 0; i < n * n; i++)
        sum += checksum_weight(i) * c[i];
    printf("checksum %.17g\n", sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
