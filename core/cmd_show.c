/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun show: render a profile with a view plugin. */
#include "command_list.h"
#include "cmd_util.h"
#include "views.h"

static int cmd_show(const struct perun_command *cmd, struct perun_cli *cli,
		    const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc < 2)
		return perun_fail(PERUN_EXIT_USAGE,
				  "show: usage: perun show <profile> <view> [<view options>]");
	if (perun_views_render(cli, perun_params_string(params, "minor", NULL), argv[1], argv, 1,
			       argc - 2, argv + 2, &err))
		return perun_error_exit(&err);
	return PERUN_EXIT_OK;
}

const struct perun_command perun_cmd_show = {
	.name = "show",
	.fn = cmd_show,
	.options = perun_views_options,
	.args = "<profile> <view> [<view options>]",
	.flags = PERUN_COMMAND_STOP_AT_POSITIONAL,
	.plugin_kind = PERUN_KIND_VIEW,
	.plugin_arg = 1,
	.summary = "show a profile with a view",
	.description = "The profile is a tag (0@i, 0@p, <rev>^0@i), a name, an object SHA-1 or\n"
		       "a file.  Views are plugins: 'perun plugins list' shows them and\n"
		       "'perun show <profile> <view> --help' their options.",
};
