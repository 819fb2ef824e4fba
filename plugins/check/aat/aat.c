/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * aat: Perun's average amount threshold.  The mean amount of every uid in
 * the baseline and the target; a target/baseline ratio of 2 or more is a
 * Degradation, one in (0, 0.5] an Optimization.  Beyond Perun, a time
 * profile's subtypes are series of their own ("prog:real", "prog:sys").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

/* Perun's thresholds: a ratio of 2 or more, or 0.5 or less.  --threshold
 * sets another ratio r (and 1/r); the shared config's rule for profiles
 * of one interleaved run (perun run --rounds) uses a small one. */
#define DEGRADATION_THRESHOLD 2.0
/* The noise is the half-width of a 95% interval of the change: two
 * standard errors, so an effect within it is one chance alone explains
 * one time in twenty. */
#define NOISE_Z 2.0
/* tools.APPROX_ZERO of Perun: what safe_division divides by instead of 0. */
#define APPROX_ZERO 0.000001

/* Per uid: mean of the amounts (Kahan-summed as pandas' group mean) and,
 * by Welford's update, their spread. */
struct uid_stat {
	char *uid;
	const char *unit; /* of its resources' type (max-rss: B), or NULL */
	double sum, comp;
	double mean, m2;
	size_t n;
	/* The amounts per workload value (a matrix's sizes): the noise is
	 * their spread within a size, not the sizes' spread. */
	struct workload_stat {
		char *text; /* a string workload (owned: a walk's values are
			     * gone after it), or NULL for a number */
		double number;
		size_t n;
		double mean, m2;
		/* The means of its collections (a resource type each: the
		 * rounds of perun run --rounds), whose spread includes the
		 * machine's drift between rounds that runs of one round share. */
		size_t cluster, cluster_n, nclusters;
		double cluster_sum, cmean, cm2;
	} * workloads;
	size_t nworkloads;
};

struct averages {
	struct uid_stat *items;
	size_t n;
	json_t *index; /* uid -> position in items */
};

static void averages_release(struct averages *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->items[i].uid);
		for (size_t g = 0; g < a->items[i].nworkloads; g++)
			free(a->items[i].workloads[g].text);
		free(a->items[i].workloads);
	}
	free(a->items);
	json_decref(a->index);
}

static void welford_add(size_t *n, double *mean, double *m2, double x)
{
	(*n)++;
	double delta = x - *mean;
	*mean += delta / (double)*n;
	*m2 += delta * (x - *mean);
}

static void kahan_add(struct uid_stat *s, double x)
{
	double y = x - s->comp, t = s->sum + y;
	s->comp = (t - s->sum) - y;
	s->sum = t;
	welford_add(&s->n, &s->mean, &s->m2, x);
}

static void cluster_flush(struct workload_stat *g)
{
	if (g->cluster_n)
		welford_add(&g->nclusters, &g->cmean, &g->cm2,
			    g->cluster_sum / (double)g->cluster_n);
	g->cluster_n = 0;
	g->cluster_sum = 0;
}

/* Count x of resource type number type under its workload value w (a
 * number or a string). */
static int workload_add(struct uid_stat *s, const struct perun_jv *w, size_t type, double x)
{
	double number = 0;
	const char *text = perun_jv_is_string(w) ? perun_jv_string(w) : NULL;
	if (!text && perun_jv_number(w, &number))
		return 0; /* neither: no workload to group by */
	size_t i = 0;
	while (i < s->nworkloads &&
	       !(text ? s->workloads[i].text && !strcmp(s->workloads[i].text, text)
		      : !s->workloads[i].text && s->workloads[i].number == number))
		i++;
	if (i == s->nworkloads) {
		struct workload_stat *grown = realloc(s->workloads, (i + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		s->workloads = grown;
		grown[i] = (struct workload_stat){ .text = text ? strdup(text) : NULL,
						   .number = number };
		if (text && !grown[i].text)
			return -1;
		s->nworkloads++;
	}
	struct workload_stat *g = &s->workloads[i];
	welford_add(&g->n, &g->mean, &g->m2, x);
	if (g->cluster != type + 1) {
		cluster_flush(g);
		g->cluster = type + 1;
	}
	g->cluster_sum += x;
	g->cluster_n++;
	return 0;
}

static int stat_of(struct averages *a, const char *uid, struct uid_stat **out)
{
	json_t *pos = json_object_get(a->index, uid);
	if (pos) {
		*out = &a->items[json_integer_value(pos)];
		return 0;
	}
	struct uid_stat *grown = realloc(a->items, (a->n + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	a->items = grown;
	struct uid_stat *s = &grown[a->n];
	memset(s, 0, sizeof(*s));
	if (!(s->uid = strdup(uid)) ||
	    json_object_set_new(a->index, uid, json_integer((json_int_t)a->n))) {
		free(s->uid);
		return -1;
	}
	a->n++;
	*out = s;
	return 0;
}

static int uid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct uid_stat *)a)->uid, ((const struct uid_stat *)b)->uid);
}

/* averages_of's walk: the profile, its name, the averages so far and the
 * number of the type walked. */
struct averages_walk {
	const struct perun_profile *profile;
	const char *name;
	struct averages *a;
	size_t t;
	struct perun_error *err;
};

/*
 * One resource type's amounts (a perun_type_fn), read straight from the
 * flattened columns: one uid per resource type, so the flattened uid is
 * computed once per type.
 */
static int add_type_amounts(const char *id, const struct perun_jv *persistent,
			    const struct perun_jv *columns, void *data)
{
	struct averages_walk *w = data;
	size_t t = w->t++;
	const struct perun_jv *uid = perun_jv_get(persistent, "uid");
	if (!uid || perun_jv_type(uid) == PERUN_JV_NULL)
		return 0; /* pandas drops rows without a group key */
	/* time profiles: real, user and sys apart (Perun mixes them) */
	char *flat = perun_series_name_dup(w->profile, persistent);
	struct uid_stat *s;
	int rc = flat ? stat_of(w->a, flat, &s) : -1;
	free(flat);
	if (rc)
		return perun_error_set(w->err, PERUN_EGENERIC, "out of memory");
	const char *kind = perun_jv_string(perun_jv_get(persistent, "type"));
	if (!s->unit && kind)
		s->unit = json_string_value(json_object_get(
			json_object_get(perun_profile_get(w->profile, "header"), "units"), kind));
	const struct perun_jv *amounts = perun_jv_get(columns, "amount"), *v;
	/* the workload: one per type (when the type map splits by it) or a
	 * column beside the amounts */
	const struct perun_jv *one_size = perun_jv_get(persistent, "workload");
	const struct perun_jv *sizes = perun_jv_get(columns, "workload");
	size_t i;
	if (!amounts || perun_jv_type(amounts) != PERUN_JV_ARRAY)
		return 0;
	/* the workload column, walked beside the amounts */
	const struct perun_jv *col = perun_jv_type(sizes) == PERUN_JV_ARRAY &&
						     perun_jv_len(sizes) == perun_jv_len(amounts) &&
						     perun_jv_len(sizes)
					     ? sizes + 1
					     : NULL;
	perun_jv_array_foreach(amounts, i, v)
	{
		double x;
		const struct perun_jv *size = col ? col : one_size;
		if (col && i + 1 < perun_jv_len(sizes))
			col = perun_jv_skip(col);
		if (perun_jv_type(v) == PERUN_JV_NULL)
			continue;
		if (perun_jv_number(v, &x))
			return perun_error_set(w->err, PERUN_EINVAL,
					       "%s: resource '%s' has a non-numeric amount",
					       w->name, id);
		if (isnan(x))
			continue;
		kahan_add(s, x);
		if (size && workload_add(s, size, t, x))
			return perun_error_set(w->err, PERUN_EGENERIC, "out of memory");
	}
	return 0;
}

/* The averages of each uid of profile, walked type by type so that a
 * streamed profile is never held whole. */
static int averages_of(const struct perun_profile *profile, const char *name, struct averages *a,
		       struct perun_error *err)
{
	memset(a, 0, sizeof(*a));
	a->index = json_object();
	if (!a->index)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	struct averages_walk w = { profile, name, a, 0, err };
	int rc = perun_profile_foreach_type(profile, add_type_amounts, &w, err);
	if (rc) {
		averages_release(a);
		return rc;
	}
	for (size_t i = 0; i < a->n; i++)
		for (size_t g = 0; g < a->items[i].nworkloads; g++)
			cluster_flush(&a->items[i].workloads[g]);
	if (a->n)
		qsort(a->items, a->n, sizeof(*a->items), uid_cmp);
	json_object_clear(a->index);
	for (size_t i = 0; i < a->n; i++)
		json_object_set_new(a->index, a->items[i].uid, json_integer((json_int_t)i));
	return 0;
}

/* Mean as pandas has it; a uid without amounts averages 0 (Perun's
 * "static profile" fix fills missing amounts with 0 only when no resource
 * has one; a uid whose amounts are all missing has mean NaN there). */
static double mean_of(const struct uid_stat *s, int any_amount)
{
	if (!s->n)
		return any_amount ? NAN : 0.0;
	return s->sum / (double)s->n;
}

/*
 * The variance of s's mean from the spread of its collections' means per
 * workload (the sum over sizes of share^2 s_c^2 / collections): profiles
 * of several rounds, whose runs of one round share the drift of its
 * minute and are not independent.  NaN without two collections a size.
 */
static double between_collections(const struct uid_stat *s)
{
	double v = 0;
	for (size_t g = 0; g < s->nworkloads; g++) {
		const struct workload_stat *w = &s->workloads[g];
		if (w->nclusters < 2)
			return NAN;
		double share = (double)w->n / (double)s->n;
		v += share * share * (w->cm2 / (double)(w->nclusters - 1)) / (double)w->nclusters;
	}
	return s->nworkloads ? v : NAN;
}

/*
 * The variance of s's mean when its amounts come from several workloads
 * (the sizes of a matrix, fixed by the design): the sum over the sizes of
 * n_g times their sample variance, over n squared.  NaN without two sizes
 * or without two amounts of every size.
 */
static double within_workloads(const struct uid_stat *s)
{
	double v = 0;
	if (s->nworkloads < 2)
		return NAN;
	for (size_t g = 0; g < s->nworkloads; g++) {
		const struct workload_stat *w = &s->workloads[g];
		if (w->n < 2)
			return NAN;
		v += (double)w->n * (w->m2 / (double)(w->n - 1));
	}
	return v / ((double)s->n * (double)s->n);
}

/*
 * The noise the effect (the relative change of the means) is judged
 * against: the standard error of the difference of the means, relative
 * to the baseline's (Welch's); NaN without two amounts a side.  Not the
 * spread of single amounts: 13,529 calls know their mean far better.
 */
static double noise_of(const struct uid_stat *b, const struct uid_stat *t)
{
	if (b->n < 2 || t->n < 2 || b->mean == 0.0)
		return NAN;
	double eb = between_collections(b), et = between_collections(t);
	if (isnan(eb) || isnan(et)) {
		eb = within_workloads(b);
		et = within_workloads(t);
	}
	if (isnan(eb) || isnan(et)) {
		/* several sizes, one amount each: their spread is the matrix's
		 * design, not noise (instruction counts: none to measure) */
		if (b->nworkloads >= 2 || t->nworkloads >= 2)
			return NAN;
		eb = b->m2 / (double)(b->n - 1) / (double)b->n;
		et = t->m2 / (double)(t->n - 1) / (double)t->n;
	}
	return NOISE_Z * sqrt(eb + et) / fabs(b->mean);
}

static int any_amount(const struct averages *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->items[i].n)
			return 1;
	return 0;
}

/* Python's str(round(x, 2)) followed by the unit. */
static void format_amount(double x, const char *unit, char *out, size_t len)
{
	char buf[64], num[32];
	snprintf(buf, sizeof(buf), "%.2f", x);
	perun_python_float_str(isfinite(x) ? strtod(buf, NULL) : x, num);
	snprintf(out, len, "%s%s", num, unit);
}

static const char *first_unit(const struct perun_profile *p)
{
	json_t *units = json_object_get(perun_profile_get(p, "header"), "units");
	void *it = json_object_iter(units);
	const char *unit = it ? json_string_value(json_object_iter_value(it)) : NULL;
	return unit ? unit : "";
}

static int aat_compare(const struct perun_profile *baseline, const struct perun_profile *target,
		       const struct perun_params *params, perun_check_emit_fn emit, void *data,
		       struct perun_error *err)
{
	double degradation = perun_params_float(params, "threshold", DEGRADATION_THRESHOLD);
	double optimization = 1.0 / degradation;
	if (!(degradation > 1.0) || !isfinite(degradation))
		return perun_error_set(err, PERUN_EINVAL,
				       "aat: option '--threshold' must be a ratio above 1, not %g",
				       degradation);
	struct averages base, targ;
	if (averages_of(baseline, "baseline", &base, err))
		return -err->code;
	if (averages_of(target, "target", &targ, err)) {
		averages_release(&base);
		return -err->code;
	}
	int base_any = any_amount(&base), targ_any = any_amount(&targ), rc = 0;
	const char *unit = first_unit(baseline);
	for (size_t i = 0; i < targ.n && !rc; i++) {
		json_t *pos = json_object_get(base.index, targ.items[i].uid);
		if (!pos)
			continue;
		const struct uid_stat *b = &base.items[json_integer_value(pos)];
		double bavg = mean_of(b, base_any), tavg = mean_of(&targ.items[i], targ_any);
		/* A NaN mean (no amounts) compares false everywhere: NoChange. */
		double ratio = bavg != 0.0 ? tavg / bavg : tavg / APPROX_ZERO;
		enum perun_change change = PERUN_CHANGE_NO_CHANGE;
		if (ratio >= degradation)
			change = PERUN_CHANGE_DEGRADATION;
		else if (ratio > 0.0 && ratio <= optimization)
			change = PERUN_CHANGE_OPTIMIZATION;
		char from[96], to[96];
		/* Perun prints the first unit for all; a memory series is not s */
		const char *u = targ.items[i].unit ? targ.items[i].unit : unit;
		format_amount(bavg, u, from, sizeof(from));
		format_amount(tavg, u, to, sizeof(to));
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = change,
			.type = perun_profile_type(baseline),
			.location = targ.items[i].uid,
			.from_baseline = from,
			.to_target = to,
			.rate_degradation = ratio,
			.confidence_type = "no",
			.confidence_rate = 0,
			.rate_degradation_relative = 0,
			.effect_size = bavg != 0.0 ? (tavg - bavg) / fabs(bavg) : NAN,
			.noise = noise_of(b, &targ.items[i]),
			.version = NULL,
		};
		if (emit(&d, data))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	averages_release(&base);
	averages_release(&targ);
	return rc;
}

static const struct perun_option aat_options[] = {
	{ "threshold", NULL, PERUN_OPTION_FLOAT, "2.0", NULL, "<ratio>",
	  "a mean ratio target/baseline of <ratio> or more is a Degradation, of 1/<ratio> "
	  "or less an Optimization (Perun: 2)",
	  0 },
	{ NULL },
};

static const struct perun_check_ops aat_ops = {
	.size = sizeof(aat_ops),
	.compare = aat_compare,
	.method = "average_amount_threshold",
	.title = "average amount threshold",
};

PERUN_PLUGIN_DEFINE(aat, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "average amount threshold: mean amount per uid, ratio 2 or 0.5",
		    .options = aat_options, .ops = &aat_ops);
