/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The mutation rules.  The text rules work on one random line (lines end
 * at '\n'), as upstream's do; words are runs of non-blank characters.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include <perun/array.h>
#include <perun/error.h>
#include <perun/strbuf.h>

#include "rules.h"

uint64_t mut_rng_next(struct mut_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t mut_rng_range(struct mut_rng *r, size_t lo, size_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + (size_t)(mut_rng_next(r) % (uint64_t)(hi - lo + 1));
}

double mut_rng_unit(struct mut_rng *r)
{
	return (double)(mut_rng_next(r) >> 11) / (double)(1ull << 53);
}

void mut_grow(void **items, size_t *cap, size_t need, size_t size)
{
	if (perun_array_grow(items, cap, need, size)) {
		fputs("perun fuzz: out of memory\n", stderr);
		abort(); /* a mutant the size of memory: nothing sensible to do */
	}
}

static void buf_reserve(struct mut_buf *b, size_t need)
{
	mut_grow((void **)&b->data, &b->alloc, need + 1, 1);
}

void mut_buf_set(struct mut_buf *b, const void *data, size_t len)
{
	buf_reserve(b, len);
	if (len)
		memcpy(b->data, data, len);
	b->len = len;
	b->data[len] = 0;
}

void mut_buf_release(struct mut_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void mut_buf_splice(struct mut_buf *b, size_t at, size_t del, const void *ins, size_t ins_len)
{
	if (at > b->len)
		at = b->len;
	if (del > b->len - at)
		del = b->len - at;
	buf_reserve(b, b->len - del + ins_len);
	memmove(b->data + at + ins_len, b->data + at + del, b->len - at - del);
	if (ins_len)
		memcpy(b->data + at, ins, ins_len);
	b->len = b->len - del + ins_len;
	b->data[b->len] = 0;
}

/* ---- lines and words ---------------------------------------------------- */

struct span {
	size_t start, end; /* [start, end), without the '\n' */
};

static size_t count_lines(const struct mut_buf *b)
{
	size_t n = 1;
	for (size_t i = 0; i < b->len; i++)
		if (b->data[i] == '\n' && i + 1 < b->len)
			n++;
	return n;
}

static struct span nth_line(const struct mut_buf *b, size_t k)
{
	size_t i = 0;
	while (k && i < b->len) {
		if (b->data[i++] == '\n')
			k--;
	}
	struct span s = { i, i };
	while (s.end < b->len && b->data[s.end] != '\n')
		s.end++;
	return s;
}

static struct span random_line(const struct mut_buf *b, struct mut_rng *r)
{
	return nth_line(b, mut_rng_range(r, 0, count_lines(b) - 1));
}

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

struct words {
	struct span *w;
	size_t n;
};

static struct words line_words(const struct mut_buf *b, struct span line)
{
	struct words ws = { NULL, 0 };
	size_t cap = 0;
	for (size_t i = line.start; i < line.end;) {
		while (i < line.end && is_blank(b->data[i]))
			i++;
		if (i >= line.end)
			break;
		size_t s = i;
		while (i < line.end && !is_blank(b->data[i]))
			i++;
		mut_grow((void **)&ws.w, &cap, ws.n + 1, sizeof(*ws.w));
		ws.w[ws.n++] = (struct span){ s, i };
	}
	return ws;
}

/* A random word of a random line; 0 when the line has none.  ws, when
 * given, keeps the words of the line (caller frees ws->w). */
static int random_word(const struct mut_buf *b, struct mut_rng *r, struct span *line,
		       struct span *word, struct words *ws)
{
	*line = random_line(b, r);
	struct words w = line_words(b, *line);
	if (w.n)
		*word = w.w[mut_rng_range(r, 0, w.n - 1)];
	int found = w.n > 0;
	if (ws)
		*ws = w;
	else
		free(w.w);
	return found;
}

/* ---- text rules --------------------------------------------------------- */

/* T.1 double the size of a line (gedit and long lines) */
static int t_double_line(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	if (l.end == l.start)
		return 0;
	size_t n = l.end - l.start;
	unsigned char *copy = malloc(n);
	memcpy(copy, b->data + l.start, n);
	mut_buf_splice(b, l.end, 0, copy, n);
	free(copy);
	return 1;
}

/* T.2 duplicate a line (as the next line) */
static int t_dup_line(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	size_t n = l.end - l.start;
	unsigned char *copy = malloc(n + 1);
	copy[0] = '\n';
	memcpy(copy + 1, b->data + l.start, n);
	mut_buf_splice(b, l.end, 0, copy, n + 1);
	free(copy);
	return 1;
}

/* T.3 split a line with a newline */
static int t_split_line(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	mut_buf_splice(b, mut_rng_range(r, l.start, l.end), 0, "\n", 1);
	return 1;
}

/* T.4 change a random character to any byte */
static int t_change_char(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	if (!b->len)
		return 0;
	size_t at = mut_rng_range(r, 0, b->len - 1);
	unsigned char old = b->data[at];
	b->data[at] = (unsigned char)mut_rng_range(r, 0, 255);
	return b->data[at] != old;
}

/* T.5 append a random word of a line to it 100 times (hash tables);
 * upstream indexed character 100 of the word and so mostly appended
 * nothing. */
static int t_repeat_word(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l, w;
	if (!random_word(b, r, &l, &w, NULL))
		return 0;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	for (int i = 0; i < 100; i++) {
		perun_strbuf_addch(&sb, ' ');
		perun_strbuf_add(&sb, (const char *)b->data + w.start, w.end - w.start);
	}
	mut_buf_splice(b, l.end, 0, sb.buf, sb.len);
	perun_strbuf_release(&sb);
	return 1;
}

/* T.16 append 100 variants of a random word of a line to it, each with
 * one character changed to another printable one (hash flooding: keys
 * alike but for a character collide in a hash that reads only part of
 * the key, as Java 1.1's String.hashCode did; they are distinct keys,
 * so a table keeps each) */
static int t_word_variants(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l, w;
	if (!random_word(b, r, &l, &w, NULL))
		return 0;
	size_t n = w.end - w.start;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	for (int i = 0; i < 100; i++) {
		perun_strbuf_addch(&sb, ' ');
		size_t at = sb.len + mut_rng_range(r, 0, n - 1);
		perun_strbuf_add(&sb, (const char *)b->data + w.start, n);
		/* one of the other 93 printable non-blank characters */
		unsigned char c = (unsigned char)sb.buf[at];
		unsigned off = (unsigned)mut_rng_range(r, 1, 93);
		sb.buf[at] = (char)(c >= 33 && c <= 126 ? 33 + (c - 33 + off) % 94 : 32 + off);
	}
	mut_buf_splice(b, l.end, 0, sb.buf, sb.len);
	perun_strbuf_release(&sb);
	return 1;
}

static int all_numbers(const struct mut_buf *b, const struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++) {
		char tmp[64];
		size_t n = ws->w[i].end - ws->w[i].start;
		if (n >= sizeof(tmp))
			return 0;
		memcpy(tmp, b->data + ws->w[i].start, n);
		tmp[n] = 0;
		char *end;
		strtod(tmp, &end);
		if (*end)
			return 0;
	}
	return 1;
}

struct sort_ctx {
	const unsigned char *data;
	int numeric, reverse;
};
static struct sort_ctx sort_by; /* qsort has no context argument in C11 */

static int word_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c;
	if (sort_by.numeric) {
		double dx = strtod((const char *)sort_by.data + x->start, NULL);
		double dy = strtod((const char *)sort_by.data + y->start, NULL);
		c = (dx > dy) - (dx < dy);
	} else {
		size_t nx = x->end - x->start, ny = y->end - y->start;
		c = memcmp(sort_by.data + x->start, sort_by.data + y->start, nx < ny ? nx : ny);
		if (!c)
			c = (nx > ny) - (nx < ny);
	}
	return sort_by.reverse ? -c : c;
}

static int sort_words(struct mut_buf *b, struct mut_rng *r, int reverse)
{
	struct span l = random_line(b, r);
	struct words ws = line_words(b, l);
	if (ws.n < 2) {
		free(ws.w);
		return 0;
	}
	sort_by = (struct sort_ctx){ b->data, all_numbers(b, &ws), reverse };
	qsort(ws.w, ws.n, sizeof(*ws.w), word_cmp);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	for (size_t i = 0; i < ws.n; i++) {
		if (i)
			perun_strbuf_addch(&sb, ' ');
		perun_strbuf_add(&sb, (const char *)b->data + ws.w[i].start,
				 ws.w[i].end - ws.w[i].start);
	}
	free(ws.w);
	int changed = sb.len != l.end - l.start || memcmp(sb.buf, b->data + l.start, sb.len);
	mut_buf_splice(b, l.start, l.end - l.start, sb.buf, sb.len);
	perun_strbuf_release(&sb);
	return changed;
}

/* T.6 sort the words (numbers numerically) of a line */
static int t_sort_words(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	return sort_words(b, r, 0);
}

/* T.7 sort them in reverse */
static int t_rsort_words(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	return sort_words(b, r, 1);
}

static void insert_spaces(struct mut_buf *b, size_t at, size_t n)
{
	char *sp = malloc(n);
	memset(sp, ' ', n);
	mut_buf_splice(b, at, 0, sp, n);
	free(sp);
}

/* T.8 append 100-1000 spaces to a line */
static int t_append_spaces(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	insert_spaces(b, l.end, mut_rng_range(r, 100, 1000));
	return 1;
}

/* T.9 prepend 100-1000 spaces to a line (the Stack Overflow outage) */
static int t_prepend_spaces(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	insert_spaces(b, l.start, mut_rng_range(r, 100, 1000));
	return 1;
}

/* T.10 insert 100-1000 spaces somewhere in a line */
static int t_insert_spaces(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	size_t at = mut_rng_range(r, l.start, l.end);
	insert_spaces(b, at, mut_rng_range(r, 100, 1000));
	return 1;
}

/* T.11 replace up to 100 single spaces of a line by 10 spaces each */
static int t_widen_spaces(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	int done = 0;
	for (size_t i = l.start; i < l.end && done < 100; i++)
		if (b->data[i] == ' ') {
			mut_buf_splice(b, i, 1, "          ", 10);
			i += 9;
			l.end += 9;
			done++;
		}
	return done > 0;
}

/* T.12 remove all whitespace of a line */
static int t_strip_line(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l = random_line(b, r);
	size_t o = l.start;
	for (size_t i = l.start; i < l.end; i++)
		if (!is_blank(b->data[i]))
			b->data[o++] = b->data[i];
	if (o == l.end)
		return 0;
	mut_buf_splice(b, o, l.end - o, NULL, 0);
	return 1;
}

/* T.13 delete a line (with its newline) */
static int t_delete_line(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	if (!b->len)
		return 0;
	struct span l = random_line(b, r);
	size_t end = l.end < b->len ? l.end + 1 : l.end;
	mut_buf_splice(b, l.start, end - l.start, NULL, 0);
	return 1;
}

/* T.14 delete every occurrence of a random word of a line from it */
static int t_delete_word(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	struct span l, pick;
	struct words ws;
	if (!random_word(b, r, &l, &pick, &ws)) {
		free(ws.w);
		return 0;
	}
	size_t plen = pick.end - pick.start;
	/* From the last word back, so earlier offsets stay valid; the word
	 * is compared before anything before it moves. */
	unsigned char *word = malloc(plen);
	memcpy(word, b->data + pick.start, plen);
	for (size_t i = ws.n; i-- > 0;) {
		struct span w = ws.w[i];
		if (w.end - w.start != plen || memcmp(b->data + w.start, word, plen))
			continue;
		size_t s = w.start, e = w.end;
		if (e < l.end && is_blank(b->data[e]))
			e++; /* with one blank after it */
		else if (s > l.start && is_blank(b->data[s - 1]))
			s--;
		mut_buf_splice(b, s, e - s, NULL, 0);
	}
	free(word);
	free(ws.w);
	return 1;
}

/* T.15 delete a random character */
static int t_delete_char(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	if (!b->len)
		return 0;
	mut_buf_splice(b, mut_rng_range(r, 0, b->len - 1), 1, NULL, 0);
	return 1;
}

const struct mut_rule mut_text_rules[] = {
	{ "T.1", "double the size of a line", t_double_line, { 0 }, NULL, NULL },
	{ "T.2", "duplicate a line", t_dup_line, { 0 }, NULL, NULL },
	{ "T.3", "split a line with a newline", t_split_line, { 0 }, NULL, NULL },
	{ "T.4", "change a character to a random byte", t_change_char, { 0 }, NULL, NULL },
	{ "T.5", "append a word of a line 100 times", t_repeat_word, { 0 }, NULL, NULL },
	{ "T.6", "sort the words of a line", t_sort_words, { 0 }, NULL, NULL },
	{ "T.7", "sort the words of a line in reverse", t_rsort_words, { 0 }, NULL, NULL },
	{ "T.8", "append 100-1000 spaces to a line", t_append_spaces, { 0 }, NULL, NULL },
	{ "T.9", "prepend 100-1000 spaces to a line", t_prepend_spaces, { 0 }, NULL, NULL },
	{ "T.10", "insert 100-1000 spaces into a line", t_insert_spaces, { 0 }, NULL, NULL },
	{ "T.11", "widen up to 100 spaces of a line tenfold", t_widen_spaces, { 0 }, NULL, NULL },
	{ "T.12", "remove the whitespace of a line", t_strip_line, { 0 }, NULL, NULL },
	{ "T.13", "delete a line", t_delete_line, { 0 }, NULL, NULL },
	{ "T.14",
	  "delete a word of a line wherever it is on it",
	  t_delete_word,
	  { 0 },
	  NULL,
	  NULL },
	{ "T.15", "delete a character", t_delete_char, { 0 }, NULL, NULL },
	{ "T.16",
	  "append 100 variants of a word of a line, one character changed",
	  t_word_variants,
	  { 0 },
	  NULL,
	  NULL },
};
const size_t mut_text_nrules = sizeof(mut_text_rules) / sizeof(mut_text_rules[0]);

/* ---- binary rules ------------------------------------------------------- */

/* B.1 remove a zero byte */
static int b_remove_zero(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++)
		n += !b->data[i];
	if (!n)
		return 0;
	size_t k = mut_rng_range(r, 0, n - 1);
	for (size_t i = 0; i < b->len; i++)
		if (!b->data[i] && !k--) {
			mut_buf_splice(b, i, 1, NULL, 0);
			break;
		}
	return 1;
}

/* B.2 insert a zero byte */
static int b_insert_zero(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	mut_buf_splice(b, mut_rng_range(r, 0, b->len), 0, "", 1);
	return 1;
}

/* B.3 insert a random byte */
static int b_insert_byte(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	unsigned char c = (unsigned char)mut_rng_range(r, 0, 255);
	mut_buf_splice(b, mut_rng_range(r, 0, b->len), 0, &c, 1);
	return 1;
}

/* B.4 remove a random byte */
static int b_remove_byte(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	return t_delete_char(rule, b, r);
}

/* B.5 swap two bytes */
static int b_swap_bytes(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	if (b->len < 2)
		return 0;
	size_t i = mut_rng_range(r, 0, b->len - 1), j = mut_rng_range(r, 0, b->len - 1);
	unsigned char t = b->data[i];
	b->data[i] = b->data[j];
	b->data[j] = t;
	return b->data[i] != b->data[j];
}

/* B.6 flip a random bit */
static int b_flip_bit(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	if (!b->len)
		return 0;
	b->data[mut_rng_range(r, 0, b->len - 1)] ^= (unsigned char)(1u << mut_rng_range(r, 0, 7));
	return 1;
}

const struct mut_rule mut_binary_rules[] = {
	{ "B.1", "remove a zero byte", b_remove_zero, { 0 }, NULL, NULL },
	{ "B.2", "insert a zero byte", b_insert_zero, { 0 }, NULL, NULL },
	{ "B.3", "insert a random byte", b_insert_byte, { 0 }, NULL, NULL },
	{ "B.4", "remove a random byte", b_remove_byte, { 0 }, NULL, NULL },
	{ "B.5", "swap two bytes", b_swap_bytes, { 0 }, NULL, NULL },
	{ "B.6", "flip a random bit", b_flip_bit, { 0 }, NULL, NULL },
};
const size_t mut_binary_nrules = sizeof(mut_binary_rules) / sizeof(mut_binary_rules[0]);

/* ---- XML rules ---------------------------------------------------------- */

/* Attributes name="value" (or 'value') inside tags, as spans of the
 * name and of the quoted value. */
struct attr {
	size_t name, name_end, value, value_end; /* value spans the quotes */
};

static size_t find_attrs(const struct mut_buf *b, struct attr *out, size_t max)
{
	size_t n = 0;
	int in_tag = 0;
	for (size_t i = 0; i < b->len && n < max; i++) {
		unsigned char c = b->data[i];
		if (c == '<')
			in_tag = 1;
		else if (c == '>')
			in_tag = 0;
		else if (in_tag && c == '=') {
			size_t ne = i, ns;
			while (ne > 0 && is_blank(b->data[ne - 1]))
				ne--;
			ns = ne;
			while (ns > 0 &&
			       (isalnum(b->data[ns - 1]) || strchr("_:-.", b->data[ns - 1])))
				ns--;
			size_t v = i + 1;
			while (v < b->len && is_blank(b->data[v]))
				v++;
			if (ns == ne || v >= b->len || (b->data[v] != '"' && b->data[v] != '\''))
				continue;
			size_t ve = v + 1;
			while (ve < b->len && b->data[ve] != b->data[v])
				ve++;
			if (ve >= b->len)
				continue;
			out[n++] = (struct attr){ ns, ne, v, ve + 1 };
			i = ve;
		}
	}
	return n;
}

enum attr_cut { CUT_ATTR, CUT_NAME, CUT_VALUE };

static int cut_attr(struct mut_buf *b, struct mut_rng *r, enum attr_cut what)
{
	struct attr a[1024];
	size_t n = find_attrs(b, a, 1024);
	if (!n)
		return 0;
	struct attr x = a[mut_rng_range(r, 0, n - 1)];
	switch (what) {
	case CUT_ATTR: /* with the blank before it */
		if (x.name > 0 && is_blank(b->data[x.name - 1]))
			x.name--;
		mut_buf_splice(b, x.name, x.value_end - x.name, NULL, 0);
		break;
	case CUT_NAME: mut_buf_splice(b, x.name, x.name_end - x.name, NULL, 0); break;
	case CUT_VALUE: /* keeps the quotes: name="" */
		if (x.value_end - x.value <= 2)
			return 0;
		mut_buf_splice(b, x.value + 1, x.value_end - x.value - 2, NULL, 0);
		break;
	}
	return 1;
}

/* D.1 remove an attribute */
static int d_remove_attr(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	return cut_attr(b, r, CUT_ATTR);
}

/* D.2 remove the name of an attribute */
static int d_remove_attr_name(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	return cut_attr(b, r, CUT_NAME);
}

/* D.3 remove the value of an attribute */
static int d_remove_attr_value(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	return cut_attr(b, r, CUT_VALUE);
}

/* D.4 remove a tag (<...>) */
static int d_remove_tag(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	(void)rule;
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '<';
	if (!n)
		return 0;
	size_t k = mut_rng_range(r, 0, n - 1);
	for (size_t i = 0; i < b->len; i++)
		if (b->data[i] == '<' && !k--) {
			size_t e = i;
			while (e < b->len && b->data[e] != '>')
				e++;
			mut_buf_splice(b, i, (e < b->len ? e + 1 : e) - i, NULL, 0);
			break;
		}
	return 1;
}

const struct mut_rule mut_xml_rules[] = {
	{ "D.1", "remove an attribute", d_remove_attr, { 0 }, NULL, NULL },
	{ "D.2", "remove the name of an attribute", d_remove_attr_name, { 0 }, NULL, NULL },
	{ "D.3", "remove the value of an attribute", d_remove_attr_value, { 0 }, NULL, NULL },
	{ "D.4", "remove a tag", d_remove_tag, { 0 }, NULL, NULL },
};
const size_t mut_xml_nrules = sizeof(mut_xml_rules) / sizeof(mut_xml_rules[0]);

/* ---- regex rules -------------------------------------------------------- */

/* R.n replace every match of the rule's pattern (case-insensitive) on a
 * random line by its replacement. */
static int r_regex(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	struct span l = random_line(b, r);
	char *line = strndup((const char *)b->data + l.start, l.end - l.start);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	const char *p = line;
	int hits = 0, flags = 0;
	regmatch_t m;
	while (*p && !regexec(&rule->re, p, 1, &m, flags)) {
		perun_strbuf_add(&sb, p, (size_t)m.rm_so);
		perun_strbuf_addstr(&sb, rule->replacement);
		hits++;
		if (m.rm_eo == m.rm_so) { /* an empty match moves on a character */
			if (!p[m.rm_eo])
				break;
			perun_strbuf_addch(&sb, p[m.rm_eo]);
			p += m.rm_eo + 1;
		} else
			p += m.rm_eo;
		flags = REG_NOTBOL;
	}
	if (hits) {
		perun_strbuf_addstr(&sb, p);
		mut_buf_splice(b, l.start, l.end - l.start, sb.buf, sb.len);
	}
	perun_strbuf_release(&sb);
	free(line);
	return hits > 0;
}

static int yaml_scalar(yaml_parser_t *p, yaml_event_t *ev, char **out)
{
	if (!yaml_parser_parse(p, ev))
		return -1;
	if (ev->type != YAML_SCALAR_EVENT) {
		int end = ev->type == YAML_MAPPING_END_EVENT;
		yaml_event_delete(ev);
		return end ? 1 : -1;
	}
	*out = strdup((const char *)ev->data.scalar.value);
	yaml_event_delete(ev);
	return 0;
}

static int read_regex_rules(struct mut_ruleset *set, const char *path, struct perun_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return perun_error_set(err, PERUN_EINVAL, "cannot read regex rules '%s': %m", path);
	yaml_parser_t p;
	yaml_event_t ev;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	int rc = 0, state = 0;
	/* stream start, document start, mapping start */
	while (state < 3) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = perun_error_set(err, PERUN_EINVAL, "regex rules '%s': line %zu: %s",
					     path, p.problem_mark.line + 1,
					     p.problem ? p.problem : "bad YAML");
			goto out;
		}
		yaml_event_type_t t = ev.type;
		yaml_event_delete(&ev);
		if ((state == 0 && t != YAML_STREAM_START_EVENT) ||
		    (state == 1 && t != YAML_DOCUMENT_START_EVENT) ||
		    (state == 2 && t != YAML_MAPPING_START_EVENT)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "regex rules '%s' are not a mapping of pattern: "
					     "replacement",
					     path);
			goto out;
		}
		state++;
	}
	for (;;) {
		char *pat = NULL, *rep = NULL;
		int k = yaml_scalar(&p, &ev, &pat);
		if (k == 1)
			break;
		if (k < 0 || yaml_scalar(&p, &ev, &rep)) {
			free(pat);
			free(rep);
			rc = perun_error_set(err, PERUN_EINVAL,
					     "regex rules '%s': line %zu: expected "
					     "'pattern: replacement'",
					     path, p.mark.line + 1);
			goto out;
		}
		struct mut_rule *rule = &set->rules[set->nregex];
		memset(rule, 0, sizeof(*rule));
		int e = regcomp(&rule->re, pat, REG_EXTENDED | REG_ICASE);
		if (e) {
			char msg[256];
			regerror(e, &rule->re, msg, sizeof(msg));
			rc = perun_error_set(err, PERUN_EINVAL,
					     "regex rules '%s': pattern '%s': %s", path, pat, msg);
			free(pat);
			free(rep);
			goto out;
		}
		char id[16];
		snprintf(id, sizeof(id), "R.%zu", set->nregex + 1);
		rule->id = strdup(id);
		rule->desc = "replace a regex match";
		rule->fn = r_regex;
		rule->pattern = pat;
		rule->replacement = rep;
		set->nregex++;
		if (set->nregex == 256) {
			rc = perun_error_set(err, PERUN_EINVAL, "regex rules '%s': more than 255",
					     path);
			goto out;
		}
	}
	if (!set->nregex)
		rc = perun_error_set(err, PERUN_EINVAL, "regex rules '%s' hold no rule", path);
out:
	yaml_parser_delete(&p);
	fclose(f);
	return rc;
}

/* ---- sets --------------------------------------------------------------- */

enum mut_file_type mut_file_type(const char *path, const unsigned char *data, size_t len)
{
	size_t bad = 0;
	for (size_t i = 0; i < len; i++)
		if (!data[i] || (data[i] < 32 && !isspace(data[i])))
			bad++;
	if (bad * 100 > len) /* more than 1% control bytes */
		return MUT_FILE_BINARY;
	const char *dot = strrchr(path, '.');
	static const char *const xml[] = { ".xml", ".html", ".htm", ".svg", ".xhtml", ".xul" };
	for (size_t i = 0; dot && i < sizeof(xml) / sizeof(xml[0]); i++)
		if (!strcasecmp(dot, xml[i]))
			return MUT_FILE_XML;
	size_t i = 0;
	while (i < len && isspace(data[i]))
		i++;
	if (i + 5 <= len && (!strncmp((const char *)data + i, "<?xml", 5) ||
			     !strncasecmp((const char *)data + i, "<html", 5) ||
			     !strncasecmp((const char *)data + i, "<!doc", 5)))
		return MUT_FILE_XML;
	return MUT_FILE_TEXT;
}

int mut_ruleset_init(struct mut_ruleset *set, enum mut_file_type type, const char *regex_yaml,
		     struct perun_error *err)
{
	memset(set, 0, sizeof(*set));
	size_t cap = 256 + mut_text_nrules + mut_xml_nrules + mut_binary_nrules;
	set->rules = calloc(cap, sizeof(*set->rules));
	set->hits = calloc(cap, sizeof(*set->hits));
	if (!set->rules || !set->hits) {
		mut_ruleset_release(set);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	if (regex_yaml && read_regex_rules(set, regex_yaml, err)) {
		mut_ruleset_release(set);
		return -err->code;
	}
	set->n = set->nregex;
	const struct mut_rule *add[2] = { NULL, NULL };
	size_t nadd[2] = { 0, 0 };
	if (type == MUT_FILE_BINARY)
		add[0] = mut_binary_rules, nadd[0] = mut_binary_nrules;
	else {
		add[0] = mut_text_rules, nadd[0] = mut_text_nrules;
		if (type == MUT_FILE_XML)
			add[1] = mut_xml_rules, nadd[1] = mut_xml_nrules;
	}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < nadd[k]; i++)
			set->rules[set->n++] = add[k][i];
	return 0;
}

void mut_ruleset_release(struct mut_ruleset *set)
{
	for (size_t i = 0; set->rules && i < set->nregex; i++) {
		regfree(&set->rules[i].re);
		free((char *)set->rules[i].id);
		free(set->rules[i].pattern);
		free(set->rules[i].replacement);
	}
	free(set->rules);
	free(set->hits);
	memset(set, 0, sizeof(*set));
}

int mut_rule_apply(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r)
{
	int changed = 0;
	size_t times = mut_rng_range(r, 1, 10);
	for (size_t i = 0; i < times; i++)
		changed |= rule->fn(rule, b, r);
	return changed;
}
