/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tableof-driver PROFILE WORDS... - show PROFILE through the tableof view
 * the way "perun show PROFILE tableof WORDS..." does: the words are parsed
 * against the plugin's declared options by the core's own parser, then the
 * view's show runs with stdout as its output.  Errors are printed as perun
 * prints them, with perun's exit codes, so the shell tests can exercise the
 * plugin before and independently of the show command.
 */
#include <stdio.h>

#include <perun/perun.h>

#include "../../../../core/command.h"

const struct perun_plugin *perun_plugin_tableof_describe(void);

int main(int argc, char **argv)
{
	const struct perun_plugin *plugin = perun_plugin_tableof_describe();
	const struct perun_view_ops *ops = plugin->ops;
	struct perun_error err = {0};
	struct perun_profile *profile = NULL;
	struct perun_params *params = perun_params_new();
	char **rest;
	int nrest, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: tableof-driver PROFILE [WORDS...]\n");
		return PERUN_EXIT_USAGE;
	}
	rc = perun_profile_load_file(argv[1], &profile, &err);
	if (!rc)
		rc = perun_options_parse(plugin->options, argc - 2, argv + 2, 0, params,
					 &rest, &nrest, &err);
	if (!rc)
		rc = perun_params_finish(params, plugin->options, "tableof", &err);
	if (!rc) {
		struct perun_view_ctx ctx = {
			.size = sizeof(ctx), .params = params, .profile = profile,
			.argc = nrest, .argv = rest, .out = stdout,
		};
		rc = ops->show(&ctx, &err);
	}
	if (rc)
		perun_error_print(&err);
	perun_profile_free(profile);
	perun_params_free(params);
	return perun_exit_for(rc);
}
