/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun postprocessby: run one postprocessor on a stored or pending profile. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command_list.h"
#include "cmd_util.h"
#include "profiles.h"
#include "runner.h"

static int cmd_postprocessby(const struct perun_command *cmd, struct perun_cli *cli,
			     const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct perun_profile *profile = NULL;
	struct perun_params *unit_params = NULL;
	int exit_code = PERUN_EXIT_OK;
	if (argc < 2)
		return perun_fail(PERUN_EXIT_USAGE,
				  "postprocessby: usage: perun postprocessby <profile> "
				  "<postprocessor> [<postprocessor options>]");
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	char sha[65];
	const struct perun_loaded_plugin *unit =
		perun_plugin_load(PERUN_KIND_POSTPROCESS, argv[1], &err);
	if (!unit ||
	    perun_runner_unit_params(unit, argc - 2, argv + 2, NULL, &unit_params, NULL, NULL,
				     &err) ||
	    perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha, &err) ||
	    perun_profiles_load_any(&inst, sha, argv[0], PERUN_LOAD_WHOLE, &profile, &err))
		goto fail;
	char warning[2048];
	if (perun_runner_postprocess(unit, unit_params, profile, warning, sizeof(warning), &err))
		goto fail;
	if (warning[0])
		perun_warn("postprocessor '%s': %s", unit->name, warning);
	/* A stored profile has no origin: it belongs to the version it came from. */
	if (!perun_profile_origin(profile) && perun_profile_set_origin(profile, sha)) {
		perun_error_set(&err, PERUN_EGENERIC, "out of memory");
		goto fail;
	}
	char path[PATH_MAX];
	path[0] = '\0';
	if (perun_runner_store(&inst, profile, NULL,
			       perun_params_string(params, "output-filename-template", NULL), 0,
			       path, &err))
		goto fail;
	printf("Postprocessed %s\n", path[0] ? path : "into the index");
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	perun_params_free(unit_params);
	perun_profile_free(profile);
	perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option postprocessby_options[] = {
	{ "output-filename-template", "ot", PERUN_OPTION_STRING, NULL, NULL, "<template>",
	  "template of the resulting profile's name (default: format.output_profile_template)", 0 },
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version whose index N@i and names refer to (default HEAD)", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_postprocessby = {
	.name = "postprocessby",
	.fn = cmd_postprocessby,
	.options = postprocessby_options,
	.args = "<profile> <postprocessor> [<postprocessor options>]",
	.flags = PERUN_COMMAND_STOP_AT_POSITIONAL,
	.plugin_kind = PERUN_KIND_POSTPROCESS,
	.plugin_arg = 1,
	.summary = "postprocess a stored or pending profile",
	.description = "Runs the postprocessor on the profile (a tag such as 0@i or 0@p, a\n"
		       "name, an object SHA-1 or a file), appends it to the profile's\n"
		       "postprocessors and stores the result as a new pending profile in\n"
		       ".perun/jobs (or in the index when profiles.register_after_run is\n"
		       "set).  The profile it was made from stays as it was.  Options after\n"
		       "the postprocessor's name are its own: 'perun postprocessby\n"
		       "<profile> <postprocessor> --help' lists them.",
};
