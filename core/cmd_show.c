/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun show: render a profile with a view plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "cmd_util.h"
#include "plugin_loader.h"
#include "profiles.h"
#include "runner.h"

static int cmd_show(const struct perun_command *cmd, struct perun_cli *cli,
		    const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = {0};
	struct perun_profile *profile = NULL;
	struct perun_params *view_params = NULL;
	int have_inst = 0, exit_code = PERUN_EXIT_OK;
	if (argc < 2)
		return perun_fail(PERUN_EXIT_USAGE, "show: usage: perun show <profile> <view> [<view options>]");
	const struct perun_loaded_plugin *view = perun_plugin_load(PERUN_KIND_VIEW, argv[1], &err);
	if (!view)
		return perun_error_exit(&err);
	/* A profile file can be shown outside any instance. */
	if (perun_instance_open(&inst, &err) == 0) {
		have_inst = 1;
		char sha[65];
		if (perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha, &err) ||
		    perun_profiles_load_any(&inst, sha, argv[0], &profile, &err))
			goto fail;
	} else if (err.code == PERUN_ENOTFOUND) {
		perun_error_clear(&err);
		if (perun_profile_load_file(argv[0], &profile, &err))
			goto fail;
	} else {
		goto fail;
	}
	char **rest;
	int nrest;
	if (perun_runner_unit_params(view, argc - 2, argv + 2, NULL, &view_params, &rest, &nrest,
				     &err))
		goto fail;
	const struct perun_view_ops *ops = view->desc->ops;
	if (!ops->show) {
		perun_error_set(&err, PERUN_EINVAL,
				"view '%s' only compares two profiles; use 'perun showdiff'",
				view->name);
		goto fail;
	}
	struct perun_view_ctx ctx = {
		.size = sizeof(ctx),
		.params = view_params,
		.profile = profile,
		.argc = nrest,
		.argv = rest,
		.out = stdout,
		.color = cli->color,
		.profile_label = argv[0],
	};
	if (ops->show(&ctx, &err)) {
		perun_error_prefix(&err, "view '%s'", view->name);
		goto fail;
	}
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	perun_params_free(view_params);
	perun_profile_free(profile);
	if (have_inst)
		perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option show_options[] = {
	{"minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	 "minor version whose profiles N@i refers to (default HEAD)", 0},
	{NULL},
};

const struct perun_command perun_cmd_show = {
	.name = "show",
	.fn = cmd_show,
	.options = show_options,
	.args = "<profile> <view> [<view options>]",
	.flags = PERUN_COMMAND_STOP_AT_POSITIONAL,
	.summary = "show a profile with a view",
	.description =
		"The profile is a tag (0@i, 0@p, <rev>^0@i), a name, an object SHA-1 or\n"
		"a file.  Views are plugins: 'perun plugins list' shows them and\n"
		"'perun plugins inspect <view>' their options.",
};
