/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Allocations too small and too common to fail gracefully where they are
 * made (paths, a screen's column widths): without memory perun says so
 * and exits 3, as git's xmalloc dies.  The store stays as it was: every
 * write of it is atomic, and the supervisor restores a moved tree.
 */
#ifndef PERUN_CORE_XALLOC_H
#define PERUN_CORE_XALLOC_H

#include <stddef.h>

void *perun_xmalloc(size_t size);
void *perun_xcalloc(size_t n, size_t size);
void *perun_xrealloc(void *p, size_t size);
char *perun_xstrdup(const char *s);
/* The first n bytes of s (fewer when it ends before). */
char *perun_xstrndup(const char *s, size_t n);

#endif
