/* crash.c: a ring exchange in which one rank dies of SIGSEGV partway;
 * the tracer must keep what every rank traced. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  int rank, size, i, iters = 20, crash_at = 10, buf[16] = {0}, in[16];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--crash-at") == 0) crash_at = atoi(argv[i + 1]);
  for (i = 0; i < iters; i++) {
    MPI_Request r[2];
    if (rank == 1 && i == crash_at) raise(SIGSEGV);
    MPI_Irecv(in, 16, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf, 16, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
