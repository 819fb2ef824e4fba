/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kperf - sampled call stacks of a command or a running process, Python
 * Perun's kperf collector (perf record -g | stackcollapse-perf.pl) done in
 * process: perf events per CPU whose samples are counted per stack in the
 * kernel by a BPF program (frame pointers), or copied out and unwound
 * with libdw (--call-graph dwarf).  Each stack becomes a resource of the
 * kperf profile: the sampled function is the uid, its callers the trace,
 * the number of samples the amount.  See README.md and kperf.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>

#include "cmdline.h"
#include "kperf.h"
#include "spawn.h"

/* Between drains of the ring buffers: their size covers it at the
 * highest rate perf allows by default. */
#define DRAIN_MS 100

static const struct perun_option kperf_options[] = {
	{ "event", "e", PERUN_OPTION_STRING, "cpu-clock", NULL, "<event>",
	  "event to sample on (see 'perun events'); cpu-clock works without a PMU", 0 },
	{ "frequency", "F", PERUN_OPTION_INT, "999", NULL, "<hz>",
	  "samples per second of CPU time (perf record -F)", 0 },
	{ "period", "c", PERUN_OPTION_INT, "0", NULL, "<n>",
	  "a sample every <n> events instead of --frequency (perf record -c)", 0 },
	{ "call-graph", "g", PERUN_OPTION_CHOICE, "fp", "fp|dwarf", NULL,
	  "fp: frame pointers, counted in the kernel by BPF; dwarf: stack copies unwound "
	  "with libdw (programs without frame pointers)",
	  0 },
	{ "stack-size", NULL, PERUN_OPTION_INT, "8192", NULL, "<bytes>",
	  "dwarf: bytes of user stack copied per sample", 0 },
	{ "repeat", "r", PERUN_OPTION_INT, "1", NULL, "<int>",
	  "sample the command <int> times (an amount per run)", 0 },
	{ "warmup", "w", PERUN_OPTION_INT, "0", NULL, "<int>",
	  "run the command <int> times before sampling it, unrecorded", 0 },
	{ "pid", "p", PERUN_OPTION_INT, "0", NULL, "<pid>",
	  "sample a running process (all its threads) instead of starting the command", 0 },
	{ "duration", "d", PERUN_OPTION_FLOAT, "0", NULL, "<seconds>",
	  "with --pid: sample for so long; 0: until it exits", 0 },
	{ "ignore-failure", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "record runs that exit non-zero instead of failing", 0 },
	{ "output", "o", PERUN_OPTION_CHOICE, "discard", "discard|stderr", NULL,
	  "where the command's stdout and stderr go", 0 },
	{ "verbose", "v", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "show libbpf's messages when the BPF program does not load", 0 },
	{ "top-every-ms", NULL, PERUN_OPTION_INT, "0", NULL, "<ms>",
	  "while sampling, print the top functions so far every <ms> ms as a line "
	  "'perun-kperf-top <JSON>' (perun serve shows them live); 0: never",
	  0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct kperf_state {
	struct cmdline cl;
	struct kperf_sampling how;
	long long repeat, warmup;
	int pid;
	double duration;
	int ignore_failure, to_stderr, verbose;
	long long top_ms; /* --top-every-ms */
	struct kperf_sampler *sampler;
	struct kperf_kallsyms *kallsyms;
	struct kperf_stacks *stacks;
	const char *command; /* the profiled command's name, or "pid N" */
	char pid_command[32];
	double seconds;		/* sampled, over the recorded runs */
	uint64_t lost, dropped; /* records lost, samples not counted */
	char *unsymbolized;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int read_options(struct perun_collect_ctx *ctx, struct kperf_state *st,
			struct perun_error *err)
{
	const struct perun_params *p = ctx->params;
	struct counters_runs runs;
	int rc = counters_runs_read(p, &runs, err);
	if (rc)
		return rc;
	st->repeat = runs.repeat;
	st->warmup = runs.warmup;
	st->pid = runs.pid;
	st->duration = runs.duration;
	st->how.event = perun_params_string(p, "event", "cpu-clock");
	st->how.frequency = perun_params_int(p, "frequency", 999);
	st->how.period = perun_params_int(p, "period", 0);
	st->how.call_graph = !strcmp(perun_params_string(p, "call-graph", "fp"), "dwarf")
				     ? KPERF_DWARF
				     : KPERF_FP;
	long long stack_size = perun_params_int(p, "stack-size", 8192);
	st->ignore_failure = perun_params_bool(p, "ignore-failure", 0);
	st->to_stderr = !strcmp(perun_params_string(p, "output", "discard"), "stderr");
	st->verbose = perun_params_bool(p, "verbose", 0);
	st->top_ms = perun_params_int(p, "top-every-ms", 0);
	if (st->top_ms && (st->top_ms < 100 || st->top_ms > 86400000))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--top-every-ms' must be 100 or more, not %lld",
				       st->top_ms);
	if (st->how.frequency < 1 || st->how.frequency > 1000000)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--frequency' must be 1 to 1000000, not %lld",
				       st->how.frequency);
	if (st->how.period < 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--period' must be 1 or more, not %lld",
				       st->how.period);
	/* perf's limit and a multiple of 8, as the kernel wants. */
	if (stack_size < 64 || stack_size > 65528)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--stack-size' must be 64 to 65528, not %lld",
				       stack_size);
	st->how.stack_bytes = (unsigned)(stack_size & ~7LL);
	return 0;
}

static int kperf_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct kperf_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	int rc = read_options(ctx, st, err);
	if (rc)
		return rc;
	if (st->pid) {
		int fd = counters_pid_watch(st->pid, err);
		if (fd < 0)
			return fd;
		close(fd);
		snprintf(st->pid_command, sizeof(st->pid_command), "pid %d", st->pid);
		st->command = ctx->cmd && *ctx->cmd ? ctx->cmd : st->pid_command;
	} else {
		if (!ctx->cmd || !*ctx->cmd)
			return perun_error_set(
				err, PERUN_EINVAL,
				"no command to sample (give one with --cmd, or --pid)");
		rc = cmdline_init(&st->cl, ctx->cmd, ctx->args, ctx->workload, err);
		if (rc)
			return rc;
		st->command = ctx->cmd;
	}
	rc = kperf_sampler_new(&st->sampler, &st->how, err);
	if (rc)
		return rc;
	st->kallsyms = kperf_kallsyms_load();
	st->stacks = kperf_stacks_new();
	if (!st->kallsyms || !st->stacks)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

/* The threads of a running process: each needs its own events (inherit
 * only reaches threads made later). */
static int threads_of(int pid, pid_t **tids, size_t *n, struct perun_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return perun_error_set(err, PERUN_ENOTFOUND, "no process with pid %d", pid);
	struct dirent *e;
	size_t cap = 0;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid <= 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			pid_t *grown = realloc(*tids, cap * sizeof(*grown));
			if (!grown) {
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
				break;
			}
			*tids = grown;
		}
		(*tids)[(*n)++] = tid;
	}
	closedir(d);
	return rc;
}

/* A SIGINT blocked by sample_until_end is pending: take it. */
static int took_sigint(void)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	return sigtimedwait(&set, NULL, &zero) == SIGINT;
}

/* One line "perun-kperf-top {"t", "samples", "top": [{"name", "samples"}]}"
 * of the samples so far: the unwound stacks (dwarf), or the BPF map read
 * into a scratch set (fp: the map holds totals, reading leaves them). */
static void print_top(struct kperf_state *st, struct kperf_bpf *bpf, struct kperf_procs *procs,
		      size_t run, double seconds)
{
	struct kperf_stacks *scratch = bpf ? kperf_stacks_new() : NULL;
	struct kperf_stacks *from = bpf ? scratch : st->stacks;
	size_t at = bpf ? 0 : run;
	uint64_t dropped = 0;
	struct perun_error err = { 0 };
	if (!from ||
	    (bpf && kperf_bpf_collect(bpf, scratch, procs, st->kallsyms, 0, &dropped, &err))) {
		kperf_stacks_free(scratch);
		return;
	}
	json_t *line = json_pack("{s:f, s:I, s:o}", "t", seconds, "samples",
				 (json_int_t)kperf_stacks_total(from, at), "top",
				 kperf_stacks_top(from, at, 10));
	char *text = line ? json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
	if (text) {
		printf("perun-kperf-top %s\n", text);
		fflush(stdout);
	}
	free(text);
	json_decref(line);
	kperf_stacks_free(scratch);
}

/* One run's end: the command's or the process's exit, the duration,
 * or a signal.  Drains the rings meanwhile.  An attached process without
 * --duration is sampled until Ctrl-C (perf record -p), which then ends
 * the sampling and keeps the profile: SIGINT is blocked meanwhile and
 * taken here, never reaching perun's handler. */
static int sample_until_end(struct perun_collect_ctx *ctx, struct kperf_state *st,
			    struct kperf_procs *procs, const struct kperf_sample_handler *h,
			    struct kperf_bpf *bpf, size_t run, int exit_fd, double start,
			    struct perun_error *err)
{
	double last_top = start;
	sigset_t set, old;
	int until_sigint = st->pid && st->duration <= 0, rc = 0;
	if (until_sigint) {
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, &old);
		/* Said once the sampling runs: a Ctrl-C before it interrupts perun. */
		fprintf(stderr, "perun: kperf: sampling process %d until Ctrl-C\n", st->pid);
	}
	for (;;) {
		if (*(volatile int *)&ctx->interrupted) {
			rc = perun_error_set(err, PERUN_EINTR, "interrupted while sampling '%s'",
					     st->command);
			break;
		}
		if (until_sigint && took_sigint()) {
			fprintf(stderr,
				"perun: kperf: sampling of process %d stopped by Ctrl-C after %.3f "
				"s\n",
				st->pid, now() - start);
			break;
		}
		int wait = DRAIN_MS;
		if (st->duration > 0) {
			double left = st->duration - (now() - start);
			if (left <= 0)
				break;
			if (left * 1000 < wait)
				wait = (int)(left * 1000) + 1;
		}
		int ended = kperf_sampler_drain(st->sampler, procs, h, exit_fd, wait, err);
		if (ended >= 0 && st->top_ms && now() - last_top >= (double)st->top_ms / 1000) {
			last_top = now();
			print_top(st, bpf, procs, run, last_top - start);
		}
		if (ended < 0) {
			rc = ended;
			break;
		}
		if (ended) {
			if (st->pid && st->duration > 0)
				fprintf(stderr,
					"perun: process %d exited after %.3f s; sampled until "
					"then\n",
					st->pid, now() - start);
			break;
		}
	}
	if (until_sigint) {
		while (took_sigint())
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (rc)
		return rc;
	/* What the last moments left in the rings. */
	rc = kperf_sampler_drain(st->sampler, procs, h, -1, 0, err);
	return rc < 0 ? rc : 0;
}

static int run_once(struct perun_collect_ctx *ctx, struct kperf_state *st, size_t run, int recorded,
		    struct perun_error *err)
{
	struct kperf_procs *procs = kperf_procs_new();
	struct counters_child child = { .pidfd = -1, .go = -1, .report = -1 };
	struct kperf_bpf *bpf = NULL;
	struct kperf_unwinder unwinder = {
		.stacks = st->stacks, .kallsyms = st->kallsyms, .procs = procs, .run = run
	};
	struct kperf_sample_handler handler = { NULL, &unwinder };
	pid_t *tids = NULL;
	size_t ntids = 0;
	int watch = -1, exit_code = 0, rc = 0;
	if (!procs)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (st->how.call_graph == KPERF_DWARF && recorded)
		handler.sample = kperf_unwind_sample;

	if (st->pid) {
		/* The events first: for another user's process they fail
		 * naming perf_event_paranoid, where its maps say only EACCES. */
		rc = threads_of(st->pid, &tids, &ntids, err);
		if (!rc)
			rc = kperf_sampler_open(st->sampler, tids, ntids, 0, err);
		if (!rc)
			rc = kperf_procs_read_maps(procs, st->pid, err);
	} else {
		rc = counters_child_spawn(&child, st->cl.argv, st->cl.path,
					  st->to_stderr ? STDERR_FILENO : -1, err);
		if (!rc)
			rc = kperf_sampler_open(st->sampler, &child.pid, 1, 1, err);
	}
	if (!rc && st->how.call_graph == KPERF_FP) {
		size_t nfds;
		const int *fds = kperf_sampler_fds(st->sampler, &nfds);
		rc = kperf_bpf_attach(&bpf, fds, nfds, st->verbose, err);
	}
	if (rc)
		goto out; /* a held child exits unrun */

	double start = now();
	if (st->pid) {
		watch = counters_pid_watch(st->pid, err);
		rc = watch < 0 ? watch : kperf_sampler_enable(st->sampler, err);
	} else {
		rc = counters_child_go(&child, st->cl.argv[0], err);
		watch = child.pidfd;
	}
	if (!rc)
		rc = sample_until_end(ctx, st, procs, &handler, recorded ? bpf : NULL, run, watch,
				      start, err);
	double seconds = now() - start;
	if (!rc && child.pid)
		exit_code = counters_child_reap(&child);
	if (!rc && recorded && bpf) {
		uint64_t dropped = 0;
		rc = kperf_bpf_collect(bpf, st->stacks, procs, st->kallsyms, run, &dropped, err);
		st->dropped += dropped;
	}
	if (!rc && recorded) {
		st->seconds += seconds;
		st->lost += kperf_sampler_lost(st->sampler);
		st->dropped += unwinder.failed;
		const char *unsym = kperf_procs_unsymbolized(procs);
		if (unsym && !st->unsymbolized)
			st->unsymbolized = strdup(unsym);
	}
	if (!rc && !st->pid && exit_code && !st->ignore_failure)
		rc = exit_code < 0 ? perun_error_set(err, PERUN_ETOOL,
						     "command '%s' was killed by signal %d",
						     st->command, -exit_code)
				   : perun_error_set(err, PERUN_ETOOL,
						     "command '%s' exited with status %d",
						     st->command, exit_code);
out:
	kperf_bpf_free(bpf);
	kperf_sampler_close(st->sampler);
	counters_child_release(&child);
	if (st->pid && watch >= 0)
		close(watch);
	kperf_procs_free(procs);
	free(tids);
	return rc;
}

static int kperf_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct kperf_state *st = ctx->state;
	int rc = 0;
	for (long long w = 0; !rc && w < st->warmup; w++)
		rc = run_once(ctx, st, 0, 0, err);
	for (long long r = 0; !rc && r < st->repeat; r++)
		rc = run_once(ctx, st, (size_t)r, 1, err);
	if (rc)
		return rc;
	uint64_t samples = 0;
	for (long long r = 0; r < st->repeat; r++)
		samples += kperf_stacks_total(st->stacks, (size_t)r);
	printf("kperf: %llu samples of '%s' in %.3f s (%s, %s", (unsigned long long)samples,
	       st->command, st->seconds, st->how.event,
	       st->how.call_graph == KPERF_DWARF ? "dwarf" : "frame pointers");
	if (st->lost || st->dropped)
		printf("; %llu lost, %llu not unwound", (unsigned long long)st->lost,
		       (unsigned long long)st->dropped);
	printf(")\n");
	fflush(stdout);
	if (st->unsymbolized)
		fprintf(stderr,
			"perun: warning: kperf: no symbols in %s (stripped?): frames shown as "
			"module+offset\n",
			st->unsymbolized);
	if (!samples)
		return perun_error_set(err, PERUN_ETOOL,
				       "no samples of '%s' in %.3f s (raise --frequency, or "
				       "sample a longer run)",
				       st->command, st->seconds);
	return kperf_stacks_to_profile(st->stacks, st->command, st->seconds, ctx->profile, err);
}

static void kperf_teardown(struct perun_collect_ctx *ctx)
{
	struct kperf_state *st = ctx->state;
	if (!st)
		return;
	cmdline_release(&st->cl);
	kperf_sampler_free(st->sampler);
	kperf_kallsyms_free(st->kallsyms);
	kperf_stacks_free(st->stacks);
	free(st->unsymbolized);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops kperf_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = kperf_before,
	.collect = kperf_collect,
	.teardown = kperf_teardown,
	.profile_type = "time",
	.default_units = "{\"time\": \"sample\"}",
};

PERUN_PLUGIN_DEFINE(kperf, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "sampled call stacks of a command (perf record -g), counted "
			       "in the kernel with BPF or unwound with libdw",
		    .options = kperf_options, .ops = &kperf_ops);
