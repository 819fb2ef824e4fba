/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * JSON output byte-for-byte like Python's json.dumps, so objects written
 * here get the same SHA-1 as when Python Perun writes the same profile.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include <perun/profile.h>

void json_python_format_double(double value, char out[32])
{
	if (isnan(value)) {
		strcpy(out, "NaN");
		return;
	}
	if (isinf(value)) {
		strcpy(out, value > 0 ? "Infinity" : "-Infinity");
		return;
	}
	/*
	 * Shortest precision that reads back as the same double.  A normal
	 * double is within 1.2e-16 (relative) of any shorter decimal that
	 * reads back as it, so 15 digits round to that decimal padded with
	 * zeros (stripped below): trying 15, 16, 17 finds the shortest in at
	 * most three tries.  Subnormals have fewer bits: try them all.
	 */
	char sci[40];
	int prec;
	for (prec = fabs(value) >= DBL_MIN ? 15 : 1; prec <= 17; prec++) {
		snprintf(sci, sizeof(sci), "%.*e", prec - 1, value);
		if (strtod(sci, NULL) == value)
			break;
	}
	/* sci is [-]d[.ddd]e[+-]xx: collect its digits and exponent. */
	char digits[24];
	size_t nd = 0;
	const char *p = sci;
	int negative = 0;
	if (*p == '-') {
		negative = 1;
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	int exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';

	char *o = out;
	if (negative)
		*o++ = '-';
	if (exp10 < -4 || exp10 >= 16) {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, nd - 1);
			o += nd - 1;
		}
		sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		return;
	}
	if (exp10 < 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = -1; i > exp10; i--)
			*o++ = '0';
		memcpy(o, digits, nd);
		o += nd;
	} else {
		size_t int_digits = (size_t)exp10 + 1;
		for (size_t i = 0; i < int_digits; i++)
			*o++ = i < nd ? digits[i] : '0';
		*o++ = '.';
		if (nd > int_digits) {
			memcpy(o, digits + int_digits, nd - int_digits);
			o += nd - int_digits;
		} else {
			*o++ = '0';
		}
	}
	*o = '\0';
}

static void dump_string(const char *s, size_t len, struct perun_strbuf *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;
	perun_strbuf_grow(out, len + 2);
	perun_strbuf_addch(out, '"');
	while (p < end) {
		unsigned char c = *p;
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			const unsigned char *run = p;
			while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' &&
			       *p != '\\')
				p++;
			perun_strbuf_add(out, (const char *)run, (size_t)(p - run));
			continue;
		}
		unsigned long cp = c;
		int extra = 0;
		switch (c) {
		case '"': perun_strbuf_addstr(out, "\\\""); p++; continue;
		case '\\': perun_strbuf_addstr(out, "\\\\"); p++; continue;
		case '\n': perun_strbuf_addstr(out, "\\n"); p++; continue;
		case '\r': perun_strbuf_addstr(out, "\\r"); p++; continue;
		case '\t': perun_strbuf_addstr(out, "\\t"); p++; continue;
		case '\b': perun_strbuf_addstr(out, "\\b"); p++; continue;
		case '\f': perun_strbuf_addstr(out, "\\f"); p++; continue;
		}
		/* Jansson guarantees valid UTF-8 in strings. */
		if (c >= 0xf0) {
			cp = c & 0x07;
			extra = 3;
		} else if (c >= 0xe0) {
			cp = c & 0x0f;
			extra = 2;
		} else if (c >= 0xc0) {
			cp = c & 0x1f;
			extra = 1;
		}
		p++;
		for (int i = 0; i < extra && p < end; i++, p++)
			cp = (cp << 6) | (*p & 0x3f);
		unsigned long units[2];
		int n = 0;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			units[n++] = 0xd800 | (cp >> 10);
			units[n++] = 0xdc00 | (cp & 0x3ff);
		} else {
			units[n++] = cp;
		}
		for (int i = 0; i < n; i++) {
			char esc[6] = {'\\', 'u', hex[(units[i] >> 12) & 15],
				       hex[(units[i] >> 8) & 15],
				       hex[(units[i] >> 4) & 15],
				       hex[units[i] & 15]};
			perun_strbuf_add(out, esc, 6);
		}
	}
	perun_strbuf_addch(out, '"');
}

static void newline_indent(struct perun_strbuf *out, int indent, int depth)
{
	perun_strbuf_addch(out, '\n');
	perun_strbuf_addrepeat(out, " ", (size_t)indent * (size_t)depth);
}

static void dump_value(const json_t *v, int indent, int depth,
		       struct perun_strbuf *out)
{
	char num[40];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		if (json_object_size(v) == 0) {
			perun_strbuf_addstr(out, "{}");
			return;
		}
		perun_strbuf_addch(out, '{');
		const char *key;
		json_t *item;
		int first = 1;
		json_object_foreach((json_t *)v, key, item) {
			if (!first)
				perun_strbuf_addstr(out, indent < 0 ? ", " : ",");
			if (indent >= 0)
				newline_indent(out, indent, depth + 1);
			first = 0;
			dump_string(key, strlen(key), out);
			perun_strbuf_addstr(out, ": ");
			dump_value(item, indent, depth + 1, out);
		}
		if (indent >= 0)
			newline_indent(out, indent, depth);
		perun_strbuf_addch(out, '}');
		return;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		if (n == 0) {
			perun_strbuf_addstr(out, "[]");
			return;
		}
		perun_strbuf_addch(out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				perun_strbuf_addstr(out, indent < 0 ? ", " : ",");
			if (indent >= 0)
				newline_indent(out, indent, depth + 1);
			dump_value(json_array_get(v, i), indent, depth + 1, out);
		}
		if (indent >= 0)
			newline_indent(out, indent, depth);
		perun_strbuf_addch(out, ']');
		return;
	}
	case JSON_STRING:
		/* Markers of Python's non-finite numbers (see profile.c). */
		if (json_string_length(v) > 1 && json_string_value(v)[0] == '\0') {
			perun_strbuf_addstr(out, json_string_value(v) + 1);
			return;
		}
		dump_string(json_string_value(v), json_string_length(v), out);
		return;
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		perun_strbuf_addstr(out, num);
		return;
	case JSON_REAL:
		json_python_format_double(json_real_value(v), num);
		perun_strbuf_addstr(out, num);
		return;
	case JSON_TRUE:
		perun_strbuf_addstr(out, "true");
		return;
	case JSON_FALSE:
		perun_strbuf_addstr(out, "false");
		return;
	case JSON_NULL:
		perun_strbuf_addstr(out, "null");
		return;
	}
}

void json_python_dump(const json_t *value, int indent, struct perun_strbuf *out)
{
	dump_value(value, indent, 0, out);
}

void perun_python_float_str(double value, char out[32])
{
	if (isnan(value) || isinf(value))
		strcpy(out, isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
	else
		json_python_format_double(value, out);
}
