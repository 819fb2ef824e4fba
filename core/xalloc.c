/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Allocations that end perun when memory runs out (see xalloc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void out_of_memory(size_t size)
{
	fprintf(stderr, "perun: out of memory (allocating %zu bytes)\n", size);
	exit(3);
}

void *perun_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *perun_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *perun_xrealloc(void *p, size_t size)
{
	void *more = realloc(p, size ? size : 1);
	if (!more)
		out_of_memory(size);
	return more;
}

char *perun_xstrdup(const char *s)
{
	char *copy = strdup(s);
	if (!copy)
		out_of_memory(strlen(s) + 1);
	return copy;
}

char *perun_xstrndup(const char *s, size_t n)
{
	char *copy = strndup(s, n);
	if (!copy)
		out_of_memory(n + 1);
	return copy;
}
