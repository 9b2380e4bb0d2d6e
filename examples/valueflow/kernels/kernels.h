/*
 * kernels.h: what the serial and the MPI version of each value-flow example
 * kernel must agree on, so that both compute the same numbers bit for bit:
 * argument parsing, the block distribution, and the data generators. Every
 * generated element depends only on its global index, never on which task
 * generates it or in which order, so an MPI task can generate its own block
 * and nothing has to be distributed at start-up.
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* hash32 scrambles x (the "lowbias32" integer hash): a cheap, portable
   pseudo-random value that needs no generator state. */
static inline uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* hash2 scrambles a pair of indices. */
static inline uint32_t hash2(uint32_t a, uint32_t b)
{
    return hash32(hash32(a) ^ b);
}

/* unit maps a hash to a double in [0, 1); the division is exact. */
static inline double unit(uint32_t h)
{
    return h / 4294967296.0;
}

/* block_lo is the first of n items that task r of p owns in a block
   distribution: floor(r n / p), so block sizes differ by at most one. */
static inline long block_lo(long n, int r, int p)
{
    return (long)((int64_t)n * r / p);
}

/* block_owner is the task that owns item i of n in that distribution. */
static inline int block_owner(long n, long i, int p)
{
    int r = (int)(((int64_t)i * p) / n);
    while (r + 1 < p && block_lo(n, r + 1, p) <= i)
        r++;
    while (block_lo(n, r, p) > i)
        r--;
    return r;
}

/*
 * kernel_args reads the positional arguments argv[1..] as integers into
 * vals, which hold the defaults; argument i must lie in [1, max[i]] so
 * that sizes cannot overflow (strtol's overflow value, LONG_MAX, lies
 * outside, so errno is not needed). On a bad argument it prints what is
 * wrong and the usage on standard error (when loud: one MPI task reports
 * for all) and returns -1.
 */
static inline int kernel_args(int argc, char **argv, const char *usage, int nargs, long vals[],
                              const long max[], int loud)
{
    if (argc - 1 > nargs) {
        if (loud)
            fprintf(stderr, "%s: %d arguments, at most %d expected\nusage: %s\n", argv[0], argc - 1,
                    nargs, usage);
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        char *end;
        long v = strtol(argv[i], &end, 10);
        if (end == argv[i] || *end != '\0' || v < 1 || v > max[i - 1]) {
            if (loud)
                fprintf(stderr, "%s: argument %d must be an integer from 1 to %ld, not \"%s\"\nusage: %s\n",
                        argv[0], i, max[i - 1], argv[i], usage);
            return -1;
        }
        vals[i - 1] = v;
    }
    return 0;
}

/* xmalloc allocates n elements of size bytes, or exits with a message. */
static inline void *xmalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL) {
        fprintf(stderr, "out of memory allocating %zu x %zu bytes\n", n, size);
        exit(1);
    }
    return p;
}

/* checksum_weight weighs element i (its global index) in the printed
   checksum, so that a result in the wrong place changes the checksum. */
static inline double checksum_weight(long i)
{
    return (double)(1 + i % 7);
}

/* Dense matrix multiply: small integers, so every product and sum is exact
   and the checksum does not depend on the order of the additions. */
static inline double matmul_a(long i, long j)
{
    return (double)((i * 7 + j * 3) % 11) - 3.0;
}

static inline double matmul_b(long i, long j)
{
    return (double)((i * 5 + j * 2) % 13) - 4.0;
}

/*
 * CSR sparse matrix: the 5-point Laplacian pattern of a grid SPMV_WIDTH
 * points wide and n / SPMV_WIDTH long, numbered along the short side, as
 * a finite-difference code on a channel numbers it: row i holds the
 * diagonal and the neighbours i - 1 and i + 1 on its grid row and
 * i - SPMV_WIDTH and i + SPMV_WIDTH on the grid rows beside it, where they
 * exist. The entries are pseudo-random: the diagonal is 1/2 and the
 * off-diagonal entries sum to at most 1/2, so the iteration x <- A x stays
 * bounded.
 */
enum { SPMV_WIDTH = 16, SPMV_OFFDIAG = 4, SPMV_ROWMAX = SPMV_OFFDIAG + 1 };

/* spmv_row writes row i's column indices, ascending, and their values into
   cols and vals (room for SPMV_ROWMAX each) and returns how many there
   are. */
static inline int spmv_row(long n, long i, int cols[], double vals[])
{
    int nnz = 0;
    if (i >= SPMV_WIDTH)
        cols[nnz++] = (int)(i - SPMV_WIDTH);
    if (i % SPMV_WIDTH > 0)
        cols[nnz++] = (int)(i - 1);
    cols[nnz++] = (int)i;
    if (i % SPMV_WIDTH < SPMV_WIDTH - 1 && i + 1 < n)
        cols[nnz++] = (int)(i + 1);
    if (i + SPMV_WIDTH < n)
        cols[nnz++] = (int)(i + SPMV_WIDTH);
    for (int m = 0; m < nnz; m++)
        vals[m] = cols[m] == i ? 0.5
                               : 0.5 / SPMV_OFFDIAG * unit(hash2((uint32_t)i, (uint32_t)cols[m] ^ 0x55555555U));
    return nnz;
}

static inline double spmv_x0(long i)
{
    return 1.0 + unit(hash32((uint32_t)i));
}

/* 2-D Jacobi: the initial value of grid point (i, j), boundary included. */
static inline double jacobi_init(long i, long j)
{
    return unit(hash2((uint32_t)i, (uint32_t)j));
}

/*
 * Histogram iteration: a weighted histogram. Each value x in [0, 1) adds
 * its weight, 1 + floor(1024 x), to its bin, in integers so that the sums
 * do not depend on the order of the additions; then each value moves to a
 * new place in [0, 1) that depends on its bin's total, so every step needs
 * the whole histogram. The weight makes each bin's total depend on the
 * values themselves, not only through the bin's index.
 */
static inline double histogram_x0(long i)
{
    return unit(hash32((uint32_t)i ^ 0x2545f491U));
}

static inline int histogram_bin(double x, long bins)
{
    long b = (long)(x * (double)bins);
    return (int)(b < bins ? b : bins - 1);
}

static inline int64_t histogram_weight(double x)
{
    return 1 + (int64_t)(1024.0 * x);
}

/* histogram_step moves x by its bin's total, out of at most 1025 n. */
static inline double histogram_step(double x, int64_t total, long n)
{
    double y = 2.5 * x + (double)total / (1025.0 * (double)n);
    return y - (double)(long)y; /* the fractional part: y >= 0 */
}

#endif
