/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * vcs-driver - run the operations of one vcs plugin, linked in, through
 * its descriptor, and print what they return, so shell tests can compare
 * the plugin with git itself.  Built once per plugin with
 * -DVCS_DESCRIBE=perun_plugin_<name>_describe.
 *
 *   vcs-driver describe
 *   vcs-driver init <path> [param...]
 *   vcs-driver <path> <op> [arg] [<op> [arg]]...    (one open repository)
 *
 * ops: rev-parse <rev>, head, info <rev>, walk <rev>, walk-n <rev>:<n>,
 *      dirty, save, restore, checkout <rev>, and sh <command> to change the
 *      repository behind the plugin's back.  "-" as <rev> passes NULL.
 * A failing op prints "error <code>: <message>" on stderr and exits 1;
 * usage errors exit 2; an unbalanced libgit2 init count exits 3.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>
#ifdef VCS_DRIVER_LIBGIT2
#include <git2.h>
#endif

const struct perun_plugin *VCS_DESCRIBE(void);

static const struct perun_vcs_ops *ops;

static void print_commit(const struct perun_vcs_commit *c, int full)
{
	printf("%s\t%s\t%s\t%s\t", c->checksum, c->date, c->author, c->email);
	for (size_t i = 0; i < c->parent_count; i++)
		printf("%s%s", i ? " " : "", c->parents[i]);
	putchar('\n');
	if (full)
		fputs(c->desc, stdout);
}

struct walk_limit {
	long left; /* commits still wanted; <0 for all */
};

static int print_walked(const struct perun_vcs_commit *c, void *data)
{
	struct walk_limit *limit = data;

	print_commit(c, 0);
	return limit->left >= 0 && --limit->left == 0;
}

static int describe(void)
{
	const struct perun_plugin *d = VCS_DESCRIBE();
	const struct perun_vcs_ops *o = d->ops;

	if (d->magic != PERUN_PLUGIN_MAGIC || d->abi_major != PERUN_PLUGIN_ABI_MAJOR ||
	    d->abi_minor > PERUN_PLUGIN_ABI_MINOR || d->size != sizeof(struct perun_plugin) ||
	    d->kind != PERUN_KIND_VCS || !o || o->size != sizeof(struct perun_vcs_ops) ||
	    !o->init || !o->open || !o->close || !o->rev_parse || !o->major_head || !o->info ||
	    !o->walk || !o->is_dirty || !o->save_state || !o->restore_state || !o->checkout ||
	    !d->version || !d->summary) {
		fprintf(stderr, "bad descriptor\n");
		return 1;
	}
	printf("%s %s (abi %u.%u) %s\n", d->name, d->version, d->abi_major, d->abi_minor,
	       d->summary);
	return 0;
}

static const char *rev_arg(const char *arg)
{
	return strcmp(arg, "-") ? arg : NULL;
}

/* Run one op; returns 0, a negative plugin error, or 2 for bad usage. */
static int run_op(void *state, const char *op, const char *arg, struct perun_error *err)
{
	struct perun_vcs_commit commit;
	char buf[256];
	int rc;

	if (!strcmp(op, "rev-parse")) {
		rc = ops->rev_parse(state, rev_arg(arg), buf, err);
		if (!rc)
			printf("%s\n", buf);
	} else if (!strcmp(op, "head")) {
		rc = ops->major_head(state, buf, err);
		if (!rc)
			printf("%s\n", buf);
	} else if (!strcmp(op, "info")) {
		rc = ops->info(state, rev_arg(arg), &commit, err);
		if (!rc)
			print_commit(&commit, 1);
	} else if (!strcmp(op, "walk") || !strcmp(op, "walk-n")) {
		struct walk_limit limit = { -1 };
		char rev[256];
		snprintf(rev, sizeof(rev), "%s", arg);
		if (op[4]) {
			char *colon = strrchr(rev, ':'), *end;
			if (!colon)
				return 2;
			*colon = '\0';
			limit.left = strtol(colon + 1, &end, 10);
			if (*end || limit.left <= 0)
				return 2;
		}
		rc = ops->walk(state, rev_arg(rev), print_walked, &limit, err);
	} else if (!strcmp(op, "dirty")) {
		rc = ops->is_dirty(state, err);
		if (rc >= 0)
			printf("%s\n", rc ? "dirty" : "clean");
		rc = rc > 0 ? 0 : rc;
	} else if (!strcmp(op, "save")) {
		rc = ops->save_state(state, err);
	} else if (!strcmp(op, "restore")) {
		rc = ops->restore_state(state, err);
	} else if (!strcmp(op, "checkout")) {
		rc = ops->checkout(state, rev_arg(arg), err);
	} else if (!strcmp(op, "sh")) {
		rc = system(arg) ? perun_error_set(err, PERUN_ETOOL, "sh '%s' failed", arg) : 0;
	} else {
		return 2;
	}
	return rc;
}

static int takes_arg(const char *op)
{
	return !strcmp(op, "rev-parse") || !strcmp(op, "info") || !strcmp(op, "walk") ||
	       !strcmp(op, "walk-n") || !strcmp(op, "checkout") || !strcmp(op, "sh");
}

static int report(int rc, const struct perun_error *err)
{
	if (rc >= 0)
		return rc;
	/* A plugin must fill err with the code it returns. */
	if (err->code != -rc || !err->message[0]) {
		fprintf(stderr, "error %d: inconsistent error (code %d, '%s')\n", -rc, err->code,
			err->message);
		return 3;
	}
	fprintf(stderr, "error %d: %s\n", err->code, err->message);
	return 1;
}

static int run(int argc, char **argv)
{
	struct perun_error err = { 0 };
	void *state = NULL;
	int rc;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "describe"))
		return describe();
	if (!strcmp(argv[1], "init")) {
		if (argc < 3)
			return 2;
		return report(ops->init(argv[2], (const char *const *)argv + 3, &err), &err);
	}
	rc = ops->open(argv[1], &state, &err);
	if (rc)
		return report(rc, &err);
	for (int i = 2; i < argc && rc == 0; i++) {
		const char *op = argv[i], *arg = NULL;
		if (takes_arg(op)) {
			if (++i >= argc) {
				rc = 2;
				break;
			}
			arg = argv[i];
		}
		/* Plugin output and ours must interleave in order. */
		rc = run_op(state, op, arg, &err);
		fflush(stdout);
	}
	ops->close(state);
	return report(rc, &err);
}

int main(int argc, char **argv)
{
	ops = VCS_DESCRIBE()->ops;
	int rc = run(argc, argv);

	if (rc == 2)
		fprintf(stderr,
			"usage: %s describe | init <path> [param...] | "
			"<path> <op> [arg]...\n",
			argv[0]);
#ifdef VCS_DRIVER_LIBGIT2
	/* Every path through the plugin must leave libgit2 as it found it:
	 * our init brings the count to 1 only if the plugin left it at 0. */
	int count = git_libgit2_init();
	git_libgit2_shutdown();
	if (count != 1) {
		fprintf(stderr, "libgit2 init/shutdown unbalanced: %d\n", count - 1);
		rc = 3;
	}
#endif
	return rc;
}
