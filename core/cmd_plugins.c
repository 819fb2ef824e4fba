/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun plugins list|inspect: what is installed, and why a plugin is not. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "command_list.h"
#include "plugin_help.h"
#include "plugin_loader.h"

static int cmd_plugins_list(const struct perun_command *cmd, struct perun_cli *cli,
			    const struct perun_params *params, int argc, char **argv)
{
	struct perun_loaded_plugin **entries;
	size_t n = perun_plugins_scan(&entries);
	int verbose = perun_params_bool(params, "verbose", 0) || cli->verbose;
	if (!strcmp(perun_params_string(params, "format", "text"), "json")) {
		json_t *all = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(all, perun_plugin_entry_json(entries[i], 0));
		json_t *doc = json_pack("{s:i,s:o}", "schema", 1, "plugins", all);
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(doc);
	} else {
		for (size_t i = 0; i < n; i++) {
			const struct perun_loaded_plugin *e = entries[i];
			if (e->shadowed_by && !verbose)
				continue;
			printf("%-12s %-22s", perun_plugin_kind_name(e->kind), e->name);
			if (e->error)
				printf(" REJECTED: %s", e->error);
			else if (e->shadowed_by)
				printf(" shadowed by %s", e->shadowed_by);
			else
				printf(" %-8s %s", e->desc->version ? e->desc->version : "",
				       e->desc->summary ? e->desc->summary : "");
			if (verbose && !e->error)
				printf("\n%12s %s (ABI %u.%u)", "", e->path, e->desc->abi_major,
				       e->desc->abi_minor);
			putchar('\n');
		}
		if (verbose) {
			printf("\nsearch path:\n");
			for (const char *const *d = perun_plugins_search_path(); d && *d; d++)
				printf("  %s\n", *d);
		}
	}
	perun_plugins_scan_free(entries, n);
	return PERUN_EXIT_OK;
}

static int cmd_plugins_inspect(const struct perun_command *cmd, struct perun_cli *cli,
			       const struct perun_params *params, int argc, char **argv)
{
	if (argc != 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun plugins inspect <name>");
	char name[256];
	snprintf(name, sizeof(name), "%s", argv[0]);
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	struct perun_loaded_plugin **entries;
	size_t n = perun_plugins_scan(&entries);
	int found = 0;
	int json = !strcmp(perun_params_string(params, "format", "text"), "json");
	for (size_t i = 0; i < n; i++) {
		const struct perun_loaded_plugin *e = entries[i];
		if (strcmp(e->name, name) || e->shadowed_by)
			continue;
		found++;
		if (json) {
			json_t *doc = perun_plugin_entry_json(e, 1);
			json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(doc);
			continue;
		}
		printf("name:    %s\nkind:    %s\npath:    %s\n", e->name,
		       perun_plugin_kind_name(e->kind), e->path);
		if (e->error) {
			printf("status:  rejected\nerror:   %s\n", e->error);
			continue;
		}
		printf("version: %s\nabi:     %u.%u (core %u.%u)\nsummary: %s\n",
		       e->desc->version ? e->desc->version : "", e->desc->abi_major,
		       e->desc->abi_minor, PERUN_PLUGIN_ABI_MAJOR, PERUN_PLUGIN_ABI_MINOR,
		       e->desc->summary ? e->desc->summary : "");
		if (e->kind == PERUN_KIND_CHECK) {
			const char *method = perun_check_method_name(e);
			printf("method:  %s\ntitle:   %s\n", method ? method : "(none)",
			       perun_check_method_title(e));
		}
		perun_plugin_options_print(e, stdout);
	}
	perun_plugins_scan_free(entries, n);
	if (!found)
		return perun_fail(PERUN_EXIT_USAGE,
				  "no plugin named '%s' (see 'perun plugins list')", argv[0]);
	return PERUN_EXIT_OK;
}

static const struct perun_option list_options[] = {
	{ "verbose", "v", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "show paths, ABI versions, shadowed plugins and the search path", 0 },
	{ "format", NULL, PERUN_OPTION_CHOICE, "text", "text|json", NULL, "output format", 0 },
	{ NULL },
};

static const struct perun_option inspect_options[] = {
	{ "format", NULL, PERUN_OPTION_CHOICE, "text", "text|json", NULL, "output format", 0 },
	{ NULL },
};

static const struct perun_command cmd_list = {
	.name = "list",
	.fn = cmd_plugins_list,
	.options = list_options,
	.summary = "list the plugins found, with the error of each rejected one",
};

static const struct perun_command cmd_inspect = {
	.name = "inspect",
	.fn = cmd_plugins_inspect,
	.options = inspect_options,
	.args = "<name>",
	.summary = "show a plugin's kind, path, ABI and options",
};

static const struct perun_command *const subcommands[] = { &cmd_list, &cmd_inspect, NULL };

const struct perun_command perun_cmd_plugins = {
	.name = "plugins",
	.summary = "list and inspect plugins",
	.description = "Plugins are searched in --plugin-path or $PERUN_PLUGIN_PATH,\n"
		       "then $XDG_DATA_HOME/perun/plugins, then the installed directory;\n"
		       "each directory holds <kind>/<name>.so and the first match wins.",
	.subcommands = subcommands,
};
