/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * serve-runs-driver <perun> <instance>: drive the runs and sessions of
 * perun serve (core/serve_runs.h) without HTTP.  It reads one command a
 * line from stdin and prints one compact JSON line for each, the result
 * or {"error": message, "code": n}:
 *
 *   session-create <name>       sessions [<query>]
 *   session-get <id>            session-rename <id> <name>
 *   session-delete <id>         submit <json request>
 *   runs [<session>]            run <id>
 *   delete <id>                 file <id> log|profile
 *   events <id> <after> <ms>    wait <id>  (every event until the end)
 *   sample <line>               (a counters line as a sample, or null)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_runs.h"

static void print(json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	puts(text ? text : "null");
	free(text);
	fflush(stdout);
}

static void result(int rc, json_t *v, const struct perun_error *err)
{
	if (rc)
		v = json_pack("{s:s, s:i}", "error", err->message, "code", err->code);
	print(v);
	json_decref(v);
}

/* Every event of run id until it ends, as {"events", "ended"}. */
static int wait_run(struct perun_serve_runs *rs, const char *id, json_t **out,
		    struct perun_error *err)
{
	json_t *all = json_array();
	int ended = 0;
	unsigned long after = 0;
	for (int rounds = 0; !ended && rounds < 1200; rounds++) {
		json_t *events;
		int rc = perun_serve_run_events(rs, id, after, 1000, 100, &events, &ended, err);
		if (rc) {
			json_decref(all);
			return rc;
		}
		after += json_array_size(events);
		json_array_extend(all, events);
		json_decref(events);
	}
	*out = json_pack("{s:o, s:b}", "events", all, "ended", ended);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: serve-runs-driver <perun> <instance>\n");
		return 2;
	}
	struct perun_serve_runs *rs;
	struct perun_error err = { 0 };
	if (perun_serve_runs_open(&rs, argv[2], argv[1], 0, &err)) {
		fprintf(stderr, "serve-runs-driver: %s\n", err.message);
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		char *rest = strchr(line, ' ');
		if (rest)
			*rest++ = '\0';
		char *whole = rest ? strdup(rest) : NULL;
		char *a1 = rest, *a2 = NULL, *a3 = NULL;
		if (rest && (a2 = strchr(rest, ' ')))
			*a2++ = '\0';
		if (a2 && (a3 = strchr(a2, ' ')))
			*a3++ = '\0';
		json_t *v = NULL;
		int rc = 0;
		perun_error_clear(&err);
		if (!strcmp(line, "session-create"))
			rc = perun_serve_session_create(rs, whole, &v, &err);
		else if (!strcmp(line, "sessions"))
			rc = perun_serve_sessions_list(rs, whole, &v, &err);
		else if (!strcmp(line, "session-get"))
			rc = perun_serve_session_get(rs, a1, &v, &err);
		else if (!strcmp(line, "session-rename"))
			rc = perun_serve_session_rename(rs, a1, a2 ? whole + (a2 - rest) : NULL, &v,
							&err);
		else if (!strcmp(line, "session-delete")) {
			rc = perun_serve_session_delete(rs, a1, &err);
			v = json_true();
		} else if (!strcmp(line, "submit")) {
			json_error_t jerr;
			json_t *req = json_loads(whole ? whole : "", 0, &jerr);
			rc = req ? perun_serve_run_submit(rs, req, &v, &err)
				 : perun_error_set(&err, PERUN_EINVAL, "not JSON: %s", jerr.text);
			json_decref(req);
		} else if (!strcmp(line, "runs"))
			rc = perun_serve_runs_list(rs, rest, &v, &err);
		else if (!strcmp(line, "run"))
			rc = perun_serve_run_get(rs, a1, &v, &err);
		else if (!strcmp(line, "delete")) {
			rc = perun_serve_run_delete(rs, a1, &err);
			v = json_true();
		} else if (!strcmp(line, "file")) {
			char path[4096];
			rc = perun_serve_run_file(rs, a1,
						  a2 && !strcmp(a2, "log")
							  ? PERUN_SERVE_RUN_LOG
							  : PERUN_SERVE_RUN_PROFILE,
						  path, sizeof(path), &err);
			v = json_string(rc ? "" : path);
		} else if (!strcmp(line, "events")) {
			json_t *events;
			int ended;
			rc = perun_serve_run_events(rs, a1, a2 ? strtoul(a2, NULL, 10) : 0, 1000,
						    a3 ? atoi(a3) : 0, &events, &ended, &err);
			if (!rc)
				v = json_pack("{s:o, s:b}", "events", events, "ended", ended);
		} else if (!strcmp(line, "wait"))
			rc = wait_run(rs, a1, &v, &err);
		else if (!strcmp(line, "sample")) {
			v = perun_serve_counters_sample(whole ? whole : "");
			if (!v)
				v = json_null();
		} else
			rc = perun_error_set(&err, PERUN_EINVAL, "unknown command '%s'", line);
		if (rc)
			json_decref(v), v = NULL;
		result(rc, v, &err);
		free(whole);
	}
	free(line);
	perun_serve_runs_close(rs);
	return 0;
}
