/*
 * histogram.c: a reduction-heavy iteration. Each step adds n values in
 * [0, 1) into a weighted histogram of `bins` bins (histogram_weight in
 * kernels.h), then moves every value to a new place that depends on its
 * bin's total (histogram_step), so every step needs the whole, global
 * histogram. The serial kernel that `parley analyze` reads;
 * histogram_mpi.c is its MPI version.
 *
 *   usage: histogram [n [bins [iterations]]]        (defaults 16384, 64, 10)
 *
 * Prints a weighted sum of the values after the last step.
 */
#include <string.h>

#include "kernels.h"

int main(int argc, char **argv)
{
    long v[] = {16384, 64, 10};
    const long max[] = {1L << 26, 1L << 20, 1000000};
    if (kernel_args(argc, argv, "histogram [n [bins [iterations]]]", 3, v, max, 1) != 0)
        return 2;
    long n = v[0], bins = v[1], iters = v[2];

    double *x = xmalloc((size_t)n, sizeof *x);
    int64_t *hist = xmalloc((size_t)bins, sizeof *hist);
    for (long i = 0; i < n; i++)
        x[i] = histogram_x0(i);

    for (long t = 0; t < iters; t++) {
        memset(hist, 0, (size_t)bins * sizeof *hist);
        for (long i = 0; i < n; i++)
            hist[histogram_bin(x[i], bins)] += histogram_weight(x[i]);
        for (long i = 0; i < n; i++)
            x[i] = histogram_step(x[i], hist[histogram_bin(x[i], bins)], n);
    }

    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += checksum_weight(i) * x[i];
    printf("checksum %.17g\n", sum);
    free(x);
    free(hist);
    return 0;
}
