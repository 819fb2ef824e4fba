/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The top-level command table and the global options. */
#include "command.h"
#include "command_list.h"

static const struct perun_option global_options[] = {
	{ "verbose", "v", PERUN_OPTION_BOOL, NULL, NULL, NULL, "say more (repeatable)",
	  PERUN_OPTION_COUNT },
	{ "no-pager", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not page the output of log, status, show and check (general.paging)", 0 },
	{ "no-color", "nc", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "no ANSI colours (also when NO_COLOR is set)", 0 },
	{ "say-yes", "y", PERUN_OPTION_BOOL, NULL, NULL, NULL, "answer yes to every question", 0 },
	{ "plugin-path", NULL, PERUN_OPTION_STRING, NULL, NULL, "<dirs>",
	  "colon-separated plugin directories searched first (also $PERUN_PLUGIN_PATH)", 0 },
	{ "version", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL, "print the version and exit", 0 },
	{ "help", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL, "print this help and exit", 0 },
	{ NULL },
};

#define PERUN_COMMAND_ENTRY(name) &perun_cmd_##name,
static const struct perun_command *const top_level[] = {
	PERUN_COMMAND_LIST(PERUN_COMMAND_ENTRY) NULL,
};
#undef PERUN_COMMAND_ENTRY

const struct perun_command perun_root_command = {
	.name = "perun",
	.options = global_options,
	.summary = "Perun: a performance version system",
	.description = "Perun keeps performance profiles linked to the commits of a\n"
		       "project, runs profiling jobs, derives models, detects performance\n"
		       "changes between versions and shows the results.\n"
		       "\n"
		       "Unknown commands run 'perun-<command>' from PATH.",
	.subcommands = top_level,
};
