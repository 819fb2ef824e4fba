/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Return addresses of one recorded process as Perun's frames (symbols.c). */
#ifndef PERUN_MEMORY_SYMBOLS_H
#define PERUN_MEMORY_SYMBOLS_H

#include <stdint.h>
#include <perun/perun.h>

#include "trace.h"

struct memory_symbols;

/* A resolver for the process whose /proc/self/maps copy is maps (taken
 * over, may be NULL: nothing resolves).  NULL without memory. */
struct memory_symbols *memory_symbols_new(char *maps);
void memory_symbols_free(struct memory_symbols *symbols);

/*
 * The trace and uid of a recorded stack (ips[0] is the allocator's entry),
 * filtered as Python Perun's filter.py does; each distinct address is
 * resolved once per process.  *trace and *uid are the caller's (*uid NULL
 * when no frame has a source); *excluded says the stack gives no
 * resources (no uid, --no-func, --no-source).  -1 without memory.
 */
int memory_symbols_describe(struct memory_symbols *symbols, const uint64_t *ips, uint32_t depth,
			    const struct memory_options *opts, json_t **trace, json_t **uid,
			    int *excluded);

#endif
