/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Text that must fit a width in a static SVG, where nothing measures it
 * for us: widths are estimated from character classes, on the wide side
 * (DejaVu Sans, the sans-serif of Debian's browsers, is wider than Arial
 * or Helvetica), so what is estimated to fit does fit.
 */
#include <stdio.h>
#include <string.h>

#include "view-common.h"

/* Advance of a character in em (DejaVu Sans, rounded up by class). */
static double char_em(unsigned char c)
{
	if (c >= 0x80)
		return 1.0; /* any code point: at most an em in the usual scripts */
	if (strchr("iljI.,:;'|!`", c))
		return 0.34;
	if (strchr(" frtJ/\\-()[]\"", c))
		return 0.46;
	if (strchr("mwMW@%", c))
		return 1.0;
	if (strchr("<>=+~^#&*{}", c))
		return 0.84;
	if (c >= 'A' && c <= 'Z')
		return 0.79;
	return 0.64; /* lowercase letters, digits, _ and the rest */
}

/* Bytes of the code point at s (1 for a stray continuation byte). */
static size_t char_len(const char *s, size_t n)
{
	size_t k = 1;
	while (k < n && ((unsigned char)s[k] & 0xc0) == 0x80)
		k++;
	return k;
}

double viewlib_text_width(const char *s, size_t n, double size)
{
	double w = 0;
	for (size_t i = 0; i < n; i += char_len(s + i, n - i))
		w += char_em((unsigned char)s[i]);
	return w * size;
}

size_t viewlib_text_fit(const char *s, size_t n, double size, double width)
{
	double w = 0;
	size_t i = 0;
	while (i < n) {
		w += char_em((unsigned char)s[i]) * size;
		if (w > width)
			break;
		i += char_len(s + i, n - i);
	}
	return i;
}

/* Greedy wrap of s[0..n) into lines of width, breaking after a space or
 * punctuation where a line has one, else anywhere.  Fills at most max
 * lines; returns the number the whole text needs (max + 1: more). */
static size_t wrap(const char *s, size_t n, double size, double width, size_t max,
		   struct viewlib_text_line *lines)
{
	size_t count = 0, pos = 0;
	while (pos < n && s[pos] == ' ')
		pos++;
	while (pos < n) {
		if (count == max)
			return max + 1;
		size_t len = viewlib_text_fit(s + pos, n - pos, size, width), end = pos + len;
		if (!len)
			end = pos + char_len(s + pos, n - pos); /* too narrow: one anyway */
		else if (end < n) {
			for (size_t b = end; b > pos; b--)
				if (strchr(" ,;/:(<", s[b - 1])) {
					end = b;
					break;
				}
		}
		lines[count].text = s + pos;
		lines[count].len = end - pos;
		while (lines[count].len && s[pos + lines[count].len - 1] == ' ')
			lines[count].len--;
		count++;
		for (pos = end; pos < n && s[pos] == ' ';)
			pos++;
	}
	return count;
}

size_t viewlib_text_wrap(const char *s, double size, double width, size_t max,
			 struct viewlib_text_line *lines, char *buf, size_t bufsize)
{
	size_t n = strlen(s);
	double dots = viewlib_text_width("...", 3, size);
	if (!max || bufsize < 8)
		return 0;
	size_t count = wrap(s, n, size, width, max, lines);
	if (count <= max)
		return count;
	if (strchr(s, '/')) {
		/* A path differs from others at its end: "..." and the longest
		 * tail that fits. */
		size_t start = 0;
		do {
			start += char_len(s + start, n - start);
			snprintf(buf, bufsize, "...%s", s + start);
		} while (start < n && (strlen(s + start) + 4 > bufsize ||
				       wrap(buf, strlen(buf), size, width, max, lines) > max));
		return wrap(buf, strlen(buf), size, width, max, lines);
	}
	/* Anything else differs at its start: the lines that fit, the last
	 * one cut to leave room for "...". */
	struct viewlib_text_line *last = &lines[max - 1];
	size_t keep =
		viewlib_text_fit(last->text, n - (size_t)(last->text - s), size, width - dots);
	if (keep > bufsize - 4)
		keep = bufsize - 4;
	memcpy(buf, last->text, keep);
	memcpy(buf + keep, "...", 4);
	last->text = buf;
	last->len = keep + 3;
	return max;
}
