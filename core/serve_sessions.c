/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun serve: sessions, the named groups of runs, and the shared files. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <perun/fsutil.h>

#include "serve_runs_internal.h"

void serve_new_id(char id[SERVE_ID_LEN + 1])
{
	unsigned char raw[SERVE_ID_LEN / 2];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		/* No entropy yet: time and pid still make it unique here. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		unsigned long long v = (unsigned long long)ts.tv_sec * 1000000000ull +
				       (unsigned long long)ts.tv_nsec + (unsigned)getpid();
		memcpy(raw, &v, sizeof(raw));
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		sprintf(id + 2 * i, "%02x", raw[i]);
}

void serve_now(char buf[32])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

int serve_path(const struct perun_serve_runs *rs, const char *kind, const char *id, const char *ext,
	       char *path, size_t size, struct perun_error *err)
{
	if (!serve_id_ok(id))
		return perun_error_set(err, PERUN_EINVAL, "%s id '%s': not %d hex digits",
				       kind[0] == 's' ? "session" : "run", id ? id : "",
				       SERVE_ID_LEN);
	if ((size_t)snprintf(path, size, "%s/%s/%s.%s", rs->dir, kind, id, ext) >= size)
		return perun_error_set(err, PERUN_EINVAL, "'%s': path too long", rs->dir);
	return 0;
}

int serve_load(const char *path, json_t **out, struct perun_error *err)
{
	json_error_t jerr;
	*out = json_load_file(path, 0, &jerr);
	if (*out && json_is_object(*out))
		return 0;
	json_decref(*out);
	*out = NULL;
	if (access(path, F_OK) && errno == ENOENT)
		return perun_error_set(err, PERUN_ENOTFOUND, "'%s': no such file", path);
	return perun_error_set(err, PERUN_EGENERIC, "cannot read '%s': %s", path, jerr.text);
}

int serve_save(const char *path, const json_t *obj, struct perun_error *err)
{
	char *text = json_dumps(obj, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "'%s': out of memory", path);
	size_t len = strlen(text);
	text[len] = '\0';
	int rc = perun_file_write_atomic(path, text, len, err);
	free(text);
	return rc;
}

static int newest_first(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *cx = json_string_value(json_object_get(x, "created"));
	const char *cy = json_string_value(json_object_get(y, "created"));
	int c = strcmp(cy ? cy : "", cx ? cx : "");
	if (c)
		return c;
	const char *ix = json_string_value(json_object_get(x, "id"));
	const char *iy = json_string_value(json_object_get(y, "id"));
	return strcmp(iy ? iy : "", ix ? ix : "");
}

json_t *serve_load_all(const struct perun_serve_runs *rs, const char *kind)
{
	char dirpath[4096];
	snprintf(dirpath, sizeof(dirpath), "%s/%s", rs->dir, kind);
	json_t *all = json_array();
	DIR *d = opendir(dirpath);
	if (!d)
		return all;
	size_t n = 0, cap = 0;
	json_t **items = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len != SERVE_ID_LEN + 5 || strcmp(de->d_name + SERVE_ID_LEN, ".json"))
			continue;
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", dirpath, de->d_name);
		json_t *obj;
		if (serve_load(path, &obj, NULL))
			continue; /* a torn file cannot exist; a foreign one is skipped */
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			json_t **grown = realloc(items, cap * sizeof(*items));
			if (!grown) {
				json_decref(obj);
				break;
			}
			items = grown;
		}
		items[n++] = obj;
	}
	closedir(d);
	if (n)
		qsort(items, n, sizeof(*items), newest_first);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(all, items[i]);
	free(items);
	return all;
}

/* Session id into *out, its file's path into path. */
static int session_load(struct perun_serve_runs *rs, const char *id, json_t **out, char path[4096],
			struct perun_error *err)
{
	int rc = serve_path(rs, "sessions", id, "json", path, 4096, err);
	if (rc)
		return rc;
	rc = serve_load(path, out, err);
	if (rc == -PERUN_ENOTFOUND)
		perun_error_set(err, PERUN_ENOTFOUND, "session '%s': no such session", id);
	return rc;
}

int perun_serve_session_create(struct perun_serve_runs *rs, const char *name, json_t **out,
			       struct perun_error *err)
{
	if (!perun_serve_name_ok(name))
		return perun_error_set(err, PERUN_EINVAL,
				       "session name '%s': empty, too long, or with '..', '/' "
				       "or a control character",
				       name ? name : "");
	char id[SERVE_ID_LEN + 1], now[32], path[4096];
	serve_new_id(id);
	serve_now(now);
	json_t *s = json_pack("{s:s, s:s, s:s}", "id", id, "name", name, "created", now);
	pthread_mutex_lock(&rs->lock);
	int rc = serve_path(rs, "sessions", id, "json", path, sizeof(path), err);
	if (!rc)
		rc = serve_save(path, s, err);
	pthread_mutex_unlock(&rs->lock);
	if (rc) {
		json_decref(s);
		return rc;
	}
	json_object_set_new(s, "runs", json_integer(0));
	*out = s;
	return 0;
}

/* strcasestr over a possibly NULL haystack. */
static int contains(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle);
}

int perun_serve_sessions_list(struct perun_serve_runs *rs, const char *query, json_t **out,
			      struct perun_error *err)
{
	(void)err;
	pthread_mutex_lock(&rs->lock);
	json_t *sessions = serve_load_all(rs, "sessions");
	json_t *runs = serve_load_all(rs, "runs");
	pthread_mutex_unlock(&rs->lock);
	json_t *found = json_array();
	size_t i, j;
	json_t *s, *r;
	json_array_foreach(sessions, i, s)
	{
		const char *id = json_string_value(json_object_get(s, "id"));
		int hit = !query || !*query ||
			  contains(json_string_value(json_object_get(s, "name")), query);
		json_int_t count = 0;
		json_array_foreach(runs, j, r)
		{
			if (!id ||
			    strcmp(id, json_string_value(json_object_get(r, "session")) ?: ""))
				continue;
			count++;
			json_t *req = json_object_get(r, "request");
			if (!hit &&
			    contains(json_string_value(json_object_get(req, "command")), query))
				hit = 1;
		}
		if (!hit)
			continue;
		json_object_set_new(s, "runs", json_integer(count));
		json_array_append(found, s);
	}
	json_decref(sessions);
	json_decref(runs);
	*out = found;
	return 0;
}

int perun_serve_session_get(struct perun_serve_runs *rs, const char *id, json_t **out,
			    struct perun_error *err)
{
	char path[4096];
	pthread_mutex_lock(&rs->lock);
	int rc = session_load(rs, id, out, path, err);
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

int perun_serve_session_rename(struct perun_serve_runs *rs, const char *id, const char *name,
			       json_t **out, struct perun_error *err)
{
	if (!perun_serve_name_ok(name))
		return perun_error_set(err, PERUN_EINVAL,
				       "session name '%s': empty, too long, or with '..', '/' "
				       "or a control character",
				       name ? name : "");
	char path[4096];
	json_t *s = NULL;
	pthread_mutex_lock(&rs->lock);
	int rc = session_load(rs, id, &s, path, err);
	if (!rc) {
		json_object_set_new(s, "name", json_string(name));
		rc = serve_save(path, s, err);
	}
	pthread_mutex_unlock(&rs->lock);
	if (rc) {
		json_decref(s);
		return rc;
	}
	*out = s;
	return 0;
}

int perun_serve_session_delete(struct perun_serve_runs *rs, const char *id, struct perun_error *err)
{
	char path[4096];
	json_t *s = NULL;
	pthread_mutex_lock(&rs->lock);
	int rc = session_load(rs, id, &s, path, err);
	if (!rc) {
		json_t *runs = serve_load_all(rs, "runs");
		size_t i;
		json_t *r;
		json_array_foreach(runs, i, r)
		{
			const char *rid = json_string_value(json_object_get(r, "id"));
			if (!rc &&
			    !strcmp(id, json_string_value(json_object_get(r, "session")) ?: ""))
				rc = serve_run_delete_locked(rs, rid, err);
		}
		json_decref(runs);
		/* The session goes last: a failure above leaves it to retry. */
		if (!rc && unlink(path))
			rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot remove '%s'",
						   path);
	}
	pthread_mutex_unlock(&rs->lock);
	json_decref(s);
	return rc;
}
