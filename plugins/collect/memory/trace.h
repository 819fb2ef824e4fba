/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The memory collector's reading of the recorded trace (trace.c). */
#ifndef PERUN_MEMORY_TRACE_H
#define PERUN_MEMORY_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <perun/perun.h>

#include "record.h"

struct memory_trace;
struct memory_symbols;

struct memory_options {
	double sampling;		   /* snapshot length in seconds, > 0 */
	int all;			   /* keep allocator and unreachable frames */
	const struct perun_params *params; /* for the no-func/no-source lists */
	long long sample;		   /* per-event: keep every sample-th event */
};

/* What the run left: processes, events, and how much could not be read. */
struct memory_summary {
	size_t processes;
	size_t events;
	size_t corrupt; /* records skipped as unreadable */
	int full;	/* some process ran out of trace space */
};

/* One recorded call.  thread is the serial within its process, stack the
 * thread's stack id (memory_trace_stack). */
struct memory_event {
	uint64_t ts;
	uint64_t ts_free; /* realloc: when old_ptr was given back */
	uint64_t ptr, size, old_ptr;
	uint32_t proc, thread, stack;
	uint8_t kind, allocator;    /* enum pmem_kind, enum pmem_allocator */
	size_t alloc_pos, free_pos; /* per-event.c's accounting */
};

/*
 * Read every process trace in dir (files "<pid>.<n>.pmem" and ".maps").
 * With keep_events every event is read now (memory_trace_events);
 * otherwise only where each thread's blocks are, for memory_trace_next.
 * On success *out is the caller's, freed with memory_trace_free.  A
 * directory without any trace is an error naming cmd.
 */
int memory_trace_load(const char *dir, const char *cmd, int keep_events, struct memory_trace **out,
		      struct perun_error *err);
void memory_trace_summary(const struct memory_trace *trace, struct memory_summary *sum);
void memory_trace_free(struct memory_trace *trace);

/* The events read by a keep_events load, in file order; borrowed. */
struct memory_event *memory_trace_events(struct memory_trace *trace, size_t *count);

/*
 * The next event of all processes and threads in time order, read block by
 * block (a block read is dropped from memory): 1 and *e, 0 at the end, -1
 * without memory.  A realloc that gave a block back comes in two: a
 * PMEM_FREE of old_ptr at ts_free (allocator PMEM_REALLOC_FN), then the
 * PMEM_REALLOC.  Frees sort before allocations of the same time.
 */
int memory_trace_next(struct memory_trace *trace, struct memory_event *e);

/* The stack an event refers to, and a slot for its reader's own id
 * (0 until set); both borrowed, valid until memory_trace_free. */
const struct pmem_stack *memory_trace_stack(const struct memory_trace *trace,
					    const struct memory_event *e);
uint32_t *memory_trace_stack_tag(struct memory_trace *trace, const struct memory_event *e);
/* The symbol resolver of process proc; borrowed. */
struct memory_symbols *memory_trace_symbols(struct memory_trace *trace, uint32_t proc);

/* Perun's subtype of an allocator. */
const char *memory_allocator_name(unsigned allocator);

/* Python Perun's snapshots: snapshot index ends at (index + 1) * sampling,
 * its "time" that end as "%f" of the interval summed float by float. */
struct memory_snapshots {
	double sampling, interval;
	long index;
};
void memory_snapshots_init(struct memory_snapshots *s, double sampling);
/* Move to the snapshot of an event at ts (CLOCK_MONOTONIC) for a program
 * started at t0_ns; events come in time order. */
void memory_snapshots_reach(struct memory_snapshots *s, uint64_t ts, uint64_t t0_ns);
/* The "time" of a snapshot ending at interval. */
void memory_snapshots_time(double interval, char *buf, size_t size);

/* The profiles: aggregated per call stack and allocator (aggregate.c),
 * or one resource per call as Python Perun (per-event.c). */
int memory_profile_aggregated(struct memory_trace *trace, const struct memory_options *opts,
			      uint64_t t0_ns, struct perun_profile *profile,
			      struct perun_error *err);
int memory_profile_per_event(struct memory_trace *trace, const struct memory_options *opts,
			     uint64_t t0_ns, struct perun_profile *profile,
			     struct perun_error *err);

#endif
