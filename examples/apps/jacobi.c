/* jacobi.c: 2-D Jacobi relaxation of Laplace's equation on a Cartesian
 * grid of ranks (MPI_Cart_create). Each iteration exchanges the four halo
 * edges with nonblocking calls, relaxes the local block and tests
 * convergence with an all-reduce of the residual.
 *
 *   mpirun -np 4 ./jacobi [--iters 200] [--n 256] [--tol 0]
 *
 * --n is the local block's side; with --tol 0 every iteration runs. */
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

int main(int argc, char **argv)
{
  int rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], up, down, left, right;
  long iters, n, i, j, it;
  double tol, *u, *v, *sendw, *sende, *recvw, *recve, t0, res = 0;
  MPI_Comm grid;
  MPI_Request req[8];

  MPI_Init(&argc, &argv);
  iters = arg(argc, argv, "--iters", 200);
  n = arg(argc, argv, "--n", 256);
  tol = 0;
  for (i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--tol") == 0) tol = atof(argv[i + 1]);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 2, coords);
  MPI_Cart_shift(grid, 0, 1, &up, &down);
  MPI_Cart_shift(grid, 1, 1, &left, &right);

  /* (n+2) x (n+2) with a halo; the top edge of the whole grid is held at 1 */
  u = calloc((size_t)(n + 2) * (size_t)(n + 2), sizeof *u);
  v = calloc((size_t)(n + 2) * (size_t)(n + 2), sizeof *v);
  sendw = malloc((size_t)n * sizeof *sendw);
  sende = malloc((size_t)n * sizeof *sende);
  recvw = malloc((size_t)n * sizeof *recvw);
  recve = malloc((size_t)n * sizeof *recve);
  if (!u || !v || !sendw || !sende || !recvw || !recve) MPI_Abort(MPI_COMM_WORLD, 1);
  if (coords[0] == 0)
    for (j = 0; j < n + 2; j++) u[j] = v[j] = 1;
#define U(a, b) u[(a) * (n + 2) + (b)]
#define V(a, b) v[(a) * (n + 2) + (b)]

  MPI_Barrier(grid);
  t0 = MPI_Wtime();
  for (it = 0; it < iters; it++) {
    double local = 0, *t;
    for (i = 0; i < n; i++) {
      sendw[i] = U(i + 1, 1);
      sende[i] = U(i + 1, n);
    }
    MPI_Irecv(&U(0, 1), (int)n, MPI_DOUBLE, up, 0, grid, &req[0]);
    MPI_Irecv(&U(n + 1, 1), (int)n, MPI_DOUBLE, down, 1, grid, &req[1]);
    MPI_Irecv(recvw, (int)n, MPI_DOUBLE, left, 2, grid, &req[2]);
    MPI_Irecv(recve, (int)n, MPI_DOUBLE, right, 3, grid, &req[3]);
    MPI_Isend(&U(1, 1), (int)n, MPI_DOUBLE, up, 1, grid, &req[4]);
    MPI_Isend(&U(n, 1), (int)n, MPI_DOUBLE, down, 0, grid, &req[5]);
    MPI_Isend(sendw, (int)n, MPI_DOUBLE, left, 3, grid, &req[6]);
    MPI_Isend(sende, (int)n, MPI_DOUBLE, right, 2, grid, &req[7]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    if (left != MPI_PROC_NULL)
      for (i = 0; i < n; i++) U(i + 1, 0) = recvw[i];
    if (right != MPI_PROC_NULL)
      for (i = 0; i < n; i++) U(i + 1, n + 1) = recve[i];
    for (i = 1; i <= n; i++)
      for (j = 1; j <= n; j++) {
        double x = 0.25 * (U(i - 1, j) + U(i + 1, j) + U(i, j - 1) + U(i, j + 1));
        local += (x - U(i, j)) * (x - U(i, j));
        V(i, j) = x;
      }
    t = u;
    u = v;
    v = t;
    MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, grid);
    res = sqrt(res);
    if (res < tol) break;
  }
  if (rank == 0) printf("jacobi: %d ranks, %ld iterations, residual %.6e, time %.6f s\n", size, it, res, MPI_Wtime() - t0);
  MPI_Comm_free(&grid);
  free(u);
  free(v);
  free(sendw);
  free(sende);
  free(recvw);
  free(recve);
  MPI_Finalize();
  return 0;
}
