/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Layer 1 of libperun, the reader (json_parse.c): profile text into a tape
 * of perun_jv nodes, and a tape into jansson values.  Private, not
 * installed.  It rests on the public base (error, strbuf, fsutil) only;
 * every layer above (profile_core.h and up) may include it.
 */
#ifndef PERUN_SDK_READER_H
#define PERUN_SDK_READER_H

#include <stddef.h>
#include <stdint.h>
#include <locale.h>
#include <jansson.h>
#include <perun/jsonview.h>

/* Exact arithmetic of the float reader and printer. */
typedef unsigned __int128 u128;
/* 5^0 .. 5^27, the powers of five below 2^63. */
extern const uint64_t json_pow5[28];

/* A tape of perun_jv nodes; nodes[0] is the document's root value. */
struct json_tape {
	struct perun_jv *nodes;
	size_t n, alloc;
	int mapped; /* nodes is a mapping of its own, not heap */
};
/* bytes of memory, a mapping of its own when big (its pages are made as
 * they are written): for buffers sized for the worst case. */
void *json_room_alloc(size_t bytes);
void json_room_free(void *room, size_t bytes);
/* Room for at least need nodes: 0, or -1 without memory. */
int json_tape_grow(struct json_tape *tape, size_t need);
/* Append node; its index, or -1 without memory. */
static inline long long json_tape_push(struct json_tape *tape, struct perun_jv node)
{
	if (tape->n == tape->alloc && json_tape_grow(tape, tape->n + 1))
		return -1;
	tape->nodes[tape->n] = node;
	return (long long)tape->n++;
}
/*
 * Read a profile's text into tape as json_loadb(JSON_REJECT_DUPLICATES)
 * would read it, plus Python's NaN/Infinity/-Infinity (reals).  Strings are
 * decoded and terminated in text itself, which must outlive the tape's
 * use.  Returns 0, or -1 for text that is not plain well-formed JSON, which
 * jansson then reads and reports (text is changed by then).
 */
int json_tape_parse(char *text, size_t len, struct json_tape *tape);
/*
 * json_tape_parse, except that the value of the root object's member
 * skip_key (an object) is passed over by its brackets and quotes alone: an
 * empty object takes its place on the tape and skipped[0..1] get its
 * text's span, left as it was (json_object_stream reads it later).
 */
int json_tape_parse_skipping(char *text, size_t len, struct json_tape *tape, const char *skip_key,
			     const char *skipped[2]);
void json_tape_release(struct json_tape *tape);

/*
 * An object's members read one at a time onto a tape, as json_tape_parse
 * reads them but leaving the text as it is: strings are decoded into a
 * buffer the caller gives (room for the text still unread suffices).  For
 * readers that are done with a member before the next, as a profile's
 * million resource types are walked: the tape stays small.
 */
struct json_object_stream {
	char *p, *end;	/* what is still unread */
	size_t members; /* read so far */
	locale_t c_locale;
	/* Copies of the keys and their hashes: duplicates are refused at the
	 * close, as json_tape_parse refuses them. */
	struct json_tape keys;
	char *key_text, *key_at;
	size_t key_text_len;
	void *key_hashes;
	size_t key_hashes_alloc;
};
/* text[0..len) is the object, '{' to '}'.  0, or -1 without memory or
 * when it does not start with '{'. */
int json_object_stream_open(struct json_object_stream *s, const char *text, size_t len);
/*
 * json_object_stream_open of the object's first len bytes, of whole_len in
 * all: the caller moves p and end on to the rest (a window of text read a
 * part at a time).  A member json_object_stream_next finds cut short by
 * end leaves the stream as it was but for p, so that it can be read again
 * from where it starts once more text is there.
 */
int json_object_stream_open_part(struct json_object_stream *s, const char *text, size_t len,
				 size_t whole_len);
/*
 * The next member onto tape (its key's node, then its value's nodes),
 * strings decoded at *strings, which is moved past them.  Returns 1, 0
 * after the closing '}', or -1 for text json_tape_parse does not take.
 */
int json_object_stream_next(struct json_object_stream *s, struct json_tape *tape, char **strings);
void json_object_stream_close(struct json_object_stream *s);

#endif
