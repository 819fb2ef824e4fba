/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @name@ - a Perun collector (made from the in-tree collect template): runs
 * the command --repeat times with posix_spawn and records the wall time of
 * each run as a "time" resource of the command's uid.
 *
 *   perun collect -c <cmd> [-a <args>] [-w <workload>] @name@ [--repeat N]
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include <perun/perun.h>

extern char **environ;

/* Kept across the phases in ctx->state; teardown frees it. */
struct @name@_state {
	wordexp_t words; /* cmd, args and workload split into one argv */
	int have_words;
	long long repeat;
};

/* The state of the collection: made in the before phase, or first thing
 * in collect without one (--no-before-phase). */
static int setup(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct @name@_state *st = calloc(1, sizeof(*st));
	char *line;
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	st->repeat = perun_params_int(ctx->params, "repeat", 1);
	if (st->repeat < 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--repeat' must be 1 or more, not %lld", st->repeat);
	if (!ctx->cmd || !*ctx->cmd)
		return perun_error_set(err, PERUN_EINVAL, "no command to run (give one with --cmd)");
	/* Split as a shell would, without running one (no $(...), no pipes). */
	if (asprintf(&line, "%s %s %s", ctx->cmd, ctx->args ? ctx->args : "",
		     ctx->workload ? ctx->workload : "") < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = wordexp(line, &st->words, WRDE_NOCMD);
	st->have_words = rc == 0 || rc == WRDE_NOSPACE;
	if (rc || st->words.we_wordc == 0)
		rc = perun_error_set(err, PERUN_EINVAL, "cannot split '%s' into words", line);
	free(line);
	return rc;
}

@if before@
static int @name@_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	return setup(ctx, err);
}

@endif@
/* One run of the command, its stdout discarded: *seconds of wall time. */
static int run_once(struct perun_collect_ctx *ctx, char **argv, double *seconds,
		    struct perun_error *err)
{
	posix_spawn_file_actions_t actions;
	struct timespec t0, t1;
	pid_t pid;
	int status;
	if (posix_spawn_file_actions_init(&actions))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int e = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null",
						 O_WRONLY, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!e)
		e = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (e)
		return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot run command '%s'",
					     argv[0]);
	pid_t done;
	while ((done = waitpid(pid, &status, 0)) < 0 && errno == EINTR && !ctx->interrupted)
		;
	int wait_errno = done < 0 ? errno : 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (wait_errno == EINTR) { /* interrupted with the command still running */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	/* Set by the core on SIGINT/SIGTERM, which may have reached the
	 * command as well: the run does not count either way. */
	if (ctx->interrupted)
		return perun_error_set(err, PERUN_EINTR, "interrupted while running '%s'",
				       ctx->cmd);
	if (wait_errno)
		return perun_error_set_errno(err, PERUN_ETOOL, wait_errno,
					     "cannot wait for command '%s'", ctx->cmd);
	if (WIFSIGNALED(status))
		return perun_error_set(err, PERUN_ETOOL, "command '%s' was killed by signal %d",
				       ctx->cmd, WTERMSIG(status));
	if (WEXITSTATUS(status))
		return perun_error_set(err, PERUN_ETOOL, "command '%s' exited with status %d",
				       ctx->cmd, WEXITSTATUS(status));
	*seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

static int @name@_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
@if !before@
	if (!ctx->state) {
		int setup_rc = setup(ctx, err);
		if (setup_rc)
			return setup_rc;
	}
@endif@
	struct @name@_state *st = ctx->state;
	int rc = 0;
	for (long long i = 0; i < st->repeat && !rc && !ctx->interrupted; i++) {
		double seconds = 0;
		rc = run_once(ctx, st->words.we_wordv, &seconds, err);
		if (rc)
			break;
		/* Perun's unflattened form: amount and order are columns, the
		 * rest (uid, type, subtype) identifies the resource type. */
		json_t *resource = json_pack("{s:f, s:s, s:I, s:s, s:s}", "amount", seconds,
					     "uid", ctx->cmd, "order", (json_int_t)(i + 1),
					     "type", "time", "subtype", "real");
		rc = resource ? perun_profile_add_resource(ctx->profile, resource, err)
			      : perun_error_set(err, PERUN_EGENERIC, "out of memory");
		json_decref(resource);
	}
	if (!rc && ctx->interrupted)
		rc = perun_error_set(err, PERUN_EINTR, "interrupted while running '%s'", ctx->cmd);
	return rc;
}

static void @name@_teardown(struct perun_collect_ctx *ctx)
{
	struct @name@_state *st = ctx->state;
	if (st && st->have_words)
		wordfree(&st->words);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops @name@_ops = {
	.size = sizeof(struct perun_collect_ops),
@if before@
	.before = @name@_before,
@endif@
	.collect = @name@_collect,
	.teardown = @name@_teardown,
	.profile_type = "@profile_type@",
	.default_units = "{\"time\": \"s\"}",
};

static const struct perun_option @name@_options[] = {
	{"repeat", "r", PERUN_OPTION_INT, "1", NULL, "<n>", "run the command <n> times", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, 0},
};

PERUN_PLUGIN_DEFINE(@name@, PERUN_KIND_COLLECT, .version = "0.1.0",
		    .summary = "wall time of each run of a command",
		    .options = @name@_options, .ops = &@name@_ops)
