/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the cmd_*.c files (see cmd_util.h). */
#include <string.h>

#include "cmd_util.h"

int perun_error_exit(const struct perun_error *err)
{
	perun_error_print(err);
	return perun_exit_for(err->code);
}

int perun_resolve_minor(struct perun_instance *inst, const char *rev, char *sha,
			struct perun_error *err)
{
	return perun_vcs_rev_parse(&inst->vcs, rev ? rev : "HEAD", sha, err);
}

const char *perun_color(const struct perun_cli *cli, const char *name)
{
	static const struct {
		const char *name, *code;
	} colors[] = {
		{ "reset", "\033[0m" },	   { "bold", "\033[1m" },    { "red", "\033[31m" },
		{ "green", "\033[32m" },   { "yellow", "\033[33m" }, { "blue", "\033[34m" },
		{ "magenta", "\033[35m" }, { "cyan", "\033[36m" },   { "white", "\033[37m" },
		{ "grey", "\033[90m" },
	};
	if (!cli->color)
		return "";
	for (size_t i = 0; i < sizeof(colors) / sizeof(colors[0]); i++)
		if (!strcmp(colors[i].name, name))
			return colors[i].code;
	return "";
}

int perun_exit_worse(int exit_code, const struct perun_error *err)
{
	int other = perun_exit_for(err->code);
	return other > exit_code ? other : exit_code;
}
