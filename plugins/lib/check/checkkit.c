/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The model records, best models and detection the model-based checks
 * share (see checkkit.h).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkit.h"

#define APPROX_ZERO 0.000001

void checklib_models_release(struct checklib_models *m)
{
	free(m->items);
	json_decref(m->index);
	memset(m, 0, sizeof(*m));
}

const struct checklib_model *checklib_models_get(const struct checklib_models *m, const char *key)
{
	json_t *pos = json_object_get(m->index, key);
	return pos ? &m->items[json_integer_value(pos)] : NULL;
}

static int in_group(const char *type, enum checklib_group group)
{
	static const char *const param[] = { "constant",  "linear", "logarithmic",
					     "quadratic", "power",  "exponential" };
	static const char *const nonparam[] = { "regressogram", "moving_average",
						"kernel_regression" };
	if (group == CHECKLIB_GROUP_ALL)
		return 1;
	const char *const *list = group == CHECKLIB_GROUP_PARAM ? param : nonparam;
	size_t n = group == CHECKLIB_GROUP_PARAM ? 6 : 3;
	for (size_t i = 0; type && i < n; i++)
		if (!strcmp(list[i], type))
			return 1;
	return 0;
}

static double number(const json_t *v)
{
	double d;
	return perun_json_number(v, &d) ? NAN : d;
}

/* detection_kit.create_model_record. */
static int model_record(const json_t *m, struct checklib_model *out, struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	out->record = m;
	out->uid = json_string_value(json_object_get(m, "uid"));
	out->type = json_string_value(json_object_get(m, "model"));
	if (!out->uid || !out->type)
		return perun_error_set(err, PERUN_EINVAL, "a model without a uid or a model name");
	out->r_square = number(json_object_get(m, "r_square"));
	out->x_start = number(json_object_get(m, "x_start"));
	out->x_end = number(json_object_get(m, "x_end"));
	const json_t *coeffs = json_object_get(m, "coeffs");
	if (json_array_size(coeffs)) {
		out->param = 1;
		const json_t *b0 = json_object_get(json_array_get(coeffs, 0), "value");
		out->b0 = number(b0);
		out->b0_int = json_is_integer(b0);
		out->b1 = number(json_object_get(json_array_get(coeffs, 1), "value"));
		out->b2 = json_array_size(coeffs) == 3
				  ? number(json_object_get(json_array_get(coeffs, 2), "value"))
				  : 0.0;
	} else {
		out->buckets = json_object_get(m, "bucket_stats");
		if (!json_is_array(out->buckets))
			out->buckets = json_object_get(m, "kernel_stats");
		if (!json_is_array(out->buckets))
			return perun_error_set(err, PERUN_EINVAL,
					       "model '%s' of '%s' has neither coefficients nor "
					       "bucket values",
					       out->type, out->uid);
	}
	return 0;
}

static int models_put(struct checklib_models *m, const char *key, const struct checklib_model *rec,
		      struct perun_error *err)
{
	json_t *pos = json_object_get(m->index, key);
	if (pos) {
		m->items[json_integer_value(pos)] = *rec;
		return 0;
	}
	struct checklib_model *grown = realloc(m->items, (m->n + 1) * sizeof(*grown));
	if (!grown)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	m->items = grown;
	grown[m->n] = *rec;
	if (json_object_set_new(m->index, key, json_integer((json_int_t)m->n)))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	m->n++;
	return 0;
}

static const json_t *models_of(const struct perun_profile *p)
{
	return perun_profile_get(p, "models");
}

int checklib_best_models(const struct perun_profile *p, enum checklib_group group,
			 const char *only_model, struct checklib_models *out,
			 struct perun_error *err)
{
	struct checklib_models all = { 0 };
	memset(out, 0, sizeof(*out));
	all.index = json_object();
	out->index = json_object();
	if (!all.index || !out->index) {
		checklib_models_release(&all);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	size_t i;
	const json_t *m;
	int rc = 0;
	/* Every uid of any model starts with an empty record (r^2 0). */
	json_array_foreach(models_of(p), i, m)
	{
		const char *uid = json_string_value(json_object_get(m, "uid"));
		if (!uid || checklib_models_get(&all, uid))
			continue;
		struct checklib_model empty = { .uid = uid, .type = "" };
		if ((rc = models_put(&all, uid, &empty, err)))
			break;
	}
	json_array_foreach(models_of(p), i, m)
	{
		if (rc)
			break;
		if (!in_group(json_string_value(json_object_get(m, "model")), group))
			continue;
		struct checklib_model rec;
		if ((rc = model_record(m, &rec, err)))
			break;
		const struct checklib_model *best = checklib_models_get(&all, rec.uid);
		int take =
			only_model ? !strcmp(rec.type, only_model) : best->r_square < rec.r_square;
		if (take)
			rc = models_put(&all, rec.uid, &rec, err);
	}
	for (size_t k = 0; k < all.n && !rc; k++)
		if (all.items[k].r_square != 0.0)
			rc = models_put(out, all.items[k].uid, &all.items[k], err);
	checklib_models_release(&all);
	if (rc)
		checklib_models_release(out);
	return rc;
}

int checklib_all_models(const struct perun_profile *p, enum checklib_group group,
			struct checklib_models *out, struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!(out->index = json_object()))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t i;
	const json_t *m;
	int rc = 0;
	json_array_foreach(models_of(p), i, m)
	{
		if (!in_group(json_string_value(json_object_get(m, "model")), group))
			continue;
		struct checklib_model rec;
		if ((rc = model_record(m, &rec, err)))
			break;
		char *key = malloc(strlen(rec.uid) + strlen(rec.type) + 1);
		if (!key) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		strcpy(key, rec.uid);
		strcat(key, rec.type);
		rc = models_put(out, key, &rec, err);
		free(key);
		if (rc)
			break;
	}
	if (rc)
		checklib_models_release(out);
	return rc;
}

int checklib_strategy_models(const struct perun_profile *p, const char *strategy,
			     struct checklib_models *out, struct perun_error *err)
{
	const char *dash = strrchr(strategy, '-');
	const char *group_name = dash ? dash + 1 : "";
	enum checklib_group group = !strcmp(group_name, "param")      ? CHECKLIB_GROUP_PARAM
				    : !strcmp(group_name, "nonparam") ? CHECKLIB_GROUP_NONPARAM
								      : CHECKLIB_GROUP_ALL;
	if (!strcmp(strategy, "all-param") || !strcmp(strategy, "all-nonparam"))
		return checklib_all_models(p, group, out, err);
	if (!strcmp(strategy, "best-model") || !strcmp(strategy, "best-param") ||
	    !strcmp(strategy, "best-nonparam"))
		return checklib_best_models(p, group, NULL, out, err);
	return perun_error_set(err, PERUN_EINVAL, "unknown models strategy '%s'", strategy);
}

void checklib_linspace(double start, double end, size_t n, double *out)
{
	if (n == 1) {
		out[0] = start;
		return;
	}
	double step = (end - start) / (double)(n - 1);
	for (size_t i = 0; i < n; i++)
		out[i] = step == 0.0 ? ((double)i / (double)(n - 1)) * (end - start) + start
				     : (double)i * step + start;
	out[n - 1] = end;
}

void checklib_function_values(const struct checklib_model *m, double *x, double *y)
{
	enum {
		LINE,
		QUAD,
		LOG,
		POW,
		EXP
	} kind = !strcmp(m->type, "quadratic")	   ? QUAD
		 : !strcmp(m->type, "logarithmic") ? LOG
		 : !strcmp(m->type, "power")	   ? POW
		 : !strcmp(m->type, "exponential") ? EXP
						   : LINE;
	checklib_linspace(m->x_start, m->x_end, CHECKLIB_SAMPLES, x);
	for (size_t i = 0; i < CHECKLIB_SAMPLES; i++) {
		if (fabs(x[i]) < APPROX_ZERO)
			x[i] = APPROX_ZERO;
		double v = x[i];
		switch (kind) {
		case QUAD: y[i] = m->b0 + m->b1 * v + m->b2 * (v * v); break;
		case LOG: y[i] = m->b0 + m->b1 * log(v); break;
		case POW: y[i] = m->b0 * pow(log10(v), m->b1); break;
		case EXP: y[i] = m->b0 * pow(m->b1, v); break;
		default: y[i] = m->b0 + m->b1 * v;
		}
	}
}

double checklib_round2(double x)
{
	if (!isfinite(x))
		return x;
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", x);
	return strtod(buf, NULL);
}

double checklib_nan_to_num(double x)
{
	if (isnan(x))
		return 0.0;
	if (isinf(x))
		return x > 0 ? DBL_MAX : -DBL_MAX;
	return x;
}

enum perun_change checklib_classify_change(double diff, double no_change, double change,
					   double baseline_per)
{
	if (fabs(diff) <= no_change * baseline_per)
		return PERUN_CHANGE_NO_CHANGE;
	if (fabs(diff) <= change * baseline_per)
		return diff < 0 ? PERUN_CHANGE_MAYBE_OPTIMIZATION : PERUN_CHANGE_MAYBE_DEGRADATION;
	return diff < 0 ? PERUN_CHANGE_OPTIMIZATION : PERUN_CHANGE_DEGRADATION;
}

const struct perun_option checklib_models_type_options[] = {
	{ "models-type", NULL, PERUN_OPTION_CHOICE, "best-model",
	  "best-model|best-param|best-nonparam|all-param|all-nonparam|all-models|best-both", NULL,
	  "which models of the two profiles are compared (perun check --models-type)", 0 },
	{ NULL },
};

static int run_pairs(const struct perun_profile *baseline, const struct perun_profile *target,
		     const char *strategy, checklib_analyse_fn analyse, perun_check_emit_fn emit,
		     void *data, struct perun_error *err)
{
	struct checklib_models base = { 0 }, targ = { 0 };
	int rc = checklib_strategy_models(baseline, strategy, &base, err);
	if (!rc)
		rc = checklib_strategy_models(target, strategy, &targ, err);
	int uid_keys = !strcmp(strategy, "all-param") || !strcmp(strategy, "all-nonparam");
	for (size_t i = 0; i < targ.n && !rc; i++) {
		const struct checklib_model *tm = &targ.items[i];
		char *key = malloc(strlen(tm->uid) + strlen(tm->type) + 1);
		if (!key) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		strcpy(key, tm->uid);
		if (uid_keys)
			strcat(key, tm->type);
		const struct checklib_model *bm = checklib_models_get(&base, key);
		free(key);
		if (!bm)
			continue;
		double confidence = checklib_round2(fmin(bm->r_square, tm->r_square));
		if (!(confidence >= CHECKLIB_MIN_CONFIDENCE))
			continue;
		struct checklib_pair pair = { tm->uid, bm, tm, baseline, target };
		enum perun_change result;
		double rate;
		if ((rc = analyse(&pair, &result, &rate, err)))
			break;
		/* all-* keys are uid+model; Perun strips the baseline's model name
		 * from the end of the key, which leaves the uid. */
		const char *location = tm->uid;
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = result,
			.type = "-",
			.location = location,
			.from_baseline = bm->type,
			.to_target = tm->type,
			.rate_degradation = rate,
			.confidence_type = "r_square",
			.confidence_rate = confidence,
			.effect_size = rate,
			.noise = NAN,
		};
		if (emit(&d, data))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	checklib_models_release(&base);
	checklib_models_release(&targ);
	return rc;
}

int checklib_run_with_strategy(const struct perun_profile *baseline,
			       const struct perun_profile *target,
			       const struct perun_params *params, checklib_analyse_fn analyse,
			       perun_check_emit_fn emit, void *data, struct perun_error *err)
{
	const char *strategy = perun_params_string(params, "models-type", "best-model");
	const char *halves[2] = { NULL, NULL };
	if (!strcmp(strategy, "all-models")) {
		halves[0] = "all-param";
		halves[1] = "all-nonparam";
	} else if (!strcmp(strategy, "best-both")) {
		halves[0] = "best-param";
		halves[1] = "best-nonparam";
	}
	if (!halves[0])
		return run_pairs(baseline, target, strategy, analyse, emit, data, err);
	for (int i = 0; i < 2; i++) {
		int rc = run_pairs(baseline, target, halves[i], analyse, emit, data, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- detection_kit.general_detection ----------------------------------- */

static int detect_uid(const struct checklib_detection *in, checklib_classify_fn classify,
		      const struct checklib_model *best_target, double *buf,
		      perun_check_emit_fn emit, void *data, struct perun_error *err)
{
	double *bx = buf, *by = buf + CHECKLIB_SAMPLES, *ty = buf + 2 * CHECKLIB_SAMPLES;
	double *lby = buf + 3 * CHECKLIB_SAMPLES, *lty = buf + 4 * CHECKLIB_SAMPLES,
	       *tmp = buf + 5 * CHECKLIB_SAMPLES;
	double *lin_abs = buf + 6 * CHECKLIB_SAMPLES, *abs_err = buf + 7 * CHECKLIB_SAMPLES;
	checklib_function_values(in->baseline, bx, by);
	checklib_function_values(best_target, tmp, ty);
	checklib_function_values(in->baseline_linear, tmp, lby);
	checklib_function_values(in->target_linear, tmp, lty);
	double sum_abs = 0.0, rel_sum = 0.0;
	for (size_t i = 0; i < CHECKLIB_SAMPLES; i++) {
		lin_abs[i] = lty[i] - lby[i];
		abs_err[i] = ty[i] - by[i];
		sum_abs += abs_err[i];
		rel_sum += checklib_nan_to_num(abs_err[i] / by[i]);
	}
	double rel_error = rel_sum / CHECKLIB_SAMPLES * 100;
	enum perun_change change = PERUN_CHANGE_UNKNOWN;
	char type[64] = "";
	double threshold_b0 = fabs(0.05 * in->baseline->b0);
	double threshold_b1 = fabs(0.05 * in->baseline->b1);
	double diff_b0 = best_target->b0 - in->baseline->b0;
	double diff_b1 = best_target->b1 - in->baseline->b1;
	if (fabs(diff_b0) <= threshold_b0 && fabs(diff_b1) <= threshold_b1) {
		change = PERUN_CHANGE_NO_CHANGE;
	} else {
		struct checklib_detection d = *in;
		d.target = best_target;
		d.x = bx;
		d.lin_abs_error = lin_abs;
		d.abs_error = abs_err;
		d.n = CHECKLIB_SAMPLES;
		int rc = classify(&d, type, sizeof(type), err);
		if (rc)
			return rc;
		if (sum_abs > 0)
			change = rel_error > 25 ? PERUN_CHANGE_DEGRADATION
						: PERUN_CHANGE_MAYBE_DEGRADATION;
		else
			change = rel_error < -25 ? PERUN_CHANGE_OPTIMIZATION
						 : PERUN_CHANGE_MAYBE_OPTIMIZATION;
	}
	struct perun_degradation out = {
		.size = sizeof(out),
		.result = change,
		.type = type,
		.location = in->uid,
		.from_baseline = in->baseline->type,
		.to_target = best_target->type,
		.rate_degradation = rel_error,
		.confidence_type = "r_square",
		.confidence_rate = fmin(in->baseline->r_square, in->target_linear->r_square),
		.effect_size = rel_error / 100,
		.noise = NAN,
	};
	if (emit(&out, data))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

int checklib_general_detection(const struct perun_profile *baseline,
			       const struct perun_profile *target, checklib_classify_fn classify,
			       perun_check_emit_fn emit, void *data, struct perun_error *err)
{
	struct checklib_models bb = { 0 }, tb = { 0 }, bl = { 0 }, tl = { 0 };
	double *buf = malloc(8 * CHECKLIB_SAMPLES * sizeof(*buf));
	int rc = buf ? 0 : perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (!rc)
		rc = checklib_best_models(baseline, CHECKLIB_GROUP_PARAM, NULL, &bb, err);
	if (!rc)
		rc = checklib_best_models(target, CHECKLIB_GROUP_PARAM, NULL, &tb, err);
	if (!rc)
		rc = checklib_best_models(baseline, CHECKLIB_GROUP_PARAM, "linear", &bl, err);
	if (!rc)
		rc = checklib_best_models(target, CHECKLIB_GROUP_PARAM, "linear", &tl, err);
	/* The uids with all four models, in the baseline's order. */
	for (size_t i = 0; !rc && i < bb.n; i++) {
		const char *uid = bb.items[i].uid;
		const struct checklib_model *t = checklib_models_get(&tb, uid);
		const struct checklib_model *lb = checklib_models_get(&bl, uid);
		const struct checklib_model *lt = checklib_models_get(&tl, uid);
		if (!t || !lb || !lt)
			continue;
		struct checklib_detection d = {
			.uid = uid,
			.baseline_profile = baseline,
			.baseline = &bb.items[i],
			.baseline_linear = lb,
			.target_linear = lt,
		};
		rc = detect_uid(&d, classify, t, buf, emit, data, err);
	}
	checklib_models_release(&bb);
	checklib_models_release(&tb);
	checklib_models_release(&bl);
	checklib_models_release(&tl);
	free(buf);
	return rc;
}

/* ---- nonparam_kit -------------------------------------------------------- */

/* scipy's _basic_simpson over the triples starting at start, start+2, ...
 * below stop, for any spacing of x. */
static double basic_simpson(const double *y, const double *x, size_t n, long start, long stop)
{
	double sum = 0.0;
	for (long i = start; i < stop && (size_t)i + 2 < n; i += 2) {
		double h0 = x[i + 1] - x[i], h1 = x[i + 2] - x[i + 1];
		double hsum = h0 + h1, hprod = h0 * h1;
		double h0divh1 = h1 != 0 ? h0 / h1 : 0.0;
		double inv = h0divh1 != 0 ? 1.0 / h0divh1 : 0.0;
		double ratio = hprod != 0 ? hsum / hprod : 0.0;
		sum += hsum / 6.0 *
		       (y[i] * (2.0 - inv) + y[i + 1] * (hsum * ratio) +
			y[i + 2] * (2.0 - h0divh1));
	}
	return sum;
}

double checklib_simps(const double *y, const double *x, size_t n)
{
	if (n % 2)
		return basic_simpson(y, x, n, 0, (long)n - 2);
	if (n < 2)
		return 0.0;
	/* even="avg": Simpson on all but the last interval plus a trapezoid
	 * there, averaged with a trapezoid first and Simpson on the rest. */
	double val = 0.5 * (x[n - 1] - x[n - 2]) * (y[n - 1] + y[n - 2]);
	double result = basic_simpson(y, x, n, 0, (long)n - 3);
	val += 0.5 * (x[1] - x[0]) * (y[1] + y[0]);
	result += basic_simpson(y, x, n, 1, (long)n - 2);
	return result / 2.0 + val / 2.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * scipy.stats.binned_statistic(x, y, statistic, buckets) of the uid's
 * points in the target profile, NaN buckets as 0 (regressogram.py).
 */
static int rebin(const struct checklib_pair *pair, size_t buckets, double **stats, double *x_start,
		 double *x_end, struct perun_error *err)
{
	const json_t *rec = pair->target->record;
	const char *per_key = json_string_value(json_object_get(rec, "per_key"));
	const char *of_key = json_string_value(json_object_get(rec, "of_key"));
	const char *fn = json_string_value(json_object_get(rec, "statistic_function"));
	int median = fn && !strcmp(fn, "median");
	if (!per_key || !of_key)
		return perun_error_set(err, PERUN_EINVAL,
				       "regressogram of '%s' names no per_key and of_key",
				       pair->target->uid);
	struct perun_points *points;
	int rc = perun_points_open(pair->target_profile, &points, err);
	if (rc)
		return rc;
	const char *uid;
	struct perun_point *pts = NULL;
	size_t n = 0;
	while ((rc = perun_points_next(points, per_key, of_key, &uid, &pts, &n, err)) > 0)
		if (!strcmp(uid, pair->target->uid))
			break;
	if (rc <= 0) {
		perun_points_free(points);
		return rc < 0 ? rc
			      : perun_error_set(err, PERUN_EINVAL,
						"target has no resources of '%s' to re-bin",
						pair->target->uid);
	}
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, pts[i].x.d);
		hi = fmax(hi, pts[i].x.d);
	}
	*x_start = lo;
	*x_end = hi;
	if (lo == hi) {
		lo -= 0.5;
		hi += 0.5;
	}
	double *edges = malloc((buckets + 1) * sizeof(*edges));
	double *sum = calloc(buckets, sizeof(*sum)), *vals = malloc((n + 1) * sizeof(*vals));
	size_t *count = calloc(buckets, sizeof(*count)), *bin = malloc((n + 1) * sizeof(*bin));
	*stats = calloc(buckets, sizeof(**stats));
	rc = 0;
	if (!edges || !sum || !vals || !count || !bin || !*stats) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	checklib_linspace(lo, hi, buckets + 1, edges);
	/* numpy.digitize, the last edge falling into the last bucket. */
	double min_width = INFINITY;
	for (size_t k = 0; k < buckets; k++)
		min_width = fmin(min_width, edges[k + 1] - edges[k]);
	int decimal = (int)(-log10(min_width)) + 6;
	double scale = pow(10.0, decimal);
	for (size_t i = 0; i < n; i++) {
		double x = pts[i].x.d;
		size_t b = 0;
		while (b <= buckets && edges[b] <= x)
			b++;
		if (nearbyint(x * scale) / scale == nearbyint(edges[buckets] * scale) / scale)
			b--;
		bin[i] = b; /* 1..buckets inside, 0 or buckets+1 outside */
		if (b >= 1 && b <= buckets) {
			sum[b - 1] += pts[i].y.d;
			count[b - 1]++;
		}
	}
	for (size_t k = 0; k < buckets; k++) {
		if (!count[k])
			continue;
		if (!median) {
			(*stats)[k] = sum[k] / (double)count[k];
			continue;
		}
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (bin[i] == k + 1)
				vals[m++] = pts[i].y.d;
		qsort(vals, m, sizeof(*vals), cmp_double);
		(*stats)[k] = m % 2 ? vals[m / 2] : (vals[m / 2 - 1] + vals[m / 2]) / 2.0;
	}
out:
	if (rc) {
		free(*stats);
		*stats = NULL;
	}
	free(edges);
	free(sum);
	free(vals);
	free(count);
	free(bin);
	perun_points_free(points);
	return rc;
}

static int model_coords(const struct checklib_model *m, double **x, double **y, size_t *n,
			struct perun_error *err)
{
	if (m->param) {
		*n = CHECKLIB_SAMPLES;
		double *sx = malloc(CHECKLIB_SAMPLES * sizeof(*sx)),
		       *sy = malloc(CHECKLIB_SAMPLES * sizeof(*sy));
		if (!sx || !sy) {
			free(sx);
			free(sy);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		checklib_function_values(m, sx, sy);
		/* get_function_values returns (y, x) and Perun unpacks it as (x, y). */
		*x = sy;
		*y = sx;
		return 0;
	}
	*n = json_array_size(m->buckets);
	*x = malloc((*n + 1) * sizeof(**x));
	*y = malloc((*n + 1) * sizeof(**y));
	if (!*x || !*y)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	checklib_linspace(m->x_start, m->x_end, *n, *x);
	for (size_t i = 0; i < *n; i++)
		(*y)[i] = number(json_array_get(m->buckets, i));
	return 0;
}

void checklib_points_release(struct checklib_points *p)
{
	free(p->x);
	free(p->base_y);
	free(p->target_y);
	memset(p, 0, sizeof(*p));
}

int checklib_nonparam_coords(const struct checklib_pair *pair, struct checklib_points *out,
			     struct perun_error *err)
{
	double **x = &out->x, **base_y = &out->base_y, **target_y = &out->target_y;
	size_t *n = &out->n;
	struct checklib_model target = *pair->target;
	double *rebinned = NULL, *tx = NULL, *ty = NULL;
	size_t nb = 0, nt = 0;
	int rc = 0;
	*x = *base_y = *target_y = NULL;
	if (!strcmp(pair->baseline->type, "regressogram") &&
	    !strcmp(pair->target->type, "regressogram") && !pair->baseline->param &&
	    json_array_size(pair->baseline->buckets) != json_array_size(pair->target->buckets)) {
		size_t buckets = json_array_size(pair->baseline->buckets);
		rc = rebin(pair, buckets ? buckets : 1, &rebinned, &target.x_start, &target.x_end,
			   err);
		if (rc)
			return rc;
		json_t *list = json_array();
		for (size_t i = 0; list && i < buckets; i++)
			json_array_append_new(list, json_real(checklib_nan_to_num(rebinned[i])));
		free(rebinned);
		if (!list)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		target.buckets = list;
	}
	rc = model_coords(pair->baseline, x, base_y, &nb, err);
	if (!rc)
		rc = model_coords(&target, &tx, &ty, &nt, err);
	if (target.buckets != pair->target->buckets)
		json_decref((json_t *)target.buckets);
	free(tx);
	if (rc) {
		free(*x);
		free(*base_y);
		free(ty);
		*x = *base_y = NULL;
		return rc;
	}
	*target_y = ty;
	*n = nb < nt ? nb : nt;
	return 0;
}
