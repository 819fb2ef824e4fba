/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * preg: Perun's polynomial regression check.  Where the best models of a
 * uid changed (beyond 5 % of b0 or b1), polynomials of rising degree are
 * fitted to the difference of the linear models; the first degree whose
 * residual sum of squares is under 1e8 names the change.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include <perun/perun.h>

#include "checkkit.h"

#define THRESHOLD 100000000.0

/* numpy.polyfit(x, y, degree, full=True)[1][0]: the residual sum of
 * squares of the least-squares polynomial; NaN when it cannot be fitted. */
static double polyfit_residual(const double *x, const double *y, size_t n, size_t degree)
{
	size_t p = degree + 1;
	if (n <= p)
		return NAN;
	gsl_matrix *X = gsl_matrix_alloc(n, p);
	gsl_vector *Y = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, p);
	double chisq = NAN;
	if (X && Y && c && cov && w) {
		for (size_t i = 0; i < n; i++) {
			double v = 1.0;
			for (size_t k = 0; k < p; k++) {
				gsl_matrix_set(X, i, k, v);
				v *= x[i];
			}
			gsl_vector_set(Y, i, y[i]);
		}
		if (gsl_multifit_linear(X, Y, c, cov, &chisq, w) != GSL_SUCCESS)
			chisq = NAN;
	}
	gsl_multifit_linear_free(w);
	gsl_matrix_free(cov);
	gsl_vector_free(c);
	gsl_vector_free(Y);
	gsl_matrix_free(X);
	return chisq;
}

static int classify(const struct checklib_detection *d, char *type, size_t len,
		    struct perun_error *err)
{
	(void)err;
	static const char *const names[] = { "constant", "linear", "quadratic " };
	for (size_t i = 0; i < d->n; i++)
		if (!isfinite(d->lin_abs_error[i])) {
			snprintf(type, len, "unknown");
			return 0;
		}
	size_t degree = 0;
	for (; degree < 4; degree++)
		if (polyfit_residual(d->x, d->lin_abs_error, d->n, degree) < THRESHOLD)
			break;
	/* Perun's table has no name for degree 3 (nor for no fit at all). */
	snprintf(type, len, "%s", degree < 3 ? names[degree] : "unknown");
	return 0;
}

static int preg_compare(const struct perun_profile *baseline, const struct perun_profile *target,
			const struct perun_params *params, perun_check_emit_fn emit, void *data,
			struct perun_error *err)
{
	(void)params;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = checklib_general_detection(baseline, target, classify, emit, data, err);
	gsl_set_error_handler(old);
	return rc;
}

static const struct perun_check_ops preg_ops = {
	.size = sizeof(preg_ops),
	.compare = preg_compare,
	.method = "polynomial_regression",
	.title = "polynomial regression",
};

PERUN_PLUGIN_DEFINE(preg, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "polynomial regression: degree of the change of the best models",
		    .ops = &preg_ops);
