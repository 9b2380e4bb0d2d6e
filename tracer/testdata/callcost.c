/* callcost.c: the cost of the tracer per MPI call. One rank sends itself
 * a message and reduces a double, four calls per iteration, and prints the
 * nanoseconds per call; run it with and without the tracer. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  long i, iters = 100000; /* 4 calls each */
  int rank;
  double x = 1, y, t0, t;
  char out[8] = {0}, in[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--iters") == 0) iters = atol(argv[i + 1]);
  t0 = MPI_Wtime();
  for (i = 0; i < iters; i++) {
    MPI_Request r[2];
    MPI_Irecv(in, 8, MPI_CHAR, rank, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, 8, MPI_CHAR, rank, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  t = MPI_Wtime() - t0;
  if (rank == 0) printf("callcost: %ld iterations, %.1f ns per call\n", iters, t / (double)iters / 4 * 1e9);
  MPI_Finalize();
  return 0;
}
