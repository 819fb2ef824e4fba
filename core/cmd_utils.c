/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun utils create|stats|temp: the helpers of plugin authors and of the
 * stores in .perun that Perun keeps beside the profiles. */
#include "command_list.h"

extern const struct perun_command perun_cmd_utils_create;
extern const struct perun_command perun_cmd_utils_temp;
extern const struct perun_command perun_cmd_utils_stats;

static const struct perun_command *const utils_subcommands[] = {
	&perun_cmd_utils_create,
	&perun_cmd_utils_stats,
	&perun_cmd_utils_temp,
	NULL,
};

const struct perun_command perun_cmd_utils = {
	.name = "utils",
	.summary = "make new plugins; list and clean the stats and temporary files",
	.description = "Helpers beside the profiles: 'create' makes a new plugin from a\n"
		       "template, 'stats' lists and cleans the stats files of .perun/stats,\n"
		       "'temp' lists and deletes the temporary files of .perun/tmp.",
	.subcommands = utils_subcommands,
	.see_also = "perun-plugins(1)",
};
