/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * JSON output byte-for-byte like Python's json.dumps, so objects written
 * here get the same SHA-1 as when Python Perun writes the same profile.
 *
 * Layer 3 of libperun, the writer of values: it uses the reader's exact
 * arithmetic (reader.h) and the core's numbers (profile_core.h), never a
 * form of a profile; the forms above use it for Python's text of values
 * (resource-type ids are made of it), and profile_dump.c writes whole
 * profiles with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/profile.h>

#include "json_python.h"
#include "profile_core.h"
#include "reader.h"

static const uint64_t pow10_u64[] = {
	1ULL,
	10ULL,
	100ULL,
	1000ULL,
	10000ULL,
	100000ULL,
	1000000ULL,
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	100000000000ULL,
	1000000000000ULL,
	10000000000000ULL,
	100000000000000ULL,
	1000000000000000ULL,
	10000000000000000ULL,
	100000000000000000ULL,
	1000000000000000000ULL,
};

/* x / 10^k by constants, which compilers turn into multiplications. */
static inline uint64_t div_pow10(uint64_t x, int k)
{
	switch (k) {
	case 0: return x;
	case 1: return x / 10ULL;
	case 2: return x / 100ULL;
	case 3: return x / 1000ULL;
	case 4: return x / 10000ULL;
	case 5: return x / 100000ULL;
	case 6: return x / 1000000ULL;
	case 7: return x / 10000000ULL;
	case 8: return x / 100000000ULL;
	case 9: return x / 1000000000ULL;
	case 10: return x / 10000000000ULL;
	case 11: return x / 100000000000ULL;
	case 12: return x / 1000000000000ULL;
	case 13: return x / 10000000000000ULL;
	case 14: return x / 100000000000000ULL;
	case 15: return x / 1000000000000000ULL;
	case 16: return x / 10000000000000000ULL;
	case 17: return x / 100000000000000000ULL;
	default: return x / 1000000000000000000ULL;
	}
}

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
	uint64_t bits;
	memcpy(&bits, &value, sizeof(bits));
	int biased = (int)(bits >> 52);
	if (biased == 0 || biased >= 0x7ff)
		return -1; /* subnormal, zero, non-finite: the slow way */
	uint64_t m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	int e = biased - 1075; /* value = m 2^e */
	/* floor(log10(2^(e+52))) by the usual fixed-point log10(2), so value
	 * 10^p is in [1e16, 2e17); a miss by one only takes the slow way. */
	int scaled = (e + 52) * 78913;
	int p = 16 - (scaled >= 0 ? scaled >> 18 : -((-scaled + (1 << 18) - 1) >> 18));
	if (p < 0 || p >= (int)(sizeof(json_pow5) / sizeof(json_pow5[0])))
		return -1;
	u128 five = json_pow5[p];
	/* Numerators over 2^(e-2): value 4m, bounds 4m +- 2 (4m - 1 below a
	 * power of two, where the spacing below is half). */
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
	if (vint < pow10_u64[16] || vint >= pow10_u64[18] || lo > hi)
		return -1; /* cannot happen: a 17-digit integer always fits */
	/* The largest k with a multiple of 10^k in [lo, hi]: if 10^k has one,
	 * so has 10^(k-1), so bisect; 10^0 has, 10^18 has not. */
	int k = 0, none = 18;
	while (none - k > 1) {
		int mid = (k + none) / 2;
		if (div_pow10(hi, mid) * pow10_u64[mid] >= lo)
			k = mid;
		else
			none = mid;
	}
	uint64_t step = pow10_u64[k];
	uint64_t first = div_pow10(lo + step - 1, k), last = div_pow10(hi, k), c = first;
	if (first != last) {
		/* Nearest: round value / 10^k, (vint + rem) / step. */
		uint64_t c0 = div_pow10(vint, k), r = vint - c0 * step;
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

/* Python's layout of digits d1 d2 ... dn times 10^exp10 (of d1) into out;
 * its length. */
static size_t python_layout(int negative, const char *digits, size_t nd, int exp10, char *out)
{
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
		o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		return (size_t)(o - out);
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
	return (size_t)(o - out);
}

size_t json_python_format_double(double value, char out[32])
{
	if (isnan(value)) {
		strcpy(out, "NaN");
		return 3;
	}
	if (isinf(value)) {
		strcpy(out, value > 0 ? "Infinity" : "-Infinity");
		return value > 0 ? 8 : 9;
	}
	/* Zero, the amount of every record one profile lacks: no search. */
	if (value == 0) {
		strcpy(out, signbit(value) ? "-0.0" : "0.0");
		return signbit(value) ? 4 : 3;
	}
	double magnitude = fabs(value);
	uint64_t c;
	int exp10;
	int found = 0;
	/*
	 * Most measured values have at most three decimals (times in
	 * microseconds of nanosecond clocks, sizes, counts).  When n / 1000,
	 * n an integer, reads back as the value, n's digits are the shortest
	 * that do: below 1e12 the value's rounding interval is narrower than
	 * 0.001, so it holds no other multiple of 0.001, and a decimal of no
	 * more digits that it held would be one (1e-3 and up).
	 */
	if (magnitude >= 1e-3 && magnitude < 1e12) {
		uint64_t n = (uint64_t)(magnitude * 1000.0 + 0.5);
		if ((double)n / 1000.0 == magnitude) {
			exp10 = -4;
			for (uint64_t t = n; t; t /= 10)
				exp10++;
			while (n % 10 == 0)
				n /= 10;
			c = n;
			found = 1;
		}
	}
	if (found ||
	    (magnitude >= 1e-10 && magnitude < 1e16 && !shortest_digits(magnitude, &c, &exp10))) {
		char digits[24];
		int nd = 0;
		char rev[24];
		do {
			rev[nd++] = (char)('0' + c % 10);
			c /= 10;
		} while (c);
		for (int i = 0; i < nd; i++)
			digits[i] = rev[nd - 1 - i];
		return python_layout(signbit(value), digits, (size_t)nd, exp10, out);
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
	return python_layout(negative, digits, nd, exp10, out);
}

/* Room for n more bytes at the end of out, written straight into its
 * buffer (the dump is most of a profile's save time); NULL without memory,
 * when out is marked failed. */
static inline char *room(struct perun_strbuf *out, size_t n)
{
	if (out->len + n + 1 > out->alloc && perun_strbuf_grow(out, n))
		return NULL;
	return out->buf + out->len;
}

static inline void put(struct perun_strbuf *out, const char *s, size_t n)
{
	char *w = room(out, n);
	if (w) {
		memcpy(w, s, n);
		out->len += n;
	}
}

static void dump_string_text(const char *s, size_t len, struct perun_strbuf *out);

/* The characters json.dumps(ensure_ascii=True) writes as they are. */
static inline int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * Python Perun's re.sub(r",\s+(\d+)", r", \1", text) on the indented dump,
 * within out's text from start: the only whitespace strings keep is
 * spaces, so a comma, spaces and a digit become a comma, a space and the
 * digit.
 */
static void fold_spaces(struct perun_strbuf *out, size_t start)
{
	char *r = out->buf + start, *w = r, *end = out->buf + out->len;
	while (r < end) {
		if (*r == ',' && r + 2 < end && r[1] == ' ') {
			char *q = r + 1;
			while (q < end && *q == ' ')
				q++;
			if (q < end && *q >= '0' && *q <= '9') {
				*w++ = ',';
				*w++ = ' ';
				r = q;
				continue;
			}
		}
		*w++ = *r++;
	}
	out->len = (size_t)(w - out->buf);
}

static void dump_string(const char *s, size_t len, int fold, struct perun_strbuf *out)
{
	size_t start = out->len;
	dump_string_text(s, len, out);
	if (fold && !out->failed && memchr(s, ',', len))
		fold_spaces(out, start);
}

static void dump_string_text(const char *s, size_t len, struct perun_strbuf *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;
	/* Most strings are plain: one copy between the quotes. */
	const unsigned char *run = p;
	while (run < end && plain(*run))
		run++;
	if (run == end) {
		char *w = room(out, len + 2);
		if (w) {
			w[0] = '"';
			memcpy(w + 1, s, len);
			w[len + 1] = '"';
			out->len += len + 2;
		}
		return;
	}
	put(out, "\"", 1);
	while (p < end) {
		unsigned char c = *p;
		if (plain(c)) {
			run = p;
			while (p < end && plain(*p))
				p++;
			put(out, (const char *)run, (size_t)(p - run));
			continue;
		}
		unsigned long cp = c;
		int extra = 0;
		switch (c) {
		case '"':
			put(out, "\\\"", 2);
			p++;
			continue;
		case '\\':
			put(out, "\\\\", 2);
			p++;
			continue;
		case '\n':
			put(out, "\\n", 2);
			p++;
			continue;
		case '\r':
			put(out, "\\r", 2);
			p++;
			continue;
		case '\t':
			put(out, "\\t", 2);
			p++;
			continue;
		case '\b':
			put(out, "\\b", 2);
			p++;
			continue;
		case '\f':
			put(out, "\\f", 2);
			p++;
			continue;
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
			char esc[6] = { '\\',
					'u',
					hex[(units[i] >> 12) & 15],
					hex[(units[i] >> 8) & 15],
					hex[(units[i] >> 4) & 15],
					hex[units[i] & 15] };
			put(out, esc, 6);
		}
	}
	put(out, "\"", 1);
}

/* The decimal digits of v at out; returns their count (at most 20). */
static size_t format_integer(json_int_t v, char *out)
{
	char rev[24];
	size_t n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		rev[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	size_t len = 0;
	if (v < 0)
		out[len++] = '-';
	while (n)
		out[len++] = rev[--n];
	return len;
}

/* The separator before an item: ", " or "," and the indented new line. */
static void separator(struct perun_strbuf *out, int first, int indent, int depth)
{
	if (indent < 0) {
		if (!first)
			put(out, ", ", 2);
		return;
	}
	size_t spaces = (size_t)indent * (size_t)depth;
	char *w = room(out, spaces + 2);
	if (!w)
		return;
	if (!first)
		*w++ = ',';
	*w++ = '\n';
	memset(w, ' ', spaces);
	out->len += spaces + 1 + !first;
}

/* Does the text of a scalar start with a digit (for folding number lists)? */
static inline int starts_with_digit(const struct perun_jv *v)
{
	switch (perun_jv_type(v)) {
	case PERUN_JV_INTEGER: return v->u.i >= 0;
	case PERUN_JV_REAL: return isfinite(v->u.d) && !signbit(v->u.d);
	default: return 0;
	}
}

struct dumper {
	int indent; /* -1: one line */
	int fold;   /* the pending form: number lists folded */
	struct perun_strbuf *out;
	struct json_python_sink *sink; /* out drained into it as it fills */
};

/* Text written into the sink once the buffer holds this much. */
#define DRAIN_BYTES ((size_t)1 << 20)

/* text[0 .. len) into the sink, unless a write failed before. */
static void write_text(struct json_python_sink *s, const char *text, size_t len)
{
	if (!s->error && perun_write_all(s->fd, text, len))
		s->error = errno ? errno : EIO;
}

static void drain_now(const struct dumper *d)
{
	if (!d->out->failed)
		write_text(d->sink, d->out->buf, d->out->len);
	d->sink->written += d->out->len;
	d->out->len = 0;
}

/* Called between values: the text so far goes to the sink when it is
 * big, so a profile is never held whole as text. */
static inline void drain(const struct dumper *d)
{
	if (d->sink && d->out->len >= DRAIN_BYTES)
		drain_now(d);
}

/* A value is either a tree (tree set) or a tape's (view set). */
static void dump_value(const struct dumper *d, const json_t *tree, const struct perun_jv *view,
		       int depth);

/* A member's key and its ": ", at depth; its value follows. */
static void member_head(const struct dumper *d, int first, const char *key, size_t key_len,
			int depth)
{
	drain(d);
	separator(d->out, first, d->indent, depth);
	dump_string(key, key_len, d->fold, d->out);
	put(d->out, ": ", 2);
}

static void dump_member(const struct dumper *d, int first, const char *key, size_t key_len,
			const json_t *tree, const struct perun_jv *view, int depth)
{
	member_head(d, first, key, key_len, depth + 1);
	dump_value(d, tree, view, depth + 1);
}

static void dump_element(const struct dumper *d, size_t i, const json_t *tree,
			 const struct perun_jv *view, int depth)
{
	struct perun_jv node;
	if (tree && !json_is_object(tree) && !json_is_array(tree)) {
		node = json_scalar_node(tree);
		tree = NULL;
		view = &node;
	}
	if (d->fold && i && !tree && starts_with_digit(view))
		put(d->out, ", ", 2);
	else
		separator(d->out, !i, d->indent, depth + 1);
	dump_value(d, tree, view, depth + 1);
}

/* A list of scalars: a tape's nodes, or a column's numbers. */
struct scalars {
	const struct perun_jv *nodes;
	const double *reals;
	const int64_t *integers;
};

static inline struct perun_jv scalar_at(const struct scalars *s, size_t i)
{
	if (s->nodes)
		return s->nodes[i];
	if (s->reals)
		return (struct perun_jv){ PERUN_JV_REAL, 1, { .d = s->reals[i] } };
	return (struct perun_jv){ PERUN_JV_INTEGER, 1, { .i = s->integers[i] } };
}

/* Elements [from, to) of items into d's text, drained as it fills. */
static void dump_scalar_range(const struct dumper *d, const struct scalars *items, size_t from,
			      size_t to, int depth)
{
	for (size_t i = from; i < to; i++) {
		struct perun_jv node = scalar_at(items, i);
		dump_element(d, i, NULL, &node, depth);
		if ((i & 4095) == 4095)
			drain(d);
	}
}

/*
 * A long list of scalars (a profile's column in its compact form: a
 * million calls' amounts) is formatted in parts on the other processors,
 * each into a text of its own appended in order; an element's text depends
 * only on whether it is the first, so the parts are what one pass writes.
 */
#define PART_MIN_ELEMENTS 65536
#define MAX_PARTS	  8

struct list_part {
	struct dumper d;
	struct perun_strbuf text;
	const struct scalars *items;
	size_t from, to;
	int depth;
};

static void *dump_list_part(void *data)
{
	struct list_part *part = data;
	dump_scalar_range(&part->d, part->items, part->from, part->to, part->depth);
	return NULL;
}

/* Elements [0, n) of items, all scalars, into d's text. */
static void dump_scalars(const struct dumper *d, const struct scalars *items, size_t n, int depth)
{
	cpu_set_t cpus;
	size_t parts = 1;
	/* As many as the processors this process may run on (not all there
	 * are), each part at least PART_MIN_ELEMENTS long. */
	if (n >= 2 * PART_MIN_ELEMENTS && !sched_getaffinity(0, sizeof(cpus), &cpus)) {
		parts = (size_t)CPU_COUNT(&cpus);
		if (parts > MAX_PARTS)
			parts = MAX_PARTS;
		if (parts > n / PART_MIN_ELEMENTS)
			parts = n / PART_MIN_ELEMENTS;
	}
	struct list_part part[MAX_PARTS];
	pthread_t thread[MAX_PARTS];
	int started[MAX_PARTS] = { 0 };
	/* Part 0 is this thread's, written straight into d's text. */
	size_t first_end = parts > 1 ? n / parts : n;
	for (size_t k = 1; k < parts; k++) {
		part[k] = (struct list_part){
			*d, PERUN_STRBUF_INIT, items, k * n / parts, (k + 1) * n / parts, depth
		};
		part[k].d.out = &part[k].text;
		part[k].d.sink = NULL; /* the parts are appended in order */
		started[k] = !pthread_create(&thread[k], NULL, dump_list_part, &part[k]);
	}
	dump_scalar_range(d, items, 0, first_end, depth);
	for (size_t k = 1; k < parts; k++) {
		if (started[k])
			pthread_join(thread[k], NULL);
		else
			dump_list_part(&part[k]);
		if (part[k].text.failed) {
			d->out->failed = 1;
		} else if (d->sink) {
			/* Straight to the sink after the text before it. */
			drain_now(d);
			write_text(d->sink, part[k].text.buf, part[k].text.len);
		} else if (part[k].text.len) {
			put(d->out, part[k].text.buf, part[k].text.len);
		}
		perun_strbuf_release(&part[k].text);
	}
}

/* The end of a container that has members. */
static void dump_close(const struct dumper *d, const char *bracket, int depth)
{
	if (d->indent >= 0)
		separator(d->out, 1, d->indent, depth);
	put(d->out, bracket, 1);
}

/* A list of n scalars, as dump_value writes a list. */
static void dump_scalar_list(const struct dumper *d, const struct scalars *items, size_t n,
			     int depth)
{
	if (!n) {
		put(d->out, "[]", 2);
		return;
	}
	put(d->out, "[", 1);
	dump_scalars(d, items, n, depth);
	dump_close(d, "]", depth);
}

static void dump_value(const struct dumper *d, const json_t *tree, const struct perun_jv *view,
		       int depth)
{
	char num[40];
	struct perun_jv node;
	if (tree && json_is_object(tree)) {
		if (!json_object_size(tree)) {
			put(d->out, "{}", 2);
			return;
		}
		put(d->out, "{", 1);
		const char *key;
		json_t *item;
		int first = 1;
		json_object_foreach((json_t *)tree, key, item)
		{
			dump_member(d, first, key, strlen(key), item, NULL, depth);
			first = 0;
		}
		dump_close(d, "}", depth);
		return;
	}
	if (tree && json_is_array(tree)) {
		size_t n = json_array_size(tree);
		if (!n) {
			put(d->out, "[]", 2);
			return;
		}
		put(d->out, "[", 1);
		for (size_t i = 0; i < n; i++)
			dump_element(d, i, json_array_get(tree, i), NULL, depth);
		dump_close(d, "]", depth);
		return;
	}
	if (tree) {
		node = json_scalar_node(tree);
		view = &node;
	}
	size_t i;
	const struct perun_jv *key, *item;
	switch (perun_jv_type(view)) {
	case PERUN_JV_OBJECT:
		if (!perun_jv_len(view)) {
			put(d->out, "{}", 2);
			return;
		}
		put(d->out, "{", 1);
		perun_jv_object_foreach(view, i, key, item)
			dump_member(d, !i, key->u.s, perun_jv_len(key), NULL, item, depth);
		dump_close(d, "}", depth);
		return;
	case PERUN_JV_ARRAY:
		if (view->next == perun_jv_len(view) + 1) { /* scalars only (or none) */
			struct scalars items = { view + 1, NULL, NULL };
			dump_scalar_list(d, &items, perun_jv_len(view), depth);
			return;
		}
		put(d->out, "[", 1);
		perun_jv_array_foreach(view, i, item) dump_element(d, i, NULL, item, depth);
		dump_close(d, "]", depth);
		return;
	case PERUN_JV_STRING: dump_string(view->u.s, perun_jv_len(view), d->fold, d->out); return;
	case PERUN_JV_INTEGER: put(d->out, num, format_integer((json_int_t)view->u.i, num)); return;
	case PERUN_JV_REAL:
		/* NaN and the infinities as Python's bare words. */
		put(d->out, num, json_python_format_double(view->u.d, num));
		return;
	case PERUN_JV_TRUE: put(d->out, "true", 4); return;
	case PERUN_JV_FALSE: put(d->out, "false", 5); return;
	case PERUN_JV_NULL: put(d->out, "null", 4); return;
	}
}

/* The buffer's text stays NUL-terminated, as strbuf.h promises. */
static void terminate(struct perun_strbuf *out)
{
	char *w = room(out, 0);
	if (w)
		*w = '\0';
}

void json_python_dump(const json_t *value, int indent, struct perun_strbuf *out)
{
	/* indent -2 asks for the folded form of indent 2, see json_python.h. */
	int fold = indent == JSON_PYTHON_PENDING;
	struct dumper d = { fold ? 2 : indent, fold, out, NULL };
	dump_value(&d, value, NULL, 0);
	terminate(out);
}

struct json_python_emitter {
	const struct dumper *d;
	int depth;
	size_t members;
};

void json_python_emit(struct json_python_emitter *e, const char *key, size_t key_len,
		      const struct perun_jv *value)
{
	if (!e->members)
		put(e->d->out, "{", 1);
	dump_member(e->d, !e->members++, key, key_len, NULL, value, e->depth);
}

void json_python_emit_columns(struct json_python_emitter *e, const char *key, size_t key_len,
			      const struct perun_column *columns, size_t ncolumns, size_t rows)
{
	const struct dumper *d = e->d;
	int depth = e->depth + 1;
	if (!e->members)
		put(d->out, "{", 1);
	member_head(d, !e->members++, key, key_len, depth);
	if (!ncolumns) {
		put(d->out, "{}", 2);
		return;
	}
	/* As dump_value writes an object of lists of scalars. */
	put(d->out, "{", 1);
	for (size_t c = 0; c < ncolumns; c++) {
		const struct perun_column *col = &columns[c];
		int real = col->kind == PERUN_COLUMN_REAL;
		struct scalars items = { NULL, real ? col->values : NULL,
					 real ? NULL : col->values };
		member_head(d, !c, col->key, strlen(col->key), depth + 1);
		dump_scalar_list(d, &items, rows, depth + 1);
	}
	dump_close(d, "}", depth);
}

/* A member whose object walk gives: as dump_member and dump_value write it. */
/* A walked member's value: an object whose members the walk emits. */
static int dump_walked_value(const struct dumper *d, const struct json_python_member *m)
{
	struct json_python_emitter e = { d, 1, 0 };
	int rc = m->walk(m->walk_data, &e);
	if (rc)
		return rc;
	if (!e.members)
		put(d->out, "{}", 2);
	else
		dump_close(d, "}", 1);
	return 0;
}

int json_python_dump_members(const struct json_python_member *members, size_t n, int indent,
			     struct perun_strbuf *out, struct json_python_sink *sink)
{
	int fold = indent == JSON_PYTHON_PENDING;
	struct dumper d = { fold ? 2 : indent, fold, out, sink };
	if (!n) {
		put(out, "{}", 2);
	} else {
		put(out, "{", 1);
		for (size_t i = 0; i < n; i++) {
			const struct json_python_member *m = &members[i];
			member_head(&d, !i, m->key, strlen(m->key), 1);
			if (m->span)
				m->span[0] = out->len + (sink ? sink->written : 0);
			if (m->walk) {
				int rc = dump_walked_value(&d, m);
				if (rc)
					return rc;
			} else {
				dump_value(&d, m->tree, m->tree ? NULL : m->view, 1);
			}
			if (m->span)
				m->span[1] = out->len + (sink ? sink->written : 0);
		}
		dump_close(&d, "}", 0);
	}
	if (sink)
		drain_now(&d);
	terminate(out);
	return 0;
}

void perun_python_float_str(double value, char out[32])
{
	if (isnan(value) || isinf(value))
		strcpy(out, isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
	else
		json_python_format_double(value, out);
}
