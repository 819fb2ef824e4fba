/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Profiles of uncommitted work (upstream Perun issue 230): a profile
 * collected at HEAD on a working tree with changes to tracked files is
 * filed against HEAD with the header key "worktree_diff" (the SHA-1 of
 * the diff; a header key, so Python Perun and every reader take it as it
 * takes others) and "-dirty-<12 hex of it>" in its file name, so
 * that perun status shows it and perun check worktree compares it with
 * HEAD's own profiles.
 */
#ifndef PERUN_CORE_WORKTREE_H
#define PERUN_CORE_WORKTREE_H

#include "instance.h"
#include "store.h"

/*
 * The state of the working tree at minor sha: diff gets the SHA-1 of the
 * patch of tracked files against sha when sha is HEAD and there is one,
 * else "" (a clean tree, another version, or a project outside git).
 */
int perun_worktree_diff(const struct perun_instance *inst, const char *sha,
			char diff[PERUN_SHA1_HEX], struct perun_error *err);

/* Mark profile as collected on a tree with the changes diff. */
int perun_worktree_mark(struct perun_profile *profile, const char *diff);

/* The diff a profile was collected with, or NULL for a clean tree. */
const char *perun_worktree_of(const struct perun_profile *profile);

/* The " -dirty-<12 hex>" part of a profile name for diff (buf >= 20). */
void perun_worktree_name_mark(const char *diff, char *buf, size_t len);

#endif
