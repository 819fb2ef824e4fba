/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A fast reader of well-formed profile text into a tape of perun_jv nodes
 * (perun/jsonview.h), and from a tape into jansson values.
 *
 * Jansson's own parser reads through a per-byte stream callback, copies
 * every token into a buffer, converts every number with strto*() and
 * allocates every value, which makes it slower than Python's json module.
 * This reader takes the text in one pass, decodes strings in place and
 * writes one node per value.  It only takes what
 * json_loadb(JSON_REJECT_DUPLICATES) takes, plus Python's NaN, Infinity
 * and -Infinity; anything else (bad syntax, \u0000, duplicate keys,
 * integers out of range, deep nesting, strings of 512 MiB) makes it give
 * up, and the caller goes through jansson, which gives the same tree or its
 * usual error message.
 *
 * Layer 1 of libperun, the reader: it uses the public base (error, strbuf,
 * fsutil) and its own reader.h only, and knows nothing of profiles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <perun/fsutil.h>

#include "reader.h"

/* The powers of five of the float reader, the printer's too. */
const uint64_t json_pow5[28] = {
	1ULL,
	5ULL,
	25ULL,
	125ULL,
	625ULL,
	3125ULL,
	15625ULL,
	78125ULL,
	390625ULL,
	1953125ULL,
	9765625ULL,
	48828125ULL,
	244140625ULL,
	1220703125ULL,
	6103515625ULL,
	30517578125ULL,
	152587890625ULL,
	762939453125ULL,
	3814697265625ULL,
	19073486328125ULL,
	95367431640625ULL,
	476837158203125ULL,
	2384185791015625ULL,
	11920928955078125ULL,
	59604644775390625ULL,
	298023223876953125ULL,
	1490116119384765625ULL,
	7450580596923828125ULL,
};

/* The node layout plugins read inline is frozen (perun/jsonview.h). */
_Static_assert(PERUN_JV_LAYOUT_VERSION == 1 && sizeof(struct perun_jv) == 16 &&
		       offsetof(struct perun_jv, next) == 4 && offsetof(struct perun_jv, u) == 8,
	       "the frozen perun_jv layout changed: see perun/jsonview.h");

/* Jansson allows 2048 levels; deeper text goes to jansson for its error. */
#define MAX_DEPTH 1024

struct reader {
	unsigned char *p, *end;
	struct json_tape *tape;
	int depth;
	locale_t c_locale;	       /* made when a number needs strtod */
	char *strings;		       /* where decoded strings go; NULL: in place */
	const char *skip_key;	       /* a member of the root object left unread */
	const char **skipped;	       /* where its value's text starts and ends */
	const unsigned char *skip_end; /* where it likely ends, or NULL */
};

static const double exact_pow10[] = {
	1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

static int literal(struct reader *r, const char *word, size_t len)
{
	if ((size_t)(r->end - r->p) < len || memcmp(r->p, word, len))
		return 0;
	r->p += len;
	return 1;
}

/* ---- the tape ----------------------------------------------------------- */

/* Index of a new node of type, or -1 without memory or beyond 2^32 nodes. */
static inline long long push(struct json_tape *t, enum perun_jv_type type)
{
	return json_tape_push(t, (struct perun_jv){ (uint32_t)type, 1, { 0 } });
}

/*
 * Room for nodes, which big texts get as a mapping of their own: its pages
 * are made as the tape fills (a text of n bytes has at most n / 2 + 1
 * values), in huge pages where the kernel offers them, and it grows
 * without a copy.  Small ones stay on the heap.
 */
#define TAPE_MAP_BYTES ((size_t)64 << 20)

static void *map_nodes(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	perun_advise_huge_pages(p, bytes);
	return p;
}

void *json_room_alloc(size_t bytes)
{
	return bytes >= TAPE_MAP_BYTES ? map_nodes(bytes) : malloc(bytes);
}

void json_room_free(void *room, size_t bytes)
{
	if (room && bytes >= TAPE_MAP_BYTES)
		munmap(room, bytes);
	else
		free(room);
}

int json_tape_grow(struct json_tape *t, size_t need)
{
	size_t n = t->alloc ? t->alloc : 256;
	while (n < need)
		n *= 2;
	if (n > (size_t)UINT32_MAX + 1)
		return -1;
	size_t bytes = n * sizeof(*t->nodes);
	void *grown;
	if (t->mapped) {
		grown = mremap(t->nodes, t->alloc * sizeof(*t->nodes), bytes, MREMAP_MAYMOVE);
		if (grown == MAP_FAILED)
			return -1;
	} else if (bytes >= TAPE_MAP_BYTES && (grown = map_nodes(bytes))) {
		if (t->n) /* memcpy's source may not be NULL, even for no bytes */
			memcpy(grown, t->nodes, t->n * sizeof(*t->nodes));
		free(t->nodes);
		t->mapped = 1;
	} else if (!(grown = realloc(t->nodes, bytes))) {
		return -1;
	}
	t->nodes = grown;
	t->alloc = n;
	return 0;
}

void json_tape_release(struct json_tape *t)
{
	if (t->mapped)
		munmap(t->nodes, t->alloc * sizeof(*t->nodes));
	else
		free(t->nodes);
	memset(t, 0, sizeof(*t));
}

static int set_integer(struct perun_jv *v, int64_t i)
{
	v->tag = PERUN_JV_INTEGER;
	v->u.i = i;
	return 0;
}

static int set_real(struct perun_jv *v, double d)
{
	v->tag = PERUN_JV_REAL;
	v->u.d = d;
	return 0;
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

static int read_number(struct reader *r, struct perun_jv *node)
{
	unsigned char *start = r->p, *p = r->p, *end = r->end;
	int negative = 0;
	if (p < end && *p == '-') {
		negative = 1;
		p++;
	}
	if (p == end)
		return -1;
	if (*p == 'I') {
		r->p = p;
		if (!literal(r, "Infinity", 8))
			return -1;
		return set_real(node, negative ? -INFINITY : INFINITY);
	}
	/* Integer part: 0, or digits without a leading zero. */
	uint64_t mantissa = 0;
	int digits = 0;	 /* significant digits in mantissa */
	int dropped = 0; /* integer digits beyond them */
	int inexact = 0; /* a non-zero digit beyond them */
	const unsigned char *int_start = p;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			return -1;
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
		return -1;
	}
	size_t int_len = (size_t)(p - int_start);
	if (p == end || (*p != '.' && *p != 'e' && *p != 'E')) {
		r->p = p;
		if (int_len <= 18) {
			int64_t v = (int64_t)mantissa;
			return set_integer(node, negative ? -v : v);
		}
		if (int_len > 19)
			return -1; /* out of range: jansson reports it */
		/* 19 digits may or may not fit: let strtoll decide, as jansson does. */
		char text[24];
		memcpy(text, start, (size_t)(p - start));
		text[p - start] = '\0';
		errno = 0;
		long long v = strtoll(text, NULL, 10);
		return errno == ERANGE ? -1 : set_integer(node, (int64_t)v);
	}
	int exp10 = dropped;
	if (*p == '.') {
		p++;
		if (p == end || *p < '0' || *p > '9')
			return -1;
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
			return -1;
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
			return -1;
		size_t len = (size_t)(p - start);
		char small[64], *text = len < sizeof(small) ? small : malloc(len + 1);
		if (!text)
			return -1;
		memcpy(text, start, len);
		text[len] = '\0';
		value = strtod_l(text, NULL, r->c_locale);
		if (text != small)
			free(text);
		if (isinf(value))
			return -1; /* jansson: real number overflow */
		return set_real(node, value);
	}
	return set_real(node, negative ? -value : value);
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

/* Bytes of w that are '"', '\\', below 0x20 or above 0x7f: the high bit of
 * each such byte is set (the usual word-at-a-time tests). */
static inline uint64_t special_bytes(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
	uint64_t zero_q = (quote - ones) & ~quote;
	uint64_t zero_b = (backslash - ones) & ~backslash;
	uint64_t control = (w - ones * 0x20) & ~w;
	return (zero_q | zero_b | control | w) & high;
}

/* A string decoded to dst[0..len) and terminated; the text goes on at next. */
static inline int string_read(struct reader *r, unsigned char *dst, size_t len, unsigned char *next,
			      const char **out, size_t *out_len)
{
	*out = (const char *)dst;
	*out_len = len;
	if (r->strings)
		r->strings += len + 1;
	r->p = next;
	return 0;
}

/*
 * The string at r->p (after its opening quote), decoded in place and
 * NUL-terminated where its closing quote was, or into r->strings when set.
 * Returns 0 and sets *out and *len, or -1 for anything jansson refuses or
 * this reader leaves to it.
 */
static int read_string(struct reader *r, const char **out, size_t *len)
{
	unsigned char *start = r->p, *p = r->p, *end = r->end;
	/* The common case: printable ASCII up to the closing quote. */
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t hits = special_bytes(w);
		if (hits) {
			p += __builtin_ctzll(hits) / 8;
			break;
		}
		p += 8;
	}
	while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	/* Decoded text is never longer than its source: it fits in place, or
	 * in r->strings, which has room for the whole text read. */
	unsigned char *dst = r->strings ? (unsigned char *)r->strings : start;
	if (dst != start)
		memcpy(dst, start, (size_t)(p - start));
	if (p < end && *p == '"') {
		dst[p - start] = '\0';
		return string_read(r, dst, (size_t)(p - start), p + 1, out, len);
	}
	unsigned char *w = dst + (p - start);
	while (p < end && *p != '"') {
		unsigned c = *p;
		if (c < 0x20)
			return -1;
		if (c >= 0x80) {
			size_t n = utf8_sequence(p, end);
			if (!n)
				return -1;
			memmove(w, p, n);
			w += n;
			p += n;
			continue;
		}
		if (c != '\\') {
			*w++ = (unsigned char)c;
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
		w += utf8_put(cp, (char *)w);
	}
	if (p == end)
		return -1;
	*w = '\0';
	return string_read(r, dst, (size_t)(w - dst), p + 1, out, len);
}

static int read_value(struct reader *r);

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

static int same_key(const struct perun_jv *a, const struct perun_jv *b)
{
	return a->tag == b->tag && !memcmp(a->u.s, b->u.s, perun_jv_len(a));
}

/*
 * The keys of one big object, for jansson's refusal of duplicates.  Small
 * objects are checked pair by pair when they close.  Past SMALL_OBJECT
 * members every key is hashed as it is read, while its bytes are still in
 * the cache; at the close the hashes are radix-sorted, and only keys of
 * equal hash are compared.  A profile's million resource ids are so checked
 * in a few sequential passes instead of a million random probes.
 */
#define SMALL_OBJECT 16

struct key_hash {
	uint32_t hash;
	uint32_t node; /* the key's index in the tape */
};

struct key_list {
	struct key_hash *keys;
	size_t n, alloc;
};

static int key_list_add(struct key_list *l, const struct json_tape *t, size_t node)
{
	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? 2 * l->alloc : 64;
		void *grown = realloc(l->keys, alloc * sizeof(*l->keys));
		if (!grown)
			return -1;
		l->keys = grown;
		l->alloc = alloc;
	}
	const struct perun_jv *k = &t->nodes[node];
	l->keys[l->n++] = (struct key_hash){ hash_bytes(k->u.s, perun_jv_len(k)), (uint32_t)node };
	return 0;
}

/* Whether two of the keys are equal: 1, 0, or -1 without memory. */
static int key_list_has_duplicate(struct key_list *l, const struct json_tape *t)
{
	struct key_hash *tmp = malloc(l->n * sizeof(*tmp)), *from = l->keys, *to = tmp;
	if (!tmp)
		return -1;
	for (int shift = 0; shift < 32; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < l->n; i++)
			count[((from[i].hash >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < l->n; i++)
			to[count[(from[i].hash >> shift) & 0xff]++] = from[i];
		struct key_hash *swap = from;
		from = to;
		to = swap;
	}
	int dup = 0;
	/* After four passes the sorted keys are back in l->keys. */
	for (size_t i = 0; i + 1 < l->n && !dup; i++)
		for (size_t j = i + 1; j < l->n && from[j].hash == from[i].hash && !dup; j++)
			dup = same_key(&t->nodes[from[i].node], &t->nodes[from[j].node]);
	free(tmp);
	return dup;
}

/* Whether the small object at index has a key twice. */
static int small_has_duplicate(const struct json_tape *t, size_t index)
{
	const struct perun_jv *object = &t->nodes[index], *k, *v, *k2, *v2;
	size_t n = perun_jv_len(object), i, j;
	perun_jv_object_foreach(object, i, k, v) for (j = i + 1, k2 = perun_jv_skip(v), v2 = k2 + 1;
						      j < n;
						      j++, k2 = perun_jv_skip(v2),
						      v2 = k2 + 1) if (same_key(k, k2)) return 1;
	return 0;
}

/* Where a bracket scan is: nesting depth, inside a string, after '\'. */
struct bracket_scan {
	size_t depth;
	int in_string, escaped;
};

/* Scan p[0..n) byte by byte: the offset just past the bracket that closes
 * the outermost one, or -1 when it is not there. */
static long scan_brackets(const unsigned char *p, size_t n, struct bracket_scan *st)
{
	for (size_t i = 0; i < n; i++) {
		unsigned c = p[i];
		if (st->in_string) {
			if (st->escaped)
				st->escaped = 0;
			else if (c == '\\')
				st->escaped = 1;
			else if (c == '"')
				st->in_string = 0;
		} else if (c == '"') {
			st->in_string = 1;
		} else if (c == '{' || c == '[') {
			st->depth++;
		} else if ((c == '}' || c == ']') && !--st->depth) {
			return (long)i + 1;
		}
	}
	return -1;
}

#ifdef __SSE2__
#include <emmintrin.h>

/* Bit i set where p[i] == c, for p[0..64). */
static inline uint64_t bytes_equal(const __m128i v[4], char c)
{
	__m128i x = _mm_set1_epi8(c);
	uint64_t m = 0;
	for (int i = 0; i < 4; i++)
		m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], x)) << (16 * i);
	return m;
}

/* Set bits of x (x86-64's baseline has no popcnt instruction). */
static inline size_t bits_set(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (size_t)((x * 0x0101010101010101ull) >> 56);
}

/* Bit i set where an odd number of the bits at or below i are set in x. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}
#endif

/*
 * The end of the object or array at p: just past its closing bracket, by
 * brackets and quotes alone, or NULL.  64 bytes at a time where SSE2 is:
 * quotes make a mask of what is inside strings, and the nesting is
 * followed bit by bit only in the block where it may close.  Blocks with a
 * backslash, rare in profiles, go byte by byte.
 */
static const unsigned char *container_end(const unsigned char *p, const unsigned char *end)
{
	struct bracket_scan st = { 0, 0, 0 };
#ifdef __SSE2__
	while (end - p >= 64) {
		__m128i v[4], brace_bit = _mm_set1_epi8(0x20);
		for (int i = 0; i < 4; i++)
			v[i] = _mm_loadu_si128((const __m128i *)(p + 16 * i));
		if (st.escaped || bytes_equal(v, '\\')) {
			long at = scan_brackets(p, 64, &st);
			if (at >= 0)
				return p + at;
			p += 64;
			continue;
		}
		/* '{' and '[', '}' and ']' differ in 0x20 only. */
		__m128i folded[4];
		for (int i = 0; i < 4; i++)
			folded[i] = _mm_or_si128(v[i], brace_bit);
		uint64_t strings = prefix_xor(bytes_equal(v, '"'));
		if (st.in_string)
			strings = ~strings;
		uint64_t open = bytes_equal(folded, '{') & ~strings;
		uint64_t close = bytes_equal(folded, '}') & ~strings;
		st.in_string = (int)(strings >> 63);
		size_t closes = bits_set(close);
		if (st.depth > closes) {
			st.depth = st.depth + bits_set(open) - closes;
			p += 64;
			continue;
		}
		for (uint64_t marks = open | close; marks; marks &= marks - 1) {
			int i = __builtin_ctzll(marks);
			if (open >> i & 1)
				st.depth++;
			else if (!--st.depth)
				return p + i + 1;
		}
		p += 64;
	}
#endif
	long at = scan_brackets(p, (size_t)(end - p), &st);
	return at >= 0 ? p + at : NULL;
}

/* ---- reading backwards ---------------------------------------------------- */

static int is_space(unsigned c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static const unsigned char *back_space(const unsigned char *text, const unsigned char *p)
{
	while (p > text && is_space(p[-1]))
		p--;
	return p;
}

/* The opening quote of the string whose closing quote is p[-1]: a quote
 * after an even number of backslashes (well-formed text has no other
 * quotes inside strings), or NULL. */
static const unsigned char *back_string(const unsigned char *text, const unsigned char *p)
{
	for (const unsigned char *q = p - 1; q > text;) {
		q--;
		if (*q != '"')
			continue;
		const unsigned char *b = q;
		while (b > text && b[-1] == '\\')
			b--;
		if ((q - b) % 2 == 0)
			return q;
	}
	return NULL;
}

/* The start of the value that ends at p[-1], or NULL when it is not at
 * limit or after. */
static const unsigned char *back_value(const unsigned char *text, const unsigned char *limit,
				       const unsigned char *p)
{
	if (p == text)
		return NULL;
	if (p[-1] == '"')
		return back_string(limit, p);
	if (p[-1] != '}' && p[-1] != ']') {
		while (p > limit && !is_space(p[-1]) && !strchr(",:[{", p[-1]))
			p--;
		return p > text ? p : NULL;
	}
	size_t depth = 0;
	while (p > limit) {
		unsigned c = *--p;
		if (c == '"') {
			if (!(p = back_string(limit, p + 1)))
				return NULL;
		} else if (c == '}' || c == ']') {
			depth++;
		} else if ((c == '{' || c == '[') && !--depth) {
			return p;
		}
	}
	return NULL;
}

/*
 * Just past the value of the root object's member key, guessed from the end
 * of the text: the members after it are read backwards, as far as max bytes
 * from the end; the value that reaches further is taken for key's (a
 * profile's big resource_type_map is followed by a few small parts), one
 * whose key is key where it is met first.  NULL when the text is not as
 * expected.  A guess: the readers of the parts before and after and of the
 * value itself find out when it is wrong.
 */
static const unsigned char *member_end_from_back(const unsigned char *text, size_t len,
						 const char *key, size_t max)
{
	const unsigned char *end = text + len, *p = back_space(text, end);
	const unsigned char *limit = len > max ? end - max : text;
	size_t key_len = strlen(key);
	if (p == text || p[-1] != '}')
		return NULL;
	p--;
	for (;;) {
		const unsigned char *value_end = back_space(text, p);
		const unsigned char *value = back_value(text, limit, value_end);
		if (!value)
			return value_end;
		p = back_space(text, value);
		if (p == text || p[-1] != ':')
			return NULL;
		p = back_space(text, p - 1);
		const unsigned char *quote = p > text && p[-1] == '"' ? back_string(text, p) : NULL;
		if (!quote)
			return NULL;
		if ((size_t)(p - 1 - (quote + 1)) == key_len && !memcmp(quote + 1, key, key_len))
			return value_end;
		p = back_space(text, quote);
		if (p == text || p[-1] != ',')
			return NULL;
		p--;
	}
}

/* Parts after a skipped member are looked for from the end this far. */
#define BACK_SEARCH_BYTES ((size_t)4 << 20)

/*
 * The object at r->p passed over by its brackets and quotes alone, or up
 * to where member_end_from_back found it ends, an empty object in its
 * place on the tape and its text's span in r->skipped: a reader checks it
 * later (perun_profile_load_file_streamed).  Whatever is wrong inside it
 * shows then.
 */
static int skip_object(struct reader *r)
{
	const unsigned char *close = r->skip_end;
	if (r->p == r->end || *r->p != '{' || push(r->tape, PERUN_JV_OBJECT) < 0)
		return -1;
	if (!close || close <= r->p || close[-1] != '}')
		close = container_end(r->p, r->end);
	if (!close)
		return -1;
	r->skipped[0] = (const char *)r->p;
	r->skipped[1] = (const char *)close;
	r->p = (unsigned char *)close;
	return 0;
}

/* After the opening '{' or '[' of the container at index. */
static int read_members(struct reader *r, size_t index, int object)
{
	char close = object ? '}' : ']';
	size_t count = 0;
	struct key_list keys = { NULL, 0, 0 };
	int rc = -1;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		if (object) {
			const char *key;
			size_t len;
			if (r->p == r->end || *r->p != '"')
				goto out;
			r->p++;
			long long k = push(r->tape, PERUN_JV_STRING);
			if (k < 0 || read_string(r, &key, &len) || len > PERUN_JV_MAX_LEN)
				goto out;
			r->tape->nodes[k].tag = PERUN_JV_STRING | (uint32_t)len << 3;
			r->tape->nodes[k].u.s = key;
			if (count == SMALL_OBJECT) {
				/* Big after all: the keys so far go into the set. */
				const struct perun_jv *o = &r->tape->nodes[index], *kn = o + 1;
				for (size_t i = 0; i < count; i++, kn = perun_jv_skip(kn + 1))
					if (key_list_add(&keys, r->tape,
							 (size_t)(kn - r->tape->nodes)))
						goto out;
			}
			if (count >= SMALL_OBJECT && key_list_add(&keys, r->tape, (size_t)k))
				goto out;
			skip_space(r);
			if (r->p == r->end || *r->p++ != ':')
				goto out;
			skip_space(r);
			if (r->skip_key && r->depth == 1 && !strcmp(key, r->skip_key)) {
				if (skip_object(r) || ++count > PERUN_JV_MAX_LEN)
					goto out;
				goto member_read;
			}
		}
		if (read_value(r) || ++count > PERUN_JV_MAX_LEN)
			goto out;
	member_read:
		skip_space(r);
		if (r->p == r->end)
			goto out;
		if (*r->p == close) {
			r->p++;
			break;
		}
		if (*r->p++ != ',')
			goto out;
		skip_space(r);
	}
	struct perun_jv *c = &r->tape->nodes[index];
	c->tag = (object ? PERUN_JV_OBJECT : PERUN_JV_ARRAY) | (uint32_t)count << 3;
	c->next = (uint32_t)(r->tape->n - index);
	if (!object)
		rc = 0;
	else if (count <= SMALL_OBJECT)
		rc = small_has_duplicate(r->tape, index) ? -1 : 0;
	else
		rc = key_list_has_duplicate(&keys, r->tape) ? -1 : 0;
out:
	free(keys.keys);
	return rc;
}

static int read_value(struct reader *r)
{
	if (r->p == r->end)
		return -1;
	long long index = push(r->tape, PERUN_JV_NULL);
	if (index < 0)
		return -1;
	struct perun_jv *v = &r->tape->nodes[index];
	switch (*r->p) {
	case '{':
	case '[': {
		if (++r->depth > MAX_DEPTH)
			return -1;
		int object = *r->p++ == '{';
		v->tag = object ? PERUN_JV_OBJECT : PERUN_JV_ARRAY;
		int rc = read_members(r, (size_t)index, object);
		r->depth--;
		return rc;
	}
	case '"': {
		const char *s;
		size_t len;
		r->p++;
		if (read_string(r, &s, &len) || len > PERUN_JV_MAX_LEN)
			return -1;
		v = &r->tape->nodes[index];
		v->tag = PERUN_JV_STRING | (uint32_t)len << 3;
		v->u.s = s;
		return 0;
	}
	case 't': v->tag = PERUN_JV_TRUE; return literal(r, "true", 4) ? 0 : -1;
	case 'f': v->tag = PERUN_JV_FALSE; return literal(r, "false", 5) ? 0 : -1;
	case 'n': return literal(r, "null", 4) ? 0 : -1;
	case 'N': return literal(r, "NaN", 3) ? set_real(v, NAN) : -1;
	default: return read_number(r, v);
	}
}

int json_tape_parse(char *text, size_t len, struct json_tape *tape)
{
	return json_tape_parse_skipping(text, len, tape, NULL, NULL);
}

int json_tape_parse_skipping(char *text, size_t len, struct json_tape *tape, const char *skip_key,
			     const char *skipped[2])
{
	struct reader r = { (unsigned char *)text,
			    (unsigned char *)text + len,
			    tape,
			    0,
			    (locale_t)0,
			    NULL,
			    skip_key,
			    skipped,
			    NULL };
	tape->n = 0;
	if (skipped)
		skipped[0] = skipped[1] = NULL;
	if (skip_key)
		r.skip_end = member_end_from_back(r.p, len, skip_key, BACK_SEARCH_BYTES);
	if (json_tape_grow(tape, len / 2 + 2))
		return -1;
	skip_space(&r);
	int rc = -1;
	if (r.p < r.end && (*r.p == '{' || *r.p == '['))
		rc = read_value(&r);
	skip_space(&r);
	if (r.p != r.end || (skip_key && !skipped[0]))
		rc = -1;
	if (r.c_locale)
		freelocale(r.c_locale);
	return rc;
}

/* ---- one object's members, one at a time --------------------------------- */

int json_object_stream_open(struct json_object_stream *s, const char *text, size_t len)
{
	return json_object_stream_open_part(s, text, len, len);
}

int json_object_stream_open_part(struct json_object_stream *s, const char *text, size_t len,
				 size_t whole_len)
{
	memset(s, 0, sizeof(*s));
	s->p = (char *)text;
	s->end = (char *)text + len;
	/* Its keys, for the check of duplicates at the close: copies, as the
	 * strings of members already read are overwritten. */
	s->key_text_len = whole_len + 1;
	if (!(s->key_text = s->key_at = json_room_alloc(s->key_text_len)))
		return -1;
	struct reader r = { (unsigned char *)s->p,
			    (unsigned char *)s->end,
			    NULL,
			    0,
			    (locale_t)0,
			    NULL,
			    NULL,
			    NULL,
			    NULL };
	skip_space(&r);
	if (r.p == r.end || *r.p != '{')
		return -1;
	r.p++;
	s->p = (char *)r.p;
	return 0;
}

/* The last member read: any duplicate key among all of them? */
static int stream_close(struct json_object_stream *s, struct reader *r)
{
	r->p++;
	skip_space(r);
	if (r->p != r->end)
		return -1;
	s->p = (char *)r->p;
	struct key_list keys = { s->key_hashes, s->members, s->key_hashes_alloc };
	return s->members > 1 && key_list_has_duplicate(&keys, &s->keys) ? -1 : 0;
}

int json_object_stream_next(struct json_object_stream *s, struct json_tape *tape, char **strings)
{
	/* Inside the root object's member, as the whole text is read. */
	struct reader r = { (unsigned char *)s->p,
			    (unsigned char *)s->end,
			    tape,
			    2,
			    s->c_locale,
			    *strings,
			    NULL,
			    NULL,
			    NULL };
	const char *key;
	size_t len;
	int rc = -1;
	skip_space(&r);
	if (r.p == r.end)
		goto out;
	if (*r.p == '}') {
		rc = stream_close(s, &r);
		goto out;
	}
	if (s->members) {
		if (*r.p++ != ',')
			goto out;
		skip_space(&r);
	}
	if (r.p == r.end || *r.p != '"' || s->members >= PERUN_JV_MAX_LEN)
		goto out;
	r.p++;
	long long k = push(tape, PERUN_JV_STRING);
	if (k < 0 || read_string(&r, &key, &len) || len > PERUN_JV_MAX_LEN)
		goto out;
	tape->nodes[k].tag = PERUN_JV_STRING | (uint32_t)len << 3;
	tape->nodes[k].u.s = key;
	skip_space(&r);
	if (r.p == r.end || *r.p++ != ':')
		goto out;
	skip_space(&r);
	if (read_value(&r))
		goto out;
	/* Its copy and hash, for the duplicates: only once it is read, so
	 * that a member cut short leaves the stream as it was. */
	memcpy(s->key_at, key, len + 1);
	struct perun_jv copy = { PERUN_JV_STRING | (uint32_t)len << 3, 1, { .s = s->key_at } };
	s->key_at += len + 1;
	struct key_list keys = { s->key_hashes, s->members, s->key_hashes_alloc };
	if (json_tape_push(&s->keys, copy) < 0 || key_list_add(&keys, &s->keys, s->keys.n - 1))
		goto out;
	s->key_hashes = keys.keys;
	s->key_hashes_alloc = keys.alloc;
	s->members++;
	rc = 1;
out:
	s->p = (char *)r.p;
	s->c_locale = r.c_locale;
	*strings = r.strings;
	return rc;
}

void json_object_stream_close(struct json_object_stream *s)
{
	if (s->c_locale)
		freelocale(s->c_locale);
	json_room_free(s->key_text, s->key_text_len);
	json_tape_release(&s->keys);
	free(s->key_hashes);
	memset(s, 0, sizeof(*s));
}

/* ---- from the tape to jansson ------------------------------------------- */

/* Python's non-finite numbers, as the marker strings of profile.c. */
static json_t *non_finite(double d)
{
	const char *word = isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
	char marker[16] = { '\0' };
	size_t len = strlen(word);
	memcpy(marker + 1, word, len);
	return json_stringn_nocheck(marker, len + 1);
}

json_t *perun_jv_to_json(const struct perun_jv *v)
{
	size_t i;
	const struct perun_jv *k, *e;
	json_t *c;
	switch (perun_jv_type(v)) {
	case PERUN_JV_NULL: return json_null();
	case PERUN_JV_FALSE: return json_false();
	case PERUN_JV_TRUE: return json_true();
	case PERUN_JV_INTEGER: return json_integer((json_int_t)v->u.i);
	case PERUN_JV_REAL: return isfinite(v->u.d) ? json_real(v->u.d) : non_finite(v->u.d);
	case PERUN_JV_STRING: return json_stringn_nocheck(v->u.s, perun_jv_len(v));
	case PERUN_JV_ARRAY:
		if (!(c = json_array()))
			return NULL;
		perun_jv_array_foreach(
			v, i, e) if (json_array_append_new(c, perun_jv_to_json(e))) goto fail;
		return c;
	case PERUN_JV_OBJECT:
		if (!(c = json_object()))
			return NULL;
		/* The tape has no duplicate keys: no lookups needed. */
		perun_jv_object_foreach(v, i, k, e)
		{
			json_t *m = perun_jv_to_json(e);
			if (!m || json_object_setn_new_nocheck(c, k->u.s, perun_jv_len(k), m))
				goto fail;
		}
		return c;
	}
	return NULL;
fail:
	json_decref(c);
	return NULL;
}
