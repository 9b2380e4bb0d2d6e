// Integer and floating-point semantics, control flow and calls; the test
// compares this program's output under the analysis with a native run.
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

struct pair { double x; int n; };

static struct pair scale(struct pair p, double f) {
  struct pair q = { p.x * f, p.n * 3 };
  return q;
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

static const char *name(int k) {
  switch (k) {
  case 0: return "zero";
  case 1: return "one";
  case 7: return "seven";
  case 1000: return "thousand";
  default: return "other";
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 7;   /* 7 unless given */
  int m = -n * 13;
  unsigned u = (unsigned)m;
  int64_t big = (int64_t)n << 40;
  printf("div %d %d %d %d\n", m / 4, m % 4, m / -4, m % -4);
  printf("unsigned %u %u %u\n", u / 3u, u % 7u, u >> 3);
  printf("shift %d %d %lld %lld\n", m >> 2, m << 3, (long long)(big >> 7), (long long)((uint64_t)-big >> 60));
  printf("bits %x %x %x %d\n", n & 5, n | 0x30, n ^ 0xff, ~n);
  signed char c = (signed char)(n * 40);
  unsigned char uc = (unsigned char)(n * 40);
  short s = (short)(n * 5000);
  printf("narrow %d %d %d %u\n", c, uc, s, (unsigned short)s);
  printf("wrap %u %d\n", 4000000000u + (unsigned)n * 100000000u, (int)(2147483647u + (unsigned)n));
  double d = n / 3.0, e = -d;
  float f = (float)n / 7.0f;
  printf("float %.6f %.6f %.9g %d %d %u\n", d, e, f, (int)e, (int)(d * 100), (unsigned)(d * 1e9));
  printf("float ops %.17g %.17g %.9g\n", d * d - 1.0 / d, (double)f * f, f * f + 1.0f);
  double z = n - 7.0, nan = z / z;   /* nan when n is 7 */
  printf("compare %d %d %d %d\n", nan == nan, nan != nan, d < e, d >= e);
  printf("conv %lld %llu %.1f %.1f\n", (long long)-3.99, (unsigned long long)3.99e18, (double)(uint64_t)-1, (double)INT64_MIN);
  struct pair p = { d, n };
  struct pair q = scale(p, 2.5);
  printf("struct %.3f %d\n", q.x, q.n);
  int (*ops[3])(int, int) = { add, sub, mul };
  int acc = 1;
  for (int i = 0; i < 9; i++) acc = ops[i % 3](acc, i + n);
  printf("fnptr %d fib %d\n", acc, fib(n + 10));
  for (int k = 0; k < 9; k += 3) printf("%s ", name(k == 3 ? 1000 : k + (n == 7 ? 1 : 0)));
  printf("%s\n", name(n));
  int arr[10];
  for (int i = 0; i < 10; i++) arr[i] = i * i - n;
  long sum = 0;
  for (int i = 9; i >= 0; i--) sum = sum * 3 + arr[i];
  printf("array %ld\n", sum);
  return n == 7 ? 0 : 3;
}
