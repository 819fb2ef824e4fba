/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Layer 3 of libperun, the writer (json_python.c): Python's json.dumps and
 * repr() of a float, byte for byte.  Private, not installed.  It rests on
 * the reader (reader.h) and the core (profile_core.h); the forms of a
 * profile and the profile dumper above include it.
 */
#ifndef PERUN_SDK_JSON_PYTHON_H
#define PERUN_SDK_JSON_PYTHON_H

#include <stddef.h>
#include <jansson.h>
#include <perun/jsonview.h>
#include <perun/profile.h>
#include <perun/strbuf.h>

/* Python's repr() of a double: shortest digits that round-trip; its
 * length. */
size_t json_python_format_double(double value, char out[32]);
/*
 * json.dumps(value) (indent -1) or json.dumps(value, indent=indent),
 * ensure_ascii, insertion key order; indent JSON_PYTHON_PENDING is Perun's
 * pending form, indent 2 with re.sub(r",\s+(\d+)", r", \1", ...) applied.
 */
#define JSON_PYTHON_PENDING (-2)
void json_python_dump(const json_t *value, int indent, struct perun_strbuf *out);
/* The members of an object given one at a time (json_python_member.walk). */
struct json_python_emitter;
void json_python_emit(struct json_python_emitter *e, const char *key, size_t key_len,
		      const struct perun_jv *value);
/*
 * A member whose value is an object of equally long lists, one per column
 * (a resource type's columns before they are a tape), written as
 * json_python_emit writes the same object.
 */
void json_python_emit_columns(struct json_python_emitter *e, const char *key, size_t key_len,
			      const struct perun_column *columns, size_t ncolumns, size_t rows);
/* Where a dump's text goes as it is made: fd, and the errno of the first
 * write that failed (0 none). */
struct json_python_sink {
	int fd;
	int error;
	size_t written; /* bytes drained into fd so far */
};
/*
 * An object written as json_python_dump writes one, each member's value
 * a tree or, where tree is NULL, a tape's (a profile's compact resources),
 * or, where walk is set, an object whose members walk gives in order with
 * json_python_emit (a streamed profile's map, never held whole).  0, or
 * the first non-zero return of a walk, which ends the dump there.  With
 * sink set, the text goes there as it is made (out is only its buffer).
 * Where span is set, it gets where the value's text lies in the whole
 * text (out's, or the sink's): span[0] .. span[1).
 */
struct json_python_member {
	const char *key;
	const json_t *tree;
	const struct perun_jv *view;
	int (*walk)(void *data, struct json_python_emitter *e);
	void *walk_data;
	size_t *span;
};
int json_python_dump_members(const struct json_python_member *members, size_t n, int indent,
			     struct perun_strbuf *out, struct json_python_sink *sink);

#endif
