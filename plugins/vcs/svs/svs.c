/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * svs - the single version system, for projects without a VCS.
 *
 * Like upstream's SvsRepository: one branch "master" with one version that
 * never changes, is never dirty and needs no checkout.  Upstream names that
 * version "HEAD"; we give it a fixed 40-digit id so it fits wherever a
 * commit id goes (store paths, --format json), and accept "HEAD" for it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>

/* SHA-1 of "perun single version system": the same in every instance, so
 * profiles stay attached to it when the project moves. */
#define SVS_ID	   "5e58d687e13425f5f691ed8b77253ffa1701d73d"
#define SVS_BRANCH "master"
#define SVS_DESC   "Singleton version"
/* Like git, a prefix of the id must be this long to count. */
#define SVS_MIN_PREFIX 4

struct svs_state {
	char *path;
	char date[32];
	char user[256];
	char email[512];
};

static int svs_init(const char *path, const char *const *params, struct perun_error *err)
{
	if (!path || !*path)
		return perun_error_set(err, PERUN_EINVAL,
				       "no path to create a single version system at");
	if (params && params[0])
		return perun_error_set(err, PERUN_EINVAL, "unknown svs init parameter '%s'",
				       params[0]);
	/* The directory is all there is: its ctime dates the version. */
	return perun_mkdirs(path, 0777, err);
}

static int svs_open(const char *path, void **state, struct perun_error *err)
{
	struct svs_state *st;
	struct stat sb;

	*state = NULL;
	if (!path || !*path)
		return perun_error_set(err, PERUN_EINVAL,
				       "no path to open a single version system at");
	if (stat(path, &sb))
		return perun_error_set_errno(err,
					     errno == ENOENT ? PERUN_ENOTFOUND : PERUN_EGENERIC,
					     errno, "cannot open '%s'", path);
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot open '%s'", path);
	}
	*state = st;
	return 0;
}

static void svs_close(void *state)
{
	struct svs_state *st = state;

	if (st)
		free(st->path);
	free(st);
}

/* HEAD, the branch, the id, or a prefix of the id; NULL means HEAD. */
static int check_rev(struct svs_state *st, const char *rev, struct perun_error *err)
{
	size_t len = rev ? strlen(rev) : 0;

	if (!rev || !strcmp(rev, "HEAD") || !strcmp(rev, SVS_BRANCH))
		return 0;
	if (len >= SVS_MIN_PREFIX && len <= strlen(SVS_ID) && !strncasecmp(rev, SVS_ID, len))
		return 0;
	return perun_error_set(err, PERUN_ENOTFOUND,
			       "'%s' is not a revision in %s (a single version "
			       "system has only HEAD)",
			       rev, st->path);
}

static int svs_rev_parse(void *state, const char *rev, char *buf, struct perun_error *err)
{
	int rc = check_rev(state, rev, err);

	if (!rc)
		memcpy(buf, SVS_ID, sizeof(SVS_ID));
	return rc;
}

static int svs_major_head(void *state, char *buf, struct perun_error *err)
{
	memcpy(buf, SVS_BRANCH, sizeof(SVS_BRANCH));
	return 0;
}

/* Python's getpass.getuser(): the environment first, then the password
 * database. */
static void current_user(char *buf, size_t size)
{
	static const char *const vars[] = { "LOGNAME", "USER", "LNAME", "USERNAME" };
	const struct passwd *pw;

	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++) {
		const char *value = getenv(vars[i]);
		if (value && *value) {
			snprintf(buf, size, "%s", value);
			return;
		}
	}
	pw = getpwuid(geteuid());
	if (pw && pw->pw_name)
		snprintf(buf, size, "%s", pw->pw_name);
	else
		snprintf(buf, size, "%lu", (unsigned long)geteuid());
}

static int svs_info(void *state, const char *rev, struct perun_vcs_commit *commit,
		    struct perun_error *err)
{
	struct svs_state *st = state;
	char host[256] = "localhost";
	struct stat sb;
	struct tm tm;
	int rc = check_rev(st, rev, err);

	if (rc)
		return rc;
	if (stat(st->path, &sb))
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot read '%s'",
					     st->path);
	/* Upstream dates the version by the ctime of the path. */
	if (!localtime_r(&sb.st_ctime, &tm) ||
	    !strftime(st->date, sizeof(st->date), "%Y-%m-%d %H:%M:%S", &tm))
		return perun_error_set(err, PERUN_EGENERIC, "cannot format the ctime of '%s'",
				       st->path);
	current_user(st->user, sizeof(st->user));
	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "%s", "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(st->email, sizeof(st->email), "%s@%s", st->user, host);

	memset(commit, 0, sizeof(*commit));
	memcpy(commit->checksum, SVS_ID, sizeof(SVS_ID));
	commit->date = st->date;
	commit->author = st->user;
	commit->email = st->email;
	commit->desc = SVS_DESC;
	commit->parent_count = 0;
	commit->parents = NULL;
	return 0;
}

static int svs_walk(void *state, const char *rev, perun_vcs_walk_fn fn, void *data,
		    struct perun_error *err)
{
	struct perun_vcs_commit commit;
	int rc = svs_info(state, rev, &commit, err);

	if (rc)
		return rc;
	fn(&commit, data);
	return 0;
}

static int svs_is_dirty(void *state, struct perun_error *err)
{
	return 0;
}

/* Nothing is tracked, so there is nothing to save, restore or switch. */
static int svs_keep_state(void *state, struct perun_error *err)
{
	return 0;
}

static int svs_checkout(void *state, const char *rev, struct perun_error *err)
{
	return check_rev(state, rev, err);
}

static const struct perun_vcs_ops ops = {
	.size = sizeof(struct perun_vcs_ops),
	.init = svs_init,
	.open = svs_open,
	.close = svs_close,
	.rev_parse = svs_rev_parse,
	.major_head = svs_major_head,
	.info = svs_info,
	.walk = svs_walk,
	.is_dirty = svs_is_dirty,
	.save_state = svs_keep_state,
	.restore_state = svs_keep_state,
	.checkout = svs_checkout,
};

PERUN_PLUGIN_DEFINE(svs, PERUN_KIND_VCS, .version = "1.0",
		    .summary = "single version system for projects without a VCS", .ops = &ops);
