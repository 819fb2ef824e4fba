/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Line reading over zstd (libzstd's streaming decoder), gzip (zlib's
 * gzread, which also reads plain text) or plain files: foreign tools'
 * data files (heaptrack writes .zst or .gz) are read without unpacking
 * them to disk first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "compressed.h"

#define CHUNK (256 * 1024)

struct compressed_file {
	char *path;
	FILE *raw;	    /* zstd: the compressed bytes */
	ZSTD_DStream *zstd; /* NULL: gz reads the file */
	gzFile gz;
	unsigned char *in; /* zstd input */
	ZSTD_inBuffer zin;
	int zstd_frame_open; /* a frame was started and not finished */
	char *buf;	     /* decompressed bytes not yet returned */
	size_t start, end, cap;
	int eof;
};

static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

int compressed_open(const char *path, struct compressed_file **out, struct perun_error *err)
{
	unsigned char magic[4] = { 0 };
	FILE *probe = fopen(path, "rbe");
	if (!probe)
		return perun_error_set_errno(err, PERUN_EINVAL, errno, "cannot read '%s'", path);
	size_t n = fread(magic, 1, sizeof(magic), probe);
	struct compressed_file *f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path)) || !(f->buf = malloc(CHUNK))) {
		fclose(probe);
		compressed_close(f);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	f->cap = CHUNK;
	if (n == sizeof(magic) && !memcmp(magic, zstd_magic, sizeof(magic))) {
		rewind(probe);
		f->raw = probe;
		f->zstd = ZSTD_createDStream();
		f->in = malloc(CHUNK);
		if (!f->zstd || !f->in) {
			compressed_close(f);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		ZSTD_initDStream(f->zstd);
		f->zin = (ZSTD_inBuffer){ f->in, 0, 0 };
	} else {
		fclose(probe);
		f->gz = gzopen(path, "rb");
		if (!f->gz) {
			int e = errno;
			compressed_close(f);
			return perun_error_set_errno(err, PERUN_EINVAL, e, "cannot read '%s'",
						     path);
		}
	}
	*out = f;
	return 0;
}

int compressed_fdopen(int fd, const char *name, struct compressed_file **out,
		      struct perun_error *err)
{
	struct compressed_file *f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(name)) || !(f->buf = malloc(CHUNK))) {
		compressed_close(f);
		close(fd);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	f->cap = CHUNK;
	if (!(f->gz = gzdopen(fd, "rb"))) {
		compressed_close(f);
		close(fd);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	*out = f;
	return 0;
}

/* Append decompressed bytes to buf[end..cap): >0 bytes, 0 at the end, <0. */
static long fill(struct compressed_file *f, struct perun_error *err)
{
	if (!f->zstd) {
		int n = gzread(f->gz, f->buf + f->end, (unsigned)(f->cap - f->end));
		if (n < 0) {
			int code;
			const char *msg = gzerror(f->gz, &code);
			return perun_error_set(err, PERUN_EINVAL, "'%s' is corrupt: %s", f->path,
					       msg);
		}
		return n;
	}
	for (;;) {
		if (f->zin.pos == f->zin.size) {
			f->zin.size = fread(f->in, 1, CHUNK, f->raw);
			f->zin.pos = 0;
			if (f->zin.size == 0) {
				if (f->zstd_frame_open)
					return perun_error_set(err, PERUN_EINVAL,
							       "'%s' is corrupt: the zstd stream "
							       "is truncated",
							       f->path);
				return 0;
			}
		}
		ZSTD_outBuffer zout = { f->buf + f->end, f->cap - f->end, 0 };
		size_t rc = ZSTD_decompressStream(f->zstd, &zout, &f->zin);
		if (ZSTD_isError(rc))
			return perun_error_set(err, PERUN_EINVAL, "'%s' is corrupt: %s", f->path,
					       ZSTD_getErrorName(rc));
		f->zstd_frame_open = rc != 0;
		if (zout.pos)
			return (long)zout.pos;
	}
}

int compressed_getline(struct compressed_file *f, char **line, size_t *len, struct perun_error *err)
{
	for (;;) {
		char *nl = memchr(f->buf + f->start, '\n', f->end - f->start);
		if (nl || (f->eof && f->end > f->start)) {
			char *s = f->buf + f->start;
			size_t l = nl ? (size_t)(nl - s) : f->end - f->start;
			s[l] = '\0'; /* over the newline, or the spare byte kept below */
			f->start += l + (nl != NULL);
			*line = s;
			*len = l;
			return 1;
		}
		if (f->eof)
			return 0;
		/* Move the partial line to the front; grow for long lines. */
		memmove(f->buf, f->buf + f->start, f->end - f->start);
		f->end -= f->start;
		f->start = 0;
		if (f->cap - f->end < 2) {
			char *b = realloc(f->buf, f->cap * 2);
			if (!b)
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			f->buf = b;
			f->cap *= 2;
		}
		f->cap--; /* a spare byte for the terminator of a last line */
		long n = fill(f, err);
		f->cap++;
		if (n < 0)
			return (int)n;
		if (n == 0)
			f->eof = 1;
		f->end += (size_t)n;
	}
}

void compressed_close(struct compressed_file *f)
{
	if (!f)
		return;
	if (f->zstd)
		ZSTD_freeDStream(f->zstd);
	if (f->raw)
		fclose(f->raw);
	if (f->gz)
		gzclose(f->gz);
	free(f->in);
	free(f->buf);
	free(f->path);
	free(f);
}
