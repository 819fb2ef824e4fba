/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Loading, validating, converting and saving profiles.  The in-memory form
 * is the JSON tree Python Perun keeps: resources, resource_type_map and
 * models first, then the other keys in the order they came.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/profile.h>

#include "internal.h"
#include "profile_internal.h"

static const char *const known_top_keys[] = {
	"resources", "resource_type_map", "models", "header",
	"collector_info", "postprocessors", "origin", "machine",
	"global", "snapshots", "chunks", "metadata", "stats", NULL,
};

static const char *const profile_types[] = {"time", "mixed", "memory", NULL};

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

struct perun_profile *perun_profile_new(const char *type)
{
	struct perun_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->root = json_pack("{s:{},s:{},s:[],s:{s:s,s:s,s:s,s:{}},s:{s:s,s:{}},s:[]}",
			    "resources", "resource_type_map", "models",
			    "header", "type", type, "cmd", "", "workload", "",
			    "units", "collector_info", "name", "", "params",
			    "postprocessors");
	if (!p->root) {
		free(p);
		return NULL;
	}
	return p;
}

void perun_profile_free(struct perun_profile *p)
{
	if (!p)
		return;
	json_decref(p->root);
	json_decref(p->tuple_index);
	json_decref(p->uid_counter);
	perun_strbuf_release(&p->tuple);
	free(p);
}

json_t *perun_profile_json(const struct perun_profile *p)
{
	return p->root;
}

/* Check the flattened resources against their type map. */
static int validate_resources(json_t *root, const char *name,
			      struct perun_error *err)
{
	json_t *resources = json_object_get(root, "resources");
	json_t *map = json_object_get(root, "resource_type_map");
	if (!json_is_object(resources))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'resources' is not an object", name);
	if (!json_is_object(map))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'resource_type_map' is not an object",
				       name);
	const char *type_id;
	json_t *columns;
	json_object_foreach(resources, type_id, columns) {
		if (!json_is_object(columns))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource '%s' is not an object",
					       name, type_id);
		if (!json_is_object(json_object_get(map, type_id)))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource '%s' is missing from "
					       "resource_type_map", name, type_id);
		const char *key;
		json_t *values;
		long long rows = -1;
		json_object_foreach(columns, key, values) {
			if (!json_is_array(values))
				return perun_error_set(err, PERUN_EINVAL,
						       "profile '%s': resource '%s': '%s' is not a list",
						       name, type_id, key);
			if (rows >= 0 && (long long)json_array_size(values) != rows)
				return perun_error_set(err, PERUN_EINVAL,
						       "profile '%s': resource '%s': '%s' has %zu "
						       "values, other keys %lld", name, type_id, key,
						       json_array_size(values), rows);
			rows = (long long)json_array_size(values);
		}
	}
	json_object_foreach(map, type_id, columns)
		if (!json_is_object(columns))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource_type_map '%s' is not an object",
					       name, type_id);
	return 0;
}

static int validate_header(json_t *root, const char *name,
			   struct perun_error *err)
{
	json_t *header = json_object_get(root, "header");
	if (!json_is_object(header))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': missing 'header'", name);
	const char *type = json_string_value(json_object_get(header, "type"));
	if (!type)
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': header has no 'type'", name);
	if (!in_list(profile_types, type))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': unknown profile type '%s'", name, type);
	static const char *const string_keys[] = {"cmd", "workload", "args", NULL};
	for (const char *const *k = string_keys; *k; k++) {
		json_t *v = json_object_get(header, *k);
		if (v && !json_is_string(v))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': header '%s' is not a string",
					       name, *k);
	}
	json_t *models = json_object_get(root, "models");
	if (models && !json_is_array(models))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'models' is not a list", name);
	json_t *posts = json_object_get(root, "postprocessors");
	if (posts && !json_is_array(posts))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'postprocessors' is not a list", name);
	json_t *collector = json_object_get(root, "collector_info");
	if (collector && !json_is_object(collector))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'collector_info' is not an object", name);
	json_t *origin = json_object_get(root, "origin");
	if (origin && !json_is_string(origin))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'origin' is not a string", name);
	return 0;
}

int perun_profile_from_json(json_t *root, const char *name,
			    struct perun_profile **out, struct perun_error *err)
{
	int rc = 0;
	struct perun_profile *p = NULL;
	if (!json_is_object(root)) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "profile '%s': not a JSON object", name);
		goto out;
	}
	const char *key;
	json_t *value;
	json_object_foreach(root, key, value) {
		if (!in_list(known_top_keys, key)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile '%s': unknown top-level key '%s'",
					     name, key);
			goto out;
		}
	}
	rc = validate_header(root, name, err);
	if (rc)
		goto out;

	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	/* Python Perun's order: resources, resource_type_map, models, rest. */
	p->root = json_object();
	json_object_set_new(p->root, "resources", json_object());
	json_object_set_new(p->root, "resource_type_map", json_object());
	json_t *models = json_object_get(root, "models");
	json_t *global = json_object_get(root, "global");
	if (!models && json_is_object(global))
		models = json_object_get(global, "models");
	json_object_set_new(p->root, "models",
			    json_is_array(models) ? json_incref(models) : json_array());
	json_object_foreach(root, key, value) {
		if (!strcmp(key, "resources") || !strcmp(key, "resource_type_map") ||
		    !strcmp(key, "models") || !strcmp(key, "global") ||
		    !strcmp(key, "snapshots") || !strcmp(key, "chunks"))
			continue;
		json_object_set(p->root, key, value);
	}

	json_t *resources = json_object_get(root, "resources");
	json_t *map = json_object_get(root, "resource_type_map");
	if (resources || map) {
		if (resources && json_is_array(resources)) {
			rc = profile_translate_legacy(p, resources, NULL, 0, name, err);
			if (rc)
				goto out;
		} else {
			json_object_set(p->root, "resources",
					resources ? resources : json_object());
			json_object_set(p->root, "resource_type_map",
					map ? map : json_object());
			rc = validate_resources(p->root, name, err);
			if (rc)
				goto out;
		}
	}
	if (global && !json_is_object(global)) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "profile '%s': 'global' is not an object", name);
		goto out;
	}
	if (json_object_size(global)) {
		json_t *list = json_object_get(global, "resources");
		if (!json_is_array(list)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile '%s': 'global' has no resource list", name);
			goto out;
		}
		json_t *time = json_object_get(global, "time");
		json_t *extra = json_object();
		json_object_set_new(extra, "time",
				    time ? json_incref(time) : json_string("0.0"));
		rc = profile_translate_legacy(p, list, extra, -1, name, err);
		json_decref(extra);
		if (rc)
			goto out;
	}
	json_t *snapshots = json_object_get(root, "snapshots");
	if (snapshots) {
		if (!json_is_array(snapshots)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile '%s': 'snapshots' is not a list", name);
			goto out;
		}
		size_t i;
		json_t *snap;
		json_array_foreach(snapshots, i, snap) {
			json_t *list = json_object_get(snap, "resources");
			if (!json_is_array(list)) {
				rc = perun_error_set(err, PERUN_EINVAL,
						     "profile '%s': snapshot %zu has no resource list",
						     name, i);
				goto out;
			}
			json_t *time = json_object_get(snap, "time");
			json_t *extra = json_object();
			json_object_set_new(extra, "snapshot", json_integer((json_int_t)i));
			json_object_set_new(extra, "time",
					    time ? json_incref(time) : json_string("0.0"));
			rc = profile_translate_legacy(p, list, extra, (long)i, name, err);
			json_decref(extra);
			if (rc)
				goto out;
			json_t *snap_models = json_object_get(snap, "models");
			size_t j;
			json_t *m;
			json_array_foreach(snap_models, j, m)
				json_array_append(json_object_get(p->root, "models"), m);
		}
	}
out:
	json_decref(root);
	if (rc) {
		perun_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/*
 * Python writes NaN, Infinity and -Infinity as bare words, which JSON (and
 * jansson) do not allow.  Outside strings they become marker strings that
 * json_python_dump writes back as the same words.  Returns 1 and sets
 * *out (the caller frees it) when there were any, 0 when there were none,
 * -1 without memory.
 */
static int quote_non_finite(const char *buf, size_t len, char **out, size_t *out_len)
{
	static const char *const words[] = {"-Infinity", "Infinity", "NaN"};
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	int in_string = 0;
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
			continue;
		}
		if (c == '"') {
			in_string = 1;
			continue;
		}
		/* Only these letters start a word: skip the memcmps elsewhere. */
		if (c != '-' && c != 'I' && c != 'N')
			continue;
		for (size_t w = 0; w < 3; w++) {
			size_t wl = strlen(words[w]);
			if (len - i >= wl && !memcmp(buf + i, words[w], wl)) {
				perun_strbuf_add(&sb, buf + run, i - run);
				perun_strbuf_addstr(&sb, "\"\\u0000");
				perun_strbuf_addstr(&sb, words[w]);
				perun_strbuf_addch(&sb, '"');
				i += wl - 1;
				run = i + 1;
				break;
			}
		}
	}
	if (!sb.buf && !sb.failed)
		return 0;
	perun_strbuf_add(&sb, buf + run, len - run);
	*out = perun_strbuf_detach(&sb, out_len);
	return *out ? 1 : -1;
}

int perun_profile_load_buffer(const char *buf, size_t len, const char *name,
			      struct perun_profile **out, struct perun_error *err)
{
	json_t *root = json_python_load(buf, len);
	if (root)
		return perun_profile_from_json(root, name, out, err);
	/* Jansson reads what the fast reader leaves, with its messages. */
	json_error_t jerr;
	size_t quoted_len;
	char *quoted = NULL;
	if (quote_non_finite(buf, len, &quoted, &quoted_len) < 0)
		return perun_error_set(err, PERUN_EGENERIC,
				       "cannot read profile '%s': out of memory", name);
	root = quoted ? json_loadb(quoted, quoted_len,
					   JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr)
			      : json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	free(quoted);
	if (!root)
		return perun_error_set(err, PERUN_EINVAL,
				       "cannot read profile '%s': line %d: %s", name,
				       jerr.line, jerr.text);
	return perun_profile_from_json(root, name, out, err);
}

int perun_profile_load_file(const char *path, struct perun_profile **out,
			    struct perun_error *err)
{
	char *buf;
	size_t len;
	int rc = perun_file_read(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = perun_profile_load_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

char *perun_profile_dump(const struct perun_profile *p,
			 enum perun_dump_style style, int with_origin,
			 size_t *len)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	json_t *origin = json_object_get(p->root, "origin");
	if (origin && !with_origin) {
		/* Dump a shallow copy without the key, keeping the order. */
		json_t *copy = json_object();
		const char *key;
		json_t *value;
		json_object_foreach(p->root, key, value)
			if (strcmp(key, "origin"))
				json_object_set(copy, key, value);
		json_python_dump(copy, style == PERUN_DUMP_PENDING ? JSON_PYTHON_PENDING : -1,
				 &sb);
		json_decref(copy);
	} else {
		json_python_dump(p->root, style == PERUN_DUMP_PENDING ? JSON_PYTHON_PENDING : -1,
				 &sb);
	}
	return perun_strbuf_detach(&sb, len);
}

int perun_profile_save_file(const struct perun_profile *p, const char *path,
			    struct perun_error *err)
{
	size_t len;
	char *text = perun_profile_dump(p, PERUN_DUMP_PENDING, 1, &len);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_file_write_atomic(path, text, len, err);
	free(text);
	return rc;
}

static const char *string_or_empty(json_t *v)
{
	const char *s = json_string_value(v);
	return s ? s : "";
}

const char *perun_profile_type(const struct perun_profile *p)
{
	return string_or_empty(
		json_object_get(json_object_get(p->root, "header"), "type"));
}

const char *perun_profile_header(const struct perun_profile *p, const char *key)
{
	return string_or_empty(
		json_object_get(json_object_get(p->root, "header"), key));
}

static json_t *ensure_object(json_t *parent, const char *key)
{
	json_t *obj = json_object_get(parent, key);
	if (!json_is_object(obj)) {
		obj = json_object();
		json_object_set_new(parent, key, obj);
	}
	return obj;
}

int perun_profile_set_header(struct perun_profile *p, const char *key,
			     const char *value)
{
	return json_object_set_new(ensure_object(p->root, "header"), key,
				   json_string(value));
}

int perun_profile_set_units(struct perun_profile *p, const char *units_json,
			    struct perun_error *err)
{
	json_error_t jerr;
	json_t *units = json_loads(units_json, 0, &jerr);
	if (!json_is_object(units)) {
		json_decref(units);
		return perun_error_set(err, PERUN_EINVAL, "bad units '%s'", units_json);
	}
	return json_object_set_new(ensure_object(p->root, "header"), "units", units);
}

const char *perun_profile_collector(const struct perun_profile *p)
{
	return string_or_empty(
		json_object_get(json_object_get(p->root, "collector_info"), "name"));
}

int perun_profile_set_collector(struct perun_profile *p, const char *name,
				const json_t *params)
{
	json_t *info = ensure_object(p->root, "collector_info");
	json_object_set_new(info, "name", json_string(name));
	return json_object_set_new(info, "params",
				   params ? json_deep_copy(params) : json_object());
}

int perun_profile_add_postprocessor(struct perun_profile *p, const char *name,
				    const json_t *params)
{
	json_t *list = json_object_get(p->root, "postprocessors");
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(p->root, "postprocessors", list);
	}
	return json_array_append_new(
		list, json_pack("{s:s,s:o}", "name", name, "params",
				params ? json_deep_copy(params) : json_object()));
}

char *perun_profile_postprocessors_dup(const struct perun_profile *p)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	size_t i;
	json_t *post;
	json_array_foreach(json_object_get(p->root, "postprocessors"), i, post) {
		const char *n = json_string_value(json_object_get(post, "name"));
		if (sb.len)
			perun_strbuf_addch(&sb, ' ');
		perun_strbuf_addstr(&sb, n ? n : "");
	}
	return perun_strbuf_detach(&sb, NULL);
}

const char *perun_profile_origin(const struct perun_profile *p)
{
	return json_string_value(json_object_get(p->root, "origin"));
}

int perun_profile_set_origin(struct perun_profile *p, const char *origin)
{
	if (!origin)
		return json_object_del(p->root, "origin") ? 0 : 0;
	return json_object_set_new(p->root, "origin", json_string(origin));
}

int perun_profile_add_model(struct perun_profile *p, const json_t *model)
{
	json_t *list = json_object_get(p->root, "models");
	return json_array_append_new(list, json_deep_copy(model));
}

int perun_json_number(const json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (json_is_string(v) && json_string_length(v) > 1 && json_string_value(v)[0] == '\0') {
		const char *word = json_string_value(v) + 1;
		if (!strcmp(word, "NaN"))
			*out = NAN;
		else if (!strcmp(word, "Infinity"))
			*out = INFINITY;
		else if (!strcmp(word, "-Infinity"))
			*out = -INFINITY;
		else
			return -1;
		return 0;
	}
	return -1;
}
