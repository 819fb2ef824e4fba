/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-kernel-regression MODE N: times kernel_regression's numerics on N
 * generated points (x = 0..N-1, y = 3x + 20 sin(x / 50) + 5 sin(12.9898 x),
 * the same data bench-kernel-regression.sh gives statsmodels and sklearn)
 * and prints "MODE N seconds bandwidth r2".
 * MODE is estimator-cv_ls, estimator-efficient, user-selection (bandwidth 2.5),
 * method-selection, smoothing-spatial, smoothing-linear, smoothing-poly or
 * ridge.  Run by bench/bench-kernel-regression.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include <perun/points.h>

#include "kernel.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench-kernel-regression MODE N\n");
		return 2;
	}
	const char *mode = argv[1];
	size_t n = (size_t)strtoull(argv[2], NULL, 10);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	double *out = malloc(n * sizeof(double));
	if (!rng || !x || !y || !out || n < 3)
		return 2;
	gsl_rng_set(rng, 42);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i;
		y[i] = 3 * x[i] + 20 * sin(x[i] / 50) + 5 * sin(12.9898 * x[i]);
	}
	struct kr_fail fail;
	struct kr_efficient eff = { 0, 0, 50, 25, 0, rng };
	double bw = 0, r2 = NAN, t0 = now();
	int rc;
	if (!strcmp(mode, "estimator-cv_ls") || !strcmp(mode, "estimator-efficient")) {
		eff.enabled = !strcmp(mode, "estimator-efficient");
		rc = kr_np_select_bw(KR_LL, KR_CV_LS, &eff, x, y, n, &bw, &fail);
		if (!rc)
			rc = kr_np_fit(KR_LL, bw, x, y, n, out, &fail);
		r2 = kr_np_r_squared(y, out, n);
	} else if (!strcmp(mode, "user-selection") || !strcmp(mode, "method-selection")) {
		bw = 2.5;
		rc = mode[0] == 'm' ? kr_rule_bw(KR_SCOTT, x, n, &bw, &fail) : 0;
		if (!rc)
			rc = kr_np_fit(KR_LL, bw, x, y, n, out, &fail);
		r2 = kr_np_r_squared(y, out, n);
	} else if (!strncmp(mode, "smoothing-", 10)) {
		enum kr_smoothing m = !strcmp(mode + 10, "spatial")  ? KR_SPATIAL_AVERAGE
				      : !strcmp(mode + 10, "linear") ? KR_LOCAL_LINEAR
								     : KR_LOCAL_POLYNOMIAL;
		rc = kr_covariance_bw(KR_SCOTT, x, n, &bw, &fail);
		if (!rc)
			rc = kr_smooth(KR_EPANECHNIKOV, m, 3, &bw, x, y, n, out, &fail);
		perun_r2_score(y, out, n, &r2);
	} else if (!strcmp(mode, "ridge")) {
		rc = kr_ridge(1e-5, 1e-4, 1e-5, x, y, n, &bw, out, &fail);
		perun_r2_score(y, out, n, &r2);
	} else {
		fprintf(stderr, "bench-kernel-regression: unknown mode '%s'\n", mode);
		return 2;
	}
	if (rc) {
		fprintf(stderr, "bench-kernel-regression: %s\n", fail.message);
		return 1;
	}
	printf("%-20s %7zu %9.3f s  bandwidth %-12.6g r2 %.6f\n", mode, n, now() - t0, bw, r2);
	gsl_rng_free(rng);
	free(x);
	free(y);
	free(out);
	return 0;
}
