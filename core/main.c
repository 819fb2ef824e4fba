/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun: git-like dispatch from the command table (core/commands.c). */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "crash.h"
#include "crash_report.h"
#include "plugin_help.h"
#include "plugin_loader.h"
#include <perun/suggest.h>

/* "; did you mean 'status'?" for a mistyped subcommand of group, or "". */
static void command_suggestion(const struct perun_command *group, const char *name, char *buf,
			       size_t len)
{
	const char *names[64];
	size_t n = 0;
	for (const struct perun_command *const *c = group->subcommands; c && *c && n < 64; c++)
		if (!((*c)->flags & PERUN_COMMAND_HIDDEN))
			names[n++] = (*c)->name;
	perun_suggest(name, names, n, "", buf, len);
}

static int wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

/* Unknown top-level commands run perun-<name> from PATH, like git. */
static int run_external(const char *name, char **argv)
{
	char program[256];
	snprintf(program, sizeof(program), "perun-%s", name);
	execvp(program, argv);
	if (errno == ENOENT) {
		char hint[256];
		command_suggestion(&perun_root_command, name, hint, sizeof(hint));
		return perun_fail(PERUN_EXIT_USAGE,
				  "'%s' is not a perun command%s (see 'perun --help')", name, hint);
	}
	return perun_fail(PERUN_EXIT_FAILURE, "cannot run '%s': %s", program, strerror(errno));
}

/*
 * The plugin that "collect time --help" or "show 0@i scatter --help"
 * names: the positional word cmd->plugin_arg when the command's options
 * before it parse, else NULL (the command's own help then).
 */
static const char *plugin_word(const struct perun_command *cmd, int argc, char **argv)
{
	struct perun_params *params = perun_params_new();
	struct perun_error err = { 0 };
	char **rest;
	int nrest;
	int stop = cmd->subcommands || (cmd->flags & PERUN_COMMAND_STOP_AT_POSITIONAL);
	int rc = perun_options_parse(cmd->options, argc, argv, stop, params, &rest, &nrest, &err);
	perun_params_free(params);
	if (rc || nrest <= cmd->plugin_arg || rest[cmd->plugin_arg][0] == '-')
		return NULL;
	return rest[cmd->plugin_arg];
}

/* --help of cmd, or the usage of the plugin its words name. */
static int command_help(const struct perun_command *cmd, const char *path, int argc, char **argv)
{
	const char *name = cmd->plugin_kind ? plugin_word(cmd, argc, argv) : NULL;
	if (!name) {
		perun_command_help(cmd, path, stdout);
		return PERUN_EXIT_OK;
	}
	struct perun_error err = { 0 };
	const struct perun_loaded_plugin *plugin =
		perun_plugin_help_find(cmd->plugin_kind, name, &err);
	if (plugin) {
		perun_plugin_help(plugin, stdout);
		return PERUN_EXIT_OK;
	}
	/* "check haed --help" is rather a mistyped subcommand than a method. */
	char hint[256] = "";
	if (cmd->subcommands)
		command_suggestion(cmd, name, hint, sizeof(hint));
	if (hint[0])
		return perun_fail(PERUN_EXIT_USAGE,
				  "'%s' is not a '%s' command%s (see '%s --help')", name, path,
				  hint, path);
	perun_error_print(&err);
	return perun_exit_for(err.code);
}

static int dispatch(const struct perun_command *group, const char *path, struct perun_cli *cli,
		    const struct perun_params *group_params, int argc, char **argv);

static int run_command(const struct perun_command *cmd, const char *path, struct perun_cli *cli,
		       const struct perun_params *group_params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	char **rest;
	int nrest, rc;
	if (wants_help(argc, argv) &&
	    (!cmd->subcommands || argc == 0 || !perun_command_find(cmd, argv[0]) ||
	     !strcmp(argv[0], "--help"))) {
		/* "perun config --help" is the group's help, "perun config get
		 * --help" the subcommand's: only stop here when no subcommand
		 * follows. */
		int i = 0;
		while (i < argc && argv[i][0] == '-')
			i++;
		if (!cmd->subcommands || i >= argc || !perun_command_find(cmd, argv[i]))
			return command_help(cmd, path, argc, argv);
	}
	struct perun_params *params = perun_params_new();
	if (!params) /* the parse would store nothing and succeed */
		return perun_fail(PERUN_EXIT_FAILURE, "out of memory");
	int stop = cmd->subcommands || (cmd->flags & PERUN_COMMAND_STOP_AT_POSITIONAL);
	rc = perun_options_parse(cmd->options, argc, argv, stop, params, &rest, &nrest, &err);
	if (!rc)
		rc = perun_params_finish(params, cmd->options, path, &err);
	if (rc) {
		int code = perun_exit_for(err.code); /* 3 when out of memory */
		perun_error_print(&err);
		if (code == PERUN_EXIT_USAGE)
			fprintf(stderr, "perun: see '%s --help'\n", path);
		perun_params_free(params);
		return code;
	}
	if (cmd->subcommands) {
		if (nrest == 0 && cmd->fn) {
			rc = cmd->fn(cmd, cli, params, 0, rest);
		} else if (nrest == 0) {
			perun_command_help(cmd, path, stderr);
			rc = PERUN_EXIT_USAGE;
		} else {
			rc = dispatch(cmd, path, cli, params, nrest, rest);
		}
	} else {
		(void)group_params;
		rc = cmd->fn(cmd, cli, params, nrest, rest);
	}
	perun_params_free(params);
	return rc;
}

static int dispatch(const struct perun_command *group, const char *path, struct perun_cli *cli,
		    const struct perun_params *group_params, int argc, char **argv)
{
	const char *name = argv[0];
	char subpath[512];
	if (!strcmp(name, "help") && group == &perun_root_command) {
		const struct perun_command *cmd = group;
		snprintf(subpath, sizeof(subpath), "%s", path);
		for (int i = 1; i < argc; i++) {
			const struct perun_command *sub = perun_command_find(cmd, argv[i]);
			if (!sub)
				return perun_fail(PERUN_EXIT_USAGE,
						  "no help for unknown command '%s'", argv[i]);
			cmd = sub;
			size_t len = strlen(subpath);
			snprintf(subpath + len, sizeof(subpath) - len, " %s", argv[i]);
		}
		perun_command_help(cmd, subpath, stdout);
		return PERUN_EXIT_OK;
	}
	const struct perun_command *cmd = perun_command_find(group, name);
	if (!cmd) {
		if (group == &perun_root_command)
			return run_external(name, argv);
		char hint[256];
		command_suggestion(group, name, hint, sizeof(hint));
		return perun_fail(PERUN_EXIT_USAGE,
				  "'%s' is not a '%s' command%s (see '%s --help')", name, path,
				  hint, path);
	}
	snprintf(subpath, sizeof(subpath), "%s %s", path, name);
	cli->outer_params = cli->group_params;
	cli->group_params = group_params;
	return run_command(cmd, subpath, cli, group_params, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	struct perun_cli cli = { 0 };
	struct perun_error err = { 0 };
	char **rest;
	int nrest;
	perun_crash_handlers_install();
	perun_crash_report_prepare(argc, argv);
	const char *no_color = getenv("NO_COLOR");
	cli.argv0 = argv[0];
	cli.color = isatty(STDOUT_FILENO) && !(no_color && *no_color);

	struct perun_params *global = perun_params_new();
	if (!global)
		return perun_fail(PERUN_EXIT_FAILURE, "out of memory");
	if (perun_options_parse(perun_root_command.options, argc - 1, argv + 1, 1, global, &rest,
				&nrest, &err)) {
		perun_error_print(&err);
		perun_params_free(global);
		return perun_exit_for(err.code);
	}
	if (perun_params_bool(global, "version", 0)) {
		printf("Perun %s\n", PACKAGE_VERSION);
		perun_params_free(global);
		return PERUN_EXIT_OK;
	}
	if (perun_params_bool(global, "help", 0) || nrest == 0) {
		perun_command_help(
			&perun_root_command, "perun",
			nrest ? stdout : (perun_params_bool(global, "help", 0) ? stdout : stderr));
		int rc = perun_params_bool(global, "help", 0) ? PERUN_EXIT_OK : PERUN_EXIT_USAGE;
		perun_params_free(global);
		return rc;
	}
	cli.verbose = (int)perun_params_int(global, "verbose", 0);
	cli.say_yes = perun_params_bool(global, "say-yes", 0);
	cli.no_pager = perun_params_bool(global, "no-pager", 0);
	if (perun_params_bool(global, "no-color", 0))
		cli.color = 0;
	cli.plugin_path = perun_params_string(global, "plugin-path", NULL);
	perun_plugins_init(cli.plugin_path);

	int rc = dispatch(&perun_root_command, "perun", &cli, global, nrest, rest);

	perun_plugins_release();
	perun_params_free(global);
	if (fflush(stdout) != 0 || ferror(stdout))
		return perun_fail(PERUN_EXIT_FAILURE, "cannot write to standard output");
	return rc;
}
