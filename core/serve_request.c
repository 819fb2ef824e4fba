/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What perun serve takes from a request before anything runs: the path
 * (no "." or ".." components, printable bytes), ids and session names,
 * and a run request's JSON body in its checked, normal form.  Free of
 * HTTP and of the server's state, so fuzz/fuzz_serve_request.c runs
 * it on any bytes.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve_request.h"
#include "serve_runs_internal.h"

/* A path to refuse: ".." or "." segments, backslashes, bytes outside
 * printable ASCII (after the URL's %-decoding). */
const char *perun_serve_path_problem(const char *path)
{
	if (path[0] != '/')
		return "does not start with '/'";
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x21 || *c > 0x7e || *c == '\\')
			return "holds a byte that no name here has";
	for (const char *seg = path; seg; seg = strchr(seg + 1, '/')) {
		size_t len = strcspn(seg + 1, "/");
		if ((len == 2 && !strncmp(seg + 1, "..", 2)) || (len == 1 && seg[1] == '.'))
			return "has a '.' or '..' component";
	}
	return NULL;
}

int serve_id_ok(const char *id)
{
	if (!id || strlen(id) != SERVE_ID_LEN)
		return 0;
	for (const char *p = id; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

int perun_serve_name_ok(const char *name)
{
	if (!name || !*name || strlen(name) > 200 || strstr(name, "..") || strchr(name, '/'))
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

static int word_ok(const char *s, size_t maxlen, int dash_inside)
{
	if (!s || !*s || strlen(s) > maxlen || !isalnum((unsigned char)s[0]))
		return 0;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && !(dash_inside && *p == '-'))
			return 0;
	return 1;
}

/* The options of a unit as an object of name: string, number, bool, or an
 * array of strings and numbers. */
static int options_check(const json_t *opts, const char *what, struct perun_error *err)
{
	if (!opts || json_is_null(opts))
		return 0;
	if (!json_is_object(opts))
		return perun_error_set(err, PERUN_EINVAL, "%s options: not an object", what);
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)opts, key, v)
	{
		if (!word_ok(key, 64, 1))
			return perun_error_set(err, PERUN_EINVAL, "%s option '%s': not a name",
					       what, key);
		if (json_is_array(v)) {
			size_t i;
			json_t *item;
			json_array_foreach(v, i, item) if (
				!json_is_string(item) &&
				!json_is_number(
					item)) return perun_error_set(err, PERUN_EINVAL,
								      "%s option '%s': items must "
								      "be strings or "
								      "numbers",
								      what, key);
		} else if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v) &&
			   !json_is_null(v))
			return perun_error_set(err, PERUN_EINVAL,
					       "%s option '%s': not a string, number, boolean or "
					       "array",
					       what, key);
	}
	return 0;
}

static const char *opt_string(const json_t *req, const char *key, int *bad)
{
	json_t *v = json_object_get(req, key);
	if (!v || json_is_null(v))
		return "";
	if (!json_is_string(v))
		*bad = 1;
	return json_string_value(v) ?: "";
}

/* Whether the first word of cmd names a program perun can run from root. */
static int command_found(const char *root, const char *cmd, char *word, size_t size)
{
	size_t n = strcspn(cmd, " \t");
	snprintf(word, size, "%.*s", (int)(n < size ? n : size - 1), cmd);
	if (strchr(word, '/')) {
		char path[PATH_MAX];
		if (word[0] == '/')
			snprintf(path, sizeof(path), "%s", word);
		else
			snprintf(path, sizeof(path), "%s/%s", root, word);
		struct stat st;
		return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
	}
	const char *env = getenv("PATH");
	char *paths = strdup(env ? env : "/usr/bin:/bin");
	int found = 0;
	for (char *save, *dir = strtok_r(paths, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, word);
		found = !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
	}
	free(paths);
	return found;
}

int perun_serve_run_request_check(const char *root, const json_t *req, json_t **out,
				  struct perun_error *err)
{
	if (!json_is_object(req))
		return perun_error_set(err, PERUN_EINVAL, "run request: not a JSON object");
	const char *known[] = { "session",	  "collector", "collector_options",
				"postprocessors", "command",   "args",
				"workload",	  "env",       NULL };
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)req, key, v)
	{
		size_t i = 0;
		while (known[i] && strcmp(known[i], key))
			i++;
		if (!known[i])
			return perun_error_set(err, PERUN_EINVAL, "run request: unknown field '%s'",
					       key);
	}
	int bad = 0;
	const char *session = opt_string(req, "session", &bad);
	if (bad || !serve_id_ok(session))
		return perun_error_set(err, PERUN_EINVAL,
				       "run request: 'session' is not a session id");
	const char *collector = opt_string(req, "collector", &bad);
	if (bad || !word_ok(collector, 64, 1))
		return perun_error_set(err, PERUN_EINVAL,
				       "run request: 'collector' is not a collector name");
	const char *command = opt_string(req, "command", &bad);
	if (bad || !*command || strlen(command) > 4096)
		return perun_error_set(err, PERUN_EINVAL,
				       "run request: 'command' must be a non-empty string");
	const char *args = opt_string(req, "args", &bad);
	const char *workload = opt_string(req, "workload", &bad);
	if (bad)
		return perun_error_set(err, PERUN_EINVAL,
				       "run request: 'args' and 'workload' must be strings");
	int rc = options_check(json_object_get(req, "collector_options"), "collector", err);
	if (rc)
		return rc;
	json_t *posts = json_object_get(req, "postprocessors");
	json_t *postn = json_array();
	if (posts && !json_is_null(posts) && !json_is_array(posts))
		bad = 1;
	size_t i;
	json_array_foreach(posts, i, v)
	{
		const char *name = json_string_value(json_object_get(v, "name"));
		if (!json_is_object(v) || !word_ok(name, 64, 1)) {
			bad = 1;
			break;
		}
		if ((rc = options_check(json_object_get(v, "options"), name, err)))
			break;
		json_t *o = json_object_get(v, "options");
		/* "o" takes the reference: a copy of the options, or a new {} */
		json_array_append_new(
			postn, json_pack("{s:s, s:o}", "name", name, "options",
					 json_is_object(o) ? json_deep_copy(o) : json_object()));
	}
	if (bad && !rc)
		rc = perun_error_set(err, PERUN_EINVAL,
				     "run request: 'postprocessors' must be a list of "
				     "{\"name\", \"options\"}");
	json_t *env = json_object_get(req, "env");
	if (!rc && env && !json_is_null(env)) {
		if (!json_is_object(env))
			rc = perun_error_set(err, PERUN_EINVAL,
					     "run request: 'env' is not an object");
		json_object_foreach(env, key, v)
		{
			if (rc)
				break;
			int name_ok = (isalpha((unsigned char)key[0]) || key[0] == '_') &&
				      strlen(key) < 256;
			for (const char *p = key; *p && name_ok; p++)
				name_ok = isalnum((unsigned char)*p) || *p == '_';
			if (!name_ok)
				rc = perun_error_set(
					err, PERUN_EINVAL,
					"run request: environment variable '%s': not a "
					"name",
					key);
			else if (!json_is_string(v))
				rc = perun_error_set(
					err, PERUN_EINVAL,
					"run request: environment variable '%s': not a "
					"string",
					key);
		}
	}
	/* Attached to a running process (--pid of counters and kperf), the
	 * command only names the profile, as for perun collect -c. */
	json_t *pid = json_object_get(json_object_get(req, "collector_options"), "pid");
	const char *pid_text = json_string_value(pid);
	int attached = json_is_integer(pid) ? json_integer_value(pid) != 0
		       : pid_text	    ? *pid_text && strcmp(pid_text, "0")
					    : 0;
	char word[256];
	if (!rc && !attached && !command_found(root, command, word, sizeof(word)))
		rc = perun_error_set(err, PERUN_EINVAL, "command '%s': no such program", word);
	if (rc) {
		json_decref(postn);
		return rc;
	}
	json_t *copts = json_object_get(req, "collector_options");
	*out = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:o}", "session", session,
			 "collector", collector, "collector_options",
			 json_is_object(copts) ? json_deep_copy(copts) : json_object(),
			 "postprocessors", postn, "command", command, "args", args, "workload",
			 workload, "env",
			 json_is_object(env) ? json_deep_copy(env) : json_object());
	return 0;
}
