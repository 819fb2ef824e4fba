/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Listing and selecting the profiles of an instance: tracked ones in the
 * index of a minor version, pending ones in .perun/jobs, and Perun's
 * selectors (N@i, N@p, ranges, <rev>^<tag>, names, SHA-1s, paths).
 */
#ifndef PERUN_CORE_PROFILES_H
#define PERUN_CORE_PROFILES_H

#include "index.h"
#include "instance.h"
#include "store.h"

struct perun_profile_info {
	struct perun_index_entry entry; /* name, time, type, cmd, ... */
	char *file;			/* pending: full path of the file */
	int pending;
};

struct perun_profile_list {
	size_t n;
	struct perun_profile_info *items;
};

void perun_profile_list_release(struct perun_profile_list *list);

/* Read the index of minor version sha; empty when it has none yet. */
int perun_minor_index_read(const struct perun_instance *inst, const char *sha,
			   struct perun_index *idx, struct perun_error *err);
/* Write idx back as the index of sha (creating objects/<aa>/ if needed);
 * the caller holds the store lock. */
int perun_minor_index_write(const struct perun_instance *inst, const char *sha,
			    const struct perun_index *idx, struct perun_error *err);
/*
 * Store profile (without its origin) as an object and add it to idx as
 * name with mtime.  A name and time registered already is not added twice
 * and gives 1; otherwise 0 or a negative error.  created_sha (when not
 * NULL) gets the object's name when this call wrote it, else "".
 */
int perun_minor_index_add(const struct perun_instance *inst, struct perun_index *idx,
			  const struct perun_profile *profile, const char *name, uint32_t mtime,
			  char created_sha[PERUN_SHA1_HEX], struct perun_error *err);

/* Tracked profiles of minor sha, sorted as format.sort_profiles_by says
 * (descending, so 0@i is the newest by default). */
int perun_profiles_tracked(struct perun_instance *inst, const char *sha,
			   struct perun_profile_list *out, struct perun_error *err);
/* Pending profiles; resynchronises .perun/jobs/.index with the directory. */
int perun_profiles_pending(struct perun_instance *inst, struct perun_profile_list *out,
			   struct perun_error *err);

enum perun_select_scope {
	PERUN_SELECT_TRACKED = 1,
	PERUN_SELECT_PENDING = 2,
	PERUN_SELECT_FILES = 4, /* plain paths on disk */
	PERUN_SELECT_ANY = 7,
};

/*
 * Expand one selector into concrete profiles appended to out (copies).
 * Tracked lookups use minor sha; "<rev>^<tag>" overrides it.
 */
int perun_profiles_select(struct perun_instance *inst, const char *sha, const char *selector,
			  unsigned scope, struct perun_profile_list *out, struct perun_error *err);

/* Load the profile behind an info (object or file). */
int perun_profile_info_load(struct perun_instance *inst, const struct perun_profile_info *info,
			    struct perun_profile **out, struct perun_error *err);

/* How the loaders below load profile files. */
enum perun_load_how {
	PERUN_LOAD_WHOLE = 0,
	/* For readers that only walk the types (views with
	 * PERUN_VIEW_WALKS_TYPES): perun_profile_load_file_streamed. */
	PERUN_LOAD_STREAMED = 1,
};

/* perun_profile_info_load, loaded as how says. */
int perun_profile_info_load_as(struct perun_instance *inst, const struct perun_profile_info *info,
			       enum perun_load_how how, struct perun_profile **out,
			       struct perun_error *err);

/*
 * Load the profiles named by sel[0] and sel[1] (selectors as perun show
 * takes them; files when inst is NULL) into out[0] and out[1], parsing
 * both at once: for big profiles parsing is most of the work, one per
 * core.  Free them with perun_profiles_free_two, which also frees both at
 * once.
 */
int perun_profiles_load_two(struct perun_instance *inst, const char *sha, const char *const sel[2],
			    enum perun_load_how how, struct perun_profile *out[2],
			    struct perun_error *err);
void perun_profiles_free_two(struct perun_profile *p[2]);

/*
 * Load a profile named by any selector, or a profile file outside an
 * instance (inst may be NULL then).
 */
int perun_profiles_load_any(struct perun_instance *inst, const char *sha, const char *selector,
			    enum perun_load_how how, struct perun_profile **out,
			    struct perun_error *err);

#endif
