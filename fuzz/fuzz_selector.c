/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the tag selectors (N@i, ranges, <rev>^N@i).  Besides
 * not crashing, what is parsed must be what was written: N exactly up
 * to nine digits and PERUN_TAG_MAX beyond (never wrapped around), a
 * range never backwards. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"

/* The number the digits at s (up to '@') say, PERUN_TAG_MAX when they
 * have more than nine significant digits. */
static long expected_tag(const char *s)
{
	long n = 0;
	int digits = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n || *s != '0')
			digits++;
		if (digits > 9)
			return PERUN_TAG_MAX;
		n = n * 10 + (*s - '0');
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct perun_selector sel;
	struct perun_error err = { 0 };
	int rc = perun_selector_parse(s, &sel, &err);
	if (sel.kind != PERUN_SELECTOR_OTHER) {
		if ((sel.letter != 'i' && sel.letter != 'p') || sel.from < 0 ||
		    sel.from > PERUN_TAG_MAX || sel.to < 0 || sel.to > PERUN_TAG_MAX)
			abort();
		const char *tag = sel.kind == PERUN_SELECTOR_REV_TAG ? s + sel.rev_len + 1 : s;
		if (expected_tag(tag) != sel.from)
			abort();
		if (sel.kind == PERUN_SELECTOR_RANGE) {
			if (rc == 0 && sel.to < sel.from)
				abort();
			if (expected_tag(strchr(s, '-') + 1) != sel.to)
				abort();
		} else if (rc || sel.to != sel.from) {
			abort();
		}
	}
	free(s);
	return 0;
}
