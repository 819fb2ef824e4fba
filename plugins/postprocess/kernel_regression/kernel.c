/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The estimators of Python Perun's kernel_regression, operation by
 * operation where the order of rounding can be followed: numpy's pairwise
 * sums where Perun's libraries call np.sum, sequential sums where they
 * reduce over the first axis of a matrix, scipy's Nelder-Mead (fmin) step by
 * step.  Sums that numpy hands to BLAS (np.dot) are sequential here, so
 * those results may differ from Perun's in the last bits.
 *
 * GSL does the linear algebra (SVD pseudo-inverse, LU solve), the sorting,
 * the statistics and the random shuffles.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <perun/points.h>

#include "kernel.h"

static int failf(struct kr_fail *fail, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failf(struct kr_fail *fail, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fail->message, sizeof(fail->message), fmt, ap);
	va_end(ap);
	return code;
}

static int nomem(struct kr_fail *fail)
{
	return failf(fail, KR_NOMEM, "out of memory");
}

/*
 * perun_sum_pairwise of a vector of length n that is zero but for
 * a[0..cnt) at positions off..off+cnt-1, in the same grouping: a block
 * wholly outside sums to 0 exactly, so skipping it changes no rounding.
 * This lets the estimators visit only the points whose kernel weight is not
 * exactly 0.
 */
static double sum_block(const double *a, size_t off, size_t cnt, size_t start, size_t n)
{
	if (start + n <= off || start >= off + cnt)
		return 0.;
	/* Wholly inside (n is at most one chunk): the plain pairwise sum. */
	if (start >= off && start + n <= off + cnt)
		return perun_sum_pairwise(a + (start - off), n);
#define V(i) ((i) >= off && (i) < off + cnt ? a[(i)-off] : 0.)
	if (n < 8) {
		double res = 0.;
		for (size_t i = 0; i < n; i++)
			res += V(start + i);
		return res;
	}
	if (n <= 128) {
		double r[8], res;
		size_t i;
		for (int j = 0; j < 8; j++)
			r[j] = V(start + (size_t)j);
		for (i = 8; i < n - (n % 8); i += 8)
			for (int j = 0; j < 8; j++)
				r[j] += V(start + i + (size_t)j);
		res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += V(start + i);
		return res;
	}
#undef V
	size_t n2 = n / 2;
	n2 -= n2 % 8;
	return sum_block(a, off, cnt, start, n2) + sum_block(a, off, cnt, start + n2, n - n2);
}

/* numpy's reduction buffer: the pairwise sums run per chunk of this many. */
#define NUMPY_BUFSIZE 8192

static double sum_window(const double *a, size_t off, size_t cnt, size_t n)
{
	double sum = 0.;
	for (size_t c = 0; c < n; c += NUMPY_BUFSIZE)
		sum += sum_block(a, off, cnt, c, n - c < NUMPY_BUFSIZE ? n - c : NUMPY_BUFSIZE);
	return sum;
}

/*
 * The points of sorted x within reach r of p: [*lo, *hi).  All points when
 * x is not sorted or r is not a finite number.
 */
static void window(const double *x, size_t n, int sorted, double p, double r, size_t *lo,
		   size_t *hi)
{
	*lo = 0;
	*hi = n;
	if (!sorted || !isfinite(r) || !isfinite(p))
		return;
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (x[m] < p - r)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (x[m] <= p + r)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

/* exp(t) is exactly 0 for t below about -745.13: beyond this many
 * bandwidths a gaussian weight vanishes. */
#define GAUSS_REACH 38.8 /* sqrt(2 * 752) */

static int is_sorted(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!(x[i - 1] <= x[i]))
			return 0;
	return 1;
}

/* np.std(a, ddof=ddof); tmp holds n doubles. */
static double np_std(const double *a, size_t n, int ddof, double *tmp)
{
	double m = perun_mean(a, n);
	for (size_t i = 0; i < n; i++) {
		tmp[i] = a[i] - m;
		tmp[i] = tmp[i] * tmp[i];
	}
	return sqrt(perun_sum_pairwise(tmp, n) / (double)(n - (size_t)ddof));
}

/* ---- statsmodels KernelReg ---- */

/* kernels.gaussian(h, Xi, x) / h, as gpke returns it. */
static double gauss(double h, double d)
{
	return (1. / sqrt(2 * M_PI)) * exp(-(d * d) / (h * h * 2.)) / h;
}

/*
 * x on the integers (structure sizes, counts): a distance between two
 * points is an exact integer, so the kernel weight of each distance can be
 * computed once per bandwidth (the weights table) instead of once per pair
 * of points; the same numbers, bit for bit (gauss is even in d).  The
 * leave-one-out search evaluates millions of pairs per bandwidth over a
 * few hundred distinct distances.
 */
#define WEIGHTS_MAX ((size_t)1 << 20) /* distances tabled at most */
#define INTEGER_MAX 4503599627370496. /* 2^52: differences stay exact */

struct np_work {
	double *a, *b, *c, *d;
	int integer_x; /* every x an integer below INTEGER_MAX in magnitude */
	int even_x;    /* and evenly spaced: x[j] - x[i] depends on j - i only */
	/* The terms of the local linear fit that depend on x alone (its
	 * weights, d times them, m22) of the last window, for evenly spaced x:
	 * every window of the same shape (length, left-out point, bandwidth)
	 * has them, bit for bit. */
	double *xa, *xb, xm22;
	size_t xlen, xskip; /* the window's shape: SIZE_MAX, none yet */
	const double *xweights;
	double xbw, xdivisor, xd0; /* and its first point's d */
	int xnegate;
	double *weights; /* gauss(bw, d) / divisor for d = 0 .. nweights - 1 */
	size_t nweights, weights_alloc;
	double weights_bw, weights_divisor;
};

static int all_integers(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(fabs(x[i]) < INTEGER_MAX) || x[i] != floor(x[i]))
			return 0;
	return 1;
}

/* Integers x evenly spaced (their differences exact). */
static int evenly_spaced(const double *x, size_t n)
{
	for (size_t i = 2; i < n; i++)
		if (x[i] - x[i - 1] != x[1] - x[0])
			return 0;
	return 1;
}

static int work_alloc(struct np_work *w, const double *x, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->a = malloc(6 * (n ? n : 1) * sizeof(double));
	if (!w->a)
		return -1;
	w->b = w->a + n;
	w->c = w->b + n;
	w->d = w->c + n;
	w->xa = w->d + n;
	w->xb = w->xa + n;
	w->xlen = SIZE_MAX;
	w->integer_x = all_integers(x, n);
	w->even_x = w->integer_x && evenly_spaced(x, n);
	return 0;
}

static void work_free(struct np_work *w)
{
	free(w->a);
	free(w->weights);
}

/* The weights of distances 0 .. max_d for bw and divisor, or NULL when x
 * is not on the integers, the table would be too long or memory is short
 * (the caller then computes each weight). */
static const double *weights_upto(struct np_work *w, double bw, double divisor, double max_d)
{
	if (!w->integer_x || !(max_d < (double)WEIGHTS_MAX))
		return NULL;
	size_t need = (size_t)max_d + 1;
	if (memcmp(&bw, &w->weights_bw, sizeof(bw)) ||
	    memcmp(&divisor, &w->weights_divisor, sizeof(divisor)))
		w->nweights = 0; /* another bandwidth: start again */
	if (need <= w->nweights)
		return w->weights;
	if (need > w->weights_alloc) {
		size_t alloc = need > 2 * w->weights_alloc ? need : 2 * w->weights_alloc;
		double *grown = realloc(w->weights, alloc * sizeof(*grown));
		if (!grown)
			return NULL;
		w->weights = grown;
		w->weights_alloc = alloc;
	}
	for (size_t d = w->nweights; d < need; d++)
		w->weights[d] = gauss(bw, (double)d) / divisor;
	w->nweights = need;
	w->weights_bw = bw;
	w->weights_divisor = divisor;
	return w->weights;
}

/* numpy.linalg.pinv(M) @ V, first row: the local linear mean. */
static double pinv_first(double m00, double m01, double m11, double v0, double v1)
{
	double a[4] = { m00, m01, m01, m11 }, vv[4], s[2], work[2];
	gsl_matrix_view A = gsl_matrix_view_array(a, 2, 2);
	gsl_matrix_view Vm = gsl_matrix_view_array(vv, 2, 2);
	gsl_vector_view S = gsl_vector_view_array(s, 2);
	gsl_vector_view W = gsl_vector_view_array(work, 2);
	if (!isfinite(m00) || !isfinite(m01) || !isfinite(m11))
		return NAN;
	if (gsl_linalg_SV_decomp(&A.matrix, &Vm.matrix, &S.vector, &W.vector))
		return NAN;
	double cutoff = 1e-15 * fmax(s[0], s[1]), mean = 0;
	/* pinv = V diag(1/s) U^T; row 0 of it times (v0, v1). */
	for (int k = 0; k < 2; k++) {
		if (!(s[k] > cutoff))
			continue;
		double inv = 1 / s[k];
		double u_dot_v =
			gsl_matrix_get(&A.matrix, 0, k) * v0 + gsl_matrix_get(&A.matrix, 1, k) * v1;
		mean += gsl_matrix_get(&Vm.matrix, 0, k) * inv * u_dot_v;
	}
	return mean;
}

/* The local linear terms of the points from .. to - 1 at p, their kernel
 * weights from the table; returns m22 summed on from m22, in order. */
static double local_linear_terms(const double *x, const double *y, size_t from, size_t to, double p,
				 int negate, const double *weights, double *restrict wa,
				 double *restrict wb, double *restrict wc, double *restrict wd,
				 double m22)
{
	for (size_t j = from, m = 0; j < to; j++, m++) {
		double d = negate ? p - x[j] : x[j] - p;
		double ker = weights[(int64_t)fabs(d)];
		wa[m] = ker;
		wb[m] = d * ker;
		m22 += d * (d * ker);
		wc[m] = ker * y[j];
		wd[m] = d * wc[m];
	}
	return m22;
}

/* GCC vectorizes at -O2 only loops of a trip count it knows: these
 * loops over whole windows are worth the vector code. */
#if defined(__GNUC__) && !defined(__clang__)
#define KR_VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define KR_VECTORIZE
#endif

/* The terms of the points from .. to - 1 that depend on y, given the
 * weights wa of those points (see local_linear_terms). */
KR_VECTORIZE static void local_linear_y_terms(const double *restrict x, const double *restrict y,
					      size_t from, size_t to, double p, int negate,
					      const double *restrict wa, double *restrict wc,
					      double *restrict wd)
{
	size_t n = to > from ? to - from : 0;
	x += from;
	y += from;
	if (negate) {
		for (size_t m = 0; m < n; m++) {
			double c = wa[m] * y[m];
			wc[m] = c;
			wd[m] = (p - x[m]) * c;
		}
	} else {
		for (size_t m = 0; m < n; m++) {
			double c = wa[m] * y[m];
			wc[m] = c;
			wd[m] = (x[m] - p) * c;
		}
	}
}

/*
 * The estimate at p from the points other than skip (SIZE_MAX: all).  The
 * leave-one-out estimator passes negated data, which flips d = x - p.  Only
 * the points whose weight can be non-zero are visited (x sorted).
 */
static double np_estimate(enum kr_reg_type type, double bw, const double *x, const double *y,
			  size_t n, int sorted, size_t skip, double p, int negate,
			  struct np_work *w)
{
	size_t lo, hi, m = 0;
	window(x, n, sorted, p, fabs(bw) * GAUSS_REACH, &lo, &hi);
	/* Where the visited points sit in the vector numpy sums. */
	size_t len = n - (skip < n), off = lo - (skip < lo);
	/* Equal x give equal weights: a repeated x reuses the last one (Perun's
	 * profiles repeat their structure sizes a lot). */
	double last_x = NAN, k = 0, d = 0, ker = 0;
	/* p is one of x: its distances to the window's points are exact, the
	 * farthest at its ends (x sorted). */
	const double *weights = sorted && lo < hi
					? weights_upto(w, bw, type == KR_LC ? 1. : (double)len,
						       fmax(fabs(p - x[lo]), fabs(x[hi - 1] - p)))
					: NULL;
	if (type == KR_LC) {
		for (size_t j = lo; j < hi; j++) {
			if (j == skip)
				continue;
			if (!(x[j] == last_x)) {
				/* gauss(h, d) / 1 is gauss(h, d) */
				k = weights ? weights[(int64_t)fabs(x[j] - p)]
					    : gauss(bw, negate ? p - x[j] : x[j] - p);
				last_x = x[j];
			}
			w->a[m] = k * y[j];
			w->b[m++] = k;
		}
		return sum_window(w->a, off, m, len) / sum_window(w->b, off, m, len);
	}
	double nobs = (double)len;
	double m22 = 0;
	/* In locals: the stores below would otherwise reload them. */
	double *restrict wa = w->a, *restrict wb = w->b, *restrict wc = w->c, *restrict wd = w->d;
	if (weights) {
		/* Equal x meet equal distances in the table: no test of the
		 * last x, and the skipped point splits the loop in two. */
		size_t split = skip >= lo && skip < hi ? skip : hi;
		m = split - lo;
		double d0 = negate ? p - x[lo] : x[lo] - p;
		if (w->even_x && w->xlen == hi - lo && w->xd0 == d0 && w->xskip == split - lo &&
		    w->xweights == weights && w->xnegate == negate &&
		    !memcmp(&w->weights_bw, &w->xbw, sizeof(bw)) &&
		    !memcmp(&w->weights_divisor, &w->xdivisor, sizeof(bw))) {
			/* A window of the shape before: its x terms are those. */
			wa = w->xa;
			wb = w->xb;
			m22 = w->xm22;
			local_linear_y_terms(x, y, lo, split, p, negate, wa, wc, wd);
			if (split < hi)
				local_linear_y_terms(x, y, split + 1, hi, p, negate, wa + m, wc + m,
						     wd + m);
		} else {
			if (w->even_x) {
				wa = w->xa;
				wb = w->xb;
			}
			m22 = local_linear_terms(x, y, lo, split, p, negate, weights, wa, wb, wc,
						 wd, 0);
			if (split < hi)
				m22 = local_linear_terms(x, y, split + 1, hi, p, negate, weights,
							 wa + m, wb + m, wc + m, wd + m, m22);
			if (w->even_x) {
				w->xlen = hi - lo;
				w->xskip = split - lo;
				w->xweights = weights;
				w->xnegate = negate;
				w->xbw = w->weights_bw;
				w->xdivisor = w->weights_divisor;
				w->xd0 = d0;
				w->xm22 = m22;
			}
		}
		m = hi - lo - (split < hi);
		return pinv_first(sum_window(wa, off, m, len), sum_window(wb, off, m, len), m22,
				  sum_window(wc, off, m, len), sum_window(wd, off, m, len));
	}
	for (size_t j = lo; j < hi; j++) {
		if (j == skip)
			continue;
		if (!(x[j] == last_x)) {
			d = negate ? p - x[j] : x[j] - p;
			ker = weights ? weights[(int64_t)fabs(d)] : gauss(bw, d) / nobs;
			last_x = x[j];
		}
		wa[m] = ker;
		wb[m] = d * ker;
		m22 += d * (d * ker);
		wc[m] = ker * y[j];
		wd[m] = d * wc[m];
		m++;
	}
	return pinv_first(sum_window(w->a, off, m, len), sum_window(w->b, off, m, len), m22,
			  sum_window(w->c, off, m, len), sum_window(w->d, off, m, len));
}

int kr_np_fit(enum kr_reg_type type, double bw, const double *x, const double *y, size_t n,
	      double *out, struct kr_fail *fail)
{
	struct np_work w;
	if (work_alloc(&w, x, n))
		return nomem(fail);
	int sorted = is_sorted(x, n);
	for (size_t i = 0; i < n; i++)
		out[i] = np_estimate(type, bw, x, y, n, sorted, SIZE_MAX, x[i], 0, &w);
	work_free(&w);
	return 0;
}

struct objective {
	enum kr_reg_type type;
	enum kr_bw_method method;
	const double *x, *y;
	size_t n;
	int sorted;
	struct np_work w;
	double *fit;
};

/* KernelReg.cv_loo: the leave-one-out squared error. */
static double cv_loo(struct objective *o, double bw)
{
	double l = 0;
	for (size_t i = 0; i < o->n; i++) {
		double g =
			np_estimate(o->type, bw, o->x, o->y, o->n, o->sorted, i, o->x[i], 1, &o->w);
		l += (o->y[i] - g) * (o->y[i] - g);
	}
	return l / (double)o->n;
}

/* KernelReg.aic_hurvich: Hurvich's corrected AIC. */
static double aic_hurvich(struct objective *o, double bw)
{
	size_t n = o->n;
	double *diag = o->w.d; /* H[i][i] / denom[i], summed as np.trace */
	for (size_t i = 0; i < n; i++) {
		size_t lo, hi;
		window(o->x, n, o->sorted, o->x[i], fabs(bw) * GAUSS_REACH, &lo, &hi);
		for (size_t j = lo; j < hi; j++)
			o->w.c[j - lo] = j > lo && o->x[j] == o->x[j - 1]
						 ? o->w.c[j - lo - 1]
						 : gauss(bw, o->x[j] - o->x[i]);
		diag[i] = gauss(bw, 0) / sum_window(o->w.c, lo, hi - lo, n);
	}
	double trace = perun_sum_pairwise(diag, n);
	for (size_t i = 0; i < n; i++)
		o->fit[i] = np_estimate(o->type, bw, o->x, o->y, n, o->sorted, SIZE_MAX, o->x[i], 0,
					&o->w);
	for (size_t i = 0; i < n; i++)
		o->fit[i] = (o->y[i] - o->fit[i]) * (o->y[i] - o->fit[i]);
	double sigma = perun_sum_pairwise(o->fit, n) / (double)n;
	double frac = (1 + trace / (double)n) / (1 - (trace + 2) / (double)n);
	return log(sigma) + frac;
}

static double objective_at(struct objective *o, double bw)
{
	return o->method == KR_CV_LS ? cv_loo(o, bw) : aic_hurvich(o, bw);
}

/*
 * scipy.optimize.fmin (Nelder-Mead, xtol = ftol = 1e-4, at most 1000
 * iterations and 1000 evaluations) in one dimension, following scipy's
 * order of steps and its stable sort with NaN last, so that the search
 * takes Perun's path.
 */
struct nm {
	struct objective *o;
	unsigned calls;
};

#define NM_MAXFUN  1000u
#define NM_MAXITER 1000u

static int nm_eval(struct nm *nm, double x, double *fx)
{
	if (nm->calls >= NM_MAXFUN)
		return 0;
	nm->calls++;
	*fx = objective_at(nm->o, x);
	return 1;
}

static void nm_sort(double sim[2], double fsim[2])
{
	if (fsim[1] < fsim[0] || (isnan(fsim[0]) && !isnan(fsim[1]))) {
		double t = sim[0];
		sim[0] = sim[1];
		sim[1] = t;
		t = fsim[0];
		fsim[0] = fsim[1];
		fsim[1] = t;
	}
}

static double fmin_1d(struct objective *o, double x0)
{
	struct nm nm = { .o = o };
	double sim[2] = { x0, x0 != 0 ? (1 + 0.05) * x0 : 0.00025 };
	double fsim[2] = { INFINITY, INFINITY };
	unsigned iterations = 1;
	if (nm_eval(&nm, sim[0], &fsim[0]))
		nm_eval(&nm, sim[1], &fsim[1]);
	nm_sort(sim, fsim);
	while (nm.calls < NM_MAXFUN && iterations < NM_MAXITER) {
		if (fabs(sim[1] - sim[0]) <= 1e-4 && fabs(fsim[0] - fsim[1]) <= 1e-4)
			break;
		double xbar = sim[0], fxr, fxe, fxc;
		double xr = 2 * xbar - sim[1];
		if (!nm_eval(&nm, xr, &fxr))
			goto sort;
		if (fxr < fsim[0]) {
			double xe = 3 * xbar - 2 * sim[1];
			if (!nm_eval(&nm, xe, &fxe))
				goto sort;
			if (fxe < fxr) {
				sim[1] = xe;
				fsim[1] = fxe;
			} else {
				sim[1] = xr;
				fsim[1] = fxr;
			}
		} else {
			/* scipy's "fxr < fsim[-2]" cannot hold: fsim[-2] is fsim[0]. */
			int shrink = 0;
			if (fxr < fsim[1]) {
				double xc = 1.5 * xbar - 0.5 * sim[1];
				if (!nm_eval(&nm, xc, &fxc))
					goto sort;
				if (fxc <= fxr) {
					sim[1] = xc;
					fsim[1] = fxc;
				} else {
					shrink = 1;
				}
			} else {
				double xcc = 0.5 * xbar + 0.5 * sim[1];
				if (!nm_eval(&nm, xcc, &fxc))
					goto sort;
				if (fxc < fsim[1]) {
					sim[1] = xcc;
					fsim[1] = fxc;
				} else {
					shrink = 1;
				}
			}
			if (shrink) {
				sim[1] = sim[0] + 0.5 * (sim[1] - sim[0]);
				if (!nm_eval(&nm, sim[1], &fsim[1]))
					goto sort;
			}
		}
		iterations++;
	sort:
		nm_sort(sim, fsim);
	}
	return sim[0];
}

/* The bandwidth of KernelReg._compute_reg_bw for a string bw. */
static int np_search(enum kr_reg_type type, enum kr_bw_method method, const double *x,
		     const double *y, size_t n, double *bw, struct kr_fail *fail)
{
	struct objective o = { type, method, x, y, n, is_sorted(x, n), { 0 }, NULL };
	if (work_alloc(&o.w, x, n) || !(o.fit = malloc((n ? n : 1) * sizeof(double)))) {
		work_free(&o.w);
		return nomem(fail);
	}
	double h0 = 1.06 * np_std(x, n, 0, o.w.a) * pow((double)n, -1. / (4 + 1));
	/* statsmodels fails there (its SVD does not converge on NaN). */
	if (h0 == 0 || !isfinite(h0)) {
		work_free(&o.w);
		free(o.fit);
		return failf(fail, KR_DEGENERATE,
			     "all x values are equal: no bandwidth to search for");
	}
	*bw = fmin_1d(&o, h0);
	work_free(&o.w);
	free(o.fit);
	return 0;
}

/* scipy.stats.mstats.mquantiles(a, p) with its default alphap = betap = 0.4
 * on sorted data. */
static double mquantile(const double *sorted, size_t n, double p)
{
	double m = 0.4 + p * (1. - 0.4 - 0.4);
	double aleph = (double)n * p + m;
	double k = floor(fmin(fmax(aleph, 1), (double)n - 1));
	double gamma = fmin(fmax(aleph - k, 0), 1);
	size_t ki = (size_t)k;
	double below = ki ? sorted[ki - 1] : sorted[n - 1]; /* Python's x[-1] */
	return (1. - gamma) * below + gamma * sorted[ki];
}

/* _compute_min_std_IQR: min(std, IQR / 1.349); tmp holds 2n doubles. */
static double dispersion(const double *x, size_t n, double *tmp)
{
	double s1 = np_std(x, n, 0, tmp);
	memcpy(tmp, x, n * sizeof(double));
	gsl_sort(tmp, 1, n);
	double s2 = (mquantile(tmp, n, 0.75) - mquantile(tmp, n, 0.25)) / 1.349;
	return isnan(s1) || isnan(s2) ? NAN : fmin(s1, s2);
}

/* GenericKDE._compute_efficient for one continuous variable. */
static int np_efficient(enum kr_reg_type type, enum kr_bw_method method,
			const struct kr_efficient *eff, const double *x, const double *y, size_t n,
			double *bw, struct kr_fail *fail)
{
	size_t n_sub = eff->n_sub, blocks;
	if (eff->randomize)
		blocks = eff->n_res;
	else
		blocks = n / n_sub + (n % n_sub > 0);
	size_t cap = n > n_sub ? n : n_sub;
	double *scale = malloc(blocks * sizeof(double));
	double *sx = malloc(cap * sizeof(double)), *sy = malloc(cap * sizeof(double));
	double *tmp = malloc(2 * cap * sizeof(double));
	size_t *order = malloc(n * sizeof(size_t));
	int rc = 0;
	if (!scale || !sx || !sy || !tmp || !order) {
		rc = nomem(fail);
		goto out;
	}
	for (size_t b = 0; b < blocks; b++) {
		size_t len;
		if (eff->randomize) {
			/* Every block shuffles a fresh copy of the data (joblib
			 * pickles it per task) and takes its head. */
			for (size_t i = 0; i < n; i++)
				order[i] = i;
			gsl_ran_shuffle(eff->rng, order, n, sizeof(size_t));
			len = n < n_sub ? n : n_sub;
			for (size_t i = 0; i < len; i++) {
				sx[i] = x[order[i]];
				sy[i] = y[order[i]];
			}
		} else {
			size_t from = b * n_sub;
			len = n - from < n_sub ? n - from : n_sub;
			memcpy(sx, x + from, len * sizeof(double));
			memcpy(sy, y + from, len * sizeof(double));
		}
		double sub_bw;
		rc = np_search(type, method, sx, sy, len, &sub_bw, fail);
		if (rc == KR_DEGENERATE) {
			char why[sizeof(fail->message)];
			memcpy(why, fail->message, sizeof(why));
			failf(fail, rc, "sub-sample %zu of %zu: %s", b + 1, blocks, why);
		}
		if (rc)
			goto out;
		double fct = dispersion(sx, len, tmp) * pow((double)n_sub, -1. / (1 + 4));
		scale[b] = sub_bw / fct;
	}
	double s = dispersion(x, n, tmp), m_scale;
	if (eff->return_median) {
		gsl_sort(scale, 1, blocks);
		m_scale = gsl_stats_median_from_sorted_data(scale, 1, blocks);
	} else {
		m_scale = perun_mean(scale, blocks);
	}
	*bw = m_scale * s * pow((double)n, -1. / (1 + 4));
out:
	free(scale);
	free(sx);
	free(sy);
	free(tmp);
	free(order);
	return rc;
}

int kr_np_select_bw(enum kr_reg_type type, enum kr_bw_method method, const struct kr_efficient *eff,
		    const double *x, const double *y, size_t n, double *bw, struct kr_fail *fail)
{
	int rc = eff && eff->enabled ? np_efficient(type, method, eff, x, y, n, bw, fail)
				     : np_search(type, method, x, y, n, bw, fail);
	if (!rc && !isfinite(*bw))
		rc = failf(fail, KR_DEGENERATE, "the %s bandwidth search found no finite bandwidth",
			   method == KR_CV_LS ? "cv_ls" : "aic");
	return rc;
}

double kr_np_r_squared(const double *y, const double *fit, size_t n)
{
	/* Constant y: the formula is 0/0 but for the rounding noise of the
	 * estimates, so the value would be noise; statsmodels' is NaN. */
	size_t same = 1;
	while (same < n && y[same] == y[0])
		same++;
	if (same == n)
		return NAN;
	double *t = malloc(3 * n * sizeof(double));
	if (!t)
		return NAN;
	double ybar = perun_mean(fit, n);
	for (size_t i = 0; i < n; i++) {
		t[i] = (y[i] - ybar) * (fit[i] - ybar);
		t[n + i] = (y[i] - ybar) * (y[i] - ybar);
		t[2 * n + i] = (fit[i] - ybar) * (fit[i] - ybar);
	}
	double numer = perun_sum_pairwise(t, n);
	numer = numer * numer;
	double denom = perun_sum_pairwise(t + n, n) * perun_sum_pairwise(t + 2 * n, n);
	free(t);
	return numer / denom;
}

/* scipy.stats.scoreatpercentile(sorted, per), interpolation 'fraction'. */
static double score_at(const double *sorted, size_t n, double per)
{
	double idx = per / 100. * (double)(n - 1);
	size_t i = (size_t)idx;
	if ((double)i == idx)
		return sorted[i];
	double w0 = (double)(i + 1) - idx, w1 = idx - (double)i;
	return (sorted[i] * w0 + sorted[i + 1] * w1) / (w0 + w1);
}

int kr_rule_bw(enum kr_rule rule, const double *x, size_t n, double *bw, struct kr_fail *fail)
{
	double *tmp = malloc(n * sizeof(double));
	if (!tmp)
		return nomem(fail);
	memcpy(tmp, x, n * sizeof(double));
	gsl_sort(tmp, 1, n);
	double iqr = (score_at(tmp, n, 75) - score_at(tmp, n, 25)) / 1.349;
	double a = np_std(x, n, 1, tmp);
	free(tmp);
	if (iqr > 0)
		a = isnan(a) ? a : fmin(a, iqr);
	*bw = (rule == KR_SCOTT ? 1.059 : .9) * a * pow((double)n, -0.2);
	if (*bw == 0 || !isfinite(*bw))
		return failf(fail, KR_DEGENERATE, "the %s bandwidth is %g: all x values are equal",
			     rule == KR_SCOTT ? "scott" : "silverman", *bw);
	return 0;
}

/* ---- pyqt_fit ---- */

int kr_covariance_bw(enum kr_rule rule, const double *x, size_t n, double *bw, struct kr_fail *fail)
{
	double m = perun_mean(x, n), dot = 0;
	for (size_t i = 0; i < n; i++)
		dot += (x[i] - m) * (x[i] - m);
	double cov = dot * (1. / (double)(n - 1));
	double factor = rule == KR_SCOTT ? pow((double)n, -1.0 / (1 + 4.0))
					 : pow((double)n * (1 + 2.0) / 4.0, -1.0 / (1 + 4.0));
	*bw = sqrt(cov * factor * factor);
	if (*bw == 0 || !isfinite(*bw))
		return failf(fail, KR_DEGENERATE, "the %s bandwidth is %g: all x values are equal",
			     rule == KR_SCOTT ? "scott" : "silverman", *bw);
	return 0;
}

static double kernel_pdf(enum kr_kernel kernel, double z)
{
	static const double s2pi = 2.5066282746310002; /* np.sqrt(2.0 * np.pi) */
	double u;
	switch (kernel) {
	case KR_NORMAL: return exp(z * z * -0.5) / s2pi;
	case KR_NORMAL4: return exp(z * z * -0.5) / s2pi * ((3 - z * z) / 2);
	case KR_TRICUBE: {
		const double width = sqrt(35.0 / 243);
		u = z * width;
		if (!(u > -1 && u < 1))
			return 0;
		return 70.0 / 81 * pow(1 - pow(fabs(u), 3.0), 3.0) * width;
	}
	case KR_EPANECHNIKOV: {
		const double width = 1.0 / sqrt(5.0);
		u = z * width;
		if (!(u > -1 && u < 1))
			return 0;
		return (0.75 * width) * (1 - u * u);
	}
	case KR_EPANECHNIKOV4:
		if (z < -1 || z > 1)
			return 0;
		return z * z * (-15 / 8.0) + 9.0 / 8.0;
	}
	return 0;
}

/* How many bandwidths away a kernel's weight is exactly 0 (1% to spare). */
static double kernel_reach(enum kr_kernel kernel)
{
	switch (kernel) {
	case KR_EPANECHNIKOV: return 2.2361 * 1.01; /* sqrt(5) */
	case KR_TRICUBE: return 2.6352 * 1.01;	    /* 1 / sqrt(35 / 243) */
	case KR_EPANECHNIKOV4: return 1.01;
	default: return GAUSS_REACH;
	}
}

/* SpatialAverage: each estimate sums the data points in pyqt_fit's order,
 * skipping only those whose weight is exactly 0. */
static void spatial_average(enum kr_kernel kernel, double bw, const double *x, const double *y,
			    size_t n, double *out)
{
	double inv_bw = 1 / bw, reach = fabs(bw) * kernel_reach(kernel);
	int sorted = is_sorted(x, n);
	for (size_t j = 0; j < n; j++) {
		size_t lo, hi;
		double sum = 0, norm = 0;
		window(x, n, sorted, x[j], reach, &lo, &hi);
		double energy = 0;
		for (size_t i = lo; i < hi; i++) {
			if (i == lo || x[i] != x[i - 1])
				energy = kernel_pdf(kernel, inv_bw * (1.0 * (x[i] - x[j])));
			sum += y[i] * energy;
			norm += energy;
		}
		out[j] = norm > 0 ? sum / norm : sum;
	}
}

static void local_linear(double bw, const double *x, const double *y, size_t n, double *out)
{
	double h2 = 2.0 * bw * bw;
	int sorted = is_sorted(x, n);
	for (size_t j = 0; j < n; j++) {
		double sx = 0, sx2 = 0, sy = 0, sy2 = 0, w = 0;
		size_t lo, hi;
		window(x, n, sorted, x[j], fabs(bw) * GAUSS_REACH, &lo, &hi);
		double x0 = 0, x02 = 0, wi = 0;
		for (size_t i = lo; i < hi; i++) {
			if (i == lo || x[i] != x[i - 1]) {
				x0 = x[j] - x[i];
				x02 = x0 * x0;
				wi = exp(-x02 / h2);
			}
			double wy = wi * y[i];
			sx += wi * x0;
			sx2 += wi * x02;
			sy += wy;
			sy2 += wy * x0;
			w += wi;
		}
		out[j] = (sx2 * sy - sy2 * sx) / (w * sx2 - sx * sx);
	}
}

/* LocalPolynomialKernel1D; 1 when a system is exactly singular (scipy's
 * LinAlgError), 0 done, negative out of memory. */
static int local_polynomial(enum kr_kernel kernel, int q, double bw, const double *x,
			    const double *y, size_t n, double *out)
{
	size_t m = (size_t)q + 1;
	double *xwx = malloc((m * m + 3 * m) * sizeof(double)), *rhs, *sol, *pw;
	if (!xwx)
		return -1;
	rhs = xwx + m * m;
	sol = rhs + m;
	pw = sol + m;
	gsl_permutation *perm = gsl_permutation_alloc(m);
	if (!perm) {
		free(xwx);
		return -1;
	}
	int rc = 0, sorted = is_sorted(x, n);
	/* A point of weight 0 adds 0 * dx^a = 0, unless dx^a overflows
	 * (then numpy's product is NaN): skip such points only when no power
	 * can overflow. */
	double reach = fabs(bw) * kernel_reach(kernel);
	if (!sorted || !isfinite(pow(x[n - 1] - x[0], (double)q)))
		reach = INFINITY;
	for (size_t j = 0; j < n && !rc; j++) {
		size_t lo, hi;
		memset(xwx, 0, (m * m + m) * sizeof(double));
		window(x, n, sorted, x[j], reach, &lo, &hi);
		for (size_t i = lo; i < hi; i++) {
			double dx = x[i] - x[j], wx = kernel_pdf(kernel, dx / bw);
			/* np.power(dX, [0..q]): pow, which is exact for 0 and 1. */
			pw[0] = 1;
			if (m > 1)
				pw[1] = dx;
			for (size_t a = 2; a < m; a++)
				pw[a] = pow(dx, (double)a);
			for (size_t a = 0; a < m; a++) {
				for (size_t b = 0; b < m; b++)
					xwx[a * m + b] += pw[a] * (wx * pw[b]);
				rhs[a] += wx * pw[a] * y[i];
			}
		}
		gsl_matrix_view A = gsl_matrix_view_array(xwx, m, m);
		gsl_vector_view B = gsl_vector_view_array(rhs, m);
		gsl_vector_view X = gsl_vector_view_array(sol, m);
		int sign;
		gsl_linalg_LU_decomp(&A.matrix, perm, &sign);
		for (size_t a = 0; a < m && !rc; a++)
			if (xwx[a * m + a] == 0)
				rc = 1;
		if (!rc && gsl_linalg_LU_solve(&A.matrix, perm, &B.vector, &X.vector))
			rc = 1;
		out[j] = sol[0];
	}
	gsl_permutation_free(perm);
	free(xwx);
	return rc;
}

/* Perun's iterative_computation gives up never; we do after this many. */
#define KR_MAX_RETRIES 100000

int kr_smooth(enum kr_kernel kernel, enum kr_smoothing method, int order, double *bw,
	      const double *x, const double *y, size_t n, double *out, struct kr_fail *fail)
{
	/* LocalPolynomialKernel of order 1 is LocalLinearKernel1D. */
	if (method == KR_LOCAL_POLYNOMIAL && order == 1)
		method = KR_LOCAL_LINEAR;
	if (method == KR_SPATIAL_AVERAGE) {
		spatial_average(kernel, *bw, x, y, n, out);
		return 0;
	}
	if (method == KR_LOCAL_LINEAR) {
		local_linear(*bw, x, y, n, out);
		return 0;
	}
	for (long tries = 0; tries < KR_MAX_RETRIES; tries++) {
		int rc = local_polynomial(kernel, order, *bw, x, y, n, out);
		if (rc < 0)
			return nomem(fail);
		if (!rc)
			return 0;
		*bw += 1;
	}
	return failf(fail, KR_DEGENERATE,
		     "the local-polynomial system stays singular up to bandwidth %g", *bw);
}

/* ---- kernel-ridge ---- */

/* sklearn's squared euclidean distance of two scalars (the norms trick). */
static double sq_distance(double a, double b)
{
	double d = -2 * (a * b);
	d += a * a;
	d += b * b;
	return d > 0 ? d : 0;
}

/*
 * Column j of the rbf kernel matrix times y and its sum, over i (axis 0),
 * visiting the points within reach: beyond it gamma * distance exceeds
 * 760 even with the rounding of the norms trick, so exp gives exactly 0.
 */
static void rbf_column(double gamma, const double *x, const double *y, size_t n, int sorted,
		       double reach, size_t j, int loo, double *num, double *den)
{
	double s = 0, t = 0, last_x = NAN, last_k = 0;
	size_t lo, hi;
	window(x, n, sorted, x[j], reach, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		double k;
		if (i == j) {
			k = loo ? 0 : 1;
		} else if (x[i] == last_x) {
			k = last_k;
		} else {
			k = last_k = exp(sq_distance(x[i], x[j]) * -gamma);
			last_x = x[i];
		}
		s += k * y[i];
		t += k;
	}
	*num = s;
	*den = t;
}

static double rbf_reach(double gamma, const double *x, size_t n)
{
	double big = n ? fmax(x[0] * x[0], x[n - 1] * x[n - 1]) : 0;
	return sqrt(760 / gamma + 1e-15 * big);
}

int kr_ridge(double lo, double hi, double step, const double *x, const double *y, size_t n,
	     double *gamma, double *out, struct kr_fail *fail)
{
	double count = ceil((hi - lo) / step);
	if (!(count >= 1) || count > 1e7)
		return failf(fail, KR_DEGENERATE, "the gamma range [%g, %g) by %g is empty", lo, hi,
			     step);
	size_t ng = (size_t)count, best = SIZE_MAX;
	double delta = (lo + step) - lo, best_mse = NAN;
	double *err = malloc(n * sizeof(double));
	int sorted = is_sorted(x, n);
	if (!err)
		return nomem(fail);
	for (size_t g = 0; g < ng; g++) {
		double gv = g == 0 ? lo : g == 1 ? lo + step : lo + (double)g * delta;
		double reach = gv > 0 ? rbf_reach(gv, x, n) : INFINITY;
		for (size_t j = 0; j < n; j++) {
			double num, den;
			rbf_column(gv, x, y, n, sorted, reach, j, 1, &num, &den);
			err[j] = num / den - y[j];
			err[j] = err[j] * err[j];
		}
		double mse = perun_sum_pairwise(err, n) / (double)n;
		/* np.nanargmin: the first least value that is not NaN. */
		if (!isnan(mse) && (best == SIZE_MAX || mse < best_mse)) {
			best = g;
			best_mse = mse;
		}
	}
	free(err);
	if (best == SIZE_MAX)
		best = 0;
	*gamma = best == 0 ? lo : best == 1 ? lo + step : lo + (double)best * delta;
	double reach = *gamma > 0 ? rbf_reach(*gamma, x, n) : INFINITY;
	for (size_t j = 0; j < n; j++) {
		double num, den;
		rbf_column(*gamma, x, y, n, sorted, reach, j, 0, &num, &den);
		out[j] = num / den;
	}
	return 0;
}
