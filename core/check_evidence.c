/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Weighing a verdict against the measured noise (see check_evidence.h).
 *
 * The samples of a series are the amounts of its resources: repetitions
 * of a run in time profiles, calls in trace profiles, allocations in
 * memory profiles.  Runs are compared by Welch's t-test on their values
 * and their medians; calls by the Mann-Whitney U test (normal
 * approximation, ties corrected; at most SUBSAMPLE values a side, taken
 * at an even stride) and their totals or means.  Neither test knows the
 * run-to-run noise of the machine when each side is a single run, hence
 * the floors: a relative one, and an absolute one measured against the
 * baseline's biggest series of the same kind, so a near-zero series
 * (sys time of a short run) cannot raise an alarm.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>

#include "check.h"
#include "check_evidence.h"

#define DEFAULT_ALPHA	   0.05
#define DEFAULT_MIN_EFFECT 0.08
#define DEFAULT_MIN_SHARE  0.01
#define SUBSAMPLE	   20000
/* Series under this share of the biggest do not vote on how the whole
 * traced run moved: their times are mostly the probes'. */
#define RUN_FACTOR_SHARE 0.001
/* Counts differing by more than this share are a changed behaviour. */
#define COUNT_CHANGE 0.10

struct series {
	char *key;  /* "<uid>\037<subtype>" ("" without one) */
	char *kind; /* the resources' "type" (time, memory, ...) */
	double *v;
	size_t n, cap;
	double total;
	double self_total; /* of "exclusive" (a trace's self time), 0 without */
	/* runs only: the stratum of each value, the workload its resource
	 * type names (the time collector merges runs of several sizes) */
	unsigned *stratum;
	json_t *strata; /* workload -> stratum */
};

/* perun_check_samples_load's walk: the profile and the samples so far. */
struct samples_walk {
	const struct perun_profile *profile;
	struct perun_check_samples *s;
	struct perun_error *err;
};

struct perun_check_samples {
	struct series *items;
	size_t n;
	json_t *index;	/* key -> position */
	json_t *by_uid; /* uid -> position of its only series, or -1 */
	int runs;	/* samples are repeated runs (time profiles) */
	const char *unit;
	/* A walk shared with another reader (perun_check_samples_share). */
	struct samples_walk shared;
	struct perun_error shared_err;
	int shared_whole;
};

static int number_at(const struct perun_config *config, const char *key, double *v,
		     struct perun_error *err)
{
	json_t *j = perun_config_lookup(config, key);
	if (!j)
		return 0;
	const char *s = json_string_value(j);
	char *end = NULL;
	if (json_is_number(j))
		*v = json_number_value(j);
	else if (s && (errno = 0, *v = strtod(s, &end), end != s && !*end && !errno))
		;
	else
		return perun_error_set(err, PERUN_EINVAL, "%s: not a number", key);
	if (!(*v >= 0.0 && *v <= 1.0))
		return perun_error_set(err, PERUN_EINVAL, "%s: %g is not within 0 and 1", key, *v);
	return 0;
}

int perun_noise_policy_read(const struct perun_config *config, struct perun_noise_policy *out,
			    struct perun_error *err)
{
	out->alpha = DEFAULT_ALPHA;
	out->min_effect = DEFAULT_MIN_EFFECT;
	out->min_share = DEFAULT_MIN_SHARE;
	out->enabled = 1;
	json_t *on = perun_config_lookup(config, "degradation.noise.enabled");
	const char *s = json_string_value(on);
	if (on && (json_is_false(on) || (s && (!strcasecmp(s, "false") || !strcasecmp(s, "no") ||
					       !strcasecmp(s, "off") || !strcmp(s, "0")))))
		out->enabled = 0;
	if (number_at(config, "degradation.noise.alpha", &out->alpha, err) ||
	    number_at(config, "degradation.noise.min_effect", &out->min_effect, err) ||
	    number_at(config, "degradation.noise.min_share", &out->min_share, err))
		return -err->code;
	return 0;
}

void perun_check_samples_free(struct perun_check_samples *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].key);
		free(s->items[i].kind);
		free(s->items[i].v);
		free(s->items[i].stratum);
		json_decref(s->items[i].strata);
	}
	free(s->items);
	json_decref(s->index);
	json_decref(s->by_uid);
	free(s);
}

static struct series *series_of(struct perun_check_samples *s, const char *key, const char *kind)
{
	json_t *pos = json_object_get(s->index, key);
	if (pos)
		return &s->items[json_integer_value(pos)];
	struct series *grown = realloc(s->items, (s->n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	s->items = grown;
	struct series *r = &grown[s->n];
	memset(r, 0, sizeof(*r));
	r->key = strdup(key);
	r->kind = strdup(kind ? kind : "");
	if (!r->key || !r->kind ||
	    json_object_set_new(s->index, key, json_integer((json_int_t)s->n))) {
		free(r->key);
		free(r->kind);
		return NULL;
	}
	s->n++;
	return r;
}

/* Add x; stratum is SIZE_MAX for a series of calls, which keeps none. */
static int series_add(struct series *r, double x, size_t stratum)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		double *v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -1;
		r->v = v;
		if (stratum != SIZE_MAX) {
			unsigned *st = realloc(r->stratum, cap * sizeof(*st));
			if (!st)
				return -1;
			r->stratum = st;
		}
		r->cap = cap;
	}
	if (stratum != SIZE_MAX)
		r->stratum[r->n] = (unsigned)stratum;
	r->v[r->n++] = x;
	r->total += x;
	return 0;
}

/* The stratum of the runs of a resource type: its workload. */
static size_t stratum_of(struct series *r, const struct perun_jv *persistent)
{
	char *key = perun_jv_flatten_dup(perun_jv_get(persistent, "workload"));
	if (!key || (!r->strata && !(r->strata = json_object()))) {
		free(key);
		return SIZE_MAX - 1;
	}
	json_t *at = json_object_get(r->strata, key);
	size_t k = at ? (size_t)json_integer_value(at) : json_object_size(r->strata);
	if (!at && json_object_set_new(r->strata, key, json_integer((json_int_t)k)))
		k = SIZE_MAX - 1;
	free(key);
	return k;
}

static const char *unit_of(const char *type)
{
	if (!strcmp(type, "time"))
		return "runs";
	if (!strcmp(type, "mixed") || !strcmp(type, "trace"))
		return "calls";
	if (!strcmp(type, "memory"))
		return "allocations";
	return "samples";
}

/* One resource type's amounts into its series (a perun_type_fn). */
static int add_type_samples(const char *id, const struct perun_jv *persistent,
			    const struct perun_jv *columns, void *data)
{
	struct samples_walk *w = data;
	struct perun_check_samples *s = w->s;
	(void)id;
	const struct perun_jv *uid = perun_jv_get(persistent, "uid");
	const struct perun_jv *amounts = perun_jv_get(columns, "amount");
	const char *kind = perun_jv_string(perun_jv_get(persistent, "type"));
	const char *sub = perun_jv_string(perun_jv_get(persistent, "subtype"));
	if (!uid || perun_jv_type(uid) == PERUN_JV_NULL || perun_jv_type(amounts) != PERUN_JV_ARRAY)
		return 0;
	char *flat = perun_series_name_dup(w->profile, persistent), *key = NULL;
	if (flat && asprintf(&key, "%s\037%s", flat, sub ? sub : "") < 0)
		key = NULL;
	size_t before = s->n;
	struct series *r = key ? series_of(s, key, kind) : NULL;
	if (r && s->n > before &&
	    json_object_set_new(
		    s->by_uid, flat,
		    json_integer(json_object_get(s->by_uid, flat) ? -1 : (json_int_t)(s->n - 1))))
		r = NULL;
	free(flat);
	free(key);
	size_t stratum = r && s->runs ? stratum_of(r, persistent) : SIZE_MAX;
	if (!r || stratum == SIZE_MAX - 1)
		return perun_error_set(w->err, PERUN_EGENERIC, "out of memory");
	const struct perun_jv *v;
	size_t i;
	perun_jv_array_foreach(amounts, i, v)
	{
		double x;
		if (!perun_jv_number(v, &x) && isfinite(x) && series_add(r, x, stratum))
			return perun_error_set(w->err, PERUN_EGENERIC, "out of memory");
	}
	const struct perun_jv *self = perun_jv_get(columns, "exclusive");
	perun_jv_array_foreach(self, i, v)
	{
		double x;
		if (!perun_jv_number(v, &x) && isfinite(x))
			r->self_total += x;
	}
	return 0;
}

/* No samples yet of profile's series; NULL without memory. */
static struct perun_check_samples *samples_new(const struct perun_profile *profile)
{
	struct perun_check_samples *s = calloc(1, sizeof(*s));
	if (!s || !(s->index = json_object()) || !(s->by_uid = json_object())) {
		if (s)
			json_decref(s->index);
		free(s);
		return NULL;
	}
	const char *type = perun_profile_type(profile);
	s->runs = !strcmp(type, "time");
	s->unit = unit_of(type);
	return s;
}

int perun_check_samples_load(const struct perun_profile *profile, struct perun_check_samples **out,
			     struct perun_error *err)
{
	struct perun_check_samples *s = samples_new(profile);
	*out = NULL;
	if (!s)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	/* A walk, so that a streamed profile is never held whole. */
	struct samples_walk w = { profile, s, err };
	int rc = perun_profile_foreach_type(profile, add_type_samples, &w, err);
	if (rc)
		perun_check_samples_free(s);
	else
		*out = s;
	return rc;
}

struct perun_check_samples *perun_check_samples_share(const struct perun_profile *profile)
{
	struct perun_check_samples *s = samples_new(profile);
	if (!s)
		return NULL;
	s->shared = (struct samples_walk){ profile, s, &s->shared_err };
	perun_profile_share_next_walk(profile, add_type_samples, &s->shared, &s->shared_whole);
	return s;
}

int perun_check_samples_shared(const struct perun_profile *profile, struct perun_check_samples **s)
{
	/* Withdrawn when no walk took it: a later walk must not feed it. */
	perun_profile_share_next_walk(profile, NULL, NULL, NULL);
	if (*s && (*s)->shared_whole)
		return 1;
	perun_check_samples_free(*s);
	*s = NULL;
	return 0;
}

static const struct series *find_key(const struct perun_check_samples *s, const char *uid,
				     const char *sub)
{
	char *key;
	if (!s || asprintf(&key, "%s\037%s", uid, sub) < 0)
		return NULL;
	json_t *pos = json_object_get(s->index, key);
	free(key);
	return pos ? &s->items[json_integer_value(pos)] : NULL;
}

/*
 * The series a verdict speaks of: its location with the verdict's type as
 * the subtype (cpd's verdicts are per subtype), else the location without
 * a subtype, else its wall time (a time profile's "real"), else the
 * location's only series.
 */
static const struct series *find(const struct perun_check_samples *s, const char *uid,
				 const char *type)
{
	const struct series *r = find_key(s, uid, type);
	if (!r)
		r = find_key(s, uid, "");
	if (!r)
		r = find_key(s, uid, "real");
	/* cpd names a time profile's series by uid and subtype; a model of
	 * a whole uid (made before subtypes were apart) speaks of wall time */
	for (int i = 0; i < 2 && !r && s; i++) {
		char *name;
		const char *sub = i ? "real" : type;
		if (asprintf(&name, "%s:%s", uid, sub) >= 0) {
			r = find_key(s, name, sub);
			free(name);
		}
	}
	json_t *only = r || !s ? NULL : json_object_get(s->by_uid, uid);
	if (only && json_integer_value(only) >= 0)
		r = &s->items[json_integer_value(only)];
	return r;
}

/* The biggest per-run magnitude among the series of kind: a total for
 * calls, a mean for runs. */
static double biggest(const struct perun_check_samples *s, const char *kind)
{
	double m = 0.0;
	for (size_t i = 0; i < s->n; i++) {
		const struct series *r = &s->items[i];
		if (!r->n || strcmp(r->kind, kind))
			continue;
		double x = fabs(s->runs ? r->total / (double)r->n : r->total);
		if (x > m)
			m = x;
	}
	return m;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A sorted copy of v[0..n), NULL out of memory. */
static double *sorted_copy(const double *v, size_t n)
{
	double *c = malloc((n + 1) * sizeof(*c));
	if (c) {
		memcpy(c, v, n * sizeof(*c));
		qsort(c, n, sizeof(*c), cmp_double);
	}
	return c;
}

static double median(const double *v, size_t n)
{
	double *c = n ? sorted_copy(v, n) : NULL;
	if (!c)
		return NAN;
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
	free(c);
	return m;
}

/* The quartiles of v[0..n), n > 0, into q[3] (nearest rank); -1 out of
 * memory. */
static int quartiles(const double *v, size_t n, double q[3])
{
	double *c = sorted_copy(v, n);
	if (!c)
		return -1;
	for (int i = 0; i < 3; i++)
		q[i] = c[(size_t)((double)(n - 1) * (i + 1) / 4.0 + 0.5)];
	free(c);
	return 0;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double m = 0.0, m2 = 0.0;
	for (size_t i = 0; i < n; i++) {
		double d = v[i] - m;
		m += d / (double)(i + 1);
		m2 += d * (v[i] - m);
	}
	*mean = m;
	*var = n > 1 ? m2 / (double)(n - 1) : 0.0;
}

/* Welch's two-sided t-test; NaN when either side has fewer than two. */
static double welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	if (na < 2 || nb < 2)
		return NAN;
	double ma, va, mb, vb;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	double sa = va / (double)na, sb = vb / (double)nb, se = sa + sb;
	if (se <= 0.0)
		return ma == mb ? 1.0 : 0.0;
	double t = fabs(mb - ma) / sqrt(se);
	double df = se * se / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	return 2.0 * gsl_cdf_tdist_Q(t, df);
}

/* Runs as they can be compared: values of several workloads are divided
 * by their workload's baseline median, so sizes do not count as noise. */
struct runs {
	double *a, *b;
	size_t na, nb;
	double scale; /* what 1.0 is in the profile's unit */
};

static int runs_of(const struct series *a, const struct series *b, struct runs *out)
{
	memset(out, 0, sizeof(*out));
	out->a = malloc((a->n + 1) * sizeof(double));
	out->b = malloc((b->n + 1) * sizeof(double));
	if (!out->a || !out->b)
		return -1;
	out->scale = 1.0;
	size_t strata = a->strata ? json_object_size(a->strata) : 0;
	double *one = strata > 1 && b->strata ? malloc((a->n + 1) * sizeof(double)) : NULL;
	if (!one)
		goto raw;
	const char *key;
	json_t *at;
	json_object_foreach(a->strata, key, at)
	{
		json_t *bt = json_object_get(b->strata, key);
		unsigned ka = (unsigned)json_integer_value(at), kb;
		size_t n = 0;
		for (size_t i = 0; i < a->n; i++)
			if (a->stratum[i] == ka)
				one[n++] = a->v[i];
		double m = n ? median(one, n) : 0.0;
		if (!bt || !(m > 0.0))
			continue;
		kb = (unsigned)json_integer_value(bt);
		for (size_t i = 0; i < n; i++)
			out->a[out->na++] = one[i] / m;
		for (size_t i = 0; i < b->n; i++)
			if (b->stratum[i] == kb)
				out->b[out->nb++] = b->v[i] / m;
	}
	free(one);
	if (out->na && out->nb) {
		out->scale = median(a->v, a->n);
		return 0;
	}
raw: /* one workload, none in common, or medians of 0 (sys time) */
	memcpy(out->a, a->v, a->n * sizeof(double));
	memcpy(out->b, b->v, b->n * sizeof(double));
	out->na = a->n;
	out->nb = b->n;
	return 0;
}

struct ranked {
	double x;
	int side;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->x, &((const struct ranked *)b)->x);
}

/* At most SUBSAMPLE values of r, at an even stride. */
static size_t take(const struct series *r, struct ranked *out, int side)
{
	size_t step = r->n > SUBSAMPLE ? (r->n + SUBSAMPLE - 1) / SUBSAMPLE : 1, k = 0;
	for (size_t i = 0; i < r->n; i += step) {
		out[k].x = r->v[i];
		out[k++].side = side;
	}
	return k;
}

/* The Mann-Whitney U test, two-sided, by the normal approximation with
 * ties corrected; NaN under eight values a side. */
static double mann_whitney_p(const struct series *a, const struct series *b)
{
	if (a->n < 8 || b->n < 8)
		return NAN;
	struct ranked *all = malloc((2 * SUBSAMPLE + 2) * sizeof(*all));
	if (!all)
		return NAN;
	size_t na = take(a, all, 0), nb = take(b, all + na, 1), n = na + nb;
	qsort(all, n, sizeof(*all), cmp_ranked);
	double rank_a = 0.0, ties = 0.0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && all[j].x == all[i].x)
			j++;
		double rank = ((double)i + (double)j + 1.0) / 2.0, t = (double)(j - i);
		ties += t * t * t - t;
		for (size_t k = i; k < j; k++)
			if (!all[k].side)
				rank_a += rank;
		i = j;
	}
	free(all);
	double u = rank_a - (double)na * ((double)na + 1.0) / 2.0;
	double mu = (double)na * (double)nb / 2.0;
	double sigma2 = (double)na * (double)nb / 12.0 *
			(((double)n + 1.0) - ties / ((double)n * ((double)n - 1.0)));
	if (sigma2 <= 0.0)
		return 1.0;
	double z = (fabs(u - mu) - 0.5) / sqrt(sigma2);
	return z <= 0.0 ? 1.0 : 2.0 * gsl_cdf_ugaussian_Q(z);
}

static int unreliable(struct perun_check_change *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int unreliable(struct perun_check_change *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vasprintf(&c->unreliable, fmt, ap) < 0 ? -1 : 0;
	va_end(ap);
	if (rc)
		c->unreliable = NULL;
	return rc;
}

/* Do the counts of two sides differ by more than COUNT_CHANGE? */
static int counts_differ(size_t na, size_t nb)
{
	size_t most = na > nb ? na : nb;
	return most && (double)(na > nb ? na - nb : nb - na) / (double)most > COUNT_CHANGE;
}

/* Does any series of this kind carry self times ("exclusive")? */
static int has_self_times(const struct perun_check_samples *s, const char *kind)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i].self_total > 0.0 && !strcmp(s->items[i].kind, kind))
			return 1;
	return 0;
}

/*
 * How much the whole traced run moved: the median target/baseline ratio
 * of the totals (self times when the profile has them) of the other
 * series of its kind, called as often on both sides and above floor.  One run a version
 * cannot tell a slower machine from slower code, but a machine slows
 * every function alike while code changes a few.  1 with fewer than
 * three such series.
 */
static double run_factor(const struct perun_check_samples *baseline,
			 const struct perun_check_samples *target, const struct series *self,
			 double floor)
{
	double *ratios = malloc((baseline->n + 1) * sizeof(*ratios));
	size_t n = 0;
	/* self times where the profile has them: a caller's inclusive time
	 * moves with a slower callee, so a series without its self time
	 * there (the whole process, !ProcessResource!) does not vote */
	int by_self = has_self_times(baseline, self->kind);
	for (size_t i = 0; ratios && i < baseline->n; i++) {
		const struct series *a = &baseline->items[i];
		json_t *pos = json_object_get(target->index, a->key);
		if (a == self || !pos || strcmp(a->kind, self->kind) ||
		    (by_self && !(a->self_total > 0.0)))
			continue;
		const struct series *b = &target->items[json_integer_value(pos)];
		double ta = by_self ? a->self_total : a->total;
		double tb = by_self ? b->self_total : b->total;
		if (!counts_differ(a->n, b->n) && ta > floor && tb > 0.0)
			ratios[n++] = tb / ta;
	}
	double factor = n >= 3 ? median(ratios, n) : 1.0;
	free(ratios);
	return isfinite(factor) && factor > 0.0 ? factor : 1.0;
}

/*
 * Calls of one run: the largest move of a quartile of the calls' values
 * in the direction up, the run's factor taken out.  A preempted moment
 * stretches the few calls running then (and, in a recursion, their
 * callers), which moves a mean as much as a slower function does (4x on
 * a loaded machine, its quartiles 10-20%); a slower function moves the
 * bulk of its calls.
 */
static int bulk_change(const struct series *a, const struct series *b, double factor, int up,
		       double *out)
{
	double qa[3], qb[3], best = NAN;
	if (quartiles(a->v, a->n, qa) || quartiles(b->v, b->n, qb))
		return -1;
	for (int i = 0; i < 3; i++) {
		if (!(qa[i] > 0.0))
			continue;
		double move = qb[i] / qa[i] / factor - 1.0;
		if (isnan(best) || (up ? move > best : move < best))
			best = move;
	}
	*out = isnan(best) ? (up ? INFINITY : -INFINITY) : best;
	return 0;
}

int perun_check_weigh(struct perun_check_change *c, const struct perun_check_samples *baseline,
		      const struct perun_check_samples *target,
		      const struct perun_noise_policy *policy, int whole_pair)
{
	const struct series *a = find(baseline, c->location, c->type);
	const struct series *b = find(target, c->location, c->type);
	if (a && b) {
		c->count_baseline = (long long)a->n;
		c->count_target = (long long)b->n;
		c->count_unit = baseline->unit;
		c->counts_changed = counts_differ(a->n, b->n);
	}
	int deg = perun_change_is_degradation(c->result),
	    opt = perun_change_is_optimization(c->result);
	if (!policy->enabled || !(deg || opt))
		return 0;
	/* The method's own measure first: an effect within its noise. */
	if (!isnan(c->effect_size) && !isnan(c->noise) && fabs(c->effect_size) <= c->noise)
		return unreliable(c, "effect %.3g within the method's noise %.3g", c->effect_size,
				  c->noise);
	if (!a || !b || !a->n || !b->n)
		return 0;
	/* What a user waits for per run: a run's value, or the total of a
	 * run's calls; per call when the calls are the same in number. */
	int runs = baseline->runs, rc;
	struct runs r = { 0 };
	if (runs && runs_of(a, b, &r)) {
		rc = -1;
		goto out;
	}
	double ca = runs ? median(r.a, r.na) * r.scale : a->total;
	double cb = runs ? median(r.b, r.nb) * r.scale : b->total;
	/* The baseline is the reference: a function that exploded in the
	 * target must not make every other change look small. */
	double big = biggest(baseline, a->kind);
	/* Over a history the method's effect spans the versions before and
	 * after the change, which a neighbour's profile does not show. */
	double diff = whole_pair || isnan(c->effect_size) ? cb - ca : c->effect_size * ca;
	if (fabs(diff) < policy->min_share * big) {
		rc = unreliable(c, "a change of %.3g, under %g%% of the baseline's biggest series",
				diff, 100.0 * policy->min_share);
		goto out;
	}
	rc = 0;
	if (!whole_pair || (!runs && c->counts_changed))
		goto out; /* per-call and total verdicts may rightly differ */
	double rel = ca != 0.0 ? diff / fabs(ca) : INFINITY;
	/* calls of one run: what the rest of the run did is the machine's */
	double factor = runs ? 1.0 : run_factor(baseline, target, a, RUN_FACTOR_SHARE * big);
	if (factor != 1.0 && isfinite(rel))
		rel = (rel + 1.0) / factor - 1.0;
	c->measured_change = rel;
	if (factor != 1.0 && fabs(rel) < policy->min_effect) {
		rc = unreliable(c,
				"it moved with the whole run (its other functions x%.2f): %+.1f%% "
				"beside them",
				factor, 100.0 * rel);
		goto out;
	}
	if ((deg && rel < 0.0) || (opt && rel > 0.0)) {
		rc = unreliable(c, "the measured %s moved the other way (%+.1f%%)",
				runs ? "median" : "total", 100.0 * rel);
		goto out;
	}
	if (fabs(rel) < policy->min_effect) {
		rc = unreliable(c, "a change of %+.1f%%, under the %g%% floor", 100.0 * rel,
				100.0 * policy->min_effect);
		goto out;
	}
	if (!runs && a->n >= 8 && b->n >= 8) {
		double bulk;
		if (bulk_change(a, b, factor, rel > 0.0, &bulk)) {
			rc = -1;
			goto out;
		}
		/* the bulk carries at least half the change, on a log scale */
		if (fabs(bulk) < policy->min_effect || (bulk > 0.0) != (rel > 0.0) ||
		    fabs(log1p(bulk)) < 0.5 * fabs(log1p(rel))) {
			rc = unreliable(
				c,
				"its calls moved %+.1f%% in total but their quartiles "
				"%+.1f%% at most: a few calls made the change, not the bulk",
				100.0 * rel, 100.0 * bulk);
			goto out;
		}
	}
	double p = runs ? welch_p(r.a, r.na, r.b, r.nb) : mann_whitney_p(a, b);
	c->p_value = p;
	if (!isnan(p) && p >= policy->alpha)
		rc = unreliable(c, "p = %.2g, not under %g", p, policy->alpha);
out:
	free(r.a);
	free(r.b);
	return rc;
}
