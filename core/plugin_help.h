/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A plugin's usage as the command that runs it sees it, rendered from the
 * options the plugin declares: "perun collect time --help", "perun plugins
 * inspect time" and the man page perun-collect-time(1) all come from here.
 */
#ifndef PERUN_CORE_PLUGIN_HELP_H
#define PERUN_CORE_PLUGIN_HELP_H

#include <stdio.h>

#include <jansson.h>

#include "plugin_loader.h"

/* How a plugin is used: by which command, with which words. */
struct perun_plugin_usage {
	/* The command that runs it ("collect", "show", "showdiff", "check",
	 * "init"); its man page is perun-<command>-<name>. */
	const char *command;
	/* Lines of "perun ..." that run it (the second may be empty). */
	char synopsis[2][512];
	/* One paragraph: how it is chosen and where its options go. */
	char how[1024];
	/* Options are configuration keys with this prefix ("degradation."
	 * for check methods), or NULL: words on the command line. */
	const char *key_prefix;
};

/* The usage of the loaded (not rejected) plugin p. */
void perun_plugin_usage_of(const struct perun_loaded_plugin *p, struct perun_plugin_usage *u);

/*
 * The plugin of kind named name, for its --help: check methods also by
 * Perun's long name (average_amount_threshold).  Borrowed as from
 * perun_plugin_load; NULL with err filled ("no view plugin named 'x';
 * did you mean ...").
 */
const struct perun_loaded_plugin *perun_plugin_help_find(enum perun_plugin_kind kind,
							 const char *name, struct perun_error *err);

/* The --help text of p: usage, summary, how it is used, its options. */
void perun_plugin_help(const struct perun_loaded_plugin *p, FILE *out);

/* "options:" (or "configuration:" for keys) and one line per option of
 * p, or "(none)": the part of the help "plugins inspect" shows too. */
void perun_plugin_options_print(const struct perun_loaded_plugin *p, FILE *out);

/* The plugin as "perun plugins list --format json" shows it (with its
 * declared options when with_options): perun plugins and perun serve. */
json_t *perun_plugin_entry_json(const struct perun_loaded_plugin *e, int with_options);

#endif
