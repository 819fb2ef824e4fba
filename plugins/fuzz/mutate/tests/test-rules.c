/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Each mutation rule changes its input as it says: run once on a known
 * input under many seeds, its result must have the rule's shape (and
 * differ from the input when the rule could apply).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perun/error.h>

#include "../rules.h"
#include "tap.h"

#define SEEDS 200

static const char *text = "the quick brown fox\n"
			  "jumps over the lazy dog the end\n"
			  "3 10 2 7\n"
			  "a b  c\n";

static const struct mut_rule *find(const struct mut_rule *set, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(set[i].id, id))
			return &set[i];
	return NULL;
}

/* Lines of s (without '\n') into a NULL-terminated array. */
static char **lines_of(const char *s, size_t len, size_t *n)
{
	char **l = calloc(len + 2, sizeof(*l));
	*n = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++)
		if (i == len || s[i] == '\n') {
			if (i == len && start == len && *n)
				break;
			l[(*n)++] = strndup(s + start, i - start);
			start = i + 1;
		}
	return l;
}

static void free_lines(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* Run rule id once per seed; check(before lines, after) must hold. */
typedef int (*check_fn)(char **in, size_t nin, const struct mut_buf *out, char **outl, size_t nout);

static void each_seed(const struct mut_rule *set, size_t nset, const char *id, const char *input,
		      check_fn check, const char *what)
{
	const struct mut_rule *rule = find(set, nset, id);
	if (!tap_ok(rule != NULL, "%s exists", id))
		return;
	size_t nin;
	char **in = lines_of(input, strlen(input), &nin);
	int ok = 1, changed = 0;
	for (uint64_t s = 1; s <= SEEDS && ok; s++) {
		struct mut_rng r = { s };
		struct mut_buf b = { 0 };
		mut_buf_set(&b, input, strlen(input));
		int c = rule->fn(rule, &b, &r);
		size_t nout;
		char **outl = lines_of((const char *)b.data, b.len, &nout);
		if (c && (b.len != strlen(input) || memcmp(b.data, input, b.len)))
			changed++;
		if (!check(in, nin, &b, outl, nout)) {
			ok = 0;
			printf("# seed %llu: got '%.*s'\n", (unsigned long long)s, (int)b.len,
			       b.data);
		}
		free_lines(outl, nout);
		mut_buf_release(&b);
	}
	tap_ok(ok, "%s %s", id, what);
	tap_ok(changed > SEEDS / 2, "%s changes its input (%d of %d)", id, changed, SEEDS);
	free_lines(in, nin);
}

/* The index of the one line that differs when line counts are equal, or
 * -1 (none) / -2 (several). */
static long one_changed(char **in, size_t nin, char **out, size_t nout)
{
	if (nin != nout)
		return -2;
	long k = -1;
	for (size_t i = 0; i < nin; i++)
		if (strcmp(in[i], out[i])) {
			if (k >= 0)
				return -2;
			k = (long)i;
		}
	return k;
}

static int c_double(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	long k = one_changed(in, nin, o, no);
	if (k < 0)
		return 0;
	size_t n = strlen(in[k]);
	return strlen(o[k]) == 2 * n && !strncmp(o[k], in[k], n) && !strcmp(o[k] + n, in[k]);
}

static int c_dup(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	if (no != nin + 1)
		return 0;
	for (size_t i = 0; i < nin; i++) /* o is in with o[i] repeated */
		if (strcmp(in[i], o[i]))
			return 0 == 1;
		else if (!strcmp(o[i], o[i + 1])) {
			for (size_t j = i + 1; j < nin; j++)
				if (strcmp(in[j], o[j + 1]))
					return 0;
			return 1;
		}
	return 0;
}

static int c_split(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	if (no != nin + 1)
		return 0;
	for (size_t i = 0, j = 0; i < nin; i++, j++)
		if (strcmp(in[i], o[j])) {
			char joined[256];
			snprintf(joined, sizeof(joined), "%s%s", o[j], o[j + 1]);
			if (strcmp(joined, in[i]))
				return 0;
			j++;
		}
	return 1;
}

static int c_change_char(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)in, (void)nin, (void)o, (void)no;
	size_t diff = 0;
	for (size_t i = 0; i < b->len; i++)
		diff += b->data[i] != (unsigned char)text[i];
	return b->len == strlen(text) && diff <= 1;
}

/* The line the rule changed, when it is the input line followed by 100
 * blank-led words of one length: that tail, *line the input line and
 * *wl the length; NULL otherwise. */
static const char *hundred_words(char **in, size_t nin, char **o, size_t no, const char **line,
				 size_t *wl)
{
	long k = one_changed(in, nin, o, no);
	if (k < 0 || strncmp(o[k], in[k], strlen(in[k])))
		return NULL;
	const char *tail = o[k] + strlen(in[k]);
	const char *sp = strchr(tail + 1, ' ');
	*wl = sp ? (size_t)(sp - tail - 1) : strlen(tail + 1);
	*line = in[k];
	return *wl && strlen(tail) == 100 * (*wl + 1) ? tail : NULL;
}

static int c_repeat_word(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	const char *line;
	size_t wl;
	/* the tail is " w" 100 times for one word w of the line */
	const char *tail = hundred_words(in, nin, o, no, &line, &wl);
	if (!tail)
		return 0;
	for (int i = 0; i < 100; i++)
		if (tail[i * (wl + 1)] != ' ' || strncmp(tail + i * (wl + 1) + 1, tail + 1, wl))
			return 0;
	char word[64];
	snprintf(word, sizeof(word), "%.*s", (int)wl, tail + 1);
	return strstr(line, word) != NULL;
}

/* one byte of a and b (n bytes each) differs, and b has a printable,
 * non-blank byte there */
static int one_byte_apart(const char *a, const char *b, size_t n)
{
	size_t diff = 0;
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i]) {
			diff++;
			if ((unsigned char)b[i] < 33 || (unsigned char)b[i] > 126)
				return 0;
		}
	return diff == 1;
}

static int c_word_variants(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	const char *line;
	size_t wl;
	/* the tail is " v" 100 times, each v a word of the line with one
	 * character changed: the same word each time */
	const char *tail = hundred_words(in, nin, o, no, &line, &wl);
	if (!tail)
		return 0;
	/* a one-character word has many candidates: any will do */
	for (const char *w = line; *w; w++) {
		if ((w != line && w[-1] != ' ') || strnlen(w, wl) != wl || (w[wl] != ' ' && w[wl]))
			continue;
		int ok = 1, distinct = 0;
		for (int i = 0; i < 100 && ok; i++) {
			const char *v = tail + i * (wl + 1);
			ok = *v == ' ' && one_byte_apart(w, v + 1, wl);
			distinct += i && strncmp(v + 1, tail + 1, wl);
		}
		if (ok && distinct)
			return 1;
	}
	return 0;
}

static int sorted_line(const char *line, int reverse, int numeric)
{
	char *copy = strdup(line), *save, *prev = NULL;
	int ok = 1;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (prev) {
			int c = numeric ? (atof(prev) > atof(w)) - (atof(prev) < atof(w))
					: strcmp(prev, w);
			if (reverse ? c < 0 : c > 0)
				ok = 0;
		}
		prev = w;
	}
	free(copy);
	return ok;
}

static int c_sort(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no, int rev)
{
	(void)b;
	long k = one_changed(in, nin, o, no);
	if (k == -1)
		return 1; /* already in order */
	return k >= 0 && sorted_line(o[k], rev, k == 2) && strlen(o[k]) <= strlen(in[k]);
}

static int c_sort0(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	return c_sort(in, nin, b, o, no, 0);
}

static int c_sort1(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	return c_sort(in, nin, b, o, no, 1);
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

/* where: 0 appended, 1 prepended, 2 anywhere */
static int c_spaces(char **in, size_t nin, char **o, size_t no, int where)
{
	long k = one_changed(in, nin, o, no);
	if (k < 0)
		return 0;
	size_t added = strlen(o[k]) - strlen(in[k]);
	if (added < 100 || added > 1000 || count_char(o[k], ' ') != count_char(in[k], ' ') + added)
		return 0;
	if (where == 0)
		return !strncmp(o[k], in[k], strlen(in[k]));
	if (where == 1)
		return !strcmp(o[k] + added, in[k]);
	/* removing one run of added spaces gives the line back */
	for (size_t i = 0; i + added <= strlen(o[k]); i++) {
		char tmp[2048];
		snprintf(tmp, sizeof(tmp), "%.*s%s", (int)i, o[k], o[k] + i + added);
		if (!strcmp(tmp, in[k]) && strspn(o[k] + i, " ") >= added)
			return 1;
	}
	return 0;
}

static int c_append_sp(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	return c_spaces(in, nin, o, no, 0);
}

static int c_prepend_sp(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	return c_spaces(in, nin, o, no, 1);
}

static int c_insert_sp(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	return c_spaces(in, nin, o, no, 2);
}

static int c_widen(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	long k = one_changed(in, nin, o, no);
	if (k < 0)
		return 0;
	/* every space of the line became ten (lines here have < 100) */
	char tmp[4096];
	size_t t = 0;
	for (const char *p = in[k]; *p; p++)
		if (*p == ' ')
			for (int i = 0; i < 10; i++)
				tmp[t++] = ' ';
		else
			tmp[t++] = *p;
	tmp[t] = 0;
	return !strcmp(tmp, o[k]);
}

static int c_strip(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	long k = one_changed(in, nin, o, no);
	if (k < 0)
		return 0;
	char tmp[256] = "";
	size_t t = 0;
	for (const char *p = in[k]; *p; p++)
		if (*p != ' ')
			tmp[t++] = *p;
	tmp[t] = 0;
	return !strcmp(tmp, o[k]);
}

static int c_delete_line(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	if (no != nin - 1)
		return 0;
	size_t skipped = 0;
	for (size_t i = 0, j = 0; i < nin; i++)
		if (j < no && !strcmp(in[i], o[j]))
			j++;
		else
			skipped++;
	return skipped == 1;
}

static int c_delete_word(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)b;
	long k = one_changed(in, nin, o, no);
	if (k < 0)
		return 0;
	/* some word w of the line is gone everywhere, the rest stays in order */
	char *copy = strdup(in[k]), *save;
	int ok = 0;
	for (char *w = strtok_r(copy, " ", &save); w && !ok; w = strtok_r(NULL, " ", &save)) {
		char expect[256] = "", *c2 = strdup(in[k]), *s2;
		for (char *x = strtok_r(c2, " ", &s2); x; x = strtok_r(NULL, " ", &s2))
			if (strcmp(x, w)) {
				if (*expect)
					strcat(expect, " ");
				strcat(expect, x);
			}
		/* compare word sequences, ignoring blank runs */
		char got[256] = "", *c3 = strdup(o[k]), *s3;
		for (char *x = strtok_r(c3, " ", &s3); x; x = strtok_r(NULL, " ", &s3)) {
			if (*got)
				strcat(got, " ");
			strcat(got, x);
		}
		ok = !strcmp(expect, got);
		free(c2);
		free(c3);
	}
	free(copy);
	return ok;
}

static int c_delete_char(char **in, size_t nin, const struct mut_buf *b, char **o, size_t no)
{
	(void)in, (void)nin, (void)o, (void)no;
	if (b->len != strlen(text) - 1)
		return 0;
	for (size_t i = 0; i <= b->len; i++) /* text without its byte i */
		if (!memcmp(b->data, text, i) && !memcmp(b->data + i, text + i + 1, b->len - i))
			return 1;
	return 0;
}

/* ---- binary ------------------------------------------------------------- */

static const unsigned char bin[] = { 1, 0, 2, 0, 3, 4, 0, 5, 6, 7 };

static void binary_rule(const char *id, int dlen, const char *what,
			int (*check)(const struct mut_buf *b))
{
	const struct mut_rule *rule = find(mut_binary_rules, mut_binary_nrules, id);
	if (!tap_ok(rule != NULL, "%s exists", id))
		return;
	int ok = 1, changed = 0;
	for (uint64_t s = 1; s <= SEEDS; s++) {
		struct mut_rng r = { s };
		struct mut_buf b = { 0 };
		mut_buf_set(&b, bin, sizeof(bin));
		rule->fn(rule, &b, &r);
		changed += b.len != sizeof(bin) || memcmp(b.data, bin, b.len);
		if ((int)b.len - (int)sizeof(bin) != dlen || !check(&b))
			ok = 0;
		mut_buf_release(&b);
	}
	tap_ok(ok, "%s %s", id, what);
	tap_ok(changed > SEEDS / 2, "%s changes its input (%d of %d)", id, changed, SEEDS);
}

/* b is bin with one byte removed that satisfies pick (or any). */
static int removed_one(const struct mut_buf *b, int zero_only)
{
	for (size_t i = 0; i < sizeof(bin); i++)
		if ((!zero_only || !bin[i]) && !memcmp(b->data, bin, i) &&
		    !memcmp(b->data + i, bin + i + 1, sizeof(bin) - i - 1))
			return 1;
	return 0;
}

static int inserted_one(const struct mut_buf *b, int zero_only)
{
	for (size_t i = 0; i <= sizeof(bin); i++)
		if ((!zero_only || !b->data[i]) && !memcmp(b->data, bin, i) &&
		    !memcmp(b->data + i + 1, bin + i, sizeof(bin) - i))
			return 1;
	return 0;
}

static int c_b1(const struct mut_buf *b)
{
	return removed_one(b, 1);
}
static int c_b2(const struct mut_buf *b)
{
	return inserted_one(b, 1);
}
static int c_b3(const struct mut_buf *b)
{
	return inserted_one(b, 0);
}
static int c_b4(const struct mut_buf *b)
{
	return removed_one(b, 0);
}
static int c_b5(const struct mut_buf *b)
{
	size_t d[3], n = 0;
	for (size_t i = 0; i < sizeof(bin); i++)
		if (b->data[i] != bin[i] && n < 3)
			d[n++] = i;
	return n == 0 || (n == 2 && b->data[d[0]] == bin[d[1]] && b->data[d[1]] == bin[d[0]]);
}
static int c_b6(const struct mut_buf *b)
{
	int bits = 0;
	for (size_t i = 0; i < sizeof(bin); i++)
		bits += __builtin_popcount(b->data[i] ^ bin[i]);
	return bits == 1;
}

/* ---- XML ---------------------------------------------------------------- */

static const char *xml = "<a href=\"x.html\" id=\"top\"><b class='c'>t</b></a>";

static void xml_rule(const char *id, const char *const *allowed, const char *what)
{
	const struct mut_rule *rule = find(mut_xml_rules, mut_xml_nrules, id);
	if (!tap_ok(rule != NULL, "%s exists", id))
		return;
	int ok = 1;
	for (uint64_t s = 1; s <= SEEDS; s++) {
		struct mut_rng r = { s };
		struct mut_buf b = { 0 };
		mut_buf_set(&b, xml, strlen(xml));
		rule->fn(rule, &b, &r);
		int hit = 0;
		for (const char *const *a = allowed; *a; a++)
			hit |= b.len == strlen(*a) && !memcmp(b.data, *a, b.len);
		if (!hit) {
			printf("# got %.*s\n", (int)b.len, b.data);
			ok = 0;
		}
		mut_buf_release(&b);
	}
	tap_ok(ok, "%s %s", id, what);
}

int main(void)
{
	const struct mut_rule *T = mut_text_rules;
	size_t nt = mut_text_nrules;
	tap_ok(nt == 16 && mut_binary_nrules == 6 && mut_xml_nrules == 4,
	       "16 text, 6 binary and 4 XML rules");
	each_seed(T, nt, "T.1", text, c_double, "doubles one line");
	each_seed(T, nt, "T.2", text, c_dup, "duplicates one line");
	each_seed(T, nt, "T.3", text, c_split, "splits one line in two");
	each_seed(T, nt, "T.4", text, c_change_char, "changes one byte");
	each_seed(T, nt, "T.5", text, c_repeat_word, "appends a word of the line 100 times");
	each_seed(T, nt, "T.6", text, c_sort0, "sorts one line (numbers numerically)");
	each_seed(T, nt, "T.7", text, c_sort1, "sorts one line in reverse");
	each_seed(T, nt, "T.8", text, c_append_sp, "appends 100-1000 spaces");
	each_seed(T, nt, "T.9", text, c_prepend_sp, "prepends 100-1000 spaces");
	each_seed(T, nt, "T.10", text, c_insert_sp, "inserts 100-1000 spaces");
	each_seed(T, nt, "T.11", text, c_widen, "makes each space of a line ten");
	each_seed(T, nt, "T.12", text, c_strip, "removes the blanks of a line");
	each_seed(T, nt, "T.13", text, c_delete_line, "deletes one line");
	each_seed(T, nt, "T.14", text, c_delete_word, "deletes every copy of a word of a line");
	each_seed(T, nt, "T.15", text, c_delete_char, "deletes one byte");
	each_seed(T, nt, "T.16", text, c_word_variants,
		  "appends 100 variants of a word, one character changed in each");

	binary_rule("B.1", -1, "removes a zero byte", c_b1);
	binary_rule("B.2", 1, "inserts a zero byte", c_b2);
	binary_rule("B.3", 1, "inserts a byte", c_b3);
	binary_rule("B.4", -1, "removes a byte", c_b4);
	binary_rule("B.5", 0, "swaps two bytes", c_b5);
	binary_rule("B.6", 0, "flips one bit", c_b6);

	xml_rule("D.1",
		 (const char *const[]){ "<a id=\"top\"><b class='c'>t</b></a>",
					"<a href=\"x.html\"><b class='c'>t</b></a>",
					"<a href=\"x.html\" id=\"top\"><b>t</b></a>", NULL },
		 "removes an attribute");
	xml_rule("D.2",
		 (const char *const[]){ "<a =\"x.html\" id=\"top\"><b class='c'>t</b></a>",
					"<a href=\"x.html\" =\"top\"><b class='c'>t</b></a>",
					"<a href=\"x.html\" id=\"top\"><b ='c'>t</b></a>", NULL },
		 "removes an attribute's name");
	xml_rule("D.3",
		 (const char *const[]){ "<a href=\"\" id=\"top\"><b class='c'>t</b></a>",
					"<a href=\"x.html\" id=\"\"><b class='c'>t</b></a>",
					"<a href=\"x.html\" id=\"top\"><b class=''>t</b></a>",
					NULL },
		 "removes an attribute's value");
	xml_rule("D.4",
		 (const char *const[]){ "<b class='c'>t</b></a>",
					"<a href=\"x.html\" id=\"top\">t</b></a>",
					"<a href=\"x.html\" id=\"top\"><b class='c'>t</a>",
					"<a href=\"x.html\" id=\"top\"><b class='c'>t</b>", NULL },
		 "removes a tag");

	/* regex rules from YAML */
	char path[] = "/tmp/perun-rules-XXXXXX";
	int fd = mkstemp(path);
	const char *yaml = "\"(ab)+\": abababababab\n\"x+\": \"\"\n";
	tap_ok(write(fd, yaml, strlen(yaml)) == (ssize_t)strlen(yaml), "rules file written");
	close(fd);
	struct mut_ruleset set;
	struct perun_error err = { 0 };
	int rc = mut_ruleset_init(&set, MUT_FILE_TEXT, path, &err);
	tap_ok(!rc && set.nregex == 2 && set.n == 18, "2 regex rules before the 16 text rules");
	if (!rc) {
		struct mut_rng r = { 1 };
		struct mut_buf b = { 0 };
		mut_buf_set(&b, "xx AB yy ab", 11);
		set.rules[0].fn(&set.rules[0], &b, &r);
		tap_is_str((const char *)b.data, "xx abababababab yy abababababab",
			   "R.1 replaces every match, case-insensitively");
		set.rules[1].fn(&set.rules[1], &b, &r);
		tap_is_str((const char *)b.data, " abababababab yy abababababab",
			   "R.2 replaces by the empty string");
		mut_buf_release(&b);
		mut_ruleset_release(&set);
	}
	FILE *f = fopen(path, "w");
	fputs("- not\n- a mapping\n", f);
	fclose(f);
	rc = mut_ruleset_init(&set, MUT_FILE_TEXT, path, &err);
	tap_ok(rc && strstr(err.message, "not a mapping"), "a list is refused: %s", err.message);
	f = fopen(path, "w");
	fputs("\"(unclosed\": x\n", f);
	fclose(f);
	rc = mut_ruleset_init(&set, MUT_FILE_TEXT, path, &err);
	tap_ok(rc && strstr(err.message, "(unclosed"), "a bad regex is refused: %s", err.message);
	unlink(path);

	tap_ok(mut_file_type("a.txt", (const unsigned char *)"hello\n", 6) == MUT_FILE_TEXT,
	       "text is text");
	tap_ok(mut_file_type("a.html", (const unsigned char *)"<p>x</p>", 8) == MUT_FILE_XML,
	       "html is XML");
	tap_ok(mut_file_type("a.dat", bin, sizeof(bin)) == MUT_FILE_BINARY, "bytes are binary");
	return tap_done();
}
