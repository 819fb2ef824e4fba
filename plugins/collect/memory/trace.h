/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The memory collector's reading of the recorded trace (trace.c). */
#ifndef PERUN_MEMORY_TRACE_H
#define PERUN_MEMORY_TRACE_H

#include <stdint.h>
#include <perun/perun.h>

struct memory_trace;

struct memory_options {
	double sampling;		   /* snapshot length in seconds, > 0 */
	int all;			   /* keep allocator and unreachable frames */
	const struct perun_params *params; /* for the no-func/no-source lists */
};

/* What the run left: processes, events, and how much could not be read. */
struct memory_summary {
	size_t processes;
	size_t events;
	size_t corrupt; /* records skipped as unreadable */
	int full;	/* some process ran out of trace space */
};

/*
 * Read every process trace in dir (files "<pid>.<n>.pmem" and ".maps").
 * On success *out is the caller's, freed with memory_trace_free.  A
 * directory without any trace is an error naming cmd.
 */
int memory_trace_load(const char *dir, const char *cmd, struct memory_trace **out,
		      struct perun_error *err);
void memory_trace_summary(const struct memory_trace *trace, struct memory_summary *sum);

/*
 * Resolve the stacks (libdw, with each process's recorded maps), compute
 * leaks and the heap peak, and add Perun's memory resources to profile,
 * with times relative to t0_ns (CLOCK_MONOTONIC when the program started).
 */
int memory_trace_to_profile(struct memory_trace *trace, const struct memory_options *opts,
			    uint64_t t0_ns, struct perun_profile *profile, struct perun_error *err);

void memory_trace_free(struct memory_trace *trace);

#endif
