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

/* A fetched remote's index of one minor version. */
struct perun_share_remote_index {
	char *remote; /* owned */
	struct perun_index idx;
};

/*
 * The index of minor sha in every remote fetched so far (refs/perun/
 * remotes/<remote>/profiles); *out is owned by the caller, free it with
 * perun_share_remote_indexes_free.  None (0, *n = 0) when the project
 * is no git repository or nothing was fetched.
 */
int perun_share_remote_indexes(const struct perun_instance *inst, const char *sha,
			       struct perun_share_remote_index **out, size_t *n,
			       struct perun_error *err);
void perun_share_remote_indexes_free(struct perun_share_remote_index *list, size_t n);

#endif
