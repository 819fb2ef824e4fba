/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loc: Perun's local statistics.  The compared points of a uid's models
 * are cut into windows of 5 % of the points (one window when that is under
 * two points); per window eight statistics (Simpson integral, mean,
 * median, max, min, sum, 25th and 75th percentile) of baseline and target
 * are compared by their mean relative error; the mean over the windows
 * classifies the whole (10 % no change, 25 % maybe).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#include "checkkit.h"

#define MIN_POINTS_IN_INTERVAL 2
#define INTERVAL_DENSITY       0.05
#define STATS_DIFF_NO_CHANGE   0.10
#define STATS_DIFF_CHANGE      0.25
#define NSTATS		       8
#define APPROX_ZERO	       0.000001

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* numpy's linear interpolation between two order statistics. */
static double lerp(double a, double b, double t)
{
	double diff = b - a;
	return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/* numpy.nanpercentile of sorted values (NaN left out). */
static double percentile(const double *v, size_t m, double q)
{
	if (!m)
		return NAN;
	double pos = q / 100.0 * (double)(m - 1);
	size_t lo = (size_t)floor(pos), hi = lo + 1 < m ? lo + 1 : lo;
	return lerp(v[lo], v[hi], pos - (double)lo);
}

/*
 * The eight statistics of one window of len points (NaN for padding).
 * sorted is scratch for len values.
 */
static void window_stats(const double *x, const double *y, size_t len, double *sorted,
			 double stats[NSTATS])
{
	size_t m = 0;
	double sum = 0.0, max = -INFINITY, min = INFINITY;
	for (size_t i = 0; i < len; i++) {
		if (isnan(y[i]))
			continue;
		sorted[m++] = y[i];
		sum += y[i];
		max = fmax(max, y[i]);
		min = fmin(min, y[i]);
	}
	/* Windows are small: insertion sort beats qsort's calls there. */
	if (m > 64) {
		qsort(sorted, m, sizeof(*sorted), cmp_double);
	} else {
		for (size_t i = 1; i < m; i++) {
			double v = sorted[i];
			size_t j = i;
			for (; j > 0 && sorted[j - 1] > v; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = v;
		}
	}
	stats[0] = checklib_simps(y, x, len);
	stats[1] = m ? sum / (double)m : NAN;
	stats[2] = !m ? NAN : m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2.0;
	stats[3] = m ? max : NAN;
	stats[4] = m ? min : NAN;
	stats[5] = sum;
	stats[6] = percentile(sorted, m, 25);
	stats[7] = percentile(sorted, m, 75);
}

static int analyse(const struct checklib_pair *pair, enum perun_change *result, double *rate,
		   struct perun_error *err)
{
	struct checklib_points p;
	int rc = checklib_nonparam_coords(pair, &p, err);
	if (rc)
		return rc;
	size_t n = p.n;
	/* Windows of w points, the last padded with NaN; or one window. */
	size_t w = (size_t)(INTERVAL_DENSITY * (double)n);
	if (w < MIN_POINTS_IN_INTERVAL)
		w = n;
	size_t windows = w ? (n + w - 1) / w : 0;
	double *pad = malloc((4 * w + 1) * sizeof(*pad));
	if (!pad) {
		checklib_points_release(&p);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	double *wx = pad, *wb = pad + w, *wt = pad + 2 * w, *sorted = pad + 3 * w;
	double total = 0.0;
	for (size_t k = 0; k < windows; k++) {
		for (size_t i = 0; i < w; i++) {
			size_t at = k * w + i;
			wx[i] = at < n ? p.x[at] : NAN;
			wb[i] = at < n ? p.base_y[at] : NAN;
			wt[i] = at < n ? p.target_y[at] : NAN;
		}
		double bs[NSTATS], ts[NSTATS];
		window_stats(wx, wb, w, sorted, bs);
		window_stats(wx, wt, w, sorted, ts);
		double rel_sum = 0.0;
		for (int s = 0; s < NSTATS; s++) {
			double rel =
				bs[s] != 0 ? checklib_nan_to_num((ts[s] - bs[s]) / bs[s]) : 0.0;
			rel_sum += rel;
		}
		total += rel_sum / NSTATS;
	}
	free(pad);
	checklib_points_release(&p);
	double mean = windows ? total / (double)windows : total / APPROX_ZERO;
	*result = checklib_classify_change(mean, STATS_DIFF_NO_CHANGE, STATS_DIFF_CHANGE, 1);
	*rate = checklib_round2(mean);
	return 0;
}

static int loc_compare(const struct perun_profile *baseline, const struct perun_profile *target,
		       const struct perun_params *params, perun_check_emit_fn emit, void *data,
		       struct perun_error *err)
{
	return checklib_run_with_strategy(baseline, target, params, analyse, emit, data, err);
}

static const struct perun_check_ops loc_ops = {
	.size = sizeof(loc_ops),
	.compare = loc_compare,
	.method = "local_statistics",
	.title = "local statistics",
};

PERUN_PLUGIN_DEFINE(loc, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "local statistics: windowed statistics of the models compared",
		    .options = checklib_models_type_options, .ops = &loc_ops);
