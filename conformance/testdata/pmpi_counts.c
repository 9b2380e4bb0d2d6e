/*
 * pmpi_counts.c: a PMPI shim that counts each rank's point-to-point
 * messages and bytes as the program hands them to MPI, and writes them at
 * MPI_Finalize to pmpi-counts-<rank>.txt in the working directory as
 * "msgs_sent msgs_received bytes_sent bytes_received".
 *
 * The conformance harness links it into both the real coNCePTuaL's c_mpi
 * programs, whose logs carry no totals, and Parley's compiled programs, so
 * both are counted the same way without changing a line of either. A
 * receive counts the size it posts, as coNCePTuaL's counters do; sends to
 * or receives from MPI_PROC_NULL are no messages. Collectives are not
 * counted, as in coNCePTuaL.
 */
#include <mpi.h>
#include <stdio.h>

static long long msgs_sent, msgs_received, bytes_sent, bytes_received;

static long long bytes_of(int count, MPI_Datatype type)
{
  int size = 0;
  PMPI_Type_size(type, &size);
  return (long long)count * size;
}

static void sent(int count, MPI_Datatype type, int dest)
{
  if (dest == MPI_PROC_NULL)
    return;
  msgs_sent++;
  bytes_sent += bytes_of(count, type);
}

static void received(int count, MPI_Datatype type, int source)
{
  if (source == MPI_PROC_NULL)
    return;
  msgs_received++;
  bytes_received += bytes_of(count, type);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  sent(count, type, dest);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  sent(count, type, dest);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  sent(count, type, dest);
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  sent(count, type, dest);
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  sent(count, type, dest);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  sent(count, type, dest);
  return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  sent(count, type, dest);
  return PMPI_Ibsend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  sent(count, type, dest);
  return PMPI_Irsend(buf, count, type, dest, tag, comm, req);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  received(count, type, source);
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
  received(count, type, source);
  return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
  sent(scount, stype, dest);
  received(rcount, rtype, source);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
}

int MPI_Finalize(void)
{
  int rank = 0;
  char name[64];
  FILE *f;

  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(name, sizeof name, "pmpi-counts-%d.txt", rank);
  f = fopen(name, "w");
  if (f != NULL) {
    fprintf(f, "%lld %lld %lld %lld\n", msgs_sent, msgs_received, bytes_sent, bytes_received);
    fclose(f);
  }
  return PMPI_Finalize();
}
