/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * JSON output byte-for-byte like Python's json.dumps, so objects written
 * here get the same SHA-1 as when Python Perun writes the same profile.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include <perun/profile.h>

typedef unsigned __int128 u128;

static const uint64_t pow10_u64[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
	1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
	1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL,
};

/*
 * value's integer bound at the binary scale 2^shift: n * 2^shift rounded
 * up (up = 1) or down, moved one step inward when it is exact and the
 * bound is not inclusive.
 */
static uint64_t scaled_bound(u128 n, int shift, int up, int inclusive)
{
	if (shift >= 0)
		return (uint64_t)(n << shift) + (inclusive ? 0 : up ? 1 : (uint64_t)-1);
	u128 q = n >> -shift;
	int exact = (q << -shift) == n;
	if (exact)
		return (uint64_t)q + (inclusive ? 0 : up ? 1 : (uint64_t)-1);
	return (uint64_t)q + (up ? 1 : 0);
}

/*
 * Shortest digits of a positive double in [1e-10, 1e16) that read back as
 * it, and of those the nearest, as Python's repr() picks them; by exact
 * integer arithmetic.  The rounding interval of value = m 2^e, scaled by
 * 10^p so that it holds 17-digit integers, is [L, U] (inclusive when m is
 * even, as strtod rounds halves to even); the answer is the multiple of
 * the largest power 10^k in it, the nearest to value when there are more.
 * Sets *digits (trailing zeros stripped) and *exp10, the exponent of its
 * first digit; returns -1 where it cannot decide (a tie, never seen), for
 * the slow way.
 */
static int shortest_digits(double value, uint64_t *digits, int *exp10)
{
	int e2;
	double frac = frexp(value, &e2); /* value = frac 2^e2, frac in [0.5, 1) */
	uint64_t m = (uint64_t)ldexp(frac, 53);
	int e = e2 - 53;
	int p = 16 - (int)floor(log10(value));
	if (p < 0 || p > 26)
		return -1;
	/* Numerators over 2^(e-2): value 4m, bounds 4m +- 2 (4m - 1 below a
	 * power of two, where the spacing below is half). */
	u128 five = 1;
	for (int i = 0; i < p; i++)
		five *= 5;
	int shift = p + e - 2;
	u128 nv = (u128)(4 * m) * five;
	u128 nu = (u128)(4 * m + 2) * five;
	u128 nl = (u128)(4 * m - (m == (1ULL << 52) ? 1 : 2)) * five;
	int inclusive = !(m & 1);
	uint64_t lo = scaled_bound(nl, shift, 1, inclusive);
	uint64_t hi = scaled_bound(nu, shift, 0, inclusive);
	/* value 10^p, split into its integer part and the bits below. */
	uint64_t vint;
	u128 rem = 0, half = 0;
	if (shift >= 0) {
		vint = (uint64_t)(nv << shift);
	} else {
		vint = (uint64_t)(nv >> -shift);
		rem = nv - ((u128)vint << -shift);
		half = (u128)1 << (-shift - 1);
	}
	if (vint < pow10_u64[16] / 2 || vint >= pow10_u64[18] || lo > hi)
		return -1; /* log10 was off: cannot happen by more than one */
	int k = 18;
	while (k > 0 && (hi / pow10_u64[k]) * pow10_u64[k] < lo)
		k--;
	uint64_t step = pow10_u64[k];
	uint64_t first = (lo + step - 1) / step, last = hi / step, c = first;
	if (first != last) {
		/* Nearest: round value / 10^k, (vint + rem) / step. */
		uint64_t c0 = vint / step, r = vint % step;
		int cmp;
		if (k == 0)
			cmp = rem < half ? -1 : rem > half;
		else
			cmp = 2 * r < step ? -1 : 2 * r > step ? 1 : rem ? 1 : 0;
		if (!cmp)
			return -1;
		c = c0 + (cmp > 0);
		if (c < first)
			c = first;
		if (c > last)
			c = last;
	}
	int nd = 1;
	while (c % 10 == 0 && c) {
		c /= 10;
		k++;
	}
	for (uint64_t t = c; t >= 10; t /= 10)
		nd++;
	*digits = c;
	*exp10 = k - p + nd - 1;
	return 0;
}

/* Python's layout of digits d1 d2 ... dn times 10^exp10 (of d1). */
static void python_layout(int negative, const char *digits, size_t nd, int exp10,
			  char *o)
{
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
	double magnitude = fabs(value);
	uint64_t c;
	int exp10;
	if (magnitude >= 1e-10 && magnitude < 1e16 && !shortest_digits(magnitude, &c, &exp10)) {
		char digits[24];
		int nd = 0;
		char rev[24];
		do {
			rev[nd++] = (char)('0' + c % 10);
			c /= 10;
		} while (c);
		for (int i = 0; i < nd; i++)
			digits[i] = rev[nd - 1 - i];
		python_layout(signbit(value), digits, (size_t)nd, exp10, out);
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
	exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	python_layout(negative, digits, nd, exp10, out);
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
