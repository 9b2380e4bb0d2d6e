// A norm every element is scaled by, each step: an all-reduce per step;
// the last norm is only printed: a reduction to task 0.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512, steps = argc > 2 ? atoi(argv[2]) : 3;
  double *x = malloc(n * sizeof *x);
  srand(3);
  for (int i = 0; i < n; i++) x[i] = rand() / (double)RAND_MAX;
  for (int t = 0; t < steps; t++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    for (int i = 0; i < n; i++) x[i] /= 1 + s;
  }
  double last = 0;
  for (int i = 0; i < n; i++) last += x[i];
  printf("%g\n", last);
  return 0;
}
