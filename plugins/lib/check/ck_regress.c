/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Regression over the error of two models for fast and lreg (see
 * ck_regress.h).
 */
#include <math.h>
#include <stdlib.h>

#include "ck_regress.h"

struct collected {
	struct modellib_result *items;
	size_t n;
};

static int collect(const struct modellib_result *r, void *data)
{
	struct collected *c = data;
	struct modellib_result *grown = realloc(c->items, (c->n + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	c->items = grown;
	grown[c->n++] = *r;
	return 0;
}

int checklib_regress(const double *x, const double *y, size_t n, struct modellib_result **out,
		     size_t *nout, struct perun_error *err)
{
	static const enum modellib_model models[] = { MODELLIB_EXPONENTIAL, MODELLIB_LINEAR,
						      MODELLIB_LOGARITHMIC, MODELLIB_POWER,
						      MODELLIB_QUADRATIC };
	struct perun_point *pts = calloc(n + 1, sizeof(*pts));
	struct collected c = { NULL, 0 };
	if (!pts)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(y[i]))
			continue;
		pts[m].x.d = x[i];
		pts[m].y.d = y[i];
		pts[m].idx = m;
		m++;
	}
	struct modellib_fail fail;
	enum modellib_failure f =
		modellib_compute(MODELLIB_FULL, pts, m, models, sizeof(models) / sizeof(models[0]),
				 3, NULL, collect, &c, &fail);
	free(pts);
	if (f == MODELLIB_NOMEM) {
		free(c.items);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	/* Perun's compute_derived: a constant model after the others. */
	size_t standard = c.n;
	for (size_t i = 0; i < standard; i++) {
		if (c.items[i].model != MODELLIB_LINEAR)
			continue;
		struct modellib_result constant;
		modellib_derive_constant(&c.items[i], &constant);
		if (collect(&constant, &c)) {
			free(c.items);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
	}
	*out = c.items;
	*nout = c.n;
	return 0;
}

const struct modellib_result *checklib_regress_pick(const struct modellib_result *models, size_t n,
						    int model)
{
	const struct modellib_result *best = NULL;
	double best_r2 = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (model >= 0 ? (int)models[i].model == model : best_r2 < models[i].r_square) {
			best = &models[i];
			best_r2 = models[i].r_square;
		}
	}
	return best && best->r_square != 0.0 ? best : NULL;
}

void checklib_linregress(const double *x, const double *y, size_t n, double *slope,
			 double *intercept, double *r)
{
	double xmean = 0, ymean = 0, ssxm = 0, ssym = 0, ssxym = 0;
	for (size_t i = 0; i < n; i++) {
		xmean += x[i];
		ymean += y[i];
	}
	xmean /= (double)n;
	ymean /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - xmean, dy = y[i] - ymean;
		ssxm += dx * dx;
		ssym += dy * dy;
		ssxym += dx * dy;
	}
	ssxm /= (double)n;
	ssym /= (double)n;
	ssxym /= (double)n;
	double den = sqrt(ssxm * ssym);
	*r = den == 0.0 ? 0.0 : ssxym / den;
	if (*r > 1.0)
		*r = 1.0;
	else if (*r < -1.0)
		*r = -1.0;
	*slope = ssxym / ssxm;
	*intercept = ymean - *slope * xmean;
}
