/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The output file of Valgrind's cachegrind (--cachegrind-out-file), read
 * for one event, Ir (instructions executed): the program's total and each
 * function's.
 */
#ifndef PERUN_COLLECT_CACHEGRIND_H
#define PERUN_COLLECT_CACHEGRIND_H

#include <stddef.h>

#include <perun/perun.h>

struct cachegrind_function {
	char *name;
	unsigned long long ir;
};

struct cachegrind_counts {
	unsigned long long total;	       /* the "summary:" line */
	struct cachegrind_function *functions; /* in the order of the file */
	size_t n, cap;
	json_t *index; /* name -> position in functions */
};

/*
 * Read the file at path into counts (zeroed by the caller): functions
 * named by "fn=" lines (one entry per name, its lines summed across
 * files).  A file without an Ir event or a summary is an error naming it.
 */
int cachegrind_read(const char *path, struct cachegrind_counts *counts, struct perun_error *err);

void cachegrind_release(struct cachegrind_counts *counts);

#endif
