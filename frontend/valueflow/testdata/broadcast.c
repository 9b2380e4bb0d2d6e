// A coefficient computed from one element and read by every element.
#include <stdio.h>
#include <stdlib.h>

double coef;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  double *x = malloc(n * sizeof *x);
  for (int i = 0; i < n; i++) x[i] = i + 1;
  coef = x[n / 2] * 3;
  for (int i = 0; i < n; i++) x[i] *= coef;
  printf("%.1f\n", x[1]);
  return 0;
}
