/* parley_calib: the measurements behind `parley calibrate`.
 *
 *   mpirun -np N parley_calib MODE [SIZE ...]
 *
 * MODE is one of
 *   pingpong  ranks 0 and 1 bounce each SIZE; one line per size:
 *             "pingpong SIZE REPS MEDIAN_HALF_RTT_US"
 *   overhead  rank 0 times MPI_Send of SIZE bytes into an idle receiver, and
 *             rank 1 times MPI_Recv of a message that arrived long before:
 *             "send SIZE REPS MEDIAN_US" and "recv SIZE REPS MEDIAN_US"
 *   train     rank 0 sends K back-to-back MPI_Isend of SIZE bytes, rank 1
 *             receives them and answers with one empty message, for K in
 *             1, 2, 4, ..., 32: "train SIZE K REPS MEDIAN_US"
 *   compute   every rank at once runs the C backend's own kernel (pr_work
 *             in parley_rt.h) on FLOPS and BYTES given in pairs:
 *             "work FLOPS BYTES REPS MEDIAN_US" (the slowest rank's median)
 *
 * Ranks beyond 1 wait in a barrier during the network modes. Medians, not
 * means, because the benchmarks `parley validate` compares with log medians
 * and because a shared machine adds rare long delays. Lines are flushed as
 * they are made so that `parley calibrate` can show its progress.
 *
 * The file includes parley_rt.h so that the compute mode times exactly the
 * code a compiled COMPUTES ... FLOPS AND ... BYTES OF MEMORY TRAFFIC runs. */
#include "parley_rt.h"
#include <stdlib.h>
#include <string.h>

/* How long, in microseconds, the receiver of the overhead mode waits before
 * MPI_Recv (calibrate.recvDelayUs), plus a nanosecond per byte. */
#define RECV_DELAY_US 20

static int rank, size;
/* Messages are sent from sendbuf and received into buf, the two buffers a
 * compiled benchmark has, made by the same pr_buffer (parley_rt.h), which
 * writes them once: the calibration must time what the benchmarks do. A
 * ping-pong that sends the buffer it has just received into takes 3 times
 * as long at 64 KiB on Open MPI's shared memory; one that sends from
 * calloc's pages never written reads the kernel's one zero page (4 MiB
 * streams: 6 to 18 GB/s from it, 10 GB/s from written pages). */
static char *buf, *sendbuf;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* reps is how many timings a point takes: many for small messages, fewer
 * for large ones, so that every point takes a similar, short time. */
static int reps(long bytes)
{
  long r = (64L << 20) / (bytes > 1 ? bytes : 1);
  return r < 20 ? 20 : r > 200 ? 200 : (int)r;
}

static void spin(double usecs)
{
  double end = MPI_Wtime() + usecs / 1e6;
  while (MPI_Wtime() < end) {}
}

static void pingpong(long n)
{
  int r = reps(n), warm = r / 10 + 2, i;
  double *t = malloc(sizeof(double) * (size_t)r);
  for (i = -warm; i < r; i++) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(sendbuf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sendbuf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    if (i >= 0) t[i] = (MPI_Wtime() - t0) * 1e6 / 2;
  }
  if (rank == 0) printf("pingpong %ld %d %.6f\n", n, r, median(t, r));
  free(t);
}

/* overhead times one side's call while the other side cannot interfere:
 * the receiver waits long enough for the message to be there before it
 * calls MPI_Recv, and the sender waits for an acknowledgement before its
 * next send. */
static void overhead(long n)
{
  int r = reps(n), warm = r / 10 + 2, i;
  double *t = malloc(sizeof(double) * (size_t)r);
  double wait = RECV_DELAY_US + (double)n / 1e3; /* well beyond L + o + n G */
  for (i = -warm; i < r; i++) {
    double t0, t1;
    if (rank == 0) {
      t0 = MPI_Wtime();
      MPI_Send(sendbuf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      t1 = MPI_Wtime();
      MPI_Recv(buf, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      spin(wait);
      t0 = MPI_Wtime();
      MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t1 = MPI_Wtime();
      MPI_Send(buf, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    if (i >= 0) t[i] = (t1 - t0) * 1e6;
  }
  /* Rank 1 prints through rank 0 so that lines keep their order. */
  if (rank == 1) {
    double m = median(t, r);
    MPI_Send(&m, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
  } else {
    double m;
    printf("send %ld %d %.6f\n", n, r, median(t, r));
    MPI_Recv(&m, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("recv %ld %d %.6f\n", n, r, m);
  }
  free(t);
}

#define MAX_TRAIN 32

/* Every message of a train goes from sendbuf into buf, as a benchmark's
 * burst of ASYNCHRONOUSLY SENDS does (one buffer on each side, not one per
 * message): with a buffer per message a 32-message train of 64 KiB moves
 * 2 MiB through the caches and took 8.2-8.6 us a message against 4.0-5.6
 * from one buffer, which is what the benchmarks see (4.5-4.7). */
static void train(long n)
{
  MPI_Request req[MAX_TRAIN];
  int k, i, j;
  for (k = 1; k <= MAX_TRAIN; k *= 2) {
    int r = reps(n * k), warm = r / 10 + 2;
    double *t = malloc(sizeof(double) * (size_t)r);
    for (i = -warm; i < r; i++) {
      double t0 = MPI_Wtime();
      if (rank == 0) {
        for (j = 0; j < k; j++) MPI_Isend(sendbuf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req[j]);
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        MPI_Recv(buf, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (j = 0; j < k; j++) MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req[j]);
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        MPI_Send(buf, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
      if (i >= 0) t[i] = (MPI_Wtime() - t0) * 1e6;
    }
    if (rank == 0) printf("train %ld %d %d %.6f\n", n, k, r, median(t, r));
    fflush(stdout);
    free(t);
  }
}

static void compute(long flops, long bytes)
{
  int r = 30, i;
  double t[30], m, slowest;
  for (i = -3; i < r; i++) {
    double t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    pr_work(flops, bytes);
    if (i >= 0) t[i] = (MPI_Wtime() - t0) * 1e6;
  }
  m = median(t, r);
  MPI_Reduce(&m, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("work %ld %ld %d %.6f\n", flops, bytes, r, slowest);
}

int main(int argc, char **argv)
{
  static const pr_program prog = {"parley_calib", "parley_calib", "", NULL, 0};
  const char *mode = argc > 1 ? argv[1] : "";
  long biggest = 0;
  int i, network;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  pr.prog = &prog;
  network = strcmp(mode, "compute") != 0;
  if (strcmp(mode, "pingpong") && strcmp(mode, "overhead") && strcmp(mode, "train") && strcmp(mode, "compute")) {
    if (rank == 0) fprintf(stderr, "parley_calib: unknown mode \"%s\" (pingpong, overhead, train or compute)\n", mode);
    MPI_Finalize();
    return 2;
  }
  if (network && size < 2) {
    if (rank == 0) fprintf(stderr, "parley_calib: %s needs at least 2 ranks\n", mode);
    MPI_Finalize();
    return 2;
  }
  for (i = 2; network && i < argc; i++) {
    long n = atol(argv[i]);
    if (n > biggest) biggest = n;
  }
  buf = pr_buffer(&pr.recvbuf, &pr.recvcap, (int64_t)biggest + 1);
  sendbuf = pr_buffer(&pr.sendbuf, &pr.sendcap, (int64_t)biggest + 1);
  for (i = 2; i < argc; i++) {
    long n = atol(argv[i]);
    if (!network) {
      if (i + 1 >= argc) break;
      compute(n, atol(argv[++i]));
    } else if (rank < 2) {
      if (!strcmp(mode, "pingpong")) pingpong(n);
      else if (!strcmp(mode, "overhead")) overhead(n);
      else train(n);
    }
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
