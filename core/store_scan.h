/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What .perun/objects holds, file by file: the index of a minor version
 * ("pidx" files named by the commit), profile objects (zlib, named by the
 * SHA-1 of their payload), .changes files, and anything else.  Used by
 * perun fsck and perun gc.
 */
#ifndef PERUN_CORE_STORE_SCAN_H
#define PERUN_CORE_STORE_SCAN_H

#include <limits.h>

enum perun_store_item_kind {
	PERUN_STORE_INDEX = 1,
	PERUN_STORE_PROFILE = 2,
	PERUN_STORE_CHANGES = 3,
	PERUN_STORE_OTHER = 4, /* not named or shaped as any of those */
};

struct perun_store_item {
	enum perun_store_item_kind kind;
	char sha[41]; /* from the file name ("" for OTHER) */
	char path[PATH_MAX];
};

/* Call fn for each file below objects_dir, in directory order; stops when
 * fn returns non-zero and returns that.  Temporary files are skipped. */
typedef int (*perun_store_item_fn)(const struct perun_store_item *item, void *data);
int perun_store_scan(const char *objects_dir, perun_store_item_fn fn, void *data);

/* perun_remove_stale_temps in every directory of objects_dir (perun gc). */
void perun_store_remove_stale_temps(const char *objects_dir);

#endif
