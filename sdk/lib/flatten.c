/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Python Perun's flattening of nested values into one level: the text of a
 * value (convert.flatten, then str()) and the (key, value) items of a record
 * (query.all_items_of).  Kept exactly as Python does it, quirks included,
 * because resource-type ids and table columns must agree with Python Perun.
 *
 * The rules, for a key k and its value v:
 *   scalar               (k, v)
 *   dict                 (k:sub, x) for every item of v, recursively, then,
 *                        when k is a name and not a list index, (k, the
 *                        values of those items joined by ':' in uid order)
 *   [{name, value}, ...] as the dict {name: value, ...}
 *   other list           (k, the elements joined by ','), each element the
 *                        values of its items (under its index) joined by ':'
 * Values are joined by their str(): True, None, nan, 1.5, 1e-05.
 *
 * Layer 4 of libperun, the flattening of values: it uses the reader
 * (perun_jv_to_json), the core (perun_json_number) and the writer
 * (json_python.h, Python's text of floats); the flattened form above uses
 * it for type ids.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/profile.h>

#include "json_python.h"

struct item {
	char *key;
	json_t *value; /* a reference we own */
};

struct items {
	struct item *v;
	size_t n, alloc;
	int failed; /* an allocation failed: items are missing */
};

/* Take ownership of key and value; NULL for either is a failed allocation. */
static void items_push(struct items *it, char *key, json_t *value)
{
	if (!it->failed && key && value && it->n == it->alloc) {
		size_t alloc = it->alloc ? 2 * it->alloc : 8;
		struct item *v = realloc(it->v, alloc * sizeof(*v));
		if (v) {
			it->v = v;
			it->alloc = alloc;
		}
	}
	if (it->failed || !key || !value || it->n == it->alloc) {
		it->failed = 1;
		free(key);
		json_decref(value);
		return;
	}
	it->v[it->n++] = (struct item){ key, value };
}

static void items_release(struct items *it)
{
	for (size_t i = 0; i < it->n; i++) {
		free(it->v[i].key);
		json_decref(it->v[i].value);
	}
	free(it->v);
	*it = (struct items){ 0 };
}

/* str() of a scalar; the NaN/Infinity markers are Python floats. */
static void add_str(struct perun_strbuf *sb, const json_t *value)
{
	char num[40];
	double d;
	switch (json_typeof(value)) {
	case JSON_STRING:
		if (perun_json_number(value, &d) == 0)
			perun_strbuf_addstr(sb, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
		else
			perun_strbuf_add(sb, json_string_value(value), json_string_length(value));
		break;
	case JSON_INTEGER: {
		/* Not printf: tables write millions of these. */
		json_int_t v = json_integer_value(value);
		unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
		char *end = num + sizeof(num), *p = end;
		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (v < 0)
			*--p = '-';
		perun_strbuf_add(sb, p, (size_t)(end - p));
		break;
	}
	case JSON_REAL:
		json_python_format_double(json_real_value(value), num);
		perun_strbuf_addstr(sb, num);
		break;
	case JSON_TRUE: perun_strbuf_addstr(sb, "True"); break;
	case JSON_FALSE: perun_strbuf_addstr(sb, "False"); break;
	case JSON_NULL: perun_strbuf_addstr(sb, "None"); break;
	default:
		/* Items never hold containers; they were flattened. */
		sb->failed = 1;
	}
}

/*
 * common_kit.uid_getter: known parts of a uid by rank 0..6; any other key
 * ranks by the integer written by the decimal numbers (code point + 6) of
 * its characters, which is always above 6.  Python fails on an empty key;
 * here it sorts first among the unknown ones.
 */
struct uid_key {
	int rank;     /* 0..6 for known parts, 7 for others */
	char *digits; /* the integer of an unknown part, in decimal */
	size_t len;   /* its length */
	size_t pos;   /* position among the items, for a stable sort */
};

static int uid_rank(const char *key)
{
	static const char *const ranks[][4] = {
		{ "bin" },
		{ "file", "source", "package" },
		{ "module" },
		{ "class", "struct", "structure" },
		{ "function", "func", "method", "procedure" },
		{ "line" },
		{ "instruction" },
	};
	for (int r = 0; r < 7; r++)
		for (int k = 0; k < 4 && ranks[r][k]; k++)
			if (!strcmp(ranks[r][k], key))
				return r;
	return 7;
}

static char *uid_digits(const char *key, size_t *len)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	const unsigned char *s = (const unsigned char *)key;
	while (*s) {
		/* Jansson keys are valid UTF-8: decode one code point. */
		unsigned long cp = *s++;
		int extra = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;
		if (extra)
			cp &= 0x3fu >> extra;
		for (; extra && (*s & 0xc0) == 0x80; extra--, s++)
			cp = (cp << 6) | (*s & 0x3f);
		perun_strbuf_addf(&sb, "%lu", cp + 6);
	}
	return perun_strbuf_detach(&sb, len);
}

static int uid_key_cmp(const void *pa, const void *pb)
{
	const struct uid_key *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	if (a->rank == 7 && a->len != b->len)
		return a->len < b->len ? -1 : 1; /* no leading zeros: shorter is less */
	if (a->rank == 7) {
		int c = strcmp(a->digits, b->digits);
		if (c)
			return c;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The values of items joined by ':', in uid order when sorted. */
static void add_joined(struct perun_strbuf *sb, const struct items *it, int sorted)
{
	struct uid_key *keys = NULL;
	if (it->failed) {
		sb->failed = 1;
		return;
	}
	if (sorted && it->n > 1) {
		keys = calloc(it->n, sizeof(*keys));
		if (!keys) {
			sb->failed = 1;
			return;
		}
		for (size_t i = 0; i < it->n; i++) {
			keys[i].rank = uid_rank(it->v[i].key);
			keys[i].pos = i;
			if (keys[i].rank == 7 &&
			    !(keys[i].digits = uid_digits(it->v[i].key, &keys[i].len)))
				sb->failed = 1;
		}
		if (!sb->failed)
			qsort(keys, it->n, sizeof(*keys), uid_key_cmp);
	}
	for (size_t i = 0; !sb->failed && i < it->n; i++) {
		if (i)
			perun_strbuf_addch(sb, ':');
		add_str(sb, it->v[keys ? keys[i].pos : i].value);
	}
	for (size_t i = 0; keys && i < it->n; i++)
		free(keys[i].digits);
	free(keys);
}

static json_t *detach_json(struct perun_strbuf *sb)
{
	size_t len;
	char *s = perun_strbuf_detach(sb, &len);
	json_t *v = s ? json_stringn(s, len) : NULL;
	free(s);
	return v;
}

static void flattened_values(const char *key, int named, const json_t *value, struct items *out);

static void all_items_of(const json_t *object, struct items *out)
{
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)object, key, value) flattened_values(key, 1, value, out);
}

/* common_kit.is_variable_len_dict: a non-empty list of {name, value}, e.g.
 * model coefficients; as that dict, or NULL.  Python fails on names that are
 * not strings (they cannot be joined into keys); here the list stays a list. */
static json_t *variable_len_dict(const json_t *list, int *failed)
{
	size_t i;
	json_t *entry;
	if (!json_array_size(list))
		return NULL;
	json_array_foreach((json_t *)list, i, entry)
	{
		if (json_object_size(entry) != 2 ||
		    !json_is_string(json_object_get(entry, "name")) ||
		    !json_object_get(entry, "value"))
			return NULL;
	}
	/* Later names win but keep the first one's place, as in a dict. */
	json_t *dict = json_object();
	json_array_foreach((json_t *)list, i, entry)
	{
		if (!dict ||
		    json_object_set(dict, json_string_value(json_object_get(entry, "name")),
				    json_object_get(entry, "value"))) {
			json_decref(dict);
			*failed = 1;
			return NULL;
		}
	}
	return dict;
}

/* convert.flatten of a list: elements by ',', each element's values by ':'. */
static void add_list_text(struct perun_strbuf *sb, const json_t *list)
{
	size_t i;
	json_t *element;
	json_array_foreach((json_t *)list, i, element)
	{
		char index[24];
		struct items sub = { 0 };
		snprintf(index, sizeof(index), "%zu", i);
		flattened_values(index, 0, element, &sub);
		if (i)
			perun_strbuf_addch(sb, ',');
		add_joined(sb, &sub, 0);
		items_release(&sub);
	}
}

static void flatten_dict(const char *key, int named, const json_t *dict, struct items *out)
{
	struct items nested = { 0 };
	all_items_of(dict, &nested);
	for (size_t i = 0; !nested.failed && i < nested.n; i++) {
		struct perun_strbuf sub = PERUN_STRBUF_INIT;
		perun_strbuf_addf(&sub, "%s:%s", key, nested.v[i].key);
		items_push(out, perun_strbuf_detach(&sub, NULL), json_incref(nested.v[i].value));
	}
	if (named && !nested.failed) {
		struct perun_strbuf joined = PERUN_STRBUF_INIT;
		add_joined(&joined, &nested, 1);
		items_push(out, strdup(key), detach_json(&joined));
	}
	if (nested.failed)
		out->failed = 1;
	items_release(&nested);
}

/* query.flattened_values: named is 0 when key is a list index. */
static void flattened_values(const char *key, int named, const json_t *value, struct items *out)
{
	if (json_is_object(value)) {
		flatten_dict(key, named, value, out);
	} else if (json_is_array(value)) {
		json_t *dict = variable_len_dict(value, &out->failed);
		if (dict) {
			flatten_dict(key, named, dict, out);
			json_decref(dict);
			return;
		}
		struct perun_strbuf sb = PERUN_STRBUF_INIT;
		add_list_text(&sb, value);
		items_push(out, strdup(key), detach_json(&sb));
	} else {
		items_push(out, strdup(key), json_incref((json_t *)value));
	}
}

void perun_value_flatten_add(struct perun_strbuf *sb, const json_t *value)
{
	if (json_is_object(value)) {
		struct items items = { 0 };
		all_items_of(value, &items);
		add_joined(sb, &items, 1);
		items_release(&items);
	} else if (json_is_array(value)) {
		/* Unlike a nested one, a top-level list is never read as a dict. */
		add_list_text(sb, value);
	} else if (value) {
		add_str(sb, value);
	}
}

char *perun_value_flatten_dup(const json_t *value)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_value_flatten_add(&sb, value);
	return perun_strbuf_detach(&sb, NULL);
}

char *perun_jv_flatten_dup(const struct perun_jv *value)
{
	/* A string is its own text, the common uid: no tree for it. */
	if (perun_jv_is_string(value))
		return strdup(perun_jv_string(value));
	json_t *tree = perun_jv_to_json(value);
	char *text = tree ? perun_value_flatten_dup(tree) : NULL;
	json_decref(tree);
	return text;
}

int perun_items_of(const json_t *record, perun_item_fn fn, void *data, struct perun_error *err)
{
	const char *key;
	json_t *value;
	if (!json_is_object(record))
		return perun_error_set(err, PERUN_EINVAL, "cannot flatten: not an object");
	json_object_foreach((json_t *)record, key, value)
	{
		/* A scalar is its own item: no copies (rows are mostly scalars). */
		if (!json_is_object(value) && !json_is_array(value)) {
			int rc = fn(key, value, data);
			if (rc)
				return rc;
			continue;
		}
		struct items items = { 0 };
		flattened_values(key, 1, value, &items);
		int rc = items.failed ? perun_error_set(err, PERUN_EGENERIC, "out of memory") : 0;
		for (size_t i = 0; !rc && i < items.n; i++)
			rc = fn(items.v[i].key, items.v[i].value, data);
		items_release(&items);
		if (rc)
			return rc;
	}
	return 0;
}
