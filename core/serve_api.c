/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve's JSON API (docs/serve.md): the data of the CLI commands
 * (log, status, show, showdiff, check, plugins) in their --format json
 * shapes, made by the same code.  Handlers use the one open instance
 * (instance_get) holding the core lock (serve_http.h).
 */
#define _GNU_SOURCE /* strcasestr, qsort_r */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "autoconfig.h"
#include "check.h"
#include "cmd_util.h"
#include "json_reports.h"
#include "plugin_help.h"
#include "plugin_loader.h"
#include "serve_routes.h"
#include "views.h"
#include "xalloc.h"

/*
 * The instance, opened once and kept (its configuration, the VCS): a
 * request costs no open.  It is opened again when a configuration file
 * changes, as a new perun would read it.  Used holding the core lock;
 * NULL after replying with the error.
 */
static struct perun_instance served;
static int served_open;
static uint64_t served_config;

static uint64_t config_stamp(void);

static struct perun_instance *instance_get(struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	uint64_t stamp = config_stamp();
	if (served_open && stamp == served_config)
		return &served;
	if (served_open)
		perun_instance_close(&served);
	served_open = !perun_instance_open(&served, &err);
	if (!served_open) {
		perun_serve_reply_perun_error(reply, &err);
		return NULL;
	}
	served_config = stamp;
	return &served;
}

void serve_api_csrf(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	perun_serve_reply_json(reply, 200, json_pack("{s:s}", "csrf", perun_serve_csrf(req)));
}

void serve_api_info(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_instance *inst;
	struct perun_error err = { 0 };
	char head[65] = "";
	perun_serve_lock();
	if (!(inst = instance_get(reply))) {
		perun_serve_unlock();
		return;
	}
	/* A repository without commits has no HEAD yet: null then. */
	int no_head = perun_resolve_minor(inst, NULL, head, &err);
	json_t *doc = json_pack(
		"{s:i,s:s,s:s,s:s,s:o,s:b,s:s}", "schema", 1, "version", PACKAGE_VERSION, "root",
		inst->root, "vcs", inst->vcs.type ? inst->vcs.type : "", "head",
		no_head ? json_null() : json_string(head), "read_only",
		perun_serve_config(req)->read_only, "listen", perun_serve_config(req)->listen);
	perun_serve_unlock();
	perun_serve_reply_json(reply, 200, doc);
}

void serve_api_plugins(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	const char *kind = perun_serve_query(req, "kind", NULL);
	if (kind && !perun_plugin_kind_from_name(kind)) {
		perun_serve_reply_error(reply, 400, "no plugin kind '%s'", kind);
		return;
	}
	struct perun_loaded_plugin **entries;
	perun_serve_lock();
	size_t n = perun_plugins_scan(&entries);
	json_t *all = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct perun_loaded_plugin *e = entries[i];
		if (e->shadowed_by || (kind && e->kind != perun_plugin_kind_from_name(kind)))
			continue;
		json_array_append_new(all, perun_plugin_entry_json(e, 1));
	}
	perun_plugins_scan_free(entries, n);
	perun_serve_unlock();
	perun_serve_reply_json(reply, 200, json_pack("{s:i,s:o}", "schema", 1, "plugins", all));
}

/* ---- Commits ---- */

/* Resolve rev (NULL: HEAD) to sha, or reply 404/400. */
static int resolve_rev(struct perun_instance *inst, const char *rev, char sha[65],
		       struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	if (rev && rev[0] == '-') {
		perun_serve_reply_error(reply, 400, "revision '%s' starts with '-'", rev);
		return -1;
	}
	if (!perun_resolve_minor(inst, rev, sha, &err))
		return 0;
	perun_serve_reply_error(reply, 404, "%s", err.message);
	return -1;
}

/* The log with each version's tracked profiles ("tracked", as perun
 * status lists them) for the project page's filters. */
static int log_add_profiles(struct perun_instance *inst, json_t *doc, struct perun_error *err)
{
	json_t *versions = json_object_get(doc, "minor_versions"), *v;
	size_t i;
	json_array_foreach(versions, i, v)
	{
		struct perun_profile_list tracked = { 0 };
		json_t *count = json_object_get(json_object_get(v, "profiles"), "all");
		if (json_object_get(v, "index_damaged") || !json_integer_value(count)) {
			json_object_set_new(v, "tracked", json_array());
			continue;
		}
		int rc = perun_profiles_tracked(
			inst, json_string_value(json_object_get(v, "checksum")), &tracked, err);
		if (rc)
			return rc;
		json_object_set_new(v, "tracked", perun_profile_list_json(&tracked, 'i'));
		perun_profile_list_release(&tracked);
	}
	return 0;
}

/*
 * What the log depends on in the store, as one number: the entries of
 * .perun and of its subdirectories (objects/<aa>/ holds the indexes and
 * .changes files, which are replaced by renames, so the directory's
 * time changes with each) with their times and sizes, and the shared
 * configuration.  A change anywhere gives another number.
 */
static void stamp_add(uint64_t *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		*h = (*h ^ p[i]) * 1099511628211ULL;
}

static void stamp_stat(uint64_t *h, const char *path)
{
	struct stat st;
	stamp_add(h, path, strlen(path) + 1);
	if (stat(path, &st))
		return;
	stamp_add(h, &st.st_mtim, sizeof(st.st_mtim));
	stamp_add(h, &st.st_size, sizeof(st.st_size));
	stamp_add(h, &st.st_ino, sizeof(st.st_ino));
}

/* dir and what is in it down to depth levels (0: the directory only). */
static void stamp_dir(uint64_t *h, const char *dir, int depth)
{
	stamp_stat(h, dir);
	if (!depth)
		return;
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4200];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lock"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			stamp_dir(h, path, depth - 1);
		else
			stamp_stat(h, path);
	}
	if (d)
		closedir(d);
}

/* The shared configuration file (config.c's rule: $PERUN_CONFIG_DIR,
 * $XDG_CONFIG_HOME/perun, ~/.config/perun). */
static void stamp_shared_config(uint64_t *h)
{
	const char *cfg = getenv("PERUN_CONFIG_DIR"), *xdg = getenv("XDG_CONFIG_HOME"),
		   *home = getenv("HOME");
	char path[4200];
	if (cfg && *cfg)
		snprintf(path, sizeof(path), "%s/shared.yml", cfg);
	else if (xdg && *xdg)
		snprintf(path, sizeof(path), "%s/perun/shared.yml", xdg);
	else
		snprintf(path, sizeof(path), "%s/.config/perun/shared.yml", home ? home : "");
	stamp_stat(h, path);
}

static uint64_t store_stamp(const struct perun_instance *inst)
{
	uint64_t h = 14695981039346656037ULL;
	stamp_dir(&h, inst->dir, 2);
	stamp_shared_config(&h);
	return h;
}

/* The configuration files of the served instance (0 before it opened). */
static uint64_t config_stamp(void)
{
	uint64_t h = 14695981039346656037ULL;
	if (!served_open)
		return 0;
	char *local = perun_instance_path(&served, "local.yml");
	stamp_stat(&h, local);
	free(local);
	stamp_shared_config(&h);
	return h;
}

/* The last /api/log reply of each kind, kept while the store and the
 * history stay as they were (under the core lock). */
static struct log_cache {
	char key[256];
	char *text;
	size_t len;
} log_cache[2];

/* The log from sha (with each version's profiles when with) into the
 * cache, unless it holds it for the store as it is; the cache entry, or
 * NULL with err.  Called holding the core lock. */
static struct log_cache *log_cached(struct perun_instance *inst, const char *sha, int with,
				    struct perun_error *err)
{
	char key[256];
	json_t *doc = NULL;
	struct log_cache *c = &log_cache[with];
	snprintf(key, sizeof(key), "%s %016llx", sha, (unsigned long long)store_stamp(inst));
	if (c->text && !strcmp(c->key, key))
		return c;
	int rc = perun_log_json(inst, sha, &doc, err);
	if (!rc && with)
		rc = log_add_profiles(inst, doc, err);
	char *text = rc ? NULL : json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!rc && !text)
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (rc)
		return NULL;
	free(c->text);
	c->text = text;
	c->len = strlen(text);
	snprintf(c->key, sizeof(c->key), "%s", key);
	return c;
}

void serve_api_log(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_instance *inst;
	struct perun_error err = { 0 };
	char sha[65];
	const char *rev = perun_serve_query(req, "rev", NULL);
	const char *profiles = perun_serve_query(req, "profiles", "0");
	if (strcmp(profiles, "0") && strcmp(profiles, "1")) {
		perun_serve_reply_error(reply, 400,
					"query parameter 'profiles': '%s' is not 0 or 1", profiles);
		return;
	}
	perun_serve_lock();
	if ((inst = instance_get(reply)) && !resolve_rev(inst, rev, sha, reply)) {
		struct log_cache *c = log_cached(inst, sha, !strcmp(profiles, "1"), &err);
		if (c)
			perun_serve_reply_buffer(reply, 200, "application/json",
						 perun_xstrndup(c->text, c->len), c->len);
		else
			perun_serve_reply_perun_error(reply, &err);
	}
	perun_serve_unlock();
}

void serve_api_warm(void)
{
	struct perun_serve_reply *scratch = perun_serve_reply_new();
	struct perun_instance *inst;
	struct perun_error err = { 0 };
	char sha[65];
	perun_serve_lock();
	/* A history without commits, or a broken one, is left to requests. */
	if ((inst = instance_get(scratch)) && !perun_resolve_minor(inst, NULL, sha, &err))
		log_cached(inst, sha, 1, &err);
	perun_serve_unlock();
	perun_serve_reply_free(scratch);
}

static void commit_reply(struct perun_serve_request *req, struct perun_serve_reply *reply,
			 int with_profiles)
{
	struct perun_instance *inst;
	struct perun_error err = { 0 };
	struct perun_profile_list tracked = { 0 };
	char sha[65];
	json_t *changes = NULL;
	perun_serve_lock();
	if (!(inst = instance_get(reply))) {
		perun_serve_unlock();
		return;
	}
	int rc = 0;
	if (resolve_rev(inst, perun_serve_param(req, "rev"), sha, reply))
		goto out;
	if ((rc = perun_check_changes_json(inst, sha, &changes, &err)))
		goto out;
	json_t *doc =
		json_pack("{s:i,s:s,s:o}", "schema", 1, "minor_version", sha, "changes", changes);
	if (with_profiles) {
		if ((rc = perun_profiles_tracked(inst, sha, &tracked, &err))) {
			json_decref(doc);
			goto out;
		}
		json_object_set_new(doc, "tracked", perun_profile_list_json(&tracked, 'i'));
	}
	perun_serve_reply_json(reply, 200, doc);
out:
	if (rc)
		perun_serve_reply_perun_error(reply, &err);
	perun_profile_list_release(&tracked);
	perun_serve_unlock();
}

void serve_api_commit_profiles(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	commit_reply(req, reply, 1);
}

void serve_api_commit_check(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	commit_reply(req, reply, 0);
}

void serve_api_pending(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	struct perun_instance *inst;
	struct perun_error err = { 0 };
	struct perun_profile_list pending = { 0 };
	perun_serve_lock();
	if ((inst = instance_get(reply))) {
		if (perun_profiles_pending(inst, &pending, &err))
			perun_serve_reply_perun_error(reply, &err);
		else
			perun_serve_reply_json(reply, 200,
					       json_pack("{s:i,s:o}", "schema", 1, "pending",
							 perun_profile_list_json(&pending, 'p')));
		perun_profile_list_release(&pending);
	}
	perun_serve_unlock();
}

/* ---- Events: the store changed ---- */

struct events {
	char head[65];
	uint64_t stamp;
	int sent;	/* the first event went out */
	unsigned quiet; /* ticks since the last bytes sent */
};

#define EVENTS_TICK_US	       250000
#define EVENTS_KEEPALIVE_TICKS 60 /* 15 s: a closed client is noticed */

/* One tick of GET /api/events: an event when the history or the store
 * changed since the last one (and at once on connecting), a comment now
 * and then to keep the connection, else nothing (called again). */
static long events_next(void *data, char *buf, size_t max)
{
	struct events *e = data;
	if (e->sent)
		usleep(EVENTS_TICK_US);
	struct perun_serve_reply *scratch = perun_serve_reply_new();
	struct perun_error err = { 0 };
	struct perun_instance *inst;
	char head[65] = "";
	uint64_t stamp = 0;
	perun_serve_lock();
	int ok = (inst = instance_get(scratch)) != NULL;
	if (ok) {
		if (perun_resolve_minor(inst, NULL, head, &err))
			head[0] = '\0';
		stamp = store_stamp(inst);
	}
	perun_serve_unlock();
	perun_serve_reply_free(scratch);
	if (!ok)
		return -1;
	if (!e->sent || stamp != e->stamp || strcmp(head, e->head)) {
		e->sent = 1;
		e->stamp = stamp;
		e->quiet = 0;
		snprintf(e->head, sizeof(e->head), "%s", head);
		return snprintf(buf, max, "event: store\ndata: {\"head\": %s%s%s}\n\n",
				*head ? "\"" : "", *head ? head : "null", *head ? "\"" : "");
	}
	if (++e->quiet < EVENTS_KEEPALIVE_TICKS)
		return 0;
	e->quiet = 0;
	return snprintf(buf, max, ": still here\n\n");
}

void serve_api_events(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	perun_serve_reply_stream(reply, "text/event-stream", events_next,
				 perun_xcalloc(1, sizeof(struct events)), free);
}

/* ---- Profiles ---- */

/* The profiles named by the query parameters names[0..n) (tracked at the
 * minor version "minor", default HEAD, or pending: never files), loaded
 * whole into out with their list entries in info; 0, or -1 after
 * replying.  Called holding the lock, with inst open. */
static int load_selected(struct perun_serve_request *req, struct perun_serve_reply *reply,
			 struct perun_instance *inst, const char *const *names, int n,
			 struct perun_profile *out[2], json_t *info[2])
{
	char sha[65];
	if (resolve_rev(inst, perun_serve_query(req, "minor", NULL), sha, reply))
		return -1;
	for (int k = 0; k < n; k++) {
		struct perun_error err = { 0 };
		struct perun_profile_list list = { 0 };
		const char *sel = perun_serve_query(req, names[k], NULL);
		if (!sel || !*sel) {
			perun_serve_reply_error(reply, 400,
						"query parameter '%s' (a profile) is missing",
						names[k]);
			return -1;
		}
		int rc = perun_profiles_select(
			inst, sha, sel, PERUN_SELECT_TRACKED | PERUN_SELECT_PENDING, &list, &err);
		if (!rc && list.n != 1)
			rc = perun_error_set(&err, list.n ? PERUN_EINVAL : PERUN_ENOTFOUND,
					     "'%s' names %zu profiles, not one", sel, list.n);
		if (!rc)
			rc = perun_profile_info_load(inst, &list.items[0], &out[k], &err);
		if (!rc && info)
			info[k] = perun_profile_info_json(&list.items[0], sel);
		perun_profile_list_release(&list);
		if (rc) {
			perun_serve_reply_perun_error(reply, &err);
			return -1;
		}
	}
	return 0;
}

static json_t *borrowed(json_t *v)
{
	return v ? json_incref(v) : json_null();
}

/* The keys of the first resources (the columns of the resource table). */
struct keys_walk {
	json_t *keys;
	size_t seen;
};

static int add_keys(const json_t *row, void *data)
{
	struct keys_walk *w = data;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)row, key, v)
	{
		size_t i;
		json_t *k;
		int have = 0;
		json_array_foreach(w->keys, i, k) have |= !strcmp(json_string_value(k), key);
		if (!have)
			json_array_append_new(w->keys, json_string(key));
	}
	return ++w->seen >= 1000;
}

void serve_api_profile(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_instance *inst;
	struct perun_profile *prof[2] = { NULL, NULL };
	json_t *info[2] = { NULL, NULL };
	static const char *const names[] = { "p" };
	perun_serve_lock();
	if (!(inst = instance_get(reply))) {
		perun_serve_unlock();
		return;
	}
	if (!load_selected(req, reply, inst, names, 1, prof, info)) {
		struct keys_walk kw = { json_array(), 0 };
		perun_profile_foreach_resource(prof[0], add_keys, &kw);
		json_t *models = perun_profile_get(prof[0], "models");
		json_t *doc = json_pack(
			"{s:i,s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:o}", "schema", 1, "profile", info[0],
			"header", borrowed(perun_profile_get(prof[0], "header")), "collector_info",
			borrowed(perun_profile_get(prof[0], "collector_info")), "postprocessors",
			borrowed(perun_profile_get(prof[0], "postprocessors")), "metadata",
			borrowed(perun_profile_get(prof[0], "metadata")), "resources",
			(json_int_t)perun_profile_resource_count(prof[0]), "models",
			(json_int_t)json_array_size(models), "keys", kw.keys);
		perun_serve_reply_json(reply, 200, doc);
	}
	perun_profile_free(prof[0]);
	perun_serve_unlock();
}

/* ---- Resources: paged, sorted, filtered ---- */

struct row_walk {
	json_t *rows;
	const char *q;	   /* substring of any value, case-insensitive, or NULL */
	const char *where; /* "<key>=<value>": that key has that value, or NULL */
	size_t total;
};

/* The row with nested values flattened to text, as perun show tableof does. */
static json_t *flat_row(const json_t *row)
{
	json_t *out = json_object();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)row, key, v)
	{
		if (json_is_object(v) || json_is_array(v)) {
			char *text = perun_value_flatten_dup(v);
			json_object_set_new(out, key, json_string(text ? text : ""));
			free(text);
		} else {
			json_object_set_new(out, key, json_deep_copy(v));
		}
	}
	return out;
}

static char *value_text(const json_t *v)
{
	if (json_is_string(v))
		return perun_xstrdup(json_string_value(v));
	char *text = json_dumps(v, JSON_ENCODE_ANY);
	return text ? text : perun_xstrdup("");
}

static int row_matches(const json_t *row, const struct row_walk *w)
{
	const char *key;
	json_t *v;
	if (w->where) {
		const char *eq = strchr(w->where, '=');
		json_t *have = json_object_getn(row, w->where, (size_t)(eq - w->where));
		if (!have)
			return 0;
		char *text = value_text(have);
		int same = !strcmp(text, eq + 1);
		free(text);
		if (!same)
			return 0;
	}
	if (!w->q || !*w->q)
		return 1;
	json_object_foreach((json_t *)row, key, v)
	{
		char *text = value_text(v);
		int hit = strcasestr(text, w->q) != NULL;
		free(text);
		if (hit)
			return 1;
	}
	return 0;
}

static int collect_rows(const json_t *row, void *data)
{
	struct row_walk *w = data;
	w->total++;
	json_t *flat = flat_row(row);
	if (row_matches(flat, w))
		json_array_append_new(w->rows, flat);
	else
		json_decref(flat);
	return 0;
}

struct sort_item {
	size_t index; /* the tie-break: equal keys keep the resources' order */
	json_t *row;
	double num;
	char *text;
	int is_num, missing;
};

static int compare_items(const void *a, const void *b, void *desc)
{
	const struct sort_item *x = a, *y = b;
	int c;
	if (x->missing != y->missing)
		return x->missing - y->missing; /* rows without the key last */
	if (x->is_num && y->is_num)
		c = (x->num > y->num) - (x->num < y->num);
	else if (x->is_num != y->is_num)
		c = y->is_num - x->is_num; /* numbers before text */
	else
		c = strcmp(x->text ? x->text : "", y->text ? y->text : "");
	if (*(int *)desc)
		c = -c;
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Sort rows by key, equal keys in the order they had. */
static void sort_rows(json_t *rows, const char *key, int desc)
{
	size_t n = json_array_size(rows);
	struct sort_item *items = perun_xcalloc(n + 1, sizeof(*items));
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(rows, i), *v = json_object_get(row, key);
		items[i].index = i;
		items[i].row = json_incref(row);
		items[i].missing = !v || json_is_null(v);
		items[i].is_num = json_is_number(v);
		items[i].num = json_is_number(v) ? json_number_value(v) : 0;
		items[i].text = items[i].is_num || !v ? NULL : value_text(v);
	}
	qsort_r(items, n, sizeof(*items), compare_items, &desc);
	json_array_clear(rows);
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(rows, items[i].row);
		free(items[i].text);
	}
	free(items);
}

void serve_api_resources(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_instance *inst;
	struct perun_profile *prof[2] = { NULL, NULL };
	static const char *const names[] = { "p" };
	long offset, limit;
	const char *sort = perun_serve_query(req, "sort", NULL);
	const char *order = perun_serve_query(req, "order", "asc");
	struct row_walk w = { .q = perun_serve_query(req, "q", NULL),
			      .where = perun_serve_query(req, "where", NULL) };
	if (perun_serve_query_long(req, reply, "offset", 0, 0, 1L << 40, &offset) ||
	    perun_serve_query_long(req, reply, "limit", 50, 1, 1000, &limit))
		return;
	if (strcmp(order, "asc") && strcmp(order, "desc")) {
		perun_serve_reply_error(reply, 400,
					"query parameter 'order': '%s' is not asc or desc", order);
		return;
	}
	if (w.where && !strchr(w.where, '=')) {
		perun_serve_reply_error(
			reply, 400, "query parameter 'where': '%s' is not <key>=<value>", w.where);
		return;
	}
	perun_serve_lock();
	if (!(inst = instance_get(reply))) {
		perun_serve_unlock();
		return;
	}
	int loaded = !load_selected(req, reply, inst, names, 1, prof, NULL);
	if (loaded) {
		w.rows = json_array();
		perun_profile_foreach_resource(prof[0], collect_rows, &w);
	}
	perun_profile_free(prof[0]);
	perun_serve_unlock();
	if (!loaded)
		return;
	if (sort)
		sort_rows(w.rows, sort, !strcmp(order, "desc"));
	size_t matched = json_array_size(w.rows);
	json_t *page = json_array();
	for (size_t i = (size_t)offset; i < matched && i < (size_t)(offset + limit); i++)
		json_array_append(page, json_array_get(w.rows, i));
	json_decref(w.rows);
	perun_serve_reply_json(reply, 200,
			       json_pack("{s:i,s:I,s:I,s:I,s:I,s:s?,s:s,s:o}", "schema", 1, "total",
					 (json_int_t)w.total, "matched", (json_int_t)matched,
					 "offset", (json_int_t)offset, "limit", (json_int_t)limit,
					 "sort", sort, "order", order, "rows", page));
}

/* ---- Views ---- */

/*
 * The views a browser shows, with the words that make them write HTML or
 * SVG: to the view's output ("-"), or (scatter, which writes a page and an
 * SVG per plot) into a private directory, from where the page is read.
 * Other options come from the query as opt.<name>=<value>, checked by the
 * view's own option parser; options naming files are refused.
 */
struct web_view {
	const char *name;
	int n; /* 1: perun show, 2: perun showdiff */
	const char *mime;
	const char *defaults[6]; /* option words given unless the query sets them */
	/* Views that write files write them into a private directory: this
	 * option gets "<dir>/<file_arg>", and the page is "<dir>/<page>". */
	const char *file_option, *file_arg, *page;
};

#define HTML "text/html; charset=utf-8"
#define AGGREGATED(view_name)                                                                      \
	{                                                                                          \
		.name = view_name, .n = 1, .mime = HTML,                                           \
		.defaults = { "--of", "amount", "--by", "uid" }, .file_option = "--filename",      \
		.file_arg = "view.html", .page = "view.html"                                       \
	}
static const struct web_view web_views[] = {
	{ .name = "flamegraph",
	  .n = 1,
	  .mime = "image/svg+xml",
	  .defaults = { "--output-file", "-" } },
	{ .name = "scatter",
	  .n = 1,
	  .mime = HTML,
	  .file_option = "--filename",
	  .file_arg = "view",
	  .page = "view.html" },
	/* bars and flow: each resource's amount, a series per uid */
	AGGREGATED("bars"),
	AGGREGATED("flow"),
	{ .name = "report", .n = 2, .mime = HTML, .defaults = { "--output-file", "-" } },
	{ .name = "flamegraph", .n = 2, .mime = HTML, .defaults = { "--output-file", "-" } },
	{ .name = "table",
	  .n = 2,
	  .mime = "text/plain; charset=utf-8",
	  .defaults = { "--output-file", "-" } },
};
#undef AGGREGATED
#undef HTML

static const struct web_view *web_view_find(const char *name, int n)
{
	for (size_t i = 0; i < sizeof(web_views) / sizeof(web_views[0]); i++)
		if (web_views[i].n == n && !strcmp(web_views[i].name, name))
			return &web_views[i];
	return NULL;
}

struct view_words {
	const struct perun_loaded_plugin *view;
	char **words;
	int n;
	char *bad; /* why the query's options were refused */
};

static void words_add(struct view_words *w, const char *word)
{
	w->words = perun_xrealloc(w->words, (size_t)(w->n + 2) * sizeof(char *));
	w->words[w->n++] = perun_xstrdup(word);
	w->words[w->n] = NULL;
}

static void words_release(struct view_words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->words[i]);
	free(w->words);
	free(w->bad);
}

static const struct perun_option *view_option(const struct perun_loaded_plugin *view,
					      const char *name)
{
	for (const struct perun_option *o = view->desc->options; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* Each opt.<name>=<value> of the query as view option words. */
static int add_query_option(const char *key, const char *value, void *data)
{
	struct view_words *w = data;
	char buf[300];
	if (strncmp(key, "opt.", 4))
		return 0;
	const char *name = key + 4;
	const struct perun_option *o = view_option(w->view, name);
	if (!o) {
		snprintf(buf, sizeof(buf), "view '%s' has no option '%s'", w->view->name, name);
		w->bad = perun_xstrdup(buf);
		return 1;
	}
	if (strstr(name, "file") || !strcmp(name, "output")) {
		snprintf(buf, sizeof(buf), "option '%s' writes files: not served", name);
		w->bad = perun_xstrdup(buf);
		return 1;
	}
	snprintf(buf, sizeof(buf), "--%s%s",
		 o->type == PERUN_OPTION_BOOL && !strcmp(value, "false") ? "no-" : "", name);
	words_add(w, buf);
	if (o->type == PERUN_OPTION_BOOL)
		return 0;
	/* A pair of words is given as "<key> <value>". */
	if (o->flags & PERUN_OPTION_PAIR) {
		const char *space = strchr(value, ' ');
		if (!space) {
			snprintf(buf, sizeof(buf), "option '%s' takes two words: '<key> <value>'",
				 name);
			w->bad = perun_xstrdup(buf);
			return 1;
		}
		char *first = perun_xstrndup(value, (size_t)(space - value));
		words_add(w, first);
		free(first);
		words_add(w, space + 1);
		return 0;
	}
	words_add(w, value);
	return 0;
}

static int query_sets(const char *key, const char *value, void *data)
{
	(void)value;
	return !strncmp(key, "opt.", 4) && !strcmp(key + 4, (const char *)data + 2);
}

/* Remove the view's directory and the files it wrote there. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4400];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path))
			perun_warn("serve: cannot remove %s: %s", path, strerror(errno));
	}
	if (d)
		closedir(d);
	if (rmdir(dir))
		perun_warn("serve: cannot remove %s: %s", dir, strerror(errno));
}

struct rendered {
	char *text;
	size_t len;
};

/* Render wv on the profiles the query names (p, or baseline and target),
 * into out; 0, or -1 after replying.  Called holding the lock. */
static int render_view(struct perun_serve_request *req, struct perun_serve_reply *reply,
		       const struct web_view *wv, struct rendered *out)
{
	static const char *const one[] = { "p" }, *const two[] = { "baseline", "target" };
	struct perun_instance *inst;
	struct perun_error err = { 0 };
	struct perun_profile *prof[2] = { NULL, NULL };
	struct view_words w = { 0 };
	enum perun_load_how how;
	char dir[4096], page[4200] = "";
	int rc = -1, made_dir = 0;
	if (perun_views_find(wv->name, wv->n, &w.view, &how, &err)) {
		perun_serve_reply_perun_error(reply, &err);
		return -1;
	}
	if (!(inst = instance_get(reply)))
		return -1;
	if (load_selected(req, reply, inst, wv->n == 2 ? two : one, wv->n, prof, NULL))
		goto out;
	for (int i = 0; wv->defaults[i]; i += 2) {
		if (perun_serve_query_each(req, query_sets, (void *)wv->defaults[i]))
			continue;
		words_add(&w, wv->defaults[i]);
		words_add(&w, wv->defaults[i + 1]);
	}
	if (perun_serve_query_each(req, add_query_option, &w)) {
		perun_serve_reply_error(reply, 400, "%s", w.bad);
		goto out;
	}
	if (wv->file_option) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/perun-serve-view-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			perun_serve_reply_error(reply, 500, "cannot make a directory for the view");
			goto out;
		}
		made_dir = 1;
		snprintf(page, sizeof(page), "%s/%s", dir, wv->file_arg);
		words_add(&w, wv->file_option);
		words_add(&w, page);
		snprintf(page, sizeof(page), "%s/%s", dir, wv->page);
	}
	char *const labels[2] = {
		(char *)perun_serve_query(req, wv->n == 2 ? "baseline" : "p", ""),
		(char *)perun_serve_query(req, "target", ""),
	};
	FILE *mem = open_memstream(&out->text, &out->len);
	if (!mem) {
		perun_serve_reply_error(reply, 500, "out of memory");
		goto out;
	}
	rc = perun_views_call(perun_serve_config(req)->cli, w.view, prof, labels, wv->n, w.n,
			      w.words, mem, &err);
	fclose(mem);
	if (!rc && made_dir) {
		free(out->text);
		out->text = NULL;
		rc = perun_file_read(page, &out->text, &out->len, &err);
	}
	if (rc) {
		/* The view refuses a profile it does not fit: bad input. */
		if (err.code == PERUN_EGENERIC && !strstr(err.message, "out of memory"))
			err.code = PERUN_EINVAL;
		perun_serve_reply_perun_error(reply, &err);
		free(out->text);
		out->text = NULL;
		rc = -1;
	}
out:
	if (made_dir)
		remove_dir(dir);
	words_release(&w);
	perun_profiles_free_two(prof);
	return rc;
}

static void view_reply(struct perun_serve_request *req, struct perun_serve_reply *reply, int n)
{
	const char *name = perun_serve_param(req, "view");
	const struct web_view *wv = web_view_find(name, n);
	if (!wv) {
		perun_serve_reply_error(reply, 404, "no view '%s' %s (GET %s)", name,
					n == 2 ? "compares profiles here"
					       : "is served for a profile",
					n == 2 ? "/api/compare/views" : "/api/profile/views");
		return;
	}
	struct rendered r = { 0 };
	perun_serve_lock();
	int rc = render_view(req, reply, wv, &r);
	perun_serve_unlock();
	if (!rc)
		perun_serve_reply_buffer(reply, 200, wv->mime, r.text, r.len);
}

/* The views shown for one profile (n 1) or a pair (n 2); with the
 * profiles named in the query, each is tried on them: "fits" and the
 * reason when it does not ("error"), so that a page asks only for the
 * views that fit. */
static void views_list(struct perun_serve_request *req, struct perun_serve_reply *reply, int n)
{
	int try = perun_serve_query(req, n == 2 ? "target" : "p", NULL) != NULL;
	json_t *list = json_array();
	perun_serve_lock();
	for (size_t i = 0; i < sizeof(web_views) / sizeof(web_views[0]); i++) {
		const struct web_view *wv = &web_views[i];
		struct perun_error err = { 0 };
		if (wv->n != n)
			continue;
		/* Views not built here are left out. */
		const struct perun_loaded_plugin *p =
			perun_plugin_load(PERUN_KIND_VIEW, wv->name, &err);
		if (!p)
			continue;
		json_t *defaults = json_array();
		for (int k = 0; wv->defaults[k]; k++)
			json_array_append_new(defaults, json_string(wv->defaults[k]));
		json_t *entry = perun_plugin_entry_json(p, 1);
		json_object_set_new(entry, "mime", json_string(wv->mime));
		json_object_set_new(entry, "defaults", defaults);
		if (try) {
			struct perun_serve_reply *scratch = perun_serve_reply_new();
			struct rendered r = { 0 };
			int fits = !render_view(req, scratch, wv, &r);
			free(r.text);
			json_object_set_new(entry, "fits", json_boolean(fits));
			if (!fits) {
				size_t len;
				const char *body = perun_serve_reply_body(scratch, &len);
				json_t *doc = json_loadb(body, len, 0, NULL);
				json_object_set(entry, "error", json_object_get(doc, "error"));
				json_decref(doc);
				/* Bad names and options are the request's fault,
				 * not the view's. */
				if (perun_serve_reply_status(scratch) != 400 ||
				    !strstr(json_string_value(json_object_get(entry, "error")),
					    "view '")) {
					perun_serve_reply_buffer(
						reply, perun_serve_reply_status(scratch),
						"application/json", perun_xstrndup(body, len), len);
					perun_serve_reply_free(scratch);
					json_decref(entry);
					json_decref(list);
					perun_serve_unlock();
					return;
				}
			}
			perun_serve_reply_free(scratch);
		}
		json_array_append_new(list, entry);
	}
	perun_serve_unlock();
	perun_serve_reply_json(reply, 200, json_pack("{s:i,s:o}", "schema", 1, "views", list));
}

void serve_api_views(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	views_list(req, reply, 1);
}

void serve_api_view(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	view_reply(req, reply, 1);
}

void serve_api_compare_views(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	views_list(req, reply, 2);
}

void serve_api_compare_view(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	view_reply(req, reply, 2);
}
