/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The stack table is open addressing over indices into an entry array;
 * the stack texts live in one growing arena, so a stack costs its bytes
 * plus 24 and a sample of a known stack allocates nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "folded_stacks.h"

struct entry {
	uint64_t hash, count;
	size_t offset; /* of the text in the arena */
	size_t len;
};

struct folded_stacks {
	struct entry *entries;
	size_t nentries, entries_cap;
	uint32_t *slots; /* entry index + 1; 0: empty */
	size_t nslots;	 /* a power of two, at least twice nentries */
	char *arena;
	size_t arena_len, arena_cap;
};

/* A multiply-rotate hash over 8-byte words: stacks are long, and this is
 * several times faster than a byte-at-a-time hash. */
static uint64_t hash_of(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		len -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

struct folded_stacks *folded_stacks_new(void)
{
	struct folded_stacks *t = calloc(1, sizeof(*t));
	if (t && !(t->slots = calloc(t->nslots = 1024, sizeof(*t->slots)))) {
		free(t);
		return NULL;
	}
	return t;
}

void folded_stacks_free(struct folded_stacks *t)
{
	if (!t)
		return;
	free(t->entries);
	free(t->slots);
	free(t->arena);
	free(t);
}

size_t folded_stacks_size(const struct folded_stacks *t)
{
	return t->nentries;
}

static int rehash(struct folded_stacks *t)
{
	size_t n = t->nslots * 2;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->nentries; i++) {
		size_t s = t->entries[i].hash & (n - 1);
		while (slots[s])
			s = (s + 1) & (n - 1);
		slots[s] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

static int append(struct folded_stacks *t, const char *stack, size_t len, uint64_t hash,
		  uint64_t count, size_t slot)
{
	if (t->nentries == t->entries_cap) {
		size_t cap = t->entries_cap ? t->entries_cap * 2 : 256;
		struct entry *e = realloc(t->entries, cap * sizeof(*e));
		if (!e)
			return -1;
		t->entries = e;
		t->entries_cap = cap;
	}
	if (t->arena_cap - t->arena_len < len) {
		size_t cap = t->arena_cap ? t->arena_cap : 65536;
		while (cap - t->arena_len < len)
			cap *= 2;
		char *a = realloc(t->arena, cap);
		if (!a)
			return -1;
		t->arena = a;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_len, stack, len);
	t->entries[t->nentries] = (struct entry){ hash, count, t->arena_len, len };
	t->arena_len += len;
	t->slots[slot] = (uint32_t)++t->nentries;
	return t->nentries * 2 > t->nslots ? rehash(t) : 0;
}

int folded_stacks_add(struct folded_stacks *t, const char *stack, size_t len, uint64_t count)
{
	uint64_t h = hash_of(stack, len);
	size_t s = h & (t->nslots - 1);
	for (uint32_t i; (i = t->slots[s]); s = (s + 1) & (t->nslots - 1)) {
		struct entry *e = &t->entries[i - 1];
		if (e->hash == h && e->len == len && !memcmp(t->arena + e->offset, stack, len)) {
			e->count += count;
			return 0;
		}
	}
	return append(t, stack, len, h, count, s);
}

static const struct folded_stacks *sorting; /* qsort has no context argument */

static int by_text(const void *a, const void *b)
{
	const struct entry *x = &sorting->entries[*(const uint32_t *)a];
	const struct entry *y = &sorting->entries[*(const uint32_t *)b];
	int c = memcmp(sorting->arena + x->offset, sorting->arena + y->offset,
		       x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int folded_stacks_foreach(const struct folded_stacks *t, folded_stack_fn fn, void *data)
{
	uint32_t *order = malloc((t->nentries ? t->nentries : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (size_t i = 0; i < t->nentries; i++)
		order[i] = (uint32_t)i;
	sorting = t;
	qsort(order, t->nentries, sizeof(*order), by_text);
	int rc = 0;
	for (size_t i = 0; i < t->nentries && !rc; i++) {
		const struct entry *e = &t->entries[order[i]];
		rc = fn(t->arena + e->offset, e->len, e->count, data);
	}
	free(order);
	return rc;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int folded_line_parse(const char *line, size_t len, size_t *stack_len, uint64_t *count)
{
	while (len && blank(line[len - 1]))
		len--;
	size_t digits = len;
	while (digits && line[digits - 1] >= '0' && line[digits - 1] <= '9')
		digits--;
	if (digits == len || !digits || !blank(line[digits - 1]))
		return -1;
	uint64_t n = 0;
	for (size_t i = digits; i < len; i++)
		n = n * 10 + (uint64_t)(line[i] - '0');
	size_t end = digits;
	while (end && blank(line[end - 1]))
		end--;
	if (!end)
		return -1;
	*stack_len = end;
	*count = n;
	return 0;
}
