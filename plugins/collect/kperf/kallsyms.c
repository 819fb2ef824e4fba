/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Kernel frame names from /proc/kallsyms, sorted by address and searched
 * by bisection: a frame is in the function of the greatest address not
 * above it.  Without permission the kernel shows every address as 0; then
 * kernel frames are "[kernel]".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kperf.h"

struct kernel_symbol {
	uint64_t addr;
	const char *name; /* into text */
};

struct kperf_kallsyms {
	char *text; /* the whole file, names cut out in place */
	struct kernel_symbol *syms;
	size_t n;
};

static int by_address(const void *a, const void *b)
{
	const struct kernel_symbol *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static char *read_all(FILE *f)
{
	size_t len = 0, cap = 1 << 22;
	char *text = malloc(cap);
	size_t got;
	while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len - 1 == 0) {
			char *grown = realloc(text, 2 * cap);
			if (!grown) {
				free(text);
				return NULL;
			}
			text = grown;
			cap *= 2;
		}
	}
	if (text)
		text[len] = '\0';
	return text;
}

/* "ffffffff81000000 T _stext [module]": by hand, as sscanf over a
 * hundred thousand lines took most of perun's start.  Each line is cut
 * at its end first, so no string function reads past it (ASan's strict
 * string checks read a whole string: quadratic over one text). */
static int parse(struct kperf_kallsyms *ks)
{
	size_t cap = 0;
	char *text_end = ks->text + strlen(ks->text);
	for (char *line = ks->text, *next; line < text_end; line = next) {
		char *end = memchr(line, '\n', (size_t)(text_end - line));
		next = end ? end + 1 : text_end;
		if (end)
			*end = '\0';
		char *p;
		uint64_t addr = strtoull(line, &p, 16);
		if (!addr || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		/* Functions only: text symbols. */
		char type = p[1];
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		char *name = p + 3;
		name[strcspn(name, " \t")] = '\0';
		if (ks->n == cap) {
			size_t ncap = cap ? 2 * cap : 65536;
			struct kernel_symbol *grown = realloc(ks->syms, ncap * sizeof(*grown));
			if (!grown)
				return -1;
			ks->syms = grown;
			cap = ncap;
		}
		ks->syms[ks->n].addr = addr;
		ks->syms[ks->n++].name = name;
	}
	return 0;
}

struct kperf_kallsyms *kperf_kallsyms_load(void)
{
	struct kperf_kallsyms *ks = calloc(1, sizeof(*ks));
	FILE *f = ks ? fopen("/proc/kallsyms", "re") : NULL;
	if (!f)
		return ks;
	ks->text = read_all(f);
	fclose(f);
	if (!ks->text || parse(ks))
		ks->n = 0;
	if (ks->n) /* none without root: kallsyms shows no addresses */
		qsort(ks->syms, ks->n, sizeof(*ks->syms), by_address);
	return ks;
}

void kperf_kallsyms_free(struct kperf_kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->text);
	free(ks);
}

const char *kperf_kallsyms_frame(struct kperf_kallsyms *ks, uint64_t addr)
{
	if (!ks)
		return "[kernel]";
	size_t lo = 0, hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? ks->syms[lo - 1].name : "[unknown]";
}
