/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun utils create|stats|temp: the helpers of plugin authors and of the
 * stores in .perun that Perun keeps beside the profiles. */
#include "command_list.h"

extern const struct perun_command perun_cmd_utils_create;

static const struct perun_command *const utils_subcommands[] = {
	&perun_cmd_utils_create,
	NULL,
};

const struct perun_command perun_cmd_utils = {
	.name = "utils",
	.summary = "make new plugins from templates",
	.description = "Helpers beside the profiles: 'create' makes a new plugin from a\n"
		       "template.",
	.subcommands = utils_subcommands,
	.see_also = "perun-plugins(1)",
};
