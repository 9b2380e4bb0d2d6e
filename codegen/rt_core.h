/* ---------------------------------------------------------------------------
 * Parley's C+MPI run-time, part 2: the state of one task and everything the
 * generated statements call. Semantics follow Parley's interpreter, so a
 * compiled program sends, receives and counts exactly what `parley run`
 * predicts; only the times are real.
 * ------------------------------------------------------------------------- */
#include <mpi.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/* A command-line parameter of the program. */
typedef struct {
  const char *name, *help, *long_opt, *short_opt, *default_text;
  int64_t *value;
} pr_param;

/* What the generated main() tells the run-time about the program. */
typedef struct {
  const char *name;   /* base of the log files: name-<rank>.log */
  const char *file;   /* the source file */
  const char *source; /* its text, copied into every log */
  const pr_param *params;
  int nparams;
  int logs;           /* it writes logs (ir.Program.UsesLogs): if not, none */
} pr_program;

/* The predeclared counters. */
enum { ELAPSED_USECS, BYTES_SENT, BYTES_RECEIVED, TOTAL_BYTES, MSGS_SENT,
       MSGS_RECEIVED, TOTAL_MSGS, BIT_ERRORS };

typedef struct {
  int64_t msgs_sent, msgs_received, bytes_sent, bytes_received, bit_errors;
  double start; /* MPI_Wtime() when the counters were reset */
} pr_counters;

/* Stored counters, with the elapsed time they read then. */
typedef struct {
  pr_counters c;
  double elapsed;
} pr_stored;

/* Message flags. */
enum { PR_VERIFY = 1, PR_TOUCH = 2 };

/* A non-blocking receive whose data is checked or touched when it completes. */
typedef struct {
  char *buf;
  int64_t bytes;
  int flags;
} pr_pending;

/* One column of a log table. */
typedef struct {
  char *heading;
  int func; /* PR_ALL_DATA ... PR_PERCENTILE, as logfile.Func */
  double pct;
  double *raw;
  size_t nraw, capraw;
  char **rows; /* formatted cells; two per row for a histogram */
  size_t nrows, caprows;
} pr_column;

typedef struct {
  int top; /* the top-level statement's index */
  pr_column *cols;
  int ncols;
} pr_table;

/* Aggregate functions, numbered as Parley's logfile.Func. */
enum { PR_ALL_DATA, PR_MEAN, PR_HARMONIC_MEAN, PR_GEOMETRIC_MEAN, PR_MEDIAN,
       PR_MAD, PR_STDDEV, PR_VARIANCE, PR_SUM, PR_MINIMUM, PR_MAXIMUM,
       PR_FINAL, PR_ONLY, PR_HISTOGRAM, PR_PERCENTILE };

/* A communicator for a subset of the tasks, created once per distinct set. */
typedef struct {
  uint64_t hash;
  int mapping; /* the task-to-processor mapping it was made under */
  char *members;
  MPI_Comm comm;
} pr_commentry;

static struct {
  const pr_program *prog;
  int rank;               /* this process: the processor */
  pr_counters cnt;
  pr_stored *stack;       /* STORE THEIR COUNTERS */
  int nstack, capstack;
  int suppress;           /* > 0 inside warmups: no OUTPUTS or LOGS */
  int64_t total_msgs_sent, total_msgs_received, total_bytes_sent, total_bytes_received;
  MPI_Request *reqs;      /* outstanding non-blocking operations */
  int nreqs, capreqs;
  pr_pending *pend;
  int npend, cappend;
  int64_t deferred_msgs, deferred_bytes; /* counted at AWAIT COMPLETION */
  char *sendbuf, *recvbuf;
  int64_t sendcap, recvcap;
  char **retired;         /* buffers still used by outstanding requests */
  int nretired, capretired;
  pr_pcg rng, sync_rng;
  uint64_t seed;
  int *v2p, *p2v;         /* ARE ASSIGNED TO; NULL: task = processor */
  int mapping;            /* bumped at each reassignment */
  char *members[3];       /* scratch membership flags, one per task */
  char *all;              /* every task's flag set (pr_all_tasks); never
                           * written after pr_init, so that pr_comm and
                           * pr_rank_in know it by its address */
  size_t nmembers;        /* their length: num_tasks, kept as a size_t so
                           * that gcc cannot see a negative num_tasks reach
                           * memset (-Wstringop-overflow) */
  pr_commentry *comms;
  int ncomms, capcomms;
  pr_table *tables;
  int ntables, current;
  const char *logname;    /* log file template, %d for the rank */
  double timer_overhead, timer_tick;
  char host[MPI_MAX_PROCESSOR_NAME];
  char run_id[37];        /* the run's identifier, a UUID rank 0 draws */
  double started;
  double *region;         /* TOUCHES and the flops kernel */
  int64_t regioncap;
} pr;

/* Results of compute kernels land here, so the compiler keeps the work. */
PR_UNUSED static volatile double pr_sink;

/* The predeclared num_tasks and MY TASK. */
static int64_t num_tasks, my_task;

PR_UNUSED static void pr_write_logs(const char *status);

PR_UNUSED static void *pr_alloc(size_t n)
{
  void *p = calloc(n ? n : 1, 1);
  if (p == NULL) {
    fprintf(stderr, "%s: out of memory (%lu bytes)\n", pr.prog->file, (unsigned long)n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* pr_vformat formats into *buf, which it grows (its size is *cap) to hold
 * the text however long, with room for one more character; it returns
 * the text's length. Text is never cut short: an OUTPUTS line, a heading
 * in an error message or a log path may be of any length. */
PR_UNUSED static size_t pr_vformat(char **buf, size_t *cap, const char *fmt, va_list ap)
{
  va_list again;
  int n;
  va_copy(again, ap);
  n = vsnprintf(*buf, *cap, fmt, again);
  va_end(again);
  if (n < 0) n = 0; /* an encoding error: no text */
  if ((size_t)n + 2 > *cap) {
    free(*buf);
    *cap = (size_t)n + 2;
    *buf = pr_alloc(*cap);
    vsnprintf(*buf, *cap, fmt, ap);
  }
  (*buf)[n] = '\0';
  return (size_t)n;
}

/* pr_format is pr_vformat with the arguments in line. */
PR_UNUSED static size_t pr_format(char **buf, size_t *cap, const char *fmt, ...)
{
  size_t n;
  va_list ap;
  va_start(ap, fmt);
  n = pr_vformat(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}

PR_UNUSED static void pr_fail(const char *pos, const char *fmt, ...)
{
  char *msg = NULL;
  size_t cap = 0;
  va_list ap;
  va_start(ap, fmt);
  pr_vformat(&msg, &cap, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s:%s: task %ld: %s\n", pr.prog->file, pos, (long)my_task, msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* pr_grow makes room for one more element in a growable array. */
#define pr_grow(arr, n, cap)                                                  \
  do {                                                                        \
    if ((n) == (cap)) {                                                       \
      (cap) = (cap) ? 2 * (cap) : 16;                                         \
      void *grown_ = realloc((arr), (size_t)(cap) * sizeof *(arr));           \
      if (grown_ == NULL) pr_fail("0:0", "out of memory");                    \
      (arr) = grown_;                                                         \
    }                                                                         \
  } while (0)

/* Mesh functions' arguments. */
#define PR_DIMS(x, y, z) ((const int64_t[3]){(x), (y), (z)})
#define PR_TORUS(x, y, z) ((const int[3]){(x), (y), (z)})
#define PR_OFFSETS(x, y, z) ((const int64_t[3]){(x), (y), (z)})

/* MIN and MAX, pairwise, keeping the first of equal values as Parley does. */
PR_UNUSED static int64_t pr_min2(int64_t a, int64_t b) { return b < a ? b : a; }
PR_UNUSED static int64_t pr_max2(int64_t a, int64_t b) { return b < a ? a : b; }
/* In floating-point context as coNCePTuaL's loop: a NaN after the first
 * value is never taken. */
PR_UNUSED static double pr_fmin2(double a, double b) { return b < a ? b : a; }
PR_UNUSED static double pr_fmax2(double a, double b) { return b > a ? b : a; }

/* BITS round up to whole bytes. */
PR_UNUSED static int64_t pr_bits_to_bytes(int64_t bits) { return bits % 8 != 0 ? bits / 8 + 1 : bits / 8; }

/* ------------------------------------------------------------------------
 * Start and end */

PR_UNUSED static int pr_parse_int(const char *s, int64_t *out)
{
  const char *p = s;
  int neg = 0;
  uint64_t v = 0, mul = 1;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  if (*p < '0' || *p > '9') return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (v > (UINT64_C(9223372036854775807) - (uint64_t)(*p - '0')) / 10) return 0;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  switch (*p) {
  case 'k': case 'K': mul = UINT64_C(1) << 10; p++; break;
  case 'm': case 'M': mul = UINT64_C(1) << 20; p++; break;
  case 'g': case 'G': mul = UINT64_C(1) << 30; p++; break;
  case 't': case 'T': mul = UINT64_C(1) << 40; p++; break;
  case 'e': case 'E':
    for (p++; *p >= '0' && *p <= '9'; p++) mul *= 10;
    break;
  }
  if (*p != '\0' && strcmp(p, "st") && strcmp(p, "nd") && strcmp(p, "rd") && strcmp(p, "th")) return 0;
  if (mul > 1 && v > UINT64_C(9223372036854775807) / mul) return 0;
  *out = neg ? -(int64_t)(v * mul) : (int64_t)(v * mul);
  return 1;
}

PR_UNUSED static void pr_usage(FILE *w)
{
  int i;
  fprintf(w, "Usage: mpirun -np N %s [options]\n\nOptions:\n", pr.prog->name);
  for (i = 0; i < pr.prog->nparams; i++) {
    const pr_param *p = &pr.prog->params[i];
    fprintf(w, "  %s, %s=<number>\t%s [default: %s]\n", p->short_opt, p->long_opt, p->help, p->default_text);
  }
  fprintf(w, "  --seed=<number>\tseed of the random-number streams [default: 1]\n"
             "  --logfile=<template>\tlog file per task, %%d for the rank [default: %s-%%d.log]\n"
             "  --help\tthis text\n", pr.prog->name);
}

/* pr_log_template reports whether a --logfile template is safe to format
 * with the rank: one %d and otherwise only %%. */
PR_UNUSED static int pr_log_template(const char *t)
{
  int ranks = 0;
  for (; *t; t++) {
    if (*t != '%') continue;
    if (*++t == 'd') ranks++;
    else if (*t != '%') return 0;
  }
  return ranks == 1;
}

/* pr_option handles one command-line option; it returns how many
 * arguments it used, or 0 if it did not recognize the option. */
PR_UNUSED static int pr_option(int argc, char **argv, int i)
{
  char name[256];
  const char *arg = argv[i], *eq = strchr(arg, '='), *value;
  int used = 1, k;
  size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  if (len >= sizeof name) return 0;
  memcpy(name, arg, len);
  name[len] = '\0';
  if (eq) {
    value = eq + 1;
  } else if (i + 1 < argc) {
    value = argv[i + 1];
    used = 2;
  } else {
    value = NULL;
  }
  if (strcmp(name, "--logfile") == 0) {
    if (value == NULL) return 0;
    if (!pr_log_template(value)) {
      if (pr.rank == 0) fprintf(stderr, "%s: --logfile %s: the template needs one %%d, for the rank, and no other %% but %%%% (e.g. run-%%d.log)\n", pr.prog->name, value);
      MPI_Finalize();
      exit(2);
    }
    pr.logname = value;
    return used;
  }
  for (k = -1; k < pr.prog->nparams; k++) {
    const pr_param *p = k < 0 ? NULL : &pr.prog->params[k];
    int64_t v;
    if (k < 0 ? strcmp(name, "--seed") != 0 : strcmp(name, p->long_opt) != 0 && strcmp(name, p->short_opt) != 0)
      continue;
    if (value == NULL || !pr_parse_int(value, &v)) {
      if (pr.rank == 0) fprintf(stderr, "%s: option %s needs an integer value (e.g. 64, 4K, 1E6)\n", pr.prog->name, name);
      MPI_Finalize();
      exit(2);
    }
    if (k < 0) pr.seed = (uint64_t)v; else *p->value = v;
    return used;
  }
  return 0;
}

/* pr_calibrate measures the timer: the mean cost of a reading and the
 * smallest step it takes, reported in every log's header. */
PR_UNUSED static void pr_calibrate(void)
{
  int i;
  double t0 = MPI_Wtime(), t1 = t0, step = 1e30;
  for (i = 0; i < 1000; i++) MPI_Wtime();
  pr.timer_overhead = (MPI_Wtime() - t0) * 1e6 / 1000;
  for (i = 0; i < 100; i++) {
    double a = MPI_Wtime(), b;
    while ((b = MPI_Wtime()) == a) {}
    if (b - a < step) step = b - a;
    t1 = b;
  }
  (void)t1;
  pr.timer_tick = step * 1e6;
}

/* pr_make_run_id draws the run's identifier, a random (version 4) UUID as
 * coNCePTuaL writes in its logs, from the system's random source or else
 * from the clock and the stack's address. */
PR_UNUSED static void pr_make_run_id(char out[37])
{
  unsigned char b[16];
  FILE *r = fopen("/dev/urandom", "rb");
  if (r == NULL || fread(b, 1, sizeof b, r) != sizeof b) {
    pr_pcg g;
    struct timespec ts;
    uint64_t x, y;
    clock_gettime(CLOCK_REALTIME, &ts);
    pr_pcg_seed(&g, (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)&g);
    x = pr_pcg_uint64(&g);
    y = pr_pcg_uint64(&g);
    memcpy(b, &x, 8);
    memcpy(b + 8, &y, 8);
  }
  if (r != NULL) fclose(r);
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

PR_UNUSED static void pr_init(int *argc, char ***argv, const pr_program *prog)
{
  int i, size;
  MPI_Init(argc, argv);
  pr.prog = prog;
  pr.started = MPI_Wtime();
  MPI_Comm_rank(MPI_COMM_WORLD, &pr.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  num_tasks = size;
  my_task = pr.rank;
  pr.seed = 1;
  for (i = 1; i < *argc;) {
    const char *a = (*argv)[i];
    int used;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "-?") == 0) {
      if (pr.rank == 0) pr_usage(stdout);
      MPI_Finalize();
      exit(0);
    }
    used = pr_option(*argc, *argv, i);
    if (used == 0) {
      if (pr.rank == 0) {
        fprintf(stderr, "%s: unknown option %s\n\n", prog->name, a);
        pr_usage(stderr);
      }
      MPI_Finalize();
      exit(2);
    }
    i += used;
  }
  {
    int len;
    MPI_Get_processor_name(pr.host, &len);
  }
  if (pr.rank == 0) pr_make_run_id(pr.run_id);
  MPI_Bcast(pr.run_id, (int)sizeof pr.run_id, MPI_CHAR, 0, MPI_COMM_WORLD);
  pr_pcg_seed(&pr.rng, pr.seed, (uint64_t)my_task * UINT64_C(0x9e3779b97f4a7c15) + 1);
  pr_pcg_seed(&pr.sync_rng, pr.seed, 0x5eed);
  pr.nmembers = (size_t)num_tasks;
  for (i = 0; i < 3; i++) pr.members[i] = pr_alloc(pr.nmembers);
  pr.all = pr_alloc(pr.nmembers);
  memset(pr.all, 1, pr.nmembers);
  pr.current = -1;
  pr_calibrate();
  MPI_Barrier(MPI_COMM_WORLD);
  pr.cnt.start = MPI_Wtime();
}

PR_UNUSED static void pr_finish(void)
{
  if (pr.nreqs > 0)
    fprintf(stderr, "%s: task %ld ended with %d asynchronous operations never awaited\n",
            pr.prog->file, (long)my_task, pr.nreqs);
  pr_write_logs("Program exited normally.");
  MPI_Finalize();
}

/* ------------------------------------------------------------------------
 * Counters */

PR_UNUSED static double pr_counter(int which)
{
  const pr_counters *c = &pr.cnt;
  switch (which) {
  case ELAPSED_USECS: return (MPI_Wtime() - c->start) * 1e6;
  case BYTES_SENT: return (double)c->bytes_sent;
  case BYTES_RECEIVED: return (double)c->bytes_received;
  case TOTAL_BYTES: return (double)(c->bytes_sent + c->bytes_received);
  case MSGS_SENT: return (double)c->msgs_sent;
  case MSGS_RECEIVED: return (double)c->msgs_received;
  case TOTAL_MSGS: return (double)(c->msgs_sent + c->msgs_received);
  }
  return (double)c->bit_errors;
}

PR_UNUSED static void pr_reset_counters(void)
{
  memset(&pr.cnt, 0, sizeof pr.cnt);
  pr.cnt.start = MPI_Wtime();
}

PR_UNUSED static void pr_store_counters(void)
{
  pr_grow(pr.stack, pr.nstack, pr.capstack);
  pr.stack[pr.nstack].c = pr.cnt;
  pr.stack[pr.nstack].elapsed = MPI_Wtime() - pr.cnt.start;
  pr.nstack++;
}

/* pr_restore_counters winds the counters back to the last store: elapsed
 * time reads what it read then. */
PR_UNUSED static void pr_restore_counters(const char *pos)
{
  if (pr.nstack == 0)
    pr_fail(pos, "task %ld restores its counters more often than it stores them", (long)my_task);
  pr.nstack--;
  pr.cnt = pr.stack[pr.nstack].c;
  pr.cnt.start = MPI_Wtime() - pr.stack[pr.nstack].elapsed;
}

/* Warmups run with outputs suppressed and their counter changes undone. */
PR_UNUSED static void pr_warmup_begin(void) { pr.suppress++; pr_store_counters(); }
PR_UNUSED static void pr_warmup_end(void) { pr.suppress--; pr_restore_counters("0:0"); }

/* ------------------------------------------------------------------------
 * Tasks and processors */

PR_UNUSED static int pr_proc(int64_t task) { return pr.v2p ? pr.v2p[task] : (int)task; }

/* pr_assign puts task on processor proc, swapping with the task that held
 * it, so the mapping stays one-to-one. */
PR_UNUSED static void pr_assign(int64_t task, int64_t proc)
{
  int64_t i, w, old;
  if (proc < 0 || proc >= num_tasks) return;
  if (pr.v2p == NULL) {
    pr.v2p = pr_alloc((size_t)num_tasks * sizeof *pr.v2p);
    pr.p2v = pr_alloc((size_t)num_tasks * sizeof *pr.p2v);
    for (i = 0; i < num_tasks; i++) pr.v2p[i] = pr.p2v[i] = (int)i;
  }
  w = pr.p2v[proc];
  old = pr.v2p[task];
  pr.v2p[task] = (int)proc;
  pr.p2v[proc] = (int)task;
  pr.v2p[w] = (int)old;
  pr.p2v[old] = (int)w;
  my_task = pr.p2v[pr.rank];
  pr.mapping++;
}

PR_UNUSED static int64_t pr_processor_of(int64_t task, const char *pos)
{
  if (task < 0 || task >= num_tasks) pr_fail(pos, "PROCESSOR_OF(%ld): there are only %ld tasks", (long)task, (long)num_tasks);
  return pr_proc(task);
}

PR_UNUSED static int64_t pr_task_of(int64_t proc, const char *pos)
{
  if (proc < 0 || proc >= num_tasks) pr_fail(pos, "TASK_OF(%ld): there are only %ld tasks", (long)proc, (long)num_tasks);
  return pr.p2v ? pr.p2v[proc] : proc;
}

/* pr_random_task draws A RANDOM TASK from the stream every task shares, so
 * all tasks agree; -1 if no task qualifies. kind: 0 any, 1 other than x,
 * 2 less than x, 3 greater than x, 4 in [x, y]; but_not < 0: none. */
PR_UNUSED static int64_t pr_random_task(int kind, int64_t x, int64_t y, int has_but_not, int64_t but_not)
{
  int64_t lo = 0, hi = num_tasks - 1, exclude = -1, count, v;
  uint64_t draw;
  switch (kind) {
  case 1: exclude = x; break;
  case 2: if (x - 1 < hi) hi = x - 1; break;
  case 3: if (x + 1 > lo) lo = x + 1; break;
  case 4: if (x > lo) lo = x; if (y < hi) hi = y; break;
  }
  if (has_but_not) exclude = but_not;
  count = hi - lo + 1;
  if (exclude >= lo && exclude <= hi) count--;
  draw = pr_pcg_uint64(&pr.sync_rng); /* even when nothing qualifies */
  if (count <= 0) return -1;
  v = lo + (int64_t)(draw % (uint64_t)count);
  if (exclude >= lo && exclude <= hi && v >= exclude) v++;
  return v;
}

PR_UNUSED static int pr_is_task(int64_t t) { return t >= 0 && t < num_tasks; }

/* pr_members returns scratch membership flags number k (0 to 2), cleared. */
PR_UNUSED static char *pr_members(int k)
{
  memset(pr.members[k], 0, pr.nmembers);
  return pr.members[k];
}

/* pr_all_tasks returns the membership flags of every task. They must not
 * be written: a collective over ALL TASKS then costs no pass over the
 * tasks (a pass cost 6 us a call at 4096 tasks, 100 us at 65536, where a
 * small all-reduce on a cluster takes tens of microseconds). */
PR_UNUSED static char *pr_all_tasks(void) { return pr.all; }

/* pr_comm returns a communicator holding the tasks flagged in members,
 * ranked in task order, or MPI_COMM_NULL if this task is not one of them.
 * Every task calls it with the same flags; communicators are made on
 * first use with MPI_Comm_split and kept. */
PR_UNUSED static MPI_Comm pr_comm(const char *members)
{
  uint64_t h = 1469598103934665603u;
  int64_t i, n = 0;
  int k;
  if (members == pr.all && pr.v2p == NULL) return MPI_COMM_WORLD;
  for (i = 0; i < num_tasks; i++) {
    h = (h ^ (uint64_t)(members[i] != 0)) * 1099511628211u;
    n += members[i] != 0;
  }
  if (n == num_tasks && pr.v2p == NULL) return MPI_COMM_WORLD;
  for (k = 0; k < pr.ncomms; k++) {
    pr_commentry *c = &pr.comms[k];
    if (c->hash == h && c->mapping == pr.mapping && memcmp(c->members, members, pr.nmembers) == 0)
      return c->comm;
  }
  pr_grow(pr.comms, pr.ncomms, pr.capcomms);
  {
    pr_commentry *c = &pr.comms[pr.ncomms++];
    c->hash = h;
    c->mapping = pr.mapping;
    c->members = pr_alloc((size_t)num_tasks);
    memcpy(c->members, members, (size_t)num_tasks);
    MPI_Comm_split(MPI_COMM_WORLD, members[my_task] ? 0 : MPI_UNDEFINED, (int)my_task, &c->comm);
    return c->comm;
  }
}

/* pr_site is what a collective statement over a set of tasks that cannot
 * change (no variable, counter or random draw in it) works out once: the
 * set's membership flags, filled by the generated code the first time
 * (filled), and its communicator for the current task mapping. Each
 * execution would otherwise fill and hash the flags, a pass over the
 * tasks. */
typedef struct {
  char *members;
  int filled, cached, mapping;
  MPI_Comm comm;
} pr_site;

/* pr_site_members returns site s's flags, cleared the first time. */
PR_UNUSED static char *pr_site_members(pr_site *s)
{
  if (s->members == NULL) s->members = pr_alloc(pr.nmembers);
  return s->members;
}

/* pr_site_comm is pr_comm(members) for site s, found once per mapping. */
PR_UNUSED static MPI_Comm pr_site_comm(pr_site *s, const char *members)
{
  if (!s->cached || s->mapping != pr.mapping) {
    s->comm = pr_comm(members);
    s->mapping = pr.mapping;
    s->cached = 1;
  }
  return s->comm;
}

/* pr_rank_in is task's rank in the communicator of members. */
PR_UNUSED static int pr_rank_in(const char *members, int64_t task)
{
  int64_t i;
  int r = 0;
  if (members == pr.all) return (int)task;
  for (i = 0; i < task; i++) r += members[i] != 0;
  return r;
}

/* ------------------------------------------------------------------------
 * Point-to-point messages */

PR_UNUSED static int pr_tag(int64_t tag, const char *pos)
{
  static int tag_ub = -1;
  if (tag_ub < 0) {
    int *ub, ok;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &ok);
    tag_ub = ok ? *ub : 32767;
  }
  if (tag < 0 || tag > tag_ub) pr_fail(pos, "tag %ld is out of MPI's range (0 to %d)", (long)tag, tag_ub);
  return (int)tag;
}

/* pr_buffer returns a message buffer of at least bytes. A buffer that
 * outstanding requests still use is retired, not freed, until they end. */
PR_UNUSED static char *pr_buffer(char **buf, int64_t *cap, int64_t bytes)
{
  if (bytes > *cap) {
    int64_t n = bytes > 2 * *cap ? bytes : 2 * *cap;
    if (pr.nreqs > 0) {
      pr_grow(pr.retired, pr.nretired, pr.capretired);
      pr.retired[pr.nretired++] = *buf;
    } else {
      free(*buf);
    }
    *buf = pr_alloc((size_t)n);
    /* Written once, as an application's data is: calloc's fresh pages
       all map the kernel's zero page until written, and sending from
       them reads one cached page, which made 1 MiB messages half again
       as fast as an application's. */
    memset(*buf, 1, (size_t)n);
    *cap = n;
  }
  return *buf;
}

/* Verified messages carry a seed in their first 8 bytes and a stream the
 * receiver regenerates from it; bit errors are the differing bits. */
PR_UNUSED static uint64_t pr_verify_next(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

PR_UNUSED static void pr_fill(char *buf, int64_t bytes)
{
  static uint64_t seq = 0x9e3779b97f4a7c15u;
  uint64_t s = ++seq * 0xbf58476d1ce4e5b9u + (uint64_t)pr.rank, x;
  int64_t i;
  if (bytes < 8) return;
  memcpy(buf, &s, 8);
  for (i = 8; i + 8 <= bytes; i += 8) {
    x = pr_verify_next(&s);
    memcpy(buf + i, &x, 8);
  }
  x = pr_verify_next(&s);
  memcpy(buf + i, &x, (size_t)(bytes - i));
}

PR_UNUSED static int64_t pr_check(const char *buf, int64_t bytes)
{
  uint64_t s, x, y;
  int64_t i, errors = 0;
  if (bytes < 8) return 0;
  memcpy(&s, buf, 8);
  for (i = 8; i < bytes; i += 8) {
    size_t n = bytes - i < 8 ? (size_t)(bytes - i) : 8;
    x = pr_verify_next(&s);
    y = 0;
    memcpy(&y, buf + i, n);
    if (n < 8) x &= (UINT64_C(1) << (8 * n)) - 1;
    for (x ^= y; x; x &= x - 1) errors++;
  }
  return errors;
}

/* pr_touch_data reads every word of a message, as WITH DATA TOUCHING asks. */
PR_UNUSED static void pr_touch_data(char *buf, int64_t bytes)
{
  uint32_t sum = 0, w;
  int64_t i;
  for (i = 0; i + 4 <= bytes; i += 4) {
    memcpy(&w, buf + i, 4);
    sum += w;
  }
  pr_sink = sum;
}

PR_UNUSED static void pr_received(char *buf, int64_t bytes, int flags)
{
  if (flags & PR_VERIFY) pr.cnt.bit_errors += pr_check(buf, bytes);
  if (flags & PR_TOUCH) pr_touch_data(buf, bytes);
}

PR_UNUSED static void pr_count_sent(int64_t bytes)
{
  pr.cnt.msgs_sent++;
  pr.cnt.bytes_sent += bytes;
  pr.total_msgs_sent++;
  pr.total_bytes_sent += bytes;
}

PR_UNUSED static void pr_count_received(int64_t bytes)
{
  pr.cnt.msgs_received++;
  pr.cnt.bytes_received += bytes;
  pr.total_msgs_received++;
  pr.total_bytes_received += bytes;
}

PR_UNUSED static int pr_count_of(int64_t bytes, const char *pos)
{
  if (bytes < 0 || bytes > 2147483647) pr_fail(pos, "a message of %ld bytes is beyond MPI's int counts", (long)bytes);
  return (int)bytes;
}

/* pr_send sends count messages of bytes each to task, one after the other. */
PR_UNUSED static void pr_send(int64_t task, int64_t count, int64_t bytes, int64_t tag, int flags, const char *pos)
{
  int64_t k;
  int n = pr_count_of(bytes, pos), t = pr_tag(tag, pos);
  char *buf = pr_buffer(&pr.sendbuf, &pr.sendcap, bytes);
  for (k = 0; k < count; k++) {
    if (flags & PR_VERIFY) pr_fill(buf, bytes);
    if (flags & PR_TOUCH) pr_touch_data(buf, bytes);
    MPI_Send(buf, n, MPI_BYTE, pr_proc(task), t, MPI_COMM_WORLD);
    pr_count_sent(bytes);
  }
}

PR_UNUSED static void pr_recv(int64_t task, int64_t count, int64_t bytes, int64_t tag, int flags, const char *pos)
{
  int64_t k;
  int n = pr_count_of(bytes, pos), t = pr_tag(tag, pos);
  char *buf = pr_buffer(&pr.recvbuf, &pr.recvcap, bytes);
  for (k = 0; k < count; k++) {
    MPI_Recv(buf, n, MPI_BYTE, pr_proc(task), t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    pr_received(buf, bytes, flags);
    pr_count_received(bytes);
  }
}

PR_UNUSED static MPI_Request *pr_new_request(void)
{
  pr_grow(pr.reqs, pr.nreqs, pr.capreqs);
  return &pr.reqs[pr.nreqs++];
}

/* pr_isend starts count sends; they are counted now and complete at the
 * next pr_await. A verified message gets a buffer of its own. */
PR_UNUSED static void pr_isend(int64_t task, int64_t count, int64_t bytes, int64_t tag, int flags, const char *pos)
{
  int64_t k;
  int n = pr_count_of(bytes, pos), t = pr_tag(tag, pos);
  for (k = 0; k < count; k++) {
    char *buf;
    if (flags & PR_VERIFY) {
      buf = pr_alloc((size_t)bytes);
      pr_fill(buf, bytes);
      pr_grow(pr.retired, pr.nretired, pr.capretired);
      pr.retired[pr.nretired++] = buf;
    } else {
      buf = pr_buffer(&pr.sendbuf, &pr.sendcap, bytes);
    }
    if (flags & PR_TOUCH) pr_touch_data(buf, bytes);
    MPI_Isend(buf, n, MPI_BYTE, pr_proc(task), t, MPI_COMM_WORLD, pr_new_request());
    pr_count_sent(bytes);
  }
}

/* pr_irecv starts count receives; they are counted, checked and touched at
 * the next pr_await. */
PR_UNUSED static void pr_irecv(int64_t task, int64_t count, int64_t bytes, int64_t tag, int flags, const char *pos)
{
  int64_t k;
  int n = pr_count_of(bytes, pos), t = pr_tag(tag, pos);
  for (k = 0; k < count; k++) {
    char *buf;
    if (flags) {
      buf = pr_alloc((size_t)bytes);
      pr_grow(pr.pend, pr.npend, pr.cappend);
      pr.pend[pr.npend].buf = buf;
      pr.pend[pr.npend].bytes = bytes;
      pr.pend[pr.npend].flags = flags;
      pr.npend++;
    } else {
      buf = pr_buffer(&pr.recvbuf, &pr.recvcap, bytes);
    }
    MPI_Irecv(buf, n, MPI_BYTE, pr_proc(task), t, MPI_COMM_WORLD, pr_new_request());
    pr.deferred_msgs++;
    pr.deferred_bytes += bytes;
    pr.total_msgs_received++;
    pr.total_bytes_received += bytes;
  }
}

/* pr_await is AWAIT COMPLETION: every outstanding operation completes. */
PR_UNUSED static void pr_await(void)
{
  int i;
  MPI_Waitall(pr.nreqs, pr.reqs, MPI_STATUSES_IGNORE);
  pr.nreqs = 0;
  for (i = 0; i < pr.npend; i++) {
    pr_received(pr.pend[i].buf, pr.pend[i].bytes, pr.pend[i].flags);
    free(pr.pend[i].buf);
  }
  pr.npend = 0;
  for (i = 0; i < pr.nretired; i++) free(pr.retired[i]);
  pr.nretired = 0;
  pr.cnt.msgs_received += pr.deferred_msgs;
  pr.cnt.bytes_received += pr.deferred_bytes;
  pr.deferred_msgs = pr.deferred_bytes = 0;
}

/* ------------------------------------------------------------------------
 * Collectives: they leave the message counters alone, as in coNCePTuaL. */

PR_UNUSED static void pr_barrier(MPI_Comm comm)
{
  if (comm != MPI_COMM_NULL) MPI_Barrier(comm);
}

/* pr_bcast broadcasts count messages of bytes from root (a task). */
PR_UNUSED static void pr_bcast(MPI_Comm comm, const char *members, int64_t root, int64_t count, int64_t bytes, const char *pos)
{
  int64_t k;
  int n = pr_count_of(bytes, pos), r;
  char *buf;
  if (comm == MPI_COMM_NULL) return;
  r = pr_rank_in(members, root);
  buf = pr_buffer(&pr.sendbuf, &pr.sendcap, bytes);
  for (k = 0; k < count; k++) MPI_Bcast(buf, n, MPI_BYTE, r, comm);
}

PR_UNUSED static MPI_Op pr_mpi_op(int op)
{
  switch (op) {
  case 2: return MPI_PROD;
  case 3: return MPI_MIN;
  case 4: return MPI_MAX;
  }
  return MPI_SUM;
}

/* Reductions work on items of 4-byte integers or 8-byte doubles. */
PR_UNUSED static void *pr_items(int64_t items, int type_bytes, int which)
{
  int64_t bytes = items * type_bytes;
  return which ? pr_buffer(&pr.recvbuf, &pr.recvcap, bytes) : pr_buffer(&pr.sendbuf, &pr.sendcap, bytes);
}

PR_UNUSED static void pr_allreduce(MPI_Comm comm, int64_t items, int type_bytes, int op, const char *pos)
{
  MPI_Datatype dt = type_bytes == 8 ? MPI_DOUBLE : MPI_INT;
  int n = pr_count_of(items, pos);
  if (comm == MPI_COMM_NULL) return;
  MPI_Allreduce(pr_items(items, type_bytes, 0), pr_items(items, type_bytes, 1), n, dt, pr_mpi_op(op), comm);
}

PR_UNUSED static void pr_reduce(MPI_Comm comm, const char *members, int64_t root, int64_t items, int type_bytes, int op, const char *pos)
{
  MPI_Datatype dt = type_bytes == 8 ? MPI_DOUBLE : MPI_INT;
  int n = pr_count_of(items, pos);
  if (comm == MPI_COMM_NULL) return;
  MPI_Reduce(pr_items(items, type_bytes, 0), pr_items(items, type_bytes, 1), n, dt, pr_mpi_op(op),
             pr_rank_in(members, root), comm);
}

/* pr_reduce_to reduces from the sources to the targets: an all-reduce
 * when they are the same tasks, a reduce to the single target, or a
 * reduce to the first target and a broadcast to the others. */
PR_UNUSED static void pr_reduce_to(const char *from, const char *to, int64_t items, int type_bytes, int op, const char *pos)
{
  int64_t root = 0;
  char *with_root;
  while (root < num_tasks && !to[root]) root++;
  if (root == num_tasks) return;
  if (memcmp(from, to, (size_t)num_tasks) == 0) {
    pr_allreduce(pr_comm(from), items, type_bytes, op, pos);
    return;
  }
  with_root = pr.members[2];
  memcpy(with_root, from, (size_t)num_tasks);
  with_root[root] = 1;
  pr_reduce(pr_comm(with_root), with_root, root, items, type_bytes, op, pos);
  pr_bcast(pr_comm(to), to, root, 1, items * type_bytes, pos);
}

/* pr_reduce_scatter: each member contributes items; member i receives
 * block i, the remainder spread over the first members. */
PR_UNUSED static void pr_reduce_scatter(MPI_Comm comm, int64_t items, int type_bytes, int op, const char *pos)
{
  MPI_Datatype dt = type_bytes == 8 ? MPI_DOUBLE : MPI_INT;
  int size, i, *counts;
  if (comm == MPI_COMM_NULL) return;
  pr_count_of(items, pos);
  MPI_Comm_size(comm, &size);
  counts = pr_alloc((size_t)size * sizeof *counts);
  for (i = 0; i < size; i++) counts[i] = (int)(items / size + (i < items % size));
  MPI_Reduce_scatter(pr_items(items, type_bytes, 0), pr_items(items, type_bytes, 1), counts, dt, pr_mpi_op(op), comm);
  free(counts);
}

/* Per-member sizes of the "v" collectives are indexed by task; these turn
 * them into MPI's counts and displacements, in communicator rank order. */
PR_UNUSED static int pr_vcounts(const char *members, const int64_t *by_task, int **counts, int **displs, const char *pos)
{
  int64_t i, total = 0;
  int n = 0;
  *counts = pr_alloc((size_t)num_tasks * sizeof **counts);
  *displs = pr_alloc((size_t)num_tasks * sizeof **displs);
  for (i = 0; i < num_tasks; i++) {
    if (!members[i]) continue;
    (*counts)[n] = pr_count_of(by_task[i], pos);
    (*displs)[n] = pr_count_of(total, pos);
    total += by_task[i];
    n++;
  }
  return pr_count_of(total, pos);
}

/* pr_scatter: root sends block bytes[task] (or bytes to all if by_task is
 * NULL) to each member, count times. */
PR_UNUSED static void pr_scatter(MPI_Comm comm, const char *members, int64_t root, int64_t count, int64_t bytes,
                       const int64_t *by_task, const char *pos)
{
  int64_t k;
  int r, size;
  if (comm == MPI_COMM_NULL) return;
  r = pr_rank_in(members, root);
  MPI_Comm_size(comm, &size);
  for (k = 0; k < count; k++) {
    if (by_task == NULL) {
      int n = pr_count_of(bytes, pos);
      MPI_Scatter(pr_buffer(&pr.sendbuf, &pr.sendcap, bytes * size), n, MPI_BYTE,
                  pr_buffer(&pr.recvbuf, &pr.recvcap, bytes), n, MPI_BYTE, r, comm);
    } else {
      int *counts, *displs, total = pr_vcounts(members, by_task, &counts, &displs, pos);
      MPI_Scatterv(pr_buffer(&pr.sendbuf, &pr.sendcap, total), counts, displs, MPI_BYTE,
                   pr_buffer(&pr.recvbuf, &pr.recvcap, by_task[my_task]), (int)by_task[my_task], MPI_BYTE, r, comm);
      free(counts);
      free(displs);
    }
  }
}

/* pr_gather: each member sends its block to root (root < 0: to every
 * member, an allgather), count times. */
PR_UNUSED static void pr_gather(MPI_Comm comm, const char *members, int64_t root, int64_t count, int64_t bytes,
                      const int64_t *by_task, const char *pos)
{
  int64_t k;
  int r = -1, size;
  if (comm == MPI_COMM_NULL) return;
  if (root >= 0) r = pr_rank_in(members, root);
  MPI_Comm_size(comm, &size);
  for (k = 0; k < count; k++) {
    if (by_task == NULL) {
      int n = pr_count_of(bytes, pos);
      char *in = pr_buffer(&pr.sendbuf, &pr.sendcap, bytes), *out = pr_buffer(&pr.recvbuf, &pr.recvcap, bytes * size);
      if (r < 0) MPI_Allgather(in, n, MPI_BYTE, out, n, MPI_BYTE, comm);
      else MPI_Gather(in, n, MPI_BYTE, out, n, MPI_BYTE, r, comm);
    } else {
      int *counts, *displs, total = pr_vcounts(members, by_task, &counts, &displs, pos);
      int n = (int)by_task[my_task];
      char *in = pr_buffer(&pr.sendbuf, &pr.sendcap, n), *out = pr_buffer(&pr.recvbuf, &pr.recvcap, total);
      if (r < 0) MPI_Allgatherv(in, n, MPI_BYTE, out, counts, displs, MPI_BYTE, comm);
      else MPI_Gatherv(in, n, MPI_BYTE, out, counts, displs, MPI_BYTE, r, comm);
      free(counts);
      free(displs);
    }
  }
}

/* pr_alltoall: every member sends bytes to every member, count times. */
PR_UNUSED static void pr_alltoall(MPI_Comm comm, int64_t count, int64_t bytes, const char *pos)
{
  int64_t k;
  int size, n = pr_count_of(bytes, pos);
  if (comm == MPI_COMM_NULL) return;
  MPI_Comm_size(comm, &size);
  for (k = 0; k < count; k++)
    MPI_Alltoall(pr_buffer(&pr.sendbuf, &pr.sendcap, bytes * size), n, MPI_BYTE,
                 pr_buffer(&pr.recvbuf, &pr.recvcap, bytes * size), n, MPI_BYTE, comm);
}

/* pr_alltoallv: send[task] bytes go to each member, recv[task] come from
 * each, count times. */
PR_UNUSED static void pr_alltoallv(MPI_Comm comm, const char *members, int64_t count, const int64_t *send,
                         const int64_t *recv, const char *pos)
{
  int64_t k;
  int *sc, *sd, *rc, *rd, st, rt;
  if (comm == MPI_COMM_NULL) return;
  st = pr_vcounts(members, send, &sc, &sd, pos);
  rt = pr_vcounts(members, recv, &rc, &rd, pos);
  for (k = 0; k < count; k++)
    MPI_Alltoallv(pr_buffer(&pr.sendbuf, &pr.sendcap, st), sc, sd, MPI_BYTE,
                  pr_buffer(&pr.recvbuf, &pr.recvcap, rt), rc, rd, MPI_BYTE, comm);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
}

/* pr_sizes returns a zeroed per-task array for the "v" collectives' sizes;
 * the caller frees it. */
PR_UNUSED static int64_t *pr_sizes(void) { return pr_alloc((size_t)num_tasks * sizeof(int64_t)); }

/* ------------------------------------------------------------------------
 * Compute */

/* pr_compute spins for usecs microseconds: busy, as a computation is. */
PR_UNUSED static void pr_compute(double usecs)
{
  double end = MPI_Wtime() + usecs / 1e6;
  while (MPI_Wtime() < end) {}
}

PR_UNUSED static void pr_sleep(double usecs)
{
  struct timespec ts;
  if (usecs <= 0) return;
  /* Beyond 68 years the seconds may not fit in a time_t: sleep that long. */
  if (usecs > 2147483647e6) usecs = 2147483647e6;
  ts.tv_sec = (time_t)(usecs / 1e6);
  ts.tv_nsec = (long)((usecs - (double)ts.tv_sec * 1e6) * 1e3);
  while (nanosleep(&ts, &ts) != 0) {}
}

PR_UNUSED static double *pr_region(int64_t bytes)
{
  int64_t words = (bytes + 7) / 8;
  if (words > pr.regioncap) {
    free(pr.region);
    pr.region = pr_alloc((size_t)words * 8);
    pr.regioncap = words;
  }
  return pr.region;
}

/* The flops kernel's buffer holds at most this many doubles; more memory
 * traffic means more passes over it. */
#define PR_WORK_WORDS (INT64_C(1) << 22)

/* pr_work does flops floating-point operations while moving bytes of
 * memory: passes over a buffer of doubles, each element read and written
 * (16 bytes), with a share of the multiply-adds (2 flops each) applied to
 * every element. The multiply-adds go over a block of PR_WORK_BLOCK
 * elements (in the first-level cache) one pass per multiply-add, so that
 * the elements' chains are independent and the flops go at the core's
 * throughput, overlapping the memory traffic as the roofline that prices
 * them assumes: one element's chain at a time went at the latency of a
 * multiply-add, 1.6 times the prediction at a halo's 4 an element. The
 * result is kept so the compiler cannot drop the work. */
#define PR_WORK_BLOCK INT64_C(512)
PR_UNUSED static void pr_work(int64_t flops, int64_t bytes)
{
  int64_t elems = bytes / 16, words = elems < PR_WORK_WORDS ? elems : PR_WORK_WORDS, done = 0, i, b, k;
  int64_t per = elems > 0 ? flops / 2 / elems : 0, rest;
  double *a = pr_region(words * 8), acc[PR_WORK_BLOCK] = {0}, sum = 0;
  while (done < elems) {
    int64_t n = elems - done < words ? elems - done : words;
    for (b = 0; b < n; b += PR_WORK_BLOCK) {
      double *x = a + b;
      int64_t m = n - b < PR_WORK_BLOCK ? n - b : PR_WORK_BLOCK;
      for (i = 0; i < m; i++) x[i] += 1.0;
      for (k = 0; k < per; k++)
        for (i = 0; i < m; i++) x[i] = x[i] * 0.999999 + 1e-6;
    }
    done += n;
  }
  /* The flops left over go on PR_WORK_BLOCK chains of their own. */
  rest = flops / 2 - per * elems;
  for (k = 0; k < rest / PR_WORK_BLOCK; k++)
    for (i = 0; i < PR_WORK_BLOCK; i++) acc[i] = acc[i] * 0.999999 + 1e-6;
  for (i = 0; i < rest % PR_WORK_BLOCK; i++) acc[i] = acc[i] * 0.999999 + 1e-6;
  for (i = 0; i < PR_WORK_BLOCK; i++) sum += acc[i];
  pr_sink = sum + (words > 0 ? a[0] : 0);
}

/* pr_touch touches n words of word bytes (read and write) in a region of
 * region bytes, stride words apart (stride 0: random), repeat times; n < 0
 * means the whole region. */
PR_UNUSED static void pr_touch(int64_t region, int64_t n, int64_t word, int64_t stride, int64_t repeat)
{
  int64_t slots = word > 0 ? region / word : 0, r, i, pos = 0;
  uint64_t s = 0x853c49e6748fea9bu;
  char *base = (char *)pr_region(region);
  if (slots <= 0) return;
  if (n < 0) n = slots / (stride > 0 ? stride : 1); /* every word at the stride */
  for (r = 0; r < repeat; r++)
    for (i = 0; i < n; i++) {
      char *p;
      if (stride == 0) pos = (int64_t)(pr_verify_next(&s) % (uint64_t)slots);
      p = base + pos * word;
      p[0]++;
      if (stride != 0) pos = (pos + stride) % slots;
    }
}

/* pr_touch_buffers touches the message buffers (TOUCHES ... MESSAGE
 * BUFFERS). */
PR_UNUSED static void pr_touch_buffers(void)
{
  pr_touch_data(pr.sendbuf, pr.sendcap);
  pr_touch_data(pr.recvbuf, pr.recvcap);
}

/* ------------------------------------------------------------------------
 * Loops */

/* pr_reps runs FOR n REPETITIONS PLUS w WARMUP REPETITIONS [AND A
 * SYNCHRONIZATION]: warmups (outputs off, counters restored afterwards),
 * the barrier, then the counted repetitions. */
typedef struct {
  int64_t left, warm;
  int phase, sync; /* phase 0: warmups, 1: counted */
} pr_reps;

PR_UNUSED static pr_reps pr_reps_begin(int64_t n, int64_t warm, int sync)
{
  pr_reps r;
  r.left = n;
  r.warm = warm;
  r.sync = sync;
  r.phase = 0;
  pr_warmup_begin();
  return r;
}

PR_UNUSED static int pr_reps_next(pr_reps *r)
{
  if (r->phase == 0) {
    if (r->warm > 0) {
      r->warm--;
      return 1;
    }
    if (r->sync) MPI_Barrier(MPI_COMM_WORLD);
    pr_warmup_end();
    r->phase = 1;
  }
  if (r->left > 0) {
    r->left--;
    return 1;
  }
  return 0;
}

/* pr_timed runs FOR t TIME_UNITS: a trial iteration (as a warmup), an
 * all-reduce that agrees on the slowest trial, then max(1, t/trial)
 * iterations after warmup/trial warmups, so every task runs the same
 * number of iterations. */
typedef struct {
  double usecs, warm_usecs, trial_start;
  int phase, sync; /* 0: before the trial, 1: trial running, 2: agreed */
  pr_reps reps;
} pr_timed;

PR_UNUSED static pr_timed pr_timed_begin(double usecs, double warm_usecs, int sync)
{
  pr_timed t;
  memset(&t, 0, sizeof t);
  t.usecs = usecs;
  t.warm_usecs = warm_usecs;
  t.sync = sync;
  pr_warmup_begin();
  return t;
}

/* pr_iterations converts a non-negative number of iterations to an
 * integer, saturating (a conversion out of range is undefined in C). */
PR_UNUSED static int64_t pr_iterations(double n)
{
  return n < 9223372036854775808.0 ? (int64_t)n : INT64_MAX;
}

PR_UNUSED static int pr_timed_next(pr_timed *t)
{
  double trial, slowest;
  switch (t->phase) {
  case 0:
    t->phase = 1;
    t->trial_start = MPI_Wtime();
    return 1;
  case 1:
    trial = (MPI_Wtime() - t->trial_start) * 1e6;
    MPI_Allreduce(&trial, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (slowest < 1e-6) slowest = 1e-6;
    t->reps.left = pr_iterations(t->usecs / slowest);
    if (t->reps.left < 1) t->reps.left = 1;
    t->reps.warm = pr_iterations(t->warm_usecs / slowest);
    t->reps.sync = t->sync;
    t->reps.phase = 0;
    t->phase = 2;
  }
  return pr_reps_next(&t->reps);
}

/* ------------------------------------------------------------------------
 * Ranges in FOR EACH and IS IN */

PR_UNUSED static int pr_in_list(int64_t x, int n, const int64_t *vals)
{
  int i;
  for (i = 0; i < n; i++)
    if (vals[i] == x) return 1;
  return 0;
}

/* ------------------------------------------------------------------------
 * OUTPUTS, ASSERT */

PR_UNUSED static const char *pr_log_comment(const char *key);

/* pr_output prints one line, formatted by the generated code, however
 * long, in one write where stdio can (a pipe keeps writes of up to
 * PIPE_BUF bytes whole), so that tasks' lines do not interleave. */
PR_UNUSED static void pr_output(const char *fmt, ...)
{
  static char *line;
  static size_t cap;
  size_t n;
  va_list ap;
  if (pr.suppress) return;
  va_start(ap, fmt);
  n = pr_vformat(&line, &cap, fmt, ap);
  va_end(ap);
  line[n] = '\n';
  fwrite(line, 1, n + 1, stdout);
  fflush(stdout);
}

/* pr_assert checks an assertion on every task at once; if it fails
 * anywhere, every task writes its log and the program ends. */
PR_UNUSED static void pr_assert(int ok, const char *msg, const char *pos)
{
  int bad = !ok, anybad;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (!anybad) return;
  if (bad) {
    char *status = NULL;
    size_t cap = 0;
    fprintf(stderr, "%s:%s: assertion failed on task %ld: %s\n", pr.prog->file, pos, (long)my_task, msg);
    pr_format(&status, &cap, "Program exited abnormally: assertion failed on task %ld: %s", (long)my_task, msg);
    pr_write_logs(status);
    free(status);
  } else {
    pr_write_logs("Program exited abnormally: an assertion failed on another task.");
  }
  MPI_Finalize();
  exit(1);
}

/* ------------------------------------------------------------------------
 * Logs, in coNCePTuaL's format */

/* pr_table starts the table of a top-level statement, aggregating what
 * the previous one logged. */
PR_UNUSED static void pr_flush(void);

PR_UNUSED static void pr_table_begin(int top)
{
  pr_flush();
  pr.current = top;
}

PR_UNUSED static pr_table *pr_current_table(void)
{
  int i;
  for (i = 0; i < pr.ntables; i++)
    if (pr.tables[i].top == pr.current) return &pr.tables[i];
  pr.tables = realloc(pr.tables, (size_t)(pr.ntables + 1) * sizeof *pr.tables);
  if (pr.tables == NULL) pr_fail("0:0", "out of memory");
  memset(&pr.tables[pr.ntables], 0, sizeof *pr.tables);
  pr.tables[pr.ntables].top = pr.current;
  return &pr.tables[pr.ntables++];
}

/* pr_log records one value of column col (numbered within the table). */
PR_UNUSED static void pr_log(int col, const char *heading, int value_of, int func, double pct, double value)
{
  pr_table *t;
  pr_column *c;
  if (pr.suppress) return;
  t = pr_current_table();
  if (col >= t->ncols) {
    t->cols = realloc(t->cols, (size_t)(col + 1) * sizeof *t->cols);
    if (t->cols == NULL) pr_fail("0:0", "out of memory");
    memset(t->cols + t->ncols, 0, (size_t)(col + 1 - t->ncols) * sizeof *t->cols);
    t->ncols = col + 1;
  }
  c = &t->cols[col];
  if (c->heading == NULL) {
    const char *h = value_of ? pr_log_comment(heading) : heading;
    c->heading = pr_alloc(strlen(h) + 1);
    strcpy(c->heading, h);
    c->func = func;
  }
  c->pct = pct;
  pr_grow(c->raw, c->nraw, c->capraw);
  c->raw[c->nraw++] = value;
}

PR_UNUSED static void pr_cell(pr_column *c, double v)
{
  char buf[64];
  snprintf(buf, sizeof buf, "%.10g", v);
  pr_grow(c->rows, c->nrows, c->caprows);
  c->rows[c->nrows] = pr_alloc(strlen(buf) + 1);
  strcpy(c->rows[c->nrows++], buf);
}

/* pr_cmp_double orders as Go's slices.Sort: NaNs first. */
PR_UNUSED static int pr_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  if (isnan(x) || isnan(y)) return !isnan(x) - !isnan(y);
  return (x > y) - (x < y);
}

PR_UNUSED static double pr_median(double *s, size_t n)
{
  qsort(s, n, sizeof *s, pr_cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

PR_UNUSED static double pr_variance(const double *d, size_t n)
{
  double m = 0, v = 0;
  size_t i;
  if (n <= 1) return 0;
  for (i = 0; i < n; i++) m += d[i];
  m /= (double)n;
  for (i = 0; i < n; i++) v += (d[i] - m) * (d[i] - m);
  return v / (double)(n - 1);
}

/* pr_aggregate reduces a column's values as Parley's logfile.Aggregate. */
PR_UNUSED static double pr_aggregate(pr_column *c)
{
  double *d = c->raw, s = 0, *tmp, v;
  size_t n = c->nraw, i;
  switch (c->func) {
  case PR_MEAN: for (i = 0; i < n; i++) s += d[i]; return s / (double)n;
  case PR_HARMONIC_MEAN: for (i = 0; i < n; i++) s += 1 / d[i]; return (double)n / s;
  case PR_GEOMETRIC_MEAN: for (i = 0; i < n; i++) s += log(d[i]); return exp(s / (double)n);
  case PR_MEDIAN: case PR_MAD: case PR_PERCENTILE:
    tmp = pr_alloc(n * sizeof *tmp);
    memcpy(tmp, d, n * sizeof *tmp);
    if (c->func == PR_PERCENTILE) {
      double h = (double)(n - 1) * c->pct / 100 + 1;
      size_t k = (size_t)floor(h);
      if (c->pct < 0 || c->pct > 100) pr_fail("0:0", "column \"%s\": percentile %g is invalid (it must be from 0 to 100)", c->heading, c->pct);
      qsort(tmp, n, sizeof *tmp, pr_cmp_double);
      v = k >= n ? tmp[n - 1] : tmp[k - 1] + (h - (double)k) * (tmp[k] - tmp[k - 1]);
    } else {
      v = pr_median(tmp, n);
      if (c->func == PR_MAD) {
        for (i = 0; i < n; i++) tmp[i] = fabs(d[i] - v);
        v = pr_median(tmp, n);
      }
    }
    free(tmp);
    return v;
  case PR_STDDEV: return sqrt(pr_variance(d, n));
  case PR_VARIANCE: return pr_variance(d, n);
  case PR_SUM: for (i = 0; i < n; i++) s += d[i]; return s;
  case PR_MINIMUM: v = DBL_MAX; for (i = 0; i < n; i++) if (d[i] < v) v = d[i]; return v;
  case PR_MAXIMUM: v = -DBL_MAX; for (i = 0; i < n; i++) if (d[i] > v) v = d[i]; return v;
  case PR_FINAL: return d[n - 1];
  }
  for (i = 1; i < n; i++)
    if (d[i] != d[0])
      pr_fail("0:0", "column \"%s\": a THE column was logged more than one value (%.10g and %.10g); log it with an aggregate (THE MEAN OF ...) or add COMPUTES AGGREGATES after each value",
              c->heading, d[0], d[i]);
  return d[0];
}

/* pr_flush computes the aggregates of the current table (COMPUTES
 * AGGREGATES, and the end of each top-level statement). */
PR_UNUSED static void pr_flush(void)
{
  int i;
  size_t j, k;
  pr_table *t = NULL;
  for (i = 0; i < pr.ntables; i++)
    if (pr.tables[i].top == pr.current) t = &pr.tables[i];
  if (t == NULL) return;
  for (i = 0; i < t->ncols; i++) {
    pr_column *c = &t->cols[i];
    if (c->nraw == 0) continue;
    if (c->func == PR_ALL_DATA) {
      for (j = 0; j < c->nraw; j++) pr_cell(c, c->raw[j]);
    } else if (c->func == PR_HISTOGRAM) {
      qsort(c->raw, c->nraw, sizeof *c->raw, pr_cmp_double);
      for (j = 0; j < c->nraw; j = k) {
        for (k = j; k < c->nraw && c->raw[k] == c->raw[j]; k++) {}
        pr_cell(c, c->raw[j]);
        pr_cell(c, (double)(k - j));
      }
    } else {
      pr_cell(c, pr_aggregate(c));
    }
    c->nraw = 0;
  }
}

PR_UNUSED static void pr_compute_aggregates(void)
{
  if (!pr.suppress) pr_flush();
}

PR_UNUSED static const char *pr_label(const pr_column *c)
{
  static const char *labels[] = {"(all data)", "(mean)", "(harm. mean)", "(geom. mean)", "(median)",
                                 "(med. abs. dev.)", "(std. dev.)", "(variance)", "(sum)", "(minimum)",
                                 "(maximum)", "(final)", "(only value)", "(hist. values)\",\"(hist. tallies)"};
  static char pct[64];
  if (c->func == PR_PERCENTILE) {
    char num[40];
    const char *suffix = "th";
    size_t n;
    snprintf(num, sizeof num, "%.0f", c->pct);
    n = strlen(num);
    if (!(n >= 2 && num[n - 2] == '1')) {
      switch (num[n - 1]) {
      case '1': suffix = "st"; break;
      case '2': suffix = "nd"; break;
      case '3': suffix = "rd"; break;
      }
    }
    snprintf(pct, sizeof pct, "(%s%s percentile)", num, suffix);
    return pct;
  }
  return labels[c->func];
}

/* pr_quoted writes a heading as Parley's logfile package quotes it: in
 * double quotes, with a backslash before each backslash and quote, as
 * coNCePTuaL does, and each control character (which would split the row)
 * as a backslash and three octal digits. */
PR_UNUSED static void pr_quoted(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc(c, f);
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\%03o", c);
    } else {
      fputc(c, f);
    }
  }
  fputc('"', f);
}

/* pr_comment writes "# key: value" (or "# value" without a key) on one
 * line, as Parley's logfile package does: control characters become
 * spaces. */
PR_UNUSED static void pr_comment(FILE *f, const char *key, const char *value)
{
  int part;
  fputs("# ", f);
  for (part = key == NULL; part < 2; part++) {
    const char *s = part == 0 ? key : value;
    for (; *s; s++) {
      unsigned char c = (unsigned char)*s;
      fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
    }
    if (part == 0) fputs(": ", f);
  }
  fputc('\n', f);
}

PR_UNUSED static void pr_write_table(FILE *f, const pr_table *t)
{
  int i;
  size_t r, rows = 0;
  for (i = 0; i < t->ncols; i++) {
    const pr_column *c = &t->cols[i];
    size_t n = c->func == PR_HISTOGRAM ? c->nrows / 2 : c->nrows;
    if (c->heading == NULL) continue;
    if (n > rows) rows = n;
  }
  for (i = 0; i < t->ncols; i++) {
    const pr_column *c = &t->cols[i];
    if (c->heading == NULL) continue;
    if (i > 0) fputc(',', f);
    pr_quoted(f, c->heading);
    if (c->func == PR_HISTOGRAM) fputc(',', f), pr_quoted(f, c->heading);
  }
  fputc('\n', f);
  for (i = 0; i < t->ncols; i++) {
    if (t->cols[i].heading == NULL) continue;
    fprintf(f, "%s\"%s\"", i > 0 ? "," : "", pr_label(&t->cols[i]));
  }
  fputc('\n', f);
  for (r = 0; r < rows; r++) {
    for (i = 0; i < t->ncols; i++) {
      const pr_column *c = &t->cols[i];
      if (c->heading == NULL) continue;
      if (i > 0) fputc(',', f);
      if (c->func == PR_HISTOGRAM) {
        if (2 * r + 1 < c->nrows) fprintf(f, "%s,%s", c->rows[2 * r], c->rows[2 * r + 1]);
        else fputc(',', f);
      } else if (r < c->nrows) {
        fputs(c->rows[r], f);
      }
    }
    fputc('\n', f);
  }
}

#define PR_RULE "###########################################################################"

/* pr_header_value is the log header's value for key, or NULL. */
PR_UNUSED static const char *pr_header_value(const char *key, char *buf, size_t size)
{
  int i;
  if (strcmp(key, "coNCePTuaL backend") == 0) return "parley c+mpi (measured times)";
  if (strcmp(key, "Timing") == 0) return "measured with MPI_Wtime";
  if (strcmp(key, "Platform") == 0) return "the machine it ran on";
  if (strcmp(key, "Microsecond timer type") == 0) return "MPI_Wtime";
  if (strcmp(key, "Program") == 0) return pr.prog->file;
  if (strcmp(key, "Unique execution identifier") == 0) return pr.run_id;
  if (strcmp(key, "Host name") == 0) return pr.host;
  if (strcmp(key, "Number of tasks") == 0) { snprintf(buf, size, "%ld", (long)num_tasks); return buf; }
  if (strcmp(key, "Rank (0<=P<tasks)") == 0) { snprintf(buf, size, "%d", pr.rank); return buf; }
  if (strcmp(key, "Random-number seed") == 0) { snprintf(buf, size, "%lu", (unsigned long)pr.seed); return buf; }
  if (strcmp(key, "Average timer overhead [elapsed_usecs]") == 0) { snprintf(buf, size, "%.10g", pr.timer_overhead); return buf; }
  if (strcmp(key, "Timer increment [elapsed_usecs]") == 0) { snprintf(buf, size, "%.10g", pr.timer_tick); return buf; }
  for (i = 0; i < pr.prog->nparams; i++)
    if (strcmp(key, pr.prog->params[i].help) == 0) {
      snprintf(buf, size, "%ld", (long)*pr.prog->params[i].value);
      return buf;
    }
  return NULL;
}

/* The header keys, in the interpreter's order. */
static const char *pr_header_keys[] = {
    "coNCePTuaL backend", "Timing", "Platform", "Number of tasks", "Rank (0<=P<tasks)", "Host name",
    "Microsecond timer type", "Average timer overhead [elapsed_usecs]", "Timer increment [elapsed_usecs]",
    "Random-number seed", "Program", "Unique execution identifier", NULL};

/* pr_log_comment looks up THE VALUE OF key among the log-file comments,
 * then the environment; unknown keys are empty. */
PR_UNUSED static const char *pr_log_comment(const char *key)
{
  static char buf[256];
  const char *v = pr_header_value(key, buf, sizeof buf), *env;
  if (v != NULL) return v;
  env = getenv(key);
  return env ? env : "";
}

PR_UNUSED static void pr_write_logs(const char *status)
{
  char *path = NULL, buf[256];
  size_t cap = 0;
  const char *s;
  FILE *f;
  int i;
  if (!pr.prog->logs) return;
  pr_flush();
  /* pr_option has checked that the template converts the rank alone. */
  if (pr.logname != NULL) pr_format(&path, &cap, pr.logname, pr.rank);
  else pr_format(&path, &cap, "%s-%d.log", pr.prog->name, pr.rank);
  f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "%s: cannot write the log %s: %s\n", pr.prog->name, path, strerror(errno));
    free(path);
    return;
  }
  free(path);
  fprintf(f, PR_RULE "\n# ===================\n# coNCePTuaL log file\n# ===================\n");
  for (i = 0; pr_header_keys[i] != NULL; i++)
    pr_comment(f, pr_header_keys[i], pr_header_value(pr_header_keys[i], buf, sizeof buf));
  for (i = 0; i < pr.prog->nparams; i++) {
    snprintf(buf, sizeof buf, "%ld", (long)*pr.prog->params[i].value);
    pr_comment(f, pr.prog->params[i].help, buf);
  }
  fprintf(f, "#\n# coNCePTuaL source code\n# ----------------------\n#     ");
  for (s = pr.prog->source; *s; s++) {
    if (*s == '\n' && s[1] == '\0') break;
    fputc(*s, f);
    if (*s == '\n') fputs("#     ", f);
  }
  fprintf(f, "\n#\n" PR_RULE "\n");
  for (i = 0; i < pr.ntables; i++) {
    if (i > 0) fputc('\n', f);
    pr_write_table(f, &pr.tables[i]);
  }
  fprintf(f, PR_RULE "\n");
  pr_comment(f, NULL, status);
  fprintf(f, "# Elapsed time: %.10g seconds\n", MPI_Wtime() - pr.started);
  fprintf(f, "# Messages sent: %ld\n# Messages received: %ld\n# Bytes sent: %ld\n# Bytes received: %ld\n",
          (long)pr.total_msgs_sent, (long)pr.total_msgs_received, (long)pr.total_bytes_sent,
          (long)pr.total_bytes_received);
  fprintf(f, PR_RULE "\n");
  fclose(f);
}
