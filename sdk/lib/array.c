/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Growable arrays (perun/array.h).
 *
 * Layer 0 of libperun, the base: it uses the C library only; every layer
 * above may use it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perun/array.h>

/* The capacity of an array that starts growing. */
#define FIRST_CAPACITY 16

int perun_array_grow(void **items, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : FIRST_CAPACITY;
	while (n < need && n <= SIZE_MAX / 2)
		n *= 2;
	if (n < need)
		n = need;
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return -1;
	}
	void *p = realloc(*items, n * size);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*items = p;
	*cap = n;
	return 0;
}
