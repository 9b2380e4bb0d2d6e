/* cg.c: conjugate gradients on the 5-point Laplacian of an nx x ny grid
 * whose rows are distributed over the ranks. The matrix-vector product
 * needs the neighbouring ranks' boundary rows (a sparse halo, exchanged
 * with MPI_Sendrecv on a duplicate of MPI_COMM_WORLD, as a library would);
 * each iteration takes two dot products (MPI_Allreduce).
 *
 *   mpirun -np 4 ./cg [--iters 200] [--nx 512] [--rows 128] [--tol 0]
 *
 * --rows is the number of grid rows per rank; it stops when the residual
 * falls below --tol, so with 0 every iteration runs. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long arg(int argc, char **argv, const char *name, long def)
{
  int i;
  for (i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return atol(argv[i + 1]);
  return def;
}

static MPI_Comm comm;
static int rank, size;
static long nx, rows;

/* matvec computes y = A x, x holding a halo row above and below. */
static void matvec(double *x, double *y)
{
  long i, j;
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(x + nx, (int)nx, MPI_DOUBLE, up, 0, x + (rows + 1) * nx, (int)nx, MPI_DOUBLE, down, 0, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(x + rows * nx, (int)nx, MPI_DOUBLE, down, 1, x, (int)nx, MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
  for (i = 1; i <= rows; i++)
    for (j = 0; j < nx; j++) {
      double s = 4 * x[i * nx + j] - x[(i - 1) * nx + j] - x[(i + 1) * nx + j];
      if (j > 0) s -= x[i * nx + j - 1];
      if (j < nx - 1) s -= x[i * nx + j + 1];
      y[i * nx + j] = s;
    }
}

static double dot(const double *a, const double *b)
{
  long i;
  double local = 0, global;
  for (i = nx; i < (rows + 1) * nx; i++) local += a[i] * b[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
  return global;
}

int main(int argc, char **argv)
{
  long iters, i, it;
  size_t len;
  double *x, *r, *p, *q, rr, t0, tol = 0;

  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  iters = arg(argc, argv, "--iters", 200);
  nx = arg(argc, argv, "--nx", 512);
  rows = arg(argc, argv, "--rows", 128);
  for (i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--tol") == 0) tol = atof(argv[i + 1]);
  len = (size_t)((rows + 2) * nx);
  x = calloc(len, sizeof *x);
  r = calloc(len, sizeof *r);
  p = calloc(len, sizeof *p);
  q = calloc(len, sizeof *q);
  if (!x || !r || !p || !q) MPI_Abort(comm, 1);
  /* b = 1, x = 0: r = p = b */
  for (i = nx; i < (rows + 1) * nx; i++) r[i] = p[i] = 1;
  rr = dot(r, r);

  MPI_Barrier(comm);
  t0 = MPI_Wtime();
  for (it = 0; it < iters && sqrt(rr) >= tol; it++) {
    double alpha, beta, rr1, pq;
    matvec(p, q);
    pq = dot(p, q);
    alpha = pq != 0 ? rr / pq : 0; /* converged to the last bit: keep iterating */
    for (i = nx; i < (rows + 1) * nx; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    rr1 = dot(r, r);
    beta = rr != 0 ? rr1 / rr : 0;
    rr = rr1;
    for (i = nx; i < (rows + 1) * nx; i++) p[i] = r[i] + beta * p[i];
  }
  if (rank == 0) printf("cg: %d ranks, %ld iterations, residual %.6e, time %.6f s\n", size, it, sqrt(rr), MPI_Wtime() - t0);
  MPI_Comm_free(&comm);
  free(x);
  free(r);
  free(p);
  free(q);
  MPI_Finalize();
  return 0;
}
