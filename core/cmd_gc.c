/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun gc [--dry-run]: remove the profile objects no index names (left by
 * perun rm, which keeps objects), after checking that every index reads.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_util.h"
#include "command_list.h"
#include "store.h"
#include "store_check.h"
#include "store_scan.h"

static int cmd_gc(const struct perun_command *cmd, struct perun_cli *cli,
		  const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_store_state st;
	struct perun_error err = { 0 };
	int dry_run = perun_params_bool(params, "dry-run", 0);
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "gc takes no arguments");
	if (perun_store_state_open(&inst, &st, 0, &err))
		return perun_error_exit(&err);
	/* The objects are not read back (that is fsck's), so a damaged index
	 * without its magic looks like an unreferenced object: one named by a
	 * commit is an index. */
	const char *sha;
	json_t *present;
	json_object_foreach(st.objects, sha, present) if (!json_object_get(st.referenced, sha) &&
							  perun_store_names_commit(&inst, sha))
		json_object_set_new(st.bad_indexes, sha, json_string("no pidx magic"));
	/* An index that does not read may name any object: keep them all. */
	int exit_code = PERUN_EXIT_OK;
	if (json_object_size(st.bad_indexes)) {
		exit_code = perun_fail(PERUN_EXIT_USAGE,
				       "%zu index%s of the store do%s not read: nothing removed "
				       "(run 'perun fsck --repair' first)",
				       json_object_size(st.bad_indexes),
				       json_object_size(st.bad_indexes) == 1 ? "" : "es",
				       json_object_size(st.bad_indexes) == 1 ? "es" : "");
		goto out;
	}
	char *objects = perun_instance_path(&inst, "objects");
	size_t removed = 0, bytes = 0;
	if (!dry_run)
		perun_store_remove_stale_temps(objects);
	json_object_foreach(st.objects, sha, present)
	{
		if (json_object_get(st.referenced, sha))
			continue;
		char path[PATH_MAX];
		struct stat fst;
		perun_store_object_path(objects, sha, path, sizeof(path));
		if (stat(path, &fst))
			continue;
		if (dry_run)
			printf("would remove %s\n", sha);
		else if (unlink(path)) {
			perun_warn("cannot remove '%s'", path);
			continue;
		}
		removed++;
		bytes += (size_t)fst.st_size;
	}
	free(objects);
	printf("%s %zu unreferenced profile object%s (%zu bytes)\n",
	       dry_run ? "would remove" : "removed", removed, removed == 1 ? "" : "s", bytes);
out:
	perun_store_state_release(&st);
	perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option gc_options[] = {
	{ "dry-run", "n", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "list what would be removed, remove nothing", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_gc = {
	.name = "gc",
	.fn = cmd_gc,
	.options = gc_options,
	.summary = "remove profile objects that no index names",
	.description = "Profiles removed from an index by 'perun rm' keep their objects in\n"
		       ".perun/objects.  gc removes the objects no index names, after\n"
		       "reading every index; when one does not read it removes nothing\n"
		       "(run 'perun fsck --repair' first).  It also removes the temporary\n"
		       "files that killed processes left among the objects; those in\n"
		       ".perun and .perun/jobs go whenever the store is locked.",
};
