/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a text file line by line, zstd- or gzip-compressed or not. */
#ifndef PERUN_CORE_COMPRESSED_H
#define PERUN_CORE_COMPRESSED_H

#include <stddef.h>
#include <perun/error.h>

struct compressed_file;

/* Open path, recognising zstd and gzip by their magic numbers; on success
 * *out is the caller's, closed with compressed_close. */
int compressed_open(const char *path, struct compressed_file **out, struct perun_error *err);
/* Read an open descriptor (a pipe: plain or gzip text, no zstd); fd is
 * the reader's to close; name names it in errors. */
int compressed_fdopen(int fd, const char *name, struct compressed_file **out,
		      struct perun_error *err);
/*
 * The next line, without its newline, NUL-terminated, valid until the next
 * call: 1 and the line in line and len, 0 at the end, or a negative code (a corrupt or
 * truncated stream) with err naming the file.
 */
int compressed_getline(struct compressed_file *f, char **line, size_t *len,
		       struct perun_error *err);
void compressed_close(struct compressed_file *f);

#endif
