/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Live blocks by (process, address): linear probing, with removal that
 * moves later members of a cluster back (no tombstones), since blocks
 * come and go by the million.
 */
#include <stdlib.h>

#include "live-map.h"

static size_t live_hash(uint32_t proc, uint64_t ptr)
{
	uint64_t h = (ptr ^ ((uint64_t)proc << 47)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

static int live_grow(struct live_map *m)
{
	size_t size = m->slots ? (m->mask + 1) * 2 : 1024;
	struct live_slot *s = calloc(size, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		if (!m->slots[i].used)
			continue;
		size_t k = live_hash(m->slots[i].proc, m->slots[i].ptr) & (size - 1);
		while (s[k].used)
			k = (k + 1) & (size - 1);
		s[k] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->mask = size - 1;
	return 0;
}

struct live_slot *live_find(struct live_map *m, uint32_t proc, uint64_t ptr)
{
	if (!m->slots)
		return NULL;
	for (size_t k = live_hash(proc, ptr) & m->mask; m->slots[k].used; k = (k + 1) & m->mask)
		if (m->slots[k].ptr == ptr && m->slots[k].proc == proc)
			return &m->slots[k];
	return NULL;
}

void live_remove(struct live_map *m, struct live_slot *slot)
{
	size_t hole = (size_t)(slot - m->slots);
	m->slots[hole].used = 0;
	m->count--;
	for (size_t k = (hole + 1) & m->mask; m->slots[k].used; k = (k + 1) & m->mask) {
		size_t home = live_hash(m->slots[k].proc, m->slots[k].ptr) & m->mask;
		/* Can slot k move to the hole?  Only if its home is not in (hole, k]. */
		if ((k > hole && (home <= hole || home > k)) ||
		    (k < hole && home <= hole && home > k)) {
			m->slots[hole] = m->slots[k];
			m->slots[k].used = 0;
			hole = k;
		}
	}
}

int live_insert(struct live_map *m, uint32_t proc, uint64_t ptr, uint64_t value, uint32_t owner)
{
	if ((m->count + 1) * 2 > (m->slots ? m->mask + 1 : 0) && live_grow(m))
		return -1;
	size_t k = live_hash(proc, ptr) & m->mask;
	while (m->slots[k].used)
		k = (k + 1) & m->mask;
	m->slots[k] = (struct live_slot){
		.ptr = ptr, .proc = proc, .used = 1, .value = value, .owner = owner
	};
	m->count++;
	return 0;
}

void live_release(struct live_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = m->count = 0;
}
