/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * time - wall, user and system time (and peak memory) of a command.
 *
 * Python Perun's time collector runs "time -p <cmd args workload>" through
 * a subprocess and parses its output.  Here the command is run without a
 * shell or time(1) by perun-spawn, a small helper started once per
 * collection (perun-spawn.c), which measures each run with clock_gettime
 * around spawn..wait and the rusage wait4 returns and sends that back over
 * a socket: cheaper and more precise, and max-rss is not floored by
 * perun's own size.  The resources are those of Python Perun; see
 * README.md for the additions (max-rss, exit-code, the total wall time).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>

#include "cmdline.h"
#include "spawn-proto.h"

#ifndef PERUN_SPAWN_PATH
#define PERUN_SPAWN_PATH "perun-spawn"
#endif

extern char **environ;

/* How often a waiting collector looks at ctx->interrupted, in ms. */
#define INTERRUPT_POLL_MS 100

static const struct perun_option time_options[] = {
	{ "warmup", "w", PERUN_OPTION_INT, "3", NULL, "<int>",
	  "run the command <int> times before timing it, unrecorded", 0 },
	{ "repeat", "r", PERUN_OPTION_INT, "10", NULL, "<int>", "time the command <int> times", 0 },
	{ "ignore-failure", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "record runs that exit non-zero instead of failing", 0 },
	{ "output", "o", PERUN_OPTION_CHOICE, "discard", "discard|stderr", NULL,
	  "where the command's stdout and stderr go", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct measurement {
	double real;	   /* seconds, CLOCK_MONOTONIC around spawn..wait */
	double user;	   /* seconds, ru_utime */
	double sys;	   /* seconds, ru_stime */
	long long max_rss; /* bytes (ru_maxrss is in KiB on Linux) */
	int exit_code;	   /* exit status, or -N when killed by signal N */
};

struct time_state {
	struct cmdline cl;
	long long warmup;
	long long repeat;
	int ignore_failure;
	int to_stderr; /* command output to our stderr, else discarded */
	struct measurement *runs;
	char *spawn_path;   /* perun-spawn */
	pid_t spawner;	    /* running perun-spawn, or 0 */
	int sock;	    /* our end of its socket, or -1 */
	int results;	    /* the file it writes results to, or -1 */
	off_t results_read; /* bytes of it read */
};

static int interrupted(const struct perun_collect_ctx *ctx)
{
	/* Set from the core's signal handler. */
	return *(const volatile int *)&ctx->interrupted;
}

/*
 * Where perun-spawn is: $PERUN_SPAWN, the build tree's stage/libexec
 * beside stage/plugins (found from this plugin's own file), or where it
 * was installed.  Never something else: the floor of max-rss depends on it.
 */
static int find_spawner(struct time_state *st, struct perun_error *err)
{
	const char *env = getenv("PERUN_SPAWN");
	char *path = NULL;
	Dl_info info;
	if (env && *env) {
		path = strdup(env);
	} else if (dladdr((void *)find_spawner, &info) && info.dli_fname) {
		char *copy = strdup(info.dli_fname);
		if (!copy || asprintf(&path, "%s/../../libexec/perun-spawn", dirname(copy)) < 0)
			path = NULL;
		free(copy);
		if (path && access(path, X_OK)) {
			free(path);
			path = NULL;
		}
	}
	if (!path && !(env && *env))
		path = strdup(PERUN_SPAWN_PATH);
	if (!path)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	st->spawn_path = path;
	if (access(path, X_OK))
		return perun_error_set(err, PERUN_ETOOL, "cannot find perun-spawn at '%s'", path);
	return 0;
}

static int time_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct time_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	st->sock = st->results = -1;
	st->warmup = perun_params_int(ctx->params, "warmup", 3);
	st->repeat = perun_params_int(ctx->params, "repeat", 10);
	st->ignore_failure = perun_params_bool(ctx->params, "ignore-failure", 0);
	st->to_stderr = !strcmp(perun_params_string(ctx->params, "output", "discard"), "stderr");
	if (st->warmup < 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--warmup' must be 0 or more, not %lld", st->warmup);
	if (st->repeat < 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--repeat' must be 1 or more, not %lld", st->repeat);
	if ((unsigned long long)st->repeat > SIZE_MAX / sizeof(*st->runs))
		return perun_error_set(err, PERUN_EINVAL, "option '--repeat' is too large: %lld",
				       st->repeat);
	if (!ctx->cmd || !*ctx->cmd)
		return perun_error_set(err, PERUN_EINVAL,
				       "no command to time (give one with --cmd)");

	int rc = cmdline_init(&st->cl, ctx->cmd, ctx->args, ctx->workload, err);
	if (!rc)
		rc = find_spawner(st, err);
	if (rc)
		return rc;
	st->runs = calloc((size_t)st->repeat, sizeof(*st->runs));
	if (!st->runs)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory for %lld repetitions",
				       st->repeat);
	return 0;
}

static double timespec_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* fd moved to min or above (close-on-exec), so dup2s onto PERUN_SPAWN_FD
 * and PERUN_SPAWN_RESULTS_FD neither clobber it nor keep close-on-exec. */
static int fd_at_least(int fd, int min)
{
	if (fd < 0 || fd >= min)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, min);
	close(fd);
	return moved;
}

/* Start perun-spawn with the command: its socket in st->sock, the file it
 * writes results to in st->results. */
static int start_spawner(struct time_state *st, struct perun_error *err)
{
	const int above = PERUN_SPAWN_RESULTS_FD + 1;
	posix_spawn_file_actions_t actions;
	char **argv = NULL;
	int sv[2] = { -1, -1 }, results = -1, rc = 0;
	size_t argc = 0;

	while (st->cl.argv[argc])
		argc++;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    (results = memfd_create("perun-spawn-results", MFD_CLOEXEC)) < 0) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					   "cannot make a socket and a file for perun-spawn");
		goto out;
	}
	sv[1] = fd_at_least(sv[1], above);
	results = fd_at_least(results, above);
	argv = calloc(argc + 4, sizeof(*argv));
	if (sv[1] < 0 || results < 0 || !argv || posix_spawn_file_actions_init(&actions)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	argv[0] = st->spawn_path;
	argv[1] = st->to_stderr ? "stderr" : "discard";
	argv[2] = st->cl.path;
	memcpy(argv + 3, st->cl.argv, argc * sizeof(*argv));
	int fa = posix_spawn_file_actions_adddup2(&actions, sv[1], PERUN_SPAWN_FD);
	fa = fa ? fa : posix_spawn_file_actions_adddup2(&actions, results, PERUN_SPAWN_RESULTS_FD);
	fa = fa ? fa
		: posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY,
						   0);
	fa = fa ? fa
		: posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY,
						   0);
	fa = fa ? fa : posix_spawn(&st->spawner, st->spawn_path, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (fa) {
		st->spawner = 0;
		rc = perun_error_set_errno(err, PERUN_ETOOL, fa, "cannot run perun-spawn at '%s'",
					   st->spawn_path);
		goto out;
	}
	st->sock = sv[0];
	st->results = results;
	st->results_read = 0;
	sv[0] = results = -1;
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (results >= 0)
		close(results);
	free(argv);
	return rc;
}

/*
 * End perun-spawn: on EOF it ends by itself; SIGTERM makes it kill and
 * reap a running command first.  Returns its wait status.
 */
static int stop_spawner(struct time_state *st, int terminate)
{
	int status = 0;
	if (st->sock >= 0)
		close(st->sock);
	if (st->results >= 0)
		close(st->results);
	st->sock = st->results = -1;
	if (st->spawner <= 0)
		return 0;
	if (terminate)
		kill(st->spawner, SIGTERM);
	while (waitpid(st->spawner, &status, 0) < 0 && errno == EINTR)
		;
	st->spawner = 0;
	return status;
}

/* "repetition 2" or "warm-up run 1", for messages. */
static void run_name(char *buf, size_t len, int warmup, long long n)
{
	snprintf(buf, len, "%s %lld", warmup ? "warm-up run" : "repetition", n);
}

/* The run of the current batch that is under way: the first one whose
 * result is not written yet. */
static void running_name(const struct time_state *st, int warmup, char *buf, size_t len)
{
	struct stat sb;
	long long done = 0;
	if (st->results >= 0 && !fstat(st->results, &sb) && sb.st_size > st->results_read)
		done = (long long)((sb.st_size - st->results_read) /
				   (off_t)sizeof(struct perun_spawn_result));
	run_name(buf, len, warmup, done + 1);
}

/* The spawner went away mid-batch. */
static int spawner_lost(struct time_state *st, int warmup, struct perun_error *err)
{
	char name[64];
	running_name(st, warmup, name, sizeof(name));
	int status = stop_spawner(st, 1);
	if (WIFSIGNALED(status))
		return perun_error_set(err, PERUN_ETOOL,
				       "perun-spawn was killed by signal %d (%s) in %s",
				       WTERMSIG(status), strsignal(WTERMSIG(status)), name);
	return perun_error_set(err, PERUN_ETOOL, "perun-spawn exited with status %d in %s",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1, name);
}

/*
 * Wait for the end of a batch, watching ctx->interrupted: the poll only
 * bounds how late an interruption is seen, the answer wakes us at once,
 * and the timing is done by the spawner anyway.
 */
static int wait_batch(const struct perun_collect_ctx *ctx, struct time_state *st, int warmup,
		      struct perun_spawn_done *done, struct perun_error *err)
{
	size_t got = 0;
	while (got < sizeof(*done)) {
		if (interrupted(ctx)) {
			char name[64];
			running_name(st, warmup, name, sizeof(name));
			stop_spawner(st, 1);
			return perun_error_set(err, PERUN_EINTR,
					       "interrupted while running '%s' (%s)", ctx->cmd,
					       name);
		}
		struct pollfd pfd = { .fd = st->sock, .events = POLLIN };
		int n = poll(&pfd, 1, INTERRUPT_POLL_MS);
		if (n == 0 || (n < 0 && errno == EINTR))
			continue;
		ssize_t r = read(st->sock, (char *)done + got, sizeof(*done) - got);
		if (r < 0 && errno == EINTR)
			continue;
		/* A terminal's SIGINT reaches the spawner too: ours is set by now. */
		if (r <= 0 && interrupted(ctx))
			continue;
		if (r <= 0)
			return spawner_lost(st, warmup, err);
		got += (size_t)r;
	}
	return 0;
}

/* One result of the spawner into m; a failing run fails unless ignored. */
static int record_run(struct perun_collect_ctx *ctx, const struct time_state *st, const char *name,
		      const struct perun_spawn_result *res, struct measurement *m,
		      struct perun_error *err)
{
	if (res->spawn_errno)
		return perun_error_set_errno(err, PERUN_ETOOL, res->spawn_errno,
					     "cannot run command '%s'", st->cl.argv[0]);
	int status = res->status;
	m->real = (double)res->real_ns / 1e9;
	m->user = (double)res->user_us / 1e6;
	m->sys = (double)res->sys_us / 1e6;
	m->max_rss = (long long)res->max_rss_kib * 1024;
	m->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
	if (st->ignore_failure)
		return 0;
	if (WIFSIGNALED(status))
		return perun_error_set(err, PERUN_ETOOL,
				       "command '%s' was killed by signal %d (%s) in %s", ctx->cmd,
				       WTERMSIG(status), strsignal(WTERMSIG(status)), name);
	if (m->exit_code != 0)
		return perun_error_set(err, PERUN_ETOOL, "command '%s' exited with status %d in %s",
				       ctx->cmd, m->exit_code, name);
	return 0;
}

/*
 * count runs in one request, so that the spawner goes from one run to the
 * next without waiting for us; ms NULL: warm-up runs, not kept.
 */
static int run_batch(struct perun_collect_ctx *ctx, struct time_state *st, long long count,
		     struct measurement *ms, struct perun_error *err)
{
	struct perun_spawn_request req = { .runs = count, .stop_on_failure = !st->ignore_failure };
	struct perun_spawn_result res[64];
	struct perun_spawn_done done;
	struct measurement scratch;
	char name[64];
	int warmup = !ms;

	if (count == 0)
		return 0;
	if (send(st->sock, &req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req))
		return spawner_lost(st, warmup, err);
	int rc = wait_batch(ctx, st, warmup, &done, err);
	if (rc)
		return rc;
	if (done.runs < 1 || done.runs > count)
		return perun_error_set(err, PERUN_ETOOL, "perun-spawn reported %lld runs of %lld",
				       (long long)done.runs, count);
	for (long long i = 0; i < done.runs;) {
		size_t want = sizeof(res);
		if ((unsigned long long)(done.runs - i) < sizeof(res) / sizeof(res[0]))
			want = (size_t)(done.runs - i) * sizeof(res[0]);
		ssize_t n = pread(st->results, res, want, st->results_read);
		if (n < (ssize_t)sizeof(res[0]))
			return perun_error_set_errno(err, PERUN_ETOOL, n < 0 ? errno : EIO,
						     "cannot read the results of perun-spawn");
		size_t k = (size_t)n / sizeof(res[0]);
		st->results_read += (off_t)(k * sizeof(res[0]));
		for (size_t j = 0; j < k; j++, i++) {
			run_name(name, sizeof(name), warmup, i + 1);
			rc = record_run(ctx, st, name, &res[j], ms ? &ms[i] : &scratch, err);
			if (rc)
				return rc;
		}
	}
	/* It stops early only after a failure, which record_run reported. */
	if (done.runs < count)
		return perun_error_set(err, PERUN_ETOOL,
				       "perun-spawn stopped after %lld of %lld runs",
				       (long long)done.runs, count);
	return 0;
}

static int add_resource(struct perun_collect_ctx *ctx, json_t *resource, struct perun_error *err)
{
	if (!resource)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_add_resource(ctx->profile, resource, err);
	json_decref(resource);
	return rc;
}

static int time_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	static const char *const subtypes[] = { "real", "user", "sys" };
	struct time_state *st = ctx->state;
	struct timespec t0, t1;
	char *total = NULL, *rss_uid = NULL;
	int rc = start_spawner(st, err);

	if (!rc)
		rc = run_batch(ctx, st, st->warmup, NULL, err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = run_batch(ctx, st, st->repeat, st->runs, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	stop_spawner(st, rc != 0);
	if (rc)
		return rc;

	/*
	 * Python Perun reads a "global" collection into resources with the
	 * persistent key "time" (always "0.0" there, as its collector names the
	 * total "timestamp"); here it carries the total wall time, in the same
	 * str(float) form.
	 */
	json_t *seconds = json_real(timespec_diff(&t0, &t1));
	total = seconds ? perun_value_flatten_dup(seconds) : NULL;
	json_decref(seconds);
	if (asprintf(&rss_uid, "%s:max-rss", ctx->cmd) < 0)
		rss_uid = NULL;
	if (!total || !rss_uid) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (long long i = 0; i < st->repeat && !rc; i++) {
		const struct measurement *m = &st->runs[i];
		const double values[] = { m->real, m->user, m->sys };
		for (size_t k = 0; k < 3 && !rc; k++)
			rc = add_resource(ctx,
					  json_pack("{s:f, s:s, s:I, s:s, s:s, s:s}", "amount",
						    values[k], "uid", ctx->cmd, "order",
						    (json_int_t)(i + 1), "subtype", subtypes[k],
						    "type", "time", "time", total),
					  err);
		/* Its own uid, so that per-uid averages of time stay times. */
		if (!rc)
			rc = add_resource(ctx,
					  json_pack("{s:I, s:s, s:I, s:s, s:s, s:s, s:i}", "amount",
						    (json_int_t)m->max_rss, "uid", rss_uid, "order",
						    (json_int_t)(i + 1), "subtype", "max-rss",
						    "type", "memory", "time", total, "exit-code",
						    m->exit_code),
					  err);
	}
out:
	free(total);
	free(rss_uid);
	return rc;
}

static void time_teardown(struct perun_collect_ctx *ctx)
{
	struct time_state *st = ctx->state;
	if (!st)
		return;
	cmdline_release(&st->cl);
	stop_spawner(st, 1);
	free(st->spawn_path);
	free(st->runs);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops time_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = time_before,
	.collect = time_collect,
	.teardown = time_teardown,
	.profile_type = "time",
	.default_units = "{\"time\": \"s\", \"memory\": \"B\"}",
};

PERUN_PLUGIN_DEFINE(time, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "wall, user and system time of a command", .options = time_options,
		    .ops = &time_ops);
