/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Loading, validating and converting profiles: the whole form.  The
 * in-memory form is the JSON tree Python Perun keeps: resources,
 * resource_type_map and models first, then the other keys in the order
 * they came; a loaded profile's resources stay in the reader's tape until
 * a non-const caller asks for their tree.
 *
 * Layer 6 of libperun, the tree (whole) form: it uses the reader
 * (reader.h), the core (profile_core.h) and the flattened form
 * (profile_flatten.h, for legacy profiles); the streamed form and the
 * dumper above use it through profile_tree.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/profile.h>

#include "profile_core.h"
#include "profile_flatten.h"
#include "profile_tree.h"
#include "reader.h"

static const char *const known_top_keys[] = {
	"resources",	  "resource_type_map",
	"models",	  "header",
	"collector_info", "postprocessors",
	"origin",	  "machine",
	"global",	  "snapshots",
	"chunks",	  "metadata",
	"stats",	  NULL,
};

static const char *const profile_types[] = { "time", "mixed", "memory", NULL };

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
	p->root = json_pack("{s:{},s:{},s:[],s:{s:s,s:s,s:s,s:{}},s:{s:s,s:{}},s:[]}", "resources",
			    "resource_type_map", "models", "header", "type", type, "cmd", "",
			    "workload", "", "units", "collector_info", "name", "", "params",
			    "postprocessors");
	if (!p->root) {
		free(p);
		return NULL;
	}
	return p;
}

json_t *perun_profile_json(struct perun_profile *p)
{
	return profile_tree(p);
}

json_t *perun_profile_get(const struct perun_profile *p, const char *key)
{
	/* A const profile keeps its form: no tree of the compact resources
	 * (taken columns become them, as any reader finds them). */
	struct perun_error ignored = { 0 };
	int resources = !strcmp(key, "resources") || !strcmp(key, "resource_type_map");
	if (resources)
		profile_settle(p, &ignored);
	if (resources && p->text)
		return NULL;
	return json_object_get(p->root, key);
}

/* ---- the resources in the tape ------------------------------------------ */

/* One resource's columns: equally long lists. */
static int validate_columns(const char *type_id, const struct perun_jv *columns, const char *name,
			    struct perun_error *err)
{
	const struct perun_jv *key, *values;
	size_t j;
	long long rows = -1;
	perun_jv_object_foreach(columns, j, key, values)
	{
		if (perun_jv_type(values) != PERUN_JV_ARRAY)
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource '%s': '%s' is not a list",
					       name, type_id, key->u.s);
		if (rows >= 0 && (long long)perun_jv_len(values) != rows)
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource '%s': '%s' has %zu values, "
					       "other keys %lld",
					       name, type_id, key->u.s, perun_jv_len(values), rows);
		rows = (long long)perun_jv_len(values);
	}
	return 0;
}

/* validate_resources on the tape, with the same messages; *same_order
 * tells whether both list the same types in the same order. */
static int validate_tape(const struct perun_jv *resources, const struct perun_jv *map,
			 const char *name, int *same_order, struct perun_error *err)
{
	struct member_cursor types;
	member_cursor_init(&types, map, 0);
	const struct perun_jv *id, *columns;
	size_t i;
	int rc = 0, oom = 0;
	perun_jv_object_foreach(resources, i, id, columns)
	{
		const char *type_id = id->u.s;
		if (perun_jv_type(columns) != PERUN_JV_OBJECT) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile '%s': resource '%s' is not an object", name,
					     type_id);
			goto out;
		}
		const struct perun_jv *persistent = member_cursor_find(&types, id, &oom);
		if (oom)
			goto oom;
		if (!persistent || perun_jv_type(persistent) != PERUN_JV_OBJECT) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile '%s': resource '%s' is missing from "
					     "resource_type_map",
					     name, type_id);
			goto out;
		}
		if ((rc = validate_columns(type_id, columns, name, err)))
			goto out;
	}
	perun_jv_object_foreach(map, i, id, columns) if (perun_jv_type(columns) != PERUN_JV_OBJECT)
	{
		rc = perun_error_set(err, PERUN_EINVAL,
				     "profile '%s': resource_type_map '%s' is not an object", name,
				     id->u.s);
		goto out;
	}
	*same_order = perun_jv_len(resources) == perun_jv_len(map) && !types.index.slots;
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "profile '%s': out of memory", name);
out:
	member_cursor_release(&types);
	return rc;
}

/* Check the flattened resources against their type map. */
static int validate_resources(json_t *root, const char *name, struct perun_error *err)
{
	json_t *resources = json_object_get(root, "resources");
	json_t *map = json_object_get(root, "resource_type_map");
	if (!json_is_object(resources))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'resources' is not an object", name);
	if (!json_is_object(map))
		return perun_error_set(err, PERUN_EINVAL,
				       "profile '%s': 'resource_type_map' is not an object", name);
	const char *type_id;
	json_t *columns;
	json_object_foreach(resources, type_id, columns)
	{
		if (!json_is_object(columns))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource '%s' is not an object", name,
					       type_id);
		if (!json_is_object(json_object_get(map, type_id)))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': resource '%s' is missing from "
					       "resource_type_map",
					       name, type_id);
		const char *key;
		json_t *values;
		long long rows = -1;
		json_object_foreach(columns, key, values)
		{
			if (!json_is_array(values))
				return perun_error_set(
					err, PERUN_EINVAL,
					"profile '%s': resource '%s': '%s' is not a list", name,
					type_id, key);
			if (rows >= 0 && (long long)json_array_size(values) != rows)
				return perun_error_set(err, PERUN_EINVAL,
						       "profile '%s': resource '%s': '%s' has %zu "
						       "values, other keys %lld",
						       name, type_id, key, json_array_size(values),
						       rows);
			rows = (long long)json_array_size(values);
		}
	}
	json_object_foreach(map, type_id, columns) if (
		!json_is_object(columns)) return perun_error_set(err, PERUN_EINVAL,
								 "profile '%s': resource_type_map "
								 "'%s' is not an object",
								 name, type_id);
	return 0;
}

static int validate_header(json_t *root, const char *name, struct perun_error *err)
{
	json_t *header = json_object_get(root, "header");
	if (!header)
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': missing 'header'", name);
	if (!json_is_object(header))
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': 'header' is not an object",
				       name);
	const char *type = json_string_value(json_object_get(header, "type"));
	if (!type)
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': header has no 'type'",
				       name);
	if (!in_list(profile_types, type))
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': unknown profile type '%s'",
				       name, type);
	static const char *const string_keys[] = { "cmd", "workload", "args", NULL };
	for (const char *const *k = string_keys; *k; k++) {
		json_t *v = json_object_get(header, *k);
		if (v && !json_is_string(v))
			return perun_error_set(err, PERUN_EINVAL,
					       "profile '%s': header '%s' is not a string", name,
					       *k);
	}
	json_t *models = json_object_get(root, "models");
	if (models && !json_is_array(models))
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': 'models' is not a list",
				       name);
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
		return perun_error_set(err, PERUN_EINVAL, "profile '%s': 'origin' is not a string",
				       name);
	return 0;
}

int perun_profile_from_json(json_t *root, const char *name, struct perun_profile **out,
			    struct perun_error *err)
{
	int rc = 0;
	struct perun_profile *p = NULL;
	if (!json_is_object(root)) {
		rc = perun_error_set(err, PERUN_EINVAL, "profile '%s': not a JSON object", name);
		goto out;
	}
	const char *key;
	json_t *value;
	json_object_foreach(root, key, value)
	{
		if (!in_list(known_top_keys, key)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile '%s': unknown top-level key '%s'", name, key);
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
	json_t *models = json_object_get(root, "models");
	json_t *global = json_object_get(root, "global");
	if (!models && json_is_object(global))
		models = json_object_get(global, "models");
	if (!p->root || json_object_set_new(p->root, "resources", json_object()) ||
	    json_object_set_new(p->root, "resource_type_map", json_object()) ||
	    json_object_set_new(p->root, "models",
				json_is_array(models) ? json_incref(models) : json_array()))
		goto oom;
	json_object_foreach(root, key, value)
	{
		if (!strcmp(key, "resources") || !strcmp(key, "resource_type_map") ||
		    !strcmp(key, "models") || !strcmp(key, "global") || !strcmp(key, "snapshots") ||
		    !strcmp(key, "chunks"))
			continue;
		if (json_object_set(p->root, key, value))
			goto oom;
	}

	json_t *resources = json_object_get(root, "resources");
	json_t *map = json_object_get(root, "resource_type_map");
	if (resources || map) {
		if (resources && json_is_array(resources)) {
			rc = profile_translate_legacy(p, resources, NULL, 0, name, err);
			if (rc)
				goto out;
		} else {
			/* A missing part is a new empty object, the profile's. */
			json_object_set_new(p->root, "resources",
					    resources ? json_incref(resources) : json_object());
			json_object_set_new(p->root, "resource_type_map",
					    map ? json_incref(map) : json_object());
			rc = validate_resources(p->root, name, err);
			if (rc)
				goto out;
		}
	}
	if (global && !json_is_object(global)) {
		rc = perun_error_set(err, PERUN_EINVAL, "profile '%s': 'global' is not an object",
				     name);
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
		if (!extra || json_object_set_new(extra, "time",
						  time ? json_incref(time) : json_string("0.0"))) {
			json_decref(extra);
			goto oom;
		}
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
		json_array_foreach(snapshots, i, snap)
		{
			json_t *list = json_object_get(snap, "resources");
			if (!json_is_array(list)) {
				rc = perun_error_set(
					err, PERUN_EINVAL,
					"profile '%s': snapshot %zu has no resource list", name, i);
				goto out;
			}
			json_t *time = json_object_get(snap, "time");
			json_t *extra = json_object();
			if (!extra ||
			    json_object_set_new(extra, "snapshot", json_integer((json_int_t)i)) ||
			    json_object_set_new(extra, "time",
						time ? json_incref(time) : json_string("0.0"))) {
				json_decref(extra);
				goto oom;
			}
			rc = profile_translate_legacy(p, list, extra, (long)i, name, err);
			json_decref(extra);
			if (rc)
				goto out;
			json_t *snap_models = json_object_get(snap, "models");
			size_t j;
			json_t *m;
			json_array_foreach(
				snap_models, j,
				m) if (json_array_append(json_object_get(p->root, "models"),
							 m)) goto oom;
		}
	}
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "profile '%s': out of memory", name);
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
	static const char *const words[] = { "-Infinity", "Infinity", "NaN" };
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

/* The text the tape reader left: jansson reads it, with its messages. */
static int load_with_jansson(const char *buf, size_t len, const char *name,
			     struct perun_profile **out, struct perun_error *err)
{
	json_error_t jerr;
	size_t quoted_len;
	char *quoted = NULL;
	if (quote_non_finite(buf, len, &quoted, &quoted_len) < 0)
		return perun_error_set(err, PERUN_EGENERIC,
				       "cannot read profile '%s': out of memory", name);
	json_t *root = quoted ? json_loadb(quoted, quoted_len,
					   JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr)
			      : json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	free(quoted);
	if (!root) {
		/* Jansson quotes the text near the error, line breaks too:
		 * the message stays one line. */
		for (char *c = jerr.text; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = ' ';
		return perun_error_set(err, PERUN_EINVAL, "cannot read profile '%s': line %d: %s",
				       name, jerr.line, jerr.text);
	}
	return perun_profile_from_json(root, name, out, err);
}

#define LEAVE_TO_JANSSON 1

int profile_of_tape(struct json_tape *tape, const char *name, int map_read,
		    struct perun_profile **out, struct perun_error *err)
{
	json_t *rest = NULL;
	struct perun_profile *p = NULL;
	int rc;
	const struct perun_jv *top = tape->nodes, *key, *value;
	const struct perun_jv *resources = perun_jv_get(top, "resources");
	const struct perun_jv *map = perun_jv_get(top, "resource_type_map");
	if (!resources || perun_jv_type(resources) != PERUN_JV_OBJECT || !map ||
	    perun_jv_type(map) != PERUN_JV_OBJECT || perun_jv_get(top, "global") ||
	    perun_jv_get(top, "snapshots")) {
		/* Legacy, partial or not a profile at all: all of it a tree. */
		json_t *root = perun_jv_to_json(top);
		json_tape_release(tape);
		if (!root)
			return perun_error_set(err, PERUN_EGENERIC,
					       "cannot read profile '%s': out of memory", name);
		return perun_profile_from_json(root, name, out, err);
	}
	rest = json_object();
	size_t i;
	perun_jv_object_foreach(top, i, key, value)
	{
		if (value == resources || value == map)
			continue;
		json_t *v = perun_jv_to_json(value);
		if (!rest || !v || json_object_set_new_nocheck(rest, key->u.s, v))
			goto oom;
	}
	rc = perun_profile_from_json(rest, name, &p, err);
	rest = NULL;
	if (rc)
		goto fail;
	if (map_read) {
		rc = validate_tape(resources, map, name, &p->same_order, err);
	} else {
		/* What can be checked without the map. */
		perun_jv_object_foreach(resources, i, key, value)
		{
			if (perun_jv_type(value) != PERUN_JV_OBJECT)
				rc = perun_error_set(err, PERUN_EINVAL,
						     "profile '%s': resource '%s' is not an object",
						     name, key->u.s);
			else
				rc = validate_columns(key->u.s, value, name, err);
			if (rc)
				break;
		}
	}
	if (rc)
		goto fail;
	p->resources = (uint32_t)(resources - tape->nodes);
	p->types = (uint32_t)(map - tape->nodes);
	p->tape = *tape;
	memset(tape, 0, sizeof(*tape));
	*out = p;
	return 0;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "cannot read profile '%s': out of memory", name);
fail:
	json_decref(rest);
	perun_profile_free(p);
	json_tape_release(tape);
	return rc;
}

/*
 * Load text (len bytes, taken over whatever happens).  The flattened
 * resources stay in the tape, the rest becomes the tree.  Returns 0, an
 * error code, or LEAVE_TO_JANSSON for text the tape reader does not take
 * (it is changed by then: the caller reads the original).
 */
static int load_text(char *text, size_t len, const char *name, struct perun_profile **out,
		     struct perun_error *err)
{
	struct json_tape tape = { 0 };
	if (json_tape_parse(text, len, &tape)) {
		json_tape_release(&tape);
		free(text);
		return LEAVE_TO_JANSSON;
	}
	int rc = profile_of_tape(&tape, name, 1, out, err);
	if (!rc && (*out)->tape.nodes)
		(*out)->text = text;
	else
		free(text);
	return rc;
}

int perun_profile_load_buffer(const char *buf, size_t len, const char *name,
			      struct perun_profile **out, struct perun_error *err)
{
	char *text = malloc(len + 1);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC,
				       "cannot read profile '%s': out of memory", name);
	memcpy(text, buf, len);
	int rc = load_text(text, len, name, out, err);
	return rc == LEAVE_TO_JANSSON ? load_with_jansson(buf, len, name, out, err) : rc;
}

int perun_profile_load_file(const char *path, struct perun_profile **out, struct perun_error *err)
{
	char *buf;
	size_t len;
	int rc = perun_file_read(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = load_text(buf, len, path, out, err);
	if (rc != LEAVE_TO_JANSSON)
		return rc;
	/* The reader changed its copy: the error needs the text as it is. */
	rc = perun_file_read(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = load_with_jansson(buf, len, path, out, err);
	free(buf);
	return rc;
}

/* ---- resource types --------------------------------------------------- */

/* perun_profile_foreach_type over a profile that is a tree. */
static int foreach_type_of_tree(const struct perun_profile *p, size_t from, perun_type_fn fn,
				void *data, struct perun_error *err)
{
	size_t at = 0;
	json_t *resources = json_object_get(p->root, "resources");
	struct json_tape t = { 0 };
	const char *type_id;
	json_t *persistent;
	int rc = 0;
	json_object_foreach(json_object_get(p->root, "resource_type_map"), type_id, persistent)
	{
		if (at++ < from)
			continue;
		json_t *columns = json_object_get(resources, type_id);
		t.n = 0;
		if (profile_tape_add_json(&t, persistent, NULL) ||
		    (columns && profile_tape_add_json(&t, columns, NULL))) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		const struct perun_jv *pers = t.nodes;
		rc = fn(type_id, pers, columns ? perun_jv_skip(pers) : &profile_empty_object, data);
		if (rc)
			break;
	}
	json_tape_release(&t);
	return rc;
}

int profile_foreach_type_from(const struct perun_profile *p, size_t from, perun_type_fn fn,
			      void *data, struct perun_error *err)
{
	if (!p->text)
		return foreach_type_of_tree(p, from, fn, data, err);
	const struct perun_jv *map = &p->tape.nodes[p->types], *id, *persistent;
	struct member_cursor resources;
	member_cursor_init(&resources, &p->tape.nodes[p->resources], p->same_order && !from);
	size_t i;
	int rc = 0, oom = 0;
	perun_jv_object_foreach(map, i, id, persistent)
	{
		if (i < from)
			continue;
		const struct perun_jv *columns = member_cursor_find(&resources, id, &oom);
		if (oom) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		rc = fn(id->u.s, persistent, columns ? columns : &profile_empty_object, data);
		if (rc)
			break;
	}
	member_cursor_release(&resources);
	return rc;
}

/* A walk shared by its walker and perun_profile_share_next_walk's
 * reader. */
struct shared_walk {
	perun_type_fn fn, sharer;
	void *data, *sharer_data;
	int refused; /* the sharer's non-zero return */
};

static int shared_type(const char *id, const struct perun_jv *persistent,
		       const struct perun_jv *columns, void *data)
{
	struct shared_walk *w = data;
	if (!w->refused && w->sharer(id, persistent, columns, w->sharer_data))
		w->refused = 1;
	return w->fn(id, persistent, columns, w->data);
}

static int walk_types(const struct perun_profile *p, perun_type_fn fn, void *data,
		      struct perun_error *err)
{
	/* Taken columns are made the compact form first; a streamed profile
	 * walks as its form does. */
	int rc = profile_settle(p, err);
	if (rc)
		return rc;
	if (p->form)
		return p->form->foreach_type(p, fn, data, err);
	return profile_foreach_type_from(p, 0, fn, data, err);
}

int perun_profile_foreach_type(const struct perun_profile *p, perun_type_fn fn, void *data,
			       struct perun_error *err)
{
	if (!p->sharer)
		return walk_types(p, fn, data, err);
	/* Logically const: the request is the walk's to take, once. */
	struct perun_profile *mp = (struct perun_profile *)p;
	struct shared_walk w = { fn, p->sharer, data, p->sharer_data, 0 };
	int *whole = p->sharer_whole;
	mp->sharer = NULL;
	mp->sharer_data = NULL;
	mp->sharer_whole = NULL;
	int rc = walk_types(p, shared_type, &w, err);
	*whole = !rc && !w.refused;
	return rc;
}

void perun_profile_share_next_walk(const struct perun_profile *p, perun_type_fn fn, void *data,
				   int *whole)
{
	struct perun_profile *mp = (struct perun_profile *)p;
	if (whole && fn)
		*whole = 0;
	mp->sharer = fn;
	mp->sharer_data = fn ? data : NULL;
	mp->sharer_whole = fn ? whole : NULL;
}

/* What a type list holds of its own (perun_type_list.copy). */
struct type_list_copy {
	struct json_tape tape;	     /* the types of a tree, copied */
	struct perun_profile *whole; /* a streamed profile read whole */
};

/* The types of a tree-form profile, copied into one tape the list owns. */
static int types_of_tree(const struct perun_profile *p, struct type_list_copy *copy,
			 struct perun_type_list *out)
{
	json_t *resources = json_object_get(p->root, "resources");
	json_t *map = json_object_get(p->root, "resource_type_map");
	json_t *none = json_object();
	struct json_tape *t = &copy->tape;
	size_t n = 0;
	const char *type_id;
	json_t *columns;
	if (!none)
		goto oom;
	/* Offsets first: the tape moves as it grows. */
	json_object_foreach(resources, type_id, columns)
	{
		json_t *persistent = json_object_get(map, type_id);
		struct perun_type_ref *r = &out->types[n++];
		r->id = type_id;
		r->persistent = (const struct perun_jv *)(uintptr_t)t->n;
		if (profile_tape_add_json(t, json_is_object(persistent) ? persistent : none, NULL))
			goto oom;
		r->columns = (const struct perun_jv *)(uintptr_t)t->n;
		if (profile_tape_add_json(t, columns, NULL))
			goto oom;
	}
	for (size_t i = 0; i < n; i++) {
		out->types[i].persistent = t->nodes + (uintptr_t)out->types[i].persistent;
		out->types[i].columns = t->nodes + (uintptr_t)out->types[i].columns;
	}
	out->n = n;
	json_decref(none);
	return 0;
oom:
	json_decref(none);
	return -1;
}

int perun_profile_types(const struct perun_profile *cp, struct perun_type_list *out,
			struct perun_error *err)
{
	const struct perun_profile *p;
	struct perun_profile *whole;
	struct type_list_copy *copy = NULL;
	memset(out, 0, sizeof(*out));
	/* A streamed profile: the list holds a whole load of its own. */
	int rc = profile_read_whole(cp, &p, &whole, err);
	if (rc)
		return rc;
	const struct perun_jv *resources = p->text ? &p->tape.nodes[p->resources] : NULL;
	size_t n = resources ? perun_jv_len(resources)
			     : json_object_size(json_object_get(p->root, "resources"));
	if (whole || !resources) {
		if (!(copy = calloc(1, sizeof(*copy)))) {
			perun_profile_free(whole);
			goto oom;
		}
		copy->whole = whole;
		out->copy = copy;
	}
	out->types = calloc(n ? n : 1, sizeof(*out->types));
	if (!out->types)
		goto oom;
	if (!resources) {
		if (types_of_tree(p, copy, out))
			goto oom;
		return 0;
	}
	struct member_cursor map;
	member_cursor_init(&map, &p->tape.nodes[p->types], p->same_order);
	const struct perun_jv *id, *columns;
	size_t i;
	int oom = 0;
	perun_jv_object_foreach(resources, i, id, columns)
	{
		/* Validated on load: every type of resources is in the map. */
		const struct perun_jv *persistent = member_cursor_find(&map, id, &oom);
		out->types[i] = (struct perun_type_ref){
			id->u.s, persistent ? persistent : &profile_empty_object, columns
		};
	}
	member_cursor_release(&map);
	if (oom)
		goto oom;
	out->n = n;
	return 0;
oom:
	perun_type_list_release(out);
	return perun_error_set(err, PERUN_EGENERIC, "out of memory");
}

void perun_type_list_release(struct perun_type_list *list)
{
	struct type_list_copy *copy = list->copy;
	free(list->types);
	if (copy) {
		json_tape_release(&copy->tape);
		perun_profile_free(copy->whole);
		free(copy);
	}
	memset(list, 0, sizeof(*list));
}

int perun_profile_set_new(struct perun_profile *p, const char *key, json_t *value)
{
	if ((!strcmp(key, "resources") || !strcmp(key, "resource_type_map")) && !profile_tree(p)) {
		json_decref(value);
		return -1;
	}
	return json_object_set_new(p->root, key, value);
}

static const char *string_or_empty(json_t *v)
{
	const char *s = json_string_value(v);
	return s ? s : "";
}

const char *perun_profile_type(const struct perun_profile *p)
{
	return string_or_empty(json_object_get(json_object_get(p->root, "header"), "type"));
}

const char *perun_profile_header(const struct perun_profile *p, const char *key)
{
	return string_or_empty(json_object_get(json_object_get(p->root, "header"), key));
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

int perun_profile_set_header(struct perun_profile *p, const char *key, const char *value)
{
	return json_object_set_new(ensure_object(p->root, "header"), key, json_string(value));
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
	return string_or_empty(json_object_get(json_object_get(p->root, "collector_info"), "name"));
}

int perun_profile_set_collector(struct perun_profile *p, const char *name, const json_t *params)
{
	json_t *info = ensure_object(p->root, "collector_info");
	json_object_set_new(info, "name", json_string(name));
	return json_object_set_new(info, "params", params ? json_deep_copy(params) : json_object());
}

int perun_profile_add_postprocessor(struct perun_profile *p, const char *name, const json_t *params)
{
	json_t *list = json_object_get(p->root, "postprocessors");
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(p->root, "postprocessors", list);
	}
	return json_array_append_new(list,
				     json_pack("{s:s,s:o}", "name", name, "params",
					       params ? json_deep_copy(params) : json_object()));
}

char *perun_profile_postprocessors_dup(const struct perun_profile *p)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	size_t i;
	json_t *post;
	json_array_foreach(json_object_get(p->root, "postprocessors"), i, post)
	{
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
