/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Amounts per (uid, trace) of two profiles, for the diff views. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/params.h>
#include <perun/profile.h>
#include <perun/strbuf.h>

#include "view-common.h"

#define PENDING 16

/* Rows are found by an open-addressing table of row numbers + 1 over a
 * hash of the trace and the uid: cheaper than a JSON object's copied
 * keys.  Each row's hash is kept in its slot, so that growing the table
 * and probing it read no text: a million rows' keys are far bigger than
 * the caches. */
struct acc {
	struct acc_slot {
		uint32_t hash;
		uint32_t row; /* + 1; 0 is free */
	} * slot;
	size_t nslots; /* a power of two, at most half full */
	struct viewlib_diff_rows *out;
	size_t alloc;
	char *text_at; /* room left in out's last text block */
	size_t text_left;
	/* Records wait in a ring while their slots are fetched: a million
	 * rows' table is far bigger than the caches, and a probe waited on
	 * memory for two thirds of the walk. */
	struct pending {
		struct perun_strbuf key; /* trace, NUL, uid, NUL */
		size_t trace_len;
		uint32_t hash;
		int side;
		double sum;
	} wait[PENDING];
	size_t waiting_from, waiting;
};

#define TEXT_BLOCK ((size_t)1 << 20)

/* Room for len bytes of rows' text, in blocks of a megabyte or more: a
 * million rows are a few hundred allocations, not a million (freeing
 * them one by one took a tenth of showdiff report). */
static char *text_room(struct acc *a, size_t len)
{
	struct viewlib_diff_rows *o = a->out;
	if (len > a->text_left) {
		size_t size = len > TEXT_BLOCK ? len : TEXT_BLOCK;
		char **texts = realloc(o->texts, (o->ntexts + 1) * sizeof(*texts));
		if (!texts)
			return NULL;
		o->texts = texts;
		if (!(texts[o->ntexts] = malloc(size)))
			return NULL;
		a->text_at = texts[o->ntexts++];
		a->text_left = size;
	}
	char *at = a->text_at;
	a->text_at += len;
	a->text_left -= len;
	return at;
}

/* A hash of len bytes, eight at a time (traces run to hundreds). */
static uint64_t hash_bytes(uint64_t h, const char *p, size_t len)
{
	uint64_t w;
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w ^ (uint64_t)len << 56) * 0xff51afd7ed558ccdull;
	return h ^ h >> 32;
}

/* A table of at least 2 * rows slots. */
static int grow_slots(struct acc *a, size_t rows)
{
	size_t n = a->nslots ? a->nslots : 1024;
	while (n < 2 * rows)
		n *= 2;
	if (n == a->nslots)
		return 0;
	struct acc_slot *slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -1;
	/* Probes land anywhere in it: a TLB miss each on small pages. */
	perun_advise_huge_pages(slot, n * sizeof(*slot));
	for (size_t i = 0; i < a->nslots; i++) {
		if (!a->slot[i].row)
			continue;
		size_t j = a->slot[i].hash & (n - 1);
		while (slot[j].row)
			j = (j + 1) & (n - 1);
		slot[j] = a->slot[i];
	}
	free(a->slot);
	a->slot = slot;
	a->nslots = n;
	return 0;
}

/* The row of the key (trace, then uid after its NUL) whose hash is
 * hash, made when it is new. */
static long row_of(struct acc *a, const char *key, size_t trace_len, size_t key_len, uint32_t hash)
{
	struct viewlib_diff_rows *o = a->out;
	if (o->n >= UINT32_MAX - 1 || (2 * (o->n + 1) > a->nslots && grow_slots(a, o->n + 1) < 0))
		return -1;
	const char *uid = key + trace_len + 1;
	size_t j = hash & (a->nslots - 1);
	for (; a->slot[j].row; j = (j + 1) & (a->nslots - 1)) {
		if (a->slot[j].hash != hash)
			continue;
		const struct viewlib_diff_row *row = &o->rows[a->slot[j].row - 1];
		if (!strcmp(row->uid, uid) && !memcmp(row->trace, key, trace_len + 1))
			return (long)(a->slot[j].row - 1);
	}
	if (o->n == a->alloc) {
		size_t alloc = a->alloc ? a->alloc * 2 : 256;
		struct viewlib_diff_row *grown = realloc(o->rows, alloc * sizeof(*grown));
		if (!grown)
			return -1;
		perun_advise_huge_pages(grown, alloc * sizeof(*grown));
		o->rows = grown;
		a->alloc = alloc;
	}
	char *text = text_room(a, key_len);
	if (!text)
		return -1;
	memcpy(text, key, key_len);
	struct viewlib_diff_row *row = &o->rows[o->n];
	row->trace = text;
	row->uid = text + trace_len + 1;
	row->amount[0] = row->amount[1] = 0.0;
	a->slot[j] = (struct acc_slot){ hash, (uint32_t)o->n + 1 };
	return (long)o->n++;
}

/* The oldest waiting record into its row: 0, or -1 without memory. */
static int settle_oldest(struct acc *a)
{
	struct pending *w = &a->wait[a->waiting_from % PENDING];
	long r = row_of(a, w->key.buf, w->trace_len, w->key.len, w->hash);
	if (r < 0)
		return -1;
	a->out->rows[r].amount[w->side] += w->sum;
	a->waiting_from++;
	a->waiting--;
	return 0;
}

/* Every waiting record into its row. */
static int settle_all(struct acc *a)
{
	while (a->waiting)
		if (settle_oldest(a))
			return -1;
	return 0;
}

static void acc_release(struct acc *a)
{
	free(a->slot);
	for (size_t i = 0; i < PENDING; i++)
		perun_strbuf_release(&a->wait[i].key);
}

/* The record of key, waiting (its slot fetched meanwhile) behind the
 * ones before it, which keep their order: 0, or -1 without memory. */
static int add_record(struct acc *a, struct pending *w)
{
	uint64_t h = hash_bytes(0x243f6a8885a308d3ull, w->key.buf, w->key.len);
	w->hash = (uint32_t)h;
	if (a->nslots)
		__builtin_prefetch(&a->slot[w->hash & (a->nslots - 1)]);
	a->waiting++;
	return a->waiting == PENDING ? settle_oldest(a) : 0;
}

/*
 * Perun's text of a trace into sb.  Frames that are objects with a single
 * string value (kperf's {"func": ...}) are that string, and the list joins
 * them with ','; anything else goes through perun_jv_flatten_dup.
 */
/* sb's text, NUL-terminated even when empty. */
static int terminated(struct perun_strbuf *sb)
{
	if (perun_strbuf_grow(sb, 1) < 0)
		return -1;
	sb->buf[sb->len] = '\0';
	return 0;
}

static int trace_text(struct perun_strbuf *sb, const struct perun_jv *trace)
{
	size_t i;
	const struct perun_jv *frame;
	sb->len = 0;
	if (!trace)
		return terminated(sb);
	if (perun_jv_type(trace) == PERUN_JV_ARRAY) {
		int simple = 1;
		perun_jv_array_foreach(trace, i, frame)
		{
			/* frame + 2 is the value of its only member. */
			if (perun_jv_type(frame) != PERUN_JV_OBJECT || perun_jv_len(frame) != 1 ||
			    !perun_jv_is_string(frame + 2)) {
				simple = 0;
				break;
			}
		}
		if (simple) {
			perun_jv_array_foreach(trace, i, frame)
			{
				if (i)
					perun_strbuf_addch(sb, ',');
				perun_strbuf_add(sb, frame[2].u.s, perun_jv_len(frame + 2));
			}
			return terminated(sb);
		}
	}
	char *text = perun_jv_flatten_dup(trace);
	if (!text)
		return -1;
	perun_strbuf_addstr(sb, text);
	free(text);
	return terminated(sb);
}

/* Does the resource type (persistent values) or row pass the filters? */
static int keep(const struct perun_jv *persist, const struct perun_jv *cols, size_t row,
		const char *const *filters, size_t nfilters)
{
	if (!nfilters)
		return 1;
	/* Perun ORs all the filters together. */
	for (size_t f = 0; f < nfilters; f++) {
		const struct perun_jv *v = perun_jv_get(persist, filters[2 * f]);
		if (!v)
			v = perun_jv_at(perun_jv_get(cols, filters[2 * f]), row);
		if (!v)
			continue;
		if (perun_jv_is_string(v)) {
			if (!strcmp(v->u.s, filters[2 * f + 1]))
				return 1;
			continue;
		}
		char *text = perun_jv_flatten_dup(v);
		int match = text && !strcmp(text, filters[2 * f + 1]);
		free(text);
		if (match)
			return 1;
	}
	return 0;
}

struct profile_side {
	struct acc *acc;
	int side;
	const char *const *filters;
	size_t nfilters;
	struct perun_error *err;
	const struct perun_jv *last_columns; /* of the walk's last type with rows */
	int in_resources_order;		     /* the walk met the types so far */
};

static int add_type(const char *id, const struct perun_jv *persist, const struct perun_jv *cols,
		    void *data)
{
	struct profile_side *ps = data;
	const struct perun_jv *amounts = perun_jv_get(cols, "amount"), *v;
	size_t n = amounts && perun_jv_type(amounts) == PERUN_JV_ARRAY ? perun_jv_len(amounts) : 0;
	if (!n)
		return 0;
	/* Columns lie in the text's order: the types of a walk in map order
	 * come in the order of "resources" while theirs only go forward. */
	if (ps->last_columns && cols <= ps->last_columns)
		ps->in_resources_order = 0;
	ps->last_columns = cols;
	const struct perun_jv *uidv = perun_jv_get(persist, "uid");
	struct acc *a = ps->acc;
	struct pending *w = &a->wait[(a->waiting_from + a->waiting) % PENDING];
	if (trace_text(&w->key, perun_jv_get(persist, "trace")))
		return perun_error_set(ps->err, PERUN_EGENERIC, "out of memory");
	w->trace_len = w->key.len;
	perun_strbuf_addch(&w->key, '\0');
	if (perun_jv_is_string(uidv)) {
		perun_strbuf_addstr(&w->key, uidv->u.s);
	} else if (uidv) {
		char *uid = perun_jv_flatten_dup(uidv);
		if (!uid)
			return perun_error_set(ps->err, PERUN_EGENERIC, "out of memory");
		perun_strbuf_addstr(&w->key, uid);
		free(uid);
	}
	perun_strbuf_addch(&w->key, '\0');
	if (w->key.failed)
		return perun_error_set(ps->err, PERUN_EGENERIC, "out of memory");
	double sum = 0.0, x;
	size_t i;
	perun_jv_array_foreach(amounts, i, v)
	{
		if (!keep(persist, cols, i, ps->filters, ps->nfilters))
			continue;
		if (perun_jv_number(v, &x) < 0)
			return perun_error_set(ps->err, PERUN_EINVAL,
					       "resource '%s' row %zu: 'amount' is not a number",
					       id, i + 1);
		sum += x;
	}
	w->side = ps->side;
	w->sum = sum;
	if (add_record(a, w))
		return perun_error_set(ps->err, PERUN_EGENERIC, "out of memory");
	a->out->total[ps->side] += sum;
	return 0;
}

static int add_profile(struct acc *a, const struct perun_profile *p, int side,
		       const char *const *filters, size_t nfilters, struct perun_error *err)
{
	struct profile_side ps = { a, side, filters, nfilters, err, NULL, 1 };
	struct perun_type_list types;
	/* Records are met in the order of "resources", as Perun meets them:
	 * the tables keep that order among equal amounts. */
	int rc = perun_profile_types(p, &types, err);
	/* Room for every type a row of its own, as most have. */
	if (!rc && grow_slots(a, a->out->n + types.n))
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; !rc && i < types.n; i++)
		rc = add_type(types.types[i].id, types.types[i].persistent, types.types[i].columns,
			      &ps);
	perun_type_list_release(&types);
	return rc;
}

/*
 * The types of p walked in resource_type_map order (a streamed profile's
 * map is read as it is walked, never held whole): 1 when they came in
 * the order of "resources" too, as they do in the profiles Perun writes,
 * 0 when they did not (the rows are then not in Perun's order).
 */
static int walk_profile(struct acc *a, const struct perun_profile *p, int side,
			const char *const *filters, size_t nfilters, struct perun_error *err)
{
	struct profile_side ps = { a, side, filters, nfilters, err, NULL, 1 };
	int rc = perun_profile_foreach_type(p, add_type, &ps, err);
	return rc ? rc : ps.in_resources_order;
}

int viewlib_diff_rows_build(const struct perun_profile *baseline,
			    const struct perun_profile *target, const char *const *filters,
			    size_t nfilters, struct viewlib_diff_rows *out, struct perun_error *err)
{
	struct acc a = { .out = out };
	int rc;
	memset(out, 0, sizeof(*out));
	rc = walk_profile(&a, baseline, 0, filters, nfilters, err);
	if (rc == 1)
		rc = walk_profile(&a, target, 1, filters, nfilters, err);
	if (rc == 0) {
		/* Another order: again, in the order of "resources" (a
		 * streamed profile is then read whole). */
		viewlib_diff_rows_free(out);
		acc_release(&a);
		a = (struct acc){ .out = out };
		rc = add_profile(&a, baseline, 0, filters, nfilters, err);
		if (!rc)
			rc = add_profile(&a, target, 1, filters, nfilters, err);
	} else if (rc == 1) {
		rc = 0;
	}
	if (!rc && settle_all(&a))
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	acc_release(&a);
	if (rc)
		viewlib_diff_rows_free(out);
	return rc;
}

int viewlib_diff_rows_of_view(const struct perun_view_ctx *ctx, const char *filter_option,
			      struct viewlib_diff_rows *out, struct perun_error *err)
{
	if (!PERUN_ABI_HAS(ctx, struct perun_view_ctx, baseline_label) || !ctx->baseline)
		return perun_error_set(
			err, PERUN_EINVAL,
			"compares two profiles: use 'perun showdiff <baseline> <target>'");
	json_t *pairs = filter_option
				? json_object_get(perun_params_json(ctx->params), filter_option)
				: NULL;
	size_t n = json_array_size(pairs);
	const char **filters = calloc(2 * n + 1, sizeof(char *));
	if (!filters)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < n; i++) {
		filters[2 * i] = json_string_value(json_array_get(json_array_get(pairs, i), 0));
		filters[2 * i + 1] = json_string_value(json_array_get(json_array_get(pairs, i), 1));
	}
	int rc = viewlib_diff_rows_build(ctx->baseline, ctx->profile, filters, n, out, err);
	free(filters);
	return rc;
}

void viewlib_diff_rows_free(struct viewlib_diff_rows *r)
{
	for (size_t i = 0; i < r->ntexts; i++)
		free(r->texts[i]);
	free(r->texts);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
