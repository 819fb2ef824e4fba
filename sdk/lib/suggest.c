/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * "Did you mean ...?": the closest candidates by edit distance
 * (perun/suggest.h).
 *
 * Layer 0 of libperun, the base: it uses the C library only; every layer
 * above may use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/suggest.h>

#define MAX_SHOWN 3
#define NOT_CLOSE ((size_t)-1)

/* Optimal string alignment distance of a and b (both short words). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *d = malloc((la + 1) * (lb + 1) * sizeof(*d));
	if (!d)
		return NOT_CLOSE;
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);
			if (D(i - 1, j) + 1 < best)
				best = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	}
	size_t result = D(la, lb);
#undef D
	free(d);
	return result;
}

/* How far candidate is from word, or NOT_CLOSE: a word of three or more
 * letters that begins candidate is nearest; else up to a third of the
 * word's letters (at least one) may be wrong, or only its last letter
 * where the candidate is longer.  Single letters (short options) are
 * never close. */
static size_t closeness(const char *word, const char *candidate)
{
	size_t len = strlen(word);
	if (len < 2)
		return NOT_CLOSE; /* any letter is one edit from any other */
	if (len >= 3 && !strncmp(word, candidate, len))
		return 0;
	/* All but the last letter begin it: a singular for a plural
	 * ("strategy" for "strategies"). */
	if (len >= 5 && !strncmp(word, candidate, len - 1) && strlen(candidate) > len)
		return 1;
	size_t allowed = len / 3 > 1 ? len / 3 : 1;
	size_t dist = edit_distance(word, candidate);
	return dist <= allowed ? dist : NOT_CLOSE;
}

void perun_suggest(const char *word, const char *const *candidates, size_t n, const char *prefix,
		   char *buf, size_t len)
{
	size_t best = NOT_CLOSE, shown = 0, used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t c = closeness(word, candidates[i]);
		if (c < best)
			best = c;
	}
	if (best == NOT_CLOSE)
		return;
	for (size_t i = 0; i < n && shown < MAX_SHOWN && used < len; i++) {
		if (closeness(word, candidates[i]) != best)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s'%s%s'",
					 shown ? " or " : "; did you mean ", prefix, candidates[i]);
		shown++;
	}
	if (used < len)
		snprintf(buf + used, len - used, "?");
}
