// Every element on its own: no task needs another's values.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int i = 0; i < n; i++) x[i] = i * 0.25;
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < n; i++) y[i] = 2 * x[i] + y[i] * 0.5;
  printf("%.2f\n", y[0]);
  return 0;
}
