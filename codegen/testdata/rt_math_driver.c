/*
 * rt_math_driver.c: runs rt_math.h's functions on commands read from
 * stdin, one a line ("mod -7 3"), and prints one result line for each
 * (several for the stream commands). Integers are decimal; doubles are
 * given and printed as their 16 hex-digit bit patterns, "nan" for any NaN.
 * Errors print "FAIL pos: msg"; pr_fail then jumps back to the command
 * loop rather than exiting, so that one run checks every error case.
 * Used by rt_math_test.go.
 */
#include "rt_math.h"

#include <setjmp.h>
#include <stdarg.h>

static jmp_buf pr_driver_env;

static void pr_fail(const char *pos, const char *fmt, ...) {
	va_list ap;
	printf("FAIL %s: ", pos);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	longjmp(pr_driver_env, 1);
}

#define POS "t.parley:1:2"
#define MAXARGS 64

static char *args[MAXARGS];
static int nargs;

static int64_t I(int i) { return strtoll(args[i], NULL, 10); }
static double F(int i) { return pr_f64from(strtoull(args[i], NULL, 16)); }
static double FIN(int i, const char *what) { return pr_fin(F(i), what, POS); }
static void out_i(int64_t v) { printf("%" PRId64 "\n", v); }
static void out_f(double v) {
	if (v != v)
		printf("nan\n");
	else
		printf("%016" PRIx64 "\n", pr_f64bits(v));
}

/* rng_for seeds a task's own stream ("task") or the shared one ("sync")
 * as rt_core.h does. */
static void rng_for(pr_pcg *r, const char *which, uint64_t seed, int64_t task) {
	if (strcmp(which, "sync") == 0)
		pr_pcg_seed(r, seed, 0x5eed);
	else
		pr_pcg_seed(r, seed, (uint64_t)task * UINT64_C(0x9e3779b97f4a7c15) + 1);
}

static void run(const char *op) {
	int64_t iv[MAXARGS] = {0}, dims[3], offs[3], v, n, k;
	double fv[MAXARGS] = {0};
	int torus[3], i;
	pr_pcg rng;
	pr_vals vals = {0};

	/* Integer operators and functions. */
	if (!strcmp(op, "div")) out_i(pr_div(I(1), I(2), POS));
	else if (!strcmp(op, "mod")) out_i(pr_mod(I(1), I(2), POS));
	else if (!strcmp(op, "shl")) out_i(pr_shl(I(1), I(2)));
	else if (!strcmp(op, "shr")) out_i(pr_shr(I(1), I(2)));
	else if (!strcmp(op, "ipow")) out_i(pr_ipow(I(1), I(2), POS));
	else if (!strcmp(op, "abs")) out_i(pr_abs(I(1), POS));
	else if (!strcmp(op, "bits")) out_i(pr_bits(I(1)));
	else if (!strcmp(op, "cbrt")) out_i(pr_cbrt(I(1), POS));
	else if (!strcmp(op, "sqrt")) out_i(pr_sqrt(I(1), POS));
	else if (!strcmp(op, "root")) out_i(pr_root(I(1), I(2), POS));
	else if (!strcmp(op, "count")) out_i(pr_count(I(1), POS));
	else if (!strcmp(op, "size")) out_i(pr_size(I(1), I(2), POS));
	else if (!strcmp(op, "usecs")) out_f(pr_usecs(I(1), I(2), POS));
	else if (!strcmp(op, "log10")) out_i(pr_log10(I(1), POS));
	else if (!strcmp(op, "factor10")) out_i(pr_factor10(I(1)));
	else if (!strcmp(op, "tree_parent")) out_i(pr_tree_parent(I(1), I(2), POS));
	else if (!strcmp(op, "tree_child")) out_i(pr_tree_child(I(1), I(2), I(3), POS));
	else if (!strcmp(op, "knomial_parent")) out_i(pr_knomial_parent(I(1), I(2), I(3), POS));
	else if (!strcmp(op, "knomial_children")) out_i(pr_knomial_children(I(1), I(2), I(3), POS));
	else if (!strcmp(op, "knomial_child")) out_i(pr_knomial_child(I(1), I(2), I(3), I(4), POS));
	else if (!strncmp(op, "mesh_", 5)) {
		/* mesh_* d0 d1 d2 torus0 torus1 torus2 task [o0 o1 o2 | arg] */
		for (i = 0; i < 3; i++) {
			dims[i] = I(1 + i);
			torus[i] = (int)I(4 + i);
		}
		if (!strcmp(op, "mesh_neighbor")) {
			for (i = 0; i < 3; i++)
				offs[i] = I(8 + i);
			out_i(pr_mesh_neighbor(dims, torus, I(7), offs, POS));
		} else if (!strcmp(op, "mesh_coordinate")) {
			out_i(pr_mesh_coordinate(dims, I(7), I(8), POS));
		} else {
			out_i(pr_mesh_distance(dims, torus, I(7), I(8), POS));
		}
	}
	/* Floating-point operators and functions, as codegen writes them:
	 * FIN(x, what) is an operand that must be finite. */
	else if (!strcmp(op, "fdiv")) out_f(F(1) / F(2));
	else if (!strcmp(op, "fpow")) out_f(pr_fpow(F(1), F(2), POS));
	else if (!strcmp(op, "fmod")) out_f(pr_fintop(PR_FMOD, F(1), F(2), POS));
	else if (!strcmp(op, "fshl")) out_f(pr_fintop(PR_FSHL, F(1), F(2), POS));
	else if (!strcmp(op, "fshr")) out_f(pr_fintop(PR_FSHR, F(1), F(2), POS));
	else if (!strcmp(op, "fand")) out_f(pr_fintop(PR_FAND, F(1), F(2), POS));
	else if (!strcmp(op, "for")) out_f(pr_fintop(PR_FOR, F(1), F(2), POS));
	else if (!strcmp(op, "fxor")) out_f(pr_fintop(PR_FXOR, F(1), F(2), POS));
	else if (!strcmp(op, "fnot")) out_f((double)~pr_trunc(FIN(1, "NOT")));
	else if (!strcmp(op, "trunc")) out_i(pr_trunc(F(1)));
	else if (!strcmp(op, "round_to_int")) out_i(pr_round_to_int(F(1), POS));
	else if (!strcmp(op, "ceil")) out_f(ceil(FIN(1, "CEILING")));
	else if (!strcmp(op, "floor")) out_f(floor(FIN(1, "FLOOR")));
	else if (!strcmp(op, "round")) out_f(round(FIN(1, "ROUND")));
	else if (!strcmp(op, "go_exp")) out_f(pr_go_exp(F(1)));
	else if (!strcmp(op, "go_log")) out_f(pr_go_log(F(1)));
	else if (!strcmp(op, "go_log10")) out_f(pr_go_log10(F(1)));
	else if (!strcmp(op, "go_log1p")) out_f(pr_go_log1p(F(1)));
	else if (!strcmp(op, "go_cbrt")) out_f(pr_go_cbrt(F(1)));
	else if (!strcmp(op, "go_pow")) out_f(pr_go_pow(F(1), F(2)));
	else if (!strcmp(op, "fabs")) out_f(fabs(FIN(1, "ABS")));
	else if (!strcmp(op, "fcbrt")) out_f(pr_fcbrt(FIN(1, "CBRT"), POS));
	else if (!strcmp(op, "fsqrt")) out_f(pr_fsqrt(FIN(1, "SQRT"), POS));
	else if (!strcmp(op, "froot")) {
		double n = FIN(1, "ROOT"), x = FIN(2, "ROOT"); /* in Go's order */
		out_f(pr_froot(n, x, POS));
	}
	else if (!strcmp(op, "flog10")) out_f(pr_flog10(FIN(1, "LOG10")));
	else if (!strcmp(op, "factor10f")) out_f(pr_factor10f(FIN(1, "FACTOR10")));
	else if (!strcmp(op, "fmtg")) {
		char buf[PR_GBUF];
		printf("%s\n", pr_fmt_g(buf, F(1)));
	}
	/* Random numbers: OP task|sync seed task count args... */
	else if (!strncmp(op, "rand_", 5)) {
		rng_for(&rng, args[1], strtoull(args[2], NULL, 10), I(3));
		n = I(4);
		for (k = 0; k < n; k++) {
			if (!strcmp(op, "rand_uint64")) printf("%016" PRIx64 "\n", pr_pcg_uint64(&rng));
			else if (!strcmp(op, "rand_float64")) out_f(pr_pcg_float64(&rng));
			else if (!strcmp(op, "rand_norm")) out_f(pr_pcg_norm(&rng));
			else if (!strcmp(op, "rand_uniform_int")) out_i(pr_random_uniform_int(&rng, I(5), I(6), POS));
			else if (!strcmp(op, "rand_uniform_float")) {
				double lo = FIN(5, "RANDOM_UNIFORM"), hi = FIN(6, "RANDOM_UNIFORM");
				out_f(pr_random_uniform_float(&rng, lo, hi, POS));
			}
			else if (!strcmp(op, "rand_gaussian_int")) out_i(pr_random_gaussian_int(&rng, I(5), I(6)));
			else if (!strcmp(op, "rand_gaussian_float")) {
				double mean = FIN(5, "RANDOM_GAUSSIAN"), sd = FIN(6, "RANDOM_GAUSSIAN");
				out_f(pr_random_gaussian_float(&rng, mean, sd));
			}
			else if (!strcmp(op, "rand_poisson")) out_i(pr_random_poisson(&rng, I(5), POS));
			else if (!strcmp(op, "rand_fpoisson")) out_f(pr_frandom_poisson(&rng, FIN(5, "RANDOM_POISSON"), POS));
			else if (!strcmp(op, "rand_pareto_int")) out_i(pr_random_pareto_int(&rng, I(5), I(6), I(7), POS));
			else if (!strcmp(op, "rand_pareto_float")) {
				double shape = FIN(5, "RANDOM_PARETO"), low = FIN(6, "RANDOM_PARETO"), high = FIN(7, "RANDOM_PARETO");
				out_f(pr_random_pareto_float(&rng, shape, low, high, POS));
			}
			else printf("unknown %s\n", op);
		}
	}
	/* Progressions: prog|prog_contains n i1..in end f1..fn fend [v].
	 * prog prints the number of values, then the values. */
	else if (!strncmp(op, "prog", 4)) {
		n = I(1);
		for (i = 0; i < n; i++) {
			iv[i] = I(2 + i);
			fv[i] = F(3 + (int)n + i);
		}
		if (!strcmp(op, "prog")) {
			pr_vals_push(&vals, 42); /* pr_prog appends */
			pr_prog(&vals, (int)n, iv, I(2 + (int)n), fv, F(3 + 2 * (int)n), POS);
			printf("%zu", vals.n - 1);
			for (i = 1; i < (int)vals.n; i++)
				printf(" %" PRId64, vals.v[i]);
			printf("\n");
			for (i = 1; i < (int)vals.n; i++)
				if (!pr_vals_contains(&vals, vals.v[i]))
					printf("bad list\n");
			v = vals.v[0];
			pr_vals_clear(&vals);
			if (v != 42 || vals.n != 0 || pr_vals_contains(&vals, 42))
				printf("bad list\n");
			pr_vals_free(&vals);
		} else {
			out_i(pr_prog_contains((int)n, iv, I(2 + (int)n), fv, F(3 + 2 * (int)n), I(4 + 2 * (int)n), POS));
		}
	}
	else if (!strcmp(op, "nofma")) { pr_exp_fma = 0; printf("ok\n"); }
	else if (!strcmp(op, "fma")) out_i(pr_use_fma());
	else printf("unknown %s\n", op);
}

int main(void) {
	static char line[1 << 16];
	while (fgets(line, sizeof line, stdin)) {
		char *tok = strtok(line, " \n");
		if (tok == NULL)
			continue;
		for (nargs = 0; tok != NULL && nargs < MAXARGS; tok = strtok(NULL, " \n"))
			args[nargs++] = tok;
		if (setjmp(pr_driver_env) == 0)
			run(args[0]);
	}
	return 0;
}
