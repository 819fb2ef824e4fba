/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The live blocks of the recorded processes, by (process, address). */
#ifndef PERUN_MEMORY_LIVE_MAP_H
#define PERUN_MEMORY_LIVE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct live_slot {
	uint64_t ptr;
	uint32_t proc;
	uint32_t used;
	uint64_t value; /* the reader's: an event index, or a size */
	uint32_t owner; /* the reader's: what the block is counted under */
};

struct live_map {
	struct live_slot *slots;
	size_t mask, count;
};

/* NULL when (proc, ptr) is not live. */
struct live_slot *live_find(struct live_map *m, uint32_t proc, uint64_t ptr);
/* -1 without memory. */
int live_insert(struct live_map *m, uint32_t proc, uint64_t ptr, uint64_t value, uint32_t owner);
void live_remove(struct live_map *m, struct live_slot *slot);
void live_release(struct live_map *m);

#endif
