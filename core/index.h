/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The binary profile index of a minor version ("pidx"), as Python Perun
 * writes it: a 12-byte header ("pidx", int32 version, int32 count) and
 * entries sorted by (file name, time).  Version 1 entries hold mtime,
 * SHA-1 and name; version 2 adds type, cmd, workload, collector and
 * postprocessors.  Version 1 is read, version 2 is always written.
 * The pending index .perun/jobs/.index has the same format.
 */
#ifndef PERUN_CORE_INDEX_H
#define PERUN_CORE_INDEX_H

#include <stdint.h>
#include <perun/perun.h>

#define PERUN_INDEX_VERSION 2

struct perun_index_entry {
	uint32_t mtime; /* unix seconds */
	char time[20];	/* mtime as local "%Y-%m-%d %H:%M:%S" */
	char checksum[41];
	char *path; /* original file name */
	char *type, *cmd, *workload, *collector;
	char *postprocessors; /* names joined by " " */
};

struct perun_index {
	int version; /* as read; 0 when the file did not exist */
	size_t n, alloc;
	struct perun_index_entry *entries;
};

/*
 * Read path; a missing file gives an empty index.  Malformed files (bad
 * magic, newer version, truncated entries, count mismatch) are refused
 * with an error naming the file.
 */
int perun_index_read(const char *path, struct perun_index *idx, struct perun_error *err);
/* perun_index_read of len bytes at data; errors call them name. */
int perun_index_parse(const void *data, size_t len, const char *name, struct perun_index *idx,
		      struct perun_error *err);
/* What still reads of a damaged index: the whole entries before the
 * damage (none when its header is damaged). */
void perun_index_salvage(const char *path, struct perun_index *idx);
/* idx as a version 2 file in memory (malloc'd, *len bytes), or NULL
 * without memory. */
unsigned char *perun_index_serialize(const struct perun_index *idx, size_t *len);
/* Write idx as version 2, atomically. */
int perun_index_write(const char *path, const struct perun_index *idx, struct perun_error *err);
void perun_index_release(struct perun_index *idx);

/*
 * Fill an entry from a profile (copying strings); path is the file name.
 * The entry is owned by the caller until inserted.  -1 without memory
 * (the entry then holds nothing to release).
 */
int perun_index_entry_fill(struct perun_index_entry *e, uint32_t mtime, const char *checksum,
			   const char *path, const struct perun_profile *profile);
void perun_index_entry_release(struct perun_index_entry *e);

/*
 * Insert keeping Perun's order; takes ownership of e.  Returns 1 (and
 * frees e) when an entry with the same name and time exists already, -1
 * (freeing e too) without memory.
 */
int perun_index_insert(struct perun_index *idx, struct perun_index_entry *e);
/* Remove entry i. */
void perun_index_remove(struct perun_index *idx, size_t i);

/* A file's modification time as Perun stores it: rounded seconds. */
struct stat;
uint32_t perun_index_mtime(const struct stat *st);

/* Format a unix time as Perun does (local time). */
void perun_format_time(uint32_t t, char out[20]);

#endif
