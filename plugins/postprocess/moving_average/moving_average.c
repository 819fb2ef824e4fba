/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * moving_average - Python Perun's moving-average postprocessor: the y values
 * of a uid (--of-key), sorted by x (--per-key), smoothed by a simple moving
 * average (sma, optionally weighted by a scipy window), a moving median
 * (smm) or an exponential moving average (ema), as pandas' rolling() and
 * ewm() compute them.  Without a window width the width is searched for
 * until r^2 reaches 0.88.  See README.md for upstream's quirks kept here.
 *
 * pandas' arithmetic is reproduced operation by operation (the Kahan sums of
 * roll_mean and its guards, roll_weighted_mean's order, ewm's recurrence),
 * numpy's and sklearn's through libperun (perun_r2_score).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_movstat.h>
#include <gsl/gsl_vector.h>

#include <perun/perun.h>
#include <perun/points.h>

#define WINDOW_TYPES                                                                               \
	"boxcar|triang|blackman|hamming|bartlett|parzen|bohman|blackmanharris|nuttall|barthann"

static const struct perun_option ma_options[] = {
	{ "moving_method", NULL, PERUN_OPTION_CHOICE, "sma", "sma|smm|ema", NULL,
	  "simple moving average, moving median or exponential moving average; "
	  "also the first bare word (Perun's subcommand)",
	  PERUN_OPTION_SUBCOMMAND },
	{ "min_periods", "mp", PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "fewest observations in a window that give a value (>= 1)", 0 },
	{ "per-key", "per", PERUN_OPTION_STRING, "structure-unit-size", NULL, "<per_resource_key>",
	  "resource key of the independent variable (x)", 0 },
	{ "of-key", "of", PERUN_OPTION_STRING, "amount", NULL, "<of_resource_key>",
	  "resource key that is modelled (y)", 0 },
	{ "window_width", "ww", PERUN_OPTION_FLOAT, NULL, NULL, "<int>",
	  "sma, smm: observations in a window (>= 1); searched for when not given", 0 },
	{ "center", NULL, PERUN_OPTION_BOOL, "true", NULL, NULL,
	  "sma, smm: the value at the window's centre (--no-center: at its right edge)", 0 },
	{ "window_type", "wt", PERUN_OPTION_CHOICE, NULL, WINDOW_TYPES, NULL,
	  "sma: weights of the window (scipy.signal.windows); none: all equal", 0 },
	{ "decay", "d", PERUN_OPTION_STRING, NULL, NULL, "<com|span|halflife|alpha> <value>",
	  "ema: the decay (default com 0: com >= 0, span >= 1, halflife > 0, 0 < alpha <= 1)",
	  PERUN_OPTION_PAIR },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

enum ma_method { MA_SMA, MA_SMM, MA_EMA };
enum ma_decay { MA_COM, MA_SPAN, MA_HALFLIFE, MA_ALPHA };

/* methods.py: the iterative search for a window width. */
#define MA_MIN_R_SQUARE		 0.88
#define MA_WINDOW_WIDTH_INCREASE 0.15
#define MA_INTERVAL_LENGTH	 0.05

/* The configuration after the options are checked. */
struct config {
	enum ma_method method;
	const char *method_name;
	int window_type; /* index into WINDOW_TYPES, -1 for none */
	int center;
	long long min_periods; /* 0: not given */
	enum ma_decay decay;
	/*
	 * Perun's configuration["window_width"]: the sma/smm width or the
	 * decay value of ema.  Its search writes the result back, and the next
	 * uids use it as given (upstream's quirk, kept).
	 */
	double width;
	int width_is_int;
};

/* ---- pandas' rolling windows ------------------------------------------- */

/* FixedWindowIndexer: [start, end) of the window of point i. */
static void window_bounds(size_t i, size_t n, long long w, int center, size_t *s, size_t *e)
{
	long long offset = center ? (w - 1) / 2 : 0;
	long long end = (long long)i + 1 + offset, start = end - w;
	*e = end > (long long)n ? n : (size_t)end;
	*s = start < 0 ? 0 : start > (long long)n ? n : (size_t)start;
}

struct mean_acc {
	double sum, comp_add, comp_remove, prev;
	long long nobs, neg, same;
};

/* add_mean / remove_mean of pandas' aggregations.pyx: Kahan summation. */
static void add_mean(struct mean_acc *a, double v)
{
	a->nobs++;
	double y = v - a->comp_add, t = a->sum + y;
	a->comp_add = t - a->sum - y;
	a->sum = t;
	if (signbit(v))
		a->neg++;
	a->same = v == a->prev ? a->same + 1 : 1;
	a->prev = v;
}

static void remove_mean(struct mean_acc *a, double v)
{
	a->nobs--;
	double y = -v - a->comp_remove, t = a->sum + y;
	a->comp_remove = t - a->sum - y;
	a->sum = t;
	if (signbit(v))
		a->neg--;
}

static double calc_mean(const struct mean_acc *a, long long minp)
{
	if (!(a->nobs >= minp && a->nobs > 0))
		return NAN;
	double result = a->sum / (double)a->nobs;
	if (a->same >= a->nobs)
		return a->prev;
	if (a->neg == 0 && result < 0)
		return 0;
	if (a->neg == a->nobs && result > 0)
		return 0;
	return result;
}

/* roll_mean over fixed, monotonic windows. */
static void roll_mean(const double *v, size_t n, long long w, long long minp, int center,
		      double *out)
{
	struct mean_acc a = { 0 };
	size_t prev_s = 0, prev_e = 0;
	for (size_t i = 0; i < n; i++) {
		size_t s, e;
		window_bounds(i, n, w, center, &s, &e);
		if (i == 0 || s >= prev_e) {
			memset(&a, 0, sizeof(a));
			a.prev = v[s < n ? s : n - 1];
			for (size_t j = s; j < e; j++)
				add_mean(&a, v[j]);
		} else {
			for (size_t j = prev_s; j < s; j++)
				remove_mean(&a, v[j]);
			for (size_t j = prev_e; j < e; j++)
				add_mean(&a, v[j]);
		}
		out[i] = calc_mean(&a, minp);
		prev_s = s;
		prev_e = e;
	}
}

/*
 * roll_median_c: the median of each window's values, NaN below minp.
 * GSL's moving median over the same truncated windows gives the same
 * order statistics; the count of a window decides NaN as pandas does.
 */
static int roll_median(const double *v, size_t n, long long w, long long minp, int center,
		       double *out)
{
	long long offset = center ? (w - 1) / 2 : 0;
	size_t after = (size_t)offset, before = (size_t)(w - 1 - offset);
	gsl_movstat_workspace *ws = gsl_movstat_alloc2(before, after);
	gsl_vector_const_view x = gsl_vector_const_view_array(v, n);
	gsl_vector_view y = gsl_vector_view_array(out, n);
	if (!ws)
		return -1;
	int rc = gsl_movstat_median(GSL_MOVSTAT_END_TRUNCATE, &x.vector, &y.vector, ws);
	gsl_movstat_free(ws);
	for (size_t i = 0; i < n; i++) {
		size_t s, e;
		window_bounds(i, n, w, center, &s, &e);
		if ((long long)(e - s) < minp || e == s)
			out[i] = NAN;
	}
	return rc ? -1 : 0;
}

/* scipy.signal.windows (sym=True) of length m, as numpy computes them. */
static void linspace(double start, double stop, size_t count, double *out)
{
	double step = (stop - start) / (double)(count - 1);
	for (size_t k = 0; k < count; k++)
		out[k] = (double)k * step + start;
	if (count > 1)
		out[count - 1] = stop;
}

static void general_cosine(size_t m, const double *a, size_t na, double *w)
{
	linspace(-M_PI, M_PI, m, w);
	for (size_t i = 0; i < m; i++) {
		double fac = w[i], sum = 0;
		for (size_t k = 0; k < na; k++)
			sum += a[k] * cos((double)k * fac);
		w[i] = sum;
	}
}

static void scipy_window(int type, size_t m, double *w)
{
	static const double blackman[] = { 0.42, 0.50, 0.08 };
	static const double hamming[] = { 0.54, 1. - 0.54 };
	static const double blackmanharris[] = { 0.35875, 0.48829, 0.14128, 0.01168 };
	static const double nuttall[] = { 0.3635819, 0.4891775, 0.1365995, 0.0106411 };
	if (m <= 1 || type == 0) { /* _len_guards, boxcar */
		for (size_t i = 0; i < m; i++)
			w[i] = 1.0;
		return;
	}
	double dm = (double)m;
	switch (type) {
	case 1: { /* triang */
		size_t half = (m + 1) / 2;
		for (size_t k = 1; k <= half; k++) {
			double v = m % 2 == 0 ? (2.0 * (double)k - 1.0) / dm
					      : 2.0 * (double)k / (dm + 1.0);
			w[k - 1] = v;
			w[m - k] = v;
		}
		break;
	}
	case 2: general_cosine(m, blackman, 3, w); break;
	case 3: general_cosine(m, hamming, 2, w); break;
	case 4: /* bartlett */
		for (size_t k = 0; k < m; k++) {
			double n = (double)k;
			w[k] = n <= (dm - 1) / 2.0 ? 2.0 * n / (dm - 1) : 2.0 - 2.0 * n / (dm - 1);
		}
		break;
	case 5: /* parzen: the tails, the middle, the tails mirrored */
		for (size_t k = 0; k < m; k++) {
			double n = -(dm - 1) / 2.0 + (double)k, a = fabs(n);
			if (n < -(dm - 1) / 4.0) {
				double v = 2 * pow(1 - a / (dm / 2.0), 3.0);
				w[k] = v;
				w[m - 1 - k] = v;
			} else if (a <= (dm - 1) / 4.0) {
				double t = a / (dm / 2.0);
				w[k] = 1 - 6 * (t * t) + 6 * pow(t, 3.0);
			}
		}
		break;
	case 6: /* bohman */
		linspace(-1, 1, m, w);
		for (size_t k = 1; k + 1 < m; k++) {
			double fac = fabs(w[k]);
			w[k] = (1 - fac) * cos(M_PI * fac) + 1.0 / M_PI * sin(M_PI * fac);
		}
		w[0] = w[m - 1] = 0;
		break;
	case 7: general_cosine(m, blackmanharris, 4, w); break;
	case 8: general_cosine(m, nuttall, 4, w); break;
	case 9: /* barthann */
		for (size_t k = 0; k < m; k++) {
			double fac = fabs((double)k / (dm - 1.0) - 0.5);
			w[k] = 0.62 - 0.48 * fac + 0.38 * cos(2 * M_PI * fac);
		}
		break;
	}
}

/*
 * Window._apply with roll_weighted_mean: offset NaNs appended when
 * centred, each output the weighted sum in window order over the weights
 * of its valid values, NaN below minp or with no weight.
 */
static int roll_weighted_mean(const double *v, size_t n, long long w, int type,
			      long long min_periods, int center, double *out)
{
	double *weights = malloc((size_t)w * sizeof(*weights));
	if (!weights)
		return -1;
	scipy_window(type, (size_t)w, weights);
	size_t win = (size_t)w, offset = center ? (win - 1) / 2 : 0;
	long long minp = min_periods ? min_periods : w;
	if (minp < 1)
		minp = 1;
	for (size_t i = 0; i < n; i++) {
		size_t k = i + offset; /* position in the extended series */
		double sum = 0, total = 0;
		long long count = 0;
		for (size_t wi = 0; wi < win; wi++) {
			if (k + 1 + wi < win)
				continue;
			size_t idx = k + 1 + wi - win;
			if (idx >= n) /* an appended NaN */
				continue;
			sum += v[idx] * weights[wi];
			count++;
			total += weights[wi];
		}
		out[i] = count < minp || total == 0 ? NAN : sum / total;
	}
	free(weights);
	return 0;
}

/* pandas' ewm mean (adjust=True, ignore_na=False) over values without NaN. */
static void ewm_mean(const double *v, size_t n, double com, long long minp, double *out)
{
	double alpha = 1. / (1. + com), old_wt_factor = 1. - alpha, new_wt = 1.;
	double weighted = v[0], old_wt = 1.;
	long long nobs = 1;
	out[0] = nobs >= minp ? weighted : NAN;
	for (size_t i = 1; i < n; i++) {
		double cur = v[i];
		nobs++;
		old_wt *= old_wt_factor;
		if (weighted != cur) {
			weighted = old_wt * weighted + new_wt * cur;
			weighted /= old_wt + new_wt;
		}
		old_wt += new_wt;
		out[i] = nobs >= minp ? weighted : NAN;
	}
}

/* pandas' get_center_of_mass. */
static double center_of_mass(enum ma_decay decay, double value)
{
	switch (decay) {
	case MA_SPAN: return (value - 1) / 2;
	case MA_HALFLIFE: return 1 / (1 - exp(log(0.5) / value)) - 1;
	case MA_ALPHA: return (1 - value) / value;
	default: return value;
	}
}

/* ---- the moving averages of one uid ------------------------------------- */

/*
 * methods.execute_computation: the smoothed values of y (sorted by x) with
 * the window width (or decay value) width, and their r^2.  0, or 1 with
 * why filled for a window pandas refuses, -1 without memory.
 */
static int compute(const struct config *c, const double *y, size_t n, double width, double *stats,
		   double *pred, double *r2, char *why, size_t whylen)
{
	long long w = (long long)width;
	if (c->method != MA_EMA && c->min_periods > w) {
		snprintf(why, whylen, "min_periods %lld must be <= window width %lld",
			 c->min_periods, w);
		return 1;
	}
	if (c->method == MA_SMA && c->window_type >= 0) {
		if (roll_weighted_mean(y, n, w, c->window_type, c->min_periods, c->center, stats))
			return -1;
	} else if (c->method == MA_SMA) {
		roll_mean(y, n, w, c->min_periods ? c->min_periods : w, c->center, stats);
	} else if (c->method == MA_SMM) {
		if (roll_median(y, n, w, c->min_periods ? c->min_periods : w, c->center, stats))
			return -1;
	} else {
		/* min_periods or window_width, then pandas' max(int(.), 1) */
		double mp = c->min_periods ? (double)c->min_periods : width;
		long long minp = (long long)mp < 1 ? 1 : (long long)mp;
		ewm_mean(y, n, center_of_mass(c->decay, width), minp, stats);
	}
	for (size_t i = 0; i < n; i++)
		pred[i] = isnan(stats[i]) ? 0.0 : stats[i]; /* np.nan_to_num */
	return perun_r2_score(y, pred, n, r2) ? -1 : 0;
}

/* methods.compute_window_width_change */
static long long width_change(long long w, double r2)
{
	double change = MA_WINDOW_WIDTH_INCREASE * (double)(w - 1) * (MA_MIN_R_SQUARE - r2);
	double bound = 0.9 * (double)w - 1;
	/* Python's min() keeps the first unless the second is smaller (NaN) */
	double smaller = change < bound ? change : bound;
	long long step = (long long)smaller; /* int() truncates */
	if (step < 1)
		step = 1;
	return w - step < 1 ? 1 : w - step;
}

struct uid_result {
	double r_square;
	double width; /* as the record shows it */
	int width_is_int;
};

/* x_start, x_end: Python's min() and max() of the sorted x, the first of equals. */
static void x_range(const struct perun_point *pts, size_t n, struct perun_num *lo,
		    struct perun_num *hi)
{
	*lo = pts[0].x;
	*hi = pts[0].x;
	for (size_t i = 1; i < n; i++)
		if (perun_num_cmp(&pts[i].x, hi) > 0)
			*hi = pts[i].x;
}

/* methods.moving_average without the sort: direct or iterative. */
static int moving_average(struct config *c, const struct perun_point *pts, size_t n,
			  const double *y, double *stats, double *pred, struct uid_result *res,
			  char *why, size_t whylen)
{
	if (c->width != 0) {
		res->width = c->width;
		res->width_is_int = c->width_is_int;
		return compute(c, y, n, c->width, stats, pred, &res->r_square, why, whylen);
	}
	struct perun_num lo, hi;
	x_range(pts, n, &lo, &hi);
	double span = lo.is_int && hi.is_int ? (double)(hi.i - lo.i) : hi.d - lo.d;
	double start = MA_INTERVAL_LENGTH * span;
	long long w = start >= 1 ? (long long)start : 1, change = 1;
	double r2 = 0.0;
	while (r2 < MA_MIN_R_SQUARE && change) {
		int rc = compute(c, y, n, (double)w, stats, pred, &r2, why, whylen);
		if (rc)
			return rc;
		long long next = width_change(w, r2);
		change = w - next;
		w = next;
	}
	/* The configuration keeps the width for the next uids. */
	c->width = (double)w;
	c->width_is_int = 1;
	res->r_square = r2;
	res->width = c->width;
	res->width_is_int = 1;
	return 0;
}

static int cmp_points(const void *a, const void *b)
{
	const struct perun_point *p = a, *q = b;
	int r = perun_num_cmp(&p->x, &q->x);
	if (!r)
		r = perun_num_cmp(&p->y, &q->y);
	if (!r) /* sorted() is stable */
		r = p->idx < q->idx ? -1 : p->idx > q->idx;
	return r;
}

/* The record of methods.compute_moving_average, in its key order. */
static json_t *model_record(const struct config *c, const struct uid_result *r,
			    const struct perun_point *pts, size_t n, const double *stats,
			    const char *uid, const char *per_key)
{
	json_t *record = json_object(), *list = json_array();
	struct perun_num lo, hi,
		width = { .d = r->width, .i = (long long)r->width, .is_int = r->width_is_int };
	struct perun_num r2 = { .d = r->r_square }; /* NaN for one point */
	x_range(pts, n, &lo, &hi);
	int fail = !record || !list;
	for (size_t i = 0; i < n && !fail; i++) {
		struct perun_num v = { .d = stats[i] };
		fail |= json_array_append_new(list, perun_num_json(&v));
	}
	fail |= json_object_set_new_nocheck(record, "moving_method", json_string(c->method_name));
	fail |= json_object_set_new_nocheck(record, "window_width", perun_num_json(&width));
	fail |= json_object_set_new_nocheck(record, "x_start", perun_num_json(&lo));
	fail |= json_object_set_new_nocheck(record, "x_end", perun_num_json(&hi));
	fail |= json_object_set_new_nocheck(record, "r_square", perun_num_json(&r2));
	fail |= json_object_set_new_nocheck(record, "bucket_stats", list);
	fail |= json_object_set_new_nocheck(record, "per_key", json_string(per_key));
	fail |= json_object_set_new_nocheck(record, "uid", json_string(uid));
	fail |= json_object_set_new_nocheck(record, "model", json_string("moving_average"));
	if (fail) {
		json_decref(record);
		return NULL;
	}
	return record;
}

/* ---- options ------------------------------------------------------------ */

static int choice_index(const char *choices, const char *value)
{
	int index = 0;
	size_t len = strlen(value);
	for (const char *p = choices; *p; index++) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);
		if (l == len && !strncmp(p, value, len))
			return index;
		if (!bar)
			break;
		p = bar + 1;
	}
	return -1;
}

/* methods._DECAY_PARAMS_INFO */
static int check_decay(enum ma_decay decay, double v, struct perun_error *err)
{
	static const char *const names[] = { "com", "span", "halflife", "alpha" };
	static const char *const rules[] = { ">= 0.0", ">= 1.0", "> 0.0", "0.0 < alpha <= 1.0" };
	int ok = decay == MA_COM	? v >= 0.0
		 : decay == MA_SPAN	? v >= 1.0
		 : decay == MA_HALFLIFE ? v > 0.0
					: v > 0 && v <= 1.0;
	if (ok)
		return 0;
	return perun_error_set(err, PERUN_EINVAL,
			       "option '--decay': invalid value for %s: %g (must be %s)",
			       names[decay], v, rules[decay]);
}

/*
 * The decay of ema: "--decay com 3" on the command line, or Perun's
 * stored form {decay: com, window_width: 3.0} of a job configuration.
 */
static int read_decay(const struct perun_params *params, struct config *c, struct perun_error *err)
{
	const json_t *decay = json_object_get(perun_params_json(params), "decay");
	const char *name = "com";
	double value = 0;
	if (!json_is_string(decay) && perun_params_has(params, "window_width"))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--window_width' is not an option of 'ema' "
				       "(its decay value is: --decay <name> <value>)");
	if (json_is_array(decay)) {
		const json_t *pair = json_array_get(decay, json_array_size(decay) - 1);
		const char *text = json_string_value(json_array_get(pair, 1));
		char *end;
		name = json_string_value(json_array_get(pair, 0));
		value = text ? strtod(text, &end) : 0;
		if (!text || !*text || *end || !isfinite(value))
			return perun_error_set(
				err, PERUN_EINVAL,
				"option '--decay' takes a name and a number, not '%s'",
				text ? text : "");
	} else if (json_is_string(decay)) {
		name = json_string_value(decay);
		value = perun_params_float(params, "window_width", 0);
	}
	int index = choice_index("com|span|halflife|alpha", name ? name : "");
	if (index < 0)
		return perun_error_set(
			err, PERUN_EINVAL,
			"option '--decay' takes one of com|span|halflife|alpha, not '%s'",
			name ? name : "");
	c->decay = index;
	c->width = value;
	c->width_is_int = 0;
	return check_decay(c->decay, value, err);
}

static int read_config(const struct perun_params *params, struct config *c, struct perun_error *err)
{
	memset(c, 0, sizeof(*c));
	c->method_name = perun_params_string(params, "moving_method", "sma");
	c->method = choice_index("sma|smm|ema", c->method_name);
	c->center = perun_params_bool(params, "center", 1);
	c->window_type = -1;
	if (perun_params_has(params, "min_periods")) {
		c->min_periods = perun_params_int(params, "min_periods", 1);
		if (c->min_periods < 1)
			return perun_error_set(
				err, PERUN_EINVAL,
				"option '--min_periods' takes a whole number >= 1, not %lld",
				c->min_periods);
	}
	if (perun_params_has(params, "window_type")) {
		if (c->method != MA_SMA)
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--window_type' is not an option of '%s'",
					       c->method_name);
		c->window_type =
			choice_index(WINDOW_TYPES, perun_params_string(params, "window_type", ""));
	}
	if (c->method == MA_EMA)
		return read_decay(params, c, err);
	if (perun_params_has(params, "decay"))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--decay' is not an option of '%s'", c->method_name);
	if (perun_params_has(params, "window_width")) {
		double w = perun_params_float(params, "window_width", 1);
		if (!(w >= 1) || w != floor(w) || w > 1e15)
			return perun_error_set(
				err, PERUN_EINVAL,
				"option '--window_width' takes a whole number >= 1, not %g", w);
		c->width = w;
		c->width_is_int = 1;
	}
	return 0;
}

/* ---- the phase ------------------------------------------------------------ */

struct run {
	struct config *config; /* keeps the width found for the next uids */
	const char *per_key;
	double *block; /* y, the smoothed y, the prediction: n each */
};

/* One uid (perun_points_model_fn): its record appended to models, or why
 * it was skipped in why. */
static int moving_average_of(void *arg, const char *uid, struct perun_point *pts, size_t n,
			     json_t *models, char *why, size_t whylen, struct perun_error *err)
{
	struct run *run = arg;
	struct uid_result res;
	double *grown = realloc(run->block, 3 * n * sizeof(*grown));
	if (!grown)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	run->block = grown;
	double *y = grown, *stats = grown + n, *pred = grown + 2 * n;
	qsort(pts, n, sizeof(*pts), cmp_points);
	for (size_t i = 0; i < n; i++)
		y[i] = pts[i].y.d;
	int r = moving_average(run->config, pts, n, y, stats, pred, &res, why, whylen);
	if (r < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (r > 0)
		return 1;
	json_t *record = model_record(run->config, &res, pts, n, stats, uid, run->per_key);
	if (!record || json_array_append_new(models, record))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

static int ma_postprocess(struct perun_postprocess_ctx *ctx, struct perun_error *err)
{
	const struct perun_params *params = ctx->params;
	struct config config;
	struct run run = { .config = &config };
	int rc;

	run.per_key = perun_params_string(params, "per-key", "structure-unit-size");
	rc = read_config(params, &config, err);
	if (!rc)
		rc = perun_points_model_each(ctx->profile, run.per_key,
					     perun_params_string(params, "of-key", "amount"),
					     moving_average_of, &run, err);
	free(run.block);
	return rc;
}

static const struct perun_postprocess_ops ma_ops = {
	.size = sizeof(struct perun_postprocess_ops),
	.postprocess = ma_postprocess,
};

PERUN_PLUGIN_DEFINE(moving_average, PERUN_KIND_POSTPROCESS, .version = "1.0",
		    .summary = "moving averages (sma, smm, ema) of a resource key per uid",
		    .options = ma_options, .ops = &ma_ops);
