/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @name@ - a Perun check method (made from the in-tree check template): the
 * mean amount of every uid in the baseline and the target; a relative
 * change above the threshold is a Degradation, one below its negative an
 * Optimization.
 *
 * Configured as method @name@_mean_threshold (or @name@) in
 * degradation.strategies; the threshold is degradation.@name@_threshold
 * (default 0.1, i.e. 10 %).
 */
#include <math.h>
#include <stdio.h>

#include <perun/perun.h>

/* What a zero mean is divided by instead (Perun's tools.APPROX_ZERO). */
#define APPROX_ZERO 0.000001

/* {uid: [sum, count]} of a profile's amounts, from its resource rows
 * (uids that are strings: those of the time, memory and trace collectors). */
static int add_amount(const json_t *row, void *data)
{
	const char *uid = json_string_value(json_object_get(row, "uid"));
	double x;
	if (!uid || perun_json_number(json_object_get(row, "amount"), &x) || isnan(x))
		return 0; /* no uid or no amount: nothing to average */
	json_t *sums = data, *sum = json_object_get(sums, uid);
	if (!sum && json_object_set_new(sums, uid, sum = json_pack("[f,i]", 0.0, 0)))
		return -PERUN_EGENERIC;
	json_array_set_new(sum, 0, json_real(json_real_value(json_array_get(sum, 0)) + x));
	json_array_set_new(sum, 1, json_integer(json_integer_value(json_array_get(sum, 1)) + 1));
	return 0;
}

static json_t *sums_of(const struct perun_profile *profile)
{
	json_t *sums = json_object();
	if (sums && perun_profile_foreach_resource(profile, add_amount, sums)) {
		json_decref(sums);
		sums = NULL;
	}
	return sums;
}

static double mean_of(const json_t *sum)
{
	return json_real_value(json_array_get(sum, 0)) /
	       (double)json_integer_value(json_array_get(sum, 1));
}

static int @name@_compare(const struct perun_profile *baseline,
			  const struct perun_profile *target, const struct perun_params *params,
			  perun_check_emit_fn emit, void *data, struct perun_error *err)
{
	double threshold = perun_params_float(params, "@name@-threshold", 0.1);
	json_t *base = sums_of(baseline), *targ = sums_of(target), *tsum;
	const char *uid;
	int rc = 0;
	if (threshold <= 0 || isnan(threshold))
		rc = perun_error_set(err, PERUN_EINVAL,
				     "degradation.@name@_threshold must be above 0, not %g",
				     threshold);
	else if (!base || !targ)
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (rc)
		goto out;
	json_object_foreach(targ, uid, tsum) {
		json_t *bsum = json_object_get(base, uid);
		if (!bsum)
			continue; /* a new uid: nothing to compare it with */
		double from = mean_of(bsum), to = mean_of(tsum);
		double change = (to - from) / (from != 0.0 ? fabs(from) : APPROX_ZERO);
		char from_text[64], to_text[64];
		snprintf(from_text, sizeof(from_text), "%g", from);
		snprintf(to_text, sizeof(to_text), "%g", to);
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = change > threshold	 ? PERUN_CHANGE_DEGRADATION
				  : change < -threshold ? PERUN_CHANGE_OPTIMIZATION
							: PERUN_CHANGE_NO_CHANGE,
			.type = perun_profile_type(baseline),
			.location = uid,
			.from_baseline = from_text,
			.to_target = to_text,
			.rate_degradation = to / (from != 0.0 ? from : APPROX_ZERO),
			.confidence_type = "no",
			.confidence_rate = 0,
			.rate_degradation_relative = change,
			.effect_size = change,
			.noise = NAN,
			.version = NULL,
		};
		if (emit(&d, data)) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
	}
out:
	json_decref(base);
	json_decref(targ);
	return rc;
}

static const struct perun_check_ops @name@_ops = {
	.size = sizeof(struct perun_check_ops),
	.compare = @name@_compare,
	/* Since ABI 1.4: the name degradation.strategies uses, and a title. */
	.method = "@name@_mean_threshold",
	.title = "@name@ mean threshold",
};

/* Read from the configuration as degradation.<name with '_' for '-'>. */
static const struct perun_option @name@_options[] = {
	{"@name@-threshold", NULL, PERUN_OPTION_FLOAT, "0.1", NULL, "<x>",
	 "the relative change of a mean that counts (0.1: 10 %)", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, 0},
};

PERUN_PLUGIN_DEFINE(@name@, PERUN_KIND_CHECK, .version = "0.1.0",
		    .summary = "per-uid mean amounts against a relative threshold",
		    .options = @name@_options, .ops = &@name@_ops)
