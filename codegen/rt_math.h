/*
 * rt_math.h: the arithmetic, built-in functions, random numbers and
 * progressions of the Parley language, ported from the Go interpreter
 * (ir/expr.go, ir/funcs.go, ir/ranges.go, ir/frame.go) so that compiled
 * programs compute bit for bit what the interpreter computes.
 *
 * The reference is Go on linux/amd64 built for GOAMD64=v1 (the default):
 * there Go rounds every floating-point operation (no fused multiply-add),
 * math.Exp and math.Log are assembly routines (ported below, Exp with the
 * FMA path Go picks on CPUs with AVX and FMA), and converting an
 * out-of-range float to int64 gives 0x8000000000000000 (pr_trunc).
 * Go's math.Pow, Cbrt and Log10 are ported too: they are not glibc's.
 *
 * Compile as C99 without -ffast-math on a target that evaluates doubles
 * in double precision (x86-64, AArch64). This header turns off
 * floating-point contraction (fused multiply-add) for the rest of the
 * translation unit, which the generated code needs as well.
 *
 * Errors go to pr_fail (defined by the rest of the run-time) with the
 * interpreter's messages. Signed overflow wraps as in Go: it is done in
 * uint64_t, and converting back to int64_t relies on the two's-complement
 * conversion every C99 compiler for these targets implements.
 */
#ifndef PARLEY_RT_MATH_H
#define PARLEY_RT_MATH_H

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PR_UNUSED
#define PR_UNUSED __attribute__((unused))
#endif

#ifdef __FAST_MATH__
#error "rt_math.h needs IEEE arithmetic: do not compile with -ffast-math"
#endif
#if FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 16 /* 16: also _Float16 as itself */
#error "rt_math.h needs doubles evaluated as doubles (FLT_EVAL_METHOD 0), not in x87 registers"
#endif
/* Go rounds a*b+c twice; compilers may fuse it where the target has FMA
 * (GCC in GNU modes or with -ffp-contract=fast, Clang by default). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

static void pr_fail(const char *pos, const char *fmt, ...);

/* ---- Helpers ---- */

/* Go's wrapping int64 arithmetic. */
static PR_UNUSED int64_t pr_wadd(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
static PR_UNUSED int64_t pr_wsub(int64_t x, int64_t y) { return (int64_t)((uint64_t)x - (uint64_t)y); }
static PR_UNUSED int64_t pr_wmul(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }
static PR_UNUSED int64_t pr_wneg(int64_t x) { return (int64_t)(0 - (uint64_t)x); }

/* Go's x / y for y != 0: MinInt64 / -1 is MinInt64, not a trap. */
static PR_UNUSED int64_t pr_quo(int64_t x, int64_t y) { return y == -1 ? pr_wneg(x) : x / y; }

/* math.Float64bits and math.Float64frombits. */
static PR_UNUSED uint64_t pr_f64bits(double x) {
	uint64_t b;
	memcpy(&b, &x, sizeof b);
	return b;
}
static PR_UNUSED double pr_f64from(uint64_t b) {
	double x;
	memcpy(&x, &b, sizeof x);
	return x;
}

#define PR_NAN pr_f64from(UINT64_C(0x7FF8000000000001)) /* math.NaN() */

/* Buffer size for pr_fmt_g. */
#define PR_GBUF 32

/* pr_fmt_g formats x as Go's fmt %g does, so that error messages match the
 * interpreter's: the fewest digits that read back as x (the nearer of two
 * candidates, ties to even), in e-notation for exponents below -4 or from
 * 6 up. */
static PR_UNUSED const char *pr_fmt_g(char *buf, double x) {
	char ex[800], cand[2][20], s[40], *o = buf;
	const char *d, *rem;
	int p, i, e10, ecand[2], ok[2], pick;
	if (x != x)
		return strcpy(buf, "NaN");
	if (isinf(x))
		return strcpy(buf, x > 0 ? "+Inf" : "-Inf");
	/* |x| exactly (a double has at most 767 significant digits), with its
	 * digits made contiguous from ex + 1. */
	snprintf(ex, sizeof ex, "%.766e", fabs(x));
	e10 = atoi(strchr(ex, 'e') + 1);
	ex[1] = ex[0];
	for (p = 1;; p++) {
		/* |x| truncated to p digits, and one unit in the last place more. */
		for (i = 0; i < 2; i++) {
			memcpy(cand[i], ex + 1, (size_t)p);
			cand[i][p] = 0;
			ecand[i] = e10;
		}
		for (i = p - 1; i >= 0 && cand[1][i] == '9'; i--)
			cand[1][i] = '0';
		if (i >= 0) {
			cand[1][i]++;
		} else {
			cand[1][0] = '1';
			ecand[1]++;
		}
		for (i = 0; i < 2; i++) {
			snprintf(s, sizeof s, "%c.%se%d", cand[i][0], cand[i] + 1, ecand[i]);
			ok[i] = strtod(s, NULL) == fabs(x);
		}
		if (ok[0] || ok[1])
			break;
	}
	pick = ok[1];
	if (ok[0] && ok[1]) {
		/* Compare the dropped digits with one half. */
		rem = ex + 1 + p;
		for (i = 1; rem[i] == '0'; i++)
			;
		pick = *rem > '5' || (*rem == '5' && (rem[i] != 'e' || (cand[0][p - 1] - '0') % 2 == 1));
	}
	d = cand[pick];
	e10 = ecand[pick];
	if (signbit(x))
		*o++ = '-';
	if (e10 < -4 || e10 >= 6) {
		*o++ = d[0];
		if (p > 1)
			o += sprintf(o, ".%s", d + 1);
		sprintf(o, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
	} else if (e10 < 0) {
		sprintf(o, "0.%.*s%s", -e10 - 1, "000", d);
	} else {
		for (i = 0; i <= e10; i++)
			*o++ = i < p ? d[i] : '0';
		if (p > e10 + 1)
			sprintf(o, ".%s", d + e10 + 1);
		else
			*o = 0;
	}
	return buf;
}

/* pr_trunc is Go's int64(x) on amd64: NaN and out-of-range values give
 * MinInt64. Use it for every float-to-integer conversion. */
static PR_UNUSED int64_t pr_trunc(double x) {
	if (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
		return (int64_t)x;
	return INT64_MIN;
}

/* REAL in integer context: int64(math.Round(x)), which must fit. C's
 * round, like Go's, rounds half away from zero; ceil and floor match
 * math.Ceil and Floor. */
static PR_UNUSED int64_t pr_round_to_int(double x, const char *pos) {
	char b[PR_GBUF];
	x = round(x);
	if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) {
		pr_fail(pos, "REAL(%s) does not fit in a 64-bit integer (an integer context needs one)", pr_fmt_g(b, x));
		return 0;
	}
	return (int64_t)x;
}

/* ---- Go's math package on amd64 ---- */

/* pr_exp_fma is Go's math.useFMA (AVX and FMA present): -1 until detected
 * on first use; set it to 0 to mimic GODEBUG=cpu.fma=off. */
static PR_UNUSED int pr_exp_fma = -1;

static PR_UNUSED int pr_use_fma(void) {
	if (pr_exp_fma < 0) {
#if defined(__x86_64__) && defined(__GNUC__)
		pr_exp_fma = __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
#else
		pr_exp_fma = 0;
#endif
	}
	return pr_exp_fma;
}

/* math.Exp: Go's exp_amd64.s, both its paths. */
static PR_UNUSED double pr_go_exp(double x) {
	const double LOG2E = 1.4426950408889634073599246810018920;
	const double LN2U = 0.69314718055966295651160180568695068359375;
	const double LN2L = 0.28235290563031577122588448175013436025525412068e-12;
	const double OVERFLOW = 7.09782712893384e+02;
	const double P2 = 1.6666666666666666667e-1, P3 = 4.1666666666666666667e-2;
	const double P4 = 8.3333333333333333333e-3, P5 = 1.3888888888888888889e-3;
	const double P6 = 1.9841269841269841270e-4, P7 = 2.4801587301587301587e-5;
	uint64_t b = pr_f64bits(x);
	double t, kd, r, p;
	int32_t k, e;
	if ((b & ~(UINT64_C(1) << 63)) >= UINT64_C(0x7FF0000000000000))
		return b == UINT64_C(0xFFF0000000000000) ? 0 : x; /* -Inf, +Inf or NaN */
	if (x > OVERFLOW)
		return HUGE_VAL;
	/* CVTSD2SL: round to nearest even; out of range gives INT32_MIN. */
	t = LOG2E * x;
	k = t > -2147483648.0 ? (int32_t)rint(t) : INT32_MIN;
	kd = k;
	if (pr_use_fma()) {
		r = fma(-kd, LN2U, x);
		r = fma(-kd, LN2L, r);
		r *= 0.0625;
		p = fma(P7, r, P6);
		p = fma(p, r, P5);
		p = fma(p, r, P4);
		p = fma(p, r, P3);
		p = fma(p, r, P2);
		p = fma(p, r, 0.5);
		p = fma(p, r, 1.0);
		r *= p;
		r *= r + 2;
		r *= r + 2;
		r *= r + 2;
		r = fma(r + 2, r, 1.0);
	} else {
		r = x - LN2U * kd;
		r = r - LN2L * kd;
		r *= 0.0625;
		p = ((((((P7 * r + P6) * r + P5) * r + P4) * r + P3) * r + P2) * r + 0.5) * r + 1.0;
		r *= p;
		r *= r + 2;
		r *= r + 2;
		r *= r + 2;
		r *= r + 2;
		r += 1.0;
	}
	/* r * 2**k, in two steps for subnormal results. */
	e = k + 0x3FF;
	if (e <= 0) {
		if (e < -52)
			return 0;
		r *= pr_f64from((uint64_t)(e + 0x3FE) << 52);
		e = 1;
	} else if (e >= 0x7FF) {
		return HUGE_VAL;
	}
	return r * pr_f64from((uint64_t)e << 52);
}

/* math.Log: Go's log_amd64.s (whose frexp does not normalize subnormals). */
static PR_UNUSED double pr_go_log(double x) {
	const double HSQRT2 = 7.07106781186547524401e-01;
	const double LN2HI = 6.93147180369123816490e-01, LN2LO = 1.90821492927058770002e-10;
	const double L1 = 6.666666666666735130e-01, L2 = 3.999999999940941908e-01;
	const double L3 = 2.857142874366239149e-01, L4 = 2.222219843214978396e-01;
	const double L5 = 1.818357216161805012e-01, L6 = 1.531383769920937332e-01;
	const double L7 = 1.479819860511658591e-01;
	uint64_t b = pr_f64bits(x);
	double f1, k, f, s, s2, s4, t1, t2, r, hfsq;
	if ((b & ~(UINT64_C(1) << 63)) == 0)
		return -HUGE_VAL;
	if (b >> 63)
		return PR_NAN;
	if (b >= UINT64_C(0x7FF0000000000000))
		return x; /* +Inf or NaN */
	f1 = pr_f64from((b & UINT64_C(0x000FFFFFFFFFFFFF)) | UINT64_C(0x3FE0000000000000));
	k = (double)((int)((b >> 52) & 0x7FF) - 0x3FE);
	if (f1 <= HSQRT2) {
		k -= 1;
		f1 *= 2;
	}
	f = f1 - 1;
	s = f / (2 + f);
	s2 = s * s;
	s4 = s2 * s2;
	t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
	t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
	r = t1 + t2;
	hfsq = 0.5 * f * f;
	return k * LN2HI - ((hfsq - (s * (hfsq + r) + k * LN2LO)) - f);
}

/* math.Log10. */
static PR_UNUSED double pr_go_log10(double x) {
	return pr_go_log(x) * 0x1.bcb7b1526e50ep-2; /* 1/Ln10 */
}

/* math.Log1p (log1p.go, pure Go on amd64). */
static PR_UNUSED double pr_go_log1p(double x) {
	const double SQRT2M1 = 4.142135623730950488017e-01, SQRT2HALFM1 = -2.928932188134524755992e-01;
	const double SMALL = 0x1p-29, TINY = 0x1p-54, TWO53 = 0x1p53;
	const double LN2HI = 6.93147180369123816490e-01, LN2LO = 1.90821492927058770002e-10;
	const double LP1 = 6.666666666666735130e-01, LP2 = 3.999999999940941908e-01;
	const double LP3 = 2.857142874366239149e-01, LP4 = 2.222219843214978396e-01;
	const double LP5 = 1.818357216161805012e-01, LP6 = 1.531383769920937332e-01;
	const double LP7 = 1.479819860511658591e-01;
	double absx, f = 0, c = 0, u, hfsq, s, r, z;
	uint64_t iu = 0;
	int k = 1;
	if (x < -1 || x != x)
		return PR_NAN;
	if (x == -1)
		return -HUGE_VAL;
	if (isinf(x))
		return HUGE_VAL;
	absx = fabs(x);
	if (absx < SQRT2M1) {
		if (absx < SMALL) {
			if (absx < TINY)
				return x;
			return x - x * x * 0.5;
		}
		if (x > SQRT2HALFM1) {
			k = 0;
			f = x;
			iu = 1;
		}
	}
	if (k != 0) {
		if (absx < TWO53) {
			u = 1.0 + x;
			iu = pr_f64bits(u);
			k = (int)((iu >> 52) - 1023);
			if (k > 0)
				c = 1.0 - (u - x);
			else
				c = x - (u - 1.0);
			c /= u;
		} else {
			u = x;
			iu = pr_f64bits(u);
			k = (int)((iu >> 52) - 1023);
			c = 0;
		}
		iu &= UINT64_C(0x000fffffffffffff);
		if (iu < UINT64_C(0x0006a09e667f3bcd)) {
			u = pr_f64from(iu | UINT64_C(0x3ff0000000000000));
		} else {
			k++;
			u = pr_f64from(iu | UINT64_C(0x3fe0000000000000));
			iu = (UINT64_C(0x0010000000000000) - iu) >> 2;
		}
		f = u - 1.0;
	}
	hfsq = 0.5 * f * f;
	if (iu == 0) {
		if (f == 0) {
			if (k == 0)
				return 0;
			c += (double)k * LN2LO;
			return (double)k * LN2HI + c;
		}
		r = hfsq * (1.0 - 0.66666666666666666 * f);
		if (k == 0)
			return f - r;
		return (double)k * LN2HI - ((r - ((double)k * LN2LO + c)) - f);
	}
	s = f / (2.0 + f);
	z = s * s;
	r = z * (LP1 + z * (LP2 + z * (LP3 + z * (LP4 + z * (LP5 + z * (LP6 + z * LP7))))));
	if (k == 0)
		return f - (hfsq - s * (hfsq + r));
	return (double)k * LN2HI - ((hfsq - (s * (hfsq + r) + ((double)k * LN2LO + c))) - f);
}

/* math.Cbrt (cbrt.go). */
static PR_UNUSED double pr_go_cbrt(double x) {
	const uint64_t B1 = 715094163, B2 = 696219795;
	const double C = 5.42857142857142815906e-01, D = -7.05306122448979611050e-01;
	const double E = 1.41428571428571436819e+00, F = 1.60714285714285720630e+00;
	const double G = 3.57142857142857150787e-01;
	const double SMALLEST_NORMAL = 2.22507385850720138309e-308;
	double t, r, s, w;
	int sign = 0;
	if (x == 0 || x != x || isinf(x))
		return x;
	if (x < 0) {
		x = -x;
		sign = 1;
	}
	t = pr_f64from(pr_f64bits(x) / 3 + (B1 << 32));
	if (x < SMALLEST_NORMAL) {
		t = 18014398509481984.0; /* 2**54 */
		t *= x;
		t = pr_f64from(pr_f64bits(t) / 3 + (B2 << 32));
	}
	r = t * t / x;
	s = C + r * t;
	t *= G + F / (s + E + D / s);
	t = pr_f64from((pr_f64bits(t) & (UINT64_C(0xFFFFFFFFC) << 28)) + (UINT64_C(1) << 30));
	s = t * t;
	r = x / s;
	w = t + t;
	r = (r - t) / (w + r);
	t = t + t * r;
	return sign ? -t : t;
}

/* pow.go's isOddInt. */
static PR_UNUSED int pr_go_is_odd_int(double x) {
	double xi, xf;
	if (fabs(x) >= 9007199254740992.0)
		return 0;
	xf = modf(x, &xi);
	return xf == 0 && ((int64_t)xi & 1) == 1;
}

/* math.Pow (pow.go). */
static PR_UNUSED double pr_go_pow(double x, double y) {
	double yi, yf, a1, x1;
	int ae, xe;
	int64_t i;
	if (y == 0 || x == 1)
		return 1;
	if (y == 1)
		return x;
	if (x != x || y != y)
		return PR_NAN;
	if (x == 0) {
		if (y < 0)
			return signbit(x) && pr_go_is_odd_int(y) ? -HUGE_VAL : HUGE_VAL;
		return signbit(x) && pr_go_is_odd_int(y) ? x : 0;
	}
	if (isinf(y)) {
		if (x == -1)
			return 1;
		if ((fabs(x) < 1) == (y > 0))
			return 0;
		return HUGE_VAL;
	}
	if (isinf(x)) {
		if (x < 0)
			return pr_go_pow(1 / x, -y);
		return y < 0 ? 0 : HUGE_VAL;
	}
	if (y == 0.5)
		return sqrt(x);
	if (y == -0.5)
		return 1 / sqrt(x);
	yf = modf(fabs(y), &yi);
	if (yf != 0 && x < 0)
		return PR_NAN;
	if (yi >= 9223372036854775808.0) {
		if (x == -1)
			return 1;
		if ((fabs(x) < 1) == (y > 0))
			return 0;
		return HUGE_VAL;
	}
	a1 = 1;
	ae = 0;
	if (yf != 0) {
		if (yf > 0.5) {
			yf--;
			yi++;
		}
		a1 = pr_go_exp(yf * pr_go_log(x));
	}
	x1 = frexp(x, &xe);
	for (i = (int64_t)yi; i != 0; i >>= 1) {
		if (xe < -4096 || 4096 < xe) {
			ae += xe;
			break;
		}
		if (i & 1) {
			a1 *= x1;
			ae += xe;
		}
		x1 *= x1;
		xe *= 2;
		if (x1 < .5) {
			x1 += x1;
			xe--;
		}
	}
	if (y < 0) {
		a1 = 1 / a1;
		ae = -ae;
	}
	return ldexp(a1, ae);
}

/* ---- Operators (intOp, floatOp). In floating-point context MOD, shifts
 * and bitwise operators apply to pr_trunc of the operands. ---- */

/* x / y. */
static PR_UNUSED int64_t pr_div(int64_t x, int64_t y, const char *pos) {
	if (y == 0) {
		pr_fail(pos, "division by zero (%" PRId64 "/0)", x);
		return 0;
	}
	return pr_quo(x, y);
}

/* x MOD y: imod, never negative. */
static PR_UNUSED int64_t pr_mod(int64_t x, int64_t y, const char *pos) {
	int64_t r;
	if (y == 0) {
		pr_fail(pos, "%" PRId64 " MOD 0 is undefined", x);
		return 0;
	}
	if (y < 0)
		y = pr_wneg(y);
	r = x % y;
	if (r < 0)
		r = pr_wadd(r, y);
	return r;
}

/* x << n: shiftLeft, shifting right for negative n. */
static PR_UNUSED int64_t pr_shl(int64_t x, int64_t n) {
	if (n >= 64)
		return 0;
	if (n >= 0)
		return (int64_t)((uint64_t)x << n);
	if (n <= -64)
		return x < 0 ? -1 : 0;
	/* Arithmetic shift right, spelled out for negative x. */
	if (x < 0)
		return ~(int64_t)(~(uint64_t)x >> -n);
	return (int64_t)((uint64_t)x >> -n);
}

/* x >> n (intOp's Shr). */
static PR_UNUSED int64_t pr_shr(int64_t x, int64_t n) {
	return n == INT64_MIN ? pr_shl(x, INT64_MAX) : pr_shl(x, -n);
}

/* x ** y in integer context: ipow, rounding toward zero. */
static PR_UNUSED int64_t pr_ipow(int64_t x, int64_t y, const char *pos) {
	uint64_t result = 1, b = (uint64_t)x;
	if (x == 0 && y <= 0) {
		pr_fail(pos, "0 ** %" PRId64 " is undefined", y);
		return 0;
	}
	if (y < 0) {
		if (x == 1)
			return 1;
		if (x == -1)
			return (y & 1) ? -1 : 1;
		return 0;
	}
	for (; y > 0; y >>= 1) {
		if (y & 1)
			result *= b;
		b *= b;
	}
	return (int64_t)result;
}

/* finite: x, an operand of what (an operator or a function), must be a
 * finite number. In floating-point context +, -, * and / follow IEEE 754
 * (a division by zero gives an infinity, as in coNCePTuaL); every other
 * operator and function but REAL, MIN and MAX refuses infinities and NaN. */
static PR_UNUSED double pr_fin(double x, const char *what, const char *pos) {
	char b[PR_GBUF];
	if (!isfinite(x))
		pr_fail(pos, "%s of %s is undefined: it needs finite numbers (in floating point, a division by zero gives an "
			     "infinity and 0/0 NaN)", what, pr_fmt_g(b, x));
	return x;
}

/* MOD, shifts and bitwise operators in floating-point context (floatOp):
 * the operator on the truncated values of finite operands, checked in
 * order. */
enum { PR_FMOD, PR_FSHL, PR_FSHR, PR_FAND, PR_FOR, PR_FXOR };
static PR_UNUSED double pr_fintop(int op, double x, double y, const char *pos) {
	static const char *const names[] = {"MOD", "<<", ">>", "&", "|", "XOR"};
	int64_t a = pr_trunc(pr_fin(x, names[op], pos)), b = pr_trunc(pr_fin(y, names[op], pos));
	switch (op) {
	case PR_FMOD:
		return (double)pr_mod(a, b, pos);
	case PR_FSHL:
		return (double)pr_shl(a, b);
	case PR_FSHR:
		return (double)pr_shr(a, b);
	case PR_FAND:
		return (double)(a & b);
	case PR_FOR:
		return (double)(a | b);
	}
	return (double)(a ^ b);
}

/* x ** y in floating-point context: fpow. */
static PR_UNUSED double pr_fpow(double x, double y, const char *pos) {
	char bx[PR_GBUF], by[PR_GBUF];
	pr_fin(x, "**", pos);
	pr_fin(y, "**", pos);
	if ((x == 0 && y <= 0) || (x < 0 && y != trunc(y)))
		pr_fail(pos, "(%s) ** (%s) is undefined", pr_fmt_g(bx, x), pr_fmt_g(by, y));
	return pr_go_pow(x, y);
}

/* ---- Quantities a statement asks for ---- */

/* pr_count: ir.Count, a number of messages, operations or touches. */
static PR_UNUSED int64_t pr_count(int64_t n, const char *pos) {
	if (n < 0) {
		pr_fail(pos, "a count cannot be negative (%" PRId64 ")", n);
		return 0;
	}
	return n;
}

/* pr_size: ir.SizeBytes, n units of unit bytes. */
static PR_UNUSED int64_t pr_size(int64_t n, int64_t unit, const char *pos) {
	if (n < 0) {
		pr_fail(pos, "a size cannot be negative (%" PRId64 ")", n);
		return 0;
	}
	if (unit > 0 && n > INT64_MAX / unit) {
		pr_fail(pos, "a size of %" PRId64 " units of %" PRId64 " bytes does not fit in 64 bits", n, unit);
		return 0;
	}
	return n * unit;
}

/* pr_usecs: n units of unit microseconds, as a double; a negative
 * duration fails (ir.Duration). */
static PR_UNUSED double pr_usecs(int64_t n, int64_t unit, const char *pos) {
	if (n < 0) {
		pr_fail(pos, "a duration cannot be negative (%" PRId64 ")", n);
		return 0;
	}
	return (double)n * (double)unit;
}

/* ---- Built-in functions, integer versions (intFunc). In floating-point
 * context the functions without a pr_f* version below take pr_trunc of
 * their arguments and return a double. ---- */

/* ABS. */
static PR_UNUSED int64_t pr_abs(int64_t x, const char *pos) {
	if (x == INT64_MIN) {
		pr_fail(pos, "the absolute value of %" PRId64 " is not defined in 64-bit arithmetic", x);
		return 0;
	}
	return x < 0 ? -x : x;
}

/* BITS: bits.Len64. */
static PR_UNUSED int64_t pr_bits(int64_t x) {
	uint64_t u = (uint64_t)x;
	int64_t n = 0;
	for (; u != 0; u >>= 1)
		n++;
	return n;
}

/* powAtMost: b**n <= x, for b >= 2, x >= 0 and n >= 1; it stops as soon
 * as the power passes x, within 64 multiplications. */
static PR_UNUSED int pr_pow_at_most(int64_t b, int64_t n, int64_t x) {
	uint64_t p = 1, hi, lo, x0, x1, y0, y1, t;
	int64_t i;
	for (i = 0; i < n; i++) {
		/* bits.Mul64(p, b) */
		x0 = p & 0xFFFFFFFF;
		x1 = p >> 32;
		y0 = (uint64_t)b & 0xFFFFFFFF;
		y1 = (uint64_t)b >> 32;
		t = x1 * y0 + ((x0 * y0) >> 32);
		hi = x1 * y1 + (t >> 32) + (((t & 0xFFFFFFFF) + x0 * y1) >> 32);
		lo = p * (uint64_t)b;
		if (hi != 0 || lo > (uint64_t)x)
			return 0;
		p = lo;
	}
	return 1;
}

/* ROOT(n, x): Root, an estimate settled by probes and bisection;
 * ROOT(MinInt64, x) is 1/ROOT(MaxInt64, x). */
static PR_UNUSED int64_t pr_root(int64_t n, int64_t x, const char *pos) {
	int64_t r, lo, hi, mid, c[2];
	int i;
	if (n == 0 || x < 0) {
		pr_fail(pos, "ROOT(%" PRId64 ", %" PRId64 ") is undefined", n, x);
		return 0;
	}
	if (n < 0) {
		r = pr_root(n == INT64_MIN ? INT64_MAX : -n, x, pos);
		if (r == 0) {
			pr_fail(pos, "ROOT(%" PRId64 ", %" PRId64 ") divides by zero", n, x);
			return 0;
		}
		return 1 / r;
	}
	if (x <= 1 || n == 1)
		return x;
	if (n >= 63)
		return 1;
	lo = 1;
	hi = INT64_C(1) << (63 / n + 1);
	r = pr_trunc(pr_go_pow((double)x, 1 / (double)n));
	c[0] = r;
	c[1] = r + 1;
	for (i = 0; i < 2; i++) {
		if (c[i] > lo && c[i] < hi) {
			if (pr_pow_at_most(c[i], n, x))
				lo = c[i];
			else
				hi = c[i];
		}
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (pr_pow_at_most(mid, n, x))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* CBRT. */
static PR_UNUSED int64_t pr_cbrt(int64_t x, const char *pos) {
	if (x < 0) {
		pr_fail(pos, "CBRT(%" PRId64 ") is undefined", x);
		return 0;
	}
	return pr_root(3, x, pos);
}

/* SQRT. */
static PR_UNUSED int64_t pr_sqrt(int64_t x, const char *pos) {
	if (x < 0) {
		pr_fail(pos, "SQRT(%" PRId64 ") is undefined", x);
		return 0;
	}
	return pr_root(2, x, pos);
}

/* LOG10, rounded down. */
static PR_UNUSED int64_t pr_log10(int64_t x, const char *pos) {
	int64_t n = 0;
	if (x <= 0) {
		pr_fail(pos, "LOG10(%" PRId64 ") is undefined: the argument must be positive", x);
		return 0;
	}
	for (; x >= 10; x /= 10)
		n++;
	return n;
}

/* FACTOR10: factor10. */
static PR_UNUSED int64_t pr_factor10(int64_t x) {
	uint64_t u = (uint64_t)x, p = 1;
	int64_t r;
	if (x < 0)
		u = 0 - u;
	while (u / p >= 10)
		p *= 10;
	r = (int64_t)(u / p * p);
	return x < 0 ? -r : r;
}

/* TREE_PARENT: TreeParent. */
static PR_UNUSED int64_t pr_tree_parent(int64_t task, int64_t arity, const char *pos) {
	if (arity < 1) {
		pr_fail(pos, "an n-ary tree needs a positive n, not %" PRId64, arity);
		return 0;
	}
	if (task <= 0)
		return -1;
	return (task - 1) / arity;
}

/* TREE_CHILD: TreeChild. */
static PR_UNUSED int64_t pr_tree_child(int64_t task, int64_t child, int64_t arity, const char *pos) {
	if (arity < 1) {
		pr_fail(pos, "an n-ary tree needs a positive n, not %" PRId64, arity);
		return 0;
	}
	if (child < 0 || child >= arity)
		return -1;
	return pr_wadd(pr_wadd(pr_wmul(task, arity), child), 1);
}

/* knomialTop: the highest nonzero base-k digit of x > 0, returned, and
 * its place value, stored in *place. */
static PR_UNUSED int64_t pr_knomial_top(int64_t k, int64_t x, int64_t *place) {
	*place = 1;
	while (x / *place >= k)
		*place *= k;
	return x / *place;
}

/* checkKnomial. */
static PR_UNUSED int pr_knomial_check(int64_t k, const char *pos) {
	if (k < 2) {
		pr_fail(pos, "a k-nomial tree needs k of at least 2, not %" PRId64, k);
		return 0;
	}
	return 1;
}

/* KNOMIAL_PARENT: KnomialParent. */
static PR_UNUSED int64_t pr_knomial_parent(int64_t task, int64_t k, int64_t n, const char *pos) {
	int64_t digit, place;
	if (!pr_knomial_check(k, pos))
		return 0;
	if (task <= 0 || task >= n)
		return -1;
	digit = pr_knomial_top(k, task, &place);
	return task - digit * place;
}

/* knomialWalk: returns the number of task's children and stores the one
 * at index child, or -1, in *c. */
static PR_UNUSED int64_t pr_knomial_walk(int64_t task, int64_t child, int64_t k, int64_t n, int64_t *c) {
	int64_t count = 0, place = 1, run;
	*c = -1;
	if (task < 0 || task >= n)
		return 0;
	if (task > 0) {
		pr_knomial_top(k, task, &place);
		if (place > (n - 1) / k)
			return 0;
		place *= k;
	}
	for (;;) {
		run = (n - 1 - task) / place;
		if (run > k - 1)
			run = k - 1;
		if (run == 0)
			return count;
		if (child >= count && child - count < run)
			*c = task + (child - count + 1) * place;
		count += run;
		if (place > (n - 1) / k)
			return count;
		place *= k;
	}
}

/* KNOMIAL_CHILDREN: KnomialChildren. */
static PR_UNUSED int64_t pr_knomial_children(int64_t task, int64_t k, int64_t n, const char *pos) {
	int64_t c;
	if (!pr_knomial_check(k, pos))
		return 0;
	return pr_knomial_walk(task, -1, k, n, &c);
}

/* KNOMIAL_CHILD: KnomialChild, -1 if there is no such child. */
static PR_UNUSED int64_t pr_knomial_child(int64_t task, int64_t child, int64_t k, int64_t n, const char *pos) {
	int64_t c;
	if (!pr_knomial_check(k, pos))
		return 0;
	pr_knomial_walk(task, child, k, n, &c);
	return c;
}

/* meshCoords: task's coordinates, or 0 if task is off the mesh. */
static PR_UNUSED int pr_mesh_coords(const int64_t dims[3], int64_t task, int64_t c[3], const char *pos) {
	int64_t size, plane;
	if (dims[0] < 0 || dims[1] < 0 || dims[2] < 0) {
		pr_fail(pos, "a mesh cannot have a negative dimension (%" PRId64 ", %" PRId64 ", %" PRId64 ")",
			dims[0], dims[1], dims[2]);
		return 0;
	}
	plane = pr_wmul(dims[0], dims[1]);
	size = pr_wmul(plane, dims[2]);
	if (size == 0) {
		pr_fail(pos, "a mesh cannot have a zero dimension (%" PRId64 ", %" PRId64 ", %" PRId64 ")",
			dims[0], dims[1], dims[2]);
		return 0;
	}
	if (task < 0 || task >= size)
		return 0;
	/* task >= 0 and plane != 0 (size is not 0), so nothing traps. */
	c[0] = task % dims[0];
	c[1] = task % plane / dims[0];
	c[2] = task / plane;
	return 1;
}

/* MESH_NEIGHBOR: MeshNeighbor, -1 off the mesh. */
static PR_UNUSED int64_t pr_mesh_neighbor(const int64_t dims[3], const int torus[3], int64_t task,
					  const int64_t offs[3], const char *pos) {
	int64_t c[3];
	int i;
	if (!pr_mesh_coords(dims, task, c, pos))
		return -1;
	for (i = 0; i < 3; i++) {
		c[i] = pr_wadd(c[i], offs[i]);
		if (torus[i])
			c[i] = pr_mod(c[i], dims[i], pos);
		if (c[i] < 0 || c[i] >= dims[i])
			return -1;
	}
	return pr_wadd(pr_wadd(pr_wmul(pr_wmul(c[2], dims[1]), dims[0]), pr_wmul(c[1], dims[0])), c[0]);
}

/* MESH_COORDINATE: MeshCoordinate, -1 off the mesh. */
static PR_UNUSED int64_t pr_mesh_coordinate(const int64_t dims[3], int64_t task, int64_t coord, const char *pos) {
	int64_t c[3];
	int ok = pr_mesh_coords(dims, task, c, pos);
	if (coord < 0 || coord > 2) {
		pr_fail(pos, "MESH_COORDINATE's coordinate must be 0, 1 or 2 (x, y or z), not %" PRId64, coord);
		return 0;
	}
	return ok ? c[coord] : -1;
}

/* MESH_DISTANCE: MeshDistance, -1 if either task is off the mesh. */
static PR_UNUSED int64_t pr_mesh_distance(const int64_t dims[3], const int torus[3], int64_t t1, int64_t t2,
					  const char *pos) {
	int64_t a[3], b[3], d, dist = 0;
	int ok1 = pr_mesh_coords(dims, t1, a, pos), ok2 = pr_mesh_coords(dims, t2, b, pos), i;
	if (!ok1 || !ok2)
		return -1;
	for (i = 0; i < 3; i++) {
		d = pr_wsub(a[i], b[i]);
		if (d < 0)
			d = pr_wneg(d);
		if (torus[i] && d > dims[i] / 2)
			d = pr_wsub(dims[i], d);
		dist = pr_wadd(dist, d);
	}
	return dist;
}

/* ---- Built-in functions, floating-point versions (callFloat). ABS,
 * CEILING, FLOOR and ROUND are C's fabs, ceil, floor and round. ---- */

/* CBRT. */
static PR_UNUSED double pr_fcbrt(double x, const char *pos) {
	char b[PR_GBUF];
	if (x < 0)
		pr_fail(pos, "CBRT(%s) is undefined", pr_fmt_g(b, x));
	return pr_go_cbrt(x);
}

/* SQRT. */
static PR_UNUSED double pr_fsqrt(double x, const char *pos) {
	char b[PR_GBUF];
	if (x < 0)
		pr_fail(pos, "SQRT(%s) is undefined", pr_fmt_g(b, x));
	return sqrt(x);
}

/* ROOT(n, x). */
static PR_UNUSED double pr_froot(double n, double x, const char *pos) {
	char bn[PR_GBUF], bx[PR_GBUF];
	if (n == 0 || x < 0)
		pr_fail(pos, "ROOT(%s, %s) is undefined", pr_fmt_g(bn, n), pr_fmt_g(bx, x));
	return pr_go_pow(x, 1 / n);
}

/* LOG10: -Inf for 0, NaN for a negative number, as C's log10. */
static PR_UNUSED double pr_flog10(double x) { return pr_go_log10(x); }

/* FACTOR10: factor10Float. */
static PR_UNUSED double pr_factor10f(double x) {
	double ax, p;
	if (x == 0)
		return 0;
	ax = fabs(x);
	p = pr_go_pow(10, floor(pr_go_log10(ax)));
	if (p > ax)
		p /= 10;
	else if (p * 10 <= ax)
		p *= 10;
	return copysign(floor(ax / p) * p, x);
}

/* ---- Random numbers: Go's math/rand/v2 PCG source and Rand methods ---- */

/* rand.PCG. */
typedef struct {
	uint64_t hi, lo;
} pr_pcg;

/* rand.NewPCG(seed1, seed2). A task's own stream (Frame.Rand) is seeded
 * with (seed, (uint64_t)task * 0x9e3779b97f4a7c15 + 1), the stream all
 * tasks share for A RANDOM TASK (Frame.SyncRand) with (seed, 0x5eed). */
static PR_UNUSED void pr_pcg_seed(pr_pcg *r, uint64_t seed1, uint64_t seed2) {
	r->hi = seed1;
	r->lo = seed2;
}

/* PCG.Uint64: a 128-bit LCG step, then the DXSM output function. */
static PR_UNUSED uint64_t pr_pcg_uint64(pr_pcg *r) {
	const uint64_t MUL_HI = UINT64_C(2549297995355413924), MUL_LO = UINT64_C(4865540595714422341);
	const uint64_t INC_HI = UINT64_C(6364136223846793005), INC_LO = UINT64_C(1442695040888963407);
	uint64_t x0 = r->lo & 0xFFFFFFFF, x1 = r->lo >> 32, y0 = MUL_LO & 0xFFFFFFFF, y1 = MUL_LO >> 32;
	uint64_t t = x1 * y0 + ((x0 * y0) >> 32);
	/* hi:lo = lo*MUL_LO (bits.Mul64) + hi*MUL_LO<<64 + lo*MUL_HI<<64 + INC */
	uint64_t hi = x1 * y1 + (t >> 32) + (((t & 0xFFFFFFFF) + x0 * y1) >> 32);
	uint64_t lo = r->lo * MUL_LO;
	hi += r->hi * MUL_LO + r->lo * MUL_HI;
	lo += INC_LO;
	hi += INC_HI + (lo < INC_LO);
	r->lo = lo;
	r->hi = hi;
	hi ^= hi >> 32;
	hi *= UINT64_C(0xda942042e4dd58b5);
	hi ^= hi >> 48;
	hi *= lo | 1;
	return hi;
}

/* Rand.Float64: [0, 1). */
static PR_UNUSED double pr_pcg_float64(pr_pcg *r) {
	return (double)(pr_pcg_uint64(r) << 11 >> 11) / 9007199254740992.0;
}

/* The ziggurat tables, copied from Go's math/rand/v2/normal.go
 * (Copyright 2009 The Go Authors; BSD-style licence). */
static PR_UNUSED const uint32_t pr_norm_kn[128] = {
	0x76ad2212, 0x0, 0x600f1b53, 0x6ce447a6, 0x725b46a2,
	0x7560051d, 0x774921eb, 0x789a25bd, 0x799045c3, 0x7a4bce5d,
	0x7adf629f, 0x7b5682a6, 0x7bb8a8c6, 0x7c0ae722, 0x7c50cce7,
	0x7c8cec5b, 0x7cc12cd6, 0x7ceefed2, 0x7d177e0b, 0x7d3b8883,
	0x7d5bce6c, 0x7d78dd64, 0x7d932886, 0x7dab0e57, 0x7dc0dd30,
	0x7dd4d688, 0x7de73185, 0x7df81cea, 0x7e07c0a3, 0x7e163efa,
	0x7e23b587, 0x7e303dfd, 0x7e3beec2, 0x7e46db77, 0x7e51155d,
	0x7e5aabb3, 0x7e63abf7, 0x7e6c222c, 0x7e741906, 0x7e7b9a18,
	0x7e82adfa, 0x7e895c63, 0x7e8fac4b, 0x7e95a3fb, 0x7e9b4924,
	0x7ea0a0ef, 0x7ea5b00d, 0x7eaa7ac3, 0x7eaf04f3, 0x7eb3522a,
	0x7eb765a5, 0x7ebb4259, 0x7ebeeafd, 0x7ec2620a, 0x7ec5a9c4,
	0x7ec8c441, 0x7ecbb365, 0x7ece78ed, 0x7ed11671, 0x7ed38d62,
	0x7ed5df12, 0x7ed80cb4, 0x7eda175c, 0x7edc0005, 0x7eddc78e,
	0x7edf6ebf, 0x7ee0f647, 0x7ee25ebe, 0x7ee3a8a9, 0x7ee4d473,
	0x7ee5e276, 0x7ee6d2f5, 0x7ee7a620, 0x7ee85c10, 0x7ee8f4cd,
	0x7ee97047, 0x7ee9ce59, 0x7eea0eca, 0x7eea3147, 0x7eea3568,
	0x7eea1aab, 0x7ee9e071, 0x7ee98602, 0x7ee90a88, 0x7ee86d08,
	0x7ee7ac6a, 0x7ee6c769, 0x7ee5bc9c, 0x7ee48a67, 0x7ee32efc,
	0x7ee1a857, 0x7edff42f, 0x7ede0ffa, 0x7edbf8d9, 0x7ed9ab94,
	0x7ed7248d, 0x7ed45fae, 0x7ed1585c, 0x7ece095f, 0x7eca6ccb,
	0x7ec67be2, 0x7ec22eee, 0x7ebd7d1a, 0x7eb85c35, 0x7eb2c075,
	0x7eac9c20, 0x7ea5df27, 0x7e9e769f, 0x7e964c16, 0x7e8d44ba,
	0x7e834033, 0x7e781728, 0x7e6b9933, 0x7e5d8a1a, 0x7e4d9ded,
	0x7e3b737a, 0x7e268c2f, 0x7e0e3ff5, 0x7df1aa5d, 0x7dcf8c72,
	0x7da61a1e, 0x7d72a0fb, 0x7d30e097, 0x7cd9b4ab, 0x7c600f1a,
	0x7ba90bdc, 0x7a722176, 0x77d664e5,
};
static PR_UNUSED const float pr_norm_wn[128] = {
	1.7290405e-09f, 1.2680929e-10f, 1.6897518e-10f, 1.9862688e-10f,
	2.2232431e-10f, 2.4244937e-10f, 2.601613e-10f, 2.7611988e-10f,
	2.9073963e-10f, 3.042997e-10f, 3.1699796e-10f, 3.289802e-10f,
	3.4035738e-10f, 3.5121603e-10f, 3.616251e-10f, 3.7164058e-10f,
	3.8130857e-10f, 3.9066758e-10f, 3.9975012e-10f, 4.08584e-10f,
	4.1719309e-10f, 4.2559822e-10f, 4.338176e-10f, 4.418672e-10f,
	4.497613e-10f, 4.5751258e-10f, 4.651324e-10f, 4.7263105e-10f,
	4.8001775e-10f, 4.87301e-10f, 4.944885e-10f, 5.015873e-10f,
	5.0860405e-10f, 5.155446e-10f, 5.2241467e-10f, 5.2921934e-10f,
	5.359635e-10f, 5.426517e-10f, 5.4928817e-10f, 5.5587696e-10f,
	5.624219e-10f, 5.6892646e-10f, 5.753941e-10f, 5.818282e-10f,
	5.882317e-10f, 5.946077e-10f, 6.00959e-10f, 6.072884e-10f,
	6.135985e-10f, 6.19892e-10f, 6.2617134e-10f, 6.3243905e-10f,
	6.386974e-10f, 6.449488e-10f, 6.511956e-10f, 6.5744005e-10f,
	6.6368433e-10f, 6.699307e-10f, 6.7618144e-10f, 6.824387e-10f,
	6.8870465e-10f, 6.949815e-10f, 7.012715e-10f, 7.075768e-10f,
	7.1389966e-10f, 7.202424e-10f, 7.266073e-10f, 7.329966e-10f,
	7.394128e-10f, 7.4585826e-10f, 7.5233547e-10f, 7.58847e-10f,
	7.653954e-10f, 7.719835e-10f, 7.7861395e-10f, 7.852897e-10f,
	7.920138e-10f, 7.987892e-10f, 8.0561924e-10f, 8.125073e-10f,
	8.194569e-10f, 8.2647167e-10f, 8.3355556e-10f, 8.407127e-10f,
	8.479473e-10f, 8.55264e-10f, 8.6266755e-10f, 8.7016316e-10f,
	8.777562e-10f, 8.8545243e-10f, 8.932582e-10f, 9.0117996e-10f,
	9.09225e-10f, 9.174008e-10f, 9.2571584e-10f, 9.341788e-10f,
	9.427997e-10f, 9.515889e-10f, 9.605579e-10f, 9.697193e-10f,
	9.790869e-10f, 9.88676e-10f, 9.985036e-10f, 1.0085882e-09f,
	1.0189509e-09f, 1.0296151e-09f, 1.0406069e-09f, 1.0519566e-09f,
	1.063698e-09f, 1.0758702e-09f, 1.0885183e-09f, 1.1016947e-09f,
	1.1154611e-09f, 1.1298902e-09f, 1.1450696e-09f, 1.1611052e-09f,
	1.1781276e-09f, 1.1962995e-09f, 1.2158287e-09f, 1.2369856e-09f,
	1.2601323e-09f, 1.2857697e-09f, 1.3146202e-09f, 1.347784e-09f,
	1.3870636e-09f, 1.4357403e-09f, 1.5008659e-09f, 1.6030948e-09f,
};
static PR_UNUSED const float pr_norm_fn[128] = {
	1.0f, 0.9635997f, 0.9362827f, 0.9130436f,
	0.89228165f, 0.87324303f, 0.8555006f, 0.8387836f,
	0.8229072f, 0.8077383f, 0.793177f, 0.7791461f,
	0.7655842f, 0.7524416f, 0.73967725f, 0.7272569f,
	0.7151515f, 0.7033361f, 0.69178915f, 0.68049186f,
	0.6694277f, 0.658582f, 0.6479418f, 0.63749546f,
	0.6272325f, 0.6171434f, 0.6072195f, 0.5974532f,
	0.58783704f, 0.5783647f, 0.56903f, 0.5598274f,
	0.5507518f, 0.54179835f, 0.5329627f, 0.52424055f,
	0.5156282f, 0.50712204f, 0.49871865f, 0.49041483f,
	0.48220766f, 0.4740943f, 0.46607214f, 0.4581387f,
	0.45029163f, 0.44252872f, 0.43484783f, 0.427247f,
	0.41972435f, 0.41227803f, 0.40490642f, 0.39760786f,
	0.3903808f, 0.3832238f, 0.37613547f, 0.36911446f,
	0.3621595f, 0.35526937f, 0.34844297f, 0.34167916f,
	0.33497685f, 0.3283351f, 0.3217529f, 0.3152294f,
	0.30876362f, 0.30235484f, 0.29600215f, 0.28970486f,
	0.2834622f, 0.2772735f, 0.27113807f, 0.2650553f,
	0.25902456f, 0.2530453f, 0.24711695f, 0.241239f,
	0.23541094f, 0.22963232f, 0.2239027f, 0.21822165f,
	0.21258877f, 0.20700371f, 0.20146611f, 0.19597565f,
	0.19053204f, 0.18513499f, 0.17978427f, 0.17447963f,
	0.1692209f, 0.16400786f, 0.15884037f, 0.15371831f,
	0.14864157f, 0.14361008f, 0.13862377f, 0.13368265f,
	0.12878671f, 0.12393598f, 0.119130544f, 0.11437051f,
	0.10965602f, 0.104987256f, 0.10036444f, 0.095787846f,
	0.0912578f, 0.08677467f, 0.0823389f, 0.077950984f,
	0.073611505f, 0.06932112f, 0.06508058f, 0.06089077f,
	0.056752663f, 0.0526674f, 0.048636295f, 0.044660863f,
	0.040742867f, 0.03688439f, 0.033087887f, 0.029356318f,
	0.025693292f, 0.022103304f, 0.018592102f, 0.015167298f,
	0.011839478f, 0.008624485f, 0.005548995f, 0.0026696292f,
};

/* Rand.NormFloat64: the ziggurat method. */
static PR_UNUSED double pr_pcg_norm(pr_pcg *r) {
	const double RN = 3.442619855899;
	for (;;) {
		uint64_t u = pr_pcg_uint64(r);
		uint32_t w = (uint32_t)u;
		int64_t j = (w >> 31) ? (int64_t)w - INT64_C(0x100000000) : (int64_t)w; /* int32(u) */
		uint32_t absj = (uint32_t)(j < 0 ? -j : j);
		unsigned i = (unsigned)(u >> 32 & 0x7F);
		double x = (double)j * (double)pr_norm_wn[i], y;
		if (absj < pr_norm_kn[i])
			return x;
		if (i == 0) {
			do {
				x = -pr_go_log(pr_pcg_float64(r)) * 0x1.2972a8afc6175p-2; /* 1/RN */
				y = -pr_go_log(pr_pcg_float64(r));
			} while (!(y + y >= x * x));
			return j > 0 ? RN + x : -RN - x;
		}
		if (pr_norm_fn[i] + (float)pr_pcg_float64(r) * (pr_norm_fn[i - 1] - pr_norm_fn[i]) <
		    (float)pr_go_exp(-.5 * x * x))
			return x;
	}
}

/* RANDOM_UNIFORM in integer context. */
static PR_UNUSED int64_t pr_random_uniform_int(pr_pcg *rng, int64_t lo, int64_t hi, const char *pos) {
	if (lo >= hi) {
		pr_fail(pos, "RANDOM_UNIFORM needs the upper bound (%" PRId64 ") above the lower bound (%" PRId64 ")",
			hi, lo);
		return 0;
	}
	return pr_wadd(pr_mod((int64_t)(pr_pcg_uint64(rng) >> 1), pr_wsub(hi, lo), pos), lo);
}

/* RANDOM_UNIFORM in floating-point context. */
static PR_UNUSED double pr_random_uniform_float(pr_pcg *rng, double lo, double hi, const char *pos) {
	char bh[PR_GBUF], bl[PR_GBUF];
	if (lo >= hi)
		pr_fail(pos, "RANDOM_UNIFORM needs the upper bound (%s) above the lower bound (%s)",
			pr_fmt_g(bh, hi), pr_fmt_g(bl, lo));
	return lo + pr_pcg_float64(rng) * (hi - lo);
}

/* RANDOM_GAUSSIAN: gaussian. */
static PR_UNUSED double pr_random_gaussian_float(pr_pcg *rng, double mean, double stddev) {
	return pr_pcg_norm(rng) * stddev + mean;
}
static PR_UNUSED int64_t pr_random_gaussian_int(pr_pcg *rng, int64_t mean, int64_t stddev) {
	return pr_trunc(pr_random_gaussian_float(rng, (double)mean, (double)stddev));
}

/* pr_poisson_log_pmf: poissonLogPMF. */
static PR_UNUSED double pr_poisson_log_pmf(double k, double mu, double log_mu) {
	static const double log_fact[] = {
		0, 0, 0.69314718055994530942, 1.7917594692280550008, 3.1780538303479456196,
		4.7874917427820459942, 6.5792512120101009951, 8.5251613610654143002,
		10.604602902745250228, 12.801827480081469611,
	};
	double x, x2, series, d;
	if (k < 10)
		return -mu + k * log_mu - log_fact[(int)k];
	x = k + 1;
	x2 = 1 / (x * x);
	series = (0.083333333333333333333 -
		  x2 * (0.0027777777777777777778 - x2 * (0.00079365079365079365079 - x2 * 0.00059523809523809523810))) /
		 x;
	d = x - mu;
	return d - (x - 0.5) * pr_go_log1p(d / mu) - 0.5 * log_mu - 0.91893853320467274178 - series;
}

/* pr_poisson_ptrs: poissonPTRS, Hörmann's transformed rejection for
 * means of 10 or more. */
static PR_UNUSED int64_t pr_poisson_ptrs(pr_pcg *rng, double mu) {
	double smu = sqrt(mu), log_mu = pr_go_log(mu), b = 0.931 + 2.53 * smu, a = -0.059 + 0.02483 * b;
	double log_inv_alpha = pr_go_log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2);
	double u, v, us, k;
	for (;;) {
		u = pr_pcg_float64(rng) - 0.5;
		v = pr_pcg_float64(rng);
		us = 0.5 - fabs(u);
		k = floor((2 * a / us + b) * u + mu + 0.43);
		if (us >= 0.07 && v <= vr)
			return pr_trunc(k);
		if (!(k >= 0 && k < 9223372036854775808.0) || (us < 0.013 && v > us))
			continue;
		if (pr_go_log(v) + log_inv_alpha - pr_go_log(a / (us * us) + b) <= pr_poisson_log_pmf(k, mu, log_mu))
			return pr_trunc(k);
	}
}

/* RANDOM_POISSON in integer context: poisson. */
static PR_UNUSED int64_t pr_random_poisson(pr_pcg *rng, int64_t mean, const char *pos) {
	double limit, r;
	int64_t n = 0;
	if (mean < 0 || mean > INT64_C(4611686018427387904)) {
		pr_fail(pos, "RANDOM_POISSON(%" PRId64 ") is undefined: the mean must be from 0 to 2**62", mean);
		return 0;
	}
	if (mean >= 10)
		return pr_poisson_ptrs(rng, (double)mean);
	limit = pr_go_exp(-(double)mean);
	for (r = pr_pcg_float64(rng); r >= limit; r *= pr_pcg_float64(rng))
		n++;
	return n;
}

/* RANDOM_POISSON in floating-point context: the mean is checked before
 * it is truncated toward zero. */
static PR_UNUSED double pr_frandom_poisson(pr_pcg *rng, double mean, const char *pos) {
	char b[PR_GBUF];
	if (!(mean > -1 && mean <= 4611686018427387904.0)) {
		pr_fail(pos, "RANDOM_POISSON(%s) is undefined: the mean must be from 0 to 2**62", pr_fmt_g(b, mean));
		return 0;
	}
	return (double)pr_random_poisson(rng, pr_trunc(mean), pos);
}

/* RANDOM_PARETO in floating-point context: pareto. */
static PR_UNUSED double pr_random_pareto_float(pr_pcg *rng, double shape, double low, double high,
					       const char *pos) {
	char bs[PR_GBUF], bl[PR_GBUF], bh[PR_GBUF];
	double u = 0, hs, ls, num;
	if (shape <= 0 || low <= 0 || low > high)
		pr_fail(pos, "RANDOM_PARETO(%s, %s, %s) is undefined", pr_fmt_g(bs, shape), pr_fmt_g(bl, low),
			pr_fmt_g(bh, high));
	while (u == 0)
		u = pr_pcg_float64(rng);
	if (low == high)
		return low / pr_go_pow(u, 1 / shape);
	hs = pr_go_pow(high, shape);
	ls = pr_go_pow(low, shape);
	num = u * hs - u * ls - hs;
	return pr_go_pow(-num / (hs * ls), -1 / shape);
}

/* RANDOM_PARETO in integer context: callInt's loop, at most
 * maxParetoDraws draws. */
static PR_UNUSED int64_t pr_random_pareto_int(pr_pcg *rng, int64_t shape, int64_t low, int64_t high,
					      const char *pos) {
	int i;
	for (i = 0; i < 100; i++) {
		double v = round(pr_random_pareto_float(rng, (double)shape, (double)low, (double)high, pos));
		if (v < 9223372036854775808.0) /* 2**63 */
			return pr_trunc(v);
	}
	pr_fail(pos,
		"RANDOM_PARETO(%" PRId64 ", %" PRId64 ", %" PRId64
		") drew 100 values in a row too large for a 64-bit integer: lower its bounds",
		shape, low, high);
	return 0;
}

/* ---- Progressions (ProgRange.Pattern, Progression.Each and Contains) ---- */

/* A growable list of values. Zero-initialize it before use. */
typedef struct {
	int64_t *v;
	size_t n, cap;
} pr_vals;

static PR_UNUSED void pr_vals_reserve(pr_vals *l, size_t n) {
	size_t cap = l->cap ? l->cap : 16;
	int64_t *v;
	if (n <= l->cap)
		return;
	while (cap < n)
		cap *= 2;
	v = realloc(l->v, cap * sizeof *v);
	if (v == NULL) {
		pr_fail("0:0", "out of memory for a list of %zu values", n);
		return;
	}
	l->v = v;
	l->cap = cap;
}

static PR_UNUSED void pr_vals_push(pr_vals *l, int64_t x) {
	pr_vals_reserve(l, l->n + 1);
	l->v[l->n++] = x;
}

static PR_UNUSED void pr_vals_clear(pr_vals *l) { l->n = 0; }

static PR_UNUSED void pr_vals_free(pr_vals *l) {
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static PR_UNUSED int pr_vals_contains(const pr_vals *l, int64_t x) {
	size_t i;
	for (i = 0; i < l->n; i++)
		if (l->v[i] == x)
			return 1;
	return 0;
}

/* Progression kinds (ProgKind). */
enum { PR_PROG_EMPTY, PR_PROG_ARITH, PR_PROG_GEO_MUL, PR_PROG_GEO_DIV, PR_PROG_GEO_FLOAT };

/* A Progression and a position in it: pr_prog_pattern finds it, then
 * pr_prog_next produces its values one at a time, as a FOR EACH loop
 * needs them. */
typedef struct {
	int kind;
	int64_t start, step, ratio, end; /* ARITH: step != 0; GEO_MUL, GEO_DIV: the ratio; GEO_FLOAT: end rounded */
	double fstart, fratio, fend;     /* GEO_FLOAT */
	int up;                          /* GEO_FLOAT: stop above end, else below */
	int done;                        /* iteration state */
	int64_t next, prev;
	double x;
} pr_progression;

/* The most values pr_prog stores. */
#define PR_PROG_MAX 100000000

/* ir.Round: coNCePTuaL's CONC_DBL2INT, x + 0.5 truncated toward zero. */
static PR_UNUSED int64_t pr_dbl2int(double x) { return pr_trunc(x + 0.5); }

/* arith. */
static PR_UNUSED void pr_prog_arith(pr_progression *p, int64_t start, int64_t step, int64_t end) {
	p->kind = (step > 0 && end < start) || (step < 0 && end > start) ? PR_PROG_EMPTY : PR_PROG_ARITH;
	p->start = start;
	p->step = step;
	p->end = end;
}

/* geoInt: a common exact integer ratio between the terms. */
static PR_UNUSED int pr_prog_geo_int(pr_progression *p, int n, const int64_t *a, int64_t end) {
	int64_t r;
	int i;
	if (a[0] < a[1]) {
		for (i = 0; i + 1 < n; i++)
			if (a[i] == 0)
				return 0;
		r = pr_quo(a[1], a[0]);
		for (i = 0; i + 1 < n; i++)
			if (pr_wmul(a[i], r) != a[i + 1])
				return 0;
		p->kind = a[0] > end ? PR_PROG_EMPTY : PR_PROG_GEO_MUL;
	} else {
		if (a[0] == a[1])
			return 0;
		for (i = 1; i < n; i++)
			if (a[i] == 0)
				return 0;
		r = pr_quo(a[0], a[1]);
		for (i = 0; i + 1 < n; i++)
			if (pr_wmul(a[i + 1], r) != a[i])
				return 0;
		p->kind = a[0] < end ? PR_PROG_EMPTY : PR_PROG_GEO_DIV;
	}
	p->start = a[0];
	p->ratio = r;
	p->end = end;
	return 1;
}

/* geoFloat: the average ratio between the terms in floating point (f)
 * rounds each term to the next in integer context (a). */
static PR_UNUSED int pr_prog_geo_float(pr_progression *p, int n, const int64_t *a, const double *f, double end) {
	double sum = 0, ratio;
	int i;
	for (i = 0; i + 1 < n; i++)
		if (a[i] == 0)
			return 0;
	for (i = 0; i + 1 < n; i++)
		sum += f[i + 1] / f[i];
	ratio = sum / (double)(n - 1);
	for (i = 0; i + 1 < n; i++)
		if (pr_dbl2int(f[i] * ratio) != a[i + 1])
			return 0;
	p->kind = PR_PROG_GEO_FLOAT;
	p->fstart = f[0];
	p->fratio = ratio;
	p->fend = end;
	p->end = pr_dbl2int(end);
	p->up = a[0] < a[1];
	if (p->up ? pr_dbl2int(f[0]) > p->end : pr_dbl2int(f[0]) < p->end)
		p->kind = PR_PROG_EMPTY;
	return 1;
}

static PR_UNUSED int pr_prog_next(pr_progression *p, int64_t *out);

/* pr_prog_start sets the iteration state of a progression just found. */
static PR_UNUSED void pr_prog_start(pr_progression *p) {
	p->done = p->kind == PR_PROG_EMPTY;
	p->next = p->start;
	p->x = p->fstart;
	p->prev = p->kind == PR_PROG_GEO_FLOAT ? pr_dbl2int(p->fstart - 1) : INT64_MIN;
}

/* ProgRange.Pattern, given the n >= 1 initial terms and the final one in
 * integer context (init, end) and in floating-point context (finit, fend;
 * used only when the integers show no pattern). */
static PR_UNUSED void pr_prog_pattern(pr_progression *p, int n, const int64_t *init, int64_t end,
				      const double *finit, double fend, const char *pos) {
	int64_t d, v;
	int i, equal = 1;
	char *terms;
	memset(p, 0, sizeof *p);
	if (n == 1) {
		pr_prog_arith(p, init[0], end < init[0] ? -1 : 1, end);
		pr_prog_start(p);
		return;
	}
	d = pr_wsub(init[1], init[0]);
	for (i = 2; i < n; i++)
		if (pr_wsub(init[i], init[i - 1]) != d)
			equal = 0;
	if (equal) {
		pr_prog_arith(p, init[0], d ? d : 1, end);
		pr_prog_start(p);
		return;
	}
	if (pr_prog_geo_int(p, n, init, end) || pr_prog_geo_float(p, n, init, finit, fend)) {
		pr_prog_start(p);
		if (p->ratio != -1 && p->fratio != -1)
			return;
		/* A ratio of -1 alternates: the third value repeats forever. */
		pr_progression c = *p;
		for (i = 0; i < 3 && pr_prog_next(&c, &v); i++)
			;
		if (i < 3)
			return;
	}
	terms = malloc((size_t)n * 22 + 1);
	if (terms != NULL) {
		char *t = terms;
		for (i = 0; i < n; i++)
			t += sprintf(t, "%s%" PRId64, i ? ", " : "", init[i]);
	}
	if (p->kind != PR_PROG_EMPTY && (p->ratio == -1 || p->fratio == -1))
		pr_fail(pos, "{%s, ..., %" PRId64 "} alternates between two values and never reaches %" PRId64
			     " (coNCePTuaL loops forever); list the values instead",
			terms ? terms : "...", end, end);
	else
		pr_fail(pos, "no arithmetic or geometric pattern in {%s, ..., %" PRId64 "} (its initial terms in integer "
			     "context): no common difference, no common integer ratio, and their average ratio in "
			     "floating point does not round each term to the next; list the values instead",
			terms ? terms : "...", end);
	free(terms);
	p->kind = PR_PROG_EMPTY;
	p->done = 1;
}

/* Progression.Each, one value at a time: 0 when there are no more. An
 * arithmetic progression stops at its last value at or before the final
 * one, as ir.Cursor (FOR EACH) does; Go's Each computes End-Step, which
 * overflows when the final value lies within a step of the int64 limits,
 * and then runs past it. */
static PR_UNUSED int pr_prog_next(pr_progression *p, int64_t *out) {
	int64_t v = p->next;
	if (p->done)
		return 0;
	switch (p->kind) {
	case PR_PROG_ARITH:
		/* Stop when v + step would pass the end (or overflow). */
		if (p->step > 0 ? (uint64_t)p->end - (uint64_t)v < (uint64_t)p->step
				: (uint64_t)v - (uint64_t)p->end < 0 - (uint64_t)p->step)
			p->done = 1;
		else
			p->next = v + p->step;
		break;
	case PR_PROG_GEO_MUL:
		if (v > p->end) {
			p->done = 1;
			return 0;
		}
		p->next = pr_wmul(v, p->ratio);
		if (pr_quo(p->next, p->ratio) != v)
			p->done = 1; /* the next term overflows */
		break;
	case PR_PROG_GEO_DIV:
		if (v < p->end) {
			p->done = 1;
			return 0;
		}
		if (v == 0)
			p->done = 1;
		p->next = pr_quo(v, p->ratio);
		break;
	default: /* PR_PROG_GEO_FLOAT: Progression.floatTerm */
		v = pr_dbl2int(p->x);
		if (v == p->prev || (p->up ? v > p->end : v < p->end)) {
			p->done = 1;
			return 0;
		}
		p->x *= p->fratio;
		p->prev = v;
	}
	*out = v;
	return 1;
}

/* pr_prog appends the progression's values to out, failing if there are
 * more than PR_PROG_MAX (Go produces them lazily; this stores them). */
static PR_UNUSED void pr_prog(pr_vals *out, int n, const int64_t *init, int64_t end, const double *finit,
			      double fend, const char *pos) {
	pr_progression p, c;
	uint64_t count = 0;
	int64_t v;
	pr_prog_pattern(&p, n, init, end, finit, fend, pos);
	if (p.kind == PR_PROG_ARITH) {
		uint64_t span = p.step > 0 ? (uint64_t)p.end - (uint64_t)p.start : (uint64_t)p.start - (uint64_t)p.end;
		uint64_t step = p.step > 0 ? (uint64_t)p.step : 0 - (uint64_t)p.step;
		count = span / step < PR_PROG_MAX ? span / step + 1 : PR_PROG_MAX + 1;
	} else {
		for (c = p; count <= PR_PROG_MAX && pr_prog_next(&c, &v);)
			count++;
	}
	if (count > PR_PROG_MAX) {
		pr_fail(pos, "a progression with more than %d values is too long for the C run-time, which stores them",
			PR_PROG_MAX);
		return;
	}
	pr_vals_reserve(out, out->n + (size_t)count);
	while (pr_prog_next(&p, &v))
		pr_vals_push(out, v);
}

/* Progression.Contains: whether v is one of the progression's values,
 * tested directly for arithmetic progressions (in uint64_t, where Go's
 * v-Start overflows for progressions spanning more than MaxInt64). */
static PR_UNUSED int pr_prog_contains(int n, const int64_t *init, int64_t end, const double *finit, double fend,
				      int64_t v, const char *pos) {
	pr_progression p;
	int64_t x;
	pr_prog_pattern(&p, n, init, end, finit, fend, pos);
	if (p.kind == PR_PROG_ARITH) {
		if (p.step > 0)
			return v >= p.start && v <= p.end && ((uint64_t)v - (uint64_t)p.start) % (uint64_t)p.step == 0;
		return v <= p.start && v >= p.end && ((uint64_t)p.start - (uint64_t)v) % (0 - (uint64_t)p.step) == 0;
	}
	while (pr_prog_next(&p, &x))
		if (x == v)
			return 1;
	return 0;
}

#endif /* PARLEY_RT_MATH_H */
