// A 1-D Jacobi sweep over two grids swapped each step: every step, each
// task needs one value from each neighbour.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++) a[i] = b[i] = i % 5;
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++) b[i] = 0.5 * (a[i - 1] + a[i + 1]);
    double *s = a; a = b; b = s;
  }
  printf("%.3f\n", a[n / 2]);
  free(a);
  free(b);
  return 0;
}
