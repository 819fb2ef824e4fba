/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bmoe: Perun's best model order equality.  The best parametric model of
 * every uid in both profiles; when both fit well (r^2 >= 0.9) and differ,
 * a model higher in constant < logarithmic < linear < quadratic < power <
 * exponential is a Degradation, a lower one an Optimization.
 */
#include <math.h>
#include <string.h>

#include <perun/perun.h>

#include "checkkit.h"

#define CONFIDENCE_THRESHOLD 0.9

static int order_of(const char *type)
{
	static const char *const ordering[] = { "constant",  "logarithmic", "linear",
						"quadratic", "power",	    "exponential" };
	for (int i = 0; i < 6; i++)
		if (!strcmp(ordering[i], type))
			return i;
	return -1;
}

static int bmoe_compare(const struct perun_profile *baseline, const struct perun_profile *target,
			const struct perun_params *params, perun_check_emit_fn emit, void *data,
			struct perun_error *err)
{
	(void)params;
	struct checklib_models base = { 0 }, targ = { 0 };
	int rc = checklib_best_models(baseline, CHECKLIB_GROUP_PARAM, NULL, &base, err);
	if (!rc)
		rc = checklib_best_models(target, CHECKLIB_GROUP_PARAM, NULL, &targ, err);
	for (size_t i = 0; i < targ.n && !rc; i++) {
		const struct checklib_model *t = &targ.items[i];
		const struct checklib_model *b = checklib_models_get(&base, t->uid);
		if (!b)
			continue;
		double confidence = fmin(b->r_square, t->r_square);
		enum perun_change change = PERUN_CHANGE_NO_CHANGE;
		double rate = 0;
		if (confidence >= CONFIDENCE_THRESHOLD && strcmp(b->type, t->type)) {
			int from = order_of(b->type), to = order_of(t->type);
			change = from > to ? PERUN_CHANGE_OPTIMIZATION : PERUN_CHANGE_DEGRADATION;
			rate = to - from;
		}
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = change,
			.type = "model",
			.location = t->uid,
			.from_baseline = b->type,
			.to_target = t->type,
			.rate_degradation = rate,
			.confidence_type = "r_square",
			.confidence_rate = confidence,
			.effect_size = rate,
			.noise = 1.0 - confidence,
		};
		if (emit(&d, data))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	checklib_models_release(&base);
	checklib_models_release(&targ);
	return rc;
}

static const struct perun_check_ops bmoe_ops = {
	.size = sizeof(bmoe_ops),
	.compare = bmoe_compare,
	.method = "best_model_order_equality",
	.title = "best model order equality",
};

PERUN_PLUGIN_DEFINE(bmoe, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "best model order equality: the best model's order per uid",
		    .ops = &bmoe_ops);
