/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel_regression - Python Perun's non-parametric kernel models of a
 * resource key (--of-key) per another (--per-key), per uid, in five modes
 * (Perun's click subcommands): estimator-settings, user-selection and
 * method-selection (statsmodels' KernelReg), kernel-smoothing (pyqt_fit)
 * and kernel-ridge (Nadaraya-Watson with a leave-one-out gamma).
 *
 * The modes share one flat option table; an option of another mode is an
 * error, as click's "no such option" is, and defaults are the mode's.
 *
 * A uid with fewer than 3 points gets Perun's "manually" record; a uid whose
 * data admit no estimate (all x equal, a bandwidth too small to give finite
 * values) is skipped with a warning, where Perun would crash.  When no uid
 * gets an estimate, that is an error naming the uid.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include <perun/perun.h>
#include <perun/points.h>

#include "kernel.h"

#define MODES "estimator-settings|user-selection|method-selection|kernel-smoothing|kernel-ridge"

static const struct perun_option kr_options[] = {
	{ "kernel-mode", NULL, PERUN_OPTION_CHOICE, "kernel-smoothing", MODES, "<mode>",
	  "the mode (Perun's subcommand; the first bare word sets it)", PERUN_OPTION_SUBCOMMAND },
	{ "per-key", "per", PERUN_OPTION_STRING, "structure-unit-size", NULL, "<key>",
	  "resource key of the independent variable (x)", 0 },
	{ "of-key", "of", PERUN_OPTION_STRING, "amount", NULL, "<key>",
	  "resource key that is modelled (y)", 0 },
	{ "reg-type", "rt", PERUN_OPTION_CHOICE, NULL, "ll|lc", NULL,
	  "estimator-settings, user-selection, method-selection: local linear (default) or "
	  "local constant (Nadaraya-Watson)",
	  0 },
	{ "bandwidth-method", "bm", PERUN_OPTION_STRING, NULL, NULL, "<method>",
	  "estimator-settings: cv_ls (default) or aic; method-selection, kernel-smoothing: "
	  "scott (default) or silverman",
	  0 },
	{ "bandwidth-method", "bw", PERUN_OPTION_STRING, NULL, NULL, "<method>",
	  "the same (estimator-settings' short name in Perun)", 0 },
	{ "efficient", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "estimator-settings: estimate the bandwidth from sub-samples", 0 },
	{ "uniformly", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "estimator-settings: use all data at once (the default; --no-efficient)", 0 },
	{ "randomize", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "estimator-settings: with --efficient, random sub-samples instead of slices", 0 },
	{ "n-sub-samples", "nsub", PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "estimator-settings: size of the sub-samples (default 50)", 0 },
	{ "n-re-samples", "nres", PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "estimator-settings: number of random sub-samples (default 25)", 0 },
	{ "return-median", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "estimator-settings: median of the sub-sample scales instead of their mean", 0 },
	{ "return-mean", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "estimator-settings: mean of the sub-sample scales (the default)", 0 },
	{ "bandwidth-value", "bv", PERUN_OPTION_FLOAT, NULL, NULL, "<float>",
	  "user-selection (required), kernel-smoothing: the bandwidth (at least 1e-10)", 0 },
	{ "kernel-type", "kt", PERUN_OPTION_CHOICE, NULL,
	  "epanechnikov|tricube|normal|epanechnikov4|normal4", NULL,
	  "kernel-smoothing: the kernel (default epanechnikov)", 0 },
	{ "smoothing-method", "sm", PERUN_OPTION_CHOICE, NULL,
	  "spatial-average|local-linear|local-polynomial", NULL,
	  "kernel-smoothing: the regression method (default spatial-average)", 0 },
	{ "polynomial-order", "q", PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "kernel-smoothing: order of local-polynomial (default 3)", 0 },
	{ "gamma-range", "gr", PERUN_OPTION_FLOAT, NULL, NULL, "<low> <high>",
	  "kernel-ridge: the range of gamma searched (default 1e-5 1e-4)",
	  PERUN_OPTION_PAIR | PERUN_OPTION_MULTIPLE },
	{ "gamma-step", "gs", PERUN_OPTION_FLOAT, NULL, NULL, "<float>",
	  "kernel-ridge: the step through the range (default 1e-5)", 0 },
	{ "seed", NULL, PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "estimator-settings --efficient --randomize: seed of the sub-samples (default: random)",
	  0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

enum kr_mode { KR_ESTIMATOR, KR_USER, KR_METHOD, KR_SMOOTHING, KR_RIDGE };

/* Which modes take an option (bit per mode); options not listed take all. */
static const struct {
	const char *name;
	unsigned modes;
} option_modes[] = {
	{ "reg-type", 1u << KR_ESTIMATOR | 1u << KR_USER | 1u << KR_METHOD },
	{ "bandwidth-method", 1u << KR_ESTIMATOR | 1u << KR_METHOD | 1u << KR_SMOOTHING },
	{ "efficient", 1u << KR_ESTIMATOR },
	{ "uniformly", 1u << KR_ESTIMATOR },
	{ "randomize", 1u << KR_ESTIMATOR },
	{ "n-sub-samples", 1u << KR_ESTIMATOR },
	{ "n-re-samples", 1u << KR_ESTIMATOR },
	{ "return-median", 1u << KR_ESTIMATOR },
	{ "return-mean", 1u << KR_ESTIMATOR },
	{ "seed", 1u << KR_ESTIMATOR },
	{ "bandwidth-value", 1u << KR_USER | 1u << KR_SMOOTHING },
	{ "kernel-type", 1u << KR_SMOOTHING },
	{ "smoothing-method", 1u << KR_SMOOTHING },
	{ "polynomial-order", 1u << KR_SMOOTHING },
	{ "gamma-range", 1u << KR_RIDGE },
	{ "gamma-step", 1u << KR_RIDGE },
};

struct config {
	enum kr_mode mode;
	const char *per_key, *of_key;
	enum kr_reg_type reg_type;
	enum kr_bw_method bw_method; /* estimator-settings */
	enum kr_rule rule;	     /* method-selection, kernel-smoothing */
	struct kr_efficient eff;
	int has_bw_value;
	double bw_value;
	enum kr_kernel kernel;
	enum kr_smoothing smoothing;
	int order;
	double gamma_lo, gamma_hi, gamma_step;
};

static int index_of(const char *choices, const char *value)
{
	int i = 0;
	for (const char *p = choices; *p; i++) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (strlen(value) == len && !strncmp(p, value, len))
			return i;
		if (!bar)
			break;
		p = bar + 1;
	}
	return -1;
}

static int bad_value(struct perun_error *err, const char *option, const char *what)
{
	return perun_error_set(err, PERUN_EINVAL, "option '--%s': %s", option, what);
}

/* --gamma-range: two numbers from the command line (a pair of words) or a
 * job configuration (a list of two numbers). */
static int gamma_range(const struct perun_params *params, double *lo, double *hi,
		       struct perun_error *err)
{
	const json_t *v = json_object_get(perun_params_json(params), "gamma-range");
	if (!v) {
		*lo = 1e-5;
		*hi = 1e-4;
		return 0;
	}
	if (json_array_size(v) && json_is_array(json_array_get(v, 0)))
		v = json_array_get(v, json_array_size(v) - 1);
	double d[2];
	for (size_t i = 0; i < 2; i++) {
		const json_t *item = json_array_get(v, i);
		char *end = NULL;
		if (json_is_number(item))
			d[i] = json_number_value(item);
		else if (json_is_string(item))
			d[i] = strtod(json_string_value(item), &end);
		if (json_array_size(v) != 2 || !item ||
		    (end && (*end || end == json_string_value(item))) ||
		    (!json_is_number(item) && !json_is_string(item)) || !isfinite(d[i]))
			return bad_value(err, "gamma-range", "takes two numbers");
	}
	*lo = d[0];
	*hi = d[1];
	if (!(*lo < *hi))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--gamma-range': the first value must be less than "
				       "the second (%g >= %g)",
				       *lo, *hi);
	return 0;
}

static int read_config(const struct perun_params *params, struct config *c, struct perun_error *err)
{
	const char *mode = perun_params_string(params, "kernel-mode", "kernel-smoothing");
	int m = index_of(MODES, mode);
	if (m < 0)
		return bad_value(err, "kernel-mode", "unknown mode");
	c->mode = (enum kr_mode)m;
	for (size_t i = 0; i < sizeof(option_modes) / sizeof(option_modes[0]); i++)
		if (perun_params_has(params, option_modes[i].name) &&
		    !(option_modes[i].modes & (1u << m)))
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--%s' does not apply to mode '%s'",
					       option_modes[i].name, mode);
	c->per_key = perun_params_string(params, "per-key", "structure-unit-size");
	c->of_key = perun_params_string(params, "of-key", "amount");
	c->reg_type = strcmp(perun_params_string(params, "reg-type", "ll"), "lc") ? KR_LL : KR_LC;

	const char *bw = perun_params_string(params, "bandwidth-method",
					     m == KR_ESTIMATOR ? "cv_ls" : "scott");
	if (m == KR_ESTIMATOR) {
		int b = index_of("cv_ls|aic", bw);
		if (b < 0)
			return bad_value(err, "bandwidth-method",
					 "takes cv_ls or aic in mode 'estimator-settings'");
		c->bw_method = (enum kr_bw_method)b;
	} else if (m == KR_METHOD || m == KR_SMOOTHING) {
		int b = index_of("scott|silverman", bw);
		if (b < 0)
			return bad_value(err, "bandwidth-method", "takes scott or silverman");
		c->rule = (enum kr_rule)b;
	}

	c->eff.enabled = perun_params_has(params, "efficient")
				 ? perun_params_bool(params, "efficient", 0)
				 : !perun_params_bool(params, "uniformly", 1);
	c->eff.randomize = perun_params_bool(params, "randomize", 0);
	c->eff.return_median = perun_params_has(params, "return-median")
				       ? perun_params_bool(params, "return-median", 0)
				       : !perun_params_bool(params, "return-mean", 1);
	long long nsub = perun_params_int(params, "n-sub-samples", 50);
	long long nres = perun_params_int(params, "n-re-samples", 25);
	if (nsub < 1 || nsub > 100000000)
		return bad_value(err, "n-sub-samples", "must be at least 1");
	if (nres < 1 || nres > 100000000)
		return bad_value(err, "n-re-samples", "must be at least 1");
	c->eff.n_sub = (size_t)nsub;
	c->eff.n_res = (size_t)nres;

	c->has_bw_value = perun_params_has(params, "bandwidth-value");
	c->bw_value = perun_params_float(params, "bandwidth-value", 0);
	if (c->has_bw_value && !(c->bw_value >= 1e-10 && isfinite(c->bw_value)))
		return bad_value(err, "bandwidth-value", "must be at least 1e-10");
	if (m == KR_USER && !c->has_bw_value)
		return perun_error_set(err, PERUN_EINVAL,
				       "mode 'user-selection' needs option '--bandwidth-value'");
	c->kernel = (enum kr_kernel)index_of(
		"epanechnikov|tricube|normal|epanechnikov4|normal4",
		perun_params_string(params, "kernel-type", "epanechnikov"));
	c->smoothing = (enum kr_smoothing)index_of(
		"spatial-average|local-linear|local-polynomial",
		perun_params_string(params, "smoothing-method", "spatial-average"));
	long long order = perun_params_int(params, "polynomial-order", 3);
	if (order < 1 || order > 20)
		return bad_value(err, "polynomial-order", "must be from 1 to 20");
	c->order = (int)order;

	if (m == KR_RIDGE) {
		int rc = gamma_range(params, &c->gamma_lo, &c->gamma_hi, err);
		if (rc)
			return rc;
		c->gamma_step = perun_params_float(params, "gamma-step", 1e-5);
		if (!(c->gamma_step >= 1e-10) || !isfinite(c->gamma_step))
			return bad_value(err, "gamma-step", "must be at least 1e-10");
		if (!(c->gamma_step < c->gamma_hi - c->gamma_lo))
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--gamma-step': the step must be less than "
					       "the length of the range (%g >= %g)",
					       c->gamma_step, c->gamma_hi - c->gamma_lo);
	}
	return 0;
}

/* One uid's record: x, y sorted as Python sorts the (x, y) tuples. */
struct estimate {
	double bandwidth;
	double r_square;
	double *stats;
	const char *kernel_mode;
};

static int cmp_points(const void *a, const void *b)
{
	const struct perun_point *p = a, *q = b;
	int c = perun_num_cmp(&p->x, &q->x);
	if (!c)
		c = perun_num_cmp(&p->y, &q->y);
	if (!c)
		c = p->idx < q->idx ? -1 : p->idx > q->idx;
	return c;
}

static int all_finite(const double *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(a[i]))
			return 0;
	return 1;
}

/* kernel_regression.execute_kernel_regression for one uid with >= 3 points. */
static int estimate(const struct config *c, const double *x, const double *y, size_t n,
		    struct estimate *e, struct kr_fail *fail)
{
	int rc = 0;
	switch (c->mode) {
	case KR_ESTIMATOR:
	case KR_USER:
	case KR_METHOD:
		e->kernel_mode = "estimator";
		if (c->mode == KR_ESTIMATOR)
			rc = kr_np_select_bw(c->reg_type, c->bw_method, &c->eff, x, y, n,
					     &e->bandwidth, fail);
		else if (c->mode == KR_USER && x[0] == x[n - 1])
			/* Perun computes Scott's rule here too, and fails on it. */
			rc = snprintf(fail->message, sizeof(fail->message),
				      "all x values are equal") < 0
				     ? KR_NOMEM
				     : KR_DEGENERATE;
		else if (c->mode == KR_USER)
			e->bandwidth = c->bw_value;
		else
			rc = kr_rule_bw(c->rule, x, n, &e->bandwidth, fail);
		if (!rc)
			rc = kr_np_fit(c->reg_type, e->bandwidth, x, y, n, e->stats, fail);
		if (!rc)
			e->r_square = kr_np_r_squared(y, e->stats, n);
		break;
	case KR_SMOOTHING:
		e->kernel_mode = "smoothing";
		if (c->has_bw_value)
			e->bandwidth = c->bw_value;
		else
			rc = kr_covariance_bw(c->rule, x, n, &e->bandwidth, fail);
		if (!rc)
			rc = kr_smooth(c->kernel, c->smoothing, c->order, &e->bandwidth, x, y, n,
				       e->stats, fail);
		if (!rc)
			rc = perun_r2_score(y, e->stats, n, &e->r_square) ? KR_NOMEM : 0;
		break;
	case KR_RIDGE:
		e->kernel_mode = "ridge";
		rc = kr_ridge(c->gamma_lo, c->gamma_hi, c->gamma_step, x, y, n, &e->bandwidth,
			      e->stats, fail);
		if (!rc)
			rc = perun_r2_score(y, e->stats, n, &e->r_square) ? KR_NOMEM : 0;
		break;
	}
	if (!rc && !all_finite(e->stats, n)) {
		snprintf(fail->message, sizeof(fail->message),
			 "the estimate is not finite (bandwidth %g too small?)", e->bandwidth);
		rc = KR_DEGENERATE;
	}
	return rc;
}

/* The record of kernel_regression.methods, in its key order. */
static json_t *model_record(const struct config *c, const char *uid, const struct perun_point *pts,
			    size_t n, const struct estimate *e)
{
	json_t *r = json_object(), *stats = json_array();
	int fail = !r || !stats;
	fail |= json_object_set_new(r, "x_start", perun_num_json(&pts[0].x));
	fail |= json_object_set_new(r, "x_end", perun_num_json(&pts[n - 1].x));
	fail |= json_object_set_new(r, "per_key", json_string(c->per_key));
	if (e) {
		fail |= json_object_set_new(r, "bandwidth", json_real(e->bandwidth));
		/* statsmodels' r_squared is 0/0 for a constant fit: Perun writes NaN. */
		struct perun_num r2 = { e->r_square, 0, 0 };
		fail |= json_object_set_new(r, "r_square", perun_num_json(&r2));
		for (size_t i = 0; i < n && !fail; i++)
			fail |= json_array_append_new(stats, json_real(e->stats[i]));
	} else {
		/* Perun's record for fewer than 3 points: the y values as they are. */
		fail |= json_object_set_new(r, "bandwidth", json_integer(1));
		fail |= json_object_set_new(r, "r_square", json_integer(1));
		for (size_t i = 0; i < n && !fail; i++)
			fail |= json_array_append_new(stats, perun_num_json(&pts[i].y));
	}
	fail |= json_object_set_new(r, "bucket_stats", stats);
	fail |= json_object_set_new(r, "kernel_mode", json_string(e ? e->kernel_mode : "manually"));
	fail |= json_object_set_new(r, "uid", json_string(uid));
	fail |= json_object_set_new(r, "model", json_string("kernel_regression"));
	if (fail) {
		json_decref(r);
		return NULL;
	}
	return r;
}

static int kr_postprocess(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	struct config c = { 0 };
	struct perun_points *points = NULL;
	struct perun_points_skips skipped = { 0 }, manual = { 0 };
	double *x = NULL, *y = NULL, *stats = NULL;
	size_t cap = 0, estimated = 0;
	json_t *records = json_array();
	int rc = read_config(ctx->params, &c, err);
	if (rc)
		goto out;
	if (!records) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	if (c.mode == KR_ESTIMATOR && c.eff.enabled && c.eff.randomize) {
		c.eff.rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!c.eff.rng) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		gsl_rng_set(c.eff.rng, perun_params_seed(ctx->params, "seed"));
	}
	rc = perun_points_open(ctx->profile, &points, err);
	if (!rc)
		rc = perun_points_check_key(points, "per-key", c.per_key, err);
	if (!rc)
		rc = perun_points_check_key(points, "of-key", c.of_key, err);
	const char *uid;
	struct perun_point *pts;
	size_t n;
	while (!rc &&
	       (rc = perun_points_next(points, c.per_key, c.of_key, &uid, &pts, &n, err)) > 0) {
		rc = 0;
		qsort(pts, n, sizeof(*pts), cmp_points);
		if (n > cap) {
			free(x);
			free(y);
			free(stats);
			x = malloc(n * sizeof(double));
			y = malloc(n * sizeof(double));
			stats = malloc(n * sizeof(double));
			cap = n;
			if (!x || !y || !stats) {
				cap = 0;
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
				break;
			}
		}
		for (size_t i = 0; i < n; i++) {
			x[i] = pts[i].x.d;
			y[i] = pts[i].y.d;
		}
		struct estimate e = { 0, 0, stats, NULL };
		struct kr_fail fail;
		json_t *record = NULL;
		if (n < 3) {
			char why[64];
			snprintf(why, sizeof(why), "%zu point%s, at least 3 needed", n,
				 n == 1 ? "" : "s");
			perun_points_skip(&manual, uid, why);
			record = model_record(&c, uid, pts, n, NULL);
		} else {
			int status = estimate(&c, x, y, n, &e, &fail);
			if (status == KR_NOMEM) {
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
				break;
			}
			if (status) {
				perun_points_skip(&skipped, uid, fail.message);
				continue;
			}
			estimated++;
			record = model_record(&c, uid, pts, n, &e);
		}
		if (!record || json_array_append_new(records, record)) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
	}
	if (rc)
		goto out;
	/* No estimate: the error names the first uid skipped (else the first
	 * with too few points). */
	if (!estimated) {
		rc = perun_points_skips_finish(skipped.count ? &skipped : &manual, 0, err);
		goto out;
	}
	if (perun_points_add_models(ctx->profile, records)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	/* Success may carry a warning: the skipped uids, the manual records. */
	err->message[0] = '\0';
	rc = perun_points_skips_finish(&skipped, estimated, err);
	if (!rc && manual.count) {
		size_t len = strlen(err->message);
		snprintf(err->message + len, sizeof(err->message) - len,
			 "%s%zu uid%s with too few points stored as kernel_mode 'manually': %s",
			 len ? "; " : "", manual.count, manual.count == 1 ? "" : "s", manual.text);
	}
out:
	json_decref(records);
	gsl_rng_free(c.eff.rng);
	perun_points_free(points);
	free(x);
	free(y);
	free(stats);
	return rc;
}

static const struct perun_postprocess_ops kr_ops = {
	.size = sizeof(struct perun_postprocess_ops),
	.postprocess = kr_postprocess,
};

PERUN_PLUGIN_DEFINE(
	kernel_regression, PERUN_KIND_POSTPROCESS, .version = "1.0",
	.summary = "non-parametric kernel models (statsmodels, pyqt_fit, ridge) per uid",
	.options = kr_options, .ops = &kr_ops);
