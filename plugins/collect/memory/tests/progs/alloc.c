/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Known allocations for t5400: every call site is marked "@<name>" so the
 * test finds its line.  Sizes and counts are asserted exactly. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *leaky(size_t n)
{
	return malloc(n); /* @leak */
}

int main(void)
{
	/* The wrappers leave results and errno as the allocator made them. */
	errno = 0;
	if (malloc(SIZE_MAX) != NULL || errno != ENOMEM)
		return 2;
	void *t = malloc(8); /* @errno-malloc */
	errno = 4242;
	free(t); /* @errno-free */
	if (errno != 4242)
		return 3;
	for (int i = 0; i < 10; i++) {
		char *p = malloc(100); /* @loop-malloc */
		p[0] = 1;
		free(p); /* @loop-free */
	}
	char *q = calloc(4, 25);	  /* @calloc */
	q = realloc(q, 200);		  /* @realloc1 */
	q = realloc(q, 400);		  /* @realloc2 */
	free(q);			  /* @free-q */
	void *a = aligned_alloc(64, 128); /* @aligned */
	free(a);			  /* @free-a */
	void *m = NULL;
	if (posix_memalign(&m, 32, 96) != 0) /* @posix */
		return 1;
	free(m);		     /* @free-m */
	void *v = valloc(50);	     /* @valloc */
	free(v);		     /* @free-v */
	void *mm = memalign(16, 70); /* @memalign */
	free(mm);		     /* @free-mm */
	char *big1 = malloc(10000);  /* @big1 */
	char *big2 = malloc(20000);  /* @big2 */
	memset(big1, 0, 10000);
	memset(big2, 0, 20000);
	free(big2); /* @free-big2 */
	free(big1); /* @free-big1 */
	leaky(33);
	leaky(33);
	return 0;
}
