/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A fast reader of well-formed profile text into jansson values.
 *
 * Jansson's own parser reads through a per-byte stream callback, copies
 * every token into a buffer and converts every number with strto*(), which
 * makes it slower than Python's json module.  This reader takes the text in
 * one pass and builds the same tree with jansson's constructors.  It only
 * takes what json_loadb(JSON_REJECT_DUPLICATES) takes, plus Python's NaN,
 * Infinity and -Infinity as the marker strings profile.c defines; anything
 * else (bad syntax, \u0000, duplicate keys, integers out of range, deep
 * nesting) makes it give up, and the caller goes through jansson, which
 * gives the same tree or its usual error message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Jansson allows 2048 levels; deeper text goes to jansson for its error. */
#define MAX_DEPTH 1024

struct reader {
	const unsigned char *p, *end;
	char *scratch;      /* decoded strings with escapes */
	size_t scratch_len;
	int depth;
	locale_t c_locale;  /* made when a number needs strtod */
};

static const double exact_pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' ||
				 *r->p == '\r'))
		r->p++;
}

static int literal(struct reader *r, const char *word, size_t len)
{
	if ((size_t)(r->end - r->p) < len || memcmp(r->p, word, len))
		return 0;
	r->p += len;
	return 1;
}

/* Python's non-finite numbers, as the marker strings of profile.c. */
static json_t *non_finite(const char *word)
{
	char marker[16] = {'\0'};
	size_t len = strlen(word);
	memcpy(marker + 1, word, len);
	return json_stringn_nocheck(marker, len + 1);
}

static int bit_length(u128 n)
{
	uint64_t high = (uint64_t)(n >> 64);
	if (high)
		return 128 - __builtin_clzll(high);
	return (uint64_t)n ? 64 - __builtin_clzll((uint64_t)n) : 0;
}

/*
 * m 10^q rounded to the nearest double, halves to even, as strtod rounds;
 * for |q| <= 27, where the result is a normal number.  m 5^q, or m shifted
 * to 127 bits over 5^-q, leaves at least 64 exact bits (and whether any
 * were lost) to round to 53.
 */
static double exact_decimal(uint64_t m, int q)
{
	if (!m)
		return 0.0;
	u128 n;
	int e2, sticky = 0;
	if (q >= 0) {
		n = (u128)m * json_pow5[q];
		e2 = q;
	} else {
		int s = 127 - bit_length(m);
		u128 num = (u128)m << s;
		n = num / json_pow5[-q];
		sticky = num % json_pow5[-q] != 0;
		e2 = q - s; /* m / 10^-q = (num / 5^-q) 2^(q - s) */
	}
	int drop = bit_length(n) - 53;
	if (drop <= 0)
		return ldexp((double)(uint64_t)n, e2); /* exact, and sticky is 0 */
	uint64_t kept = (uint64_t)(n >> drop);
	u128 rest = n & (((u128)1 << drop) - 1), half = (u128)1 << (drop - 1);
	if (rest > half || (rest == half && (sticky || (kept & 1))))
		kept++;
	return ldexp((double)kept, e2 + drop); /* 2^53 after a carry is exact too */
}

static json_t *read_number(struct reader *r)
{
	const unsigned char *start = r->p, *p = r->p, *end = r->end;
	int negative = 0;
	if (p < end && *p == '-') {
		negative = 1;
		p++;
	}
	if (p == end)
		return NULL;
	if (*p == 'I') {
		r->p = p;
		return literal(r, "Infinity", 8) ? non_finite(negative ? "-Infinity" : "Infinity")
						 : NULL;
	}
	/* Integer part: 0, or digits without a leading zero. */
	uint64_t mantissa = 0;
	int digits = 0;   /* significant digits in mantissa */
	int dropped = 0;  /* integer digits beyond them */
	int inexact = 0;  /* a non-zero digit beyond them */
	const unsigned char *int_start = p;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			return NULL;
	} else if (*p >= '1' && *p <= '9') {
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (digits < 19) {
				mantissa = mantissa * 10 + (uint64_t)(*p - '0');
				digits++;
			} else {
				dropped++;
				inexact |= *p != '0';
			}
		}
	} else {
		return NULL;
	}
	size_t int_len = (size_t)(p - int_start);
	if (p == end || (*p != '.' && *p != 'e' && *p != 'E')) {
		r->p = p;
		if (int_len <= 18) {
			json_int_t v = (json_int_t)mantissa;
			return json_integer(negative ? -v : v);
		}
		if (int_len > 19)
			return NULL; /* out of range: jansson reports it */
		/* 19 digits may or may not fit: let strtoll decide, as jansson does. */
		char text[24];
		memcpy(text, start, (size_t)(p - start));
		text[p - start] = '\0';
		errno = 0;
		long long v = strtoll(text, NULL, 10);
		return errno == ERANGE ? NULL : json_integer((json_int_t)v);
	}
	int exp10 = dropped;
	if (*p == '.') {
		p++;
		if (p == end || *p < '0' || *p > '9')
			return NULL;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (digits < 19 && (digits || *p != '0')) {
				mantissa = mantissa * 10 + (uint64_t)(*p - '0');
				digits++;
				exp10--;
			} else if (!digits) {
				exp10--; /* leading zeros of 0.00x */
			} else if (*p != '0') {
				inexact = 1;
			}
		}
	}
	int exp_big = 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		int exp_negative = 0;
		if (p < end && (*p == '+' || *p == '-'))
			exp_negative = *p++ == '-';
		if (p == end || *p < '0' || *p > '9')
			return NULL;
		int e = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (e < 100000)
				e = e * 10 + (*p - '0');
			else
				exp_big = 1;
		}
		exp10 += exp_negative ? -e : e;
	}
	r->p = p;
	double value;
	/*
	 * Clinger's fast path: a mantissa below 2^53 and a power of ten up to
	 * 1e22 are both exact doubles, so one IEEE multiplication or division
	 * rounds correctly, as strtod does.  Up to 19 digits, exact integer
	 * arithmetic; longer mantissas and far exponents go to strtod.
	 */
	if (!inexact && digits <= 15 && !exp_big && exp10 >= -22 && exp10 <= 22) {
		value = (double)mantissa;
		value = exp10 < 0 ? value / exact_pow10[-exp10] : value * exact_pow10[exp10];
	} else if (!inexact && !exp_big && exp10 >= -27 && exp10 <= 27) {
		value = exact_decimal(mantissa, exp10);
	} else {
		/* strtod in the C locale, whatever the program's is. */
		if (!r->c_locale)
			r->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (!r->c_locale)
			return NULL;
		size_t len = (size_t)(p - start);
		char small[64], *text = len < sizeof(small) ? small : malloc(len + 1);
		if (!text)
			return NULL;
		memcpy(text, start, len);
		text[len] = '\0';
		value = strtod_l(text, NULL, r->c_locale);
		if (text != small)
			free(text);
		if (isinf(value))
			return NULL; /* jansson: real number overflow */
		return json_real(value);
	}
	return json_real(negative ? -value : value);
}

static int hex4(const unsigned char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629, as jansson
 * checks it), or 0. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
	unsigned c = *p;
	size_t n;
	uint32_t cp;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static size_t utf8_put(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The string at r->p (after its opening quote): *out points at its bytes,
 * in the text itself when it has no escapes, else in r->scratch.  Returns
 * 0, or -1 for anything jansson refuses or this reader leaves to it.
 */
static int read_string(struct reader *r, const char **out, size_t *len)
{
	const unsigned char *p = r->p, *end = r->end;
	/* The common case: printable ASCII up to the closing quote. */
	while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	if (p < end && *p == '"') {
		*out = (const char *)r->p;
		*len = (size_t)(p - r->p);
		r->p = p + 1;
		return 0;
	}
	/* Decoded text is never longer than the source. */
	const unsigned char *q = p;
	while (q < end && *q != '"')
		q += *q == '\\' && q + 1 < end ? 2 : 1;
	size_t need = (size_t)(q - r->p) + 1;
	if (need > r->scratch_len) {
		char *grown = realloc(r->scratch, need);
		if (!grown)
			return -1;
		r->scratch = grown;
		r->scratch_len = need;
	}
	char *w = r->scratch;
	memcpy(w, r->p, (size_t)(p - r->p));
	w += p - r->p;
	while (p < end && *p != '"') {
		unsigned c = *p;
		if (c < 0x20)
			return -1;
		if (c >= 0x80) {
			size_t n = utf8_sequence(p, end);
			if (!n)
				return -1;
			memcpy(w, p, n);
			w += n;
			p += n;
			continue;
		}
		if (c != '\\') {
			*w++ = (char)c;
			p++;
			continue;
		}
		if (++p == end)
			return -1;
		switch (*p++) {
		case '"': *w++ = '"'; continue;
		case '\\': *w++ = '\\'; continue;
		case '/': *w++ = '/'; continue;
		case 'b': *w++ = '\b'; continue;
		case 'f': *w++ = '\f'; continue;
		case 'n': *w++ = '\n'; continue;
		case 'r': *w++ = '\r'; continue;
		case 't': *w++ = '\t'; continue;
		case 'u': break;
		default: return -1;
		}
		unsigned cp, low;
		if (end - p < 4 || hex4(p, &cp))
			return -1;
		p += 4;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return -1;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &low) ||
			    low < 0xdc00 || low > 0xdfff)
				return -1;
			p += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
		}
		/* NUL needs JSON_ALLOW_NUL, which profile.c sets only sometimes. */
		if (cp == 0)
			return -1;
		w += utf8_put(cp, w);
	}
	if (p == end)
		return -1;
	*out = r->scratch;
	*len = (size_t)(w - r->scratch);
	r->p = p + 1;
	return 0;
}

static json_t *read_value(struct reader *r);

static json_t *read_object(struct reader *r)
{
	json_t *object = json_object();
	if (!object)
		return NULL;
	skip_space(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return object;
	}
	for (;;) {
		const char *key;
		size_t len;
		if (r->p == r->end || *r->p != '"')
			goto fail;
		r->p++;
		if (read_string(r, &key, &len))
			goto fail;
		/* The key may be in scratch, which the value may reuse. */
		char small[128], *copy = len < sizeof(small) ? small : malloc(len + 1);
		if (!copy)
			goto fail;
		memcpy(copy, key, len);
		skip_space(r);
		json_t *value = NULL;
		if (r->p < r->end && *r->p == ':') {
			r->p++;
			skip_space(r);
			value = read_value(r);
		}
		size_t size = json_object_size(object);
		/* A duplicate replaces the value and keeps the size: jansson
		 * refuses it. */
		int bad = !value || json_object_setn_new_nocheck(object, copy, len, value) ||
			  json_object_size(object) == size;
		if (copy != small)
			free(copy);
		if (bad)
			goto fail;
		skip_space(r);
		if (r->p == r->end)
			goto fail;
		if (*r->p == '}') {
			r->p++;
			return object;
		}
		if (*r->p++ != ',')
			goto fail;
		skip_space(r);
	}
fail:
	json_decref(object);
	return NULL;
}

static json_t *read_array(struct reader *r)
{
	json_t *array = json_array();
	if (!array)
		return NULL;
	skip_space(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return array;
	}
	for (;;) {
		if (json_array_append_new(array, read_value(r)))
			goto fail;
		skip_space(r);
		if (r->p == r->end)
			goto fail;
		if (*r->p == ']') {
			r->p++;
			return array;
		}
		if (*r->p++ != ',')
			goto fail;
		skip_space(r);
	}
fail:
	json_decref(array);
	return NULL;
}

static json_t *read_value(struct reader *r)
{
	if (r->p == r->end)
		return NULL;
	json_t *v = NULL;
	switch (*r->p) {
	case '{':
	case '[':
		if (++r->depth > MAX_DEPTH)
			return NULL;
		v = *r->p++ == '{' ? read_object(r) : read_array(r);
		r->depth--;
		return v;
	case '"': {
		const char *s;
		size_t len;
		r->p++;
		return read_string(r, &s, &len) ? NULL : json_stringn_nocheck(s, len);
	}
	case 't':
		return literal(r, "true", 4) ? json_true() : NULL;
	case 'f':
		return literal(r, "false", 5) ? json_false() : NULL;
	case 'n':
		return literal(r, "null", 4) ? json_null() : NULL;
	case 'N':
		return literal(r, "NaN", 3) ? non_finite("NaN") : NULL;
	default:
		return read_number(r);
	}
}

json_t *json_python_load(const char *buf, size_t len)
{
	struct reader r = {(const unsigned char *)buf, (const unsigned char *)buf + len,
			   NULL, 0, 0, (locale_t)0};
	skip_space(&r);
	json_t *root = NULL;
	if (r.p < r.end && (*r.p == '{' || *r.p == '['))
		root = read_value(&r);
	skip_space(&r);
	if (root && r.p != r.end) {
		json_decref(root);
		root = NULL;
	}
	free(r.scratch);
	if (r.c_locale)
		freelocale(r.c_locale);
	return root;
}
