/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Segmented store objects.  A big profile's object is one zlib stream,
 * as every object is, but compressed in parts, each on its own (zlib's
 * full flush points between them, as pigz --independent writes): the
 * text before resource_type_map's value, the value in slices, the rest.
 * An index after the stream says where the map's part and the rest's
 * start.  zlib (Python Perun's zlib.decompress) reads the stream as any
 * other and ignores what follows it; perun inflates the small parts
 * around the map first and the map as a walk reads it, a window at a
 * time, never whole.  An object without a sound index is read whole.
 */
#ifndef PERUN_CORE_STORE_SEGMENTS_H
#define PERUN_CORE_STORE_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <perun/profile.h>

/* Where a segmented object's parts are: offsets into the object's bytes
 * (*_packed) and into its payload, the header and the JSON. */
struct store_segments {
	uint64_t map_packed;  /* the map's part starts here */
	uint64_t tail_packed; /* the rest's */
	uint64_t stream_end;  /* after the stream's Adler-32: the index */
	uint64_t map_begin;   /* the map's value in the payload */
	uint64_t map_end;
	uint64_t payload_len;
	uint64_t slice_bytes; /* the map's slices: all this big but the last */
	uint64_t slices;
};

/* Objects whose text is at least this big are segmented
 * (PERUN_TEST_SEGMENTED, in bytes, overrides it and the slices' size for
 * tests). */
#define STORE_SEGMENTED_MIN ((size_t)16 << 20)
size_t store_segmented_min(void);

/* An object's payload: its header in memory, its text (the profile's
 * JSON) text_len bytes at text_at in the file fd. */
struct store_payload {
	const char *head;
	size_t head_len;
	int fd;
	off_t text_at;
	size_t text_len;
};
/*
 * The payload compressed at store.compression's level as a segmented
 * object whose map is text[map_begin .. map_end), its slices on all
 * processors, each read from the file: the caller's, or NULL when memory
 * runs out or a read fails.  Written with store_segments_write (a
 * perun_write_fn), never joined in memory.
 */
struct store_segmented;
struct store_segmented *store_segments_compress(const struct store_payload *payload,
						size_t map_begin, size_t map_end, int level);
int store_segments_write(int fd, void *segmented);
void store_segments_free(struct store_segmented *segmented);

/* The index of packed[0 .. len), when it has a sound one: 0, else -1. */
int store_segments_find(const unsigned char *packed, size_t len, struct store_segments *seg);

/* A segmented object, as read. */
struct segmented_object {
	const unsigned char *packed;
	size_t packed_len;
	int mapped; /* packed is a file's mapping, its pages given back */
	struct store_segments seg;
	uint32_t adler_before, adler_after; /* of the parts around the map */
	uint32_t adler_stream;		    /* the stream's own */
	size_t map_chars;		    /* the map's characters, by the header */
};
/*
 * o's parts around the map, inflated: payload[0 .. map_begin), then "{}",
 * then the rest, NUL-terminated, in *outline (the caller's; malloc'd), and
 * their Adler-32s in o.  0, or -1 when the object is not what its index
 * says (it is then read whole, whose errors name the damage).  The caller
 * sets o->map_chars from the header.
 */
int store_segments_outline(struct segmented_object *o, char **outline, size_t *outline_len);

/* The map's reader (perun/profile.h): its text inflated from the object
 * a window at a time; the end is sound only when the stream's Adler-32
 * and the header's character count hold.  o outlives the reader. */
struct perun_profile_map_reader store_segments_map_reader(const struct segmented_object *o);

/* Read len bytes at at of fd into buf: 0, or -1 (errno set, or 0 at the
 * file's end). */
int store_read_at(int fd, void *buf, size_t len, off_t at);

/* The characters of UTF-8 text s[0 .. len) (the header counts them). */
size_t store_utf8_length(const char *s, size_t len);

#endif
