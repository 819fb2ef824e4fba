/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Interning of the recorded stacks: each thread writes a stack once and
 * refers to it by a number of its own; here every distinct (process,
 * addresses) gets one id, so that a profile's resources and their
 * symbolisation grow with the distinct stacks, not with the events.
 */
#include <stdlib.h>
#include <string.h>

#include <perun/array.h>

#include "stacks.h"
#include "symbols.h"

struct entry {
	struct memory_stack pub;
	uint64_t hash;
	const struct pmem_stack *stack; /* the first definition (in the trace) */
};

struct memory_stacks {
	struct entry *entries;
	size_t count, cap;
	uint32_t *index; /* open addressing: entry id + 1, 0 empty */
	size_t mask;
};

struct memory_stacks *memory_stacks_new(void)
{
	return calloc(1, sizeof(struct memory_stacks));
}

void memory_stacks_free(struct memory_stacks *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++) {
		json_decref(s->entries[i].pub.trace);
		json_decref(s->entries[i].pub.uid);
	}
	free(s->entries);
	free(s->index);
	free(s);
}

size_t memory_stacks_count(const struct memory_stacks *s)
{
	return s->count;
}

static uint64_t hash_stack(uint32_t proc, const struct pmem_stack *st)
{
	uint64_t h = 0xcbf29ce484222325ull ^ proc ^ ((uint64_t)st->depth << 32);
	for (uint32_t i = 0; i < st->depth; i++)
		h = (h ^ st->ips[i]) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

static int same_stack(const struct entry *en, uint32_t proc, uint64_t hash,
		      const struct pmem_stack *st)
{
	return en->hash == hash && en->pub.proc == proc && en->stack->depth == st->depth &&
	       !memcmp(en->stack->ips, st->ips, st->depth * sizeof(*st->ips));
}

static int grow_index(struct memory_stacks *s)
{
	size_t size = s->index ? (s->mask + 1) * 2 : 256;
	uint32_t *index = calloc(size, sizeof(*index));
	if (!index)
		return -1;
	for (size_t i = 0; i < s->count; i++) {
		size_t k = s->entries[i].hash & (size - 1);
		while (index[k])
			k = (k + 1) & (size - 1);
		index[k] = (uint32_t)i + 1;
	}
	free(s->index);
	s->index = index;
	s->mask = size - 1;
	return 0;
}

int memory_stacks_intern(struct memory_stacks *s, struct memory_trace *t,
			 const struct memory_event *e, uint32_t *id)
{
	uint32_t *tag = memory_trace_stack_tag(t, e);
	if (*tag) {
		*id = *tag - 1;
		return 0;
	}
	const struct pmem_stack *st = memory_trace_stack(t, e);
	uint64_t hash = hash_stack(e->proc, st);
	if ((s->count + 1) * 2 > (s->index ? s->mask + 1 : 0) && grow_index(s))
		return -1;
	size_t k = hash & s->mask;
	for (; s->index[k]; k = (k + 1) & s->mask) {
		if (same_stack(&s->entries[s->index[k] - 1], e->proc, hash, st)) {
			*id = s->index[k] - 1;
			*tag = *id + 1;
			return 0;
		}
	}
	if (perun_array_grow((void **)&s->entries, &s->cap, s->count + 1, sizeof(*s->entries)))
		return -1;
	s->entries[s->count] = (struct entry){ .pub.proc = e->proc, .hash = hash, .stack = st };
	s->index[k] = (uint32_t)s->count + 1;
	*id = (uint32_t)s->count++;
	*tag = *id + 1;
	return 0;
}

const struct memory_stack *memory_stacks_describe(struct memory_stacks *s, struct memory_trace *t,
						  uint32_t id, const struct memory_options *o)
{
	struct entry *en = &s->entries[id];
	if (!en->pub.described) {
		if (memory_symbols_describe(memory_trace_symbols(t, en->pub.proc), en->stack->ips,
					    en->stack->depth, o, &en->pub.trace, &en->pub.uid,
					    &en->pub.excluded))
			return NULL;
		en->pub.described = 1;
	}
	return &en->pub;
}
