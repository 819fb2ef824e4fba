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
};

struct averages {
	struct uid_stat *items;
	size_t n;
	json_t *index; /* uid -> position in items */
};

static void averages_release(struct averages *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->items[i].uid);
	free(a->items);
	json_decref(a->index);
}

static void kahan_add(struct uid_stat *s, double x)
{
	double y = x - s->comp, t = s->sum + y;
	s->comp = (t - s->sum) - y;
	s->sum = t;
	s->n++;
	double delta = x - s->mean;
	s->mean += delta / (double)s->n;
	s->m2 += delta * (x - s->mean);
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

/*
 * Read the amounts straight from the flattened columns: one uid per
 * resource type, so the flattened uid is computed once per type.
 */
static int averages_of(const struct perun_profile *profile, const char *name, struct averages *a,
		       struct perun_error *err)
{
	struct perun_type_list types;
	int rc = 0;
	memset(a, 0, sizeof(*a));
	if (perun_profile_types(profile, &types, err))
		return -err->code;
	a->index = json_object();
	if (!a->index)
		goto nomem;
	for (size_t t = 0; t < types.n; t++) {
		const struct perun_jv *uid = perun_jv_get(types.types[t].persistent, "uid");
		if (!uid || perun_jv_type(uid) == PERUN_JV_NULL)
			continue; /* pandas drops rows without a group key */
		/* time profiles: real, user and sys apart (Perun mixes them) */
		char *flat = perun_series_name_dup(profile, types.types[t].persistent);
		struct uid_stat *s;
		rc = flat ? stat_of(a, flat, &s) : -1;
		free(flat);
		if (rc)
			goto nomem;
		const char *kind = perun_jv_string(perun_jv_get(types.types[t].persistent, "type"));
		if (!s->unit && kind)
			s->unit = json_string_value(json_object_get(
				json_object_get(perun_profile_get(profile, "header"), "units"),
				kind));
		const struct perun_jv *amounts = perun_jv_get(types.types[t].columns, "amount"), *v;
		size_t i;
		if (!amounts || perun_jv_type(amounts) != PERUN_JV_ARRAY)
			continue;
		perun_jv_array_foreach(amounts, i, v)
		{
			double x;
			if (perun_jv_type(v) == PERUN_JV_NULL)
				continue;
			if (perun_jv_number(v, &x)) {
				rc = perun_error_set(err, PERUN_EINVAL,
						     "%s: resource '%s' has a non-numeric amount",
						     name, types.types[t].id);
				goto out;
			}
			if (!isnan(x))
				kahan_add(s, x);
		}
	}
	if (a->n)
		qsort(a->items, a->n, sizeof(*a->items), uid_cmp);
	json_object_clear(a->index);
	for (size_t i = 0; i < a->n; i++)
		json_object_set_new(a->index, a->items[i].uid, json_integer((json_int_t)i));
	goto out;
nomem:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
out:
	perun_type_list_release(&types);
	if (rc)
		averages_release(a);
	return rc;
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
 * The noise the effect (the relative change of the means) is judged
 * against: the standard error of the difference of the means, relative
 * to the baseline's (Welch's); NaN without two amounts a side.  Not the
 * spread of single amounts: 13,529 calls know their mean far better.
 */
static double noise_of(const struct uid_stat *b, const struct uid_stat *t)
{
	if (b->n < 2 || t->n < 2 || b->mean == 0.0)
		return NAN;
	double vb = b->m2 / (double)(b->n - 1), vt = t->m2 / (double)(t->n - 1);
	return sqrt(vb / (double)b->n + vt / (double)t->n) / fabs(b->mean);
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
