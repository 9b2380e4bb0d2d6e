/* records.c: one call of each kind whose record has a form of its own
 * (relative peers of both signs, any source and tag, MPI_PROC_NULL, the
 * ages a wait completes, count lists, a communicator this rank is not in),
 * so that TestRecordText can compare the tracer's records with text checked
 * by hand. Run it on 2 ranks. */
#include <mpi.h>

int main(int argc, char **argv)
{
  int rank, size, peer, counts[2], displs[2], flag;
  double s[5] = {0}, r[5];
  MPI_Request q[4];
  MPI_Comm half;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = 1 - rank;
  counts[0] = 1 + rank, counts[1] = 2 + rank;
  displs[0] = 0, displs[1] = counts[0];

  /* peer=+1 on rank 0, peer=-1 on rank 1 */
  MPI_Sendrecv(s, 2, MPI_DOUBLE, peer, 7, r, 3, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  /* any source and tag; the wait completes requests of ages 2 and 1 */
  MPI_Irecv(r, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(s, 1, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);

  /* MPI_PROC_NULL, and a wait that completes a call to it and nothing else */
  MPI_Send(s, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Isend(s, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q[2]);
  MPI_Wait(&q[2], MPI_STATUS_IGNORE);

  /* a persistent request, which the tracer does not see made */
  MPI_Send_init(s, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q[3]);
  MPI_Start(&q[3]);
  MPI_Wait(&q[3], MPI_STATUS_IGNORE);
  MPI_Request_free(&q[3]);

  /* a probe that finds the message it then receives */
  MPI_Send(s, 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD);
  MPI_Probe(peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  MPI_Recv(r, 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  /* count lists (each rank sends its peer what the peer expects) */
  MPI_Alltoallv(s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);

  /* rank 1 is in no communicator of this split */
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &half);
  if (half != MPI_COMM_NULL) {
    MPI_Bcast(s, 4, MPI_DOUBLE, 0, half);
    MPI_Comm_free(&half);
  }
  MPI_Reduce(s, r, 1, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
