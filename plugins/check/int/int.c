/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * int: Perun's integral comparison.  The models of a uid (chosen by
 * --models-type) are integrated over their interval: parametric ones
 * exactly by adaptive quadrature of their formula, nonparametric ones by
 * Simpson's rule over their buckets; the relative difference of the
 * integrals classifies the change (10 % no change, 25 % maybe).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include <perun/perun.h>

#include "checkkit.h"

#define DIFF_NO_CHANGE 0.10
#define DIFF_CHANGE    0.25
/* safe_division's stand-in for a zero divisor. */
#define APPROX_ZERO 0.000001

/* regression_models.get_formula_of: the plot formula without f_x. */
static double formula(double x, void *data)
{
	const struct checklib_model *m = data;
	if (!strcmp(m->type, "quadratic"))
		return m->b0 + m->b1 * x + m->b2 * (x * x);
	if (!strcmp(m->type, "power"))
		return m->b0 * pow(x, m->b1);
	if (!strcmp(m->type, "exponential"))
		return m->b0 * pow(m->b1, x);
	return m->b0 + m->b1 * x;
}

/* scipy.integrate.quad: QUADPACK's qags with scipy's tolerances. */
static double param_integral(const struct checklib_model *m)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(50);
	gsl_function f = { formula, (void *)m };
	double result = NAN, abserr;
	if (w)
		gsl_integration_qags(&f, m->x_start, m->x_end, 1.49e-8, 1.49e-8, 50, w, &result,
				     &abserr);
	gsl_integration_workspace_free(w);
	return result;
}

static int analyse(const struct checklib_pair *pair, enum perun_change *result, double *rate,
		   struct perun_error *err)
{
	struct checklib_points p;
	int rc = checklib_nonparam_coords(pair, &p, err);
	if (rc)
		return rc;
	double base = pair->baseline->param ? param_integral(pair->baseline)
					    : checklib_simps(p.base_y, p.x, p.n);
	double targ = pair->target->param ? param_integral(pair->target)
					  : checklib_simps(p.target_y, p.x, p.n);
	double rel = base != 0.0 ? (targ - base) / base : (targ - base) / APPROX_ZERO;
	if (!isfinite(rel))
		rel = 0.0;
	*result = checklib_classify_change(rel, DIFF_NO_CHANGE, DIFF_CHANGE, 1);
	*rate = checklib_round2(rel);
	checklib_points_release(&p);
	return 0;
}

static int int_compare(const struct perun_profile *baseline, const struct perun_profile *target,
		       const struct perun_params *params, perun_check_emit_fn emit, void *data,
		       struct perun_error *err)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = checklib_run_with_strategy(baseline, target, params, analyse, emit, data, err);
	gsl_set_error_handler(old);
	return rc;
}

static const struct perun_check_ops int_ops = {
	.size = sizeof(int_ops),
	.compare = int_compare,
	.method = "integral_comparison",
	.title = "integral comparison",
};

PERUN_PLUGIN_DEFINE(int, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "integral comparison: relative change of the models' integrals",
		    .options = checklib_models_type_options, .ops = &int_ops);
