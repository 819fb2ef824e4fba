/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun showdiff: compare two profiles with a view plugin. */
#include "command_list.h"
#include "cmd_util.h"
#include "views.h"

static int cmd_showdiff(const struct perun_command *cmd, struct perun_cli *cli,
			const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc < 3)
		return perun_fail(PERUN_EXIT_USAGE, "showdiff: usage: perun showdiff <baseline> "
						    "<target> <view> [<view options>]");
	if (perun_views_render(cli, perun_params_string(params, "minor", NULL), argv[2], argv, 2,
			       argc - 3, argv + 3, &err))
		return perun_error_exit(&err);
	return PERUN_EXIT_OK;
}

const struct perun_command perun_cmd_showdiff = {
	.name = "showdiff",
	.fn = cmd_showdiff,
	.options = perun_views_options,
	.args = "<baseline> <target> <view> [<view options>]",
	.flags = PERUN_COMMAND_STOP_AT_POSITIONAL,
	.plugin_kind = PERUN_KIND_VIEW,
	.plugin_arg = 2,
	.summary = "compare two profiles with a view",
	.description = "Both profiles are named as for 'perun show': a tag (0@i, 0@p,\n"
		       "<rev>^0@i), a name, an object SHA-1 or a file; -m applies to both.\n"
		       "Views that compare profiles provide show_diff: 'perun plugins list'\n"
		       "shows them and 'perun showdiff <baseline> <target> <view> --help'\n"
		       "their options.",
};
