/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of kernel.c (included, so its static helpers are reachable):
 * the windowed sums and estimators must give bit for bit what the dense
 * computation gives -- every point visited, numpy's pairwise sums over the
 * whole vector with its 8192-element chunks -- on series long enough to
 * cross the chunks, which the oracle cases (at most 14 points) never do;
 * and the quantile rules against values computed with scipy.
 */
#include <string.h>

#include "../kernel.c"
#include "../../../../tests/tap.h"

static unsigned long long lcg = 12345;

static double next_random(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / 9007199254740992.0 - 0.5;
}

static int same(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a)) || (isnan(a) && isnan(b));
}

static void test_sum_window(void)
{
	static const size_t sizes[] = { 1,   5,	  7,	8,    9,    100,  128,
					129, 300, 1000, 8191, 8192, 8193, 20000 };
	int ok = 1, cases = 0;
	double *dense = calloc(20000, sizeof(double)), *part = malloc(20000 * sizeof(double));
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		for (int trial = 0; trial < 25; trial++) {
			size_t off = (size_t)((next_random() + 0.5) * (double)n) % n;
			size_t cnt = (size_t)((next_random() + 0.5) * (double)(n - off + 1));
			if (off + cnt > n)
				cnt = n - off;
			memset(dense, 0, n * sizeof(double));
			for (size_t i = 0; i < cnt; i++)
				part[i] = dense[off + i] = next_random() * 1e3;
			if (!same(sum_window(part, off, cnt, n), perun_sum_pairwise(dense, n))) {
				ok = 0;
				tap_ok(0, "sum_window n=%zu off=%zu cnt=%zu", n, off, cnt);
			}
			cases++;
		}
	}
	tap_ok(ok, "sum_window equals the dense pairwise sum (%d windows, up to 20000 elements)",
	       cases);
	free(dense);
	free(part);
}

/* The series: sorted x with repeats and gaps, wavy y. */
static void series(double *x, double *y, size_t n)
{
	double v = 0;
	for (size_t i = 0; i < n; i++) {
		v += (i % 7 == 0) ? 0 : 0.5 + (next_random() + 0.5) * 2;
		x[i] = v;
		y[i] = 3 * v + 50 * sin(v / 40) + next_random() * 10;
	}
}

/* KernelReg's estimate at p with every point weighed (gpke over all). */
static double dense_np(enum kr_reg_type type, double bw, const double *x, const double *y, size_t n,
		       double p, double *a, double *b, double *c, double *d)
{
	if (type == KR_LC) {
		for (size_t j = 0; j < n; j++) {
			double k = gauss(bw, x[j] - p);
			a[j] = k * y[j];
			b[j] = k;
		}
		return perun_sum_pairwise(a, n) / perun_sum_pairwise(b, n);
	}
	double m22 = 0;
	for (size_t j = 0; j < n; j++) {
		double dd = x[j] - p, ker = gauss(bw, dd) / (double)n;
		a[j] = ker;
		b[j] = dd * ker;
		m22 += dd * (dd * ker);
		c[j] = ker * y[j];
		d[j] = dd * c[j];
	}
	return pinv_first(perun_sum_pairwise(a, n), perun_sum_pairwise(b, n), m22,
			  perun_sum_pairwise(c, n), perun_sum_pairwise(d, n));
}

/* Every STRIDE-th estimate is checked against the dense computation (the
 * windows near both ends and across the middle all come up). */
#define STRIDE 37

static void test_estimators(size_t n)
{
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	double *out = malloc(n * sizeof(double)), *a = malloc(4 * n * sizeof(double));
	struct kr_fail fail;
	series(x, y, n);
	for (int t = KR_LC; t <= KR_LL; t++) {
		double bw = 3.5;
		int ok = !kr_np_fit((enum kr_reg_type)t, bw, x, y, n, out, &fail);
		size_t bad = n;
		for (size_t i = 0; ok && i < n; i += STRIDE)
			if (!same(out[i], dense_np((enum kr_reg_type)t, bw, x, y, n, x[i], a, a + n,
						   a + 2 * n, a + 3 * n)))
				ok = 0, bad = i;
		tap_ok(ok, "%s fit on %zu points equals the dense one (first difference: %zu)",
		       t == KR_LC ? "lc" : "ll", n, bad);
	}

	/* pyqt_fit SpatialAverage and local_linear_1d: sequential over all points. */
	static const enum kr_kernel kernels[] = { KR_EPANECHNIKOV, KR_TRICUBE, KR_NORMAL,
						  KR_EPANECHNIKOV4, KR_NORMAL4 };
	for (size_t k = 0; k < 5; k++) {
		double bw = 2.25;
		int ok = !kr_smooth(kernels[k], KR_SPATIAL_AVERAGE, 3, &bw, x, y, n, out, &fail);
		for (size_t j = 0; ok && j < n; j += STRIDE) {
			double sum = 0, norm = 0;
			for (size_t i = 0; i < n; i++) {
				double e = kernel_pdf(kernels[k], (1 / bw) * (1.0 * (x[i] - x[j])));
				sum += y[i] * e;
				norm += e;
			}
			ok = same(out[j], norm > 0 ? sum / norm : sum); /* pyqt_fit keeps the sum */
		}
		tap_ok(ok, "spatial-average, kernel %zu, on %zu points equals the dense one", k, n);
	}
	double bw = 1.75;
	int ok = !kr_smooth(KR_NORMAL, KR_LOCAL_LINEAR, 1, &bw, x, y, n, out, &fail);
	for (size_t j = 0; ok && j < n; j += STRIDE) {
		double sx = 0, sx2 = 0, sy = 0, sy2 = 0, w = 0;
		for (size_t i = 0; i < n; i++) {
			double x0 = x[j] - x[i], x02 = x0 * x0, wi = exp(-x02 / (2.0 * bw * bw));
			sx += wi * x0;
			sx2 += wi * x02;
			sy += wi * y[i];
			sy2 += wi * y[i] * x0;
			w += wi;
		}
		ok = same(out[j], (sx2 * sy - sy2 * sx) / (w * sx2 - sx * sx));
	}
	tap_ok(ok, "local-linear on %zu points equals the dense one", n);

	/* Perun's KernelRidge.predict: every point of the rbf column. */
	double gamma;
	ok = !kr_ridge(0.05, 0.3, 0.05, x, y, n, &gamma, out, &fail);
	for (size_t j = 0; ok && j < n; j += STRIDE) {
		double s = 0, t = 0;
		for (size_t i = 0; i < n; i++) {
			double k = i == j ? 1 : exp(sq_distance(x[i], x[j]) * -gamma);
			s += k * y[i];
			t += k;
		}
		ok = same(out[j], s / t);
	}
	tap_ok(ok, "kernel-ridge (gamma %g) on %zu points equals the dense one", gamma, n);
	free(x);
	free(y);
	free(out);
	free(a);
}

static void test_quantiles(void)
{
	double s4[] = { 1, 2, 3, 4 }, s5[] = { 2, 3, 5, 7, 11 };
	/* scipy.stats.scoreatpercentile and mstats.mquantiles (alphap = betap = 0.4) */
	tap_ok(score_at(s4, 4, 75) == 3.25 && score_at(s4, 4, 25) == 1.75 &&
		       score_at(s5, 5, 75) == 7,
	       "scoreatpercentile: 3.25, 1.75, 7");
	tap_ok(fabs(mquantile(s4, 4, 0.75) - 3.55) < 1e-15 &&
		       fabs(mquantile(s4, 4, 0.25) - 1.45) < 1e-15 &&
		       fabs(mquantile(s5, 5, 0.75) - 8.2) < 1e-14,
	       "mquantiles: 3.55, 1.45, 8.2");
	double bw;
	struct kr_fail fail;
	double same_x[] = { 4, 4, 4 };
	tap_ok(kr_rule_bw(KR_SCOTT, same_x, 3, &bw, &fail) == KR_DEGENERATE &&
		       strstr(fail.message, "all x values are equal"),
	       "no rule-of-thumb bandwidth for equal x: %s", fail.message);
}

/* KernelReg's leave-one-out estimate at x[skip] (the points negated, as
 * cv_loo passes them) with every other point weighed. */
static double dense_loo(double bw, const double *x, const double *y, size_t n, size_t skip,
			double *a, double *b, double *c, double *d)
{
	double m22 = 0, p = x[skip];
	size_t m = 0;
	for (size_t j = 0; j < n; j++) {
		if (j == skip)
			continue;
		double dd = p - x[j], ker = gauss(bw, dd) / (double)(n - 1);
		a[m] = ker;
		b[m] = dd * ker;
		m22 += dd * (dd * ker);
		c[m] = ker * y[j];
		d[m] = dd * c[m];
		m++;
	}
	return pinv_first(perun_sum_pairwise(a, m), perun_sum_pairwise(b, m), m22,
			  perun_sum_pairwise(c, m), perun_sum_pairwise(d, m));
}

/*
 * Evenly spaced integer x, whose windows of one shape share their x terms:
 * every estimate, near the ends (windows cut short, of equal lengths on
 * both sides) and in the middle, with and without the point left out.
 */
static void test_even_x(size_t n, double bw)
{
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	double *out = malloc(n * sizeof(double)), *a = malloc(4 * n * sizeof(double));
	struct kr_fail fail;
	struct np_work w;
	for (size_t i = 0; i < n; i++) {
		x[i] = 5 + 3 * (double)i;
		y[i] = 3 * x[i] + 20 * sin(x[i] / 50) + next_random() * 10;
	}
	int ok = !kr_np_fit(KR_LL, bw, x, y, n, out, &fail) && !work_alloc(&w, x, n) && w.even_x;
	size_t bad = n;
	for (size_t i = 0; ok && i < n; i++)
		if (!same(out[i],
			  dense_np(KR_LL, bw, x, y, n, x[i], a, a + n, a + 2 * n, a + 3 * n)))
			ok = 0, bad = i;
	tap_ok(ok,
	       "ll fit on %zu evenly spaced points (bandwidth %g) equals the dense one (first "
	       "difference: %zu)",
	       n, bw, bad);
	ok = 1;
	for (size_t i = 0; ok && i < n; i++)
		if (!same(np_estimate(KR_LL, bw, x, y, n, 1, i, x[i], 1, &w),
			  dense_loo(bw, x, y, n, i, a, a + n, a + 2 * n, a + 3 * n)))
			ok = 0, bad = i;
	tap_ok(ok,
	       "ll leave-one-out on %zu evenly spaced points equals the dense one (first "
	       "difference: %zu)",
	       n, bad);
	work_free(&w);
	free(x);
	free(y);
	free(out);
	free(a);
}

int main(void)
{
	test_sum_window();
	test_estimators(3000);
	test_estimators(9000);
	test_even_x(600, 20);
	test_even_x(200, 100);
	test_even_x(3000, 2.5);
	test_quantiles();
	return tap_done();
}
