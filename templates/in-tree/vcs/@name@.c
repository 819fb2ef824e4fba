/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @name@ - a Perun version control backend (made from the in-tree vcs
 * template): the project directory is one fixed version on one branch,
 * never dirty, with nothing to save, restore or check out.  Every vcs
 * operation is required; a real backend replaces these with its own.
 *
 *   perun init --vcs-type @name@ [<path>]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perun/perun.h>

/* The one version: a fixed id of 40 hex digits, as ids go into store paths. */
#define @NAME@_ID "0123456789abcdef0123456789abcdef01234567"
#define @NAME@_BRANCH "main"

static int @name@_init(const char *path, const char *const *params, struct perun_error *err)
{
	if (params && params[0])
		return perun_error_set(err, PERUN_EINVAL, "unknown @name@ init parameter '%s'",
				       params[0]);
	return perun_mkdirs(path, 0777, err);
}

/* The state is the repository's path. */
static int @name@_open(const char *path, void **state, struct perun_error *err)
{
	struct stat sb;
	*state = NULL;
	if (stat(path, &sb))
		return perun_error_set_errno(err, errno == ENOENT ? PERUN_ENOTFOUND : PERUN_EGENERIC,
					     errno, "cannot open '%s'", path);
	if (!(*state = strdup(path)))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

static void @name@_close(void *state)
{
	free(state);
}

/* HEAD, the branch and the id (NULL: HEAD) name the one version. */
static int check_rev(void *state, const char *rev, struct perun_error *err)
{
	if (!rev || !strcmp(rev, "HEAD") || !strcmp(rev, @NAME@_BRANCH) || !strcmp(rev, @NAME@_ID))
		return 0;
	return perun_error_set(err, PERUN_ENOTFOUND, "'%s' is not a revision in %s", rev,
			       (const char *)state);
}

static int @name@_rev_parse(void *state, const char *rev, char *buf, struct perun_error *err)
{
	int rc = check_rev(state, rev, err);
	if (!rc)
		memcpy(buf, @NAME@_ID, sizeof(@NAME@_ID));
	return rc;
}

static int @name@_major_head(void *state, char *buf, struct perun_error *err)
{
	(void)state;
	(void)err;
	memcpy(buf, @NAME@_BRANCH, sizeof(@NAME@_BRANCH));
	return 0;
}

static int @name@_info(void *state, const char *rev, struct perun_vcs_commit *commit,
		       struct perun_error *err)
{
	int rc = check_rev(state, rev, err);
	if (rc)
		return rc;
	memset(commit, 0, sizeof(*commit));
	memcpy(commit->checksum, @NAME@_ID, sizeof(@NAME@_ID));
	commit->date = "2026-01-01 00:00:00";
	commit->author = "@name@";
	commit->email = "@name@@localhost";
	commit->desc = "The one version of @name@";
	return 0;
}

/* History from rev back: just the one version, without parents. */
static int @name@_walk(void *state, const char *rev, perun_vcs_walk_fn fn, void *data,
		       struct perun_error *err)
{
	struct perun_vcs_commit commit;
	int rc = @name@_info(state, rev, &commit, err);
	if (!rc)
		fn(&commit, data);
	return rc;
}

static int @name@_is_dirty(void *state, struct perun_error *err)
{
	(void)state;
	(void)err;
	return 0;
}

/* Nothing is tracked: save_state and restore_state have nothing to do. */
static int @name@_keep_state(void *state, struct perun_error *err)
{
	(void)state;
	(void)err;
	return 0;
}

static int @name@_checkout(void *state, const char *rev, struct perun_error *err)
{
	return check_rev(state, rev, err);
}

static const struct perun_vcs_ops @name@_ops = {
	.size = sizeof(struct perun_vcs_ops),
	.init = @name@_init,
	.open = @name@_open,
	.close = @name@_close,
	.rev_parse = @name@_rev_parse,
	.major_head = @name@_major_head,
	.info = @name@_info,
	.walk = @name@_walk,
	.is_dirty = @name@_is_dirty,
	.save_state = @name@_keep_state,
	.restore_state = @name@_keep_state,
	.checkout = @name@_checkout,
};

PERUN_PLUGIN_DEFINE(@name@, PERUN_KIND_VCS, .version = "0.1.0",
		    .summary = "one fixed version for projects without a VCS",
		    .ops = &@name@_ops)
