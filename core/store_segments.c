/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Segmented store objects: compressed in parts, the map read as walked. */
#define _GNU_SOURCE /* adler32_combine64 */
#include "autoconfig.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <libdeflate.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include <perun/fsutil.h>

#include "store_segments.h"

/*
 * The index after the stream, little-endian: where each of the map's
 * slices starts in the object (a u64 each), then the eight fields of
 * struct store_segments, the CRC-32 of all before, the index's version,
 * and the magic that ends the object.  The slices' starts are for
 * readers that inflate them apart.
 */
#define INDEX_FIELDS  64
#define INDEX_BYTES   (INDEX_FIELDS + 16)
#define INDEX_VERSION 1
static const char index_magic[8] = { 'P', 'E', 'R', 'U', 'N', 'S', 'E', 'G' };

/* The map's slices, compressed on all processors. */
#define SLICE_BYTES ((size_t)8 << 20)

static size_t test_size(void)
{
	const char *test = getenv("PERUN_TEST_SEGMENTED");
	long n = test ? atol(test) : 0;
	return n > 0 ? (size_t)n : 0;
}

size_t store_segmented_min(void)
{
	size_t test = test_size();
	return test ? test : STORE_SEGMENTED_MIN;
}

int store_read_at(int fd, void *buf, size_t len, off_t at)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, at + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

size_t store_utf8_length(const char *s, size_t len)
{
	/* Eight bytes at a time (objects are hundreds of megabytes): a
	 * continuation byte is 10xxxxxx, its top bit set and the next not.
	 * Each byte's flag (0 or 1) is summed in its own lane, the lanes
	 * added up every 255 words: no popcount, which the baseline x86-64
	 * has only as a libgcc call. */
	const uint64_t high = 0x8080808080808080ull;
	size_t continuations = 0, i = 0;
	while (i + 8 <= len) {
		uint64_t lanes = 0;
		for (int k = 0; k < 255 && i + 8 <= len; k++, i += 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			lanes += (w & high & ~(w << 1)) >> 7;
		}
		for (int b = 0; b < 8; b++)
			continuations += (size_t)((lanes >> (8 * b)) & 0xff);
	}
	for (; i < len; i++)
		continuations += ((unsigned char)s[i] & 0xc0) == 0x80;
	return len - continuations;
}

/* ---- writing ------------------------------------------------------------- */

/* One part of the payload, compressed on its own: in memory, or read
 * from the payload's file. */
struct piece {
	const unsigned char *in;
	off_t at; /* in the file, where in is NULL */
	size_t len;
	int last; /* the stream's end, not a flush point */
	unsigned char *out;
	size_t out_len;
	uint32_t adler;
	int failed;
};

struct compressing {
	struct piece *pieces;
	size_t n;
	int fd;
	size_t slice;
	int level;
	int isal; /* ISA-L's level, or 0 for zlib */
	atomic_size_t next;
};

/* A piece by zlib, raw (the zlib header and Adler-32 are the whole
 * stream's), ending on a full flush point, or the stream's end. */
static void compress_piece_zlib(struct piece *pc, const unsigned char *in, int level)
{
	z_stream zs = { 0 };
	if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		pc->failed = 1;
		return;
	}
	/* A full flush ends on a byte with an empty stored block: a little
	 * over deflateBound, which counts a finish. */
	size_t cap = deflateBound(&zs, (uLong)pc->len) + 64;
	pc->out = malloc(cap);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)pc->len;
	zs.next_out = pc->out;
	zs.avail_out = (uInt)cap;
	int rc = pc->out ? deflate(&zs, pc->last ? Z_FINISH : Z_FULL_FLUSH) : Z_MEM_ERROR;
	pc->failed = pc->last ? rc != Z_STREAM_END : rc != Z_OK || zs.avail_in || !zs.avail_out;
	pc->out_len = zs.total_out;
	deflateEnd(&zs);
}

#ifdef HAVE_ISAL
/* A piece by ISA-L, in one call: its full flush ends on a byte, so that
 * the next piece's blocks follow. */
static void compress_piece_isal(struct piece *pc, const unsigned char *in, int level)
{
	static const uint32_t level_buf[] = { 0, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
					      ISAL_DEF_LVL3_DEFAULT };
	struct isal_zstream s;
	isal_deflate_stateless_init(&s);
	s.level = (uint32_t)level;
	s.level_buf_size = level_buf[level];
	s.level_buf = malloc(s.level_buf_size);
	/* Stored blocks at worst: 5 bytes a 64 KB block. */
	size_t cap = pc->len + pc->len / 1024 + 1024;
	pc->out = malloc(cap);
	s.next_in = (uint8_t *)in;
	s.avail_in = (uint32_t)pc->len;
	s.next_out = pc->out;
	s.avail_out = (uint32_t)cap;
	s.flush = FULL_FLUSH;
	s.end_of_stream = (uint16_t)pc->last;
	s.gzip_flag = IGZIP_DEFLATE;
	pc->failed =
		!s.level_buf || !pc->out || isal_deflate_stateless(&s) != COMP_OK || s.avail_in;
	pc->out_len = s.total_out;
	free(s.level_buf);
}
#endif

/* ISA-L, where perun has it, unless PERUN_TEST_NO_ISAL=1 asks for what a
 * build without it does (zlib, libdeflate), for tests of that. */
static int use_isal(void)
{
#ifdef HAVE_ISAL
	return !getenv("PERUN_TEST_NO_ISAL");
#else
	return 0;
#endif
}

/*
 * store.compression (libdeflate's 0 to 12) as ISA-L's levels 1 to 3;
 * 0, no ISA-L level: zlib's (at most 9).  ISA-L's level 1 compresses 400
 * MB of a profile in 0.32 s to 61 MB, zlib's in 1.4 s to 67 MB.
 */
static int isal_level(int level)
{
	if (level <= 0 || !use_isal())
		return 0;
	return level == 1 ? 1 : level <= 6 ? 2 : 3;
}

static void compress_piece(struct piece *pc, const unsigned char *in, int level, int isal)
{
	pc->adler = (uint32_t)libdeflate_adler32(1, in, pc->len);
#ifdef HAVE_ISAL
	if (isal) {
		compress_piece_isal(pc, in, isal);
		return;
	}
#endif
	(void)isal;
	compress_piece_zlib(pc, in, level > 9 ? 9 : level);
}

/* Each thread reads the pieces of the file into a buffer of its own: the
 * payload is never in memory whole. */
static void *compress_run(void *data)
{
	struct compressing *c = data;
	unsigned char *buf = malloc(c->slice);
	size_t i;
	while ((i = atomic_fetch_add(&c->next, 1)) < c->n) {
		struct piece *pc = &c->pieces[i];
		const unsigned char *in = pc->in;
		if (!in && buf && !store_read_at(c->fd, buf, pc->len, pc->at))
			in = buf;
		if (in)
			compress_piece(pc, in, c->level, c->isal);
		else
			pc->failed = 1;
	}
	free(buf);
	return NULL;
}

/* Cut the text's [from, to) into pieces of at most slice bytes, read
 * from the file at text_at. */
static size_t cut(struct piece *pieces, size_t n, off_t text_at, size_t from, size_t to,
		  size_t slice)
{
	for (size_t at = from; at < to; at += slice) {
		pieces[n].at = text_at + (off_t)at;
		pieces[n].len = to - at < slice ? to - at : slice;
		n++;
	}
	return n;
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)get_u64(p) & 0xffffffffu;
}

static void index_fields(const struct store_segments *seg, unsigned char out[INDEX_FIELDS])
{
	const uint64_t f[8] = { seg->map_packed, seg->tail_packed, seg->stream_end,  seg->map_begin,
				seg->map_end,	 seg->payload_len, seg->slice_bytes, seg->slices };
	for (int i = 0; i < 8; i++)
		put_u64(out + 8 * i, f[i]);
}

/* A payload compressed as a segmented object: its pieces, then the end
 * (the stream's Adler-32 and the index). */
struct store_segmented {
	struct piece *pieces;
	size_t n;
	unsigned char head[2];
	unsigned char *end;
	size_t end_len;
};

void store_segments_free(struct store_segmented *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		free(o->pieces[i].out);
	free(o->pieces);
	free(o->end);
	free(o);
}

/* Compress o's pieces on all processors: 0, or -1 when one failed. */
static int compress_all(struct store_segmented *o, int fd, size_t slice, int level)
{
	struct compressing c = { o->pieces, o->n, fd, slice, level, isal_level(level), 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t threads = cpus > 1 ? (size_t)(cpus < 8 ? cpus : 8) - 1 : 0;
	pthread_t helper[7];
	size_t started = 0;
	atomic_init(&c.next, 0);
	while (started < threads && started + 1 < c.n &&
	       !pthread_create(&helper[started], NULL, compress_run, &c))
		started++;
	compress_run(&c);
	for (size_t i = 0; i < started; i++)
		pthread_join(helper[i], NULL);
	for (size_t i = 0; i < o->n; i++)
		if (o->pieces[i].failed)
			return -1;
	return 0;
}

/* The stream's Adler-32 and the index, once the pieces are compressed. */
static int make_end(struct store_segmented *o, struct store_segments *seg, size_t first_map,
		    size_t first_tail)
{
	o->end_len = 4 + 8 * seg->slices + INDEX_BYTES;
	unsigned char *e = o->end = malloc(o->end_len);
	if (!e)
		return -1;
	size_t at = 2;
	uLong adler = 1;
	for (size_t i = 0; i < o->n; i++) {
		if (i == first_map)
			seg->map_packed = at;
		if (i == first_tail)
			seg->tail_packed = at;
		if (i >= first_map && i < first_tail)
			put_u64(e + 4 + 8 * (i - first_map), at);
		at += o->pieces[i].out_len;
		adler = adler32_combine64(adler, o->pieces[i].adler, (z_off64_t)o->pieces[i].len);
	}
	for (int i = 0; i < 4; i++)
		e[i] = (unsigned char)(adler >> (24 - 8 * i));
	seg->stream_end = at + 4;
	unsigned char *fields = e + 4 + 8 * seg->slices;
	index_fields(seg, fields);
	put_u64(fields + INDEX_FIELDS,
		(uint64_t)libdeflate_crc32(0, e + 4, 8 * seg->slices + INDEX_FIELDS) |
			(uint64_t)INDEX_VERSION << 32);
	memcpy(fields + INDEX_FIELDS + 8, index_magic, 8);
	return 0;
}

struct store_segmented *store_segments_compress(const struct store_payload *pl, size_t map_begin,
						size_t map_end, int level)
{
	size_t slice = test_size() ? test_size() : SLICE_BYTES, len = pl->text_len;
	size_t most =
		map_begin / slice + (map_end - map_begin) / slice + (len - map_end) / slice + 4;
	struct store_segmented *o = calloc(1, sizeof(*o));
	if (!o || !(o->pieces = calloc(most, sizeof(struct piece)))) {
		free(o);
		return NULL;
	}
	/* The header, before the map, the map, after it: a flush point at
	 * each border. */
	o->pieces[0].in = (const unsigned char *)pl->head;
	o->pieces[0].len = pl->head_len;
	size_t first_map = o->n = cut(o->pieces, 1, pl->text_at, 0, map_begin, slice);
	size_t first_tail = o->n = cut(o->pieces, o->n, pl->text_at, map_begin, map_end, slice);
	o->n = cut(o->pieces, o->n, pl->text_at, map_end, len, slice);
	o->pieces[o->n - 1].last = 1;
	/* The zlib header: deflate with a 32 KB window, the level's flag,
	 * its check bits making it a multiple of 31 (RFC 1950). */
	int flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
	o->head[0] = 0x78;
	o->head[1] = (unsigned char)(flevel << 6);
	o->head[1] |= (unsigned char)(31 - (0x78 * 256 + o->head[1]) % 31);
	struct store_segments seg = {
		0,
		0,
		0,
		pl->head_len + map_begin,
		pl->head_len + map_end,
		pl->head_len + len,
		slice,
		first_tail - first_map,
	};
	if (compress_all(o, pl->fd, slice, level) || make_end(o, &seg, first_map, first_tail)) {
		store_segments_free(o);
		return NULL;
	}
	return o;
}

int store_segments_write(int fd, void *data)
{
	struct store_segmented *o = data;
	if (perun_write_all(fd, o->head, 2))
		return -1;
	for (size_t i = 0; i < o->n; i++)
		if (perun_write_all(fd, o->pieces[i].out, o->pieces[i].out_len))
			return -1;
	return perun_write_all(fd, o->end, o->end_len);
}

/* ---- reading ------------------------------------------------------------- */

int store_segments_find(const unsigned char *packed, size_t len, struct store_segments *seg)
{
	if (len < 2 + 4 + INDEX_BYTES)
		return -1;
	const unsigned char *ix = packed + len - INDEX_BYTES;
	if (memcmp(ix + INDEX_FIELDS + 8, index_magic, 8) ||
	    get_u32(ix + INDEX_FIELDS + 4) != INDEX_VERSION)
		return -1;
	seg->map_packed = get_u64(ix);
	seg->tail_packed = get_u64(ix + 8);
	seg->stream_end = get_u64(ix + 16);
	seg->map_begin = get_u64(ix + 24);
	seg->map_end = get_u64(ix + 32);
	seg->payload_len = get_u64(ix + 40);
	seg->slice_bytes = get_u64(ix + 48);
	seg->slices = get_u64(ix + 56);
	/* The slices' starts, then the fields, all checked; in order, and
	 * within the object. */
	if (seg->slices > (len - INDEX_BYTES) / 8 ||
	    seg->stream_end != len - INDEX_BYTES - 8 * seg->slices ||
	    get_u32(ix + INDEX_FIELDS) !=
		    (uint32_t)libdeflate_crc32(0, packed + seg->stream_end,
					       INDEX_BYTES - 16 + 8 * seg->slices))
		return -1;
	/* As many slices as the map takes, starting in order at the map. */
	size_t map = seg->map_end > seg->map_begin ? seg->map_end - seg->map_begin : 0;
	if (!seg->slice_bytes || !seg->slices ||
	    seg->slices != (map + seg->slice_bytes - 1) / seg->slice_bytes)
		return -1;
	const unsigned char *starts = packed + seg->stream_end;
	if (get_u64(starts) != seg->map_packed)
		return -1;
	for (uint64_t i = 1; i <= seg->slices; i++) {
		uint64_t next = i < seg->slices ? get_u64(starts + 8 * i) : seg->tail_packed;
		if (next <= get_u64(starts + 8 * (i - 1)))
			return -1;
	}
	if (seg->map_packed < 2 || seg->map_packed > seg->tail_packed ||
	    seg->tail_packed + 4 >= seg->stream_end || seg->map_begin >= seg->map_end ||
	    seg->map_end > seg->payload_len || seg->payload_len > SIZE_MAX / 2 ||
	    seg->stream_end > UINT32_MAX)
		return -1; /* zlib counts its input in 32 bits */
	return 0;
}

/*
 * in[0 .. in_len), deflate data ending on a flush point, into out[0 ..
 * want) by libdeflate, which wants a final block after it: 0 when exactly
 * want bytes came, else -1.  The data and the block are joined in
 * *scratch, of *scratch_len bytes, grown as needed.
 */
static int inflate_flushed(struct libdeflate_decompressor *d, const unsigned char *in,
			   size_t in_len, char *out, size_t want, unsigned char **scratch,
			   size_t *scratch_len)
{
	static const unsigned char final_block[5] = { 0x01, 0x00, 0x00, 0xff, 0xff };
	size_t made;
	if (*scratch_len < in_len + sizeof(final_block)) {
		free(*scratch);
		*scratch_len = in_len + sizeof(final_block);
		if (!(*scratch = malloc(*scratch_len)))
			return -1;
	}
	memcpy(*scratch, in, in_len);
	memcpy(*scratch + in_len, final_block, sizeof(final_block));
	return libdeflate_deflate_decompress(d, *scratch, in_len + sizeof(final_block), out, want,
					     &made) == LIBDEFLATE_SUCCESS &&
			       made == want
		       ? 0
		       : -1;
}

/* The parts around the map into buf: 0, or -1. */
static int inflate_around(const struct store_segments *seg, const unsigned char *p, char *buf,
			  struct libdeflate_decompressor *d)
{
	size_t before = seg->map_begin, after = seg->payload_len - seg->map_end;
	size_t tail = seg->stream_end - 4 - seg->tail_packed, used, made;
	unsigned char *scratch = NULL;
	size_t scratch_len = 0;
	/* A zlib header (RFC 1950): deflate, no preset dictionary. */
	int rc = (p[0] & 0x0f) != 8 || (p[1] & 0x20) || (p[0] * 256 + p[1]) % 31 ||
				 inflate_flushed(d, p + 2, seg->map_packed - 2, buf, before,
						 &scratch, &scratch_len) ||
				 libdeflate_deflate_decompress_ex(d, p + seg->tail_packed, tail,
								  buf + before + 2, after, &used,
								  &made) != LIBDEFLATE_SUCCESS ||
				 made != after || used != tail
			 ? -1
			 : 0;
	free(scratch);
	return rc;
}

int store_segments_outline(struct segmented_object *o, char **outline, size_t *outline_len)
{
	const struct store_segments *seg = &o->seg;
	const unsigned char *p = o->packed;
	size_t before = seg->map_begin, after = seg->payload_len - seg->map_end;
	/* Parts compress to no less than a thousandth (zlib's bound): an
	 * index claiming more is refused before any allocation. */
	if (before / 1032 > seg->map_packed || after / 1032 > seg->stream_end - seg->tail_packed)
		return -1;
	char *buf = malloc(before + 2 + after + 1);
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	int rc = buf && d ? inflate_around(seg, p, buf, d) : -1;
	if (d)
		libdeflate_free_decompressor(d);
	if (rc) {
		free(buf);
		return -1;
	}
	memcpy(buf + before, "{}", 2);
	buf[before + 2 + after] = '\0';
	o->adler_before = (uint32_t)libdeflate_adler32(1, buf, before);
	o->adler_after = (uint32_t)libdeflate_adler32(1, buf + before + 2, after);
	const unsigned char *a = p + seg->stream_end - 4;
	o->adler_stream = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	*outline = buf;
	*outline_len = before + 2 + after;
	return 0;
}

/* A walk's reading of the map, each slice a stream of its own: by ISA-L
 * where perun has it (twice zlib's speed, a third over libdeflate's);
 * else whole slices by libdeflate, straight into the room given, the rest
 * by zlib from the slice's start. */
struct map_reading {
	const struct segmented_object *o;
	int isal;
#ifdef HAVE_ISAL
	struct inflate_state st;
#endif
	z_stream zs;
	struct libdeflate_decompressor *whole;
	unsigned char *scratch; /* a slice's bytes, then a final empty block */
	size_t scratch_len;
	uint64_t slice;	 /* the slice read now */
	size_t in_slice; /* its bytes read (by zlib) */
	size_t left;	 /* of the map's bytes */
	uint32_t adler;
	size_t chars;
};

static uint64_t slice_start(const struct segmented_object *o, uint64_t i)
{
	return i < o->seg.slices ? get_u64(o->packed + o->seg.stream_end + 8 * i)
				 : o->seg.tail_packed;
}

static size_t slice_len(const struct segmented_object *o, uint64_t i)
{
	size_t map = o->seg.map_end - o->seg.map_begin;
	return i + 1 < o->seg.slices ? o->seg.slice_bytes
				     : map - (o->seg.slices - 1) * o->seg.slice_bytes;
}

static void *map_open(void *data)
{
	const struct segmented_object *o = data;
	struct map_reading *r = calloc(1, sizeof(*r));
	if (!r || inflateInit2(&r->zs, -15) != Z_OK) {
		free(r);
		return NULL;
	}
	if (!(r->whole = libdeflate_alloc_decompressor())) {
		inflateEnd(&r->zs);
		free(r);
		return NULL;
	}
	r->o = o;
	r->isal = use_isal();
	r->left = o->seg.map_end - o->seg.map_begin;
	r->adler = 1;
	return r;
}

/* The map all read: does the stream's Adler-32 hold, and the header's
 * count of characters? */
static int map_sound(const struct map_reading *r)
{
	const struct segmented_object *o = r->o;
	uLong adler = adler32_combine64(o->adler_before, r->adler,
					(z_off64_t)(o->seg.map_end - o->seg.map_begin));
	adler = adler32_combine64(adler, o->adler_after,
				  (z_off64_t)(o->seg.payload_len - o->seg.map_end));
	return adler == o->adler_stream && r->chars == o->map_chars;
}

/* The slice r is at, whole into out[0 .. slice_len): 0, or -1. */
static int inflate_slice(struct map_reading *r, char *out)
{
	const struct segmented_object *o = r->o;
	uint64_t start = slice_start(o, r->slice);
	return inflate_flushed(r->whole, o->packed + start, slice_start(o, r->slice + 1) - start,
			       out, slice_len(o, r->slice), &r->scratch, &r->scratch_len);
}

#ifdef HAVE_ISAL
/* Some of the slice r is at by ISA-L, into out[0 .. cap): the bytes made,
 * or 0 when it is damaged. */
static size_t inflate_some_isal(struct map_reading *r, char *out, size_t cap)
{
	const struct segmented_object *o = r->o;
	if (!r->in_slice) {
		isal_inflate_init(&r->st);
		r->st.crc_flag = ISAL_DEFLATE;
		r->st.next_in = (uint8_t *)o->packed + slice_start(o, r->slice);
		r->st.avail_in =
			(uint32_t)(slice_start(o, r->slice + 1) - slice_start(o, r->slice));
	}
	size_t want = slice_len(o, r->slice) - r->in_slice;
	want = want < cap ? want : cap;
	r->st.next_out = (uint8_t *)out;
	r->st.avail_out = (uint32_t)want;
	if (isal_inflate(&r->st) != ISAL_DECOMP_OK)
		return 0;
	return want - r->st.avail_out;
}
#endif

/* Some of the slice r is at by zlib, into out[0 .. cap): the bytes made,
 * or 0 when it is damaged. */
static size_t inflate_some(struct map_reading *r, char *out, size_t cap)
{
	const struct segmented_object *o = r->o;
#ifdef HAVE_ISAL
	if (r->isal)
		return inflate_some_isal(r, out, cap);
#endif
	if (!r->in_slice) {
		inflateReset(&r->zs);
		r->zs.next_in = (unsigned char *)o->packed + slice_start(o, r->slice);
		r->zs.avail_in = (uInt)(slice_start(o, r->slice + 1) - slice_start(o, r->slice));
	}
	size_t want = slice_len(o, r->slice) - r->in_slice;
	want = want < cap ? want : cap;
	r->zs.next_out = (unsigned char *)out;
	r->zs.avail_out = (uInt)want;
	int rc = inflate(&r->zs, Z_SYNC_FLUSH);
	if (rc != Z_OK && rc != Z_BUF_ERROR)
		return 0;
	return want - r->zs.avail_out;
}

/* A file's pages of slice i, read, given back to the page cache: a walk
 * holds a slice of the object, not all of it (a walk again reads them
 * back).  Only whole pages, and only of a file's mapping. */
static void drop_slice(const struct segmented_object *o, uint64_t i)
{
	if (!o->mapped)
		return;
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)(o->packed + slice_start(o, i)) + page - 1) & ~(page - 1);
	uintptr_t to = (uintptr_t)(o->packed + slice_start(o, i + 1)) & ~(page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

static long map_read(void *reading, char *buf, size_t cap)
{
	struct map_reading *r = reading;
	const struct segmented_object *o = r->o;
	if (!r->left)
		return map_sound(r) ? 0 : -1;
	cap = cap < ((size_t)1 << 30) ? cap : (size_t)1 << 30;
	size_t made = 0;
	while (r->left && made < cap) {
		size_t whole = slice_len(o, r->slice), n;
		if (!r->isal && !r->in_slice && cap - made >= whole) {
			if (inflate_slice(r, buf + made))
				return -1;
			n = whole;
		} else if (!(n = inflate_some(r, buf + made, cap - made))) {
			return -1;
		}
		r->in_slice += n;
		if (r->in_slice == whole) {
			drop_slice(o, r->slice);
			r->slice++;
			r->in_slice = 0;
		}
		r->adler = (uint32_t)libdeflate_adler32(r->adler, buf + made, n);
		r->chars += store_utf8_length(buf + made, n);
		r->left -= n;
		made += n;
	}
	return (long)made;
}

static void map_close(void *reading)
{
	struct map_reading *r = reading;
	inflateEnd(&r->zs);
	libdeflate_free_decompressor(r->whole);
	free(r->scratch);
	free(r);
}

struct perun_profile_map_reader store_segments_map_reader(const struct segmented_object *o)
{
	return (struct perun_profile_map_reader){
		.len = o->seg.map_end - o->seg.map_begin,
		/* ISA-L inflates any part of a slice at full speed, into
		 * chunks small enough to be parsed from the caches; zlib
		 * does not, and libdeflate takes slices whole. */
		.part = use_isal() ? 0 : o->seg.slice_bytes,
		.open = map_open,
		.read = map_read,
		.close = map_close,
		.data = (void *)o,
	};
}
