/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lreg: Perun's linear regression check.  Where the best models of a uid
 * changed, the difference of the linear models is classified: constant
 * (flat, matching the shift of b0), linear (slope matching the change of
 * b1, r^2 > 0.95), quadratic (a regression analysis of the difference
 * fits a quadratic model well and clearly better than a linear one), or
 * else the best model of that regression.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#include "checkkit.h"
#include "ck_regress.h"

static int in_absolute_range(double value, double border)
{
	return -fabs(border) <= value && value <= fabs(border);
}

static int in_relative_range(double value, double range_val, double rate)
{
	if (!(rate >= 0.0 && rate <= 1.0))
		rate = 0.0;
	return fabs((1.0 - rate) * range_val) <= fabs(value) &&
	       fabs(value) <= fabs((1.0 + rate) * range_val);
}

/* numpy.amax: NaN when any value is NaN. */
static double amax(const double *v, size_t n)
{
	double m = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			return NAN;
		if (v[i] > m)
			m = v[i];
	}
	return m;
}

static int classify(const struct checklib_detection *d, char *type, size_t len,
		    struct perun_error *err)
{
	double slope, intercept, r;
	checklib_linregress(d->x, d->lin_abs_error, d->n, &slope, &intercept, &r);
	double threshold = 0.05 * amax(d->abs_error, d->n);
	double diff_b0 = d->target->b0 - d->baseline->b0;
	double linear_diff_b1 = d->target_linear->b1 - d->baseline_linear->b1;
	/* isinstance(diff_b0, float): false only for two Python ints. */
	int is_float = !(d->target->b0_int && d->baseline->b0_int);
	int flat = in_absolute_range(slope, threshold) && is_float &&
		   in_relative_range(diff_b0, intercept, 0.05);
	if (!strcmp(d->baseline->type, "linear") || !strcmp(d->baseline->type, "constant"))
		flat = flat && fabs(diff_b0 - intercept) < 0.000000000001;
	type[0] = '\0';
	if (flat)
		snprintf(type, len, "constant");
	else if (in_relative_range(linear_diff_b1, slope, 0.3) && r * r > 0.95)
		snprintf(type, len, "linear");
	struct modellib_result *models;
	size_t n;
	int rc = checklib_regress(d->x, d->lin_abs_error, d->n, &models, &n, err);
	if (rc)
		return rc;
	const struct modellib_result *quad = checklib_regress_pick(models, n, MODELLIB_QUADRATIC);
	const struct modellib_result *lin = checklib_regress_pick(models, n, MODELLIB_LINEAR);
	double quad_r2 = quad ? quad->r_square : 0.0, lin_r2 = lin ? lin->r_square : 0.0;
	if (quad_r2 > 0.90 && fabs(quad_r2 - lin_r2) > 0.01)
		snprintf(type, len, "quadratic");
	if (!type[0]) {
		const struct modellib_result *best = checklib_regress_pick(models, n, -1);
		snprintf(type, len, "%s", best ? modellib_model_name(best->model) : "unknown");
	}
	free(models);
	return 0;
}

static int lreg_compare(const struct perun_profile *baseline, const struct perun_profile *target,
			const struct perun_params *params, perun_check_emit_fn emit, void *data,
			struct perun_error *err)
{
	(void)params;
	return checklib_general_detection(baseline, target, classify, emit, data, err);
}

static const struct perun_check_ops lreg_ops = {
	.size = sizeof(lreg_ops),
	.compare = lreg_compare,
	.method = "linear_regression",
	.title = "linear regression",
};

PERUN_PLUGIN_DEFINE(lreg, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "linear regression: kind of the change of the best models",
		    .ops = &lreg_ops);
