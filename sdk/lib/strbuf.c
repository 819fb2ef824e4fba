/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Growing strings (perun/strbuf.h): a failed allocation is remembered and
 * reported once, at the end.
 *
 * Layer 0 of libperun, the base: it uses the C library only; every other
 * file of libperun may use it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/strbuf.h>

int perun_strbuf_grow(struct perun_strbuf *sb, size_t extra)
{
	if (sb->failed)
		return -1;
	if (extra < (size_t)-1 - sb->len && sb->len + extra + 1 <= sb->alloc)
		return 0;
	if (extra >= ((size_t)-1 >> 1) - sb->len) {
		sb->failed = 1;
		return -1;
	}
	size_t want = sb->alloc ? sb->alloc : 64;
	while (want < sb->len + extra + 1)
		want *= 2;
	char *grown = realloc(sb->buf, want);
	if (!grown) {
		sb->failed = 1;
		return -1;
	}
	sb->buf = grown;
	sb->alloc = want;
	return 0;
}

void perun_strbuf_add(struct perun_strbuf *sb, const char *data, size_t len)
{
	if (perun_strbuf_grow(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void perun_strbuf_addstr(struct perun_strbuf *sb, const char *s)
{
	perun_strbuf_add(sb, s, strlen(s));
}

void perun_strbuf_addch(struct perun_strbuf *sb, char c)
{
	perun_strbuf_add(sb, &c, 1);
}

void perun_strbuf_addrepeat(struct perun_strbuf *sb, const char *s, size_t times)
{
	size_t n = strlen(s);
	if (!n || !times)
		return;
	if (times > ((size_t)-1 >> 1) / n) {
		sb->failed = 1;
		return;
	}
	if (perun_strbuf_grow(sb, n * times))
		return;
	if (n == 1) {
		memset(sb->buf + sb->len, *s, times);
		sb->len += times;
	}
	for (; n > 1 && times; times--, sb->len += n)
		memcpy(sb->buf + sb->len, s, n);
	sb->buf[sb->len] = '\0';
}

void perun_strbuf_addf(struct perun_strbuf *sb, const char *fmt, ...)
{
	char small[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->failed = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		perun_strbuf_add(sb, small, (size_t)n);
		return;
	}
	if (perun_strbuf_grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void perun_strbuf_release(struct perun_strbuf *sb)
{
	free(sb->buf);
	*sb = (struct perun_strbuf)PERUN_STRBUF_INIT;
}

char *perun_strbuf_detach(struct perun_strbuf *sb, size_t *len)
{
	char *ret = NULL;
	if (!sb->failed && !perun_strbuf_grow(sb, 0)) {
		ret = sb->buf;
		if (len)
			*len = sb->len;
		ret[sb->len] = '\0';
		sb->buf = NULL;
	}
	perun_strbuf_release(sb);
	return ret;
}
