/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * regression_analysis - Python Perun's parametric models of a resource key
 * (--of) depending on another (--depending-on), per uid.
 *
 * The data provider is Perun's, shared with the other postprocessors
 * (perun/points.h): resource types sorted (stably) by their flattened uid,
 * the rows of equal uids joined into one series of points.
 *
 * A uid whose points cannot be modelled (too few, a split into too small
 * parts, degenerate data) is skipped as Perun skips it; the skipped uids
 * come back as the phase's warning.  Input Perun would choke on (missing
 * or non-numeric keys, NaN, infinities, no resources) is an error naming
 * the resource.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>
#include <perun/points.h>

#include "regression.h"

static const struct perun_option ra_options[] = {
	{ "method", "m", PERUN_OPTION_CHOICE, "full",
	  "full|iterative|interval|initial_guess|bisection", NULL,
	  "how the models are searched for", 0 },
	{ "regression-models", "r", PERUN_OPTION_CHOICE, NULL,
	  "all|constant|exponential|linear|logarithmic|power|quadratic", NULL,
	  "model to fit; repeat for more (default: all)", PERUN_OPTION_MULTIPLE },
	{ "steps", "s", PERUN_OPTION_INT, "3", NULL, "<int>",
	  "parts of the data for the iterative, interval and initial_guess methods", 0 },
	{ "depending-on", "dp", PERUN_OPTION_STRING, "structure-unit-size", NULL, "<key>",
	  "resource key of the independent variable (x)", 0 },
	{ "of", "o", PERUN_OPTION_STRING, "amount", NULL, "<key>",
	  "resource key that is modelled (y)", 0 },
	/* Perun's job configurations name these two by their click dests. */
	{ "per-key", NULL, PERUN_OPTION_STRING, NULL, NULL, "<key>",
	  "the same as --depending-on (its name in Perun's job configuration)", 0 },
	{ "of-key", NULL, PERUN_OPTION_STRING, NULL, NULL, "<key>",
	  "the same as --of (its name in Perun's job configuration)", 0 },
	{ "seed", NULL, PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "seed of the shuffle of iterative and initial_guess (default: random)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct emitted {
	struct modellib_result result;
	const char *uid;
};

struct analysis {
	struct emitted *items;
	size_t n, cap;
	const char *uid; /* of the series being computed */
};

static int collect_result(const struct modellib_result *r, void *data)
{
	struct analysis *a = data;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct emitted *items = realloc(a->items, cap * sizeof(*items));
		if (!items)
			return -1;
		a->items = items;
		a->cap = cap;
	}
	a->items[a->n].result = *r;
	a->items[a->n].uid = a->uid;
	a->n++;
	return 0;
}

/* Perun's filter_derived: the derived constant model needs linear. */
static size_t chosen_models(const struct perun_params *params, enum modellib_model *models,
			    size_t cap, int *want_constant)
{
	size_t count = perun_params_count(params, "regression-models"), n = 0;
	int all = !count, has_linear = 0;
	for (size_t i = 0; i < count; i++)
		if (!strcmp(perun_params_string_at(params, "regression-models", i), "all"))
			all = 1;
	*want_constant = 0;
	if (all) {
		*want_constant = 1;
		for (int m = 0; m < MODELLIB_MODEL_COUNT; m++)
			if (m != MODELLIB_CONSTANT)
				models[n++] = m;
		return n;
	}
	for (size_t i = 0; i < count && n < cap - 1; i++) {
		int m = modellib_model_from_name(
			perun_params_string_at(params, "regression-models", i));
		if (m == MODELLIB_CONSTANT) {
			*want_constant = 1;
			continue;
		}
		has_linear |= m == MODELLIB_LINEAR;
		models[n++] = m;
	}
	if (*want_constant && !has_linear)
		models[n++] = MODELLIB_LINEAR;
	return n;
}

/*
 * Strings every record repeats, made once and shared between records
 * (jansson values are reference counted and strings are never edited in
 * place): with tens of thousands of records the allocations dominate.
 */
struct shared_strings {
	json_t *model[MODELLIB_MODEL_COUNT];
	json_t *coeff[3];
	json_t *method;
	const char *uid; /* the last uid and its string */
	json_t *uid_json;
};

static void shared_release(struct shared_strings *ss)
{
	for (int i = 0; i < MODELLIB_MODEL_COUNT; i++)
		json_decref(ss->model[i]);
	for (int i = 0; i < 3; i++)
		json_decref(ss->coeff[i]);
	json_decref(ss->method);
	json_decref(ss->uid_json);
}

static int shared_init(struct shared_strings *ss, const char *method)
{
	static const char *const names[3] = { "b0", "b1", "b2" };
	int ok = 1;
	memset(ss, 0, sizeof(*ss));
	for (int i = 0; i < MODELLIB_MODEL_COUNT; i++)
		ok &= (ss->model[i] = json_string(modellib_model_name(i))) != NULL;
	for (int i = 0; i < 3; i++)
		ok &= (ss->coeff[i] = json_string(names[i])) != NULL;
	ok &= (ss->method = json_string(method)) != NULL;
	if (!ok)
		shared_release(ss);
	return ok ? 0 : -1;
}

/* Set key to value, taking a reference to it; 0 or -1. */
static int set_shared(json_t *object, const char *key, json_t *value)
{
	return json_object_set_new_nocheck(object, key, json_incref(value));
}

/* The record of methods._transform_to_output_data, in its key order. */
static json_t *model_record(const struct emitted *e, struct shared_strings *ss)
{
	const struct modellib_result *r = &e->result;
	if (ss->uid != e->uid) {
		json_decref(ss->uid_json);
		ss->uid_json = json_string(e->uid);
		ss->uid = ss->uid_json ? e->uid : NULL;
		if (!ss->uid_json)
			return NULL;
	}
	json_t *record = json_object(), *coeffs = json_array();
	int fail = !record || !coeffs;
	fail |= set_shared(record, "model", ss->model[r->model]);
	fail |= json_object_set_new_nocheck(record, "r_square",
					    r->r_square_int ? json_integer((json_int_t)r->r_square)
							    : json_real(r->r_square));
	fail |= json_object_set_new_nocheck(record, "x_start", perun_num_json(&r->x_start));
	fail |= json_object_set_new_nocheck(record, "x_end", perun_num_json(&r->x_end));
	fail |= set_shared(record, "method", ss->method);
	fail |= set_shared(record, "uid", ss->uid_json);
	for (int i = 0; i < r->ncoeffs && !fail; i++) {
		json_t *coeff = json_object();
		fail |= json_array_append_new(coeffs, coeff);
		fail |= set_shared(coeff, "name", ss->coeff[i]);
		fail |= json_object_set_new_nocheck(coeff, "value",
						    i == 1 && r->b1_int
							    ? json_integer((json_int_t)r->coeffs[i])
							    : json_real(r->coeffs[i]));
	}
	fail |= json_object_set_new_nocheck(record, "coeffs", coeffs);
	if (fail) {
		json_decref(record);
		return NULL;
	}
	return record;
}

static unsigned long random_seed(void)
{
	unsigned long seed;
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	return seed;
}

static int ra_postprocess(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	const struct perun_params *params = ctx->params;
	const char *per_option = perun_params_has(params, "per-key") ? "per-key" : "depending-on";
	const char *of_option = perun_params_has(params, "of-key") ? "of-key" : "of";
	const char *per_key = perun_params_string(params, per_option, "structure-unit-size");
	const char *of_key = perun_params_string(params, of_option, "amount");
	int method = modellib_method_from_name(perun_params_string(params, "method", "full"));
	long long steps = perun_params_int(params, "steps", 3);
	enum modellib_model models[64];
	int want_constant;
	size_t nmodels = chosen_models(params, models, 64, &want_constant);
	struct perun_points *points = NULL;
	struct analysis analysis = { 0 };
	struct perun_points_skips skips = { 0 };
	struct modellib_rng *rng = NULL;
	int rc;

	if (method < 0)
		return perun_error_set(err, PERUN_EINVAL, "unknown method '%s'",
				       perun_params_string(params, "method", ""));
	/* Perun clamps --steps into 1.. (click.IntRange(clamp=True)). */
	if (steps < 1)
		steps = 1;
	if (steps > INT32_MAX)
		steps = INT32_MAX;
	rng = modellib_rng_new(perun_params_has(params, "seed")
				       ? (unsigned long)perun_params_int(params, "seed", 0)
				       : random_seed());
	if (!rng)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	rc = perun_points_open(ctx->profile, &points, err);
	if (!rc)
		rc = perun_points_check_key(points, per_option, per_key, err);
	if (!rc)
		rc = perun_points_check_key(points, of_option, of_key, err);
	const char *uid;
	struct perun_point *pts;
	size_t n;
	while (!rc && (rc = perun_points_next(points, per_key, of_key, &uid, &pts, &n, err)) > 0) {
		struct modellib_fail fail;
		rc = 0;
		analysis.uid = uid;
		if (modellib_compute(method, pts, n, models, nmodels, (int)steps, rng,
				     collect_result, &analysis, &fail)) {
			if (fail.code == MODELLIB_NOMEM)
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			else
				perun_points_skip(&skips, uid, fail.message);
		}
	}
	if (rc)
		goto out;
	if (!analysis.n) {
		rc = perun_points_skips_finish(&skips, 0, err);
		goto out;
	}
	/* compute_derived: constants after all uids, one per linear model. */
	size_t standard = analysis.n;
	for (size_t i = 0; want_constant && i < standard; i++) {
		if (analysis.items[i].result.model != MODELLIB_LINEAR)
			continue;
		struct modellib_result constant;
		modellib_derive_constant(&analysis.items[i].result, &constant);
		analysis.uid = analysis.items[i].uid;
		if (collect_result(&constant, &analysis)) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
	}
	/* Shared into the profile's models rather than added by
	 * perun_profile_add_model, whose deep copy of each of (say) 60,000
	 * fresh records would double the work. */
	json_t *list = json_array();
	struct shared_strings ss;
	if (!list || shared_init(&ss, modellib_method_name(method))) {
		json_decref(list);
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < analysis.n && !rc; i++) {
		json_t *record = model_record(&analysis.items[i], &ss);
		if (!record || json_array_append_new(list, record))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	shared_release(&ss);
	if (!rc && perun_points_add_models(ctx->profile, list))
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_decref(list);
	if (rc)
		goto out;
	perun_points_skips_finish(&skips, analysis.n, err);
out:
	modellib_rng_free(rng);
	free(analysis.items);
	perun_points_free(points);
	return rc;
}

static const struct perun_postprocess_ops ra_ops = {
	.size = sizeof(struct perun_postprocess_ops),
	.postprocess = ra_postprocess,
};

PERUN_PLUGIN_DEFINE(regression_analysis, PERUN_KIND_POSTPROCESS, .version = "1.0",
		    .summary = "parametric models (linear, power, ...) of a resource key per uid",
		    .options = ra_options, .ops = &ra_ops);
