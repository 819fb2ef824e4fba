/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Parsing tag selectors (see selector.h). */
#include <string.h>

#include "selector.h"

/* "N@i", "N@p" -> N (at most PERUN_TAG_MAX) and the letter; -1 when not a tag. */
static long parse_tag(const char *s, size_t len, char *letter)
{
	size_t i = 0;
	long n = 0;
	if (len < 3)
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		n = n >= PERUN_TAG_MAX / 10 ? PERUN_TAG_MAX : n * 10 + (s[i] - '0');
	if (i == 0 || i + 2 != len || s[i] != '@' || (s[i + 1] != 'i' && s[i + 1] != 'p'))
		return -1;
	*letter = s[i + 1];
	return n;
}

int perun_selector_parse(const char *selector, struct perun_selector *sel, struct perun_error *err)
{
	size_t len = strlen(selector);
	const char *caret = strrchr(selector, '^');
	*sel = (struct perun_selector){ .kind = PERUN_SELECTOR_OTHER };
	if (caret && caret != selector) {
		long n = parse_tag(caret + 1, strlen(caret + 1), &sel->letter);
		if (n >= 0) {
			*sel = (struct perun_selector){ PERUN_SELECTOR_REV_TAG, sel->letter, n, n,
							(size_t)(caret - selector) };
			return 0;
		}
	}
	long n = parse_tag(selector, len, &sel->letter);
	if (n >= 0) {
		sel->kind = PERUN_SELECTOR_TAG;
		sel->from = sel->to = n;
		return 0;
	}
	const char *dash = strchr(selector, '-');
	char letter2 = 0;
	long a = dash ? parse_tag(selector, (size_t)(dash - selector), &sel->letter) : -1;
	long b = a >= 0 ? parse_tag(dash + 1, strlen(dash + 1), &letter2) : -1;
	if (b < 0) {
		sel->letter = 0;
		return 0;
	}
	sel->kind = PERUN_SELECTOR_RANGE;
	sel->from = a;
	sel->to = b;
	if (sel->letter != letter2)
		return perun_error_set(err, PERUN_EINVAL,
				       "range '%s' mixes tracked and pending tags", selector);
	if (b < a)
		return perun_error_set(err, PERUN_EINVAL, "range '%s' is empty", selector);
	return 0;
}

int perun_selector_is_tag(const char *selector)
{
	struct perun_selector sel;
	struct perun_error err = { 0 };
	perun_selector_parse(selector, &sel, &err);
	return sel.kind != PERUN_SELECTOR_OTHER;
}
