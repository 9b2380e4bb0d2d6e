// A 2-D Jacobi sweep over two grids swapped each step, and a final sum:
// the benchmark's workload.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n * n; i++) a[i] = b[i] = (i % 7) * 0.5;
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
    double *s = a; a = b; b = s;
  }
  double sum = 0;
  for (int i = 0; i < n * n; i++) sum += a[i];
  printf("%f\n", sum);
  free(a);
  free(b);
  return 0;
}
