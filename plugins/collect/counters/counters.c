/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * counters - hardware and software event counts of a command, perf stat's
 * job, on perf_event_open with libpfm4's event names (plugins/lib/
 * counters).  Each repetition, or each interval, becomes one resource per
 * event with the count as amount and the event as uid, so that the views,
 * postprocessors and check methods treat a counter like a time: a count
 * that grew between two commits is found as a degradation of its uid.
 * See README.md.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perun/perun.h>

#include "cmdline.h"
#include "count.h"
#include "events.h"
#include "spawn.h"

/* perf stat's default events; those this machine cannot count are left
 * out (perf stat shows them "<not supported>"). */
static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles",     "instructions",	  "branches",	    "branch-misses",
};

/* The shortest interval: shorter ones count mostly perun reading. */
#define MIN_INTERVAL_MS 10

static const struct perun_option counters_options[] = {
	{ "event", "e", PERUN_OPTION_STRING, NULL, NULL, "<event>",
	  "event to count, or several separated by commas (see 'perun events'); default: "
	  "perf stat's",
	  PERUN_OPTION_MULTIPLE },
	{ "repeat", "r", PERUN_OPTION_INT, "1", NULL, "<int>",
	  "count the command <int> times (mean and spread as perf stat -r)", 0 },
	{ "warmup", "w", PERUN_OPTION_INT, "0", NULL, "<int>",
	  "run the command <int> times before counting it, unrecorded", 0 },
	{ "interval-ms", "I", PERUN_OPTION_INT, "0", NULL, "<ms>",
	  "a reading every <ms> milliseconds (perf stat -I): a time series", 0 },
	{ "pid", "p", PERUN_OPTION_INT, "0", NULL, "<pid>",
	  "count a running process instead of starting the command", 0 },
	{ "duration", "d", PERUN_OPTION_FLOAT, "0", NULL, "<seconds>",
	  "with --pid: count for so long; 0: until it exits or Ctrl-C", 0 },
	{ "inherit", NULL, PERUN_OPTION_BOOL, "true", NULL, NULL,
	  "count the children and threads too (--no-inherit: the process alone)", 0 },
	{ "ignore-failure", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "record runs that exit non-zero instead of failing", 0 },
	{ "output", "o", PERUN_OPTION_CHOICE, "discard", "discard|stderr", NULL,
	  "where the command's stdout and stderr go", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct counters_state {
	struct cmdline cl;
	struct counters_event *events;
	size_t nevents;
	long long repeat, warmup, interval_ms;
	int pid;
	double duration;
	int inherit, ignore_failure, to_stderr;
	double *values;	       /* [run * nevents + event], scaled counts */
	double *running_share; /* same shape: running / enabled */
	long long run;	       /* the repetition being counted, 1-based */
	struct perun_collect_ctx *ctx;
};

static int interrupted(const struct perun_collect_ctx *ctx)
{
	return *(const volatile int *)&ctx->interrupted;
}

static int add_event(struct counters_state *st, const char *name, int optional,
		     struct perun_error *err)
{
	struct counters_event ev;
	int rc = counters_event_resolve(name, &ev, err);
	if (!rc) {
		/* Tried now, so that an event this machine lacks fails before
		 * anything runs. */
		struct counters_event probe = ev;
		probe.attr.disabled = 1;
		int fd = counters_event_open(&probe, 0, err);
		rc = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	if (rc) {
		counters_event_release(&ev);
		if (optional && err->code != PERUN_EGENERIC) {
			perun_error_clear(err);
			return 0;
		}
		return rc;
	}
	struct counters_event *grown = realloc(st->events, (st->nevents + 1) * sizeof(*st->events));
	if (!grown) {
		counters_event_release(&ev);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	st->events = grown;
	st->events[st->nevents++] = ev;
	return 0;
}

/* "a,b,cpu/event=1,umask=2/": commas inside a PMU's slashes are its own. */
static int add_event_list(struct counters_state *st, const char *text, struct perun_error *err)
{
	char *copy = strdup(text);
	if (!copy)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = 0, slashes = 0;
	char *start = copy;
	for (char *p = copy;; p++) {
		if (*p == '/')
			slashes++;
		if (*p && (*p != ',' || slashes % 2))
			continue;
		int end = !*p;
		*p = '\0';
		if (*start)
			rc = add_event(st, start, 0, err);
		else
			rc = perun_error_set(err, PERUN_EINVAL, "empty event name in '%s'", text);
		if (rc || end)
			break;
		start = p + 1;
	}
	free(copy);
	return rc;
}

static int read_options(struct perun_collect_ctx *ctx, struct counters_state *st,
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
	st->interval_ms = perun_params_int(p, "interval-ms", 0);
	st->inherit = perun_params_bool(p, "inherit", 1);
	st->ignore_failure = perun_params_bool(p, "ignore-failure", 0);
	st->to_stderr = !strcmp(perun_params_string(p, "output", "discard"), "stderr");
	if (st->interval_ms && (st->interval_ms < MIN_INTERVAL_MS || st->interval_ms > 86400000))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--interval-ms' must be %d or more, not %lld",
				       MIN_INTERVAL_MS, st->interval_ms);
	return 0;
}

static int counters_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct counters_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	st->ctx = ctx;
	int rc = read_options(ctx, st, err);
	size_t nlists = perun_params_count(ctx->params, "event");
	for (size_t i = 0; !rc && i < nlists; i++)
		rc = add_event_list(st, perun_params_string_at(ctx->params, "event", i), err);
	for (size_t i = 0; !rc && !nlists && i < sizeof(default_events) / sizeof(*default_events);
	     i++)
		rc = add_event(st, default_events[i], 1, err);
	if (!rc && !st->nevents)
		rc = perun_error_set(err, PERUN_ETOOL,
				     "none of perf stat's default events counts here: see "
				     "/proc/sys/kernel/perf_event_paranoid");
	if (rc)
		return rc;
	if (!st->pid) {
		if (!ctx->cmd || !*ctx->cmd)
			return perun_error_set(
				err, PERUN_EINVAL,
				"no command to count (give one with --cmd, or --pid)");
		rc = cmdline_init(&st->cl, ctx->cmd, ctx->args, ctx->workload, err);
		if (rc)
			return rc;
	}
	size_t cells = (size_t)st->repeat * st->nevents;
	st->values = calloc(cells, sizeof(*st->values));
	st->running_share = calloc(cells, sizeof(*st->running_share));
	if (!st->values || !st->running_share)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

/* A count as JSON: an integer when it was counted all the time, else the
 * scaled estimate. */
static json_t *amount_of(const struct counters_reading *r)
{
	if (r->running_ns == r->enabled_ns)
		return json_integer((json_int_t)r->raw);
	return json_real(r->value);
}

static int add_reading(struct counters_state *st, size_t e, const struct counters_reading *r,
		       const struct counters_tick *tick, struct perun_error *err)
{
	const struct counters_event *ev = &st->events[e];
	json_t *res = json_pack("{s:o, s:s, s:I, s:s, s:s, s:I, s:I, s:I}", "amount", amount_of(r),
				"uid", ev->name, "order", (json_int_t)st->run, "type",
				ev->counts_ns ? "time" : "count", "pmu", ev->pmu, "raw",
				(json_int_t)r->raw, "enabled-ns", (json_int_t)r->enabled_ns,
				"running-ns", (json_int_t)r->running_ns);
	if (res && tick &&
	    (json_object_set_new(res, "interval", json_integer((json_int_t)tick->interval)) ||
	     json_object_set_new(res, "timestamp", json_real(tick->seconds)))) {
		json_decref(res);
		res = NULL;
	}
	if (!res)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_add_resource(st->ctx->profile, res, err);
	json_decref(res);
	return rc;
}

/* Each interval: its resources, and a line like perf stat -I prints. */
static int on_tick(void *data, const struct counters_tick *tick, struct perun_error *err)
{
	struct counters_state *st = data;
	for (size_t e = 0; e < st->nevents; e++) {
		const struct counters_reading *d = &tick->delta[e];
		/* As perf stat -I: clocks in msec, the profile keeps ns. */
		if (st->events[e].counts_ns)
			printf("%12.3f %18.2f msec %-24s", tick->seconds, d->value / 1e6,
			       st->events[e].name);
		else
			printf("%12.3f %18.0f  %-24s", tick->seconds, d->value, st->events[e].name);
		if (d->running_ns != d->enabled_ns && d->enabled_ns)
			printf("  (%.2f%%)", 100.0 * (double)d->running_ns / (double)d->enabled_ns);
		putchar('\n');
		int rc = add_reading(st, e, d, tick, err);
		if (rc)
			return rc;
	}
	fflush(stdout);
	return 0;
}

static int count_once(struct counters_state *st, int recorded, struct counters_reading *totals,
		      struct counters_result *res, struct perun_error *err)
{
	struct counters_target t = {
		.argv = st->cl.argv,
		.path = st->cl.path,
		.pid = st->pid,
		.duration = st->duration,
		.inherit = st->inherit,
		.output_fd = st->to_stderr ? STDERR_FILENO : -1,
		.interval_ms = recorded ? (unsigned)st->interval_ms : 0,
		.on_tick = recorded && st->interval_ms ? on_tick : NULL,
		.data = st,
		.interrupted = &st->ctx->interrupted,
	};
	res->totals = totals;
	int rc = counters_count(st->events, st->nevents, &t, res, err);
	if (rc == -PERUN_EINTR)
		return perun_error_set(err, PERUN_EINTR, "interrupted while counting '%s'",
				       st->ctx->cmd);
	if (rc || st->pid || st->ignore_failure || res->exit_code == 0)
		return rc;
	if (res->exit_code < 0)
		return perun_error_set(err, PERUN_ETOOL, "command '%s' was killed by signal %d",
				       st->ctx->cmd, -res->exit_code);
	return perun_error_set(err, PERUN_ETOOL, "command '%s' exited with status %d", st->ctx->cmd,
			       res->exit_code);
}

/* perf stat's summary: the mean of each event, its spread over the
 * repetitions and the share of time it was counted when multiplexed. */
static void print_summary(const struct counters_state *st, double seconds)
{
	double *column = calloc((size_t)st->repeat, sizeof(*column));
	if (!column)
		return;
	if (st->pid)
		printf("\n Performance counter stats for process %d", st->pid);
	else
		printf("\n Performance counter stats for '%s'", st->ctx->cmd);
	if (st->repeat > 1)
		printf(" (%lld runs)", st->repeat);
	printf(":\n\n");
	for (size_t e = 0; e < st->nevents; e++) {
		struct counters_spread spread, share;
		for (long long r = 0; r < st->repeat; r++)
			column[r] = st->values[(size_t)r * st->nevents + e];
		counters_spread_of(column, (size_t)st->repeat, &spread);
		for (long long r = 0; r < st->repeat; r++)
			column[r] = st->running_share[(size_t)r * st->nevents + e];
		counters_spread_of(column, (size_t)st->repeat, &share);
		const struct counters_event *ev = &st->events[e];
		if (ev->counts_ns)
			printf("%18.2f msec %-26s", spread.mean / 1e6, ev->name);
		else
			printf("%18.0f      %-26s", spread.mean, ev->name);
		if (st->repeat > 1)
			printf("  ( +- %5.2f%% )", spread.error_pct);
		if (share.mean < 0.99995)
			printf("  (%.2f%%)", 100.0 * share.mean);
		putchar('\n');
	}
	printf("\n%18.9f seconds time elapsed%s\n\n", seconds,
	       st->repeat > 1 ? " (the last run)" : "");
	fflush(stdout);
	free(column);
}

static int counters_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct counters_state *st = ctx->state;
	struct counters_reading *totals = calloc(st->nevents, sizeof(*totals));
	struct counters_result res = { 0 };
	int rc = totals ? 0 : perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (long long w = 0; !rc && w < st->warmup && !interrupted(ctx); w++)
		rc = count_once(st, 0, totals, &res, err);
	for (st->run = 1; !rc && st->run <= st->repeat && !interrupted(ctx); st->run++) {
		rc = count_once(st, 1, totals, &res, err);
		for (size_t e = 0; !rc && e < st->nevents; e++) {
			size_t cell = (size_t)(st->run - 1) * st->nevents + e;
			st->values[cell] = totals[e].value;
			st->running_share[cell] = totals[e].enabled_ns
							  ? (double)totals[e].running_ns /
								    (double)totals[e].enabled_ns
							  : 0;
			/* Interval mode stored each interval instead. */
			if (!st->interval_ms)
				rc = add_reading(st, e, &totals[e], NULL, err);
		}
	}
	if (!rc && st->pid && res.ended_early)
		fprintf(stderr, "perun: process %d exited after %.3f s; counted until then\n",
			st->pid, res.seconds);
	if (!rc)
		print_summary(st, res.seconds);
	free(totals);
	return rc;
}

static void counters_teardown(struct perun_collect_ctx *ctx)
{
	struct counters_state *st = ctx->state;
	if (!st)
		return;
	cmdline_release(&st->cl);
	for (size_t i = 0; i < st->nevents; i++)
		counters_event_release(&st->events[i]);
	free(st->events);
	free(st->values);
	free(st->running_share);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops counters_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = counters_before,
	.collect = counters_collect,
	.teardown = counters_teardown,
	/* Like kperf's: one resource per measurement, averaged per uid. */
	.profile_type = "time",
	.default_units = "{\"count\": \"events\", \"time\": \"ns\"}",
};

PERUN_PLUGIN_DEFINE(counters, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "hardware and software event counts of a command (perf stat)",
		    .options = counters_options, .ops = &counters_ops);
