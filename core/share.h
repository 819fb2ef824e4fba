/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sharing the store through git remotes (perun push, fetch, pull).
 *
 * The profiles travel as git objects of their own, in the project's
 * repository but on no branch: refs/perun/profiles is a chain of commits
 * whose tree holds
 *
 *   perun-store            "perun-share <format>\n"
 *   objects/<aa>/<38>      a profile object, its store bytes as they are
 *   index/<aa>/<38>        the index (pidx) of minor version <aa><38>
 *
 * A fetch brings the remote's chain to refs/perun/remotes/<remote>/profiles.
 * Objects are named by their content, so merging two stores is the union
 * of their indexes: an entry is taken when the index lacks its name and
 * time.  A profile object enters the store only after its bytes inflate
 * to a payload with the SHA-1 it is named by.
 */
#ifndef PERUN_CORE_SHARE_H
#define PERUN_CORE_SHARE_H

#include "index.h"
#include "instance.h"

/* The format of the shared tree this perun writes and reads. */
#define PERUN_SHARE_FORMAT 1

struct perun_share_counts {
	size_t profiles;  /* index entries taken into the store */
	size_t objects;	  /* profile objects taken into the store */
	size_t sent;	  /* objects sent (push) */
	int up_to_date;	  /* nothing to send or take */
	unsigned retries; /* pushes retried after the remote moved */
};

/* remote: a git remote's name, a URL or a path; NULL: the config's
 * share.remote, else "origin".  Each takes the store lock. */
int perun_share_fetch(struct perun_instance *inst, const char *remote,
		      struct perun_share_counts *counts, struct perun_error *err);
int perun_share_pull(struct perun_instance *inst, const char *remote,
		     struct perun_share_counts *counts, struct perun_error *err);
int perun_share_push(struct perun_instance *inst, const char *remote,
		     struct perun_share_counts *counts, struct perun_error *err);

/* The profiles of the remotes fetched so far (refs/perun/remotes/). */
struct perun_share_view;

/*
 * Open the fetched remotes' chains; *out is NULL (and 0 returned) when
 * the project is in no git repository or nothing was fetched.  Close it
 * with perun_share_view_close.
 */
int perun_share_view_open(const struct perun_instance *inst, struct perun_share_view **out,
			  struct perun_error *err);
/* The same, but a fetched ref or git object that cannot be read is an
 * error naming it (check, which takes baselines from the view). */
int perun_share_view_open_strict(const struct perun_instance *inst, struct perun_share_view **out,
				 struct perun_error *err);
void perun_share_view_close(struct perun_share_view *view);

/* Add to idx the entries of minor sha's index on the fetched remotes that
 * it lacks (by name and time); view may be NULL (nothing fetched). */
int perun_share_view_add_index(struct perun_share_view *view, const char *sha,
			       struct perun_index *idx, struct perun_error *err);

/* Load profile object checksum from a fetched remote, verified by its
 * SHA-1 (the store is not changed); PERUN_ENOTFOUND when none has it. */
int perun_share_view_load(struct perun_share_view *view, const char *checksum,
			  struct perun_profile **out, struct perun_error *err);

/*
 * Compare the n local profiles of minor sha (their object checksums) with
 * every fetched remote's: on[i] becomes 1 for a profile some remote has
 * too, else 0; remote_only (when not NULL) gets the remote's profiles the
 * local ones lack, each once (owned by the caller, to release).
 */
int perun_share_view_compare(struct perun_share_view *view, const char *sha,
			     const char *const *local, size_t n, int *on,
			     struct perun_index *remote_only, struct perun_error *err);

#endif
