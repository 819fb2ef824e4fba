/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Profile objects in .perun/objects: reading, writing atomically, hashing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <libdeflate.h>
#include <nettle/sha1.h>

#include "durable.h"
#include "store.h"
#include "store_segments.h"

/* The digest of ctx as 40 hex digits and a NUL. */
static void sha1_finish_hex(struct sha1_ctx *ctx, char out[PERUN_SHA1_HEX])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t digest[SHA1_DIGEST_SIZE];
	sha1_digest(ctx, SHA1_DIGEST_SIZE, digest);
	for (int i = 0; i < SHA1_DIGEST_SIZE; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[40] = '\0';
}

void perun_sha1_hex(const void *data, size_t len, char out[PERUN_SHA1_HEX])
{
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, len, data);
	sha1_finish_hex(&ctx, out);
}

int perun_is_sha1(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') ||
		      (s[n] >= 'A' && s[n] <= 'F')))
			return 0;
	return n == 40;
}

void perun_store_object_path(const char *objects_dir, const char *sha, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%.2s/%s", objects_dir, sha, sha + 2);
}

/* Number of characters (not bytes) of UTF-8 text, as Python's len(). */
static int compression_level = PERUN_STORE_COMPRESSION_DEFAULT;

void perun_store_set_compression(int level)
{
	compression_level = level;
}

/*
 * profile's text written into a temporary file of its own in objects_dir
 * (unlinked: it goes with its descriptor), as it is made: a big profile
 * is never held whole in memory.  *fd, the text's *len bytes from 0 and
 * where its map's value lies.
 */
static int dump_to_file(const char *objects_dir, const struct perun_profile *profile, int *fd,
			size_t *len, size_t map_span[2], struct perun_error *err)
{
	*fd = open(objects_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (*fd < 0) {
		/* A file system without O_TMPFILE: a named one, unlinked. */
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/dump.tmp-XXXXXX", objects_dir);
		if ((*fd = mkostemp(path, O_CLOEXEC)) >= 0)
			unlink(path);
	}
	if (*fd < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot write a profile object into '%s'",
					     objects_dir);
	off_t end;
	if (perun_profile_write_map_span(profile, PERUN_DUMP_COMPACT, 0, *fd, map_span) ||
	    (end = lseek(*fd, 0, SEEK_END)) < 0)
		return errno == ENOMEM
			       ? perun_error_set(err, PERUN_EGENERIC, "out of memory")
			       : perun_error_set_errno(err, PERUN_EGENERIC, errno,
						       "cannot write a profile object into '%s'",
						       objects_dir);
	*len = (size_t)end;
	return 0;
}

/* The text's passes, a buffer at a time (8 MB): its characters, then its
 * SHA-1 after the header. */
#define PASS_BYTES ((size_t)8 << 20)

static int text_chars(int fd, size_t len, char *buf, size_t *chars)
{
	*chars = 0;
	for (size_t at = 0; at < len; at += PASS_BYTES) {
		size_t n = len - at < PASS_BYTES ? len - at : PASS_BYTES;
		if (store_read_at(fd, buf, n, (off_t)at))
			return -1;
		*chars += store_utf8_length(buf, n);
	}
	return 0;
}

static int text_sha1(int fd, size_t len, const char *head, size_t head_len, char *buf,
		     char sha_out[PERUN_SHA1_HEX])
{
	struct sha1_ctx sha;
	sha1_init(&sha);
	sha1_update(&sha, head_len, (const uint8_t *)head);
	for (size_t at = 0; at < len; at += PASS_BYTES) {
		size_t n = len - at < PASS_BYTES ? len - at : PASS_BYTES;
		if (store_read_at(fd, buf, n, (off_t)at))
			return -1;
		sha1_update(&sha, n, (const uint8_t *)buf);
	}
	sha1_finish_hex(&sha, sha_out);
	return 0;
}

/* A small object: libdeflate compresses header and text as one buffer,
 * at store.compression (1 by default), five times zlib's default speed
 * on big profiles, for objects a tenth bigger. */
static int write_whole(const char *path, const struct store_payload *pl, struct perun_error *err)
{
	size_t payload_len = pl->head_len + pl->text_len;
	struct libdeflate_compressor *deflater = libdeflate_alloc_compressor(compression_level);
	char *payload = malloc(payload_len);
	size_t bound = deflater ? libdeflate_zlib_compress_bound(deflater, payload_len) : 0;
	unsigned char *packed = bound ? malloc(bound) : NULL;
	int rc;
	if (!payload || !packed) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	} else if (store_read_at(pl->fd, payload + pl->head_len, pl->text_len, pl->text_at)) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					   "cannot read back a profile object");
	} else {
		memcpy(payload, pl->head, pl->head_len);
		size_t packed_len =
			libdeflate_zlib_compress(deflater, payload, payload_len, packed, bound);
		rc = packed_len ? perun_durable_write(path, packed, packed_len, err)
				: perun_error_set(err, PERUN_EGENERIC,
						  "cannot compress profile object: no room");
	}
	if (deflater)
		libdeflate_free_compressor(deflater);
	free(payload);
	free(packed);
	return rc;
}

int perun_store_write_profile(const char *objects_dir, const struct perun_profile *profile,
			      char sha_out[PERUN_SHA1_HEX], int *created, struct perun_error *err)
{
	int fd = -1;
	size_t text_len = 0, map_span[2] = { 0, 0 }, chars;
	char head[64], path[PATH_MAX], dir[PATH_MAX];
	char *buf = NULL;
	if (created)
		*created = 0;
	int rc = dump_to_file(objects_dir, profile, &fd, &text_len, map_span, err);
	/* A streamed profile's map is read whole by the dump: a malformed
	 * one is refused, not stored empty. */
	if (!rc)
		rc = perun_profile_load_error(profile, err);
	if (rc)
		goto out;
	if (!(buf = malloc(PASS_BYTES))) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	/* The name hashes header and text as they are. */
	int head_len = 0;
	if (!text_chars(fd, text_len, buf, &chars))
		head_len = snprintf(head, sizeof(head), "profile %s %zu",
				    perun_profile_type(profile), chars) +
			   1;
	if (!head_len || text_sha1(fd, text_len, head, (size_t)head_len, buf, sha_out)) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					   "cannot read back a profile object");
		goto out;
	}
	perun_store_object_path(objects_dir, sha_out, path, sizeof(path));
	if (access(path, F_OK) == 0)
		goto out;
	snprintf(dir, sizeof(dir), "%s/%.2s", objects_dir, sha_out);
	if ((rc = perun_mkdirs(dir, 0755, err)))
		goto out;
	/* Any zlib stream reads back, in Python Perun too.  A big one is
	 * compressed in slices, on all processors, its map apart, to be read
	 * as it is walked (store_segments.h). */
	struct store_payload pl = { head, (size_t)head_len, fd, 0, text_len };
	if (text_len >= store_segmented_min() && map_span[1] > map_span[0]) {
		struct store_segmented *segmented =
			store_segments_compress(&pl, map_span[0], map_span[1], compression_level);
		rc = segmented
			     ? perun_durable_write_with(path, store_segments_write, segmented, err)
			     : perun_error_set(err, PERUN_EGENERIC,
					       "cannot compress profile object: out of memory");
		store_segments_free(segmented);
	} else {
		rc = write_whole(path, &pl, err);
	}
	if (!rc && created)
		*created = 1;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

static size_t max_object = PERUN_STORE_MAX_OBJECT_DEFAULT;

void perun_store_set_max_object(size_t chars)
{
	max_object = chars;
}

/* A header is "profile <type> <characters>\0": a few dozen bytes. */
#define OBJECT_HEADER_MAX 64

/* The header's type and character count, or -1 when it is no header. */
static int parse_header(const char *payload, size_t len, char type[16], size_t *chars)
{
	const char *nul = memchr(payload, '\0', len);
	int consumed = 0;
	if (!nul || sscanf(payload, "profile %15s %zu%n", type, chars, &consumed) != 2 ||
	    payload + consumed != nul ||
	    (strcmp(type, "time") && strcmp(type, "mixed") && strcmp(type, "memory")))
		return -1;
	return 0;
}

static int too_long(const char *sha, struct perun_error *err)
{
	return perun_error_set(err, PERUN_EINVAL,
			       "malformed profile object %s: more data than its header says", sha);
}

/*
 * Start inflating a store object: its header is inflated first (into
 * head, *used bytes, which may run into the body) and bounds the rest (a
 * character is at most four bytes of UTF-8): *limit, the most the whole
 * payload may take, so that a damaged or hostile object (a zlib bomb)
 * fails as soon as it outgrows what its header says, never inflated
 * whole.  *zrc is inflate's last answer; zs needs inflateEnd either way.
 */
static int inflate_header(z_stream *zs, const unsigned char *in, size_t in_len, const char *sha,
			  char head[OBJECT_HEADER_MAX], size_t *used, int *zrc, char type[16],
			  size_t *chars, size_t *limit, struct perun_error *err)
{
	if (inflateInit(zs) != Z_OK)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	zs->next_in = (unsigned char *)in;
	zs->avail_in = (uInt)in_len;
	zs->next_out = (unsigned char *)head;
	zs->avail_out = OBJECT_HEADER_MAX;
	*zrc = inflate(zs, Z_SYNC_FLUSH);
	*used = OBJECT_HEADER_MAX - zs->avail_out;
	if (*zrc != Z_OK && *zrc != Z_STREAM_END && *zrc != Z_BUF_ERROR)
		return perun_error_set(err, PERUN_EINVAL,
				       "malformed profile object %s: not zlib data", sha);
	if (parse_header(head, *used, type, chars))
		return perun_error_set(err, PERUN_EINVAL, "malformed profile object %s: bad header",
				       sha);
	if (*chars > max_object)
		return perun_error_set(err, PERUN_EINVAL,
				       "malformed profile object %s: header says %zu characters, "
				       "over store.max_object_size (%zu)",
				       sha, *chars, max_object);
	size_t header = strlen(head) + 1;
	*limit = *chars > (SIZE_MAX / 2 - header) / 4 ? SIZE_MAX / 2 : header + 4 * *chars;
	if (*used > *limit)
		return too_long(sha, err);
	return 0;
}

/*
 * Inflate the whole object (header and body) into buf[0 .. cap) with
 * libdeflate, three times zlib's speed on big objects: 0 and *used bytes,
 * 1 when it takes more than cap bytes, or the error of data that is not
 * zlib's (damaged, truncated).  Bytes after the zlib stream are ignored,
 * as zlib's inflate ignores them.
 */
static int inflate_whole(const unsigned char *in, size_t in_len, const char *sha, char *buf,
			 size_t cap, size_t *used, struct perun_error *err)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t in_used = 0;
	if (!d)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	enum libdeflate_result r =
		libdeflate_zlib_decompress_ex(d, in, in_len, buf, cap, &in_used, used);
	libdeflate_free_decompressor(d);
	if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
		return 1;
	if (r != LIBDEFLATE_SUCCESS)
		return perun_error_set(err, PERUN_EINVAL,
				       "malformed profile object %s: not zlib data", sha);
	return 0;
}

/*
 * Inflate a store object whole (see inflate_header) into buf[0 .. *used)
 * of *alloc bytes: first into room for the characters the header says as
 * bytes (ASCII, most profiles), then, when it did not fit, into room for
 * the most the header allows (unwritten pages take no memory).  alloc_fn
 * makes a buffer of the size asked; release_fn frees one.
 */
struct inflate_room {
	char *(*alloc_fn)(struct inflate_room *room, size_t size);
	void (*release_fn)(struct inflate_room *room, char *buf, size_t size);
	int prefault; /* fresh mappings: their pages made ahead (prefault_start) */
};

/*
 * The pages of a fresh mapping made ahead of the inflate filling it, on
 * another processor: the kernel's zeroing of 400 MB of fresh pages (a
 * tenth of showing a stored 380 MB profile) overlaps the inflate instead
 * of following it.  A page made twice is made once; one the inflate
 * reaches first it makes itself.
 */
struct prefault {
	char *buf;
	size_t len;
	atomic_int stop;
	pthread_t thread;
	int started;
};

#define PREFAULT_STEP ((size_t)4 << 20)
#define PREFAULT_MIN  ((size_t)16 << 20)

static void *prefault_run(void *data)
{
	struct prefault *pf = data;
	for (size_t at = 0; at < pf->len && !atomic_load(&pf->stop); at += PREFAULT_STEP) {
		size_t n = pf->len - at < PREFAULT_STEP ? pf->len - at : PREFAULT_STEP;
		if (madvise(pf->buf + at, n, MADV_POPULATE_WRITE))
			break; /* an older kernel: the inflate makes them */
	}
	return NULL;
}

static void prefault_start(struct prefault *pf, char *buf, size_t len)
{
	pf->buf = buf;
	pf->len = len;
	atomic_init(&pf->stop, 0);
	pf->started = len >= PREFAULT_MIN && !pthread_create(&pf->thread, NULL, prefault_run, pf);
}

static void prefault_stop(struct prefault *pf)
{
	atomic_store(&pf->stop, 1);
	if (pf->started)
		pthread_join(pf->thread, NULL);
}

static int inflate_sized(const unsigned char *in, size_t in_len, const char *sha, char type[16],
			 size_t *chars, size_t *header, struct inflate_room *room, char **out,
			 size_t *out_alloc, size_t *used, struct perun_error *err)
{
	z_stream zs = { 0 };
	char head[OBJECT_HEADER_MAX];
	size_t limit = 0, head_used;
	int zrc;
	int rc = inflate_header(&zs, in, in_len, sha, head, &head_used, &zrc, type, chars, &limit,
				err);
	inflateEnd(&zs);
	if (rc)
		return rc;
	*header = strlen(head) + 1;
	size_t sizes[2] = { *header + *chars + 1, limit + 1 };
	for (int k = sizes[1] > sizes[0] ? 0 : 1; k < 2; k++) {
		char *buf = room->alloc_fn(room, sizes[k]);
		struct prefault pf;
		if (!buf)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		/* Only the size the header says: more is for text not ASCII. */
		if (room->prefault)
			prefault_start(&pf, buf, sizes[0]);
		rc = inflate_whole(in, in_len, sha, buf, sizes[k], used, err);
		if (room->prefault)
			prefault_stop(&pf);
		if (!rc && *used > limit)
			rc = 1;
		if (!rc) {
			*out = buf;
			*out_alloc = sizes[k];
			return 0;
		}
		room->release_fn(room, buf, sizes[k]);
		if (rc < 0)
			return rc;
		/* No room in the first size: the second has all the header
		 * allows. */
	}
	return too_long(sha, err);
}

static char *heap_alloc(struct inflate_room *room, size_t size)
{
	(void)room;
	return malloc(size);
}

static void heap_release(struct inflate_room *room, char *buf, size_t size)
{
	(void)room;
	(void)size;
	free(buf);
}

/* Inflate a store object whole into *out (see inflate_header). */
static int inflate_object(const unsigned char *in, size_t in_len, const char *sha, char **out,
			  size_t *out_len, char type[16], size_t *chars, struct perun_error *err)
{
	struct inflate_room room = { heap_alloc, heap_release, 0 };
	char *buf;
	size_t alloc, used, header;
	int rc = inflate_sized(in, in_len, sha, type, chars, &header, &room, &buf, &alloc, &used,
			       err);
	if (rc)
		return rc;
	buf[used] = '\0'; /* used < alloc: at most limit */
	*out = buf;
	*out_len = used;
	return 0;
}

/* An object's packed bytes; a missing object is named as such. */
static int read_packed(const char *objects_dir, const char *sha, char **packed, size_t *len,
		       struct perun_error *err)
{
	char path[PATH_MAX];
	perun_store_object_path(objects_dir, sha, path, sizeof(path));
	int rc = perun_file_read(path, packed, len, err);
	if (rc && err && err->code == PERUN_ENOTFOUND)
		return perun_error_set(err, PERUN_ENOTFOUND,
				       "profile object %s is missing from the store", sha);
	return rc;
}

/* The profile of packed (an object's zlib bytes, named sha); with verify,
 * only when its payload hashes to sha. */
static int load_packed(const char *packed, size_t packed_len, const char *sha, int verify,
		       struct perun_profile **out, struct perun_error *err)
{
	char *payload = NULL, type[16], actual[PERUN_SHA1_HEX];
	size_t payload_len = 0, size;
	int rc = inflate_object((const unsigned char *)packed, packed_len, sha, &payload,
				&payload_len, type, &size, err);
	if (rc)
		return rc;
	const char *nul = memchr(payload, '\0', payload_len);
	const char *body = nul + 1;
	size_t body_len = payload_len - (size_t)(body - payload);
	if (verify)
		perun_sha1_hex(payload, payload_len, actual);
	if (verify && strcmp(actual, sha))
		rc = perun_error_set(err, PERUN_EINVAL,
				     "profile object %s does not match its SHA-1 (it hashes to %s)",
				     sha, actual);
	else if (store_utf8_length(body, body_len) != size)
		rc = perun_error_set(err, PERUN_EINVAL,
				     "malformed profile object %s: header says %zu characters, "
				     "body has %zu",
				     sha, size, store_utf8_length(body, body_len));
	if (!rc) {
		char name[64];
		snprintf(name, sizeof(name), "object %.12s", sha);
		rc = perun_profile_load_buffer(body, body_len, name, out, err);
	}
	free(payload);
	return rc;
}

int perun_store_read_profile(const char *objects_dir, const char *sha, struct perun_profile **out,
			     struct perun_error *err)
{
	char *packed = NULL;
	size_t packed_len;
	int rc = read_packed(objects_dir, sha, &packed, &packed_len, err);
	if (!rc)
		rc = load_packed(packed, packed_len, sha, 0, out, err);
	free(packed);
	return rc;
}

int perun_store_load_packed(const void *packed, size_t len, const char *sha,
			    struct perun_profile **out, struct perun_error *err)
{
	return load_packed(packed, len, sha, 1, out, err);
}

/* Room in anonymous memory, in huge pages where the kernel has them: a
 * page fault per 2 MB, not per 4 KB (an anonymous file's 4 KB faults took
 * more system time than the inflate), and pages never written take no
 * memory. */
static char *anon_alloc(struct inflate_room *room, size_t size)
{
	(void)room;
	char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	perun_advise_huge_pages(map, size);
	return map;
}

static void anon_release(struct inflate_room *room, char *buf, size_t size)
{
	(void)room;
	munmap(buf, size);
}

/* A stored profile's text, inflated, for the streamed load: loaded again
 * from its object. */
struct object_source {
	char *objects_dir;
	char sha[PERUN_SHA1_HEX];
	char name[64];
	char *buf; /* the anonymous mapping: header, then the text */
	size_t alloc;
	/* A segmented object: its bytes, mapped (or read when they cannot
	 * be), the parts around its map inflated, the map read from them. */
	unsigned char *packed;
	size_t packed_len;
	int packed_mapped;
	struct segmented_object object;
	char *outline;
};

static int object_reload(void *data, struct perun_profile **out, struct perun_error *err)
{
	struct object_source *os = data;
	/* PERUN_TEST_NO_RELOAD: tests of the streamed reading fail where it
	 * would fall back to the whole load, which gives the same output. */
	if (getenv("PERUN_TEST_NO_RELOAD"))
		return perun_error_set(err, PERUN_EGENERIC, "object %.12s: loaded again", os->sha);
	return perun_store_read_profile(os->objects_dir, os->sha, out, err);
}

static void release_packed(struct object_source *os)
{
	if (os->packed_mapped)
		munmap(os->packed, os->packed_len);
	else
		free(os->packed);
	os->packed = NULL;
}

static void object_release(void *data)
{
	struct object_source *os = data;
	if (os->buf)
		munmap(os->buf, os->alloc);
	release_packed(os);
	free(os->outline);
	free(os->objects_dir);
	free(os);
}

/* The object's bytes: its file's pages mapped, or read (whose error names
 * a missing object). */
static int object_bytes(const char *objects_dir, struct object_source *os, struct perun_error *err)
{
	char path[PATH_MAX];
	struct stat sb;
	perun_store_object_path(objects_dir, os->sha, path, sizeof(path));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			close(fd);
			os->packed = map;
			os->packed_len = (size_t)sb.st_size;
			os->packed_mapped = 1;
			return 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return read_packed(objects_dir, os->sha, (char **)&os->packed, &os->packed_len, err);
}

/*
 * The parts of a segmented object around its map (store_segments.h):
 * 0 and the outline's header length in *header, or -1 when they are not
 * what the index says (the object is then read whole).
 */
static int read_outline(struct object_source *os, size_t *header)
{
	struct segmented_object *o = &os->object;
	char type[16];
	size_t outline_len, chars;
	o->packed = os->packed;
	o->packed_len = os->packed_len;
	o->mapped = os->packed_mapped;
	if (store_segments_find(os->packed, os->packed_len, &o->seg) ||
	    store_segments_outline(o, &os->outline, &outline_len))
		return -1;
	const struct store_segments *seg = &o->seg;
	if (parse_header(os->outline, seg->map_begin, type, &chars) || chars > max_object)
		return -1;
	*header = strlen(os->outline) + 1;
	size_t around = store_utf8_length(os->outline + *header, seg->map_begin - *header) +
			store_utf8_length(os->outline + seg->map_begin + 2,
					  outline_len - seg->map_begin - 2);
	/* The most the header allows, as for a whole inflate. */
	if (around > chars || seg->payload_len - *header > 4 * chars)
		return -1;
	o->map_chars = chars - around;
	return 0;
}

/*
 * The object streamed: a segmented one's map inflated as it is walked, a
 * window at a time; any other inflated into anonymous memory, its map
 * read from there as it is walked, as a profile's file is.  Its messages
 * name the object, as the whole load's do.
 */
int perun_store_read_profile_streamed(const char *objects_dir, const char *sha,
				      struct perun_profile **out, struct perun_error *err)
{
	char type[16];
	size_t chars, header = 0, used = 0;
	struct inflate_room room = { anon_alloc, anon_release, 1 };
	struct object_source *os = calloc(1, sizeof(*os));
	if (!os || !(os->objects_dir = strdup(objects_dir))) {
		free(os);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	snprintf(os->sha, sizeof(os->sha), "%s", sha);
	snprintf(os->name, sizeof(os->name), "object %.12s", sha);
	int rc = object_bytes(objects_dir, os, err);
	if (!rc && !read_outline(os, &header)) {
		struct perun_profile_source src = {
			.text = os->outline + header,
			.len = os->object.seg.map_begin - header + 2 +
			       (os->object.seg.payload_len - os->object.seg.map_end),
			.name = os->name,
			.reload = object_reload,
			.release = object_release,
			.data = os,
		};
		struct perun_profile_map_reader map = store_segments_map_reader(&os->object);
		return perun_profile_load_outline_streamed(&src, os->object.seg.map_begin - header,
							   &map, out, err);
	}
	free(os->outline);
	os->outline = NULL;
	if (!rc)
		rc = inflate_sized(os->packed, os->packed_len, sha, type, &chars, &header, &room,
				   &os->buf, &os->alloc, &used, err);
	release_packed(os);
	size_t len = used - header;
	if (!rc && store_utf8_length(os->buf + header, len) != chars)
		rc = perun_error_set(err, PERUN_EINVAL,
				     "malformed profile object %s: header says %zu characters, "
				     "body has %zu",
				     sha, chars, store_utf8_length(os->buf + header, len));
	if (rc) {
		object_release(os);
		return rc;
	}
	struct perun_profile_source src = {
		.text = os->buf + header,
		.len = len,
		.name = os->name,
		.reload = object_reload,
		.release = object_release,
		.data = os,
	};
	return perun_profile_load_memory_streamed(&src, out, err);
}

int perun_store_verify_packed(const void *packed, size_t len, const char *sha,
			      struct perun_error *err)
{
	char *payload = NULL, type[16], actual[PERUN_SHA1_HEX];
	size_t payload_len = 0, chars;
	int rc = inflate_object(packed, len, sha, &payload, &payload_len, type, &chars, err);
	if (rc)
		return rc;
	perun_sha1_hex(payload, payload_len, actual);
	free(payload);
	if (strcmp(actual, sha))
		return perun_error_set(
			err, PERUN_EINVAL,
			"profile object %s does not match its SHA-1 (it hashes to %s)", sha,
			actual);
	return 0;
}

int perun_store_write_packed(const char *objects_dir, const char *sha, const void *packed,
			     size_t len, int *created, struct perun_error *err)
{
	char path[PATH_MAX], dir[PATH_MAX];
	*created = 0;
	perun_store_object_path(objects_dir, sha, path, sizeof(path));
	if (access(perun_durable_current(path), F_OK) == 0)
		return 0;
	int rc = perun_store_verify_packed(packed, len, sha, err);
	snprintf(dir, sizeof(dir), "%s/%.2s", objects_dir, sha);
	/* A pull writes thousands: one stat, not a mkdir per component. */
	struct stat st;
	if (!rc && (stat(dir, &st) || !S_ISDIR(st.st_mode)))
		rc = perun_mkdirs(dir, 0755, err);
	if (!rc)
		rc = perun_durable_write(path, packed, len, err);
	*created = !rc;
	return rc;
}

void perun_store_remove_object(const char *objects_dir, const char *sha)
{
	char path[PATH_MAX];
	if (!objects_dir || !sha || !*sha)
		return;
	perun_store_object_path(objects_dir, sha, path, sizeof(path));
	unlink(path);
}
