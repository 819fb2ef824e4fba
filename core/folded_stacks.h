/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Folded call stacks ("main;work;leaf 12", Brendan Gregg's format): a
 * table that sums the samples of identical stacks, so that reading a
 * sample stream needs memory for its distinct stacks only, and the
 * parser of one folded line ("perun import perf stack").
 */
#ifndef PERUN_CORE_FOLDED_STACKS_H
#define PERUN_CORE_FOLDED_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct folded_stacks;

struct folded_stacks *folded_stacks_new(void);
void folded_stacks_free(struct folded_stacks *stacks);
/* Add count samples to stack (frames joined by ';'); -1 without memory. */
int folded_stacks_add(struct folded_stacks *stacks, const char *stack, size_t len, uint64_t count);
size_t folded_stacks_size(const struct folded_stacks *stacks);
/* Call fn for every stack in byte order (stackcollapse-perf.pl sorts so);
 * fn's non-zero return stops the walk and is returned, -1 without memory. */
typedef int (*folded_stack_fn)(const char *stack, size_t len, uint64_t count, void *data);
int folded_stacks_foreach(const struct folded_stacks *stacks, folded_stack_fn fn, void *data);

/* One folded line "frames count": 0 with the frames' length and the count
 * (after the last blank), -1 when it has no count. */
int folded_line_parse(const char *line, size_t len, size_t *stack_len, uint64_t *count);

#endif
