/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * "Did you mean ...?" for mistyped commands, options, plugin names and
 * event names, as git suggests the closest commands: the candidates
 * nearest to the word by edit distance (a swap of two neighbours counts
 * as one edit), when near enough to be a typo, or that the word begins.
 */
#ifndef PERUN_SUGGEST_H
#define PERUN_SUGGEST_H

#include <stddef.h>

#include <perun/error.h>

/*
 * Write "; did you mean 'a'?" (or "'a' or 'b'?", at most three) to buf
 * for the candidates closest to word, each quoted with prefix before it
 * (e.g. "--"); "" when none is close.
 */
PERUN_API void perun_suggest(const char *word, const char *const *candidates, size_t n,
			     const char *prefix, char *buf, size_t len);

#endif
