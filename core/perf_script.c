/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perf script prints a sample as a header line ("comm pid/tid [cpu]
 * time: period event:"), its frames leaf first ("\t<ip> <sym>+0x<off>
 * (<module>)"), and a blank line.  stackcollapse-perf.pl matches these
 * with Perl regexes; the matchers below take the same decisions (the
 * same leftmost, greedy and backtracking choices) by hand, so the folded
 * stacks are byte for byte the script's.  Each matcher names the regex it
 * stands for.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perun/strbuf.h>

#include "command.h"
#include "perf_script.h"

struct collapse {
	const struct perf_script_options *opts;
	struct compressed_file *in;
	const char *name;
	size_t lineno;
	struct perun_strbuf pname; /* the process frame of the sample */
	int have_pname;		   /* Perl's "defined $pname" */
	uint64_t period;
	struct perun_strbuf event; /* the event counted; "" until the first */
	int event_defaulted, event_warned;
	/* The frame lines seen, leaf first, each its frames joined by ';'. */
	struct perun_strbuf groups;
	size_t *group_end; /* end of each group in groups.buf */
	size_t ngroups, groups_cap;
	struct perun_strbuf func, key;
	struct folded_stacks *out;
	struct perun_error *err;
};

/* Perl's \s, \d and \w on bytes. */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static size_t skip(const char *l, size_t i, size_t n, int (*cls)(char))
{
	while (i < n && cls(l[i]))
		i++;
	return i;
}

struct header {
	size_t comm_len;
	const char *pid, *tid; /* tid NULL: none */
	size_t pid_len, tid_len;
};

/* ^(\S.+?)\s+(\d+)[/]*(\d+)*\s+ : the shortest comm (two bytes at least)
 * followed by blanks, "pid" or "pid/tid", and a blank. */
static int match_header(const char *l, size_t n, struct header *h)
{
	if (!n || is_space(l[0]))
		return 0;
	for (size_t k = 2; k < n; k++) {
		if (!is_space(l[k]))
			continue;
		size_t d1 = skip(l, k, n, is_space);
		size_t d1_end = skip(l, d1, n, is_digit);
		if (d1_end == d1)
			continue;
		size_t d2 = d1_end;
		while (d2 < n && l[d2] == '/')
			d2++;
		size_t d2_end = skip(l, d2, n, is_digit);
		if (d2_end == n || !is_space(l[d2_end]))
			continue;
		*h = (struct header){ k, l + d1, d2_end > d2 ? l + d2 : NULL, d1_end - d1,
				      d2_end - d2 };
		return 1;
	}
	return 0;
}

/* \S+:\s*$ from r: the event name before the last ':'. */
static int match_event_name(const char *l, size_t r, size_t n, size_t *end)
{
	while (n > r && is_space(l[n - 1]))
		n--;
	if (n < r + 2 || l[n - 1] != ':')
		return 0;
	for (size_t i = r; i < n; i++)
		if (is_space(l[i]))
			return 0;
	*end = n - 1;
	return 1;
}

/* /:\s*(\d+)*\s+(\S+):\s*$/ at its leftmost ':': the period (NULL when
 * absent) and the event. */
static int match_event(const char *l, size_t n, const char **period, size_t *period_len,
		       const char **event, size_t *event_len)
{
	for (const char *c = memchr(l, ':', n); c; c = memchr(c + 1, ':', n - (c + 1 - l))) {
		size_t i = (size_t)(c - l) + 1, w = skip(l, i, n, is_space), end;
		size_t d = skip(l, w, n, is_digit);
		if (d > w && d < n && is_space(l[d])) {
			size_t r = skip(l, d, n, is_space);
			if (match_event_name(l, r, n, &end)) {
				*period = l + w, *period_len = d - w;
				*event = l + r, *event_len = end - r;
				return 1;
			}
		}
		if (w > i && match_event_name(l, w, n, &end)) {
			*period = NULL, *period_len = 0;
			*event = l + w, *event_len = end - w;
			return 1;
		}
	}
	return 0;
}

struct frame_line {
	const char *pc, *func, *mod;
	size_t pc_len, func_len, mod_len;
};

/* /^\s*(\w+)\s*(.+) \((.*)\)/: the module is between the last " (" that
 * a ')' follows and the last ')'; the address the leading word, the
 * symbol what lies between (both give way so that the symbol is not
 * empty, as Perl backtracks). */
static int match_frame(const char *l, size_t n, struct frame_line *f)
{
	const char *close = memrchr(l, ')', n);
	if (!close)
		return 0;
	size_t last = (size_t)(close - l), e;
	const char *open = close;
	while ((open = memrchr(l, '(', (size_t)(open - l))) && !(open > l && open[-1] == ' '))
		;
	if (!open)
		return 0;
	e = (size_t)(open - l) - 1; /* " (" starts at e */
	size_t w = skip(l, 0, n, is_space), w_end = skip(l, w, n, is_word);
	if (w_end == w)
		return 0;
	size_t s = skip(l, w_end, n, is_space);
	if (s >= e) { /* (.+) would be empty: \s* gives back, else \w+ */
		if (e >= 1 && e - 1 >= w_end)
			s = e - 1;
		else if (e >= w + 2)
			w_end = s = e - 1;
		else
			return 0;
	}
	*f = (struct frame_line){ l + w, l + s, l + e + 2, w_end - w, e - s, last - (e + 2) };
	return 1;
}

static int oom(struct collapse *c)
{
	return perun_error_set(c->err, PERUN_EGENERIC, "out of memory");
}

static int bad_line(struct collapse *c, const char *what)
{
	return perun_error_set(c->err, PERUN_EINVAL, "perf script file '%s': line %zu: %s", c->name,
			       c->lineno, what);
}

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);
	return n >= p && !memcmp(s, prefix, p);
}

static int contains(const char *s, size_t n, const char *what)
{
	return memmem(s, n, what, strlen(what)) != NULL;
}

/* $tidy_generic: ';' becomes ':', what follows the first '(' goes (but
 * not in Go's "pkg.(*T).M" nor at "(anonymous namespace)"), quotes go. */
static void tidy(struct perun_strbuf *f)
{
	const char *paren = memchr(f->buf, '(', f->len);
	const char *open = paren ? memmem(f->buf, f->len, ".(", 2) : NULL;
	const char *close = NULL;
	for (const char *p = f->buf;
	     open && (p = memmem(p, f->len - (size_t)(p - f->buf), ").", 2)); p++)
		close = p;
	if (paren && !(open && close && close >= open + 2)) {
		for (size_t i = 0; i < f->len; i++)
			if (f->buf[i] == '(' &&
			    !starts(f->buf + i + 1, f->len - i - 1, "anonymous namespace)")) {
				f->len = i;
				break;
			}
	}
	size_t j = 0;
	for (size_t i = 0; i < f->len; i++) {
		char ch = f->buf[i];
		if (ch != '"' && ch != '\'')
			f->buf[j++] = ch == ';' ? ':' : ch;
	}
	f->len = j;
}

/* --srcline: the source line after a frame line, without its [...]. */
static int add_srcline(struct collapse *c, struct perun_strbuf *f)
{
	char *line;
	size_t len;
	int more = compressed_getline(c->in, &line, &len, c->err);
	if (more < 0)
		return more;
	if (!more)
		return 0;
	c->lineno++;
	size_t start = f->len;
	perun_strbuf_addch(f, ':');
	for (size_t i = 0; i < len; i++) {
		const char *close = line[i] == '[' ? memchr(line + i, ']', len - i) : NULL;
		if (close)
			i = (size_t)(close - line);
		else
			perun_strbuf_addch(f, line[i]);
	}
	size_t b = start + 1, e = f->len;
	while (b < e && is_space(f->buf[b]))
		b++;
	while (e > b && is_space(f->buf[e - 1]))
		e--;
	memmove(f->buf + start + 1, f->buf + b, e - b);
	f->len = e > b ? start + 1 + (e - b) : start;
	return 0;
}

/* One frame of a frame line (a piece of "outer->inlined"), appended to
 * the current group. */
static int add_frame(struct collapse *c, const struct frame_line *fl, const char *piece, size_t len,
		     int inlined, int *unknown)
{
	const struct perf_script_options *o = c->opts;
	struct perun_strbuf *f = &c->func;
	f->len = 0;
	if (len == 9 && !memcmp(piece, "[unknown]", 9)) {
		perun_strbuf_addch(f, '[');
		if (fl->mod_len == 9 && !memcmp(fl->mod, "[unknown]", 9)) {
			perun_strbuf_addstr(f, "unknown");
			*unknown = 1;
		} else {
			const char *slash = memrchr(fl->mod, '/', fl->mod_len);
			const char *base = slash ? slash + 1 : fl->mod;
			perun_strbuf_add(f, base, fl->mod_len - (size_t)(base - fl->mod));
		}
		if (o->addrs) {
			perun_strbuf_addstr(f, " <");
			perun_strbuf_add(f, fl->pc, fl->pc_len);
			perun_strbuf_addch(f, '>');
		}
		perun_strbuf_addch(f, ']');
	} else {
		perun_strbuf_add(f, piece, len);
	}
	if (f->failed)
		return oom(c);
	tidy(f);
	if (starts(c->pname.buf, c->pname.len, "java") && memchr(f->buf, '/', f->len) && f->len &&
	    f->buf[0] == 'L')
		memmove(f->buf, f->buf + 1, --f->len);
	const char *mod = fl->mod;
	size_t ml = fl->mod_len;
	if (inlined) {
		if (!contains(f->buf, f->len, "_[i]"))
			perun_strbuf_addstr(f, "_[i]");
	} else if (o->kernel &&
		   ((ml && mod[0] == '[') || (ml >= 7 && starts(mod + ml - 7, 7, "vmlinux"))) &&
		   !contains(mod, ml, "unknown")) {
		perun_strbuf_addstr(f, "_[k]");
	} else if (o->jit && !contains(f->buf, f->len, "_[j]")) {
		for (const char *p = mod; (p = memmem(p, ml - (size_t)(p - mod), "/tmp/perf-", 10));
		     p++) {
			size_t i = (size_t)(p - mod) + 10, d = skip(mod, i, ml, is_digit);
			if (d > i && starts(mod + d, ml - d, ".map")) {
				perun_strbuf_addstr(f, "_[j]");
				break;
			}
		}
	}
	if (o->srcline && !*unknown) {
		int rc = add_srcline(c, f);
		if (rc)
			return rc;
	}
	if (inlined)
		perun_strbuf_addch(&c->groups, ';');
	perun_strbuf_add(&c->groups, f->buf, f->len);
	return f->failed || c->groups.failed ? oom(c) : 0;
}

/* The next "->" (perf's caller->inlined) in [p, end), or NULL. */
static const char *find_arrow(const char *p, const char *end)
{
	while ((p = memchr(p, '-', (size_t)(end - p))) && p + 1 < end && p[1] != '>')
		p++;
	return p && p + 1 < end ? p : NULL;
}

static int add_frame_line(struct collapse *c, const struct frame_line *fl)
{
	const char *s = fl->func;
	size_t n = fl->func_len;
	/* s/\+0x[\da-f]+$//: the offset perf prints since Linux 4.8 */
	const char *plus = memrchr(s, '+', n);
	if (plus && plus + 3 < s + n && plus[1] == '0' && plus[2] == 'x') {
		const char *h = plus + 3;
		while (h < s + n && (is_digit(*h) || (*h >= 'a' && *h <= 'f')))
			h++;
		if (h == s + n)
			n = (size_t)(plus - s);
	}
	if (n && s[0] == '(') /* a process name */
		return 0;
	/* split /->/, which drops trailing empty pieces */
	while (n >= 2 && s[n - 2] == '-' && s[n - 1] == '>')
		n -= 2;
	if (!n)
		return 0;
	if (c->ngroups == c->groups_cap) {
		size_t cap = c->groups_cap ? c->groups_cap * 2 : 64;
		size_t *g = realloc(c->group_end, cap * sizeof(*g));
		if (!g)
			return oom(c);
		c->group_end = g;
		c->groups_cap = cap;
	}
	int unknown = 0, inlined = 0, rc = 0;
	for (const char *piece = s; !rc; inlined = 1) {
		const char *arrow = find_arrow(piece, s + n);
		size_t len = arrow ? (size_t)(arrow - piece) : n - (size_t)(piece - s);
		rc = add_frame(c, fl, piece, len, inlined, &unknown);
		if (!arrow)
			break;
		piece = arrow + 2;
	}
	c->group_end[c->ngroups++] = c->groups.len;
	return rc;
}

/* The blank line after a sample: its stack, root first. */
static int end_sample(struct collapse *c)
{
	if (!c->have_pname)
		return 0;
	struct perun_strbuf *k = &c->key;
	k->len = 0;
	perun_strbuf_add(k, c->pname.buf, c->pname.len);
	for (size_t g = c->ngroups; g-- > 0;) {
		size_t start = g ? c->group_end[g - 1] : 0;
		perun_strbuf_addch(k, ';');
		perun_strbuf_add(k, c->groups.buf + start, c->group_end[g] - start);
	}
	if (k->failed || folded_stacks_add(c->out, k->buf, k->len, c->period))
		return oom(c);
	c->ngroups = 0;
	c->groups.len = 0;
	c->have_pname = 0;
	return 0;
}

static int start_sample(struct collapse *c, const char *l, size_t n, const struct header *h)
{
	const char *period, *event;
	size_t period_len, event_len;
	if (match_event(l, n, &period, &period_len, &event, &event_len)) {
		if (!c->event.len) {
			perun_strbuf_add(&c->event, event, event_len);
			c->event_defaulted = 1;
		} else if (c->event.len != event_len || memcmp(c->event.buf, event, event_len)) {
			if (c->event_defaulted && !c->event_warned) {
				perun_warn("perf script file '%s': only the samples of '%s' are "
					   "counted, not those of '%.*s' (--event-filter)",
					   c->name, c->event.buf, (int)event_len, event);
				c->event_warned = 1;
			}
			return 0;
		}
	} else {
		period = NULL;
		period_len = 0;
	}
	/* Perl's "not $period": none or "0" count as one sample */
	c->period = 0;
	for (size_t i = 0; i < period_len; i++)
		c->period = c->period * 10 + (uint64_t)(period[i] - '0');
	if (!period_len || (period_len == 1 && period[0] == '0'))
		c->period = 1;
	/* Perl's "not $tid": without one (or "0") the number is the tid */
	int no_tid = !h->tid || (h->tid_len == 1 && h->tid[0] == '0');
	struct perun_strbuf *p = &c->pname;
	p->len = 0;
	perun_strbuf_add(p, l, h->comm_len);
	if (c->opts->tid || c->opts->pid) {
		perun_strbuf_addch(p, '-');
		if (no_tid)
			perun_strbuf_addch(p, '?');
		else
			perun_strbuf_add(p, h->pid, h->pid_len);
	}
	if (c->opts->tid) {
		perun_strbuf_addch(p, '/');
		perun_strbuf_add(p, no_tid ? h->pid : h->tid, no_tid ? h->pid_len : h->tid_len);
	}
	if (p->failed)
		return oom(c);
	for (size_t i = 0; i < p->len; i++)
		if (p->buf[i] == ' ')
			p->buf[i] = '_';
	c->have_pname = 1;
	return 0;
}

static int read_line(struct collapse *c, char *l, size_t n)
{
	struct header h;
	struct frame_line fl;
	if (n && l[0] == '#')
		return 0;
	if (!n)
		return end_sample(c);
	if (match_header(l, n, &h))
		return start_sample(c, l, n, &h);
	if (match_frame(l, n, &fl))
		return c->have_pname ? add_frame_line(c, &fl) : 0;
	/* Source lines of left-out samples, which the script warns about. */
	if (c->opts->srcline && !c->have_pname)
		return 0;
	return bad_line(c, is_space(l[0]) ? "neither a sample header nor a stack frame (source "
					    "lines of perf script -F+srcline need --srcline)"
					  : "neither a sample header nor a stack frame");
}

int perf_script_collapse(struct compressed_file *in, const char *name,
			 const struct perf_script_options *opts, struct folded_stacks *out,
			 struct perun_error *err)
{
	struct collapse c = { .opts = opts, .in = in, .name = name, .out = out, .err = err };
	char *line;
	size_t len;
	int rc = 0, more;
	if (opts->event)
		perun_strbuf_addstr(&c.event, opts->event);
	while (!rc && (more = compressed_getline(in, &line, &len, err)) == 1) {
		c.lineno++;
		rc = read_line(&c, line, len);
	}
	if (!rc && more < 0)
		rc = more;
	perun_strbuf_release(&c.pname);
	perun_strbuf_release(&c.event);
	perun_strbuf_release(&c.groups);
	perun_strbuf_release(&c.func);
	perun_strbuf_release(&c.key);
	free(c.group_end);
	return rc;
}
