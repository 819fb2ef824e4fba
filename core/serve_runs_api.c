/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve's runs over HTTP (docs/perun-serve.md): sessions, runs,
 * their downloads and their live events as Server-Sent Events, the event
 * list of the counters picker, and the Runs page.  The work is done by
 * serve_runs.c, which needs no core lock: it only spawns perun.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perun/fsutil.h>

#include "serve_routes.h"
#include "serve_runs.h"
#include "xalloc.h"

static struct perun_serve_runs *runs;

int perun_serve_runs_start(const char *root, int read_only, struct perun_error *err)
{
	return perun_serve_runs_open(&runs, root, NULL, read_only, err);
}

void perun_serve_runs_stop(void)
{
	perun_serve_runs_close(runs);
	runs = NULL;
}

/* doc (taken) with status, or err's error. */
static void reply_result(struct perun_serve_reply *reply, int rc, unsigned status, json_t *doc,
			 const struct perun_error *err)
{
	if (rc) {
		json_decref(doc);
		perun_serve_reply_perun_error(reply, err);
	} else
		perun_serve_reply_json(reply, status, doc);
}

/* The "name" of a JSON body, or NULL after replying 400. */
static json_t *body_name(struct perun_serve_request *req, struct perun_serve_reply *reply,
			 const char **name)
{
	json_t *body = perun_serve_body_json(req, reply);
	if (!body)
		return NULL;
	*name = json_string_value(json_object_get(body, "name"));
	if (!json_is_object(body) || !*name) {
		json_decref(body);
		perun_serve_reply_error(reply, 400,
					"the body must be {\"name\": \"<session name>\"}");
		return NULL;
	}
	return body;
}

void serve_api_sessions(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	json_t *list = NULL;
	int rc = perun_serve_sessions_list(runs, perun_serve_query(req, "q", NULL), &list, &err);
	reply_result(reply, rc, 200,
		     rc ? NULL : json_pack("{s:i, s:o}", "schema", 1, "sessions", list), &err);
}

void serve_api_session_create(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	const char *name;
	json_t *body = body_name(req, reply, &name), *s = NULL;
	if (!body)
		return;
	int rc = perun_serve_session_create(runs, name, &s, &err);
	json_decref(body);
	reply_result(reply, rc, 201, s, &err);
}

void serve_api_session_get(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	const char *id = perun_serve_param(req, "id");
	json_t *s = NULL, *list = NULL;
	int rc = perun_serve_session_get(runs, id, &s, &err);
	if (!rc)
		rc = perun_serve_runs_list(runs, id, &list, &err);
	if (!rc)
		json_object_set_new(s, "runs", list);
	reply_result(reply, rc, 200, s, &err);
}

void serve_api_session_rename(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	const char *name;
	json_t *body = body_name(req, reply, &name), *s = NULL;
	if (!body)
		return;
	int rc = perun_serve_session_rename(runs, perun_serve_param(req, "id"), name, &s, &err);
	json_decref(body);
	reply_result(reply, rc, 200, s, &err);
}

void serve_api_session_delete(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	const char *id = perun_serve_param(req, "id");
	int rc = perun_serve_session_delete(runs, id, &err);
	reply_result(reply, rc, 200, json_pack("{s:s}", "deleted", id), &err);
}

void serve_api_runs(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	json_t *list = NULL;
	int rc = perun_serve_runs_list(runs, perun_serve_query(req, "session", NULL), &list, &err);
	reply_result(reply, rc, 200, rc ? NULL : json_pack("{s:i, s:o}", "schema", 1, "runs", list),
		     &err);
}

void serve_api_run_submit(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	json_t *body = perun_serve_body_json(req, reply), *run = NULL;
	if (!body)
		return;
	int rc = perun_serve_run_submit(runs, body, &run, &err);
	json_decref(body);
	reply_result(reply, rc, 201, run, &err);
}

void serve_api_run_get(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	json_t *run = NULL;
	int rc = perun_serve_run_get(runs, perun_serve_param(req, "id"), &run, &err);
	reply_result(reply, rc, 200, run, &err);
}

void serve_api_run_delete(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	const char *id = perun_serve_param(req, "id");
	int rc = perun_serve_run_delete(runs, id, &err);
	reply_result(reply, rc, 200, json_pack("{s:s}", "deleted", id), &err);
}

static void reply_run_file(struct perun_serve_request *req, struct perun_serve_reply *reply,
			   enum perun_serve_run_file which, const char *mime)
{
	struct perun_error err = { 0 };
	char path[PATH_MAX];
	char *data = NULL;
	size_t len = 0;
	int rc = perun_serve_run_file(runs, perun_serve_param(req, "id"), which, path, sizeof(path),
				      &err);
	/* A log not written yet (the run is queued) is empty. */
	if (!rc && perun_file_read(path, &data, &len, &err)) {
		rc = which == PERUN_SERVE_RUN_LOG && access(path, F_OK) ? 0 : -1;
		data = rc ? NULL : perun_xstrdup("");
		len = 0;
	}
	if (rc)
		perun_serve_reply_perun_error(reply, &err);
	else
		perun_serve_reply_buffer(reply, 200, mime, data, len);
}

void serve_api_run_log(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	reply_run_file(req, reply, PERUN_SERVE_RUN_LOG, "text/plain; charset=utf-8");
}

void serve_api_run_profile(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	reply_run_file(req, reply, PERUN_SERVE_RUN_PROFILE, "application/json");
}

/* Server-Sent Events: "id: <n>" and the event as data; "event: end" with
 * the run once it ended. */
struct sse {
	char id[64];
	unsigned long after;
	char *pending; /* text not handed out yet */
	size_t len, off;
	int ended;
	time_t quiet_since;
};

static void sse_free(void *data)
{
	struct sse *s = data;
	free(s->pending);
	free(s);
}

static void sse_add(struct sse *s, const char *text)
{
	size_t n = strlen(text);
	s->pending = perun_xrealloc(s->pending, s->len + n + 1);
	memcpy(s->pending + s->len, text, n + 1);
	s->len += n;
}

static long sse_next(void *data, char *buf, size_t max)
{
	struct sse *s = data;
	if (s->off == s->len) {
		if (s->ended)
			return -1;
		free(s->pending);
		s->pending = NULL;
		s->len = s->off = 0;
		json_t *events = NULL;
		int ended = 0;
		struct perun_error err = { 0 };
		if (perun_serve_run_events(runs, s->id, s->after, 256, 1000, &events, &ended,
					   &err)) {
			/* Deleted while watched: say so and end. */
			json_t *doc = json_pack("{s:s}", "error", err.message);
			char *msg = json_dumps(doc, JSON_COMPACT);
			json_decref(doc);
			sse_add(s, "event: error\ndata: ");
			sse_add(s, msg ? msg : "{}");
			sse_add(s, "\n\n");
			free(msg);
			s->ended = 1;
		}
		size_t i;
		json_t *e;
		json_array_foreach(events, i, e)
		{
			char *text = json_dumps(e, JSON_COMPACT | JSON_REAL_PRECISION(12));
			char head[48];
			snprintf(head, sizeof(head), "id: %lu\ndata: ", ++s->after);
			sse_add(s, head);
			sse_add(s, text ? text : "{}");
			sse_add(s, "\n\n");
			free(text);
		}
		json_decref(events);
		if (ended) {
			json_t *run = NULL;
			perun_serve_run_get(runs, s->id, &run, &err);
			char *text = run ? json_dumps(run, JSON_COMPACT) : NULL;
			sse_add(s, "event: end\ndata: ");
			sse_add(s, text ? text : "{}");
			sse_add(s, "\n\n");
			free(text);
			json_decref(run);
			s->ended = 1;
		}
		time_t now = time(NULL);
		if (s->len)
			s->quiet_since = now;
		else if (now - s->quiet_since >= 10) {
			/* A comment now and then finds clients that left. */
			sse_add(s, ": waiting\n\n");
			s->quiet_since = now;
		}
		if (!s->len)
			return 0;
	}
	size_t n = s->len - s->off < max ? s->len - s->off : max;
	memcpy(buf, s->pending + s->off, n);
	s->off += n;
	return (long)n;
}

void serve_api_run_events(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	const char *id = perun_serve_param(req, "id");
	json_t *run = NULL;
	long after;
	if (perun_serve_query_long(req, reply, "after", 0, 0, LONG_MAX, &after) < 0)
		return;
	if (perun_serve_run_get(runs, id, &run, &err)) {
		perun_serve_reply_perun_error(reply, &err);
		return;
	}
	json_decref(run);
	struct sse *s = perun_xmalloc(sizeof(*s));
	*s = (struct sse){ .after = (unsigned long)after, .quiet_since = time(NULL) };
	snprintf(s->id, sizeof(s->id), "%s", id);
	/* The browser reconnects after 1 s when the connection breaks. */
	sse_add(s, "retry: 1000\n\n");
	perun_serve_reply_stream(reply, "text/event-stream", sse_next, s, sse_free);
}

/* Chart.js for the live plot: Debian's libjs-chart.js, where the views
 * take it from ($PERUN_CHARTJS, as plugins/lib/view/html.c). */
void serve_page_runs_chartjs(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	const char *env = getenv("PERUN_CHARTJS");
	perun_serve_reply_file(reply,
			       env && *env ? env : "/usr/share/javascript/chart.js/chart.min.js");
}

/* The events of 'perun events --format json' (most used first), from
 * this perun, for the counters event picker. */
void serve_api_counters_events(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	int fds[2];
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || pipe2(fds, O_CLOEXEC)) {
		perun_serve_reply_error(reply, 500, "cannot run 'perun events'");
		return;
	}
	self[n] = '\0';
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none; /* the server's threads block its stop signals */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDWR);
		dup2(null, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execl(self, "perun", "events", "--format", "json", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char *out = NULL;
	size_t len = 0;
	char buf[65536];
	ssize_t got;
	while (pid > 0 &&
	       ((got = read(fds[0], buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR)))
		if (got > 0 && len < 64u << 20) {
			out = perun_xrealloc(out, len + (size_t)got + 1);
			memcpy(out + len, buf, (size_t)got);
			len += (size_t)got;
			out[len] = '\0';
		}
	close(fds[0]);
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	json_t *doc = out ? json_loads(out, 0, NULL) : NULL;
	free(out);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !doc) {
		json_decref(doc);
		perun_serve_reply_error(reply, 500,
					"'perun events' failed (is the counters collector built?)");
		return;
	}
	perun_serve_reply_json(reply, 200, doc);
}
