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

/* mkdir -p; existing directories are fine. */
PERUN_API int perun_mkdirs(const char *path, int mode, struct perun_error *err);

#endif
