/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One durable commit per command: the store's writes of a command
 * (objects, indexes, pending profiles) batched so that their data is
 * synced once and their renames once, instead of a file fsync and a
 * directory fsync each (four for a profile and its index).
 *
 *   perun_durable_begin();
 *   perun_durable_write(path, ...);   ... any number, any directories
 *   perun_durable_commit(err);        or perun_durable_abort()
 *
 * Inside a batch a write goes to a temporary file next to path and stays
 * there: path is unchanged until the commit.  The commit syncs the data
 * of all of them (syncfs, once per file system), renames each over its
 * path in the order written, and syncs each directory once.  A crash or a
 * failed sync before the renames leaves every path as it was; the renames
 * follow durable data, so no path ever names a partial file.  Batches
 * nest: only the outermost commit commits.  Outside a batch
 * perun_durable_write is perun_file_write_atomic.
 */
#ifndef PERUN_DURABLE_H
#define PERUN_DURABLE_H

#include <stddef.h>

#include <perun/error.h>
#include <perun/fsutil.h>

void perun_durable_begin(void);
int perun_durable_write(const char *path, const void *data, size_t len, struct perun_error *err);
/* perun_durable_write of the content fn(fd, data) writes (a profile
 * written as it is made, perun_profile_write). */
int perun_durable_write_with(const char *path, perun_write_fn fn, void *data,
			     struct perun_error *err);
/* Where path's content is now: its pending temporary file, or path. */
const char *perun_durable_current(const char *path);
/* Drop path's pending write (its temporary file goes). */
void perun_durable_forget(const char *path);
/* 0, or an error naming the file whose sync or rename failed; the
 * batch's files not renamed yet are removed either way. */
int perun_durable_commit(struct perun_error *err);
void perun_durable_abort(void);

#endif
