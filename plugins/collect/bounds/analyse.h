/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The bound analysis of C sources: libclang parses them, each function's
 * loops get a local bound (how often their body runs in one call of the
 * function), each function a total bound (their sum), as symbolic
 * expressions over the function's parameters and globals with a class.
 */
#ifndef BOUNDS_ANALYSE_H
#define BOUNDS_ANALYSE_H

#include <stddef.h>

struct bound_result {
	const char *source;   /* the file as given */
	const char *function; /* its name */
	unsigned line, column;
	int total;	    /* "total bound", else "local bound" */
	const char *bound;  /* "1 + max(0, (k + -1))", or "∞" */
	const char *klass;  /* "O(n^1)", "O(∞)" */
	const char *reason; /* why O(∞), else NULL */
};

/* Called for every result; strings are valid during the call only.
 * Non-zero stops the analysis with that code. */
typedef int (*bound_emit_fn)(const struct bound_result *r, void *data);

struct bound_stats {
	unsigned long files, failed_files, functions, loops, bounded_loops, z3_queries;
	double parse_s; /* of it in libclang's parser */
};

/*
 * Analyse one file, compiled with args (include paths, defines, ...).
 * Diagnostics of a file that does not parse go to diag as "file:line:col:
 * error: message" lines, and the return is 1 (nothing emitted); -1 is an
 * error of libclang itself, 0 success.
 */
int bounds_analyse_file(const char *path, const char *const *args, int nargs, bound_emit_fn emit,
			void *data, char **diag, struct bound_stats *stats);

#endif
