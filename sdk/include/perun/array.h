/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Growable arrays: room for one more element, checked, in one call, so
 * that no caller writes "p = realloc(p, ...)" and loses p (and then
 * dereferences NULL) when memory runs out.
 *
 *	struct item *items = NULL;
 *	size_t n = 0, cap = 0;
 *	if (perun_array_grow((void **)&items, &cap, n + 1, sizeof(*items)))
 *		return -1;	// items and cap are as they were
 *	items[n++] = item;
 */
#ifndef PERUN_ARRAY_H
#define PERUN_ARRAY_H

#include <stddef.h>

#include <perun/error.h>

/*
 * Make *items (a malloc'ed array of *cap elements of size bytes, or NULL
 * and 0) hold at least need elements, doubling its capacity, the new
 * elements zeroed.  0, or -1 with errno ENOMEM and *items and *cap
 * unchanged.
 */
PERUN_API int perun_array_grow(void **items, size_t *cap, size_t need, size_t size);

#endif
