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
	char *name;
};

struct kperf_kallsyms {
	struct kernel_symbol *syms;
	size_t n;
};

static int by_address(const void *a, const void *b)
{
	const struct kernel_symbol *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct kperf_kallsyms *kperf_kallsyms_load(void)
{
	struct kperf_kallsyms *ks = calloc(1, sizeof(*ks));
	FILE *f = ks ? fopen("/proc/kallsyms", "re") : NULL;
	if (!f)
		return ks;
	size_t cap = 0;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		/* Functions only: text symbols. */
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		if (ks->n == cap) {
			size_t ncap = cap ? 2 * cap : 65536;
			struct kernel_symbol *grown = realloc(ks->syms, ncap * sizeof(*grown));
			if (!grown)
				break;
			ks->syms = grown;
			cap = ncap;
		}
		ks->syms[ks->n].addr = addr;
		if (!(ks->syms[ks->n].name = strdup(name)))
			break;
		ks->n++;
	}
	fclose(f);
	qsort(ks->syms, ks->n, sizeof(*ks->syms), by_address);
	return ks;
}

void kperf_kallsyms_free(struct kperf_kallsyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++)
		free(ks->syms[i].name);
	free(ks->syms);
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
