/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private helpers of libperun; not installed. */
#ifndef PERUN_SDK_INTERNAL_H
#define PERUN_SDK_INTERNAL_H

#include <stddef.h>
#include <jansson.h>

/* A growable byte buffer; all functions abort on allocation failure. */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define STRBUF_INIT {NULL, 0, 0}
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const char *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_release(struct strbuf *sb);
/* Hand the NUL-terminated buffer to the caller. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Python's repr() of a double: shortest digits that round-trip. */
void json_python_format_double(double value, char out[32]);
/*
 * json.dumps(value) (indent < 0) or json.dumps(value, indent=indent),
 * ensure_ascii, insertion key order.
 */
void json_python_dump(const json_t *value, int indent, struct strbuf *out);

#endif
