/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Performance events by name: what a name means to perf_event_open
 * (resolve.c) and every event this machine knows, with its PMU, a
 * description and whether it can be counted here (event_list.c).  Data,
 * not output, so that a front end (perun events, a future web UI) shows
 * it its own way.
 */
#ifndef PERUN_LIB_COUNTERS_EVENTS_H
#define PERUN_LIB_COUNTERS_EVENTS_H

/* libpfm4 brings its own perf_event_attr: never with <linux/perf_event.h>. */
#include <perfmon/pfmlib_perf_event.h>
#include <stddef.h>

#include <perun/perun.h>

/* One event to count: the user's name and what perf_event_open gets. */
struct counters_event {
	char *name; /* as written by the user, e.g. "page-faults", "r01c2" */
	char *pmu;  /* "software", "hardware", "raw", "tracepoint", a PMU name */
	struct perf_event_attr attr;
	int counts_ns; /* a clock (task-clock, cpu-clock): counts nanoseconds */
};

/*
 * Resolve name, in this order: a raw code "rNNNN" (hex), a sysfs PMU event
 * "pmu/event/" or "pmu/term=value,.../", a libpfm4 name (the kernel's
 * generic names like "cycles" and each CPU vendor's PMU events, with
 * modifiers like ":u"), a tracepoint "subsystem:name".  An unknown name
 * fails naming the closest known ones.  ev is released with
 * counters_event_release also after a failure.
 */
int counters_event_resolve(const char *name, struct counters_event *ev, struct perun_error *err);
void counters_event_release(struct counters_event *ev);

/*
 * Open ev for pid (-1: this process) on any CPU as a counter read with
 * its enabled and running times; attr flags (disabled, inherit,
 * enable_on_exec) are the caller's.  Returns the descriptor, or fails
 * with a message saying why this machine cannot count it: no such PMU
 * (virtual machines often have none), perf_event_paranoid or missing
 * capabilities, no such process.
 */
int counters_event_open(const struct counters_event *ev, int pid, struct perun_error *err);

/* Open ev's attr exactly as given (sampling, ring buffer, read_format are
 * the caller's) for pid on cpu (-1: any), with the same fallback to user
 * space only and the same messages as counters_event_open. */
int counters_event_open_cpu(const struct counters_event *ev, int pid, int cpu,
			    struct perun_error *err);

/* An event of the list. */
struct counters_event_info {
	char *name;	    /* what --event takes */
	char *pmu;	    /* "software", "hardware", "cache", "tracepoint", a PMU */
	char *description;  /* one line */
	const char *source; /* "libpfm4", "sysfs" or "tracefs" */
	int usable;	    /* can be counted here (opened for this process) */
	unsigned long used; /* how often stored profiles count it (caller's) */
};

struct counters_event_list {
	struct counters_event_info *events;
	size_t count, capacity;
};

enum counters_list_flags {
	/* Also the tables of PMUs this machine lacks (libpfm4 knows many
	 * thousand events of other CPUs), marked unusable. */
	COUNTERS_LIST_ABSENT_PMUS = 1u << 0,
	/* Skip the trial open that decides usable (all are then usable). */
	COUNTERS_LIST_NO_PROBE = 1u << 1,
};

/* Every event known here into list (zeroed by the caller), sorted by PMU
 * then name; released with counters_event_list_release. */
int counters_event_list(struct counters_event_list *list, unsigned flags, struct perun_error *err);
void counters_event_list_release(struct counters_event_list *list);

/* Whether pattern (case-insensitive) is in the name, PMU or description;
 * NULL or "" matches all. */
int counters_event_matches(const struct counters_event_info *e, const char *pattern);

#endif
