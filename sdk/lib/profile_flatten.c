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

static const char *const collectable_keys[] = {
	"amount", "structure-unit-size", "call-order", "order", "address",
	"timestamp", "exclusive", "metric.iteration", "metric.value",
	"metric.score-value", "metric.percentile", NULL,
};

int perun_profile_key_is_collectable(const char *key)
{
	for (const char *const *k = collectable_keys; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}

static int keycmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A canonical text for a set of persistent pairs, sorted by key. */
static char *tuple_key_dup(const json_t *persistent)
{
	size_t n = json_object_size(persistent), i = 0;
	const char **keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		abort();
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)persistent, key, value)
		keys[i++] = key;
	qsort(keys, n, sizeof(*keys), keycmp);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	/* Nested values keep their key order, as Python's tuples do. */
	for (i = 0; i < n; i++) {
		perun_strbuf_addstr(&sb, keys[i]);
		perun_strbuf_addch(&sb, '\x1f');
		json_python_dump(json_object_get(persistent, keys[i]), -1, &sb);
		perun_strbuf_addch(&sb, '\x1e');
	}
	free(keys);
	return perun_strbuf_detach(&sb, NULL);
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
	json_object_foreach(json_object_get(p->root, "resource_type_map"), type_id,
			    persistent) {
		char *key = tuple_key_dup(persistent);
		/* Without memory the type is not indexed, so it is not reused. */
		if (key)
			json_object_set_new(p->tuple_index, key, json_string(type_id));
		free(key);
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

static int add_row(struct perun_profile *p, const json_t *resource,
		   json_t *extra, const char *name, struct perun_error *err)
{
	json_t *uid = json_object_get(resource, "uid");
	if (!uid)
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': resource without 'uid'", name);
	json_t *persistent = json_object();
	json_t *collect = json_object();
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)resource, key, value) {
		if (perun_profile_key_is_collectable(key))
			json_object_set(collect, key, value);
		else
			json_object_set(persistent, key, value);
	}
	json_object_foreach(extra, key, value)
		json_object_set(persistent, key, value);

	build_index(p);
	char *tuple = tuple_key_dup(persistent);
	const char *type_id = json_string_value(json_object_get(p->tuple_index, tuple));
	char *new_id = NULL;
	json_t *resources = json_object_get(p->root, "resources");
	if (!type_id) {
		char *flat_uid = perun_value_flatten_dup(uid);
		if (!tuple || !flat_uid) {
			free(tuple);
			free(flat_uid);
			json_decref(persistent);
			json_decref(collect);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		json_int_t n = json_integer_value(json_object_get(p->uid_counter, flat_uid));
		size_t len = strlen(flat_uid) + 32;
		new_id = malloc(len);
		snprintf(new_id, len, "%s#%" JSON_INTEGER_FORMAT, flat_uid, n);
		json_object_set_new(p->uid_counter, flat_uid, json_integer(n + 1));
		free(flat_uid);
		/* Python keeps the persistent pairs sorted by key. */
		json_t *sorted = json_object();
		size_t count = json_object_size(persistent), i = 0;
		const char **keys = calloc(count ? count : 1, sizeof(*keys));
		json_object_foreach(persistent, key, value)
			keys[i++] = key;
		qsort(keys, count, sizeof(*keys), keycmp);
		for (i = 0; i < count; i++)
			json_object_set(sorted, keys[i], json_object_get(persistent, keys[i]));
		free(keys);
		json_object_set_new(json_object_get(p->root, "resource_type_map"), new_id,
				    sorted);
		json_object_set_new(p->tuple_index, tuple, json_string(new_id));
		json_t *columns = json_object();
		json_object_foreach(collect, key, value)
			json_object_set_new(columns, key, json_array());
		json_object_set_new(resources, new_id, columns);
		type_id = new_id;
	}
	json_t *columns = json_object_get(resources, type_id);
	json_object_foreach(collect, key, value) {
		json_t *list = json_object_get(columns, key);
		if (!list) {
			list = json_array();
			json_object_set_new(columns, key, list);
		}
		json_array_append(list, value);
	}
	free(tuple);
	free(new_id);
	json_decref(persistent);
	json_decref(collect);
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
	const char *type_id;
	json_t *columns;
	json_object_foreach(json_object_get(p->root, "resources"), type_id, columns) {
		total += type_rows(columns);
	}
	return total;
}

int perun_profile_foreach_resource(const struct perun_profile *p,
				   perun_resource_fn fn, void *data)
{
	json_t *map = json_object_get(p->root, "resource_type_map");
	const char *type_id;
	json_t *columns;
	json_object_foreach(json_object_get(p->root, "resources"), type_id, columns) {
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
