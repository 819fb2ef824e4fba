/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Amounts per (uid, trace) of two profiles, for the diff views. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <perun/params.h>
#include <perun/profile.h>

#include "view-common.h"

struct acc {
	json_t *index; /* "uid\x1ftrace" -> row number */
	struct perun_diff_rows *out;
	size_t alloc;
};

static long row_of(struct acc *a, const char *uid, const char *trace)
{
	size_t lu = strlen(uid), lt = strlen(trace);
	char stack[512], *key = lu + lt + 2 <= sizeof(stack) ? stack : malloc(lu + lt + 2);
	long r = -1;
	if (!key)
		return -1;
	memcpy(key, uid, lu);
	key[lu] = '\x1f';
	memcpy(key + lu + 1, trace, lt + 1);
	json_t *have = json_object_get(a->index, key);
	if (have) {
		r = (long)json_integer_value(have);
		goto out;
	}
	struct perun_diff_rows *o = a->out;
	if (o->n == a->alloc) {
		size_t alloc = a->alloc ? a->alloc * 2 : 256;
		struct perun_diff_row *grown = realloc(o->rows, alloc * sizeof(*grown));
		if (!grown)
			goto out;
		o->rows = grown;
		a->alloc = alloc;
	}
	struct perun_diff_row *row = &o->rows[o->n];
	row->uid = strdup(uid);
	row->trace = strdup(trace);
	row->amount[0] = row->amount[1] = 0.0;
	if (!row->uid || !row->trace ||
	    json_object_set_new(a->index, key, json_integer((json_int_t)o->n))) {
		free(row->uid);
		free(row->trace);
		goto out;
	}
	r = (long)o->n++;
out:
	if (key != stack)
		free(key);
	return r;
}

/* Does the resource type (persistent values) or row pass the filters? */
static int keep(const json_t *persist, const json_t *cols, size_t row,
		const char *const *filters, size_t nfilters)
{
	if (!nfilters)
		return 1;
	/* Perun ORs all the filters together. */
	for (size_t f = 0; f < nfilters; f++) {
		const json_t *v = json_object_get(persist, filters[2 * f]);
		if (!v)
			v = json_array_get(json_object_get(cols, filters[2 * f]), row);
		if (!v)
			continue;
		char *text = perun_value_flatten_dup(v);
		int match = text && !strcmp(text, filters[2 * f + 1]);
		free(text);
		if (match)
			return 1;
	}
	return 0;
}

static int add_profile(struct acc *a, const struct perun_profile *p, int side,
		       const char *const *filters, size_t nfilters, struct perun_error *err)
{
	json_t *root = perun_profile_json(p);
	json_t *resources = json_object_get(root, "resources");
	json_t *types = json_object_get(root, "resource_type_map");
	const char *id;
	json_t *cols;
	json_object_foreach(resources, id, cols) {
		json_t *persist = json_object_get(types, id);
		json_t *amounts = json_object_get(cols, "amount");
		size_t n = json_array_size(amounts);
		if (!n)
			continue;
		char *uid = perun_value_flatten_dup(json_object_get(persist, "uid"));
		json_t *tr = json_object_get(persist, "trace");
		char *trace = tr ? perun_value_flatten_dup(tr) : strdup("");
		long r = uid && trace ? row_of(a, uid, trace) : -1;
		free(uid);
		free(trace);
		if (r < 0)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		double sum = 0.0, v;
		for (size_t i = 0; i < n; i++) {
			if (!keep(persist, cols, i, filters, nfilters))
				continue;
			if (perun_json_number(json_array_get(amounts, i), &v) < 0)
				return perun_error_set(err, PERUN_EINVAL,
						       "resource '%s' row %zu: 'amount' is not a number",
						       id, i + 1);
			sum += v;
		}
		a->out->rows[r].amount[side] += sum;
		a->out->total[side] += sum;
	}
	return 0;
}

int perun_diff_rows_build(const struct perun_profile *baseline,
			  const struct perun_profile *target,
			  const char *const *filters, size_t nfilters,
			  struct perun_diff_rows *out, struct perun_error *err)
{
	struct acc a = {.index = json_object(), .out = out};
	int rc;
	memset(out, 0, sizeof(*out));
	if (!a.index)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	rc = add_profile(&a, baseline, 0, filters, nfilters, err);
	if (!rc)
		rc = add_profile(&a, target, 1, filters, nfilters, err);
	json_decref(a.index);
	if (rc)
		perun_diff_rows_free(out);
	return rc;
}

int perun_diff_rows_of_view(const struct perun_view_ctx *ctx, const char *filter_option,
			    struct perun_diff_rows *out, struct perun_error *err)
{
	if (ctx->size < offsetof(struct perun_view_ctx, baseline_label) + sizeof(ctx->baseline_label) ||
	    !ctx->baseline)
		return perun_error_set(err, PERUN_EINVAL,
				       "compares two profiles: use 'perun showdiff <baseline> <target>'");
	json_t *pairs = filter_option ? json_object_get(perun_params_json(ctx->params), filter_option)
				      : NULL;
	size_t n = json_array_size(pairs);
	const char **filters = calloc(2 * n + 1, sizeof(char *));
	if (!filters)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < n; i++) {
		filters[2 * i] = json_string_value(json_array_get(json_array_get(pairs, i), 0));
		filters[2 * i + 1] = json_string_value(json_array_get(json_array_get(pairs, i), 1));
	}
	int rc = perun_diff_rows_build(ctx->baseline, ctx->profile, filters, n, out, err);
	free(filters);
	return rc;
}

void perun_diff_rows_free(struct perun_diff_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].uid);
		free(r->rows[i].trace);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
