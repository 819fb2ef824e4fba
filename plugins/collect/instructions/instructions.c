/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * instructions - the instructions a command executes, in total and per
 * function, counted by Valgrind's cachegrind.
 *
 * Times on a shared machine move with its load: a run of the same binary
 * takes 8-12% longer minutes later, or 2-3x under a parallel build, so a
 * 10% change in a program cannot be told from noise without many
 * interleaved runs.  The instructions a program executes depend on its
 * code and input alone: identical machine code counts the same, run
 * after run, busy machine or not, and a function doing 10% more work
 * counts 10% more.  What this costs is Valgrind's slowdown (20-50x) and
 * that cache misses and I/O are not seen; what it gives is verdicts a CI
 * can trust from one run a version.  (Hardware counters would be cheaper,
 * but virtual machines, this one included, often have none.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>

#include "cachegrind.h"
#include "cmdline.h"

extern char **environ;

static const struct perun_option instructions_options[] = {
	{ "repeat", "r", PERUN_OPTION_INT, "1", NULL, "<int>",
	  "count the command <int> times (the counts of a deterministic program do not vary)", 0 },
	{ "no-functions", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "the command's total only, not each function's", 0 },
	{ "ignore-failure", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "record runs that exit non-zero instead of failing", 0 },
	{ "output", "o", PERUN_OPTION_CHOICE, "discard", "discard|stderr", NULL,
	  "where the command's stdout and stderr go", 0 },
	{ "valgrind", NULL, PERUN_OPTION_STRING, "valgrind", NULL, "<path>", "the valgrind program",
	  0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct instructions_state {
	struct cmdline cl; /* the profiled command */
	struct cmdline vg; /* valgrind, found in $PATH */
	long long repeat;
	int functions, ignore_failure, to_stderr;
	char *dir; /* a private directory for cachegrind's output */
};

static int interrupted(const struct perun_collect_ctx *ctx)
{
	/* Set from the core's signal handler. */
	return *(const volatile int *)&ctx->interrupted;
}

static int instructions_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct instructions_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	st->repeat = perun_params_int(ctx->params, "repeat", 1);
	st->functions = !perun_params_bool(ctx->params, "no-functions", 0);
	st->ignore_failure = perun_params_bool(ctx->params, "ignore-failure", 0);
	st->to_stderr = !strcmp(perun_params_string(ctx->params, "output", "discard"), "stderr");
	if (st->repeat < 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--repeat' must be 1 or more, not %lld", st->repeat);
	if (!ctx->cmd || !*ctx->cmd)
		return perun_error_set(err, PERUN_EINVAL,
				       "no command to count (give one with --cmd)");
	const char *valgrind = perun_params_string(ctx->params, "valgrind", "valgrind");
	struct perun_error vg_err = { 0 };
	if (cmdline_init(&st->vg, valgrind, NULL, NULL, &vg_err))
		return perun_error_set(err, PERUN_ETOOL,
				       "cannot run valgrind '%s' (%s): the collector "
				       "counts with its cachegrind tool (Debian: apt-get install "
				       "valgrind)",
				       valgrind, vg_err.message);
	int rc = cmdline_init(&st->cl, ctx->cmd, ctx->args, ctx->workload, err);
	if (rc)
		return rc;
	const char *tmp = getenv("TMPDIR");
	if (asprintf(&st->dir, "%s/perun-instructions-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		st->dir = NULL;
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	if (!mkdtemp(st->dir)) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					   "cannot make a directory for cachegrind's output '%s'",
					   st->dir);
		free(st->dir);
		st->dir = NULL;
	}
	return rc;
}

/* How often a waiting collector looks at ctx->interrupted, in ms. */
#define INTERRUPT_POLL_MS 100

/* Wait for pid, stopping it when the user interrupts: 0 with its status,
 * 1 interrupted (pid stopped and reaped), -1 with errno.  A pidfd wakes
 * us the moment valgrind exits; without one, short sleeps. */
static int wait_run(const struct perun_collect_ctx *ctx, pid_t pid, int *status)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), rc = 0;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			rc = -1;
			break;
		}
		if (interrupted(ctx)) {
			kill(pid, SIGTERM);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			rc = 1;
			break;
		}
		if (fd >= 0)
			poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, INTERRUPT_POLL_MS);
		else
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* One counted run into counts. */
static int count_run(struct perun_collect_ctx *ctx, struct instructions_state *st, const char *out,
		     struct cachegrind_counts *counts, struct perun_error *err)
{
	size_t n = 0;
	while (st->cl.argv[n])
		n++;
	char *option = NULL;
	const char **argv = calloc(n + 8, sizeof(*argv));
	if (!argv || asprintf(&option, "--cachegrind-out-file=%s", out) < 0) {
		free(argv);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	size_t k = 0;
	argv[k++] = st->vg.path;
	argv[k++] = "--tool=cachegrind";
	argv[k++] = "--cache-sim=no";
	argv[k++] = "--branch-sim=no";
	argv[k++] = option;
	argv[k++] = "--";
	argv[k++] = st->cl.path;
	for (size_t i = 1; i < n; i++)
		argv[k++] = st->cl.argv[i];
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (!st->to_stderr)
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	else
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
	/* valgrind's own messages: on stderr when asked, else dropped */
	if (!st->to_stderr)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int status = 0, e = posix_spawn(&pid, st->vg.path, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	free(option);
	if (e)
		return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot run valgrind '%s'",
					     st->vg.path);
	int rc, waited = wait_run(ctx, pid, &status);
	if (waited < 0)
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot wait for valgrind '%s'",
					   st->vg.path);
	else if (waited)
		rc = perun_error_set(err, PERUN_EINTR, "interrupted while counting '%s'", ctx->cmd);
	else if (WIFSIGNALED(status))
		rc = perun_error_set(err, PERUN_ETOOL,
				     "command '%s' was killed by signal %d (%s) under valgrind",
				     ctx->cmd, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WEXITSTATUS(status) && !st->ignore_failure)
		rc = perun_error_set(err, PERUN_ETOOL,
				     "command '%s' exited with status %d under valgrind", ctx->cmd,
				     WEXITSTATUS(status));
	else
		rc = cachegrind_read(out, counts, err);
	/* whatever happened, the private directory is left empty */
	unlink(out);
	return rc;
}

static int add_resource(struct perun_collect_ctx *ctx, const char *uid, unsigned long long ir,
			long long order, struct perun_error *err)
{
	json_t *r =
		json_pack("{s:I, s:s, s:s, s:s, s:I}", "amount", (json_int_t)ir, "uid", uid, "type",
			  "mixed", "subtype", "instructions", "order", (json_int_t)order);
	if (!r)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_add_resource(ctx->profile, r, err);
	json_decref(r);
	return rc;
}

static int instructions_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct instructions_state *st = ctx->state;
	char *out = NULL;
	if (asprintf(&out, "%s/cachegrind.out", st->dir) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = 0;
	for (long long i = 0; i < st->repeat && !rc; i++) {
		struct cachegrind_counts counts = { 0 };
		rc = count_run(ctx, st, out, &counts, err);
		if (!rc)
			rc = add_resource(ctx, ctx->cmd, counts.total, i + 1, err);
		for (size_t f = 0; !rc && st->functions && f < counts.n; f++)
			if (counts.functions[f].ir)
				rc = add_resource(ctx, counts.functions[f].name,
						  counts.functions[f].ir, i + 1, err);
		cachegrind_release(&counts);
	}
	free(out);
	return rc;
}

static void instructions_teardown(struct perun_collect_ctx *ctx)
{
	struct instructions_state *st = ctx->state;
	if (!st)
		return;
	cmdline_release(&st->cl);
	cmdline_release(&st->vg);
	if (st->dir)
		rmdir(st->dir);
	free(st->dir);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops instructions_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = instructions_before,
	.collect = instructions_collect,
	.teardown = instructions_teardown,
	.profile_type = "mixed",
	.default_units = "{\"mixed(instructions)\": \"instructions\"}",
};

PERUN_PLUGIN_DEFINE(instructions, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "instructions a command and its functions execute (Valgrind)",
		    .options = instructions_options, .ops = &instructions_ops);
