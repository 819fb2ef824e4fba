/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The distinct call stacks of a trace, each resolved once (stacks.c). */
#ifndef PERUN_MEMORY_STACKS_H
#define PERUN_MEMORY_STACKS_H

#include <stdint.h>
#include <jansson.h>

#include "trace.h"

struct memory_stack {
	uint32_t proc;
	int described;
	int excluded; /* no uid, or filtered out by --no-func/--no-source */
	json_t *trace, *uid;
};

struct memory_stacks;

struct memory_stacks *memory_stacks_new(void);
void memory_stacks_free(struct memory_stacks *stacks);

/*
 * The id (from 0, dense) of the stack of event e: stacks with the same
 * addresses in one process share it, whichever thread defined them.
 * 0, or -1 without memory.
 */
int memory_stacks_intern(struct memory_stacks *stacks, struct memory_trace *trace,
			 const struct memory_event *e, uint32_t *id);
size_t memory_stacks_count(const struct memory_stacks *stacks);
/* Stack id with its trace and uid (resolved on first call); borrowed, NULL
 * without memory. */
const struct memory_stack *memory_stacks_describe(struct memory_stacks *stacks,
						  struct memory_trace *trace, uint32_t id,
						  const struct memory_options *opts);

#endif
