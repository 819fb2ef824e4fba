/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Regression over the error of two models, as Perun's fast_check and
 * linear_regression do it: regression analysis (method full, every model,
 * the derived constant last) through the models library the
 * regression_analysis plugin uses too (plugins/lib/models), and scipy's
 * linregress.  Used by the fast and lreg plugins.
 */
#ifndef CHECKLIB_REGRESS_H
#define CHECKLIB_REGRESS_H

#include <stddef.h>

#include <perun/perun.h>

#include "regression.h"

/*
 * fast_check.exec_fast_check: the models of the points (x[i], y[i]) whose y
 * is not NaN, in the order regression analysis stores them.  *out is
 * malloc'd (may be empty when the points cannot be modelled).
 */
int checklib_regress(const double *x, const double *y, size_t n, struct modellib_result **out,
		     size_t *nout, struct perun_error *err);

/* get_filtered_best_models_of over such models: the best by r^2 (a later
 * one strictly better), or with model >= 0 the last one of that model;
 * NULL when the choice has r^2 0. */
const struct modellib_result *checklib_regress_pick(const struct modellib_result *models, size_t n,
						    int model);

/* scipy.stats.linregress: slope, intercept and r. */
void checklib_linregress(const double *x, const double *y, size_t n, double *slope,
			 double *intercept, double *r);

#endif
