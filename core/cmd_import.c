/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun import <source> <file>: a foreign tool's data file as a pending
 * profile of this instance, as if collected at --minor (default HEAD).
 * Each source is a subcommand made from an entry of import_sources.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "command_list.h"
#include "cmd_util.h"
#include "import.h"
#include "runner.h"

static const struct perun_import_source *const import_sources[] = {
	&perun_import_heaptrack,
	NULL,
};

static int cmd_import_source(const struct perun_command *cmd, struct perun_cli *cli,
			     const struct perun_params *params, int argc, char **argv)
{
	const struct perun_import_source *src = NULL;
	(void)cli;
	for (size_t i = 0; import_sources[i] && !src; i++)
		if (!strcmp(import_sources[i]->name, cmd->name))
			src = import_sources[i];
	if (!src || argc != 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun import %s <file>", cmd->name);
	struct perun_instance inst;
	struct perun_error err = { 0 };
	char sha[65], path[PATH_MAX];
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	struct perun_profile *profile = perun_profile_new(src->profile_type);
	int rc = profile ? 0 : perun_error_set(&err, PERUN_EGENERIC, "out of memory");
	if (!rc)
		rc = perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha,
					 &err);
	if (!rc)
		rc = src->read(argv[0], profile, &err);
	if (!rc) {
		json_t *info = json_pack("{s:s}", "file", argv[0]);
		perun_profile_set_header(profile, "type", src->profile_type);
		rc = perun_profile_set_units(profile, src->units, &err);
		perun_profile_set_collector(profile, src->name, info);
		json_decref(info);
		perun_profile_set_origin(profile, sha);
	}
	if (!rc)
		rc = perun_runner_store(&inst, profile,
					perun_params_string(params, "profile-name", NULL), NULL, 0,
					path, &err);
	if (!rc)
		printf("Imported %s%s\n", path[0] ? "profile " : "",
		       path[0] ? path : "into the index");
	perun_profile_free(profile);
	perun_instance_close(&inst);
	return rc ? perun_error_exit(&err) : PERUN_EXIT_OK;
}

static const struct perun_option import_options[] = {
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version the profile belongs to (default HEAD)", 0 },
	{ "profile-name", "pn", PERUN_OPTION_STRING, NULL, NULL, "<name>",
	  "name of the profile file (default: format.output_profile_template)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct perun_command import_heaptrack = {
	.name = "heaptrack",
	.fn = cmd_import_source,
	.options = import_options,
	.args = "<file>",
	.summary = "import a heaptrack data file (.zst, .gz or plain)",
	.description = "Reads what heaptrack recorded (heaptrack.<prog>.<pid>.zst) into a memory\n"
		       "profile aggregated per allocation trace, of the same shape as\n"
		       "'perun collect memory' writes: bytes, count, peak, leaked and live bytes\n"
		       "per trace, and the live-bytes series per heaptrack timestamp.",
};

static const struct perun_command *const import_subcommands[] = {
	&import_heaptrack,
	NULL,
};

const struct perun_command perun_cmd_import = {
	.name = "import",
	.summary = "import a profile recorded by another tool",
	.description = "Turns another tool's data file into a pending profile of this\n"
		       "instance: 'perun import heaptrack <file>'.",
	.subcommands = import_subcommands,
};
