/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Expanding Perun's format strings (format.status, format.shortlog). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static int push(struct perun_format *f, int is_field, const char *text, size_t len, int width,
		char fill)
{
	struct perun_format_token *more = realloc(f->tokens, (f->n + 1) * sizeof(*f->tokens));
	if (!more)
		return -1;
	f->tokens = more;
	char *copy = strndup(text, len);
	if (!copy)
		return -1;
	f->tokens[f->n++] = (struct perun_format_token){ is_field, copy, width, fill };
	return 0;
}

static int no_memory(struct perun_format *out, const char *fmt, struct perun_error *err)
{
	perun_format_release(out);
	return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "format string '%s'", fmt);
}

int perun_format_parse(const char *fmt, struct perun_format *out, struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *p = fmt;
	while (*p) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			if (push(out, 0, p, strlen(p), -1, ' '))
				return no_memory(out, fmt, err);
			break;
		}
		if (pct > p && push(out, 0, p, (size_t)(pct - p), -1, ' '))
			return no_memory(out, fmt, err);
		const char *end = strchr(pct + 1, '%');
		if (!end) {
			perun_format_release(out);
			return perun_error_set(err, PERUN_EINVAL,
					       "format string '%s': unterminated '%%' field", fmt);
		}
		if (end == pct + 1) {
			if (push(out, 0, "%", 1, -1, ' '))
				return no_memory(out, fmt, err);
			p = end + 1;
			continue;
		}
		const char *colon = memchr(pct + 1, ':', (size_t)(end - pct - 1));
		int width = -1;
		char fill = ' ';
		size_t name_len = (size_t)((colon ? colon : end) - pct - 1);
		if (colon) {
			char *num_end;
			width = (int)strtol(colon + 1, &num_end, 10);
			if (num_end == colon + 1 || width < 0) {
				perun_format_release(out);
				return perun_error_set(err, PERUN_EINVAL,
						       "format string '%s': bad width in '%.*s'",
						       fmt, (int)(end - pct + 1), pct);
			}
			if (num_end < end)
				fill = *num_end;
		}
		if (push(out, 1, pct + 1, name_len, width, fill))
			return no_memory(out, fmt, err);
		p = end + 1;
	}
	return 0;
}

void perun_format_release(struct perun_format *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->tokens[i].text);
	free(f->tokens);
	f->tokens = NULL;
	f->n = 0;
}

size_t perun_utf8_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

void perun_print_padded(void *out, const char *s, size_t width, char fill)
{
	size_t chars = 0;
	const char *p = s;
	/* Cut at width characters, never inside a UTF-8 sequence. */
	while (*p) {
		if (((unsigned char)*p & 0xc0) != 0x80) {
			if (chars == width)
				break;
			chars++;
		}
		p++;
	}
	fwrite(s, 1, (size_t)(p - s), out);
	for (; chars < width; chars++)
		fputc(fill, out);
}

void perun_print_centered(void *out, const char *s, size_t width)
{
	size_t w = perun_utf8_width(s);
	if (w >= width) {
		fputs(s, out);
		return;
	}
	/* Python's str.center puts the extra space on the right when odd. */
	size_t total = width - w, left = total / 2;
	if (total % 2 && width % 2)
		left++;
	for (size_t i = 0; i < left; i++)
		fputc(' ', out);
	fputs(s, out);
	for (size_t i = left + w; i < width; i++)
		fputc(' ', out);
}
