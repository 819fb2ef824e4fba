/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A growable string buffer, for building text of unknown length.
 *
 *   struct perun_strbuf sb = PERUN_STRBUF_INIT;
 *   perun_strbuf_addstr(&sb, "x = ");
 *   perun_strbuf_addf(&sb, "%d", 42);
 *   char *text = perun_strbuf_detach(&sb, NULL);   NULL: out of memory
 *
 * The buffer never aborts the program: a failed allocation marks it failed,
 * later additions are ignored, and detach reports the failure once at the
 * end, so callers check one result instead of every call.
 */
#ifndef PERUN_STRBUF_H
#define PERUN_STRBUF_H

#include <stddef.h>
#include <perun/error.h>

struct perun_strbuf {
	char *buf;    /* NUL-terminated once anything was added, else NULL */
	size_t len;   /* bytes in buf, without the NUL */
	size_t alloc; /* bytes allocated */
	int failed;   /* an allocation failed: the content is incomplete */
};

#define PERUN_STRBUF_INIT                                                                          \
	{                                                                                          \
		NULL, 0, 0, 0                                                                      \
	}

/* Make room for extra more bytes; 0, or -1 (and failed) without memory. */
PERUN_API int perun_strbuf_grow(struct perun_strbuf *sb, size_t extra);
PERUN_API void perun_strbuf_add(struct perun_strbuf *sb, const char *data, size_t len);
PERUN_API void perun_strbuf_addstr(struct perun_strbuf *sb, const char *s);
PERUN_API void perun_strbuf_addch(struct perun_strbuf *sb, char c);
/* s times times over, e.g. padding or a rule of "-". */
PERUN_API void perun_strbuf_addrepeat(struct perun_strbuf *sb, const char *s, size_t times);
PERUN_API void perun_strbuf_addf(struct perun_strbuf *sb, const char *fmt, ...) PERUN_PRINTF(2, 3);
/* Free the content; the buffer is empty (and not failed) again. */
PERUN_API void perun_strbuf_release(struct perun_strbuf *sb);
/*
 * Hand the content to the caller, who frees it; "" when nothing was added.
 * Returns NULL if any allocation failed.  *len (if len) gets its length.
 * The buffer is empty again either way.
 */
PERUN_API char *perun_strbuf_detach(struct perun_strbuf *sb, size_t *len);

#endif
