/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * regressogram - Python Perun's non-parametric step-function model of a
 * resource key (--of-key) depending on another (--per-key), per uid.
 *
 * The x range is cut into equal buckets (scipy.stats.binned_statistic) and
 * each bucket's value is the mean or median of the y values in it; empty
 * buckets are 0 and r^2 is sklearn's of y against its bucket's value.  The
 * bucket count is --bucket_number or, as Perun has it, the bin *width*
 * numpy's histogram_bin_edges rule (--bucket_method) gives, truncated as
 * scipy truncates it (see README.md).  numpy's arithmetic is reproduced
 * operation by operation: pairwise sums, the linspace of the edges,
 * the linear percentiles.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_histogram.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <perun/perun.h>
#include <perun/points.h>

enum rg_method {
	RG_AUTO = 0,
	RG_DOANE,
	RG_FD,
	RG_RICE,
	RG_SCOTT,
	RG_SQRT,
	RG_STURGES,
	RG_METHOD_COUNT,
};

/* One uid's points as numpy arrays; x is an int64 array when all its
 * values are ints (numpy's ptp then subtracts exactly). */
struct rg_data {
	const double *x, *y;
	size_t n;
	int x_is_int;
	double x_min, x_max;
	long long x_min_i, x_max_i;
	struct perun_num y_start; /* min(y), the first of equal ones */
};

struct rg_result {
	double *stats; /* malloc'd, one per bucket */
	size_t buckets;
	double x_start, x_end, r_square;
};

static const struct perun_option rg_options[] = {
	{ "bucket_number", "bn", PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "number of buckets (>= 1); without it --bucket_method estimates it", 0 },
	{ "bucket_method", "bm", PERUN_OPTION_CHOICE, "doane",
	  "auto|doane|fd|rice|scott|sqrt|sturges", NULL, "numpy's rule that estimates the buckets",
	  0 },
	{ "statistic_function", "sf", PERUN_OPTION_CHOICE, "mean", "mean|median", NULL,
	  "the value of a bucket: the mean or the median of its y values", 0 },
	{ "per-key", "per", PERUN_OPTION_STRING, "structure-unit-size", NULL, "<per_resource_key>",
	  "resource key of the independent variable (x)", 0 },
	{ "of-key", "of", PERUN_OPTION_STRING, "amount", NULL, "<of_resource_key>",
	  "resource key that is modelled (y)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const char *const method_names[RG_METHOD_COUNT] = {
	"auto", "doane", "fd", "rice", "scott", "sqrt", "sturges",
};

static int rg_method_from_name(const char *name)
{
	for (int m = 0; m < RG_METHOD_COUNT; m++)
		if (!strcmp(method_names[m], name))
			return m;
	return -1;
}

/* numpy's _ptp: max - min, for ints as an unsigned difference. */
static double ptp(const struct rg_data *d)
{
	if (d->x_is_int)
		return (double)((unsigned long long)d->x_max_i - (unsigned long long)d->x_min_i);
	return d->x_max - d->x_min;
}

/* numpy.std (ddof 0): the mean, then the pairwise sum of squared deviations. */
static double std_of(const struct rg_data *d, double *tmp)
{
	double mean = perun_mean(d->x, d->n);
	for (size_t i = 0; i < d->n; i++) {
		double dev = d->x[i] - mean;
		tmp[i] = dev * dev;
	}
	return sqrt(perun_sum_pairwise(tmp, d->n) / (double)d->n);
}

/* numpy.percentile(x, q) with the default linear method, on sorted x. */
static double percentile(const double *sorted, size_t n, double q)
{
	double virtual_index = (double)(n - 1) * (q / 100);
	if (virtual_index >= (double)(n - 1))
		return sorted[n - 1];
	double previous_index = floor(virtual_index);
	double a = sorted[(size_t)previous_index], b = sorted[(size_t)previous_index + 1];
	double gamma = virtual_index - previous_index, diff = b - a;
	/* numpy's _lerp: from the nearer end */
	return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

static double width_sturges(const struct rg_data *d)
{
	return ptp(d) / (log2((double)d->n) + 1.0);
}

static double width_fd(const struct rg_data *d, double *tmp)
{
	memcpy(tmp, d->x, d->n * sizeof(*tmp));
	gsl_sort(tmp, 1, d->n);
	double iqr = percentile(tmp, d->n, 75) - percentile(tmp, d->n, 25);
	return 2.0 * iqr * pow((double)d->n, -1.0 / 3.0);
}

static double width_doane(const struct rg_data *d, double *tmp)
{
	size_t n = d->n;
	if (n <= 2)
		return 0.0;
	double sg1 = sqrt(6.0 * (double)(n - 2) / (((double)n + 1.0) * (double)(n + 3)));
	double sigma = std_of(d, tmp);
	if (!(sigma > 0.0))
		return 0.0;
	double mean = perun_mean(d->x, n);
	for (size_t i = 0; i < n; i++)
		tmp[i] = pow((d->x[i] - mean) / sigma, 3);
	double g1 = perun_mean(tmp, n);
	return ptp(d) / (1.0 + log2((double)n) + log2(1.0 + fabs(g1) / sg1));
}

/* numpy.lib.histograms._hist_bin_<method>: a bin width.  tmp holds n doubles. */
static double rg_bin_width(enum rg_method method, const struct rg_data *d, double *tmp)
{
	double n = (double)d->n;
	switch (method) {
	case RG_SQRT: return ptp(d) / sqrt(n);
	case RG_STURGES: return width_sturges(d);
	case RG_RICE: return ptp(d) / (2.0 * pow(n, 1.0 / 3));
	case RG_SCOTT: return pow(24.0 * pow(M_PI, 0.5) / n, 1.0 / 3.0) * std_of(d, tmp);
	case RG_DOANE: return width_doane(d, tmp);
	case RG_FD: return width_fd(d, tmp);
	case RG_AUTO: {
		double fd = width_fd(d, tmp), sturges = width_sturges(d);
		if (fd != 0)
			return sturges < fd ? sturges : fd;
		return sturges;
	}
	default: return 0.0;
	}
}

/*
 * binned_statistic(x, y, stat, max(1, width)): scipy stores width + 2 into
 * an int array (truncating) and makes that many edges minus one.
 */
static int rg_buckets_from_width(double width, long long *out)
{
	if (!(width > 1)) { /* Python's max(1, width), NaN included */
		*out = 1;
		return 0;
	}
	double total = width + 2;
	if (!(total < 9.2e18))
		return -1;
	*out = (long long)total - 2;
	return 0;
}

static void rg_data_init(struct rg_data *d, const struct perun_point *pts, size_t n, double *x,
			 double *y)
{
	memset(d, 0, sizeof(*d));
	d->x = x;
	d->y = y;
	d->n = n;
	d->x_is_int = 1;
	d->y_start = pts[0].y;
	for (size_t i = 0; i < n; i++) {
		x[i] = pts[i].x.d;
		y[i] = pts[i].y.d;
		d->x_is_int &= pts[i].x.is_int;
		/* Python's min() keeps the first of equal values. */
		if (perun_num_cmp(&pts[i].y, &d->y_start) < 0)
			d->y_start = pts[i].y;
		if (!i || x[i] < d->x_min) {
			d->x_min = x[i];
			d->x_min_i = pts[i].x.i;
		}
		if (!i || x[i] > d->x_max) {
			d->x_max = x[i];
			d->x_max_i = pts[i].x.i;
		}
	}
}

/* numpy.linspace(start, stop, count + 1): the bucket edges. */
static void linspace(double start, double stop, size_t count, double *edges)
{
	double delta = stop - start, step = delta / (double)count;
	for (size_t k = 0; k <= count; k++)
		edges[k] =
			(step == 0 ? (double)k / (double)count * delta : (double)k * step) + start;
	edges[count] = stop;
}

/* (bucket, point) pairs in bucket order */
static int cmp_pair(const void *a, const void *b)
{
	const size_t *p = a, *q = b;
	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	return p[1] < q[1] ? -1 : p[1] > q[1];
}

/* scipy's median branch: each bucket's values sorted, the middle one or
 * the mean of the middle two. */
static int bucket_medians(const struct rg_data *d, const size_t *bucket, size_t buckets,
			  double *stats)
{
	size_t *pairs = malloc(d->n * 2 * sizeof(*pairs));
	double *values = malloc(d->n * sizeof(*values));
	if (!pairs || !values) {
		free(pairs);
		free(values);
		return -1;
	}
	for (size_t i = 0; i < d->n; i++) {
		pairs[2 * i] = bucket[i];
		pairs[2 * i + 1] = i;
		values[i] = 0;
	}
	qsort(pairs, d->n, 2 * sizeof(*pairs), cmp_pair);
	for (size_t i = 0; i < d->n; i++)
		values[i] = d->y[pairs[2 * i + 1]];
	for (size_t start = 0, end; start < d->n; start = end) {
		for (end = start + 1; end < d->n && pairs[2 * end] == pairs[2 * start]; end++)
			;
		gsl_sort(values + start, 1, end - start);
		if (pairs[2 * start] < buckets)
			stats[pairs[2 * start]] =
				gsl_stats_median_from_sorted_data(values + start, 1, end - start);
	}
	free(pairs);
	free(values);
	return 0;
}

/*
 * The bucket of every point (scipy's _bin_numbers: numpy.digitize, and the
 * points on the last edge in the last bucket), then each bucket's statistic.
 */
static int rg_compute(const struct rg_data *d, size_t buckets, int median, struct rg_result *res,
		      char *why, size_t whylen)
{
	double smin = d->x_min, smax = d->x_max;
	int rc = -1;
	if (smin == smax) {
		smin -= .5;
		smax += .5;
	}
	double *edges = malloc((buckets + 1) * sizeof(*edges));
	size_t *bucket = malloc(d->n * sizeof(*bucket));
	gsl_histogram *sums = gsl_histogram_alloc(buckets), *counts = gsl_histogram_alloc(buckets);
	double *stats = calloc(buckets, sizeof(*stats)), *pred = malloc(d->n * sizeof(*pred));
	if (!edges || !bucket || !sums || !counts || !stats || !pred) {
		snprintf(why, whylen, "out of memory for %zu buckets", buckets);
		goto out;
	}
	linspace(smin, smax, buckets, edges);
	double lo = edges[0], hi = edges[0], dmin = INFINITY;
	for (size_t k = 1; k <= buckets; k++) {
		if (edges[k] - edges[k - 1] < dmin)
			dmin = edges[k] - edges[k - 1];
		lo = edges[k] < lo ? edges[k] : lo;
		hi = edges[k] > hi ? edges[k] : hi;
	}
	if (dmin == 0) {
		snprintf(why, whylen,
			 "%zu buckets are too narrow: the smallest edge difference "
			 "is numerically 0",
			 buckets);
		goto out;
	}
	/* GSL finds the bucket as numpy.digitize does: edge[k] <= x < edge[k+1]. */
	gsl_histogram_set_ranges(sums, edges, buckets + 1);
	gsl_histogram_set_ranges(counts, edges, buckets + 1);
	for (size_t i = 0; i < d->n; i++) {
		double x = d->x[i];
		if (x >= edges[buckets])
			bucket[i] = buckets - 1;
		else if (gsl_histogram_find(sums, x, &bucket[i])) {
			snprintf(why, whylen, "point %zu lies outside the buckets", i + 1);
			goto out;
		}
		/* np.bincount: sums in the order of the points */
		sums->bin[bucket[i]] += d->y[i];
		counts->bin[bucket[i]] += 1;
	}
	if (!median) {
		for (size_t k = 0; k < buckets; k++)
			if (counts->bin[k] > 0)
				stats[k] = sums->bin[k] / counts->bin[k];
	} else if (bucket_medians(d, bucket, buckets, stats)) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < d->n; i++)
		pred[i] = stats[bucket[i]];
	if (perun_r2_score(d->y, pred, d->n, &res->r_square)) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	res->stats = stats;
	stats = NULL;
	res->buckets = buckets;
	res->x_start = lo;
	res->x_end = hi;
	rc = 0;
out:
	free(edges);
	free(bucket);
	gsl_histogram_free(sums);
	gsl_histogram_free(counts);
	free(stats);
	free(pred);
	return rc;
}

/* More buckets than this is a mistake, not a model (upstream would try). */
#define RG_MAX_BUCKETS (1ll << 27)

/* The record of methods.compute_regressogram, in its key order. */
static json_t *model_record(const struct rg_result *r, const struct rg_data *d, const char *method,
			    const char *statistic, const char *uid, const char *per_key,
			    const char *of_key)
{
	json_t *record = json_object(), *stats = json_array();
	struct perun_num x_start = { .d = r->x_start }, x_end = { .d = r->x_end };
	struct perun_num r2 = { .d = r->r_square }; /* NaN for one point */
	int fail = !record || !stats;
	for (size_t k = 0; k < r->buckets && !fail; k++)
		fail |= json_array_append_new(stats, json_real(r->stats[k]));
	fail |= json_object_set_new_nocheck(record, "buckets_method", json_string(method));
	fail |= json_object_set_new_nocheck(record, "statistic_function", json_string(statistic));
	fail |= json_object_set_new_nocheck(record, "bucket_stats", stats);
	fail |= json_object_set_new_nocheck(record, "x_start", perun_num_json(&x_start));
	fail |= json_object_set_new_nocheck(record, "x_end", perun_num_json(&x_end));
	fail |= json_object_set_new_nocheck(record, "y_start", perun_num_json(&d->y_start));
	fail |= json_object_set_new_nocheck(record, "r_square", perun_num_json(&r2));
	fail |= json_object_set_new_nocheck(record, "uid", json_string(uid));
	fail |= json_object_set_new_nocheck(record, "model", json_string("regressogram"));
	fail |= json_object_set_new_nocheck(record, "per_key", json_string(per_key));
	fail |= json_object_set_new_nocheck(record, "of_key", json_string(of_key));
	if (fail) {
		json_decref(record);
		return NULL;
	}
	return record;
}

/* x, y and scratch space of one uid, n doubles each, in one block. */
struct run {
	const struct perun_params *params;
	double *x, *y, *tmp; /* one block, grown as uids need */
};

/* One uid (perun_points_model_fn): its record appended to models, or why
 * it was skipped in why. */
static int regressogram_of(void *arg, const char *uid, struct perun_point *pts, size_t n,
			   json_t *models, char *why, size_t whylen, struct perun_error *err)
{
	struct run *buf = arg;
	const struct perun_params *params = buf->params;
	const char *method = perun_params_string(params, "bucket_method", "doane");
	const char *statistic = perun_params_string(params, "statistic_function", "mean");
	struct rg_data d;
	struct rg_result res = { 0 };
	long long buckets;
	double *block = realloc(buf->x, 3 * n * sizeof(*block));
	if (!block)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	buf->x = block;
	buf->y = block + n;
	buf->tmp = block + 2 * n;
	rg_data_init(&d, pts, n, buf->x, buf->y);
	if (perun_params_has(params, "bucket_number")) {
		buckets = perun_params_int(params, "bucket_number", 1);
		method = "user";
	} else if (rg_buckets_from_width(rg_bin_width(rg_method_from_name(method), &d, buf->tmp),
					 &buckets)) {
		snprintf(why, whylen, "the %s rule gives no finite number of buckets", method);
		return 1;
	}
	if (buckets > RG_MAX_BUCKETS) {
		snprintf(why, whylen, "%lld buckets are more than %lld", buckets, RG_MAX_BUCKETS);
		return 1;
	}
	if (rg_compute(&d, (size_t)buckets, !strcmp(statistic, "median"), &res, why, whylen))
		return 1;
	json_t *record = model_record(&res, &d, method, statistic, uid,
				      perun_params_string(params, "per-key", "structure-unit-size"),
				      perun_params_string(params, "of-key", "amount"));
	free(res.stats);
	if (!record || json_array_append_new(models, record))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

static int rg_postprocess(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	const struct perun_params *params = ctx->params;
	struct run run = { .params = params };
	int rc;

	/* click.IntRange(min=1) */
	if (perun_params_has(params, "bucket_number") &&
	    perun_params_int(params, "bucket_number", 1) < 1)
		return perun_error_set(
			err, PERUN_EINVAL,
			"option '--bucket_number' takes a whole number >= 1, not %lld",
			perun_params_int(params, "bucket_number", 1));
	rc = perun_points_model_each(
		ctx->profile, perun_params_string(params, "per-key", "structure-unit-size"),
		perun_params_string(params, "of-key", "amount"), regressogram_of, &run, err);
	free(run.x);
	return rc;
}

static const struct perun_postprocess_ops rg_ops = {
	.size = sizeof(struct perun_postprocess_ops),
	.postprocess = rg_postprocess,
};

PERUN_PLUGIN_DEFINE(regressogram, PERUN_KIND_POSTPROCESS, .version = "1.0",
		    .summary = "regressogram: a step function of bucket means or medians per uid",
		    .options = rg_options, .ops = &rg_ops);
