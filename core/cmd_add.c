/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun add: register pending profiles at a minor version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "command_list.h"
#include "cmd_util.h"
#include "durable.h"
#include "profiles.h"
#include "store.h"

/* Store one profile and put it in the index; 0, or an error. */
static int register_one(struct perun_instance *inst, const char *sha, struct perun_index *idx,
			const struct perun_profile_info *info, int force,
			char created[PERUN_SHA1_HEX], struct perun_error *err)
{
	struct perun_profile *profile;
	/* Streamed: the store writes the map as it reads it (a profile of a
	 * million types is never held whole), and refuses a malformed one. */
	int rc = perun_profile_info_load_as(inst, info, PERUN_LOAD_STREAMED, &profile, err);
	if (rc)
		return rc;
	const char *origin = perun_profile_origin(profile);
	if (!force && (!origin || strcmp(origin, sha))) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "profile '%s' was collected at %s, not at %s "
				     "(use --force to add it anyway)",
				     info->entry.path, origin ? origin : "an unknown version", sha);
		goto out;
	}
	struct stat st;
	uint32_t mtime = info->file && stat(info->file, &st) == 0 ? perun_index_mtime(&st)
								  : (uint32_t)time(NULL);
	rc = perun_minor_index_add(inst, idx, profile, info->entry.path, mtime, created, err);
	if (rc == 1) {
		perun_warn("%s is already registered at %.12s", info->entry.path, sha);
		rc = 0;
	}
out:
	perun_profile_free(profile);
	return rc;
}

static int cmd_add(const struct perun_command *cmd, struct perun_cli *cli,
		   const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	char sha[65];
	int failed = 0, added = 0, exit_code = PERUN_EXIT_OK;
	if (argc == 0)
		return perun_fail(PERUN_EXIT_USAGE, "add: name at least one profile");
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	int rc = perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha, &err);
	if (!rc)
		rc = perun_instance_lock(&inst, &err);
	if (rc) {
		perun_instance_close(&inst);
		return perun_error_exit(&err);
	}
	struct perun_profile_list chosen = { 0 };
	for (int i = 0; i < argc; i++) {
		if (perun_profiles_select(&inst, sha, argv[i],
					  PERUN_SELECT_PENDING | PERUN_SELECT_FILES, &chosen,
					  &err)) {
			perun_error_print(&err);
			exit_code = perun_exit_worse(exit_code, &err);
			failed++;
		}
	}
	struct perun_index idx;
	if (perun_minor_index_read(&inst, sha, &idx, &err)) {
		perun_profile_list_release(&chosen);
		perun_instance_close(&inst);
		return perun_error_exit(&err);
	}
	int force = perun_params_bool(params, "force", 0);
	int *ok = calloc(chosen.n ? chosen.n : 1, sizeof(int));
	/* Objects this run wrote: removed again when the index is not
	 * written, so that a failed add leaves the store as it was. */
	char(*created)[PERUN_SHA1_HEX] = calloc(chosen.n ? chosen.n : 1, sizeof(*created));
	if (!ok || !created) {
		free(ok);
		free(created);
		perun_index_release(&idx);
		perun_profile_list_release(&chosen);
		perun_instance_close(&inst);
		return perun_fail(PERUN_EXIT_FAILURE, "out of memory");
	}
	/* Every object and the index: one durable commit. */
	perun_durable_begin();
	for (size_t i = 0; i < chosen.n; i++) {
		if (register_one(&inst, sha, &idx, &chosen.items[i], force, created[i], &err)) {
			perun_error_print(&err);
			exit_code = perun_exit_worse(exit_code, &err);
			failed++;
			continue;
		}
		ok[i] = 1;
		added++;
	}
	if (!added)
		perun_durable_abort();
	if (added) {
		int written = perun_minor_index_write(&inst, sha, &idx, &err);
		if (written)
			perun_durable_abort();
		else
			written = perun_durable_commit(&err);
		if (written) {
			perun_error_print(&err);
			exit_code = perun_exit_worse(exit_code, &err);
			char *objects = perun_instance_path(&inst, "objects");
			for (size_t i = 0; i < chosen.n; i++)
				perun_store_remove_object(objects, created[i]);
			free(objects);
			failed += added;
			added = 0;
		}
	}
	/* Only now, with the index safely written, drop the sources. */
	if (added && !perun_params_bool(params, "keep-profile", 0))
		for (size_t i = 0; i < chosen.n; i++)
			if (ok[i] && chosen.items[i].file)
				unlink(chosen.items[i].file);
	if (added)
		printf("Registration succeeded for %d profile%s at %.12s\n", added,
		       added == 1 ? "" : "s", sha);
	free(ok);
	free(created);
	perun_index_release(&idx);
	perun_profile_list_release(&chosen);
	perun_instance_close(&inst);
	if (failed)
		return perun_fail(exit_code ? exit_code : PERUN_EXIT_USAGE,
				  "registration failed for %d profile%s", failed,
				  failed == 1 ? "" : "s");
	return PERUN_EXIT_OK;
}

static const struct perun_option add_options[] = {
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version to register the profiles at (default HEAD)", 0 },
	{ "keep-profile", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the profile files after registering them", 0 },
	{ "force", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "register even when the profile was collected at another version", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_add = {
	.name = "add",
	.fn = cmd_add,
	.options = add_options,
	.args = "<profile>...",
	.summary = "register profiles at a minor version",
	.description = "Stores each profile as an object and registers it in the index of\n"
		       "the minor version.  Profiles are pending tags (0@p), ranges\n"
		       "(0@p-3@p), names in .perun/jobs or paths.  A profile must have been\n"
		       "collected at that version (its origin) unless --force is given.\n"
		       "The files are deleted afterwards unless --keep-profile is given.",
};
