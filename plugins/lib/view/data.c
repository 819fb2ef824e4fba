/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Resources grouped by --per/--by and aggregated (see view-common.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/profile.h>
#include <perun/strbuf.h>

#include "view-common.h"

static const char *const agg_names[] = {
	[VIEWLIB_AGG_SUM] = "sum",	 [VIEWLIB_AGG_MEAN] = "mean",
	[VIEWLIB_AGG_COUNT] = "count",	 [VIEWLIB_AGG_NUNIQUE] = "nunique",
	[VIEWLIB_AGG_MEDIAN] = "median", [VIEWLIB_AGG_MIN] = "min",
	[VIEWLIB_AGG_MAX] = "max",
};

int viewlib_agg_parse(const char *name, enum viewlib_agg *out, struct perun_error *err)
{
	for (size_t i = 0; i < sizeof(agg_names) / sizeof(agg_names[0]); i++)
		if (!strcmp(name, agg_names[i])) {
			*out = (enum viewlib_agg)i;
			return 0;
		}
	return perun_error_set(err, PERUN_EINVAL,
			       "invalid aggregation function '%s' (choose from %s)", name,
			       "count, max, mean, median, min, nunique, sum");
}

/* Interning of texts: a JSON object maps each text to its index. */
struct intern {
	json_t *index;
	char **text;
	double *num;
	size_t n, alloc;
};

static long intern_add(struct intern *in, const char *text, double num)
{
	json_t *have = json_object_get(in->index, text);
	if (have)
		return (long)json_integer_value(have);
	if (in->n == in->alloc) {
		size_t alloc = in->alloc ? in->alloc * 2 : 64;
		char **t = realloc(in->text, alloc * sizeof(*t));
		if (!t)
			return -1;
		in->text = t;
		double *d = realloc(in->num, alloc * sizeof(*d));
		if (!d)
			return -1;
		in->num = d;
		in->alloc = alloc;
	}
	char *copy = strdup(text);
	if (!copy || json_object_set_new(in->index, text, json_integer((json_int_t)in->n))) {
		free(copy);
		return -1;
	}
	in->text[in->n] = copy;
	in->num[in->n] = num;
	return (long)in->n++;
}

static void intern_free(struct intern *in, int keep_texts)
{
	json_decref(in->index);
	if (!keep_texts) {
		for (size_t i = 0; i < in->n; i++)
			free(in->text[i]);
		free(in->text);
		free(in->num);
	}
}

struct entry {
	size_t per, by;
	double value;
	long text; /* the of value's interned text, for nunique */
};

struct walk {
	const char *key[3]; /* of, per, by */
	char *text[3];	    /* this row's values, flattened */
	double num[3];
	json_t *fields;	    /* every field name seen, for errors */
	int found[3];	    /* the key is a field of some resource */
	int non_numeric_of; /* an of value that is not a number */
	struct intern per, by, values;
	struct entry *entries;
	size_t n, alloc;
	int oom;
};

static int take_item(const char *key, const json_t *value, void *data)
{
	struct walk *w = data;
	json_object_set_new(w->fields, key, json_null());
	for (int k = 0; k < 3; k++) {
		if (!w->key[k] || strcmp(key, w->key[k]) || w->text[k])
			continue;
		if (!(w->text[k] = perun_value_flatten_dup(value)))
			return w->oom = -1;
		if (perun_json_number(value, &w->num[k]) < 0)
			w->num[k] = NAN;
	}
	return 0;
}

/* Python's str() of a scalar column value, in buf or the value's own
 * string; *dup gets what the caller frees for anything else. */
static const char *value_text(const json_t *v, char buf[32], char **dup)
{
	*dup = NULL;
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, 32, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_real(v)) {
		perun_python_float_str(json_real_value(v), buf);
		return buf;
	}
	return *dup = perun_value_flatten_dup(v);
}

static int push(struct walk *w, long per, long by, double value, long text)
{
	if (w->n == w->alloc) {
		size_t alloc = w->alloc ? w->alloc * 2 : 1024;
		struct entry *e2 = realloc(w->entries, alloc * sizeof(*e2));
		if (!e2)
			return w->oom = -1;
		w->entries = e2;
		w->alloc = alloc;
	}
	w->entries[w->n++] = (struct entry){ (size_t)per, (size_t)by, value, text };
	return 0;
}

/* Python's str() of a column value read from the profile's compact form,
 * as value_text gives it for the same value in a tree. */
static const char *jv_value_text(const struct perun_jv *v, char buf[32], char **dup)
{
	*dup = NULL;
	switch (perun_jv_type(v)) {
	case PERUN_JV_STRING: return perun_jv_string(v);
	case PERUN_JV_INTEGER: snprintf(buf, 32, "%lld", (long long)v->u.i); return buf;
	case PERUN_JV_REAL:
		if (isfinite(v->u.d)) {
			perun_python_float_str(v->u.d, buf);
			return buf;
		}
		break;
	default: break;
	}
	/* The rest (non-finite markers, containers, booleans) as the tree
	 * has them. */
	json_t *tree = perun_jv_to_json(v);
	const char *text = tree ? value_text(tree, buf, dup) : NULL;
	if (text && !*dup && text != buf)
		text = *dup = strdup(text);
	json_decref(tree);
	return text;
}

/*
 * The rows of one resource type.  Persistent keys (and the keys nested in
 * them, "uid:function") are flattened once per type; columns are read
 * value by value, in the profile's compact form.  A row lacking a key is
 * left out, as pandas' groupby drops missing keys.
 */
static int take_type(struct walk *w, const struct perun_jv *persistent, const struct perun_jv *cols,
		     int nunique)
{
	struct perun_error e = { 0 };
	const struct perun_jv *col[3] = { NULL, NULL, NULL }, *at[3] = { NULL, NULL, NULL };
	long id[3] = { -1, -1, -1 };
	size_t rows = 0, c;
	json_t *persist = perun_jv_to_json(persistent);
	int rc = persist ? perun_items_of(persist, take_item, w, &e) : (w->oom = -1);
	if (rc)
		goto out;
	const struct perun_jv *name, *column;
	perun_jv_object_foreach(cols, c, name, column)
	{
		json_object_set_new(w->fields, perun_jv_string(name), json_null());
		if (perun_jv_type(column) == PERUN_JV_ARRAY && perun_jv_len(column) > rows)
			rows = perun_jv_len(column);
	}
	/* Perun's data frames always have "snapshots": the snapshot number. */
	json_object_set_new(w->fields, "snapshots", json_null());
	for (int k = 0; k < 3; k++) {
		if (!w->key[k] || w->text[k])
			continue;
		if ((col[k] = perun_jv_get(cols, w->key[k]))) {
			at[k] = col[k] + 1;
			continue;
		}
		if (!strcmp(w->key[k], "snapshots")) {
			json_int_t snap = json_integer_value(json_object_get(persist, "snapshot"));
			if (!(w->text[k] = malloc(24))) {
				rc = w->oom = -1;
				goto out;
			}
			snprintf(w->text[k], 24, "%lld", (long long)snap);
			w->num[k] = (double)snap;
		}
	}
	for (int k = 0; k < 3; k++) {
		if (!w->key[k])
			continue;
		if (!w->text[k] && !col[k])
			goto out; /* no row of this type has the key */
		w->found[k] = 1;
	}
	/* What is the same for every row: interned once. */
	if (w->text[1] && (id[1] = intern_add(&w->per, w->text[1], w->num[1])) < 0)
		goto oom;
	if (!w->key[2] || w->text[2])
		if ((id[2] = intern_add(&w->by, w->key[2] ? w->text[2] : w->key[0], 0.0)) < 0)
			goto oom;
	if (w->text[0] && nunique && (id[0] = intern_add(&w->values, w->text[0], 0.0)) < 0)
		goto oom;
	for (size_t i = 0; i < rows; i++) {
		long rid[3] = { id[0], id[1], id[2] };
		double num[3] = { w->num[0], w->num[1], w->num[2] };
		int skip = 0;
		for (int k = 0; k < 3 && !skip; k++) {
			if (!col[k])
				continue;
			if (perun_jv_type(col[k]) != PERUN_JV_ARRAY || i >= perun_jv_len(col[k])) {
				skip = 1;
				break;
			}
			const struct perun_jv *v = at[k];
			at[k] = perun_jv_skip(v);
			if (perun_jv_number(v, &num[k]) < 0)
				num[k] = NAN;
			if (k == 0 && !nunique)
				continue;
			char buf[32], *dup;
			const char *text = jv_value_text(v, buf, &dup);
			if (!text)
				goto oom;
			rid[k] = k == 0	  ? intern_add(&w->values, text, 0.0)
				 : k == 1 ? intern_add(&w->per, text, num[1])
					  : intern_add(&w->by, text, 0.0);
			free(dup);
			if (rid[k] < 0)
				goto oom;
		}
		if (skip)
			continue;
		if (isnan(num[0]))
			w->non_numeric_of = 1;
		if (push(w, rid[1], rid[2], num[0], rid[0]) < 0)
			goto oom;
	}
	goto out;
oom:
	rc = w->oom = -1;
out:
	for (int k = 0; k < 3; k++) {
		free(w->text[k]);
		w->text[k] = NULL;
		w->num[k] = NAN;
	}
	json_decref(persist);
	return rc;
}

/* The order of categories: numeric when all are numbers, else text. */
static const struct intern *sort_intern;
static int sort_numeric;

static int cmp_index(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	if (sort_numeric) {
		double x = sort_intern->num[a], y = sort_intern->num[b];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return strcmp(sort_intern->text[a], sort_intern->text[b]);
}

/* rank[i]: the sorted position of category i; order[rank] = i. */
static int sort_categories(const struct intern *in, int numeric, size_t **rank)
{
	size_t *order = malloc((in->n + 1) * sizeof(size_t));
	*rank = malloc((in->n + 1) * sizeof(size_t));
	if (!order || !*rank) {
		free(order);
		return -1;
	}
	for (size_t i = 0; i < in->n; i++)
		order[i] = i;
	sort_intern = in;
	sort_numeric = numeric;
	qsort(order, in->n, sizeof(size_t), cmp_index);
	for (size_t i = 0; i < in->n; i++)
		(*rank)[order[i]] = i;
	free(order);
	return 0;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->per != b->per)
		return a->per < b->per ? -1 : 1;
	if (a->by != b->by)
		return a->by < b->by ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->text < b->text ? -1 : a->text > b->text;
}

static int cmp_long(const void *pa, const void *pb)
{
	long a = *(const long *)pa, b = *(const long *)pb;
	return a < b ? -1 : a > b;
}

/* Aggregate entries [from, to), sorted by value, of one cell. */
static double aggregate(const struct entry *e, size_t n, enum viewlib_agg agg, long *scratch)
{
	double acc = 0.0;
	switch (agg) {
	case VIEWLIB_AGG_SUM:
	case VIEWLIB_AGG_MEAN:
		for (size_t i = 0; i < n; i++)
			acc += e[i].value;
		return agg == VIEWLIB_AGG_SUM ? acc : acc / (double)n;
	case VIEWLIB_AGG_COUNT: return (double)n;
	case VIEWLIB_AGG_NUNIQUE: {
		for (size_t i = 0; i < n; i++)
			scratch[i] = e[i].text;
		qsort(scratch, n, sizeof(long), cmp_long);
		size_t u = n ? 1 : 0;
		for (size_t i = 1; i < n; i++)
			u += scratch[i] != scratch[i - 1];
		return (double)u;
	}
	case VIEWLIB_AGG_MEDIAN:
		return n % 2 ? e[n / 2].value : (e[n / 2 - 1].value + e[n / 2].value) / 2;
	case VIEWLIB_AGG_MIN: return e[0].value;
	case VIEWLIB_AGG_MAX: return e[n - 1].value;
	}
	return NAN;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int unknown_key(struct walk *w, const char *key, struct perun_error *err)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	const char *name;
	json_t *v;
	const char **names = malloc((json_object_size(w->fields) + 1) * sizeof(char *));
	size_t n = 0;
	if (!names)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_object_foreach(w->fields, name, v) names[n++] = name;
	qsort(names, n, sizeof(char *), strcmp_ptr);
	for (size_t i = 0; i < n; i++)
		perun_strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
	free(names);
	char *list = perun_strbuf_detach(&sb, NULL);
	int rc = perun_error_set(err, PERUN_EINVAL, "invalid resource key '%s' (choose from %s)",
				 key, list ? list : "...");
	free(list);
	return rc;
}

int viewlib_group(const struct perun_profile *profile, const char *of, const char *per,
		  const char *by, enum viewlib_agg agg, struct viewlib_groups *out,
		  struct perun_error *err)
{
	struct walk w = { .key = { of, per, by } };
	struct perun_type_list types = { 0 };
	size_t *per_rank = NULL, *by_rank = NULL;
	long *scratch = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	w.fields = json_object();
	w.per.index = json_object();
	w.by.index = json_object();
	w.values.index = json_object();
	if (!w.fields || !w.per.index || !w.by.index || !w.values.index) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (int k = 0; k < 3; k++)
		w.num[k] = NAN;
	/* In the order of "resources", as Python Perun's data frame has them. */
	if ((rc = perun_profile_types(profile, &types, err)))
		goto out;
	for (size_t i = 0; i < types.n; i++)
		if ((rc = take_type(&w, types.types[i].persistent, types.types[i].columns,
				    agg == VIEWLIB_AGG_NUNIQUE)))
			break;
	if (rc || w.oom) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	if (!perun_profile_resource_count(profile)) {
		rc = perun_error_set(err, PERUN_EINVAL, "the profile has no resources");
		goto out;
	}
	for (int k = 0; k < 3; k++)
		if (w.key[k] && !w.found[k]) {
			rc = unknown_key(&w, w.key[k], err);
			goto out;
		}
	if (w.non_numeric_of && agg != VIEWLIB_AGG_COUNT && agg != VIEWLIB_AGG_NUNIQUE) {
		rc = perun_error_set(
			err, PERUN_EINVAL,
			"'%s' cannot be aggregated by '%s': its values are not numbers "
			"(count and nunique can)",
			of, agg_names[agg]);
		goto out;
	}
	int numeric = 1;
	for (size_t i = 0; i < w.per.n; i++)
		if (isnan(w.per.num[i]))
			numeric = 0;
	if (sort_categories(&w.per, numeric, &per_rank) < 0 ||
	    sort_categories(&w.by, 0, &by_rank) < 0 ||
	    !(scratch = malloc((w.n + 1) * sizeof(long)))) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < w.n; i++) {
		w.entries[i].per = per_rank[w.entries[i].per];
		w.entries[i].by = by_rank[w.entries[i].by];
	}
	if (w.n) /* qsort of NULL is undefined, even of nothing */
		qsort(w.entries, w.n, sizeof(*w.entries), cmp_entry);

	out->nper = w.per.n;
	out->nby = w.by.n;
	out->per_numeric = numeric;
	out->resources = w.n;
	out->per = calloc(w.per.n + 1, sizeof(char *));
	out->per_num = calloc(w.per.n + 1, sizeof(double));
	out->by = calloc(w.by.n + 1, sizeof(char *));
	out->cell = malloc((w.per.n * w.by.n + 1) * sizeof(double));
	if (!out->per || !out->per_num || !out->by || !out->cell) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < w.per.n; i++) {
		out->per[per_rank[i]] = w.per.text[i];
		out->per_num[per_rank[i]] = w.per.num[i];
	}
	for (size_t i = 0; i < w.by.n; i++)
		out->by[by_rank[i]] = w.by.text[i];
	w.per.n = w.by.n = 0; /* the texts are out's now */
	for (size_t i = 0; i < out->nper * out->nby; i++)
		out->cell[i] = NAN;
	for (size_t i = 0, j; i < w.n; i = j) {
		for (j = i; j < w.n && w.entries[j].per == w.entries[i].per &&
			    w.entries[j].by == w.entries[i].by;
		     j++)
			;
		out->cell[w.entries[i].per * out->nby + w.entries[i].by] =
			aggregate(w.entries + i, j - i, agg, scratch);
	}
out:
	free(per_rank);
	free(by_rank);
	free(scratch);
	free(w.entries);
	json_decref(w.fields);
	intern_free(&w.per, 0);
	intern_free(&w.by, 0);
	intern_free(&w.values, 0);
	perun_type_list_release(&types);
	if (rc)
		viewlib_groups_free(out);
	return rc;
}

void viewlib_groups_free(struct viewlib_groups *g)
{
	for (size_t i = 0; g->per && i < g->nper; i++)
		free(g->per[i]);
	for (size_t i = 0; g->by && i < g->nby; i++)
		free(g->by[i]);
	free(g->per);
	free(g->per_num);
	free(g->by);
	free(g->cell);
	memset(g, 0, sizeof(*g));
}
