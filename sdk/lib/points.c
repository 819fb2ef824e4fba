/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The points of a profile per uid: Python Perun's postprocessor data
 * provider.
 *
 * Layer 9 of libperun, a user of profiles: it reads them through the
 * public API only (perun/profile.h), whatever form they are in; no file
 * of libperun uses it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/points.h>
#include <perun/profile.h>

/* One resource type of the profile. */
struct group {
	const char *name;		/* "<uid>#<n>" */
	const struct perun_jv *columns; /* collectable key -> values */
	const struct perun_jv *persist; /* persistent key -> value */
	char *uid;			/* flattened */
	size_t rows;
	size_t order;
};

struct perun_points {
	struct perun_type_list types; /* what groups point into */
	struct group *groups;
	size_t ngroups;
	size_t next;		 /* first group of the next uid */
	struct perun_point *pts; /* the current uid's points */
	size_t cap;
};

static int cmp_groups(const void *a, const void *b)
{
	const struct group *g = a, *h = b;
	int c = strcmp(g->uid, h->uid);
	if (c)
		return c;
	return g->order < h->order ? -1 : g->order > h->order;
}

static size_t group_rows(const struct perun_jv *columns)
{
	const struct perun_jv *key, *values;
	size_t rows = SIZE_MAX, i;
	perun_jv_object_foreach(columns, i, key, values)
	{
		size_t n = perun_jv_type(values) == PERUN_JV_ARRAY ? perun_jv_len(values) : 0;
		if (n < rows)
			rows = n;
	}
	/* Only persistent keys: Perun yields the resource type once. */
	return rows == SIZE_MAX ? 1 : rows;
}

void perun_points_free(struct perun_points *points)
{
	if (!points)
		return;
	for (size_t i = 0; i < points->ngroups; i++)
		free(points->groups[i].uid);
	free(points->groups);
	free(points->pts);
	perun_type_list_release(&points->types);
	free(points);
}

char *perun_series_name_dup(const struct perun_profile *profile, const struct perun_jv *persistent)
{
	const struct perun_jv *uid = perun_jv_get(persistent, "uid");
	const char *sub = perun_jv_string(perun_jv_get(persistent, "subtype"));
	char *flat = uid ? perun_jv_flatten_dup(uid) : NULL;
	if (!flat || !sub || !*sub || strcmp(perun_profile_type(profile), "time"))
		return flat;
	size_t fl = strlen(flat), sl = strlen(sub);
	/* "prog:max-rss" of subtype max-rss already names its series */
	if (fl > sl && flat[fl - sl - 1] == ':' && !strcmp(flat + fl - sl, sub))
		return flat;
	char *name = malloc(fl + sl + 2);
	if (name)
		snprintf(name, fl + sl + 2, "%s:%s", flat, sub);
	free(flat);
	return name;
}

int perun_points_open(const struct perun_profile *profile, struct perun_points **out,
		      struct perun_error *err)
{
	size_t total = 0;
	struct perun_points *p = calloc(1, sizeof(*p));
	if (!p)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_types(profile, &p->types, err);
	if (rc)
		goto fail;
	p->groups = calloc(p->types.n ? p->types.n : 1, sizeof(*p->groups));
	if (!p->groups)
		goto nomem;
	for (size_t i = 0; i < p->types.n; i++) {
		const struct perun_type_ref *t = &p->types.types[i];
		struct group *g = &p->groups[p->ngroups];
		g->name = t->id;
		g->columns = t->columns;
		g->persist = t->persistent;
		g->order = p->ngroups;
		if (!perun_jv_get(g->persist, "uid")) {
			rc = perun_error_set(err, PERUN_EINVAL, "resource '%s' has no uid", t->id);
			goto fail;
		}
		g->uid = perun_series_name_dup(profile, g->persist);
		if (!g->uid)
			goto nomem;
		p->ngroups++;
		g->rows = group_rows(g->columns);
		total += g->rows;
	}
	if (!total) {
		rc = perun_error_set(err, PERUN_EINVAL, "the profile has no resources to analyse");
		goto fail;
	}
	qsort(p->groups, p->ngroups, sizeof(*p->groups), cmp_groups);
	*out = p;
	return 0;
nomem:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
fail:
	perun_points_free(p);
	return rc;
}

int perun_points_check_key(const struct perun_points *points, const char *option, const char *key,
			   struct perun_error *err)
{
	for (size_t i = 0; i < points->ngroups; i++)
		if (perun_jv_get(points->groups[i].columns, key) ||
		    perun_jv_get(points->groups[i].persist, key))
			return 0;
	return perun_error_set(err, PERUN_EINVAL,
			       "option '--%s': '%s' is not a key of the profile's resources",
			       option, key);
}

/*
 * Where the values of key are in g: a column, walked value by value, or one
 * persistent value for every row.  Looked up once per resource type, not
 * once per value.
 */
struct source {
	const struct perun_jv *next; /* the column's value of the next row */
	const struct perun_jv *value;
};

static int find_source(const struct group *g, const char *key, struct source *src,
		       struct perun_error *err)
{
	const struct perun_jv *column = perun_jv_get(g->columns, key);
	src->value = column ? NULL : perun_jv_get(g->persist, key);
	if (!column && !src->value)
		return perun_error_set(err, PERUN_EINVAL, "resource '%s' has no key '%s'", g->name,
				       key);
	/* A column that is no list has no values: its rows are 0. */
	src->next = column ? column + 1 : NULL;
	return 0;
}

/* The value of row (read in order) from src. */
static int read_value(const struct group *g, const char *key, struct source *src, size_t row,
		      struct perun_num *out, struct perun_error *err)
{
	const struct perun_jv *v = src->value;
	if (!v) {
		v = src->next;
		src->next = perun_jv_skip(v);
	}
	out->is_int = perun_jv_type(v) == PERUN_JV_INTEGER;
	if (out->is_int) {
		out->i = v->u.i;
		out->d = (double)out->i;
		return 0;
	}
	if (perun_jv_type(v) == PERUN_JV_REAL && isfinite(v->u.d)) {
		out->d = v->u.d;
		return 0;
	}
	if (perun_jv_type(v) == PERUN_JV_REAL)
		return perun_error_set(err, PERUN_EINVAL, "resource '%s' row %zu: '%s' is %s",
				       g->name, row + 1, key, isnan(v->u.d) ? "NaN" : "infinite");
	json_t *tree = perun_jv_to_json(v);
	char *text = tree ? json_dumps(tree, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	int rc = perun_error_set(err, PERUN_EINVAL,
				 "resource '%s' row %zu: '%s' is not a number (%.80s)", g->name,
				 row + 1, key, text ? text : "nothing");
	free(text);
	json_decref(tree);
	return rc;
}

int perun_points_next(struct perun_points *p, const char *per_key, const char *of_key,
		      const char **uid, struct perun_point **pts, size_t *npts,
		      struct perun_error *err)
{
	for (;;) {
		size_t g = p->next, end = g, n = 0;
		if (g >= p->ngroups)
			return 0;
		while (end < p->ngroups && !strcmp(p->groups[end].uid, p->groups[g].uid))
			n += p->groups[end++].rows;
		p->next = end;
		/* A uid whose types all have empty columns yields nothing in Perun. */
		if (!n)
			continue;
		if (n > p->cap) {
			struct perun_point *grown = realloc(p->pts, n * sizeof(*grown));
			if (!grown)
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			p->pts = grown;
			p->cap = n;
		}
		size_t k = 0;
		for (size_t i = g; i < end; i++) {
			const struct group *grp = &p->groups[i];
			struct source xs, ys;
			int rc = find_source(grp, per_key, &xs, err);
			if (!rc)
				rc = find_source(grp, of_key, &ys, err);
			for (size_t row = 0; !rc && row < grp->rows; row++, k++) {
				rc = read_value(grp, per_key, &xs, row, &p->pts[k].x, err);
				if (!rc)
					rc = read_value(grp, of_key, &ys, row, &p->pts[k].y, err);
				p->pts[k].idx = k;
			}
			if (rc)
				return rc;
		}
		*uid = p->groups[g].uid;
		*pts = p->pts;
		*npts = n;
		return 1;
	}
}

/* Python compares an int and a float exactly; doubles are exact from 2^53 on. */
static int cmp_mixed(long long i, double d)
{
	if (d != d)
		return 0;
	if (d >= 9223372036854775808.0)
		return -1;
	if (d < -9223372036854775808.0)
		return 1;
	double di = (double)i;
	if (di != d)
		return di < d ? -1 : 1;
	long long t = (long long)d; /* d is integral when it equals a double of an int */
	return i < t ? -1 : i > t;
}

int perun_num_cmp(const struct perun_num *a, const struct perun_num *b)
{
	if (a->is_int && b->is_int)
		return a->i < b->i ? -1 : a->i > b->i;
	if (a->is_int)
		return cmp_mixed(a->i, b->d);
	if (b->is_int)
		return -cmp_mixed(b->i, a->d);
	return a->d < b->d ? -1 : a->d > b->d;
}

json_t *perun_num_json(const struct perun_num *n)
{
	if (n->is_int)
		return json_integer(n->i);
	if (isfinite(n->d))
		return json_real(n->d);
	/* The markers of profile.c: a NUL, then Python's word. */
	const char *word = isnan(n->d) ? "\0NaN" : n->d > 0 ? "\0Infinity" : "\0-Infinity";
	return json_stringn(word, strlen(word + 1) + 1);
}

/* numpy's pairwise_sum (loops_utils.h): unrolled by 8 up to 128 elements. */
static double pairwise(const double *a, size_t n)
{
	if (n < 8) {
		double res = 0.;
		for (size_t i = 0; i < n; i++)
			res += a[i];
		return res;
	}
	if (n <= 128) {
		/* Eight named sums, not an array: the compiler kept an array's
		 * in memory, a store and a reload per add (kernel_regression's
		 * estimators sum four windows per point). */
		double r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3];
		double r4 = a[4], r5 = a[5], r6 = a[6], r7 = a[7], res;
		size_t i;
		for (i = 8; i < n - (n % 8); i += 8) {
			r0 += a[i];
			r1 += a[i + 1];
			r2 += a[i + 2];
			r3 += a[i + 3];
			r4 += a[i + 4];
			r5 += a[i + 5];
			r6 += a[i + 6];
			r7 += a[i + 7];
		}
		res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
		for (; i < n; i++)
			res += a[i];
		return res;
	}
	size_t n2 = n / 2;
	n2 -= n2 % 8;
	return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

/* numpy's buffer size: a reduction sees the data in chunks of this many. */
#define NUMPY_BUFSIZE 8192

double perun_sum_pairwise(const double *a, size_t n)
{
	double sum = 0.;
	for (size_t i = 0; i < n; i += NUMPY_BUFSIZE)
		sum += pairwise(a + i, n - i < NUMPY_BUFSIZE ? n - i : NUMPY_BUFSIZE);
	return sum;
}

double perun_mean(const double *a, size_t n)
{
	return perun_sum_pairwise(a, n) / (double)n;
}

int perun_r2_score(const double *y_true, const double *y_pred, size_t n, double *out)
{
	if (n < 2) {
		*out = NAN;
		return 0;
	}
	double *tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double d = y_true[i] - y_pred[i];
		tmp[i] = d * d;
	}
	double numerator = perun_sum_pairwise(tmp, n);
	double mean = perun_mean(y_true, n);
	for (size_t i = 0; i < n; i++) {
		double d = y_true[i] - mean;
		tmp[i] = d * d;
	}
	double denominator = perun_sum_pairwise(tmp, n);
	free(tmp);
	/* sklearn's force_finite */
	if (numerator == 0)
		*out = 1.0;
	else if (denominator == 0)
		*out = 0.0;
	else
		*out = 1 - numerator / denominator;
	return 0;
}

void perun_points_skip(struct perun_points_skips *s, const char *uid, const char *why)
{
	if (!s->count)
		snprintf(s->first, sizeof(s->first), "uid '%s': %s", uid, why);
	size_t len = strlen(s->text);
	if (len < sizeof(s->text) - 100)
		snprintf(s->text + len, sizeof(s->text) - len, "%s'%.60s'", s->count ? ", " : "",
			 uid);
	else if (len < sizeof(s->text) - 4 && strcmp(s->text + len - 3, "..."))
		strcat(s->text, ", ...");
	s->count++;
}

int perun_points_skips_finish(const struct perun_points_skips *s, size_t models,
			      struct perun_error *err)
{
	if (!models && s->count > 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "no model could be computed: %s (and %zu other uids)",
				       s->first, s->count - 1);
	if (!models)
		return perun_error_set(err, PERUN_EINVAL, "no model could be computed: %s",
				       s->first[0] ? s->first : "no points");
	/* Success may carry a warning: the uids Perun would skip too. */
	if (s->count == 1)
		perun_error_set(err, PERUN_OK, "skipped %s", s->first);
	else if (s->count)
		perun_error_set(err, PERUN_OK, "skipped %zu uids that cannot be modelled: %s (%s)",
				s->count, s->text, s->first);
	return 0;
}

int perun_points_add_models(struct perun_profile *profile, json_t *models)
{
	json_t *list = perun_profile_get(profile, "models");
	if (!json_is_array(list)) {
		list = json_array();
		if (perun_profile_set_new(profile, "models", list))
			return -1;
	}
	return json_array_extend(list, models) ? -1 : 0;
}

int perun_points_model_each(struct perun_profile *profile, const char *per_key, const char *of_key,
			    perun_points_model_fn *model, void *arg, struct perun_error *err)
{
	struct perun_points *points = NULL;
	struct perun_points_skips skips = { 0 };
	json_t *models = json_array();
	const char *uid;
	struct perun_point *pts;
	size_t n;
	int rc;

	if (!models)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	rc = perun_points_open(profile, &points, err);
	if (!rc)
		rc = perun_points_check_key(points, "per-key", per_key, err);
	if (!rc)
		rc = perun_points_check_key(points, "of-key", of_key, err);
	while (!rc && (rc = perun_points_next(points, per_key, of_key, &uid, &pts, &n, err)) > 0) {
		char why[256];
		rc = model(arg, uid, pts, n, models, why, sizeof(why), err);
		if (rc == 1) {
			perun_points_skip(&skips, uid, why);
			rc = 0;
		}
	}
	if (!rc)
		rc = perun_points_skips_finish(&skips, json_array_size(models), err);
	if (rc)
		goto out;
	/* Appended in place: perun_profile_add_model would copy each record. */
	if (perun_points_add_models(profile, models))
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
out:
	json_decref(models);
	perun_points_free(points);
	return rc;
}
