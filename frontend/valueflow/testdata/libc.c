// The library functions the analysis models; the test compares the output
// with a native run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bydouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

struct rec { int key; int id; };
static int bykey(const void *a, const void *b) {
  return ((const struct rec *)a)->key - ((const struct rec *)b)->key;
}

int main(int argc, char **argv) {
  const char *arg = argc > 1 ? argv[1] : "12";
  int n = atoi(arg);
  char *end;
  long h = strtol("0x1fz", &end, 0);
  printf("parse %d %ld %s %ld %lu %.3f %.3f\n", n, h, end, strtol("-077", NULL, 0), strtoul("42abc", NULL, 10), atof("3.25e1xyz"), strtod("  -0x1.8p1", NULL));
  printf("fmt [%5d] [%-5d] [%05d] [%+d] [% d] [%x] [%#X] [%o] [%c] [%5.2s] [%%]\n", n, n, n, n, n, 255, 255, 8, 'A' + n % 26, "hello");
  printf("fmt [%f] [%e] [%g] [%g] [%g] [%10.3f] [%-10.2e] [%G] [%.0f] [%#.0f]\n", 3.14159, 31415.9, 0.0001234, 123456789.0, 100.0, -2.5, 1e-10, 1e20, 2.5, 2.5);
  printf("fmt [%f] [%f] [%g] [%5.1f] [%lld] [%zu] [%hd] [%hhu]\n", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0 * 0.0, 0.05, -1234567890123LL, sizeof(double), (short)70000, (unsigned char)300);
  srand(7);
  int r1 = rand(), r2 = rand();
  srand48(n);
  double d1 = drand48();
  printf("rand %d %d %d %.15f %ld\n", r1, r2, RAND_MAX, d1, lrand48());
  printf("math %.12f %.12f %.12f %.12f %.12f %.12f\n", sqrt(2.0 * n), sin(n), exp(-n / 10.0), log(n + 1.0), pow(1.5, n / 2.0), atan2(n, 3));
  printf("math %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", floor(-2.5), ceil(-2.5), round(-2.5), fabs(-n), fmod(n, 5), fmin(n, 3), hypot(3, 4));
  printf("mathf %.6f %.6f %.6f %.6f\n", sqrtf((float)n), cosf(0.5f), expf(n / 10.0f), powf(1.5f, n / 4.0f));
  int ex;
  double ip, fr = frexp(n * 3.7, &ex), mf = modf(n * 1.25, &ip);
  float ipf, mff = modff(n * 0.75f, &ipf);
  printf("parts %.6f %d %.6f %.6f %.6f %.6f %.6f %.6f\n", fr, ex, ldexp(fr, ex), mf, ip, scalbn(1.5, n % 7), mff, ipf);
  double *v = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) v[i] = sin(i * 1.7) * 100;
  qsort(v, n, sizeof(double), bydouble);
  for (int i = 0; i < n; i++) printf("%.2f ", v[i]);
  printf("\n");
  struct rec rs[8];
  for (int i = 0; i < 8; i++) { rs[i].key = (i * 5) % 3; rs[i].id = i; }
  qsort(rs, 8, sizeof rs[0], bykey);
  for (int i = 0; i < 8; i++) printf("%d:%d ", rs[i].key, rs[i].id);
  printf("\n");
  int *w = calloc(4, sizeof(int));
  w[1] = 5;
  w = realloc(w, 16 * sizeof(int));
  for (int i = 4; i < 16; i++) w[i] = i;
  memmove(w + 2, w, 8 * sizeof(int));
  memset(w, 0xff, sizeof(int));
  memcpy(w + 12, w + 2, 4 * sizeof(int));
  for (int i = 0; i < 16; i++) printf("%d ", w[i]);
  printf("\n");
  char buf[64];
  strcpy(buf, "value=");
  snprintf(buf + strlen(buf), 10, "%d-%s", n * 111, "abcdefgh");
  int len = sprintf(buf + 40, "%.2f", 1.0 / 3);
  printf("%s %zu %d %s %d %d\n", buf, strlen(buf), len, buf + 40, strcmp("abc", "abd") < 0, strncmp("abcx", "abcy", 3));
  puts("done");
  putchar('!');
  putchar('\n');
  free(v);
  free(w);
  return 0;
}
