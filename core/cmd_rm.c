/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun rm: deregister tracked profiles or delete pending ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_list.h"
#include "cmd_util.h"
#include "profiles.h"

static int cmd_rm(const struct perun_command *cmd, struct perun_cli *cli,
		  const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	char sha[65];
	int failed = 0, removed = 0, deleted = 0, exit_code = PERUN_EXIT_OK;
	if (argc == 0)
		return perun_fail(PERUN_EXIT_USAGE, "rm: name at least one profile");
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	if (perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha, &err) ||
	    perun_instance_lock(&inst, &err)) {
		perun_instance_close(&inst);
		return perun_error_exit(&err);
	}
	struct perun_profile_list chosen = { 0 };
	for (int i = 0; i < argc; i++)
		if (perun_profiles_select(&inst, sha, argv[i],
					  PERUN_SELECT_TRACKED | PERUN_SELECT_PENDING, &chosen,
					  &err)) {
			perun_error_print(&err);
			exit_code = perun_exit_worse(exit_code, &err);
			failed++;
		}
	struct perun_index idx;
	int rc = perun_minor_index_read(&inst, sha, &idx, &err);
	if (rc) {
		perun_error_print(&err);
		exit_code = perun_exit_worse(exit_code, &err);
		failed++;
	}
	for (size_t i = 0; !rc && i < chosen.n; i++) {
		const struct perun_profile_info *info = &chosen.items[i];
		if (info->pending)
			continue;
		size_t k;
		for (k = 0; k < idx.n; k++)
			if (!strcmp(idx.entries[k].checksum, info->entry.checksum) &&
			    !strcmp(idx.entries[k].path, info->entry.path))
				break;
		if (k < idx.n) {
			printf("deregistered %s\n", info->entry.path);
			perun_index_remove(&idx, k);
			removed++;
		}
	}
	if (removed && perun_minor_index_write(&inst, sha, &idx, &err)) {
		perun_error_print(&err);
		exit_code = perun_exit_worse(exit_code, &err);
		failed += removed;
		removed = 0;
	}
	for (size_t i = 0; i < chosen.n; i++) {
		const struct perun_profile_info *info = &chosen.items[i];
		if (!info->pending)
			continue;
		if (unlink(info->file) == 0) {
			printf("deleted %s\n", info->entry.path);
			deleted++;
		} else {
			perun_warn("cannot delete '%s'", info->file);
			exit_code = PERUN_EXIT_FAILURE;
			failed++;
		}
	}
	if (removed + deleted)
		printf("Removal succeeded for %d profile%s\n", removed + deleted,
		       removed + deleted == 1 ? "" : "s");
	if (!rc)
		perun_index_release(&idx);
	perun_profile_list_release(&chosen);
	perun_instance_close(&inst);
	return failed ? (exit_code ? exit_code : PERUN_EXIT_USAGE) : PERUN_EXIT_OK;
}

static const struct perun_option rm_options[] = {
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version whose index the profiles are removed from (default HEAD)", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_rm = {
	.name = "rm",
	.fn = cmd_rm,
	.options = rm_options,
	.args = "<profile>...",
	.summary = "remove profiles from an index or from the pending ones",
	.description = "Tracked profiles (N@i, ranges, names, object SHA-1s) are removed from\n"
		       "the index of the minor version; their objects stay in the store.\n"
		       "Pending profiles (N@p, ranges, names in .perun/jobs) are deleted.",
};
