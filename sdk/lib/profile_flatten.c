/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resources in the flattened form: rows are split into persistent keys,
 * which name a resource type "<uid>#<n>", and collectable keys, which become
 * parallel columns.  Python Perun's rules, kept exactly so that type ids
 * agree.
 *
 * Layer 5 of libperun, the flattened form: it uses the core
 * (profile_core.h), the writer (json_python.h, for the canonical text of
 * persistent keys) and the flattening of values (flatten.c, through the
 * public API); the whole form (profile.c) uses it for legacy profiles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/profile.h>

#include "json_python.h"
#include "profile_core.h"
#include "profile_flatten.h"

int perun_profile_key_is_collectable(const char *key)
{
	/* Called for every key of every added row: pick the candidates by
	 * the first letter. */
	switch (key[0]) {
	case 'a': return !strcmp(key, "amount") || !strcmp(key, "address");
	case 'c': return !strcmp(key, "call-order");
	case 'e': return !strcmp(key, "exclusive");
	case 'm':
		return !strncmp(key, "metric.", 7) &&
		       (!strcmp(key + 7, "iteration") || !strcmp(key + 7, "value") ||
			!strcmp(key + 7, "score-value") || !strcmp(key + 7, "percentile"));
	case 'o': return !strcmp(key, "order");
	case 's': return !strcmp(key, "structure-unit-size");
	case 't': return !strcmp(key, "timestamp");
	default: return 0;
	}
}

struct pair {
	const char *key;
	json_t *value;
};

static int pair_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pair *)a)->key, ((const struct pair *)b)->key);
}

/*
 * The persistent pairs of a resource: its keys that are not collectable,
 * then those of extra (which may be NULL, and wins on a clash), sorted by
 * key.  With collectable 0 every key of resource counts.  Returns a
 * malloc'd array of *n pairs borrowing resource's and extra's keys and
 * values, or NULL without memory.
 */
static struct pair *persistent_pairs(const json_t *resource, const json_t *extra, int collectable,
				     size_t *n)
{
	size_t cap = json_object_size(resource) + json_object_size(extra), k = 0;
	struct pair *v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return NULL;
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key,
			    value) if (!collectable || !perun_profile_key_is_collectable(key))
		v[k++] = (struct pair){ key, value };
	json_object_foreach((json_t *)extra, key, value)
	{
		size_t i = 0;
		while (i < k && strcmp(v[i].key, key))
			i++;
		v[i] = (struct pair){ key, value };
		k += i == k;
	}
	/* Rows have a handful of persistent keys: insertion sort. */
	if (k > 16) {
		qsort(v, k, sizeof(*v), pair_cmp);
	} else {
		for (size_t i = 1; i < k; i++) {
			struct pair x = v[i];
			size_t j = i;
			for (; j > 0 && strcmp(v[j - 1].key, x.key) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
	*n = k;
	return v;
}

/* A canonical text for a set of persistent pairs sorted by key, in sb
 * (emptied first); 0, or -1 without memory. */
static int tuple_key(struct perun_strbuf *sb, const struct pair *v, size_t n)
{
	sb->len = 0;
	sb->failed = 0;
	/* Nested values keep their key order, as Python's tuples do. */
	for (size_t i = 0; i < n; i++) {
		perun_strbuf_addstr(sb, v[i].key);
		perun_strbuf_addch(sb, '\x1f');
		json_python_dump(v[i].value, -1, sb);
		perun_strbuf_addch(sb, '\x1e');
	}
	return perun_strbuf_grow(sb, 0);
}

/* Index the resource types of root, the profile's tree, once; 0, or -1
 * without memory. */
static int build_index(struct perun_profile *p, json_t *root)
{
	if (p->tuple_index)
		return 0;
	p->tuple_index = json_object();
	p->uid_counter = json_object();
	if (!p->tuple_index || !p->uid_counter) {
		json_decref(p->tuple_index);
		json_decref(p->uid_counter);
		p->tuple_index = p->uid_counter = NULL;
		return -1;
	}
	const char *type_id;
	json_t *persistent;
	json_object_foreach(json_object_get(root, "resource_type_map"), type_id, persistent)
	{
		size_t n;
		struct pair *pairs = persistent_pairs(persistent, NULL, 0, &n);
		/* Without memory the type is not indexed, so it is not reused. */
		if (pairs && !tuple_key(&p->tuple, pairs, n))
			json_object_set_new(p->tuple_index, p->tuple.buf, json_string(type_id));
		free(pairs);
		const char *hash = strrchr(type_id, '#');
		if (!hash)
			continue;
		char *uid = strndup(type_id, (size_t)(hash - type_id));
		if (!uid)
			return -1;
		long long next = atoll(hash + 1) + 1;
		json_t *cur = json_object_get(p->uid_counter, uid);
		if (!cur || json_integer_value(cur) < next)
			json_object_set_new(p->uid_counter, uid, json_integer(next));
		free(uid);
	}
	return 0;
}

/* A new resource type for the persistent pairs: its id "<uid>#<n>" (the
 * caller frees it), its entry in resource_type_map and its (empty) columns,
 * one for every collectable key of resource. */
static char *new_type(struct perun_profile *p, json_t *root, const json_t *uid,
		      const json_t *resource, const struct pair *pairs, size_t n, const char *tuple)
{
	char *flat_uid = perun_value_flatten_dup(uid);
	if (!flat_uid)
		return NULL;
	json_int_t next = json_integer_value(json_object_get(p->uid_counter, flat_uid));
	size_t len = strlen(flat_uid) + 32;
	char *id = malloc(len);
	if (!id) {
		free(flat_uid);
		return NULL;
	}
	snprintf(id, len, "%s#%" JSON_INTEGER_FORMAT, flat_uid, next);
	int failed = json_object_set_new(p->uid_counter, flat_uid, json_integer(next + 1));
	free(flat_uid);
	/* Python keeps the persistent pairs sorted by key. */
	json_t *sorted = json_object();
	json_t *columns = json_object();
	failed |= !sorted || !columns;
	for (size_t i = 0; i < n && !failed; i++)
		failed |= json_object_set(sorted, pairs[i].key, pairs[i].value);
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key,
			    value) if (!failed && perun_profile_key_is_collectable(key)) failed |=
		json_object_set_new(columns, key, json_array());
	/* The type is indexed last, once it is whole. */
	if (failed ||
	    json_object_set_new(json_object_get(root, "resource_type_map"), id,
				json_incref(sorted)) ||
	    json_object_set_new(json_object_get(root, "resources"), id, json_incref(columns)) ||
	    json_object_set_new(p->tuple_index, tuple, json_string(id))) {
		json_decref(sorted);
		json_decref(columns);
		free(id);
		return NULL;
	}
	json_decref(sorted);
	json_decref(columns);
	return id;
}

static int add_row(struct perun_profile *p, const json_t *resource, json_t *extra, const char *name,
		   struct perun_error *err)
{
	json_t *uid = json_object_get(resource, "uid");
	if (!uid)
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': resource without 'uid'",
				       name);
	json_t *root = profile_tree(p);
	if (!root || build_index(p, root))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t n;
	struct pair *pairs = persistent_pairs(resource, extra, 1, &n);
	int tuple = pairs && !tuple_key(&p->tuple, pairs, n);
	const char *type_id = tuple ? json_string_value(json_object_getn(
					      p->tuple_index, p->tuple.buf, p->tuple.len))
				    : NULL;
	char *new_id = NULL;
	if (tuple && !type_id)
		type_id = new_id = new_type(p, root, uid, resource, pairs, n, p->tuple.buf);
	free(pairs);
	if (!type_id)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_t *columns = json_object_get(json_object_get(root, "resources"), type_id);
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key, value)
	{
		if (!perun_profile_key_is_collectable(key))
			continue;
		json_t *list = json_object_get(columns, key);
		if (!list && json_object_set_new(columns, key, list = json_array()))
			list = NULL;
		if (!list || json_array_append(list, value)) {
			free(new_id);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
	}
	free(new_id);
	return 0;
}

int profile_translate_legacy(struct perun_profile *p, json_t *list, json_t *extra, long snapshot,
			     const char *name, struct perun_error *err)
{
	size_t i;
	json_t *resource;
	json_array_foreach(list, i, resource)
	{
		if (!json_is_object(resource)) {
			if (snapshot >= 0)
				return perun_error_set(err, PERUN_EINVAL,
						       "profile '%s': snapshot %ld: resource %zu "
						       "is not an object",
						       name, snapshot, i);
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource %zu is not an object", name,
					       i);
		}
		int rc = add_row(p, resource, extra, name, err);
		if (rc)
			return rc;
	}
	return 0;
}

int perun_profile_add_resource(struct perun_profile *p, const json_t *resource,
			       struct perun_error *err)
{
	if (!json_is_object(resource))
		return perun_error_set(err, PERUN_EINVAL, "resource is not an object");
	return add_row(p, resource, NULL, "new", err);
}

/* ---- resource types given by columns --------------------------------------- */

static int check_column_types(const struct perun_column_type *types, size_t ntypes,
			      struct perun_error *err)
{
	for (size_t t = 0; t < ntypes; t++) {
		const struct perun_column_type *ty = &types[t];
		if (!json_is_object(ty->persistent) || !json_object_get(ty->persistent, "uid"))
			return perun_error_set(err, PERUN_EINVAL,
					       "resource type %zu: persistent part without 'uid'",
					       t);
		for (size_t c = 0; c < ty->ncolumns; c++) {
			const struct perun_column *col = &ty->columns[c];
			if (!col->key || !perun_profile_key_is_collectable(col->key))
				return perun_error_set(err, PERUN_EINVAL,
						       "resource type %zu: column '%s' is not a "
						       "collectable key",
						       t, col->key ? col->key : "(null)");
			if (col->kind != PERUN_COLUMN_REAL && col->kind != PERUN_COLUMN_INTEGER)
				return perun_error_set(err, PERUN_EINVAL,
						       "resource type %zu: column '%s' of unknown "
						       "kind %d",
						       t, col->key, (int)col->kind);
			if (ty->rows && !col->values)
				return perun_error_set(
					err, PERUN_EINVAL,
					"resource type %zu: column '%s' without values", t,
					col->key);
			for (size_t d = 0; d < c; d++)
				if (!strcmp(ty->columns[d].key, col->key))
					return perun_error_set(err, PERUN_EINVAL,
							       "resource type %zu: column '%s' "
							       "given twice",
							       t, col->key);
		}
	}
	return 0;
}

/* Value row of col as jansson has it (a non-finite real as its marker). */
static json_t *column_value(const struct perun_column *col, size_t row)
{
	struct perun_jv node = { PERUN_JV_INTEGER, 1, { 0 } };
	if (col->kind == PERUN_COLUMN_REAL) {
		node.tag = PERUN_JV_REAL;
		node.u.d = ((const double *)col->values)[row];
	} else {
		node.u.i = ((const int64_t *)col->values)[row];
	}
	return perun_jv_to_json(&node);
}

/* The general way: every row added as perun_profile_add_resource adds it. */
static int add_columns_by_rows(struct perun_profile *p, const struct perun_column_type *types,
			       size_t ntypes, struct perun_error *err)
{
	for (size_t t = 0; t < ntypes; t++) {
		const struct perun_column_type *ty = &types[t];
		json_t *row = json_copy((json_t *)ty->persistent);
		int rc = row ? 0 : perun_error_set(err, PERUN_EGENERIC, "out of memory");
		for (size_t r = 0; r < ty->rows && !rc; r++) {
			for (size_t c = 0; c < ty->ncolumns && !rc; c++)
				if (json_object_set_new(row, ty->columns[c].key,
							column_value(&ty->columns[c], r)))
					rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			if (!rc)
				rc = add_row(p, row, NULL, "new", err);
		}
		json_decref(row);
		if (rc)
			return rc;
	}
	return 0;
}

#define NOT_FRESH 1

/* Can types go straight into the compact form of p?  p has no resources
 * and is a tree; every type has rows, columns and a persistent part of its
 * own, none of it collectable.  0 yes, NOT_FRESH no, -1 without memory. */
static int fresh_for_columns(struct perun_profile *p, const struct perun_column_type *types,
			     size_t ntypes)
{
	if (p->form || p->text || ntypes > PERUN_JV_MAX_LEN ||
	    json_object_size(json_object_get(p->root, "resources")) ||
	    json_object_size(json_object_get(p->root, "resource_type_map")))
		return NOT_FRESH;
	json_t *seen = json_object();
	int rc = seen ? 0 : -1;
	for (size_t t = 0; t < ntypes && !rc; t++) {
		const struct perun_column_type *ty = &types[t];
		if (!ty->rows || !ty->ncolumns || ty->rows > PERUN_JV_MAX_LEN) {
			rc = NOT_FRESH;
			break;
		}
		const char *key;
		json_t *value;
		json_object_foreach((json_t *)ty->persistent, key,
				    value) if (perun_profile_key_is_collectable(key)) rc =
			NOT_FRESH;
		size_t n;
		struct pair *pairs = rc ? NULL : persistent_pairs(ty->persistent, NULL, 0, &n);
		if (!rc && (!pairs || tuple_key(&p->tuple, pairs, n)))
			rc = -1;
		else if (!rc && json_object_getn(seen, p->tuple.buf, p->tuple.len))
			rc = NOT_FRESH;
		else if (!rc && json_object_setn_new(seen, p->tuple.buf, p->tuple.len, json_true()))
			rc = -1;
		free(pairs);
	}
	json_decref(seen);
	return rc;
}

/* The id "<uid>#<n>" of a new type into arena (its offset in *at), the
 * counters of flattened uids in counters.  0, or -1 without memory. */
static int column_type_id(const json_t *persistent, json_t *counters, struct perun_strbuf *arena,
			  size_t *at)
{
	char *flat_uid = perun_value_flatten_dup(json_object_get(persistent, "uid"));
	if (!flat_uid)
		return -1;
	json_int_t next = json_integer_value(json_object_get(counters, flat_uid));
	int rc = json_object_set_new(counters, flat_uid, json_integer(next + 1));
	*at = arena->len;
	perun_strbuf_addf(arena, "%s#%" JSON_INTEGER_FORMAT, flat_uid, next);
	perun_strbuf_addch(arena, '\0');
	free(flat_uid);
	return rc || arena->failed ? -1 : 0;
}

/* A string node whose text is at offset at of the arena (relocated later). */
static struct perun_jv arena_string(const struct perun_strbuf *arena, size_t at)
{
	return (struct perun_jv){ PERUN_JV_STRING | (uint32_t)strlen(arena->buf + at) << 3,
				  1,
				  { .i = (int64_t)at } };
}

/* Type k's key and persistent part, sorted by key as Python keeps it, onto
 * t; its id's offset into ids[k]. */
static int map_member(struct json_tape *t, struct perun_strbuf *arena, json_t *counters,
		      const json_t *persistent, size_t *id)
{
	size_t n;
	struct pair *pairs = persistent_pairs(persistent, NULL, 0, &n);
	long long at = -1;
	int rc = !pairs || column_type_id(persistent, counters, arena, id) ||
		 json_tape_push(t, arena_string(arena, *id)) < 0 ||
		 (at = json_tape_push(t, (struct perun_jv){ 0 })) < 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t key = arena->len;
		perun_strbuf_add(arena, pairs[i].key, strlen(pairs[i].key) + 1);
		rc = arena->failed || json_tape_push(t, arena_string(arena, key)) < 0 ||
		     profile_tape_add_json(t, pairs[i].value, arena);
	}
	if (!rc)
		t->nodes[at] = (struct perun_jv){ PERUN_JV_OBJECT | (uint32_t)n << 3,
						  (uint32_t)(t->n - (size_t)at),
						  { 0 } };
	free(pairs);
	return rc ? -1 : 0;
}

/*
 * Resource types given by columns, for a profile fresh_for_columns took:
 * resource_type_map already a tape, the resources still the columns until
 * a reader needs them as the tape (columns_settle), or the dump writes them
 * straight from the columns (perun_profile_dump).  Taken columns
 * (perun_profile_take_columns) stay so in the profile, in the form below.
 */
struct columns_of_types {
	struct perun_column_type *types; /* copies, their columns in columns */
	struct perun_column *columns;
	size_t ntypes, ncolumns;
	int owned;	       /* the values are freed with these */
	char *text;	       /* the ids, persistent strings and column keys */
	struct json_tape map;  /* resource_type_map, its strings in text */
	const char **ids;      /* each type's id, in text */
	size_t resource_nodes; /* of the resources as a tape */
};

static void columns_release(struct columns_of_types *ct)
{
	if (!ct)
		return;
	for (size_t t = 0; t < ct->ntypes; t++)
		json_decref((json_t *)ct->types[t].persistent);
	for (size_t c = 0; ct->owned && c < ct->ncolumns; c++)
		free((void *)ct->columns[c].values);
	free(ct->types);
	free(ct->columns);
	free(ct->text);
	json_tape_release(&ct->map);
	free(ct->ids);
	free(ct);
}

/* types as columns_of_types: the map's tape, and the text of every string
 * the resources' tape will need.  NULL without memory. */
static struct columns_of_types *columns_prepare(const struct perun_column_type *types,
						size_t ntypes)
{
	struct columns_of_types *ct = calloc(1, sizeof(*ct));
	struct perun_strbuf arena = PERUN_STRBUF_INIT;
	json_t *counters = json_object(), *keys_at = json_object();
	size_t *ids = calloc(ntypes + 1, sizeof(*ids)), *keys = NULL, ncolumns = 0;
	for (size_t k = 0; k < ntypes; k++)
		ncolumns += types[k].ncolumns;
	int rc = ct && counters && keys_at && ids && (keys = calloc(ncolumns + 1, sizeof(*keys))) &&
				 (ct->types = calloc(ntypes, sizeof(*ct->types))) &&
				 (ct->columns = calloc(ncolumns + 1, sizeof(*ct->columns))) &&
				 (ct->ids = calloc(ntypes, sizeof(*ct->ids))) &&
				 json_tape_push(&ct->map, (struct perun_jv){ 0 }) >= 0
			 ? 0
			 : -1;
	size_t resource_nodes = 1, column = 0;
	for (size_t k = 0; k < ntypes && !rc; k++) {
		const struct perun_column_type *ty = &types[k];
		rc = map_member(&ct->map, &arena, counters, ty->persistent, &ids[k]);
		ct->types[k] = *ty;
		ct->types[k].persistent = json_incref((json_t *)ty->persistent);
		ct->types[k].columns = ct->columns + column;
		ct->ntypes = k + 1;
		resource_nodes += 2 + ty->ncolumns * (2 + ty->rows);
		/* Column keys once in the text, however many types. */
		for (size_t c = 0; c < ty->ncolumns && !rc; c++, column++) {
			const char *key = ty->columns[c].key;
			json_t *at = json_object_get(keys_at, key);
			if (!at) {
				at = json_integer((json_int_t)arena.len);
				perun_strbuf_add(&arena, key, strlen(key) + 1);
				rc = arena.failed || json_object_set_new(keys_at, key, at);
			}
			keys[column] = (size_t)json_integer_value(at);
			ct->columns[column] = ty->columns[c];
		}
	}
	ct->ncolumns = column;
	if (!rc && ct->map.n + resource_nodes > (size_t)UINT32_MAX)
		rc = -1;
	if (!rc && !(ct->text = perun_strbuf_detach(&arena, NULL)))
		rc = -1;
	if (!rc) {
		ct->map.nodes[0] = (struct perun_jv){ PERUN_JV_OBJECT | (uint32_t)ntypes << 3,
						      (uint32_t)ct->map.n,
						      { 0 } };
		profile_tape_relocate(ct->map.nodes, ct->map.n, ct->text);
		for (size_t k = 0; k < ntypes; k++)
			ct->ids[k] = ct->text + ids[k];
		/* The columns' keys are the text's from now on. */
		for (size_t c = 0; c < ct->ncolumns; c++)
			ct->columns[c].key = ct->text + keys[c];
		ct->resource_nodes = resource_nodes;
	}
	json_decref(counters);
	json_decref(keys_at);
	free(ids);
	free(keys);
	perun_strbuf_release(&arena);
	if (rc) {
		columns_release(ct);
		return NULL;
	}
	return ct;
}

static struct perun_jv text_string(const char *s)
{
	return (struct perun_jv){ PERUN_JV_STRING | (uint32_t)strlen(s) << 3, 1, { .s = s } };
}

/* Type ty's columns, its id id, from node on. */
static struct perun_jv *resources_member(struct perun_jv *node, const struct perun_column_type *ty,
					 const char *id)
{
	*node++ = text_string(id);
	*node++ = (struct perun_jv){ PERUN_JV_OBJECT | (uint32_t)ty->ncolumns << 3,
				     (uint32_t)(1 + ty->ncolumns * (2 + ty->rows)),
				     { 0 } };
	for (size_t c = 0; c < ty->ncolumns; c++) {
		const struct perun_column *col = &ty->columns[c];
		*node++ = text_string(col->key);
		*node++ = (struct perun_jv){ PERUN_JV_ARRAY | (uint32_t)ty->rows << 3,
					     (uint32_t)(1 + ty->rows),
					     { 0 } };
		if (col->kind == PERUN_COLUMN_REAL) {
			const double *v = col->values;
			for (size_t r = 0; r < ty->rows; r++)
				*node++ = (struct perun_jv){ PERUN_JV_REAL, 1, { .d = v[r] } };
		} else {
			const int64_t *v = col->values;
			for (size_t r = 0; r < ty->rows; r++)
				*node++ = (struct perun_jv){ PERUN_JV_INTEGER, 1, { .i = v[r] } };
		}
	}
	return node;
}

/*
 * ct made p's compact form, as a loaded profile has it: one tape of
 * resource_type_map and then resources, their strings in ct's text, which
 * becomes p's; ct is freed.  0, or -1 without memory (ct then kept).
 */
static int columns_settle(struct perun_profile *p, struct columns_of_types *ct)
{
	size_t map_nodes = ct->map.n;
	if (json_tape_grow(&ct->map, map_nodes + ct->resource_nodes))
		return -1;
	struct json_tape t = ct->map;
	struct perun_jv *node = t.nodes + map_nodes;
	*node++ = (struct perun_jv){ PERUN_JV_OBJECT | (uint32_t)ct->ntypes << 3,
				     (uint32_t)ct->resource_nodes,
				     { 0 } };
	for (size_t k = 0; k < ct->ntypes; k++)
		node = resources_member(node, &ct->types[k], ct->ids[k]);
	t.n = map_nodes + ct->resource_nodes;
	/* The index of the tree's types, if any, is rebuilt from these. */
	json_decref(p->tuple_index);
	json_decref(p->uid_counter);
	p->tuple_index = p->uid_counter = NULL;
	p->text = ct->text;
	p->tape = t;
	p->types = 0;
	p->resources = (uint32_t)map_nodes;
	p->same_order = 1;
	ct->text = NULL;
	memset(&ct->map, 0, sizeof(ct->map));
	columns_release(ct);
	return 0;
}

/* ---- the form of taken columns ------------------------------------------- */

static const struct profile_form taken_form;

/* p, holding taken columns, made the compact form (p->form then NULL). */
static int taken_settle(struct perun_profile *p, struct perun_error *err)
{
	if (p->form != &taken_form)
		return 0;
	if (columns_settle(p, p->taken))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	p->taken = NULL;
	p->form = NULL;
	return 0;
}

/* Read whole by being made so: a const profile's columns become the
 * tape it would have had, which every reader takes. */
static int taken_load_copy(const struct perun_profile *p, struct perun_profile **out,
			   struct perun_error *err)
{
	*out = NULL;
	return taken_settle((struct perun_profile *)p, err);
}

static void taken_release(struct perun_profile *p)
{
	columns_release(p->taken);
	p->taken = NULL;
}

static const struct profile_form taken_form = {
	.load_copy = taken_load_copy,
	.load_whole = taken_settle,
	.settle = taken_settle,
	.release = taken_release,
};

/* The taken columns' resources, one type at a time, for the dump. */
static int emit_taken_resources(void *data, struct json_python_emitter *e)
{
	const struct columns_of_types *ct = data;
	for (size_t k = 0; k < ct->ntypes; k++) {
		const struct perun_column_type *ty = &ct->types[k];
		json_python_emit_columns(e, ct->ids[k], strlen(ct->ids[k]), ty->columns,
					 ty->ncolumns, ty->rows);
	}
	return 0;
}

int profile_taken_member(const struct perun_profile *p, const char *key,
			 struct json_python_member *m)
{
	if (p->form != &taken_form)
		return 0;
	if (!strcmp(key, "resource_type_map"))
		*m =
			(struct json_python_member){ key,  NULL, p->taken->map.nodes,
						     NULL, NULL, NULL };
	else if (!strcmp(key, "resources"))
		*m = (struct json_python_member){ key,	    NULL, NULL, emit_taken_resources,
						  p->taken, NULL };
	else
		return 0;
	return 1;
}

/* add_columns and take_columns; with take, *taken tells whether p holds
 * the values now (else they are still the caller's). */
static int add_columns(struct perun_profile *p, const struct perun_column_type *types,
		       size_t ntypes, int take, int *taken, struct perun_error *err)
{
	*taken = 0;
	int rc = check_column_types(types, ntypes, err);
	if (rc)
		return rc;
	rc = ntypes ? fresh_for_columns(p, types, ntypes) : NOT_FRESH;
	if (rc == NOT_FRESH)
		return add_columns_by_rows(p, types, ntypes, err);
	struct columns_of_types *ct = rc ? NULL : columns_prepare(types, ntypes);
	if (ct && take) {
		ct->owned = *taken = 1;
		p->taken = ct;
		p->form = &taken_form;
		return 0;
	}
	if (ct && !columns_settle(p, ct))
		return 0;
	columns_release(ct);
	return perun_error_set(err, PERUN_EGENERIC, "out of memory");
}

int perun_profile_add_columns(struct perun_profile *p, const struct perun_column_type *types,
			      size_t ntypes, struct perun_error *err)
{
	int taken;
	return add_columns(p, types, ntypes, 0, &taken, err);
}

int perun_profile_take_columns(struct perun_profile *p, const struct perun_column_type *types,
			       size_t ntypes, struct perun_error *err)
{
	int taken;
	int rc = add_columns(p, types, ntypes, 1, &taken, err);
	/* Taken whatever the outcome: freed here unless the profile holds
	 * them now. */
	for (size_t t = 0; !taken && t < ntypes; t++)
		for (size_t c = 0; c < types[t].ncolumns; c++)
			free((void *)types[t].columns[c].values);
	return rc;
}

/* Rows of a resource type: its column length, or one row when it has no
 * collectable keys at all (Python Perun yields such a type once). */
static size_t type_rows(const json_t *columns)
{
	if (!json_object_size(columns))
		return 1;
	return json_array_size(json_object_iter_value(json_object_iter((json_t *)columns)));
}

size_t perun_profile_resource_count(const struct perun_profile *p)
{
	size_t total = 0;
	const struct columns_of_types *ct = p->form == &taken_form ? p->taken : NULL;
	for (size_t k = 0; ct && k < ct->ntypes; k++)
		total += ct->types[k].rows;
	if (ct)
		return total;
	if (p->text) {
		const struct perun_jv *resources = &p->tape.nodes[p->resources], *id, *columns;
		size_t i;
		perun_jv_object_foreach(resources, i, id, columns) total +=
			perun_jv_len(columns) ? perun_jv_len(columns + 2) : 1;
		return total;
	}
	const char *type_id;
	json_t *columns;
	json_object_foreach(json_object_get(p->root, "resources"), type_id, columns)
	{
		total += type_rows(columns);
	}
	return total;
}

/*
 * The row of one resource: persistent keys, then every column's key.  The
 * columns' values are set by fill_row; iters[c] is column c's place.
 * NULL without memory.
 */
static json_t *new_row(const json_t *persistent, const struct perun_jv *columns, void **iters)
{
	json_t *row = json_copy((json_t *)persistent);
	const struct perun_jv *key, *values;
	size_t c;
	if (!row)
		return NULL;
	/* A key that is also persistent keeps its place, as in Python's dict. */
	perun_jv_object_foreach(columns, c, key,
				values) if (json_object_setn_new(row, key->u.s, perun_jv_len(key),
								 json_null())) goto fail;
	perun_jv_object_foreach(columns, c, key, values)
	{
		for (iters[c] = json_object_iter(row); iters[c];
		     iters[c] = json_object_iter_next(row, iters[c]))
			if (json_object_iter_key_len(iters[c]) == perun_jv_len(key) &&
			    !memcmp(json_object_iter_key(iters[c]), key->u.s, perun_jv_len(key)))
				break;
	}
	return row;
fail:
	json_decref(row);
	return NULL;
}

/* Set the row's value at iter to v; a number the row alone holds is
 * refilled in place.  0, or -1 without memory. */
static int fill_cell(json_t *row, void *iter, const struct perun_jv *v)
{
	json_t *old = json_object_iter_value(iter);
	if (old->refcount == 1) {
		if (perun_jv_type(v) == PERUN_JV_INTEGER && json_is_integer(old))
			return json_integer_set(old, (json_int_t)v->u.i);
		/* Non-finite reals are marker strings, never reals. */
		if (perun_jv_type(v) == PERUN_JV_REAL && isfinite(v->u.d) && json_is_real(old))
			return json_real_set(old, v->u.d);
	}
	json_t *value = perun_jv_to_json(v);
	return value ? json_object_iter_set_new(row, iter, value) : -1;
}

/* perun_profile_foreach_resource over resources still in the tape. */
static int foreach_resource_of_tape(const struct perun_profile *p, perun_resource_fn fn, void *data)
{
	const struct perun_jv *id, *columns;
	const struct perun_jv **cursor = NULL;
	void **iters = NULL;
	size_t i, ncursors = 0;
	json_t *persistent = NULL, *row = NULL;
	struct member_cursor types;
	int rc = 0, oom = 0;
	member_cursor_init(&types, &p->tape.nodes[p->types], p->same_order);
	perun_jv_object_foreach(&p->tape.nodes[p->resources], i, id, columns)
	{
		size_t ncols = perun_jv_len(columns), c;
		size_t rows = ncols ? perun_jv_len(columns + 2) : 1;
		/* Loading checked that every type is in the map. */
		const struct perun_jv *pers = member_cursor_find(&types, id, &oom);
		json_decref(persistent);
		json_decref(row);
		row = NULL;
		if (oom || !(persistent = perun_jv_to_json(pers)))
			goto oom;
		if (ncols > ncursors) {
			free(cursor);
			free(iters);
			cursor = malloc(ncols * sizeof(*cursor));
			iters = malloc(ncols * sizeof(*iters));
			if (!cursor || !iters)
				goto oom;
			ncursors = ncols;
		}
		const struct perun_jv *key, *values;
		perun_jv_object_foreach(columns, c, key, values) cursor[c] = values + 1;
		for (size_t r = 0; r < rows; r++) {
			/* The row of the previous call is refilled unless fn kept
			 * a reference to it: the keys stay, only values change. */
			if (row && row->refcount > 1) {
				json_decref(row);
				row = NULL;
			}
			if (!row && !(row = new_row(persistent, columns, iters)))
				goto oom;
			for (c = 0; c < ncols; c++) {
				if (fill_cell(row, iters[c], cursor[c]))
					goto oom;
				cursor[c] = perun_jv_skip(cursor[c]);
			}
			rc = fn(row, data);
			if (rc)
				goto out;
		}
	}
	goto out;
oom:
	rc = -PERUN_EGENERIC;
out:
	json_decref(row);
	json_decref(persistent);
	free(cursor);
	free(iters);
	member_cursor_release(&types);
	return rc;
}

/* perun_profile_foreach_resource over a profile loaded whole. */
static int foreach_resource_of_whole(const struct perun_profile *p, perun_resource_fn fn,
				     void *data)
{
	if (p->text)
		return foreach_resource_of_tape(p, fn, data);
	json_t *map = json_object_get(p->root, "resource_type_map");
	const char *type_id;
	json_t *columns;
	json_object_foreach(json_object_get(p->root, "resources"), type_id, columns)
	{
		json_t *persistent = json_object_get(map, type_id);
		size_t rows = type_rows(columns);
		json_t *row = NULL;
		for (size_t r = 0; r < rows; r++) {
			/* As above. */
			if (row && row->refcount > 1) {
				json_decref(row);
				row = NULL;
			}
			if (!row && !(row = json_copy(persistent)))
				return -PERUN_EGENERIC;
			const char *key;
			json_t *values;
			json_object_foreach(
				columns, key,
				values) if (json_object_set(row, key, json_array_get(values, r)))
			{
				json_decref(row);
				return -PERUN_EGENERIC;
			}
			int rc = fn(row, data);
			if (rc) {
				json_decref(row);
				return rc;
			}
		}
		json_decref(row);
	}
	return 0;
}

int perun_profile_foreach_resource(const struct perun_profile *cp, perun_resource_fn fn, void *data)
{
	const struct perun_profile *p;
	struct perun_profile *whole;
	struct perun_error ignored = { 0 };
	/* A streamed profile is read from a whole load of its own. */
	if (profile_read_whole(cp, &p, &whole, &ignored))
		return -PERUN_EINVAL;
	int rc = foreach_resource_of_whole(p, fn, data);
	perun_profile_free(whole);
	return rc;
}
