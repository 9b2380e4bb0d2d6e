/* particles.c: particles drifting through a periodic 1-D domain cut into
 * one slab per rank. Each step pushes every particle through a force
 * field, then migrates the particles that left the slab: MPI_Alltoall of
 * the counts, MPI_Alltoallv of the particles (position, velocity, charge,
 * id as four doubles). An MPI_Allreduce checks that no particle is lost
 * and the kinetic energy is summed per half of the ranks on a
 * communicator made with MPI_Comm_split.
 *
 *   mpirun -np 4 ./particles [--iters 200] [--n 6000]
 *
 * --n is the particles per rank (a multiple of 6). Particles sit on a
 * lattice and move a whole number of lattice steps per time step, so the
 * number crossing each slab boundary is the same every step. */
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

typedef struct {
  double x, v, q, id;
} particle;

int main(int argc, char **argv)
{
  int rank, size, d, *scount, *rcount, *sdispl, *rdispl, *fill;
  long iters, n, i, it, cells, have;
  long long total, expect;
  double t0, energy, half_energy;
  particle *mine, *out, *in;
  MPI_Comm half;
  MPI_Datatype ptype;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Type_contiguous(4, MPI_DOUBLE, &ptype);
  MPI_Type_commit(&ptype);
  iters = arg(argc, argv, "--iters", 200);
  n = arg(argc, argv, "--n", 6000);
  if (n <= 0 || n % 6 != 0) {
    if (rank == 0) fprintf(stderr, "particles: --n must be a positive multiple of 6\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  cells = n * size; /* lattice sites around the ring; each rank owns n */
  scount = calloc((size_t)size, sizeof *scount);
  rcount = calloc((size_t)size, sizeof *rcount);
  sdispl = calloc((size_t)size, sizeof *sdispl);
  rdispl = calloc((size_t)size, sizeof *rdispl);
  fill = calloc((size_t)size, sizeof *fill);
  mine = malloc((size_t)n * sizeof *mine);
  out = malloc((size_t)n * sizeof *out);
  in = malloc((size_t)n * sizeof *in);
  if (!scount || !rcount || !sdispl || !rdispl || !fill || !mine || !out || !in) MPI_Abort(MPI_COMM_WORLD, 1);
  /* Six velocity classes, by lattice index mod 6: -12, -6, 0, 6, 12, 18
   * sites per step; each class is a lattice of spacing 6, so a shift by a
   * multiple of 6 keeps n / 6 of its particles in every slab. */
  for (i = 0; i < n; i++) {
    mine[i].x = (double)(rank * n + i);
    mine[i].v = (double)(6 * (i % 6) - 12);
    mine[i].q = 1.0 + (double)(i % 3);
    mine[i].id = (double)(rank * n + i);
  }
  have = n;

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (it = 0; it < iters; it++) {
    long k;
    /* push: a smooth field that changes nothing (its force is whole
     * lattice steps only at rest) but costs what a field evaluation does */
    energy = 0;
    for (i = 0; i < have; i++) {
      particle *p = &mine[i];
      double phase = 2 * M_PI * p->x / (double)cells, f = 0;
      for (k = 1; k <= 4; k++) f += sin(k * phase) / (double)k;
      energy += 0.5 * p->q * p->v * p->v + 1e-12 * f;
      p->x = fmod(p->x + p->v + (double)cells, (double)cells);
    }
    memset(scount, 0, (size_t)size * sizeof *scount);
    for (i = 0; i < have; i++) scount[(long)mine[i].x / n]++;
    sdispl[0] = 0;
    for (d = 1; d < size; d++) sdispl[d] = sdispl[d - 1] + scount[d - 1];
    for (d = 0; d < size; d++) fill[d] = sdispl[d];
    for (i = 0; i < have; i++) out[fill[(long)mine[i].x / n]++] = mine[i];
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    rdispl[0] = 0;
    for (d = 1; d < size; d++) rdispl[d] = rdispl[d - 1] + rcount[d - 1];
    have = rdispl[size - 1] + rcount[size - 1];
    if (have > n) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Alltoallv(out, scount, sdispl, ptype, in, rcount, rdispl, ptype, MPI_COMM_WORLD);
    memcpy(mine, in, (size_t)have * sizeof *mine);
    total = have;
    MPI_Allreduce(&total, &expect, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (expect != (long long)n * size) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Allreduce(&energy, &half_energy, 1, MPI_DOUBLE, MPI_SUM, half);
  }
  if (rank == 0)
    printf("particles: %d ranks, %ld iterations, energy of the even ranks %.6e, time %.6f s\n", size, it, half_energy,
           MPI_Wtime() - t0);
  MPI_Type_free(&ptype);
  MPI_Comm_free(&half);
  free(scount);
  free(rcount);
  free(sdispl);
  free(rdispl);
  free(fill);
  free(mine);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
