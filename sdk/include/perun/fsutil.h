/* SPDX-License-Identifier: GPL-3.0-or-later */
/* File helpers: whole-file reads and crash-safe writes. */
#ifndef PERUN_FSUTIL_H
#define PERUN_FSUTIL_H

#include <stddef.h>
#include <perun/error.h>

/*
 * Ask for huge pages for the untouched memory [p, p + len) when it is big
 * (a million-stack profile touches gigabytes: with 4 KiB pages, faults and
 * TLB misses cost a tenth of the time).  Only advice: nothing happens where
 * the kernel has none to give.
 */
PERUN_API void perun_advise_huge_pages(void *p, size_t len);

/*
 * Read a whole file into a NUL-terminated buffer the caller frees.
 * *len (optional) gets the byte count without the NUL.
 */
PERUN_API int perun_file_read(const char *path, char **buf, size_t *len, struct perun_error *err);

/*
 * Replace path atomically: write a temporary file next to it, fsync it,
 * rename it over path and fsync the directory.  A crash leaves either the
 * old or the new content, never a mix.  An existing device or FIFO is
 * written in place instead.
 */
PERUN_API int perun_file_write_atomic(const char *path, const void *data, size_t len,
				      struct perun_error *err);

/*
 * What writes a file's content into fd, for content made as it is written
 * (perun_profile_write): 0, or -1 with errno set; the caller names the
 * file in its message.
 */
typedef int (*perun_write_fn)(int fd, void *data);
/* perun_file_write_atomic of the content fn(fd, data) writes. */
PERUN_API int perun_file_write_atomic_with(const char *path, perun_write_fn fn, void *data,
					   struct perun_error *err);
/* Write all of data[0 .. len) to fd, again after EINTR: 0, or -1 and errno. */
PERUN_API int perun_write_all(int fd, const void *data, size_t len);
/* A buffer as a perun_write_fn writes it: perun_write_buffer(fd, &buffer). */
struct perun_write_buffer {
	const void *data;
	size_t len;
};
PERUN_API int perun_write_buffer(int fd, void *buffer);

/* mkdir -p; existing directories are fine. */
PERUN_API int perun_mkdirs(const char *path, int mode, struct perun_error *err);

#endif
