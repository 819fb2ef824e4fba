/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @name@ - a Perun postprocessor (made from the in-tree postprocess
 * template): multiplies every amount of the profile by --factor, e.g. to
 * turn seconds into milliseconds, and optionally renames the unit.
 *
 *   perun postprocessby <profile> @name@ [--factor X] [--unit U]
 *
 * The core records the run (name and options) in the profile's
 * postprocessors and stores the result as a new pending profile.
 */
#include <math.h>
#include <stdlib.h>

#include <perun/perun.h>

/* The options' check: in the before phase, which runs once before any
 * work, or first thing in postprocess without one (--no-before-phase). */
static int check_factor(const struct perun_params *params, struct perun_error *err)
{
	double factor = perun_params_float(params, "factor", 1.0);
	if (!isfinite(factor) || factor == 0.0)
		return perun_error_set(err, PERUN_EINVAL,
				       "--factor must be a finite number other than 0, not %g",
				       factor);
	return 0;
}

/* --unit renames the unit of the profile's type: in the after phase, or
 * last thing in postprocess without one (--no-after-phase). */
static int set_unit(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	const char *unit = perun_params_string(ctx->params, "unit", NULL);
	if (!unit)
		return 0;
	/* {"<profile type>": "<unit>"}, built by jansson to get quoting right. */
	json_t *units = json_pack("{s:s}", perun_profile_type(ctx->profile), unit);
	char *text = units ? json_dumps(units, 0) : NULL;
	int rc = text ? perun_profile_set_units(ctx->profile, text, err)
		      : perun_error_set(err, PERUN_EGENERIC, "out of memory");
	free(text);
	json_decref(units);
	return rc;
}

@if before@
static int @name@_before(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	return check_factor(ctx->params, err);
}

@endif@
static int @name@_postprocess(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
@if !before@
	int rc = check_factor(ctx->params, err);
	if (rc)
		return rc;
@endif@
	double factor = perun_params_float(ctx->params, "factor", 1.0);
	/* The tree of the resources, {"<uid>#<n>": {"amount": [...], ...}}:
	 * editing it in place is editing the profile.  perun_profile_json
	 * makes the whole tree (a loaded profile's resources are read in a
	 * compact form until then; perun_profile_get does not build it). */
	json_t *root = perun_profile_json(ctx->profile);
	if (!root)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_t *resources = json_object_get(root, "resources");
	const char *id;
	json_t *columns;
	size_t scaled = 0;
	json_object_foreach(resources, id, columns) {
		json_t *amounts = json_object_get(columns, "amount"), *v;
		size_t i;
		json_array_foreach(amounts, i, v) {
			double x;
			/* NaN and the infinities stay as they are. */
			if (perun_json_number(v, &x) || !isfinite(x))
				continue;
			if (json_array_set_new(amounts, i, json_real(x * factor)))
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			scaled++;
		}
	}
@if !after@
	int unit_rc = set_unit(ctx, err);
	if (unit_rc)
		return unit_rc;
@endif@
	/* Success with a message: the core shows it as a warning. */
	if (!scaled)
		perun_error_set(err, PERUN_OK, "the profile has no amounts to scale");
	return 0;
}
@if after@

static int @name@_after(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	return set_unit(ctx, err);
}
@endif@

static const struct perun_postprocess_ops @name@_ops = {
	.size = sizeof(struct perun_postprocess_ops),
@if before@
	.before = @name@_before,
@endif@
	.postprocess = @name@_postprocess,
@if after@
	.after = @name@_after,
@endif@
};

static const struct perun_option @name@_options[] = {
	{"factor", "f", PERUN_OPTION_FLOAT, "1000", NULL, "<x>",
	 "multiply every amount by <x>", 0},
	{"unit", "u", PERUN_OPTION_STRING, NULL, NULL, "<unit>",
	 "the unit of the scaled amounts, e.g. ms", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, 0},
};

PERUN_PLUGIN_DEFINE(@name@, PERUN_KIND_POSTPROCESS, .version = "0.1.0",
		    .summary = "amounts scaled by a factor",
		    .options = @name@_options, .ops = &@name@_ops)
