/*
 * jacobi2d.c: Jacobi iteration of the 5-point Laplace stencil on an n x n
 * grid of unknowns inside a fixed boundary ((n+2) x (n+2) points), the
 * serial kernel that `parley analyze` reads. jacobi2d_mpi.c is its MPI
 * version.
 *
 *   usage: jacobi2d [n [iterations]]        (defaults 64 and 20)
 *
 * Prints a weighted sum of the unknowns after the last iteration.
 */
#include "kernels.h"

int main(int argc, char **argv)
{
    long v[] = {64, 20};
    const long max[] = {8192, 1000000};
    if (kernel_args(argc, argv, "jacobi2d [n [iterations]]", 2, v, max, 1) != 0)
        return 2;
    long n = v[0], iters = v[1], w = n + 2;

    double *u = xmalloc((size_t)(w * w), sizeof *u);
    double *unew = xmalloc((size_t)(w * w), sizeof *unew);
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++)
            u[i * w + j] = unew[i * w + j] = jacobi_init(i, j);

    for (long t = 0; t < iters; t++) {
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
        double *tmp = u;
        u = unew;
        unew = tmp;
    }

    double sum = 0.0;
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            sum += checksum_weight((i - 1) * n + j - 1) * u[i * w + j];
    printf("checksum %.17g\n", sum);
    free(u);
    free(unew);
    return 0;
}
