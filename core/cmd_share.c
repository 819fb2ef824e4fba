/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun push, fetch, pull: profiles shared through git remotes. */
#include <stdio.h>

#include "cmd_util.h"
#include "command_list.h"
#include "share.h"

typedef int (*share_fn)(struct perun_instance *, const char *, struct perun_share_counts *,
			struct perun_error *);

static int run(const char *what, share_fn fn, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct perun_share_counts counts;
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun %s [<remote>]", what);
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	int rc = fn(&inst, argc ? argv[0] : NULL, &counts, &err);
	perun_instance_close(&inst);
	if (rc)
		return perun_error_exit(&err);
	if (counts.up_to_date)
		printf("%s: up to date\n", what);
	else if (fn == perun_share_fetch)
		printf("fetch: the remote's profiles are updated (perun status compares them, "
		       "perun pull takes them in)\n");
	else if (fn == perun_share_pull || counts.profiles)
		printf("%s: %zu profile%s taken in (%zu new object%s)\n", what, counts.profiles,
		       counts.profiles == 1 ? "" : "s", counts.objects,
		       counts.objects == 1 ? "" : "s");
	if (fn == perun_share_push && !counts.up_to_date)
		printf("push: sent (%zu git object%s)\n", counts.sent, counts.sent == 1 ? "" : "s");
	if (counts.retries)
		printf("%s: the remote moved meanwhile; merged and retried %u time%s\n", what,
		       counts.retries, counts.retries == 1 ? "" : "s");
	return PERUN_EXIT_OK;
}

static int cmd_push(const struct perun_command *cmd, struct perun_cli *cli,
		    const struct perun_params *params, int argc, char **argv)
{
	return run("push", perun_share_push, argc, argv);
}

static int cmd_fetch(const struct perun_command *cmd, struct perun_cli *cli,
		     const struct perun_params *params, int argc, char **argv)
{
	return run("fetch", perun_share_fetch, argc, argv);
}

static int cmd_pull(const struct perun_command *cmd, struct perun_cli *cli,
		    const struct perun_params *params, int argc, char **argv)
{
	return run("pull", perun_share_pull, argc, argv);
}

static const struct perun_option no_options[] = {
	{ NULL },
};

#define REMOTE_HELP                                                                                \
	"<remote> is a git remote of the project (git remote add), a URL or a path;\n"             \
	"by default the config's share.remote, else origin.  Authentication is git's:\n"           \
	"an ssh agent (the host's key in ~/.ssh/known_hosts or\n"                                  \
	"/etc/ssh/ssh_known_hosts), git's credential helpers, or nothing for paths\n"              \
	"and file://.\n"                                                                           \
	"The profiles travel as git objects under refs/perun/ (never a branch or\n"                \
	"notes), so any git host or bare repository holds them."

const struct perun_command perun_cmd_push = {
	.name = "push",
	.fn = cmd_push,
	.options = no_options,
	.args = "[<remote>]",
	.summary = "send the stored profiles to a git remote",
	.description = "Merges the remote's profiles into the store (as pull does), then sends\n"
		       "what the remote lacks.  When another push got there first, the push\n"
		       "merges again and retries: profiles pushed at the same time by several\n"
		       "machines all end up on the remote, nothing is forced over.\n" REMOTE_HELP,
	.see_also = "perun-fetch(1), perun-pull(1)",
};

const struct perun_command perun_cmd_fetch = {
	.name = "fetch",
	.fn = cmd_fetch,
	.options = no_options,
	.args = "[<remote>]",
	.summary = "download the profiles of a git remote without taking them in",
	.description =
		"Brings the remote's profiles to refs/perun/remotes/<remote>/profiles;\n"
		"perun status then tells the profiles on the remote only from the\n"
		"local ones, and perun check takes them as baselines (verified by\n"
		"their SHA-1).  The store is not changed: perun pull takes them in.\n"
		"A remote whose store format is newer than this perun's is refused.\n" REMOTE_HELP,
	.see_also = "perun-pull(1), perun-push(1)",
};

const struct perun_command perun_cmd_pull = {
	.name = "pull",
	.fn = cmd_pull,
	.options = no_options,
	.args = "[<remote>]",
	.summary = "take the profiles of a git remote into the store",
	.description = "Fetches, then adds to the index of each minor version the remote's\n"
		       "profiles it lacks.  Every profile object is verified by its SHA-1\n"
		       "before it enters the store; a corrupt one refuses the whole pull and\n"
		       "leaves the store as it was.  The pulled profiles are baselines for\n"
		       "perun check like the local ones.\n" REMOTE_HELP,
	.see_also = "perun-fetch(1), perun-push(1)",
};
