/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * git - Perun's repository interface over git, through libgit2.
 *
 * Mirrors upstream's GitRepository (GitPython): history in `git rev-list`
 * order, committed dates in local time, is_dirty ignoring untracked files,
 * save/restore of the checked-out branch around a stash.  Unlike upstream,
 * the stash is popped with its index, so staged changes come back staged.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <perun/perun.h>

struct git_state {
	git_repository *repo;
	char *root; /* work tree (or git dir), for messages */

	/* What the last info or walk step handed out. */
	char date[32];
	char *author;
	char *email;
	char *desc;
	char (*parent_hex)[GIT_OID_HEXSZ + 1];
	const char **parents;
	size_t parent_cap;

	/* Set by save_state, consumed by restore_state. */
	int saved;
	int stashed;
	git_oid stash_id;
	char *saved_branch; /* full ref name; NULL when detached */
	git_oid saved_head;
};

/* Set err from code and message, appending libgit2's own reason. */
PERUN_PRINTF(3, 4)
static int git_fail(struct perun_error *err, int code, const char *fmt, ...)
{
	char msg[sizeof(err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const git_error *last = git_error_last();
	if (last && last->message && *last->message)
		return perun_error_set(err, code, "%s: %s", msg, last->message);
	return perun_error_set(err, code, "%s", msg);
}

static int flag_value(const char *value, int *out)
{
	static const char *const yes[] = { "", "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		if (!strcmp(value, yes[i]))
			return *out = 1, 0;
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (!strcmp(value, no[i]))
			return *out = 0, 0;
	return -1;
}

static int shared_mode(const char *value, uint32_t *mode)
{
	static const struct {
		const char *name;
		uint32_t mode;
	} names[] = {
		{ "false", GIT_REPOSITORY_INIT_SHARED_UMASK },
		{ "umask", GIT_REPOSITORY_INIT_SHARED_UMASK },
		{ "true", GIT_REPOSITORY_INIT_SHARED_GROUP },
		{ "group", GIT_REPOSITORY_INIT_SHARED_GROUP },
		{ "", GIT_REPOSITORY_INIT_SHARED_GROUP },
		{ "all", GIT_REPOSITORY_INIT_SHARED_ALL },
		{ "world", GIT_REPOSITORY_INIT_SHARED_ALL },
		{ "everybody", GIT_REPOSITORY_INIT_SHARED_ALL },
	};
	char *end;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(value, names[i].name))
			return *mode = names[i].mode, 0;
	if (value[0] != '0')
		return -1;
	unsigned long octal = strtoul(value, &end, 8);
	if (*end || octal > 07777)
		return -1;
	*mode = (uint32_t)octal;
	return 0;
}

/* The parameters of `git init` that libgit2 can honour, as "key[=value]". */
struct init_request {
	git_repository_init_options opts;
	const char *separate_git_dir;
	char *workdir; /* absolute, owned */
};

static int parse_init_params(struct init_request *req, const char *const *params,
			     struct perun_error *err)
{
	size_t i;

	for (i = 0; params && params[i]; i++) {
		char key[64];
		const char *eq = strchr(params[i], '=');
		size_t klen = eq ? (size_t)(eq - params[i]) : strlen(params[i]);
		const char *value = eq ? eq + 1 : NULL;
		int on;

		if (klen == 0 || klen >= sizeof(key))
			goto bad;
		/* GitPython spells them as Python keywords: separate_git_dir. */
		for (size_t k = 0; k < klen; k++)
			key[k] = params[i][k] == '_' ? '-' : params[i][k];
		key[klen] = '\0';
		if (!strcmp(key, "bare")) {
			if (flag_value(value ? value : "", &on))
				goto bad_value;
			if (on)
				req->opts.flags |= GIT_REPOSITORY_INIT_BARE;
			else
				req->opts.flags &= ~(uint32_t)GIT_REPOSITORY_INIT_BARE;
		} else if (!strcmp(key, "quiet") || !strcmp(key, "q")) {
			if (flag_value(value ? value : "", &on))
				goto bad_value;
		} else if (!strcmp(key, "separate-git-dir")) {
			if (!value || !*value)
				goto bad_value;
			req->separate_git_dir = value;
		} else if (!strcmp(key, "initial-branch") || !strcmp(key, "b")) {
			if (!value || !*value)
				goto bad_value;
			req->opts.initial_head = value;
		} else if (!strcmp(key, "template")) {
			if (!value || !*value)
				goto bad_value;
			req->opts.template_path = value;
			req->opts.flags |= GIT_REPOSITORY_INIT_EXTERNAL_TEMPLATE;
		} else if (!strcmp(key, "shared")) {
			if (shared_mode(value ? value : "", &req->opts.mode))
				goto bad_value;
		} else {
			goto bad;
		}
	}
	if (req->separate_git_dir && (req->opts.flags & GIT_REPOSITORY_INIT_BARE))
		return perun_error_set(err, PERUN_EINVAL,
				       "git parameters 'separate-git-dir' and "
				       "'bare' cannot be combined");
	return 0;
bad:
	return perun_error_set(err, PERUN_EINVAL, "unknown git init parameter '%s'", params[i]);
bad_value:
	return perun_error_set(err, PERUN_EINVAL, "invalid value in git init parameter '%s'",
			       params[i]);
}

/* libgit2 reads a relative workdir_path against the git dir, git against
 * the current directory; make it absolute so both agree. */
static char *absolute_path(const char *path)
{
	char cwd[PATH_MAX];
	char *out;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	size_t len = strlen(cwd) + strlen(path) + 2;
	out = malloc(len);
	if (out)
		snprintf(out, len, "%s/%s", cwd, path);
	return out;
}

static int git_init(const char *path, const char *const *params, struct perun_error *err)
{
	struct init_request req = { .separate_git_dir = NULL };
	git_repository *repo = NULL;
	struct stat st;
	int rc;

	if (!path || !*path)
		return perun_error_set(err, PERUN_EINVAL, "no path to create a git repository at");
	/* The option macros leave fields out, which -Wextra rejects. */
	git_repository_init_options_init(&req.opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	/* Parse params first: bad input must not leave anything behind. */
	req.opts.flags = GIT_REPOSITORY_INIT_MKPATH;
	rc = parse_init_params(&req, params, err);
	if (rc)
		return rc;
	git_libgit2_init();
	/* Like upstream, an existing repository is left as it is. */
	if (!git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		rc = 0;
		goto out;
	}
	int existed = stat(path, &st) == 0;
	const char *repo_path = path;
	if (req.separate_git_dir) {
		req.workdir = absolute_path(path);
		if (!req.workdir) {
			rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
						   "cannot create git repository at '%s'", path);
			goto out;
		}
		req.opts.workdir_path = req.workdir;
		req.opts.flags |= GIT_REPOSITORY_INIT_NO_DOTGIT_DIR;
		repo_path = req.separate_git_dir;
	}
	if (git_repository_init_ext(&repo, repo_path, &req.opts)) {
		rc = git_fail(err, PERUN_EGENERIC, "cannot create git repository at '%s'", path);
		/* Upstream removes a directory it created in vain. */
		if (!existed)
			rmdir(path);
		goto out;
	}
	rc = 0;
out:
	git_repository_free(repo);
	free(req.workdir);
	git_libgit2_shutdown();
	return rc;
}

static void git_close(void *state)
{
	struct git_state *st = state;

	if (!st)
		return;
	git_repository_free(st->repo);
	free(st->root);
	free(st->author);
	free(st->email);
	free(st->desc);
	free(st->parent_hex);
	free(st->parents);
	free(st->saved_branch);
	free(st);
	git_libgit2_shutdown();
}

static int git_open(const char *path, void **state, struct perun_error *err)
{
	struct git_state *st;
	int rc;

	*state = NULL;
	if (!path || !*path)
		return perun_error_set(err, PERUN_EINVAL, "no path to open a git repository at");
	git_libgit2_init();
	st = calloc(1, sizeof(*st));
	if (!st) {
		git_libgit2_shutdown();
		return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM,
					     "cannot open git repository at '%s'", path);
	}
	/* Discover upwards, stopping where git itself would stop. */
	rc = git_repository_open_ext(&st->repo, path, 0, getenv("GIT_CEILING_DIRECTORIES"));
	if (rc) {
		rc = git_fail(err, rc == GIT_ENOTFOUND ? PERUN_ENOTFOUND : PERUN_EGENERIC,
			      "'%s' is not in a git repository", path);
		goto fail;
	}
	const char *root = git_repository_workdir(st->repo);
	if (!root)
		root = git_repository_path(st->repo);
	st->root = strdup(root);
	if (!st->root) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM,
					   "cannot open git repository at '%s'", path);
		goto fail;
	}
	size_t len = strlen(st->root);
	if (len > 1 && st->root[len - 1] == '/')
		st->root[len - 1] = '\0';
	*state = st;
	return 0;
fail:
	git_close(st);
	return rc;
}

/* Any revision, peeled to the commit it names; NULL means HEAD. */
static int resolve_commit(struct git_state *st, const char *rev, git_commit **out,
			  struct perun_error *err)
{
	git_object *obj = NULL;
	int rc;

	*out = NULL;
	if (!rev)
		rev = "HEAD";
	rc = git_revparse_single(&obj, st->repo, rev);
	if (rc == GIT_EAMBIGUOUS)
		return perun_error_set(err, PERUN_EINVAL, "'%s' is ambiguous in %s", rev, st->root);
	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EUNBORNBRANCH)
		return perun_error_set(err, PERUN_ENOTFOUND, "'%s' is not a revision in %s", rev,
				       st->root);
	if (rc)
		return git_fail(err, PERUN_EGENERIC, "cannot resolve '%s' in %s", rev, st->root);
	rc = git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc) {
		*out = NULL;
		return perun_error_set(err, PERUN_EINVAL, "'%s' is not a commit in %s", rev,
				       st->root);
	}
	return 0;
}

static int git_rev_parse(void *state, const char *rev, char *buf, struct perun_error *err)
{
	git_commit *commit;
	int rc = resolve_commit(state, rev, &commit, err);

	if (rc)
		return rc;
	git_oid_tostr(buf, GIT_OID_HEXSZ + 1, git_commit_id(commit));
	git_commit_free(commit);
	return 0;
}

static int git_major_head(void *state, char *buf, struct perun_error *err)
{
	struct git_state *st = state;
	git_reference *head = NULL;
	static const char heads[] = "refs/heads/";

	/* HEAD itself, not what it resolves to: an unborn branch has a name. */
	if (git_reference_lookup(&head, st->repo, "HEAD"))
		return git_fail(err, PERUN_EGENERIC, "cannot read HEAD of %s", st->root);
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		const char *target = git_reference_symbolic_target(head);
		if (!strncmp(target, heads, sizeof(heads) - 1))
			target += sizeof(heads) - 1;
		snprintf(buf, 256, "%s", target);
	} else {
		git_oid_tostr(buf, GIT_OID_HEXSZ + 1, git_reference_target(head));
	}
	git_reference_free(head);
	return 0;
}

static char *replace_string(char **slot, const char *value)
{
	char *copy = strdup(value ? value : "");

	if (copy) {
		free(*slot);
		*slot = copy;
	}
	return copy;
}

/* Fill commit from c; the strings live in st until the next call. */
static int fill_commit(struct git_state *st, git_commit *c, struct perun_vcs_commit *commit,
		       struct perun_error *err)
{
	const git_signature *author = git_commit_author(c);
	size_t count = git_commit_parentcount(c);
	time_t when = (time_t)git_commit_time(c);
	struct tm tm;

	memset(commit, 0, sizeof(*commit));
	git_oid_tostr(commit->checksum, GIT_OID_HEXSZ + 1, git_commit_id(c));
	/* Upstream prints the committed date in local time. */
	if (!localtime_r(&when, &tm) ||
	    !strftime(st->date, sizeof(st->date), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(st->date, sizeof(st->date), "%s", "1970-01-01 00:00:00");
	if (!replace_string(&st->author, author ? author->name : "") ||
	    !replace_string(&st->email, author ? author->email : "") ||
	    !replace_string(&st->desc, git_commit_message_raw(c)))
		goto nomem;
	if (count > st->parent_cap) {
		void *hex = realloc(st->parent_hex, count * sizeof(*st->parent_hex));
		if (!hex)
			goto nomem;
		st->parent_hex = hex;
		void *ptrs = realloc(st->parents, count * sizeof(*st->parents));
		if (!ptrs)
			goto nomem;
		st->parents = ptrs;
		st->parent_cap = count;
	}
	for (size_t i = 0; i < count; i++) {
		git_oid_tostr(st->parent_hex[i], GIT_OID_HEXSZ + 1,
			      git_commit_parent_id(c, (unsigned int)i));
		st->parents[i] = st->parent_hex[i];
	}
	commit->date = st->date;
	commit->author = st->author;
	commit->email = st->email;
	commit->desc = st->desc;
	commit->parent_count = count;
	commit->parents = st->parents;
	return 0;
nomem:
	return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot read commit %s",
				     commit->checksum);
}

static int git_info(void *state, const char *rev, struct perun_vcs_commit *commit,
		    struct perun_error *err)
{
	git_commit *c;
	int rc = resolve_commit(state, rev, &c, err);

	if (rc)
		return rc;
	rc = fill_commit(state, c, commit, err);
	git_commit_free(c);
	return rc;
}

static int git_walk(void *state, const char *rev, perun_vcs_walk_fn fn, void *data,
		    struct perun_error *err)
{
	struct git_state *st = state;
	struct perun_vcs_commit commit;
	git_revwalk *walk = NULL;
	git_commit *c = NULL;
	git_oid id;
	int rc = resolve_commit(st, rev, &c, err);

	if (rc)
		return rc;
	/* No sorting: libgit2's default is git rev-list's default order,
	 * which is what upstream's iter_commits yields. */
	if (git_revwalk_new(&walk, st->repo) || git_revwalk_push(walk, git_commit_id(c))) {
		rc = git_fail(err, PERUN_EGENERIC, "cannot walk history of %s", st->root);
		goto out;
	}
	git_commit_free(c);
	c = NULL;
	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		if (git_commit_lookup(&c, st->repo, &id)) {
			rc = git_fail(err, PERUN_EGENERIC, "cannot read commit %s in %s",
				      git_oid_tostr_s(&id), st->root);
			goto out;
		}
		rc = fill_commit(st, c, &commit, err);
		git_commit_free(c);
		c = NULL;
		if (rc)
			goto out;
		if (fn(&commit, data))
			break;
	}
	if (rc == GIT_ITEROVER || rc == 0)
		rc = 0;
	else
		rc = git_fail(err, PERUN_EGENERIC, "cannot walk history of %s", st->root);
out:
	git_commit_free(c);
	git_revwalk_free(walk);
	return rc;
}

/* GitPython's is_dirty(): index or tracked work-tree changes, no untracked. */
static int git_is_dirty(void *state, struct perun_error *err)
{
	struct git_state *st = state;
	git_status_options opts;
	git_status_list *list = NULL;

	if (git_repository_is_bare(st->repo))
		return 0;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = 0;
	if (git_status_list_new(&list, st->repo, &opts))
		return git_fail(err, PERUN_EGENERIC, "cannot read the status of %s", st->root);
	int dirty = git_status_list_entrycount(list) > 0;
	git_status_list_free(list);
	return dirty;
}

struct conflicts {
	char first[PATH_MAX];
	int untracked;
	size_t count;
};

static int note_conflict(git_checkout_notify_t why, const char *path, const git_diff_file *baseline,
			 const git_diff_file *target, const git_diff_file *workdir, void *payload)
{
	struct conflicts *conflicts = payload;

	if (why == GIT_CHECKOUT_NOTIFY_CONFLICT && conflicts->count++ == 0) {
		snprintf(conflicts->first, sizeof(conflicts->first), "%s", path);
		conflicts->untracked = !baseline && workdir;
	}
	return 0;
}

/*
 * Safely check out commit c, then point HEAD at branch (a full ref name)
 * or, when branch is NULL, detach it at c.  what names c in messages.
 */
static int checkout_commit(struct git_state *st, git_commit *c, const char *branch,
			   const char *what, struct perun_error *err)
{
	git_checkout_options opts;
	struct conflicts conflicts = { .count = 0 };
	int rc;

	if (git_repository_is_bare(st->repo))
		return perun_error_set(err, PERUN_EINVAL,
				       "cannot check out '%s': %s is a bare repository", what,
				       st->root);
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_SAFE;
	opts.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	opts.notify_cb = note_conflict;
	opts.notify_payload = &conflicts;
	rc = git_checkout_tree(st->repo, (const git_object *)c, &opts);
	if (rc && conflicts.count) {
		char more[64] = "";
		if (conflicts.count > 1)
			snprintf(more, sizeof(more), " (and %zu more)", conflicts.count - 1);
		return perun_error_set(
			err, PERUN_EINVAL,
			"cannot check out '%s' in %s: %s '%s'%s would be overwritten", what,
			st->root, conflicts.untracked ? "untracked file" : "local changes to",
			conflicts.first, more);
	}
	if (rc)
		return git_fail(err, PERUN_EGENERIC, "cannot check out '%s' in %s", what, st->root);
	rc = branch ? git_repository_set_head(st->repo, branch)
		    : git_repository_set_head_detached(st->repo, git_commit_id(c));
	if (rc)
		return git_fail(err, PERUN_EGENERIC, "cannot move HEAD to '%s' in %s", what,
				st->root);
	return 0;
}

/* Like `git checkout rev`: a local branch is checked out as the branch,
 * HEAD stays as it is, anything else detaches HEAD. */
static int git_checkout(void *state, const char *rev, struct perun_error *err)
{
	struct git_state *st = state;
	git_reference *branch = NULL;
	const char *name = NULL;
	git_commit *c;
	int rc = resolve_commit(st, rev, &c, err);

	if (rc)
		return rc;
	if (!rev || !strcmp(rev, "HEAD")) {
		if (!git_reference_lookup(&branch, st->repo, "HEAD") &&
		    git_reference_type(branch) == GIT_REFERENCE_SYMBOLIC)
			name = git_reference_symbolic_target(branch);
	} else if (!git_branch_lookup(&branch, st->repo, rev, GIT_BRANCH_LOCAL)) {
		name = git_reference_name(branch);
	}
	rc = checkout_commit(st, c, name, rev ? rev : "HEAD", err);
	git_reference_free(branch);
	git_commit_free(c);
	return rc;
}

/* The configured identity, or user@host like git's own fallback. */
static int stash_signature(struct git_state *st, git_signature **sig)
{
	char host[256] = "localhost";
	const char *user = getenv("USER");
	struct passwd *pw;

	if (!git_signature_default(sig, st->repo))
		return 0;
	if (!user || !*user) {
		pw = getpwuid(geteuid());
		user = pw && pw->pw_name ? pw->pw_name : "perun";
	}
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	char email[sizeof(host) + 256];
	snprintf(email, sizeof(email), "%s@%s", user, host);
	return git_signature_now(sig, user, email);
}

static int git_save_state(void *state, struct perun_error *err)
{
	struct git_state *st = state;
	git_reference *head = NULL;
	git_signature *sig = NULL;
	int rc;

	if (st->saved)
		return perun_error_set(err, PERUN_EINVAL, "the state of %s is already saved",
				       st->root);
	int dirty = git_is_dirty(st, err);
	if (dirty < 0)
		return dirty;
	if (git_reference_lookup(&head, st->repo, "HEAD"))
		return git_fail(err, PERUN_EGENERIC, "cannot read HEAD of %s", st->root);
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		st->saved_branch = strdup(git_reference_symbolic_target(head));
		if (!st->saved_branch) {
			rc = perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM,
						   "cannot save the state of %s", st->root);
			goto out;
		}
	} else {
		git_oid_cpy(&st->saved_head, git_reference_target(head));
	}
	if (dirty) {
		if (stash_signature(st, &sig) ||
		    git_stash_save(&st->stash_id, st->repo, sig, "perun: saved state",
				   GIT_STASH_DEFAULT)) {
			rc = git_fail(err, PERUN_EGENERIC, "cannot stash the changes in %s",
				      st->root);
			goto out;
		}
	}
	st->stashed = dirty;
	st->saved = 1;
	rc = 0;
out:
	if (rc) {
		free(st->saved_branch);
		st->saved_branch = NULL;
	}
	git_signature_free(sig);
	git_reference_free(head);
	return rc;
}

struct stash_search {
	const git_oid *id;
	size_t index;
	int found;
};

static int find_stash(size_t index, const char *message, const git_oid *id, void *payload)
{
	struct stash_search *search = payload;

	if (!git_oid_equal(id, search->id))
		return 0;
	search->index = index;
	search->found = 1;
	return 1;
}

static int git_restore_state(void *state, struct perun_error *err)
{
	struct git_state *st = state;
	git_stash_apply_options opts;
	git_reference *ref = NULL, *resolved = NULL;
	git_index *index = NULL;
	git_commit *c = NULL;
	int rc;

	if (!st->saved)
		return perun_error_set(err, PERUN_EINVAL, "no saved state of %s to restore",
				       st->root);
	if (st->saved_branch &&
	    git_reference_lookup(&ref, st->repo, st->saved_branch) == GIT_ENOTFOUND) {
		/* An unborn branch: nothing to check out, only HEAD to set. */
		if (git_repository_set_head(st->repo, st->saved_branch)) {
			rc = git_fail(err, PERUN_EGENERIC, "cannot move HEAD to '%s' in %s",
				      st->saved_branch, st->root);
			goto out;
		}
	} else {
		const git_oid *id = &st->saved_head;
		if (st->saved_branch) {
			if (!ref || git_reference_resolve(&resolved, ref)) {
				rc = git_fail(err, PERUN_EGENERIC, "cannot read '%s' in %s",
					      st->saved_branch, st->root);
				goto out;
			}
			id = git_reference_target(resolved);
		}
		if (git_commit_lookup(&c, st->repo, id)) {
			rc = git_fail(err, PERUN_EGENERIC, "cannot read commit %s in %s",
				      git_oid_tostr_s(id), st->root);
			goto out;
		}
		char what[GIT_OID_HEXSZ + 1];
		git_oid_tostr(what, sizeof(what), id);
		rc = checkout_commit(st, c, st->saved_branch,
				     st->saved_branch ? st->saved_branch : what, err);
		if (rc)
			goto out;
	}
	if (st->stashed) {
		/* Find our stash by id: others may have stashed since. */
		struct stash_search search = { .id = &st->stash_id };
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), &st->stash_id);
		if (git_stash_foreach(st->repo, find_stash, &search) < 0 || !search.found) {
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "the saved changes of %s (stash %s) are gone",
					     st->root, hex);
			goto out;
		}
		/* Unlike upstream's `git stash pop`, bring the index back too. */
		git_stash_apply_options_init(&opts, GIT_STASH_APPLY_OPTIONS_VERSION);
		opts.flags = GIT_STASH_APPLY_REINSTATE_INDEX;
		if (git_stash_apply(st->repo, search.index, &opts)) {
			rc = git_fail(
				err, PERUN_EGENERIC,
				"cannot restore the saved changes of %s; they are kept in stash %s",
				st->root, hex);
			goto out;
		}
		/* libgit2 applies a conflicting stash with conflict markers
		 * and success; like `git stash pop`, keep the stash then. */
		if (git_repository_index(&index, st->repo) || git_index_read(index, 0)) {
			rc = git_fail(err, PERUN_EGENERIC,
				      "cannot read the index of %s; the saved changes are kept in "
				      "stash %s",
				      st->root, hex);
			goto out;
		}
		if (git_index_has_conflicts(index)) {
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "the saved changes of %s conflict with its head; they "
					     "are kept in stash %s",
					     st->root, hex);
			goto out;
		}
		if (git_stash_drop(st->repo, search.index)) {
			rc = git_fail(err, PERUN_EGENERIC, "cannot drop stash %s in %s", hex,
				      st->root);
			goto out;
		}
	}
	free(st->saved_branch);
	st->saved_branch = NULL;
	st->saved = st->stashed = 0;
	rc = 0;
out:
	git_index_free(index);
	git_commit_free(c);
	git_reference_free(resolved);
	git_reference_free(ref);
	return rc;
}

static const struct perun_vcs_ops ops = {
	.size = sizeof(struct perun_vcs_ops),
	.init = git_init,
	.open = git_open,
	.close = git_close,
	.rev_parse = git_rev_parse,
	.major_head = git_major_head,
	.info = git_info,
	.walk = git_walk,
	.is_dirty = git_is_dirty,
	.save_state = git_save_state,
	.restore_state = git_restore_state,
	.checkout = git_checkout,
};

PERUN_PLUGIN_DEFINE(git, PERUN_KIND_VCS, .version = "1.0",
		    .summary = "git repositories through libgit2", .ops = &ops);
