/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun serve: the runs, their queue, their worker and their live events. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perun/fsutil.h>

#include "serve_request.h"
#include "serve_runs_internal.h"

extern char **environ;

/* A line longer than this is cut into events of this size. */
#define LINE_MAX_BYTES 4096
/* Events kept in memory per run; the log keeps everything. */
#define EVENTS_MAX 200000
/* The lines of output a failed run keeps as its error. */
#define ERROR_LINES 12

static int run_load(struct perun_serve_runs *rs, const char *id, json_t **out,
		    struct perun_error *err)
{
	char path[4096];
	int rc = serve_path(rs, "runs", id, "json", path, sizeof(path), err);
	if (rc)
		return rc;
	rc = serve_load(path, out, err);
	if (rc == -PERUN_ENOTFOUND)
		perun_error_set(err, PERUN_ENOTFOUND, "run '%s': no such run", id);
	return rc;
}

static int run_save(struct perun_serve_runs *rs, const json_t *run, struct perun_error *err)
{
	char path[4096];
	int rc = serve_path(rs, "runs", json_string_value(json_object_get(run, "id")), "json", path,
			    sizeof(path), err);
	return rc ? rc : serve_save(path, run, err);
}

/* Events */

json_t *perun_serve_counters_sample(const char *line)
{
	char *words[6];
	size_t n = 0;
	char buf[LINE_MAX_BYTES + 1];
	snprintf(buf, sizeof(buf), "%s", line);
	for (char *save, *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n == 6)
			return NULL;
		words[n++] = w;
	}
	if (n < 3)
		return NULL;
	char *end;
	errno = 0;
	double t = strtod(words[0], &end);
	if (*end || !strchr(words[0], '.') || errno || t < 0)
		return NULL;
	double value = strtod(words[1], &end);
	if (*end || errno || !isdigit((unsigned char)words[1][0]))
		return NULL;
	size_t k = 2;
	const char *unit = "count";
	if (!strcmp(words[k], "msec")) {
		unit = "msec";
		k++;
	}
	if (k >= n)
		return NULL;
	const char *event = words[k++];
	double pct = 100;
	if (k < n) {
		/* "(62.50%)": the share of the interval the counter ran. */
		size_t len = strlen(words[k]);
		if (k + 1 != n || len < 4 || words[k][0] != '(' || strcmp(words[k] + len - 2, "%)"))
			return NULL;
		pct = strtod(words[k] + 1, &end);
		if (end != words[k] + len - 2)
			return NULL;
	}
	if (!isalpha((unsigned char)event[0]) && event[0] != '_')
		return NULL;
	return json_pack("{s:f, s:s, s:f, s:s, s:f}", "t", t, "event", event, "value", value,
			 "unit", unit, "running_pct", pct);
}

static struct serve_events *events_find(struct perun_serve_runs *rs, const char *id)
{
	for (size_t i = 0; i < SERVE_CACHE; i++)
		if (rs->cache[i].events && !strcmp(rs->cache[i].id, id)) {
			rs->cache[i].used = ++rs->clock;
			return &rs->cache[i];
		}
	return NULL;
}

static void events_drop(struct serve_events *ev)
{
	json_decref(ev->events);
	memset(ev, 0, sizeof(*ev));
}

/* A new entry for id, evicting the least used one (never the running). */
static struct serve_events *events_new(struct perun_serve_runs *rs, const char *id)
{
	struct serve_events *victim = NULL;
	for (size_t i = 0; i < SERVE_CACHE; i++) {
		struct serve_events *ev = &rs->cache[i];
		if (ev->events && !strcmp(ev->id, rs->current))
			continue;
		if (!ev->events) {
			victim = ev;
			break;
		}
		if (!victim || ev->used < victim->used)
			victim = ev;
	}
	events_drop(victim);
	snprintf(victim->id, sizeof(victim->id), "%s", id);
	victim->events = json_array();
	victim->used = ++rs->clock;
	return victim;
}

static void events_add_line(struct serve_events *ev, const char *line)
{
	if (json_array_size(ev->events) >= EVENTS_MAX)
		return;
	json_t *e = json_pack("{s:I, s:s%}", "n", (json_int_t)json_array_size(ev->events) + 1,
			      "line", line, strlen(line));
	if (!e) /* not UTF-8: keep what the log has, as Latin-1 would be wrong */
		e = json_pack("{s:I, s:s}", "n", (json_int_t)json_array_size(ev->events) + 1,
			      "line", "(a line that is not UTF-8; see the log)");
	json_t *sample = perun_serve_counters_sample(line);
	if (sample)
		json_object_set_new(e, "sample", sample);
	/* kperf --top-every-ms: the top functions so far. */
	static const char top[] = "perun-kperf-top ";
	json_t *doc = strncmp(line, top, sizeof(top) - 1)
			      ? NULL
			      : json_loads(line + sizeof(top) - 1, 0, NULL);
	if (json_is_object(doc))
		json_object_set(e, "top", doc);
	json_decref(doc);
	json_array_append_new(ev->events, e);
}

/* The events of a finished run, from its log. */
static int events_from_log(struct perun_serve_runs *rs, const char *id, struct serve_events **out,
			   struct perun_error *err)
{
	char path[4096];
	int rc = serve_path(rs, "runs", id, "log", path, sizeof(path), err);
	if (rc)
		return rc;
	struct serve_events *ev = events_new(rs, id);
	FILE *f = fopen(path, "r");
	if (f) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		while ((len = getline(&line, &cap, f)) > 0) {
			if (line[len - 1] == '\n')
				line[--len] = '\0';
			for (ssize_t off = 0; off < len || off == 0; off += LINE_MAX_BYTES) {
				char piece[LINE_MAX_BYTES + 1];
				snprintf(piece, sizeof(piece), "%s", line + off);
				events_add_line(ev, piece);
				if (len == 0)
					break;
			}
		}
		free(line);
		fclose(f);
	}
	ev->ended = 1;
	*out = ev;
	return 0;
}

static int status_ended(const char *status)
{
	return status && (!strcmp(status, "done") || !strcmp(status, "failed"));
}

int perun_serve_run_events(struct perun_serve_runs *rs, const char *id, unsigned long after,
			   size_t max, int timeout_ms, json_t **events, int *ended,
			   struct perun_error *err)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	int rc = 0;
	*events = NULL;
	*ended = 0;
	pthread_mutex_lock(&rs->lock);
	for (;;) {
		struct serve_events *ev = events_find(rs, id);
		if (!ev) {
			json_t *run;
			rc = run_load(rs, id, &run, err);
			if (rc)
				break;
			int done = status_ended(json_string_value(json_object_get(run, "status")));
			json_decref(run);
			if (done && (rc = events_from_log(rs, id, &ev, err)))
				break;
		}
		size_t have = ev ? json_array_size(ev->events) : 0;
		if (have > after || (ev && ev->ended) || rs->stop) {
			*events = json_array();
			for (size_t i = after; i < have && json_array_size(*events) < max; i++)
				json_array_append(*events, json_array_get(ev->events, i));
			*ended = ev && ev->ended && after + json_array_size(*events) >= have;
			break;
		}
		/* Queued, or running with nothing new yet: wait for a change. */
		if (pthread_cond_timedwait(&rs->changed, &rs->lock, &deadline) == ETIMEDOUT) {
			*events = json_array();
			break;
		}
	}
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

int perun_serve_run_submit(struct perun_serve_runs *rs, const json_t *request, json_t **out,
			   struct perun_error *err)
{
	json_t *req = NULL;
	int rc = perun_serve_run_request_check(rs->root, request, &req, err);
	if (rc)
		return rc;
	const char *session = json_string_value(json_object_get(req, "session"));
	char id[SERVE_ID_LEN + 1], now[32], spath[4096];
	serve_new_id(id);
	serve_now(now);
	json_t *run = json_pack("{s:s, s:s, s:s, s:s, s:o}", "id", id, "session", session,
				"created", now, "status", "queued", "request", req);
	pthread_mutex_lock(&rs->lock);
	rc = serve_path(rs, "sessions", session, "json", spath, sizeof(spath), err);
	if (!rc && access(spath, F_OK))
		rc = perun_error_set(err, PERUN_ENOTFOUND, "session '%s': no such session",
				     session);
	if (!rc)
		rc = run_save(rs, run, err);
	if (!rc) {
		void *grown = realloc(rs->queue, (rs->nqueue + 1) * sizeof(*rs->queue));
		if (!grown)
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		else {
			rs->queue = grown;
			snprintf(rs->queue[rs->nqueue++], SERVE_ID_LEN + 1, "%s", id);
			pthread_cond_broadcast(&rs->changed);
		}
	}
	pthread_mutex_unlock(&rs->lock);
	if (rc) {
		json_decref(run);
		return rc;
	}
	*out = run;
	return 0;
}

int perun_serve_runs_list(struct perun_serve_runs *rs, const char *session, json_t **out,
			  struct perun_error *err)
{
	pthread_mutex_lock(&rs->lock);
	int rc = 0;
	char path[4096];
	if (session) {
		rc = serve_path(rs, "sessions", session, "json", path, sizeof(path), err);
		if (!rc && access(path, F_OK))
			rc = perun_error_set(err, PERUN_ENOTFOUND, "session '%s': no such session",
					     session);
	}
	json_t *all = rc ? NULL : serve_load_all(rs, "runs");
	pthread_mutex_unlock(&rs->lock);
	if (rc)
		return rc;
	json_t *found = json_array();
	size_t i;
	json_t *r;
	json_array_foreach(all, i, r)
	{
		if (!session ||
		    !strcmp(session, json_string_value(json_object_get(r, "session")) ?: ""))
			json_array_append(found, r);
	}
	json_decref(all);
	*out = found;
	return 0;
}

int perun_serve_run_get(struct perun_serve_runs *rs, const char *id, json_t **out,
			struct perun_error *err)
{
	pthread_mutex_lock(&rs->lock);
	int rc = run_load(rs, id, out, err);
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

/* Whether path is a pending profile of the instance: in .perun/jobs. */
static int pending_profile(const struct perun_serve_runs *rs, const char *path)
{
	char jobs[4096];
	size_t n = (size_t)snprintf(jobs, sizeof(jobs), "%s/.perun/jobs/", rs->root);
	return path && !strncmp(path, jobs, n) && !strstr(path + n, "..") &&
	       !strchr(path + n, '/') && !access(path, F_OK);
}

/* Run "perun rm <name>" for a pending profile, quietly: rm keeps the
 * pending index right, which unlinking would not (it takes the name in
 * .perun/jobs, not a path). */
static void remove_pending(struct perun_serve_runs *rs, const char *path)
{
	if (!pending_profile(rs, path))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDWR);
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (chdir(rs->root) == 0)
			execl(rs->exe, "perun", "rm", strrchr(path, '/') + 1, (char *)NULL);
		_exit(127);
	}
	int status;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

int serve_run_delete_locked(struct perun_serve_runs *rs, const char *id, struct perun_error *err)
{
	json_t *run;
	int rc = run_load(rs, id, &run, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < rs->nqueue; i++)
		if (!strcmp(rs->queue[i], id)) {
			memmove(&rs->queue[i], &rs->queue[i + 1],
				(rs->nqueue - i - 1) * sizeof(*rs->queue));
			rs->nqueue--;
			break;
		}
	if (!strcmp(rs->current, id)) {
		/* The worker sees the flag, stops its child and removes the
		 * files the run made after this. */
		rs->cancel = 1;
		if (rs->current_pid > 0)
			kill(-rs->current_pid, SIGTERM);
	}
	json_t *profiles = json_object_get(run, "profiles");
	size_t i;
	json_t *p;
	json_array_foreach(profiles, i, p) remove_pending(rs, json_string_value(p));
	char path[4096];
	serve_path(rs, "runs", id, "log", path, sizeof(path), NULL);
	unlink(path);
	serve_path(rs, "runs", id, "json", path, sizeof(path), NULL);
	if (unlink(path) && errno != ENOENT)
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot remove '%s'", path);
	struct serve_events *ev = events_find(rs, id);
	if (ev && strcmp(rs->current, id))
		events_drop(ev);
	json_decref(run);
	pthread_cond_broadcast(&rs->changed);
	return rc;
}

int perun_serve_run_delete(struct perun_serve_runs *rs, const char *id, struct perun_error *err)
{
	pthread_mutex_lock(&rs->lock);
	int rc = serve_run_delete_locked(rs, id, err);
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

int perun_serve_run_file(struct perun_serve_runs *rs, const char *id,
			 enum perun_serve_run_file which, char *path, size_t size,
			 struct perun_error *err)
{
	json_t *run;
	pthread_mutex_lock(&rs->lock);
	int rc = run_load(rs, id, &run, err);
	if (!rc && which == PERUN_SERVE_RUN_LOG)
		rc = serve_path(rs, "runs", id, "log", path, size, err);
	else if (!rc) {
		const char *profile = json_string_value(json_object_get(run, "profile"));
		if (!profile || access(profile, R_OK))
			rc = perun_error_set(err, PERUN_ENOTFOUND,
					     "run '%s': no profile (not made, or no longer "
					     "pending)",
					     id);
		else if ((size_t)snprintf(path, size, "%s", profile) >= size)
			rc = perun_error_set(err, PERUN_EGENERIC, "'%s': path too long", profile);
	}
	pthread_mutex_unlock(&rs->lock);
	json_decref(run);
	return rc;
}

/* The worker */

struct argv_list {
	char **v;
	size_t n;
};

static void argv_add(struct argv_list *a, const char *s)
{
	a->v = realloc(a->v, (a->n + 2) * sizeof(*a->v));
	a->v[a->n++] = strdup(s);
	a->v[a->n] = NULL;
}

static void argv_free(struct argv_list *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* A unit's options as its command line: --name value, repeated for a list,
 * --name for true, --no-name for false, nothing for null. */
static void argv_options(struct argv_list *a, const json_t *opts)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)opts, key, v)
	{
		char flag[80], text[64];
		snprintf(flag, sizeof(flag), "--%s", key);
		if (json_is_boolean(v)) {
			/* false undoes a flag that defaults to true */
			if (json_is_false(v))
				snprintf(flag, sizeof(flag), "--no-%s", key);
			argv_add(a, flag);
			continue;
		}
		size_t n = json_is_array(v) ? json_array_size(v) : 1;
		for (size_t i = 0; i < n; i++) {
			json_t *item = json_is_array(v) ? json_array_get(v, i) : v;
			if (json_is_string(item)) {
				argv_add(a, flag);
				argv_add(a, json_string_value(item));
			} else if (json_is_integer(item)) {
				snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT,
					 json_integer_value(item));
				argv_add(a, flag);
				argv_add(a, text);
			} else if (json_is_real(item)) {
				snprintf(text, sizeof(text), "%.17g", json_real_value(item));
				argv_add(a, flag);
				argv_add(a, text);
			}
		}
	}
}

struct step {
	struct serve_events *ev;
	FILE *log;
	char last[ERROR_LINES][LINE_MAX_BYTES + 1]; /* the last lines, a ring */
	size_t nlines;
	char made[PATH_MAX]; /* the profile the step reported */
};

static void step_line(struct perun_serve_runs *rs, struct step *st, const char *line)
{
	fprintf(st->log, "%s\n", line);
	fflush(st->log);
	snprintf(st->last[st->nlines++ % ERROR_LINES], LINE_MAX_BYTES + 1, "%s", line);
	const char *prefixes[] = { "Collected profile ", "Postprocessed " };
	for (size_t i = 0; i < 2; i++)
		if (!strncmp(line, prefixes[i], strlen(prefixes[i])))
			snprintf(st->made, sizeof(st->made), "%s", line + strlen(prefixes[i]));
	pthread_mutex_lock(&rs->lock);
	events_add_line(st->ev, line);
	pthread_cond_broadcast(&rs->changed);
	pthread_mutex_unlock(&rs->lock);
}

/* Run argv in root with the extra environment, its output into the log
 * and the events; 0 and *code its exit status (128 + signal), or an
 * error when it could not start. */
static int step_run(struct perun_serve_runs *rs, struct step *st, char **argv, char **envp,
		    int *code)
{
	int fds[2];
	st->made[0] = '\0';
	if (pipe2(fds, O_CLOEXEC)) {
		step_line(rs, st, "perun serve: cannot make a pipe");
		return -1;
	}
	char msg[PATH_MAX + 64];
	int msglen = snprintf(msg, sizeof(msg), "perun serve: cannot run '%s'\n", argv[0]);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		step_line(rs, st, "perun serve: cannot start the run (fork failed)");
		return -1;
	}
	if (pid == 0) {
		/* The worker blocks every signal; the run must not. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		int null = open("/dev/null", O_RDONLY);
		dup2(null, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		if (chdir(rs->root) == 0)
			execve(argv[0], argv, envp);
		if (write(STDERR_FILENO, msg, (size_t)msglen) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	setpgid(pid, pid); /* as the child does: no race on kill */
	pthread_mutex_lock(&rs->lock);
	rs->current_pid = pid;
	if (rs->cancel || rs->stop)
		kill(-pid, SIGTERM);
	pthread_mutex_unlock(&rs->lock);
	char buf[LINE_MAX_BYTES + 1];
	size_t have = 0;
	for (;;) {
		ssize_t n = read(fds[0], buf + have, LINE_MAX_BYTES - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		char *start = buf, *nl;
		while ((nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
			*nl = '\0';
			step_line(rs, st, start);
			start = nl + 1;
		}
		have -= (size_t)(start - buf);
		memmove(buf, start, have);
		if (have == LINE_MAX_BYTES) {
			buf[have] = '\0';
			step_line(rs, st, buf);
			have = 0;
		}
	}
	if (have) {
		buf[have] = '\0';
		step_line(rs, st, buf);
	}
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&rs->lock);
	rs->current_pid = 0;
	pthread_mutex_unlock(&rs->lock);
	*code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

/* environ plus the run's variables, theirs winning. */
static char **run_environment(const json_t *env)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + json_object_size(env) + 1, sizeof(*envp));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(len < 255 ? len : 255), environ[i]);
		if (!json_object_get(env, name))
			envp[k++] = strdup(environ[i]);
	}
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)env, key, v)
	{
		if (asprintf(&envp[k], "%s=%s", key, json_string_value(v)) >= 0)
			k++;
	}
	envp[k] = NULL;
	return envp;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Execute run (loaded, status queued): collect, then each postprocessor. */
static void execute(struct perun_serve_runs *rs, json_t *run)
{
	const char *id = json_string_value(json_object_get(run, "id"));
	json_t *req = json_object_get(run, "request");
	char now[32], logpath[4096];
	struct perun_error err = { 0 };
	struct step *st = calloc(1, sizeof(*st));
	serve_path(rs, "runs", id, "log", logpath, sizeof(logpath), NULL);
	serve_now(now);
	json_object_set_new(run, "status", json_string("running"));
	json_object_set_new(run, "started", json_string(now));
	json_t *profiles = json_array();
	json_object_set(run, "profiles", profiles);

	pthread_mutex_lock(&rs->lock);
	struct serve_events *old = events_find(rs, id);
	if (old)
		events_drop(old);
	st->ev = events_new(rs, id);
	int saved = run_save(rs, run, &err);
	pthread_mutex_unlock(&rs->lock);
	st->log = fopen(logpath, "we");
	int code = 0, started = 0;
	if (saved || !st->log) {
		if (!st->log)
			st->log = fopen("/dev/null", "w");
		step_line(rs, st, saved ? err.message : "perun serve: cannot write the run's log");
		code = -1;
		goto end;
	}
	char **envp = run_environment(json_object_get(req, "env"));
	struct argv_list a = { 0 };
	argv_add(&a, rs->exe);
	argv_add(&a, "collect");
	argv_add(&a, "-c");
	argv_add(&a, json_string_value(json_object_get(req, "command")));
	const char *args = json_string_value(json_object_get(req, "args"));
	const char *workload = json_string_value(json_object_get(req, "workload"));
	if (args && *args) {
		argv_add(&a, "-a");
		argv_add(&a, args);
	}
	if (workload && *workload) {
		argv_add(&a, "-w");
		argv_add(&a, workload);
	}
	argv_add(&a, json_string_value(json_object_get(req, "collector")));
	argv_options(&a, json_object_get(req, "collector_options"));
	started = !step_run(rs, st, a.v, envp, &code);
	argv_free(&a);
	if (started && !code && !st->made[0]) {
		step_line(rs, st, "perun serve: the collection stored no profile");
		code = -1;
	}
	if (started && !code)
		json_array_append_new(profiles, json_string(st->made));
	size_t i;
	json_t *post;
	json_array_foreach(json_object_get(req, "postprocessors"), i, post)
	{
		if (!started || code)
			break;
		argv_add(&a, rs->exe);
		argv_add(&a, "postprocessby");
		argv_add(&a, json_string_value(
				     json_array_get(profiles, json_array_size(profiles) - 1)));
		argv_add(&a, json_string_value(json_object_get(post, "name")));
		argv_options(&a, json_object_get(post, "options"));
		started = !step_run(rs, st, a.v, envp, &code);
		argv_free(&a);
		/* In the same second it may overwrite its input: one entry. */
		if (started && !code && st->made[0] &&
		    strcmp(st->made, json_string_value(json_array_get(
					     profiles, json_array_size(profiles) - 1))))
			json_array_append_new(profiles, json_string(st->made));
	}
	strv_free(envp);
	if (!started)
		code = -1;
end:
	serve_now(now);
	pthread_mutex_lock(&rs->lock);
	int cancelled = rs->cancel;
	if (!cancelled && rs->stop) {
		json_object_set_new(run, "status", json_string("failed"));
		json_object_set_new(run, "error", json_string("server stopped"));
	} else if (code) {
		json_object_set_new(run, "status", json_string("failed"));
		char error[ERROR_LINES * (LINE_MAX_BYTES + 1)] = "";
		size_t first = st->nlines > ERROR_LINES ? st->nlines - ERROR_LINES : 0;
		for (size_t l = first; l < st->nlines; l++) {
			strcat(error, st->last[l % ERROR_LINES]);
			strcat(error, "\n");
		}
		json_object_set_new(run, "error", json_string(error));
	} else
		json_object_set_new(run, "status", json_string("done"));
	json_object_set_new(run, "exit_code", json_integer(code));
	json_object_set_new(run, "ended", json_string(now));
	size_t np = json_array_size(profiles);
	if (np)
		json_object_set(run, "profile", json_array_get(profiles, np - 1));
	st->ev->ended = 1;
	if (cancelled) {
		/* Deleted while it ran: what it made goes too. */
		json_array_foreach(profiles, i, post) remove_pending(rs, json_string_value(post));
		unlink(logpath);
		events_drop(st->ev);
	} else if (run_save(rs, run, &err))
		fprintf(stderr, "perun serve: %s\n", err.message);
	rs->current[0] = '\0';
	rs->cancel = 0;
	pthread_cond_broadcast(&rs->changed);
	pthread_mutex_unlock(&rs->lock);
	if (st->log)
		fclose(st->log);
	json_decref(profiles);
	free(st);
}

static void *worker(void *data)
{
	struct perun_serve_runs *rs = data;
	pthread_mutex_lock(&rs->lock);
	for (;;) {
		while (!rs->stop && !rs->nqueue)
			pthread_cond_wait(&rs->changed, &rs->lock);
		if (rs->stop)
			break;
		char id[SERVE_ID_LEN + 1];
		snprintf(id, sizeof(id), "%s", rs->queue[0]);
		memmove(&rs->queue[0], &rs->queue[1], (rs->nqueue - 1) * sizeof(*rs->queue));
		rs->nqueue--;
		json_t *run;
		if (run_load(rs, id, &run, NULL))
			continue; /* deleted meanwhile */
		snprintf(rs->current, sizeof(rs->current), "%s", id);
		rs->cancel = 0;
		pthread_mutex_unlock(&rs->lock);
		execute(rs, run);
		json_decref(run);
		pthread_mutex_lock(&rs->lock);
	}
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

int perun_serve_runs_open(struct perun_serve_runs **out, const char *root, const char *exe,
			  int read_only, struct perun_error *err)
{
	struct perun_serve_runs *rs = calloc(1, sizeof(*rs));
	char self[PATH_MAX];
	if (!exe) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			free(rs);
			return perun_error_set_errno(err, PERUN_EGENERIC, errno,
						     "cannot find the perun program");
		}
		self[n] = '\0';
		exe = self;
	}
	if (!rs || asprintf(&rs->root, "%s", root) < 0 ||
	    asprintf(&rs->dir, "%s/.perun/serve", root) < 0 || !(rs->exe = strdup(exe))) {
		free(rs);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	pthread_mutex_init(&rs->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_cond_init(&rs->changed, &ca);
	pthread_condattr_destroy(&ca);
	char sub[4200];
	int rc = 0;
	const char *kinds[] = { "sessions", "runs" };
	for (size_t i = 0; i < 2 && !rc && !read_only; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", rs->dir, kinds[i]);
		rc = perun_mkdirs(sub, 0755, err);
	}
	if (rc) {
		perun_serve_runs_close(rs);
		return rc;
	}
	if (read_only) {
		/* Nothing written, nothing run: the runs are only shown. */
		*out = rs;
		return 0;
	}
	/* A run that was running when a server stopped cannot go on. */
	json_t *runs = serve_load_all(rs, "runs");
	for (size_t i = json_array_size(runs); i-- > 0;) {
		json_t *r = json_array_get(runs, i);
		const char *status = json_string_value(json_object_get(r, "status"));
		const char *id = json_string_value(json_object_get(r, "id"));
		if (status && !strcmp(status, "running")) {
			char now[32];
			serve_now(now);
			json_object_set_new(r, "status", json_string("failed"));
			json_object_set_new(r, "error", json_string("server stopped"));
			json_object_set_new(r, "ended", json_string(now));
			if ((rc = run_save(rs, r, err)))
				break;
		} else if (status && !strcmp(status, "queued") && serve_id_ok(id)) {
			rs->queue = realloc(rs->queue, (rs->nqueue + 1) * sizeof(*rs->queue));
			snprintf(rs->queue[rs->nqueue++], SERVE_ID_LEN + 1, "%s", id);
		}
	}
	json_decref(runs);
	/* The worker takes no signal: the server waits for its own (sigwait
	 * in one thread), and a SIGTERM landing here would kill it. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!rc && pthread_create(&rs->worker, NULL, worker, rs))
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot start the runs' worker");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	rs->worker_started = !rc;
	if (rc) {
		perun_serve_runs_close(rs);
		return rc;
	}
	*out = rs;
	return 0;
}

void perun_serve_runs_close(struct perun_serve_runs *rs)
{
	if (!rs)
		return;
	pthread_mutex_lock(&rs->lock);
	rs->stop = 1;
	if (rs->current_pid > 0)
		kill(-rs->current_pid, SIGTERM);
	pthread_cond_broadcast(&rs->changed);
	pthread_mutex_unlock(&rs->lock);
	if (rs->worker_started)
		pthread_join(rs->worker, NULL);
	for (size_t i = 0; i < SERVE_CACHE; i++)
		events_drop(&rs->cache[i]);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->changed);
	free(rs->queue);
	free(rs->root);
	free(rs->dir);
	free(rs->exe);
	free(rs);
}
