/* parley_tracer.c: Parley's PMPI tracer.
 *
 * Preloaded into an MPI program (LD_PRELOAD), it records per rank every
 * point-to-point call, wait, test and probe, every collective and the
 * communicator calls, with the time computed between calls and the time
 * spent in each, and folds the calls into loops as they happen
 * (ScalaTrace's intra-node compression), so that a trace does not grow with
 * a loop's iteration count. Each rank writes DIR/rank-N.ptrace at
 * MPI_Finalize, or what it has so far when the program crashes, exits
 * without MPI_Finalize, calls MPI_Abort or is killed (SIGTERM, SIGINT).
 * DIR is $PARLEY_TRACE_DIR, or parley-trace; with $PARLEY_TRACE_CPU set
 * it also records the CPU time between calls. The format and the folding
 * are described in docs/tracer.md; frontend/trace/ptrace reads it.
 *
 * Build: mpicc -O2 -fPIC -shared -o libparleytracer.so parley_tracer.c
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* WINDOW is the longest loop body, in items, that folding looks for. */
#define WINDOW 64

static double now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* cpu_us is the CPU time of the calling thread: the computation between
 * two calls without the time the thread waited for a processor. Reading it
 * is a system call (microseconds on a virtual machine), so it is read only
 * when PARLEY_TRACE_CPU is set. */
static int use_cpu;

static double cpu_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void *xalloc(size_t n)
{
  void *p = calloc(1, n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "parley tracer: out of memory\n");
    abort();
  }
  return p;
}

static void *xgrow(void *p, size_t n)
{
  p = realloc(p, n);
  if (p == NULL) {
    fprintf(stderr, "parley tracer: out of memory\n");
    abort();
  }
  return p;
}

/* ------------------------------------------------------------------------
 * Interning: byte strings to small integers, so that records and loop
 * bodies compare as integers. */

typedef struct {
  char *key;
  size_t len;
  uint64_t hash;
  int id;
} ientry;

typedef struct {
  ientry *tab; /* open addressing; key == NULL is empty */
  size_t cap, n;
  char **keys; /* keys[id], NUL-terminated */
} itable;

/* hash is FNV-1a over 8-byte words rather than bytes (every call hashes
 * its record: a byte at a time was a fifth of the tracer's cost), with a
 * final fold so that the low bits, which pick the slot, depend on all. */
static uint64_t hash(const void *p, size_t n)
{
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ull, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h ^ (h >> 29) ^ (h >> 43);
}

static int intern(itable *t, const void *key, size_t len)
{
  uint64_t h = hash(key, len);
  size_t i;
  if (2 * (t->n + 1) > t->cap) {
    size_t ncap = t->cap ? 2 * t->cap : 256, j;
    ientry *nt = xalloc(ncap * sizeof *nt);
    for (j = 0; j < t->cap; j++) {
      ientry e = t->tab[j];
      if (e.key == NULL) continue;
      for (i = e.hash & (ncap - 1); nt[i].key != NULL; i = (i + 1) & (ncap - 1)) {
      }
      nt[i] = e;
    }
    free(t->tab);
    t->tab = nt;
    t->cap = ncap;
    t->keys = xgrow(t->keys, ncap / 2 * sizeof *t->keys);
  }
  for (i = h & (t->cap - 1); t->tab[i].key != NULL; i = (i + 1) & (t->cap - 1)) {
    ientry *e = &t->tab[i];
    if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) return e->id;
  }
  t->tab[i].key = xalloc(len + 1);
  memcpy(t->tab[i].key, key, len);
  t->tab[i].len = len;
  t->tab[i].hash = h;
  t->tab[i].id = (int)t->n;
  t->keys[t->n] = t->tab[i].key;
  return (int)t->n++;
}

/* ------------------------------------------------------------------------
 * The folded trace: a stack of nodes, each a record (one call site with
 * the same parameters, possibly many executions) or a loop. */

typedef struct node node;
struct node {
  int loop;        /* 0: a record, 1: a loop */
  int sym;         /* a record's id in recs, a loop body's id in bodies */
  long long count; /* a loop's iteration count */
  /* a record's executions, and over them the computation before the call
   * (sum, min, max), the time in it and the CPU time of the computation,
   * in microseconds */
  long long n;
  double comp, cmin, cmax, mpi, cpu;
  node **kids; /* a loop's body */
  int nkids;
  node *next_free; /* in free_nodes */
};

static itable recs, bodies;
static node **stk;
static int nstk, capstk;

static int same(const node *a, const node *b)
{
  return a->loop == b->loop && a->sym == b->sym && (!a->loop || a->count == b->count);
}

/* Freed nodes are kept for reuse: every call makes a node, and most are
 * folded into a loop's body and freed at once. */
static node *free_nodes;

static node *new_node(void)
{
  node *x = free_nodes;
  if (x == NULL) return xalloc(sizeof *x);
  free_nodes = x->next_free;
  memset(x, 0, sizeof *x);
  return x;
}

static void free_node(node *x)
{
  int i;
  for (i = 0; i < x->nkids; i++) free_node(x->kids[i]);
  free(x->kids);
  x->next_free = free_nodes;
  free_nodes = x;
}

/* merge adds src's statistics to dst, which has the same shape, and frees
 * src. */
static void merge(node *dst, node *src)
{
  int i;
  if (dst->loop) {
    for (i = 0; i < dst->nkids; i++) merge(dst->kids[i], src->kids[i]);
    src->nkids = 0;
  } else {
    dst->n += src->n;
    dst->comp += src->comp;
    dst->mpi += src->mpi;
    dst->cpu += src->cpu;
    if (src->cmin < dst->cmin) dst->cmin = src->cmin;
    if (src->cmax > dst->cmax) dst->cmax = src->cmax;
  }
  free_node(src);
}

/* body_sym interns a loop body by the shapes of its items. */
static int body_sym(node **kids, int n)
{
  long long *key = xalloc((size_t)n * 3 * sizeof *key);
  int i, id;
  for (i = 0; i < n; i++) {
    key[3 * i] = kids[i]->loop;
    key[3 * i + 1] = kids[i]->sym;
    key[3 * i + 2] = kids[i]->loop ? kids[i]->count : 0;
  }
  id = intern(&bodies, key, (size_t)n * 3 * sizeof *key);
  free(key);
  return id;
}

static int run_equal(int a, int b, int k)
{
  int i;
  for (i = 0; i < k; i++)
    if (!same(stk[a + i], stk[b + i])) return 0;
  return 1;
}

/* fold folds the top of the stack for as long as a rule applies:
 *  1. Loop(n, B) followed by the items of B becomes Loop(n+1, B);
 *  2. Loop(n, B) followed by Loop(m, B) becomes Loop(n+m, B);
 *  3. X X, X of k <= WINDOW items, becomes Loop(2, X), the smallest k first.
 * Statistics of the folded copies are added to the loop's body. */
static void fold(void)
{
  for (;;) {
    int L = nstk, j, k, done = 0;
    if (L >= 2) {
      node *a = stk[L - 2], *b = stk[L - 1];
      if (a->loop && b->loop && a->sym == b->sym) {
        a->count += b->count;
        merge(a, b);
        nstk--;
        continue;
      }
    }
    for (j = L - 2; j >= 0 && L - 1 - j <= WINDOW; j--) {
      node *lp = stk[j];
      int i, ok = 1;
      if (!lp->loop || lp->nkids != L - 1 - j) continue;
      for (i = 0; i < lp->nkids && ok; i++) ok = same(lp->kids[i], stk[j + 1 + i]);
      if (!ok) continue;
      for (i = 0; i < lp->nkids; i++) merge(lp->kids[i], stk[j + 1 + i]);
      lp->count++;
      nstk = j + 1;
      done = 1;
      break;
    }
    if (done) continue;
    for (k = 1; 2 * k <= L && k <= WINDOW; k++) {
      node *lp;
      int i;
      if (!same(stk[L - 1 - k], stk[L - 1]) || !run_equal(L - 2 * k, L - k, k)) continue;
      lp = new_node();
      lp->loop = 1;
      lp->count = 2;
      lp->nkids = k;
      lp->kids = xalloc((size_t)k * sizeof *lp->kids);
      for (i = 0; i < k; i++) {
        lp->kids[i] = stk[L - 2 * k + i];
        merge(lp->kids[i], stk[L - k + i]);
      }
      lp->sym = body_sym(lp->kids, k);
      stk[L - 2 * k] = lp;
      nstk = L - 2 * k + 1;
      done = 1;
      break;
    }
    if (!done) return;
  }
}

static void push(node *x)
{
  if (nstk == capstk) {
    capstk = capstk ? 2 * capstk : 1024;
    stk = xgrow(stk, (size_t)capstk * sizeof *stk);
  }
  stk[nstk++] = x;
  fold();
}

/* ------------------------------------------------------------------------
 * Tracer state */

static struct {
  volatile sig_atomic_t on; /* between MPI_Init and MPI_Finalize */
  volatile sig_atomic_t written;
  volatile sig_atomic_t busy; /* a record is being folded in */
  int depth;                  /* inside a wrapper: nested MPI calls are not recorded */
  int rank, size;
  double t_init, t_last, cpu_last, cpu_enter;
  long long calls;
  char dir[4000];
} S;

static int active(void) { return S.on && S.depth == 0; }

/* enter notes the CPU time at a call's entry and returns the wall time. */
static double enter(void)
{
  if (use_cpu) S.cpu_enter = cpu_us();
  return now_us();
}

/* Communicators: handles to ids (0 is MPI_COMM_WORLD) and each id's members
 * as world ranks. Handles are forgotten when freed; ids are not reused. */
typedef struct {
  MPI_Comm h;
  int id;
} commref;
static commref *crefs;
static int ncrefs, capcrefs;
static int **cmembers, *csize, ncomms;

static int new_comm(MPI_Comm h)
{
  int n, i, *in;
  MPI_Group g, wg;
  if (ncrefs == capcrefs) {
    capcrefs = capcrefs ? 2 * capcrefs : 16;
    crefs = xgrow(crefs, (size_t)capcrefs * sizeof *crefs);
  }
  cmembers = xgrow(cmembers, (size_t)(ncomms + 1) * sizeof *cmembers);
  csize = xgrow(csize, (size_t)(ncomms + 1) * sizeof *csize);
  PMPI_Comm_size(h, &n);
  in = xalloc((size_t)n * sizeof *in);
  cmembers[ncomms] = xalloc((size_t)n * sizeof **cmembers);
  for (i = 0; i < n; i++) in[i] = i;
  PMPI_Comm_group(h, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, n, in, wg, cmembers[ncomms]);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  free(in);
  csize[ncomms] = n;
  crefs[ncrefs].h = h;
  crefs[ncrefs].id = ncomms;
  ncrefs++;
  return ncomms++;
}

static int comm_id(MPI_Comm h)
{
  int i;
  if (h == MPI_COMM_WORLD) return 0;
  for (i = 0; i < ncrefs; i++)
    if (crefs[i].h == h) return crefs[i].id;
  return new_comm(h);
}

static void forget_comm(MPI_Comm h)
{
  int i;
  for (i = 0; i < ncrefs; i++)
    if (crefs[i].h == h) {
      crefs[i] = crefs[--ncrefs];
      return;
    }
}

/* world is the world rank of rank r of communicator id c, or -1. */
static int world(int c, int r)
{
  if (r < 0 || r >= csize[c]) return -1;
  return cmembers[c][r];
}

/* Requests: each nonblocking call's handle maps to its sequence number
 * among the rank's nonblocking calls, so that a wait names what it
 * completes by age (1: the most recent nonblocking call). The table is a
 * multimap: MPI may hand out one completed request object to several calls
 * (Open MPI does for calls to MPI_PROC_NULL and for sends it completed at
 * once); each call has its own entry, and a wait that lists the handle k
 * times takes k of them. */
typedef struct {
  MPI_Request h;
  long long seq; /* -1: a call to MPI_PROC_NULL */
  int used;
} reqent;
static reqent *reqs;
static size_t capreqs, nreqs;
static long long nbcalls;

static size_t req_slot(MPI_Request h)
{
  uint64_t x = (uint64_t)(uintptr_t)h;
  return (size_t)((x * 0x9e3779b97f4a7c15ull) >> 20) & (capreqs - 1);
}

static void req_put(reqent e)
{
  size_t i;
  for (i = req_slot(e.h); reqs[i].used; i = (i + 1) & (capreqs - 1)) {
  }
  reqs[i] = e;
  nreqs++;
}

/* req_add remembers the request of a nonblocking call; a call to
 * MPI_PROC_NULL (null) moves no data, is not counted among the nonblocking
 * calls and completes as "null". */
static void req_add(MPI_Request h, int null)
{
  reqent e;
  e.h = h;
  e.seq = null ? -1 : nbcalls++;
  e.used = 1;
  if (h == MPI_REQUEST_NULL) return;
  if (2 * (nreqs + 1) > capreqs) {
    reqent *old = reqs;
    size_t oldcap = capreqs, j;
    capreqs = capreqs ? 2 * capreqs : 1024;
    reqs = xalloc(capreqs * sizeof *reqs);
    nreqs = 0;
    for (j = 0; j < oldcap; j++)
      if (old[j].used) req_put(old[j]);
    free(old);
  }
  req_put(e);
}

/* req_take returns the age of request h and forgets it, -1 for a call to
 * MPI_PROC_NULL, or 0 when the tracer did not see it made (a persistent or
 * nonblocking collective request). */
static long long req_take(MPI_Request h)
{
  size_t i, j;
  long long seq;
  if (capreqs == 0 || h == MPI_REQUEST_NULL) return 0;
  for (i = req_slot(h); reqs[i].used; i = (i + 1) & (capreqs - 1))
    if (reqs[i].h == h) break;
  if (!reqs[i].used) return 0;
  seq = reqs[i].seq;
  /* delete, and put back the rest of the probe run */
  reqs[i].used = 0;
  nreqs--;
  for (j = (i + 1) & (capreqs - 1); reqs[j].used; j = (j + 1) & (capreqs - 1)) {
    reqent e = reqs[j];
    reqs[j].used = 0;
    nreqs--;
    req_put(e);
  }
  return seq < 0 ? -1 : nbcalls - seq;
}

/* ------------------------------------------------------------------------
 * Recording */

/* A record's text, as the trace shows it, is its identity. */
static char rbuf[1 << 16];
static int rlen;

/* The record is built by appending, not by vsnprintf: formatting was half
 * of what the tracer added to a call (BenchmarkCallCost). */
static void rstr(const char *s)
{
  while (*s && rlen < (int)sizeof rbuf - 1) rbuf[rlen++] = *s++;
}

static void rnum(long long v)
{
  char d[24];
  int n = 0;
  unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
  if (v < 0) rstr("-");
  do {
    d[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  while (n > 0 && rlen < (int)sizeof rbuf - 1) rbuf[rlen++] = d[--n];
}

/* rkey appends " key=", rkv " key=v". */
static void rkey(const char *key)
{
  rstr(" ");
  rstr(key);
  rstr("=");
}

static void rkv(const char *key, long long v)
{
  rkey(key);
  rnum(v);
}

static void rstart(const char *op)
{
  rlen = 0;
  rstr(op);
}

/* rpeer writes a point-to-point peer relative to the rank: a peer that is
 * the same offset away on every rank then reads the same everywhere. */
static void rpeer(const char *key, MPI_Comm comm, int peer)
{
  int w;
  if (peer == MPI_PROC_NULL) {
    rkey(key);
    rstr("null");
    return;
  }
  if (peer == MPI_ANY_SOURCE) {
    rkey(key);
    rstr("any");
    return;
  }
  w = world(comm_id(comm), peer);
  if (w < 0) {
    rkey(key);
    rstr("invalid");
    return;
  }
  rkey(key);
  if (w >= S.rank) rstr("+"); /* as printf's %+d: +0 too */
  rnum(w - S.rank);
}

static void rtag(const char *key, int tag)
{
  rkey(key);
  if (tag == MPI_ANY_TAG)
    rstr("any");
  else
    rnum(tag);
}

static int tsize(MPI_Datatype t)
{
  int s = 0;
  if (t == MPI_DATATYPE_NULL) return 0;
  PMPI_Type_size(t, &s);
  return s;
}

static void rdata(long long count, MPI_Datatype t)
{
  rkv("count", count);
  rkv("size", tsize(t));
}

static void rcomm(MPI_Comm comm) { rkv("comm", comm_id(comm)); }

static void rroot(MPI_Comm comm, int root) { rkv("root", world(comm_id(comm), root)); }

static void rcounts(const int *counts, int n)
{
  int i;
  rkey("counts");
  for (i = 0; i < n; i++) {
    if (i) rstr(",");
    rnum(counts[i]);
  }
}

/* rend folds the record in rbuf into the trace: entered at t0, the call
 * returned now. */
static void rend(double t0)
{
  double t1 = now_us();
  node *x = new_node();
  S.busy = 1;
  x->sym = intern(&recs, rbuf, (size_t)rlen);
  x->n = 1;
  x->comp = x->cmin = x->cmax = t0 > S.t_last ? t0 - S.t_last : 0;
  x->mpi = t1 - t0;
  x->cpu = S.cpu_enter > S.cpu_last ? S.cpu_enter - S.cpu_last : 0;
  push(x);
  S.calls++;
  S.busy = 0;
  S.t_last = t1;
  if (use_cpu) S.cpu_last = cpu_us();
}

/* ------------------------------------------------------------------------
 * Writing, with write(2) only: the crash path runs in a signal handler. */

static char wbuf[1 << 16];
static size_t wlen;
static int wfd = -1;

static void wflush(void)
{
  size_t off = 0;
  while (off < wlen) {
    ssize_t n = write(wfd, wbuf + off, wlen - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    off += (size_t)n;
  }
  wlen = 0;
}

static void wput(const char *fmt, ...)
{
  va_list ap;
  char line[1 << 12];
  int n;
  va_start(ap, fmt);
  n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
  if (wlen + (size_t)n > sizeof wbuf) wflush();
  memcpy(wbuf + wlen, line, (size_t)n);
  wlen += (size_t)n;
}

/* wstr writes s, which may be longer than wput's line. */
static void wstr(const char *s)
{
  size_t n = strlen(s);
  while (n > 0) {
    size_t k = sizeof wbuf - wlen;
    if (k == 0) {
      wflush();
      continue;
    }
    if (k > n) k = n;
    memcpy(wbuf + wlen, s, k);
    wlen += k;
    s += k;
    n -= k;
  }
}

static void write_node(const node *x, int depth)
{
  int i;
  for (i = 0; i < depth; i++) wstr("  ");
  if (x->loop) {
    wput("loop %lld\n", x->count);
    for (i = 0; i < x->nkids; i++) write_node(x->kids[i], depth + 1);
    for (i = 0; i < depth; i++) wstr("  ");
    wstr("end\n");
    return;
  }
  wstr(recs.keys[x->sym]);
  wput(" @ %lld %.3f %.3f %.3f %.3f", x->n, x->comp, x->cmin, x->cmax, x->mpi);
  if (use_cpu)
    wput(" %.3f\n", x->cpu);
  else
    wstr(" -\n");
}

/* write_trace writes the rank's trace; status is "complete" or says why the
 * trace is partial. */
static void write_trace(const char *status, double end)
{
  char path[4096 + 64], tmp[4096 + 80];
  int i, j;
  if (S.written) return;
  S.written = 1;
  snprintf(path, sizeof path, "%s/rank-%d.ptrace", S.dir, S.rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  wfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (wfd < 0) {
    static const char msg[] = "parley tracer: cannot write the trace file\n";
    if (write(2, msg, sizeof msg - 1) < 0) return;
    return;
  }
  wput("parley-trace 1\nrank %d of %d\nstatus %s\n", S.rank, S.size, status);
  wput("elapsed %.3f\ncalls %lld\n", end - S.t_init, S.calls);
  for (i = 1; i < ncomms; i++) {
    wput("comm %d", i);
    for (j = 0; j < csize[i]; j++) wput(" %d", cmembers[i][j]);
    wstr("\n");
  }
  wstr("body\n");
  for (i = 0; i < nstk; i++) write_node(stk[i], 0);
  wstr("end-of-trace\n");
  wflush();
  close(wfd);
  rename(tmp, path);
}

/* ------------------------------------------------------------------------
 * Crashes: what was traced is written, then the program goes on dying. */

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGQUIT};
#define NSIG_FATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))
static struct sigaction old_actions[NSIG_FATAL];

static void on_signal(int sig)
{
  int i;
  char status[64];
  if (S.on && !S.written) {
    snprintf(status, sizeof status, "partial signal %d%s", sig, S.busy ? " while recording" : "");
    write_trace(status, now_us());
  }
  for (i = 0; i < NSIG_FATAL; i++)
    if (fatal_signals[i] == sig) {
      if ((old_actions[i].sa_flags & SA_SIGINFO) == 0 && old_actions[i].sa_handler != SIG_DFL &&
          old_actions[i].sa_handler != SIG_IGN && old_actions[i].sa_handler != on_signal) {
        sigaction(sig, &old_actions[i], NULL);
        raise(sig);
        return;
      }
    }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_exit_early(void)
{
  if (S.on && !S.written) write_trace("partial exit before MPI_Finalize", now_us());
}

static void start(void)
{
  const char *d = getenv("PARLEY_TRACE_DIR"), *cpu = getenv("PARLEY_TRACE_CPU");
  int i;
  struct sigaction sa;
  PMPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &S.size);
  cmembers = xalloc(sizeof *cmembers);
  csize = xalloc(sizeof *csize);
  cmembers[0] = xalloc((size_t)S.size * sizeof **cmembers);
  for (i = 0; i < S.size; i++) cmembers[0][i] = i;
  csize[0] = S.size;
  ncomms = 1;
  snprintf(S.dir, sizeof S.dir, "%s", d && *d ? d : "parley-trace");
  if (mkdir(S.dir, 0755) != 0 && errno != EEXIST)
    fprintf(stderr, "parley tracer: cannot make %s: %s\n", S.dir, strerror(errno));
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (i = 0; i < NSIG_FATAL; i++) sigaction(fatal_signals[i], &sa, &old_actions[i]);
  atexit(on_exit_early);
  use_cpu = cpu != NULL && *cpu != '\0' && strcmp(cpu, "0") != 0;
  S.t_init = S.t_last = now_us();
  if (use_cpu) S.cpu_last = cpu_us();
  S.on = 1;
  S.cpu_enter = S.cpu_last;
  rstart("init");
  rend(S.t_init);
}

/* ------------------------------------------------------------------------
 * The wrappers. Each runs the real call, then records it. */

#define CALL(expr) \
  int rc;          \
  S.depth++;       \
  rc = (expr);     \
  S.depth--

int MPI_Init(int *argc, char ***argv)
{
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Finalize(void)
{
  if (S.on) {
    double t0 = enter();
    rstart("finalize");
    rend(t0);
    write_trace("complete", t0);
    S.on = 0;
  }
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
  if (S.on && !S.written) {
    char status[64];
    snprintf(status, sizeof status, "partial MPI_Abort %d", errorcode);
    write_trace(status, now_us());
  }
  return PMPI_Abort(comm, errorcode);
}

/* A freed request is forgotten: its handle may come back. */
int MPI_Request_free(MPI_Request *req)
{
  if (active()) req_take(*req);
  return PMPI_Request_free(req);
}

/* Point-to-point */

#define SEND_LIKE(NAME, PNAME, OP)                                                              \
  int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)      \
  {                                                                                             \
    double t0;                                                                                  \
    if (!active()) return PNAME(buf, count, dt, dest, tag, comm);                               \
    t0 = enter();                                                                                \
    CALL(PNAME(buf, count, dt, dest, tag, comm));                                               \
    rstart(OP);                                                                                 \
    rpeer("peer", comm, dest);                                                                  \
    rtag("tag", tag);                                                                           \
    rdata(count, dt);                                                                           \
    rend(t0);                                                                                   \
    return rc;                                                                                  \
  }
SEND_LIKE(MPI_Send, PMPI_Send, "send")
SEND_LIKE(MPI_Bsend, PMPI_Bsend, "bsend")
SEND_LIKE(MPI_Ssend, PMPI_Ssend, "ssend")
SEND_LIKE(MPI_Rsend, PMPI_Rsend, "rsend")

#define ISEND_LIKE(NAME, PNAME, OP)                                                                  \
  int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,           \
           MPI_Request *req)                                                                         \
  {                                                                                                  \
    double t0;                                                                                       \
    if (!active()) return PNAME(buf, count, dt, dest, tag, comm, req);                               \
    t0 = enter();                                                                                     \
    CALL(PNAME(buf, count, dt, dest, tag, comm, req));                                               \
    req_add(*req, dest == MPI_PROC_NULL);                                                            \
    rstart(OP);                                                                                      \
    rpeer("peer", comm, dest);                                                                       \
    rtag("tag", tag);                                                                                \
    rdata(count, dt);                                                                                \
    rend(t0);                                                                                        \
    return rc;                                                                                       \
  }
ISEND_LIKE(MPI_Isend, PMPI_Isend, "isend")
ISEND_LIKE(MPI_Ibsend, PMPI_Ibsend, "ibsend")
ISEND_LIKE(MPI_Issend, PMPI_Issend, "issend")
ISEND_LIKE(MPI_Irsend, PMPI_Irsend, "irsend")

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
  double t0;
  if (!active()) return PMPI_Recv(buf, count, dt, src, tag, comm, st);
  t0 = enter();
  CALL(PMPI_Recv(buf, count, dt, src, tag, comm, st));
  rstart("recv");
  rpeer("peer", comm, src);
  rtag("tag", tag);
  rdata(count, dt);
  rend(t0);
  return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
  double t0;
  if (!active()) return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
  t0 = enter();
  CALL(PMPI_Irecv(buf, count, dt, src, tag, comm, req));
  req_add(*req, src == MPI_PROC_NULL);
  rstart("irecv");
  rpeer("peer", comm, src);
  rtag("tag", tag);
  rdata(count, dt);
  rend(t0);
  return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf_,
                 int rcount, MPI_Datatype rtype, int src, int rtag_, MPI_Comm comm, MPI_Status *st)
{
  double t0;
  if (!active())
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf_, rcount, rtype, src, rtag_, comm, st);
  t0 = enter();
  CALL(PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf_, rcount, rtype, src, rtag_, comm, st));
  rstart("sendrecv");
  rpeer("peer", comm, dest);
  rtag("tag", stag);
  rdata(scount, stype);
  rpeer("rpeer", comm, src);
  rtag("rtag", rtag_);
  rkv("rcount", rcount);
  rkv("rsize", tsize(rtype));
  rend(t0);
  return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src, int rtag_,
                         MPI_Comm comm, MPI_Status *st)
{
  double t0;
  if (!active()) return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag_, comm, st);
  t0 = enter();
  CALL(PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag_, comm, st));
  rstart("sendrecv");
  rpeer("peer", comm, dest);
  rtag("tag", stag);
  rdata(count, dt);
  rpeer("rpeer", comm, src);
  rtag("rtag", rtag_);
  rkv("rcount", count);
  rkv("rsize", tsize(dt));
  rend(t0);
  return rc;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
  double t0;
  if (!active()) return PMPI_Probe(src, tag, comm, st);
  t0 = enter();
  CALL(PMPI_Probe(src, tag, comm, st));
  rstart("probe");
  rpeer("peer", comm, src);
  rtag("tag", tag);
  rend(t0);
  return rc;
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
  double t0;
  if (!active()) return PMPI_Iprobe(src, tag, comm, flag, st);
  t0 = enter();
  CALL(PMPI_Iprobe(src, tag, comm, flag, st));
  rstart("iprobe");
  rpeer("peer", comm, src);
  rtag("tag", tag);
  rkv("found", *flag != 0);
  rend(t0);
  return rc;
}

/* Waits and tests: the record lists the ages of the requests the call
 * completed (done=-: none), how many of them were calls to MPI_PROC_NULL
 * (null=) and how many the tracer did not see made (unknown=). */

static MPI_Request *save_reqs(int n, const MPI_Request *r, MPI_Request *small, int nsmall)
{
  MPI_Request *c = n <= nsmall ? small : xalloc((size_t)n * sizeof *c);
  memcpy(c, r, (size_t)n * sizeof *c);
  return c;
}

/* The ages a wait or test completed, sorted so that the record does not
 * depend on the order of the request array. */
static long long *ages;
static int unknown_done, null_done, ndone, capages;

static void rdone_begin(const char *op)
{
  rstart(op);
  unknown_done = null_done = ndone = 0;
}

static void rdone(MPI_Request h)
{
  long long age;
  if (h == MPI_REQUEST_NULL) return;
  age = req_take(h);
  if (age == 0) {
    unknown_done++;
    return;
  }
  if (age < 0) {
    null_done++;
    return;
  }
  if (ndone == capages) {
    capages = capages ? 2 * capages : 64;
    ages = xgrow(ages, (size_t)capages * sizeof *ages);
  }
  ages[ndone++] = age;
}

static int cmp_age(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static void rdone_end(double t0)
{
  int i;
  qsort(ages, (size_t)ndone, sizeof *ages, cmp_age);
  rkey("done");
  for (i = 0; i < ndone; i++) {
    if (i) rstr(",");
    rnum(ages[i]);
  }
  if (ndone == 0) rstr("-");
  if (null_done) rkv("null", null_done);
  if (unknown_done) rkv("unknown", unknown_done);
  rend(t0);
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
  double t0;
  MPI_Request h;
  if (!active()) return PMPI_Wait(req, st);
  h = *req;
  t0 = enter();
  CALL(PMPI_Wait(req, st));
  rdone_begin("wait");
  rdone(h);
  rdone_end(t0);
  return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
  double t0;
  MPI_Request h;
  if (!active()) return PMPI_Test(req, flag, st);
  h = *req;
  t0 = enter();
  CALL(PMPI_Test(req, flag, st));
  rdone_begin("test");
  if (*flag) rdone(h);
  rdone_end(t0);
  return rc;
}

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[])
{
  double t0;
  MPI_Request small[64], *c;
  int i;
  if (!active()) return PMPI_Waitall(n, r, st);
  c = save_reqs(n, r, small, 64);
  t0 = enter();
  CALL(PMPI_Waitall(n, r, st));
  rdone_begin("waitall");
  for (i = 0; i < n; i++) rdone(c[i]);
  rdone_end(t0);
  if (c != small) free(c);
  return rc;
}

int MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[])
{
  double t0;
  MPI_Request small[64], *c;
  int i;
  if (!active()) return PMPI_Testall(n, r, flag, st);
  c = save_reqs(n, r, small, 64);
  t0 = enter();
  CALL(PMPI_Testall(n, r, flag, st));
  rdone_begin("testall");
  if (*flag)
    for (i = 0; i < n; i++) rdone(c[i]);
  rdone_end(t0);
  if (c != small) free(c);
  return rc;
}

int MPI_Waitany(int n, MPI_Request r[], int *index, MPI_Status *st)
{
  double t0;
  MPI_Request small[64], *c;
  if (!active()) return PMPI_Waitany(n, r, index, st);
  c = save_reqs(n, r, small, 64);
  t0 = enter();
  CALL(PMPI_Waitany(n, r, index, st));
  rdone_begin("waitany");
  if (*index != MPI_UNDEFINED && *index >= 0 && *index < n) rdone(c[*index]);
  rdone_end(t0);
  if (c != small) free(c);
  return rc;
}

int MPI_Testany(int n, MPI_Request r[], int *index, int *flag, MPI_Status *st)
{
  double t0;
  MPI_Request small[64], *c;
  if (!active()) return PMPI_Testany(n, r, index, flag, st);
  c = save_reqs(n, r, small, 64);
  t0 = enter();
  CALL(PMPI_Testany(n, r, index, flag, st));
  rdone_begin("testany");
  if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < n) rdone(c[*index]);
  rdone_end(t0);
  if (c != small) free(c);
  return rc;
}

#define SOME_LIKE(NAME, PNAME, OP)                                                 \
  int NAME(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[])      \
  {                                                                                \
    double t0;                                                                     \
    MPI_Request small[64], *c;                                                     \
    int i;                                                                         \
    if (!active()) return PNAME(n, r, outcount, idx, st);                          \
    c = save_reqs(n, r, small, 64);                                                \
    t0 = enter();                                                                   \
    CALL(PNAME(n, r, outcount, idx, st));                                          \
    rdone_begin(OP);                                                               \
    if (*outcount != MPI_UNDEFINED)                                                \
      for (i = 0; i < *outcount; i++)                                              \
        if (idx[i] >= 0 && idx[i] < n) rdone(c[idx[i]]);                           \
    rdone_end(t0);                                                                 \
    if (c != small) free(c);                                                       \
    return rc;                                                                     \
  }
SOME_LIKE(MPI_Waitsome, PMPI_Waitsome, "waitsome")
SOME_LIKE(MPI_Testsome, PMPI_Testsome, "testsome")

/* Collectives. Sizes follow what each member contributes: the root's
 * counts where only the root's are significant. */

int MPI_Barrier(MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Barrier(comm);
  t0 = enter();
  CALL(PMPI_Barrier(comm));
  rstart("barrier");
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Bcast(buf, count, dt, root, comm);
  t0 = enter();
  CALL(PMPI_Bcast(buf, count, dt, root, comm));
  rstart("bcast");
  rroot(comm, root);
  rdata(count, dt);
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Reduce(sb, rb, count, dt, op, root, comm);
  t0 = enter();
  CALL(PMPI_Reduce(sb, rb, count, dt, op, root, comm));
  rstart("reduce");
  rroot(comm, root);
  rdata(count, dt);
  rcomm(comm);
  rend(t0);
  return rc;
}

#define REDUCE_LIKE(NAME, PNAME, OP)                                                             \
  int NAME(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)      \
  {                                                                                              \
    double t0;                                                                                   \
    if (!active()) return PNAME(sb, rb, count, dt, op, comm);                                    \
    t0 = enter();                                                                                 \
    CALL(PNAME(sb, rb, count, dt, op, comm));                                                    \
    rstart(OP);                                                                                  \
    rdata(count, dt);                                                                            \
    rcomm(comm);                                                                                 \
    rend(t0);                                                                                    \
    return rc;                                                                                   \
  }
REDUCE_LIKE(MPI_Allreduce, PMPI_Allreduce, "allreduce")
REDUCE_LIKE(MPI_Scan, PMPI_Scan, "scan")
REDUCE_LIKE(MPI_Exscan, PMPI_Exscan, "exscan")

static int rank_in(MPI_Comm comm)
{
  int r;
  PMPI_Comm_rank(comm, &r);
  return r;
}

static int size_of(MPI_Comm comm)
{
  int n;
  PMPI_Comm_size(comm, &n);
  return n;
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt, int root,
               MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Gather(sb, sc, st, rb, rc_, rt, root, comm);
  t0 = enter();
  CALL(PMPI_Gather(sb, sc, st, rb, rc_, rt, root, comm));
  rstart("gather");
  rroot(comm, root);
  if (rank_in(comm) == root)
    rdata(rc_, rt);
  else
    rdata(sc, st);
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt, int root,
                MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Scatter(sb, sc, st, rb, rc_, rt, root, comm);
  t0 = enter();
  CALL(PMPI_Scatter(sb, sc, st, rb, rc_, rt, root, comm));
  rstart("scatter");
  rroot(comm, root);
  if (rank_in(comm) == root)
    rdata(sc, st);
  else
    rdata(rc_, rt);
  rcomm(comm);
  rend(t0);
  return rc;
}

#define ALL_LIKE(NAME, PNAME, OP)                                                                 \
  int NAME(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,          \
           MPI_Comm comm)                                                                         \
  {                                                                                               \
    double t0;                                                                                    \
    if (!active()) return PNAME(sb, sc, st, rb, rc_, rt, comm);                                   \
    t0 = enter();                                                                                  \
    CALL(PNAME(sb, sc, st, rb, rc_, rt, comm));                                                   \
    rstart(OP);                                                                                   \
    rdata(rc_, rt);                                                                               \
    rcomm(comm);                                                                                  \
    rend(t0);                                                                                     \
    return rc;                                                                                    \
  }
ALL_LIKE(MPI_Allgather, PMPI_Allgather, "allgather")
ALL_LIKE(MPI_Alltoall, PMPI_Alltoall, "alltoall")

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int displs[],
                MPI_Datatype rt, int root, MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Gatherv(sb, sc, st, rb, rcs, displs, rt, root, comm);
  t0 = enter();
  CALL(PMPI_Gatherv(sb, sc, st, rb, rcs, displs, rt, root, comm));
  rstart("gatherv");
  rroot(comm, root);
  if (rank_in(comm) == root) {
    rdata(rcs[root], rt);
    rcounts(rcs, size_of(comm));
  } else {
    rdata(sc, st);
  }
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Scatterv(const void *sb, const int scs[], const int displs[], MPI_Datatype st, void *rb, int rc_,
                 MPI_Datatype rt, int root, MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Scatterv(sb, scs, displs, st, rb, rc_, rt, root, comm);
  t0 = enter();
  CALL(PMPI_Scatterv(sb, scs, displs, st, rb, rc_, rt, root, comm));
  rstart("scatterv");
  rroot(comm, root);
  if (rank_in(comm) == root) {
    rdata(scs[root], st);
    rcounts(scs, size_of(comm));
  } else {
    rdata(rc_, rt);
  }
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int displs[],
                   MPI_Datatype rt, MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Allgatherv(sb, sc, st, rb, rcs, displs, rt, comm);
  t0 = enter();
  CALL(PMPI_Allgatherv(sb, sc, st, rb, rcs, displs, rt, comm));
  rstart("allgatherv");
  rdata(rcs[rank_in(comm)], rt);
  rcounts(rcs, size_of(comm));
  rcomm(comm);
  rend(t0);
  return rc;
}

static long long sum(const int *v, int n)
{
  long long s = 0;
  int i;
  for (i = 0; i < n; i++) s += v[i];
  return s;
}

int MPI_Alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st, void *rb, const int rcs[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
  double t0;
  int n;
  if (!active()) return PMPI_Alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm);
  t0 = enter();
  CALL(PMPI_Alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm));
  n = size_of(comm);
  rstart("alltoallv");
  rdata(sum(scs, n), st);
  rcounts(scs, n);
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Reduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
  double t0;
  int n;
  if (!active()) return PMPI_Reduce_scatter(sb, rb, rcs, dt, op, comm);
  t0 = enter();
  CALL(PMPI_Reduce_scatter(sb, rb, rcs, dt, op, comm));
  n = size_of(comm);
  rstart("reduce_scatter");
  rdata(sum(rcs, n), dt);
  rcounts(rcs, n);
  rcomm(comm);
  rend(t0);
  return rc;
}

int MPI_Reduce_scatter_block(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
  double t0;
  if (!active()) return PMPI_Reduce_scatter_block(sb, rb, count, dt, op, comm);
  t0 = enter();
  CALL(PMPI_Reduce_scatter_block(sb, rb, count, dt, op, comm));
  rstart("reduce_scatter_block");
  rdata(count, dt);
  rcomm(comm);
  rend(t0);
  return rc;
}

/* Communicators: the record names the parent and the new communicator's
 * id (new=null where this rank is in none); the members of each id are in
 * the trace's header. */

static void rnew(const char *op, MPI_Comm parent, MPI_Comm made, double t0)
{
  rstart(op);
  rcomm(parent);
  if (made == MPI_COMM_NULL) {
    rkey("new");
    rstr("null");
  } else {
    rkv("new", new_comm(made));
  }
  rend(t0);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
  double t0;
  if (!active()) return PMPI_Comm_split(comm, color, key, out);
  t0 = enter();
  CALL(PMPI_Comm_split(comm, color, key, out));
  rnew("comm_split", comm, *out, t0);
  return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
  double t0;
  if (!active()) return PMPI_Comm_dup(comm, out);
  t0 = enter();
  CALL(PMPI_Comm_dup(comm, out));
  rnew("comm_dup", comm, *out, t0);
  return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group g, MPI_Comm *out)
{
  double t0;
  if (!active()) return PMPI_Comm_create(comm, g, out);
  t0 = enter();
  CALL(PMPI_Comm_create(comm, g, out));
  rnew("comm_create", comm, *out, t0);
  return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *out)
{
  double t0;
  if (!active()) return PMPI_Cart_create(comm, ndims, dims, periods, reorder, out);
  t0 = enter();
  CALL(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out));
  rnew("cart_create", comm, *out, t0);
  return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
  double t0;
  MPI_Comm h;
  int id;
  if (!active()) return PMPI_Comm_free(comm);
  h = *comm;
  id = comm_id(h);
  t0 = enter();
  CALL(PMPI_Comm_free(comm));
  forget_comm(h);
  rstart("comm_free");
  rkv("comm", id);
  rend(t0);
  return rc;
}
