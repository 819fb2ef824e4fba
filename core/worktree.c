/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Profiles of uncommitted work (see worktree.h). */
#include <stdio.h>
#include <string.h>

#include "autoconfig.h"
#include "worktree.h"

#ifdef HAVE_LIBGIT2
#include <git2.h>

int perun_worktree_diff(const struct perun_instance *inst, const char *sha,
			char diff[PERUN_SHA1_HEX], struct perun_error *err)
{
	git_repository *repo = NULL;
	git_object *head = NULL;
	git_tree *tree = NULL;
	git_diff *d = NULL;
	git_buf patch = { 0 };
	int rc = 0;
	diff[0] = '\0';
	git_libgit2_init();
	if (git_repository_open_ext(&repo, inst->root, 0, NULL) || git_repository_is_bare(repo))
		goto out; /* no git work tree: nothing to tell */
	if (git_revparse_single(&head, repo, "HEAD^{tree}"))
		goto out; /* no commit yet */
	git_oid id;
	if (git_reference_name_to_id(&id, repo, "HEAD") || strcmp(git_oid_tostr_s(&id), sha))
		goto out; /* another version, checked out clean */
	tree = (git_tree *)head;
	head = NULL;
	git_diff_options opts;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_diff_tree_to_workdir_with_index(&d, repo, tree, &opts) ||
	    git_diff_to_buf(&patch, d, GIT_DIFF_FORMAT_PATCH)) {
		const git_error *e = git_error_last();
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot diff the working tree: %s",
				     e && e->message ? e->message : "unknown git error");
		goto out;
	}
	if (git_diff_num_deltas(d) && patch.size)
		perun_sha1_hex(patch.ptr, patch.size, diff);
out:
	git_buf_dispose(&patch);
	git_diff_free(d);
	git_tree_free(tree);
	git_object_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

#else

int perun_worktree_diff(const struct perun_instance *inst, const char *sha,
			char diff[PERUN_SHA1_HEX], struct perun_error *err)
{
	diff[0] = '\0';
	return 0;
}

#endif

int perun_worktree_mark(struct perun_profile *profile, const char *diff)
{
	return perun_profile_set_header(profile, "worktree_diff", diff);
}

const char *perun_worktree_of(const struct perun_profile *profile)
{
	const char *diff = perun_profile_header(profile, "worktree_diff");
	return diff && *diff ? diff : NULL;
}

void perun_worktree_name_mark(const char *diff, char *buf, size_t len)
{
	snprintf(buf, len, "-dirty-%.12s", diff);
}
