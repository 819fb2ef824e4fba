/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of the regression_analysis postprocessor, driven through its
 * descriptor as the core drives it.  The expected figures are those Python
 * Perun's tests/test_regression_analysis.py holds for the shared
 * postprocess_profiles, checked within 1e-6 relative or upstream's own
 * tolerance where that is looser; the models stored in the
 * *_computation.perf profiles (written by Python Perun) must come out
 * again to the last few bits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perun/perun.h>

#include "../../../../tests/tap.h"
#include "regression.h"

const struct perun_plugin *perun_plugin_regression_analysis_describe(void);

static const struct perun_plugin *plugin;
static char testdata[4096];
/* The directory run_file reads: the project's own profiles (fixtures) or,
 * for the comparisons with Python Perun, its postprocess_profiles. */
static char inputs[sizeof(testdata) + 64];

struct run {
	struct perun_profile *profile;
	struct perun_error err;
	int rc;
};

static void run_on(struct run *r, struct perun_profile *profile, const char *const *opts)
{
	const struct perun_postprocess_ops *ops = plugin->ops;
	struct perun_params *params = perun_params_new();
	memset(&r->err, 0, sizeof(r->err));
	r->profile = profile;
	r->rc = 0;
	for (; opts && opts[0] && !r->rc; opts += 2) {
		const struct perun_option *decl = perun_option_find(plugin->options, opts[0], 0);
		r->rc = decl ? perun_params_set_text(params, decl, opts[1], &r->err) : -1;
	}
	if (!r->rc)
		r->rc = perun_params_finish(params, plugin->options, "test", &r->err);
	struct perun_postprocess_ctx ctx = {
		.size = sizeof(ctx),
		.params = params,
		.profile = profile,
	};
	if (!r->rc)
		r->rc = ops->postprocess(&ctx, &r->err);
	perun_params_free(params);
}

static int run_file(struct run *r, const char *name, const char *const *opts)
{
	char path[8192];
	struct perun_profile *profile;
	snprintf(path, sizeof(path), "%s/%s", inputs, name);
	if (perun_profile_load_file(path, &profile, &r->err)) {
		tap_diag("cannot load %s: %s", path, r->err.message);
		r->profile = NULL;
		r->rc = -1;
		return -1;
	}
	run_on(r, profile, opts);
	return r->rc;
}

static int run_text(struct run *r, const char *json, const char *const *opts)
{
	struct perun_profile *profile;
	memset(&r->err, 0, sizeof(r->err));
	if (perun_profile_load_buffer(json, strlen(json), "test.perf", &profile, &r->err)) {
		tap_diag("cannot load test profile: %s", r->err.message);
		r->profile = NULL;
		return r->rc = -1;
	}
	run_on(r, profile, opts);
	return r->rc;
}

static json_t *models_of(const struct run *r)
{
	return json_object_get(perun_profile_json(r->profile), "models");
}

/* The n-th model record of uid and model (from the given position on). */
static const json_t *find_model(const json_t *models, const char *uid, const char *model,
				size_t nth)
{
	size_t i;
	const json_t *m;
	json_array_foreach(models, i, m)
	{
		if (strcmp(json_string_value(json_object_get(m, "uid")) ?: "", uid) ||
		    strcmp(json_string_value(json_object_get(m, "model")) ?: "", model))
			continue;
		if (!nth--)
			return m;
	}
	return NULL;
}

static double coeff(const json_t *m, const char *name)
{
	size_t i;
	const json_t *c;
	json_array_foreach(
		json_object_get(m, "coeffs"), i,
		c) if (!strcmp(json_string_value(json_object_get(c, "name")) ?: "",
			       name)) return json_number_value(json_object_get(c, "value"));
	return NAN;
}

/* Within 1e-6 relative, or upstream's compare_results (|abs a - abs b| < eps). */
static int close_to(double got, double want, double upstream_eps)
{
	if (fabs(got - want) <= 1e-6 * fabs(want))
		return 1;
	return fabs(fabs(got) - fabs(want)) < upstream_eps;
}

static void expect_model(const struct run *r, const char *uid, const char *model, double b0,
			 double b1, double r2, double eps_coeffs, double eps_r2)
{
	const json_t *m = find_model(models_of(r), uid, model, 0);
	if (!tap_ok(m != NULL, "%s: a %s model", uid, model))
		return;
	double g0 = coeff(m, "b0"), g1 = coeff(m, "b1");
	double gr = json_number_value(json_object_get(m, "r_square"));
	tap_ok(close_to(g0, b0, eps_coeffs), "%s %s: b0 %.10g ~ %.10g", uid, model, g0, b0);
	tap_ok(close_to(g1, b1, eps_coeffs), "%s %s: b1 %.10g ~ %.10g", uid, model, g1, b1);
	tap_ok(close_to(gr, r2, eps_r2), "%s %s: r^2 %.10g ~ %.10g", uid, model, gr, r2);
}

static void test_upstream_figures(void)
{
	struct run r;
	const char *const constant[] = { "method", "full", "regression-models", "constant", "steps",
					 "1",	   NULL };
	if (!run_file(&r, "const_model_datapoints.perf", constant)) {
		expect_model(&r, "const::test1", "constant", 3.0, 0.0, 1.0, 1e-4, 1e-4);
		expect_model(&r, "const::test2", "constant", 5.5, 0.0, 0.0, 1e-4, 1e-4);
		/* Perun computes the linear model the constant one derives from. */
		tap_ok(json_array_size(models_of(&r)) == 4,
		       "constant: linear models come along (%zu)", json_array_size(models_of(&r)));
		const json_t *m = find_model(models_of(&r), "const::test2", "constant", 0);
		tap_ok(m && json_is_integer(json_object_get(
				    json_array_get(json_object_get(m, "coeffs"), 1), "value")),
		       "constant: b1 is the integer 0, as Perun writes it");
	} else {
		tap_ok(0, "constant model: %s", r.err.message);
	}
	perun_profile_free(r.profile);

	const char *const linear[] = { "regression-models", "linear", "steps", "1", NULL };
	if (!run_file(&r, "linear_model_datapoints.perf", linear)) {
		expect_model(&r, "linear::test1", "linear", 75.212432, -0.20938742, 0.791, 1e-4,
			     0.001);
		expect_model(&r, "linear::test2", "linear", 8, 2.5, 1.0, 1e-4, 1e-4);
	} else {
		tap_ok(0, "linear model: %s", r.err.message);
	}
	perun_profile_free(r.profile);

	const char *const quad[] = { "regression-models", "quadratic", "steps", "1", NULL };
	if (!run_file(&r, "quad_model_datapoints.perf", quad)) {
		expect_model(&r, "quad::test1", "quadratic", -21.897744, 14.521171, 0.981224, 1e-4,
			     1e-4);
		const json_t *m = find_model(models_of(&r), "quad::test1", "quadratic", 0);
		double b2 = coeff(m, "b2");
		tap_ok(close_to(b2, -0.173714, 1e-4), "quad::test1: b2 %.10g ~ -0.173714", b2);
	} else {
		tap_ok(0, "quadratic model: %s", r.err.message);
	}
	perun_profile_free(r.profile);

	const char *const log_[] = { "regression-models", "logarithmic", "steps", "1", NULL };
	if (!run_file(&r, "log_model_datapoints.perf", log_)) {
		expect_model(&r, "log::test1", "logarithmic", 6.099, 6.108, 0.9863058, 0.01, 1e-4);
		expect_model(&r, "log::test2", "logarithmic", 0, 0.434294482, 1.0, 1e-4, 1e-4);
	} else {
		tap_ok(0, "logarithmic model: %s", r.err.message);
	}
	perun_profile_free(r.profile);

	const char *const power[] = { "regression-models", "power", "steps", "1", NULL };
	if (!run_file(&r, "pow_model_datapoints.perf", power)) {
		expect_model(&r, "pow::test1", "power", 16.6575389, 0.23438143, 0.56822483, 1e-4,
			     1e-4);
		expect_model(&r, "pow::test2", "power", 24.12989312, 0.65949782, 0.999992507, 1e-4,
			     1e-4);
		expect_model(&r, "pow::test3", "power", 3, 3, 1, 1e-4, 1e-4);
		/* x = 0 has no logarithm: skipped, yet x_start stays the first x. */
		const json_t *m = find_model(models_of(&r), "pow::test3", "power", 0);
		tap_ok(m && json_integer_value(json_object_get(m, "x_start")) == 0 &&
			       json_is_integer(json_object_get(m, "x_start")),
		       "pow::test3: x_start is the integer 0, as in Perun");
	} else {
		tap_ok(0, "power model: %s", r.err.message);
	}
	perun_profile_free(r.profile);

	const char *const expo[] = { "regression-models", "exponential", "steps", "1", NULL };
	if (!run_file(&r, "exp_model_datapoints.perf", expo)) {
		expect_model(&r, "exp::test1", "exponential", 0.1377, 1.023778, 0.9652, 1e-4, 1e-4);
		expect_model(&r, "exp::test2", "exponential", 14.0513516, 1.016221137, 0.88161289,
			     1e-4, 1e-4);
		expect_model(&r, "exp::test3", "exponential", 1, 2, 1, 1e-4, 1e-4);
	} else {
		tap_ok(0, "exponential model: %s", r.err.message);
	}
	perun_profile_free(r.profile);
}

/* Relative difference, 0 for equal values. */
static double rel(double a, double b)
{
	if (a == b)
		return 0;
	return fabs(a - b) / fmax(fabs(a), fabs(b));
}

/*
 * Re-run full on the resources of full_computation.perf and compare with
 * the models Python Perun stored there: same records in the same order.
 * The profile predates upstream's current formulas of the logarithmic
 * model (log10 then, ln now), of the r^2 of the transformed models and of
 * the quadratic model; what those formulas still share must agree to the
 * last few bits (1e-12, as the older sums rounded differently): all of
 * linear, the coefficients of exponential and power,
 * b0 and r^2 of logarithmic.  (The current formulas are checked in full
 * against upstream's code by the oracle cases below.)
 */
static void test_stored_full(void)
{
	char path[8192];
	struct perun_profile *profile;
	struct perun_error err = { 0 };
	const char *file = "full_computation.perf";
	snprintf(path, sizeof(path), "%s/%s", inputs, file);
	if (perun_profile_load_file(path, &profile, &err)) {
		tap_ok(0, "%s: %s", file, err.message);
		return;
	}
	json_t *stored = json_deep_copy(json_object_get(perun_profile_json(profile), "models"));
	json_array_clear(json_object_get(perun_profile_json(profile), "models"));
	const char *const five[] = { "regression-models",
				     "exponential",
				     "regression-models",
				     "linear",
				     "regression-models",
				     "logarithmic",
				     "regression-models",
				     "power",
				     "regression-models",
				     "quadratic",
				     NULL };
	struct run r;
	run_on(&r, profile, five);
	if (!tap_ok(r.rc == 0, "%s: full runs", file)) {
		json_decref(stored);
		perun_profile_free(profile);
		return;
	}
	tap_ok(strstr(r.err.message, "skipped 6 uids") != NULL,
	       "%s: the six one-point uids are skipped with a warning", file);
	json_t *got = models_of(&r);
	tap_ok(json_array_size(got) == json_array_size(stored), "%s: %zu models, as stored (%zu)",
	       file, json_array_size(got), json_array_size(stored));
	size_t i;
	json_t *want;
	double worst = 0;
	int same = json_array_size(got) == json_array_size(stored);
	json_array_foreach(stored, i, want)
	{
		const json_t *m = json_array_get(got, i);
		const char *keys[] = { "uid", "model", "method", "x_start", "x_end" };
		for (int k = 0; k < 5 && m; k++)
			same &= json_equal(json_object_get(m, keys[k]),
					   json_object_get(want, keys[k]));
		if (!m)
			continue;
		const char *model = json_string_value(json_object_get(want, "model"));
		int lin = !strcmp(model, "linear"), log_ = !strcmp(model, "logarithmic");
		if (lin || log_)
			worst = fmax(worst,
				     rel(json_number_value(json_object_get(m, "r_square")),
					 json_number_value(json_object_get(want, "r_square"))));
		if (strcmp(model, "quadratic"))
			worst = fmax(worst, rel(coeff(m, "b0"), coeff(want, "b0")));
		if (strcmp(model, "quadratic") && !log_)
			worst = fmax(worst, rel(coeff(m, "b1"), coeff(want, "b1")));
	}
	tap_ok(same, "%s: same uids, models, methods, x_start and x_end in the same order", file);
	tap_ok(worst <= 1e-12, "%s: the shared figures agree within 1e-12 relative (worst %.3g)",
	       file, worst);
	json_decref(stored);
	perun_profile_free(profile);
}

#define CASES_DIR TEST_SRCDIR "/plugins/postprocess/regression_analysis/tests"

/* A list of cases in CASES_DIR, as a test point of its own. */
static FILE *open_cases(const char *file)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", CASES_DIR, file);
	FILE *cases = fopen(path, "r");
	tap_ok(cases != NULL, "read %s", path);
	return cases;
}

/* The next line of cases that is not a comment; 0 at the end. */
static int next_case(FILE *cases, char *line, int len)
{
	while (fgets(line, len, cases))
		if (line[0] != '#')
			return 1;
	return 0;
}

/*
 * The oracle cases: every line of tests/cases run here and compared with
 * expected/<name>.json, which Python Perun's own code produced
 * (gen-expected.py).  Equal means equal JSON: the same records, the same
 * numbers to the last bit, ints where Python has ints.
 */
static void test_oracle_cases(void)
{
	char path[8192], line[1024];
	FILE *cases = open_cases("cases");
	while (cases && next_case(cases, line, sizeof(line))) {
		char name[128], profile[256], method[64], steps[16], models[256] = "";
		if (sscanf(line, "%127s %255s %63s %15s %255s", name, profile, method, steps,
			   models) < 4)
			continue;
		const char *opts[64] = { "method", method, "steps", steps };
		size_t n = 4;
		for (char *m = strtok(models, ","); m && n < 60; m = strtok(NULL, ",")) {
			opts[n++] = "regression-models";
			opts[n++] = m;
		}
		opts[n] = NULL;
		struct run r;
		snprintf(path, sizeof(path), "%s/expected/%s.json", CASES_DIR, name);
		json_error_t jerr;
		json_t *want = json_load_file(path, 0, &jerr);
		if (run_file(&r, profile, opts) || !want) {
			tap_ok(0, "case %s: %s", name, want ? r.err.message : jerr.text);
			json_decref(want);
			perun_profile_free(r.profile);
			continue;
		}
		json_t *all = models_of(&r);
		size_t before = json_array_size(all) - json_array_size(want), i;
		json_t *m;
		int equal = json_array_size(all) >= json_array_size(want);
		json_array_foreach(want, i, m)
		{
			if (!equal || json_equal(json_array_get(all, before + i), m))
				continue;
			char *got = json_dumps(json_array_get(all, before + i), JSON_COMPACT);
			char *exp = json_dumps(m, JSON_COMPACT);
			tap_diag("model %zu: got %s", i, got);
			tap_diag("expected %s", exp);
			free(got);
			free(exp);
			equal = 0;
		}
		tap_ok(equal, "case %s: %zu models exactly as Python Perun computes them", name,
		       json_array_size(want));
		json_decref(want);
		perun_profile_free(r.profile);
	}
	if (cases)
		fclose(cases);
}

/* A number of an expected record against a result's. */
static int same_num(const json_t *want, double d, int is_int, long long i)
{
	if (is_int)
		return json_is_integer(want) && json_integer_value(want) == i;
	return json_is_real(want) && json_real_value(want) == d;
}

static int same_record(const json_t *want, const struct modellib_result *r, const char *uid,
		       const char *method)
{
	const json_t *coeffs = json_object_get(want, "coeffs");
	int ok =
		!strcmp(json_string_value(json_object_get(want, "model")) ?: "",
			modellib_model_name(r->model)) &&
		!strcmp(json_string_value(json_object_get(want, "uid")) ?: "", uid) &&
		!strcmp(json_string_value(json_object_get(want, "method")) ?: "", method) &&
		same_num(json_object_get(want, "r_square"), r->r_square, r->r_square_int,
			 (long long)r->r_square) &&
		same_num(json_object_get(want, "x_start"), r->x_start.d, r->x_start.is_int,
			 r->x_start.i) &&
		same_num(json_object_get(want, "x_end"), r->x_end.d, r->x_end.is_int, r->x_end.i) &&
		json_array_size(coeffs) == (size_t)r->ncoeffs;
	for (int k = 0; ok && k < r->ncoeffs; k++)
		ok = same_num(json_object_get(json_array_get(coeffs, (size_t)k), "value"),
			      r->coeffs[k], k == 1 && r->b1_int, 0);
	return ok;
}

struct collected {
	struct modellib_result results[256];
	const char *uids[256];
	size_t n;
	const char *uid;
};

static int collect(const struct modellib_result *r, void *data)
{
	struct collected *c = data;
	if (c->n == 256)
		return -1;
	c->uids[c->n] = c->uid;
	c->results[c->n++] = *r;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The randomised methods on the points' own order (no generator), against
 * upstream's code on the same order (tests/cases-ordered): the stepwise
 * logic, the partial sums and their quirks, the choice of the best model.
 * The profiles hold one resource type per uid, named "<uid>#0".
 */
static void test_oracle_ordered(void)
{
	char path[8192], line[1024];
	FILE *cases = open_cases("cases-ordered");
	while (cases && next_case(cases, line, sizeof(line))) {
		char name[128], file[256], method[64], models[256] = "";
		int steps;
		if (sscanf(line, "%127s %255s %63s %d %255s", name, file, method, &steps, models) <
		    4)
			continue;
		enum modellib_model chosen[8];
		size_t nmodels = 0;
		int constant = !models[0];
		for (char *m = strtok(models, ","); m && nmodels < 8; m = strtok(NULL, ","))
			chosen[nmodels++] = modellib_model_from_name(m);
		for (int m = MODELLIB_EXPONENTIAL; constant && m < MODELLIB_MODEL_COUNT; m++)
			chosen[nmodels++] = m;
		struct perun_profile *profile;
		struct perun_error err = { 0 };
		snprintf(path, sizeof(path), "%s/%s", inputs, file);
		if (perun_profile_load_file(path, &profile, &err)) {
			tap_ok(0, "ordered case %s: %s", name, err.message);
			continue;
		}
		static struct collected got;
		got.n = 0;
		/* Upstream's data provider takes the uids in sorted order. */
		const json_t *resources = json_object_get(perun_profile_json(profile), "resources");
		const char *keys[64];
		size_t nkeys = 0;
		const char *key;
		json_t *columns;
		json_object_foreach((json_t *)resources, key, columns) if (nkeys < 64)
			keys[nkeys++] = key;
		qsort(keys, nkeys, sizeof(*keys), cmp_str);
		for (size_t r = 0; r < nkeys; r++) {
			key = keys[r];
			columns = json_object_get(resources, key);
			const json_t *xs = json_object_get(columns, "structure-unit-size");
			const json_t *ys = json_object_get(columns, "amount");
			size_t n = json_array_size(xs);
			struct perun_point *pts = calloc(n ? n : 1, sizeof(*pts));
			for (size_t i = 0; i < n; i++) {
				const json_t *v[2] = { json_array_get(xs, i),
						       json_array_get(ys, i) };
				struct perun_num *num[2] = { &pts[i].x, &pts[i].y };
				for (int k = 0; k < 2; k++) {
					num[k]->is_int = json_is_integer(v[k]);
					num[k]->i = num[k]->is_int ? json_integer_value(v[k]) : 0;
					num[k]->d = json_number_value(v[k]);
				}
				pts[i].idx = i;
			}
			got.uid = json_string_value(json_object_get(
				json_object_get(json_object_get(perun_profile_json(profile),
								"resource_type_map"),
						key),
				"uid"));
			struct modellib_fail fail;
			modellib_compute(modellib_method_from_name(method), pts, n, chosen, nmodels,
					 steps, NULL, collect, &got, &fail);
			free(pts);
		}
		for (size_t i = 0, n = got.n; constant && i < n; i++)
			if (got.results[i].model == MODELLIB_LINEAR && got.n < 256) {
				modellib_derive_constant(&got.results[i], &got.results[got.n]);
				got.uids[got.n++] = got.uids[i];
			}
		snprintf(path, sizeof(path), "%s/expected/%s.json", CASES_DIR, name);
		json_error_t jerr;
		json_t *want = json_load_file(path, 0, &jerr);
		int ok = want && json_array_size(want) == got.n;
		for (size_t i = 0; ok && i < got.n; i++) {
			ok = same_record(json_array_get(want, i), &got.results[i], got.uids[i],
					 method);
			if (!ok)
				tap_diag("model %zu (%s of %s) differs", i,
					 modellib_model_name(got.results[i].model), got.uids[i]);
		}
		tap_ok(ok, "ordered case %s: %zu models exactly as Python Perun computes them",
		       name, got.n);
		json_decref(want);
		perun_profile_free(profile);
	}
	if (cases)
		fclose(cases);
}

/* Record shape and key order of Perun's _transform_to_output_data. */
static void test_record_shape(void)
{
	struct run r;
	const char *const linear[] = { "regression-models", "linear", NULL };
	if (run_file(&r, "linear_model_datapoints.perf", linear)) {
		tap_ok(0, "record shape: %s", r.err.message);
		perun_profile_free(r.profile);
		return;
	}
	json_t *m = json_array_get(models_of(&r), 0);
	const char *order[] = {
		"model", "r_square", "x_start", "x_end", "method", "uid", "coeffs"
	};
	const char *key;
	json_t *v;
	size_t k = 0;
	int ok = json_object_size(m) == 7;
	json_object_foreach(m, key, v) ok &= k < 7 && !strcmp(key, order[k++]);
	tap_ok(ok, "model record has Perun's keys in Perun's order");
	char *dump = json_dumps(json_object_get(m, "coeffs"), JSON_PRESERVE_ORDER | JSON_COMPACT);
	tap_ok(dump && !strncmp(dump, "[{\"name\":\"b0\",\"value\":", 22),
	       "coefficients are {name, value} pairs: %s", dump ? dump : "");
	free(dump);
	perun_profile_free(r.profile);
}

static void test_all_models_order(void)
{
	struct run r;
	if (run_file(&r, "linear_model_datapoints.perf", NULL)) {
		tap_ok(0, "all models: %s", r.err.message);
		perun_profile_free(r.profile);
		return;
	}
	/* Per uid (sorted) the standard models alphabetically, constants last. */
	const char *want[] = { "exponential", "linear",	     "logarithmic", "power",
			       "quadratic",   "exponential", "linear",	    "logarithmic",
			       "power",	      "quadratic",   "constant",    "constant" };
	const char *uids[] = { "linear::test1", "linear::test2" };
	json_t *models = models_of(&r);
	int ok = json_array_size(models) == 12;
	for (size_t i = 0; ok && i < 12; i++) {
		json_t *m = json_array_get(models, i);
		ok &= !strcmp(json_string_value(json_object_get(m, "model")), want[i]);
		ok &= !strcmp(json_string_value(json_object_get(m, "uid")),
			      uids[i < 10 ? i / 5 : i - 10]);
		ok &= !strcmp(json_string_value(json_object_get(m, "method")), "full");
	}
	tap_ok(ok, "no -r: all models, uids sorted, constant models derived at the end");
	perun_profile_free(r.profile);
}

/* A profile of one resource type per uid; values are JSON texts. */
static char *profile_text(const char *resources, const char *types)
{
	char *text;
	if (asprintf(&text,
		     "{\"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\", "
		     "\"units\": {\"mixed(time delta)\": \"ms\"}}, \"collector_info\": "
		     "{\"name\": \"trace\", \"params\": {}}, \"postprocessors\": [], "
		     "\"resources\": {%s}, \"resource_type_map\": {%s}, \"models\": []}",
		     resources, types) < 0)
		return NULL;
	return text;
}

static void expect_failure(const char *what, const char *resources, const char *types,
			   const char *const *opts, const char *needle)
{
	struct run r;
	char *text = profile_text(resources, types);
	run_text(&r, text, opts);
	int models = r.profile ? (int)json_array_size(models_of(&r)) : -1;
	tap_ok(r.rc < 0 && r.err.code == PERUN_EINVAL && strstr(r.err.message, needle) &&
		       models == 0,
	       "%s: error '%s'", what, r.err.message);
	free(text);
	perun_profile_free(r.profile);
}

#define TYPE(uid) "\"" uid "#0\": {\"uid\": \"" uid "\", \"type\": \"mixed\"}"

static void test_bad_input(void)
{
	const char *const none[] = { NULL };
	expect_failure("too few points",
		       "\"f#0\": {\"structure-unit-size\": [1, 2], "
		       "\"amount\": [1, 2]}",
		       TYPE("f"), none, "uid 'f': too few points");
	expect_failure("missing key everywhere",
		       "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [1, 2, 3]}",
		       TYPE("f"), (const char *const[]){ "of", "nosuch", NULL },
		       "'nosuch' is not a key");
	expect_failure("key missing in one resource",
		       "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [1, 2, 3]}, "
		       "\"g#0\": {\"structure-unit-size\": [1, 2, 3]}",
		       TYPE("f") ", " TYPE("g"), none, "resource 'g#0' has no key 'amount'");
	expect_failure("non-numeric value",
		       "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [1, \"x\", 3]}",
		       TYPE("f"), none, "resource 'f#0' row 2: 'amount' is not a number (\"x\")");
	expect_failure("persistent non-numeric key",
		       "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [1, 2, 3]}",
		       TYPE("f"), (const char *const[]){ "depending-on", "type", NULL },
		       "'type' is not a number");
	expect_failure("NaN",
		       "\"f#0\": {\"structure-unit-size\": [1, 2, 3], "
		       "\"amount\": [1, NaN, 3]}",
		       TYPE("f"), none, "resource 'f#0' row 2: 'amount' is NaN");
	expect_failure("Infinity",
		       "\"f#0\": {\"structure-unit-size\": [1, -Infinity, 3], "
		       "\"amount\": [1, 2, 3]}",
		       TYPE("f"), none, "'structure-unit-size' is infinite");
	expect_failure("empty resources", "", "", none, "no resources");
	expect_failure("constant x for quadratic",
		       "\"f#0\": {\"structure-unit-size\": [2, 2, 2, 2], \"amount\": [1, 2, 3, 4]}",
		       TYPE("f"), (const char *const[]){ "regression-models", "quadratic", NULL },
		       "singular");
	expect_failure(
		"interval split too fine",
		"\"f#0\": {\"structure-unit-size\": [1, 2, 3, 4, 5], \"amount\": [1, 2, 3, 4, 5]}",
		TYPE("f"), (const char *const[]){ "method", "interval", "steps", "3", NULL },
		"split into 3 parts");
	expect_failure("exponential overflow",
		       "\"f#0\": {\"structure-unit-size\": [0, 0.0000001, 0.0000002], "
		       "\"amount\": [1e-300, 1, 1e300]}",
		       TYPE("f"), (const char *const[]){ "regression-models", "exponential", NULL },
		       "not a finite number");

	/* One uid too small among good ones: skipped with a warning, as Perun. */
	struct run r;
	char *text =
		profile_text("\"f#0\": {\"structure-unit-size\": [1, 2], \"amount\": [1, 2]}, "
			     "\"g#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [2, 4, 6]}",
			     TYPE("f") ", " TYPE("g"));
	run_text(&r, text, (const char *const[]){ "regression-models", "linear", NULL });
	tap_ok(r.rc == 0 && json_array_size(models_of(&r)) == 1 &&
		       strstr(r.err.message, "skipped uid 'f': too few points"),
	       "a uid with too few points is skipped with a warning: '%s'", r.err.message);
	free(text);
	perun_profile_free(r.profile);
}

/* --per-key/--of-key, the names Perun's job configurations use, win. */
static void test_key_aliases(void)
{
	struct run r;
	const char *const swapped[] = {
		"regression-models",   "linear", "per-key", "amount", "of-key",
		"structure-unit-size", NULL
	};
	/* amount = 2 size + 3: swapped, size = (amount - 3) / 2 over 5..21. */
	char *text = profile_text("\"f#0\": {\"structure-unit-size\": [1, 2, 4, 7, 9], "
				  "\"amount\": [5, 7, 11, 17, 21]}",
				  TYPE("f"));
	if (run_text(&r, text, swapped)) {
		tap_ok(0, "per-key/of-key: %s", r.err.message);
	} else {
		const json_t *m = find_model(models_of(&r), "f", "linear", 0);
		tap_ok(m && json_integer_value(json_object_get(m, "x_start")) == 5 &&
			       json_integer_value(json_object_get(m, "x_end")) == 21 &&
			       close_to(coeff(m, "b1"), 0.5, 1e-12) &&
			       close_to(coeff(m, "b0"), -1.5, 1e-12),
		       "per-key/of-key: x is amount, y is structure-unit-size");
	}
	free(text);
	perun_profile_free(r.profile);
	const char *const bad[] = { "of-key", "nosuch", NULL };
	run_file(&r, "linear_model_datapoints.perf", bad);
	tap_ok(r.rc < 0 && strstr(r.err.message, "option '--of-key': 'nosuch' is not a key"),
	       "per-key/of-key: errors name the option given: %s", r.err.message);
	perun_profile_free(r.profile);
}

/* Iterative and initial_guess: reproducible with --seed; a finished model
 * equals the full one up to the order of summation. */
static void test_randomised(void)
{
	const char *methods[] = { "iterative", "initial_guess" };
	for (int k = 0; k < 2; k++) {
		const char *const opts[] = { "method", methods[k], "seed", "42", NULL };
		struct run a, b, full;
		run_file(&a, "pow_model_datapoints.perf", opts);
		run_file(&b, "pow_model_datapoints.perf", opts);
		run_file(&full, "pow_model_datapoints.perf", NULL);
		char *da = a.rc ? NULL : json_dumps(models_of(&a), JSON_COMPACT);
		char *db = b.rc ? NULL : json_dumps(models_of(&b), JSON_COMPACT);
		tap_ok(da && db && !strcmp(da, db) && json_array_size(models_of(&a)) >= 2,
		       "%s: the same seed gives the same models", methods[k]);
		size_t i;
		json_t *m;
		int ok = !a.rc && !full.rc;
		json_array_foreach(models_of(&a), i, m)
		{
			const char *model = json_string_value(json_object_get(m, "model"));
			if (!strcmp(model, "constant"))
				continue;
			const json_t *f =
				find_model(models_of(&full),
					   json_string_value(json_object_get(m, "uid")), model, 0);
			ok &= f && rel(coeff(m, "b0"), coeff(f, "b0")) < 1e-9 &&
			      rel(coeff(m, "b1"), coeff(f, "b1")) < 1e-9 &&
			      !strcmp(json_string_value(json_object_get(m, "method")), methods[k]);
		}
		tap_ok(ok, "%s: each finished model equals the full computation", methods[k]);
		free(da);
		free(db);
		perun_profile_free(a.profile);
		perun_profile_free(b.profile);
		perun_profile_free(full.profile);
	}
}

int main(void)
{
	plugin = perun_plugin_regression_analysis_describe();
	const char *env = getenv("PERUN_TESTDATA");
	snprintf(testdata, sizeof(testdata), "%s",
		 env ? env : TEST_SRCDIR "/../shared/testdata/perun-profiles");

	/* The project's own profiles (tests/fixtures/gen-profiles.py). */
	char fixtures[] = "/tmp/perun-test-regression-XXXXXX", cmd[16384];
	if (!mkdtemp(fixtures)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/fixtures/gen-profiles.py' '%s'", TEST_SRCDIR,
		 fixtures);
	if (system(cmd) != 0) {
		printf("Bail out! %s failed\n", cmd);
		return 1;
	}
	snprintf(inputs, sizeof(inputs), "%s/postprocess", fixtures);
	test_record_shape();
	test_all_models_order();
	test_bad_input();
	test_key_aliases();
	test_randomised();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fixtures);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", fixtures);

	/* Python Perun's profiles, where they are: its figures and models. */
	snprintf(inputs, sizeof(inputs), "%s/postprocess_profiles", testdata);
	if (access(inputs, R_OK) != 0) {
		tap_skip("the figures and models of Python Perun's profiles",
			 "no shared test profiles");
		return tap_done();
	}
	test_upstream_figures();
	test_stored_full();
	test_oracle_cases();
	test_oracle_ordered();
	return tap_done();
}
