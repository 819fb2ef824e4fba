/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Perun's format strings (format.status, format.shortlog): literal text and
 * %name%, %name:N% (width N) or %name:N<c>% (width N, fill c) fields.
 */
#ifndef PERUN_CORE_FORMAT_H
#define PERUN_CORE_FORMAT_H

#include <perun/perun.h>

struct perun_format_token {
	int is_field;
	char *text; /* literal text, or the field name */
	int width;  /* -1 when not given */
	char fill;
};

struct perun_format {
	size_t n;
	struct perun_format_token *tokens;
};

/* Parse fmt; an unterminated field is an error naming the format. */
int perun_format_parse(const char *fmt, struct perun_format *out, struct perun_error *err);
void perun_format_release(struct perun_format *f);

/* Number of UTF-8 characters (display width of our text). */
size_t perun_utf8_width(const char *s);
/* Append s padded or cut to width chars with fill, to out (FILE *). */
void perun_print_padded(void *out, const char *s, size_t width, char fill);
/* Print s centered in width. */
void perun_print_centered(void *out, const char *s, size_t width);

#endif
