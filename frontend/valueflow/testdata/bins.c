// Counts accumulated in memory, bin by bin, then read by every element:
// each task adds its elements into its own copy of the bins, and only the
// finished bins are exchanged, an all-reduce per step; the partial counts
// in between cost nothing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512, bins = 8, steps = argc > 2 ? atoi(argv[2]) : 3;
  double *x = malloc(n * sizeof *x), *count = malloc(bins * sizeof *count);
  for (int i = 0; i < n; i++) x[i] = (i * 37 % 101) / 101.0;
  for (int t = 0; t < steps; t++) {
    memset(count, 0, bins * sizeof *count);
    for (int i = 0; i < n; i++) count[(int)(x[i] * bins)] += x[i];
    // A rotation keeps every bin in use; the count moves each value a little.
    for (int i = 0; i < n; i++) x[i] = fmod(x[i] + 0.37 + count[(int)(x[i] * bins)] * 1e-9, 1.0);
  }
  printf("%.6f\n", x[0]);
  return 0;
}
