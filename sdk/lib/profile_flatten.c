/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resources in the flattened form: rows are split into persistent keys,
 * which name a resource type "<uid>#<n>", and collectable keys, which become
 * parallel columns.  Python Perun's rules, kept exactly so that type ids
 * agree.
 */
#include <stdlib.h>
#include <string.h>

#include <perun/profile.h>

#include "internal.h"
#include "profile_internal.h"

int perun_profile_key_is_collectable(const char *key)
{
	/* Called for every key of every added row: pick the candidates by
	 * the first letter. */
	switch (key[0]) {
	case 'a':
		return !strcmp(key, "amount") || !strcmp(key, "address");
	case 'c':
		return !strcmp(key, "call-order");
	case 'e':
		return !strcmp(key, "exclusive");
	case 'm':
		return !strncmp(key, "metric.", 7) &&
		       (!strcmp(key + 7, "iteration") || !strcmp(key + 7, "value") ||
			!strcmp(key + 7, "score-value") || !strcmp(key + 7, "percentile"));
	case 'o':
		return !strcmp(key, "order");
	case 's':
		return !strcmp(key, "structure-unit-size");
	case 't':
		return !strcmp(key, "timestamp");
	default:
		return 0;
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
static struct pair *persistent_pairs(const json_t *resource, const json_t *extra,
				     int collectable, size_t *n)
{
	size_t cap = json_object_size(resource) + json_object_size(extra), k = 0;
	struct pair *v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return NULL;
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key, value)
		if (!collectable || !perun_profile_key_is_collectable(key))
			v[k++] = (struct pair){key, value};
	json_object_foreach((json_t *)extra, key, value) {
		size_t i = 0;
		while (i < k && strcmp(v[i].key, key))
			i++;
		v[i] = (struct pair){key, value};
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

/* Index the resource types the profile already has, once. */
static void build_index(struct perun_profile *p)
{
	if (p->tuple_index)
		return;
	p->tuple_index = json_object();
	p->uid_counter = json_object();
	const char *type_id;
	json_t *persistent;
	json_object_foreach(json_object_get(profile_tree(p), "resource_type_map"), type_id,
			    persistent) {
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
		long long next = atoll(hash + 1) + 1;
		json_t *cur = json_object_get(p->uid_counter, uid);
		if (!cur || json_integer_value(cur) < next)
			json_object_set_new(p->uid_counter, uid, json_integer(next));
		free(uid);
	}
}

/* A new resource type for the persistent pairs: its id "<uid>#<n>" (the
 * caller frees it), its entry in resource_type_map and its (empty) columns,
 * one for every collectable key of resource. */
static char *new_type(struct perun_profile *p, const json_t *uid, const json_t *resource,
		      const struct pair *pairs, size_t n, const char *tuple)
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
	json_object_set_new(p->uid_counter, flat_uid, json_integer(next + 1));
	free(flat_uid);
	/* Python keeps the persistent pairs sorted by key. */
	json_t *sorted = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_set(sorted, pairs[i].key, pairs[i].value);
	json_object_set_new(json_object_get(profile_tree(p), "resource_type_map"), id, sorted);
	json_object_set_new(p->tuple_index, tuple, json_string(id));
	json_t *columns = json_object();
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key, value)
		if (perun_profile_key_is_collectable(key))
			json_object_set_new(columns, key, json_array());
	json_object_set_new(json_object_get(profile_tree(p), "resources"), id, columns);
	return id;
}

static int add_row(struct perun_profile *p, const json_t *resource,
		   json_t *extra, const char *name, struct perun_error *err)
{
	json_t *uid = json_object_get(resource, "uid");
	if (!uid)
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': resource without 'uid'", name);
	build_index(p);
	size_t n;
	struct pair *pairs = persistent_pairs(resource, extra, 1, &n);
	int tuple = pairs && !tuple_key(&p->tuple, pairs, n);
	const char *type_id = tuple ? json_string_value(json_object_getn(
					      p->tuple_index, p->tuple.buf, p->tuple.len))
				    : NULL;
	char *new_id = NULL;
	if (tuple && !type_id)
		type_id = new_id = new_type(p, uid, resource, pairs, n, p->tuple.buf);
	free(pairs);
	if (!type_id)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_t *columns = json_object_get(json_object_get(profile_tree(p), "resources"), type_id);
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key, value) {
		if (!perun_profile_key_is_collectable(key))
			continue;
		json_t *list = json_object_get(columns, key);
		if (!list) {
			list = json_array();
			json_object_set_new(columns, key, list);
		}
		json_array_append(list, value);
	}
	free(new_id);
	return 0;
}

int profile_translate_legacy(struct perun_profile *p, json_t *list,
			     json_t *extra, long snapshot, const char *name,
			     struct perun_error *err)
{
	size_t i;
	json_t *resource;
	json_array_foreach(list, i, resource) {
		if (!json_is_object(resource)) {
			if (snapshot >= 0)
				return perun_error_set(err, PERUN_EINVAL,
						       "profile '%s': snapshot %ld: resource %zu "
						       "is not an object", name, snapshot, i);
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource %zu is not an object",
					       name, i);
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
	if (p->text) {
		const struct perun_jv *resources = &p->tape.nodes[p->resources], *id, *columns;
		size_t i;
		perun_jv_object_foreach(resources, i, id, columns)
			total += perun_jv_len(columns) ? perun_jv_len(columns + 2) : 1;
		return total;
	}
	const char *type_id;
	json_t *columns;
	json_object_foreach(json_object_get(profile_tree(p), "resources"), type_id, columns) {
		total += type_rows(columns);
	}
	return total;
}

int perun_profile_foreach_resource(const struct perun_profile *p,
				   perun_resource_fn fn, void *data)
{
	json_t *map = json_object_get(profile_tree(p), "resource_type_map");
	const char *type_id;
	json_t *columns;
	json_object_foreach(json_object_get(profile_tree(p), "resources"), type_id, columns) {
		json_t *persistent = json_object_get(map, type_id);
		size_t rows = type_rows(columns);
		json_t *row = NULL;
		for (size_t r = 0; r < rows; r++) {
			/* The row of the previous call is refilled unless fn kept
			 * a reference to it: the keys stay, only values change. */
			if (row && row->refcount > 1) {
				json_decref(row);
				row = NULL;
			}
			if (!row)
				row = json_copy(persistent);
			const char *key;
			json_t *values;
			json_object_foreach(columns, key, values)
				json_object_set(row, key, json_array_get(values, r));
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
