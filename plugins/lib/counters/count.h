/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Counting events of one process as perf stat does: a command started
 * here (counting from its exec) or a running process attached to, its
 * children and threads included, multiplexed counters scaled by their
 * enabled/running times, and optionally a reading every interval handed
 * to a callback while the process runs (count.c).
 */
#ifndef PERUN_LIB_COUNTERS_COUNT_H
#define PERUN_LIB_COUNTERS_COUNT_H

#include "events.h"

/* One counter's value. */
struct counters_reading {
	unsigned long long raw;	       /* as read */
	unsigned long long enabled_ns; /* time the event was enabled */
	unsigned long long running_ns; /* of that, time it was on a counter */
	double value;		       /* raw * enabled / running: the multiplexing scale */
};

/* One interval, delivered while the process runs. */
struct counters_tick {
	size_t interval;		      /* 1-based */
	double seconds;			      /* since counting began, at its end */
	const struct counters_reading *delta; /* per event, this interval */
	const struct counters_reading *total; /* per event, so far */
};

/* Non-zero stops the counting with that code (a negative error). */
typedef int (*counters_tick_fn)(void *data, const struct counters_tick *tick,
				struct perun_error *err);

/* What to count. */
struct counters_target {
	char *const *argv; /* a command to start: argv and the resolved path */
	const char *path;
	int pid;	      /* or, > 0: a running process to attach to */
	double duration;      /* attached: seconds, 0 until it exits or SIGINT */
	int inherit;	      /* count children and threads too */
	int output_fd;	      /* the command's stdout and stderr; -1: /dev/null */
	unsigned interval_ms; /* > 0: on_tick every so many ms */
	counters_tick_fn on_tick;
	void *data;
	const int *interrupted; /* stop (an error) when it becomes non-zero */
};

struct counters_result {
	struct counters_reading *totals; /* caller's array, one per event */
	double seconds;			 /* wall time counted */
	int exit_code;			 /* started command: its status, -N if killed by N */
	int ended_early;		 /* attached: the process exited before the end */
	int stopped_by_sigint;		 /* attached without duration: Ctrl-C ended it */
};

/*
 * Count events[0..n) of target into res.  A command is started with its
 * counters enabled at its exec; an attached process is counted from now.
 * An attached process is counted for the duration, or until it exits, or
 * (without duration) until SIGINT, which then ends the counting instead of
 * interrupting it.  0, or a negative error naming the cause.
 */
int counters_count(const struct counters_event *events, size_t n,
		   const struct counters_target *target, struct counters_result *res,
		   struct perun_error *err);

/* Mean and spread of repeated counts, as perf stat -r prints them. */
struct counters_spread {
	double mean;
	double stddev;	  /* sample standard deviation (n - 1) */
	double error_pct; /* standard error of the mean, % of the mean */
};

void counters_spread_of(const double *values, size_t n, struct counters_spread *out);

#endif
