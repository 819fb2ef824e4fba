/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun config [--local|--shared|--nearest] get|set|edit|reset */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_list.h"
#include "instance.h"

enum config_scope {
	SCOPE_NEAREST,
	SCOPE_LOCAL,
	SCOPE_SHARED,
};

static const struct perun_option config_options[] = {
	{ "local", "l", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "use the local configuration, .perun/local.yml", 0 },
	{ "shared", "h", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "use the shared configuration, shared.yml", 0 },
	{ "nearest", "n", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "use the nearest configuration: get looks up local then shared, "
	  "the others use local (the default)",
	  0 },
	{ NULL },
};

/*
 * The scope chosen by the group options, and the opened configuration:
 * with an instance for local and nearest (nearest get falls back to the
 * shared level outside any instance), without for shared.
 */
struct config_target {
	enum config_scope scope;
	int have_instance;
	struct perun_instance inst;
	struct perun_config shared_only;
	struct perun_config *cfg;
};

static int target_open(struct config_target *t, struct perun_cli *cli, int need_local)
{
	struct perun_error err = { 0 };
	const struct perun_params *group = cli->group_params;
	int local = perun_params_bool(group, "local", 0);
	int shared = perun_params_bool(group, "shared", 0);
	int nearest = perun_params_bool(group, "nearest", 0);
	memset(t, 0, sizeof(*t));
	if (local + shared + nearest > 1)
		return perun_fail(PERUN_EXIT_USAGE,
				  "--local, --shared and --nearest are mutually exclusive");
	t->scope = local ? SCOPE_LOCAL : shared ? SCOPE_SHARED : SCOPE_NEAREST;
	if (t->scope != SCOPE_SHARED) {
		int rc = perun_instance_open_config(&t->inst, &err);
		if (!rc) {
			t->have_instance = 1;
			t->cfg = &t->inst.config;
			return PERUN_EXIT_OK;
		}
		if (rc != -PERUN_ENOTFOUND || t->scope == SCOPE_LOCAL || need_local) {
			perun_error_print(&err);
			return perun_exit_for(rc);
		}
		perun_error_clear(&err);
	}
	int rc = perun_config_init(&t->shared_only, NULL, &err);
	if (rc) {
		perun_error_print(&err);
		return perun_exit_for(rc);
	}
	t->cfg = &t->shared_only;
	return PERUN_EXIT_OK;
}

static void target_close(struct config_target *t)
{
	if (t->have_instance)
		perun_instance_close(&t->inst);
	else
		perun_config_release(&t->shared_only);
}

/* The level set, edited and reset: nearest means local for these. */
static enum perun_config_level target_level(const struct config_target *t)
{
	return t->scope == SCOPE_SHARED ? PERUN_CONFIG_SHARED : PERUN_CONFIG_LOCAL;
}

static int check_key(const char *key)
{
	if (!perun_config_key_valid(key))
		return perun_fail(PERUN_EXIT_USAGE,
				  "invalid configuration key '%s': expected sections "
				  "of [a-zA-Z0-9_] separated by dots",
				  key);
	return PERUN_EXIT_OK;
}

static int print_entry(const char *key, const json_t *value)
{
	char *text = perun_yaml_format_inline(value);
	if (!text)
		return perun_fail(PERUN_EXIT_FAILURE,
				  "cannot format the value of '%s': out of memory", key);
	printf("%s: %s\n", key, text);
	free(text);
	return PERUN_EXIT_OK;
}

static int cmd_config_get(const struct perun_command *cmd, struct perun_cli *cli,
			  const struct perun_params *params, int argc, char **argv)
{
	if (argc != 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun config get <key>");
	int rc = check_key(argv[0]);
	if (rc)
		return rc;
	struct config_target t;
	rc = target_open(&t, cli, 0);
	if (rc)
		return rc;
	const json_t *value = t.scope == SCOPE_NEAREST
				      ? perun_config_lookup(t.cfg, argv[0])
				      : perun_config_get(t.cfg, target_level(&t), argv[0]);
	if (!value)
		rc = perun_fail(PERUN_EXIT_USAGE, "key '%s' is not set in the %s configuration",
				argv[0],
				t.scope == SCOPE_NEAREST ? "nearest"
				: t.scope == SCOPE_LOCAL ? "local"
							 : "shared");
	else
		rc = print_entry(argv[0], value);
	target_close(&t);
	return rc;
}

/*
 * Type a command-line value like YAML: flow lists and mappings and quoted
 * scalars are parsed as YAML; anything else (including text YAML would
 * reject, like "%desc%") is one scalar typed the YAML 1.1 way.
 */
static json_t *parse_value(const char *text)
{
	if (text[0] && strchr("[{\"'", text[0])) {
		json_t *value = NULL;
		if (!perun_yaml_load_buffer(text, strlen(text), "<value>", &value, NULL))
			return value;
	}
	return perun_config_parse_scalar(text);
}

static int cmd_config_set(const struct perun_command *cmd, struct perun_cli *cli,
			  const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc != 2)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun config set <key> <value>");
	int rc = check_key(argv[0]);
	if (rc)
		return rc;
	struct config_target t;
	rc = target_open(&t, cli, 1);
	if (rc)
		return rc;
	json_t *value = parse_value(argv[1]);
	rc = perun_config_set(t.cfg, target_level(&t), argv[0], json_incref(value), &err);
	if (rc) {
		perun_error_print(&err);
		rc = perun_exit_for(rc);
	} else if (print_entry(argv[0], value)) {
		/* the value is saved: only its echo failed */
		rc = PERUN_EXIT_OK;
	}
	json_decref(value);
	target_close(&t);
	return rc;
}

static int cmd_config_edit(const struct perun_command *cmd, struct perun_cli *cli,
			   const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc != 0)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun config edit");
	struct config_target t;
	int rc = target_open(&t, cli, 1);
	if (rc)
		return rc;
	const char *path = t.cfg->path[target_level(&t)];
	rc = perun_config_run_editor(t.cfg, path, &err);
	if (!rc)
		rc = perun_config_check_file(path, &err);
	if (rc) {
		perun_error_print(&err);
		rc = perun_exit_for(rc);
	}
	target_close(&t);
	return rc;
}

static int reset_local(struct config_target *t, const char *template_name, struct perun_error *err)
{
	/* The vcs section survives: without it the instance is lost. */
	const char *type =
		json_string_value(perun_config_get(t->cfg, PERUN_CONFIG_LOCAL, "vcs.type"));
	const char *url =
		json_string_value(perun_config_get(t->cfg, PERUN_CONFIG_LOCAL, "vcs.url"));
	/* The user template looks for executables below the project root. */
	if (chdir(t->inst.root) < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot enter '%s'",
					     t->inst.root);
	char *text =
		perun_config_template_dup(template_name, type ? type : "git", url ? url : "../");
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_file_write_atomic(t->cfg->path[PERUN_CONFIG_LOCAL], text, strlen(text), err);
	free(text);
	return rc;
}

static int cmd_config_reset(const struct perun_command *cmd, struct perun_cli *cli,
			    const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun config reset [<template>]");
	const char *template_name = argc ? argv[0] : "master";
	if (strcmp(template_name, "master") && strcmp(template_name, "developer") &&
	    strcmp(template_name, "user"))
		return perun_fail(PERUN_EXIT_USAGE,
				  "unknown configuration template '%s' (master, developer, user)",
				  template_name);
	struct config_target t;
	int rc = target_open(&t, cli, 1);
	if (rc)
		return rc;
	if (t.scope == SCOPE_SHARED && argc) {
		target_close(&t);
		return perun_fail(PERUN_EXIT_USAGE,
				  "templates apply to the local configuration only");
	}
	if (t.scope == SCOPE_SHARED)
		rc = perun_config_reset_shared(t.cfg->path[PERUN_CONFIG_SHARED], &err);
	else
		rc = reset_local(&t, template_name, &err);
	if (rc) {
		perun_error_print(&err);
		rc = perun_exit_for(rc);
	} else if (t.scope == SCOPE_SHARED) {
		printf("shared configuration reset: %s\n", t.cfg->path[PERUN_CONFIG_SHARED]);
	} else {
		printf("local configuration reset to %s: %s\n", template_name,
		       t.cfg->path[PERUN_CONFIG_LOCAL]);
	}
	target_close(&t);
	return rc;
}

static const struct perun_command config_get = {
	.name = "get",
	.fn = cmd_config_get,
	.args = "<key>",
	.summary = "print the value of a key as 'key: value'",
	.description = "Keys are sections separated by dots, e.g. 'vcs.type'.  With\n"
		       "--nearest (the default) the key is looked up in the local\n"
		       "configuration, then in the shared one.  Lists and mappings are\n"
		       "printed in YAML flow style on one line.",
};

static const struct perun_command config_set = {
	.name = "set",
	.fn = cmd_config_set,
	.args = "<key> <value>",
	.summary = "set a key in the local (default) or shared configuration",
	.description = "The value is typed like YAML: 10 is an integer, 0.5 a float,\n"
		       "true/yes/on a boolean, null or ~ nothing; [a, b] and {k: v} are a\n"
		       "list and a mapping; quote a value ('\"10\"') to keep it text.\n"
		       "Missing sections are created.",
};

static const struct perun_command config_edit = {
	.name = "edit",
	.fn = cmd_config_edit,
	.summary = "open the configuration file in an editor",
	.description = "Runs $EDITOR, else the general.editor key, on the local (default)\n"
		       "or shared configuration file and checks the result reads back.",
};

static const struct perun_command config_reset = {
	.name = "reset",
	.fn = cmd_config_reset,
	.args = "[<template>]",
	.summary = "reset a configuration to its defaults",
	.description = "The shared configuration gets Perun's defaults.  The local one is\n"
		       "rewritten from a template, keeping its vcs section:\n"
		       "  master     everything commented out (the default)\n"
		       "  developer  degradation checks and 'make' before collection\n"
		       "  user       developer plus the time collector, registering of\n"
		       "             new profiles and the executables and workloads found\n"
		       "             under build/_build/dist and workload(s)/examples/payload(s)",
};

static const struct perun_command *const config_subcommands[] = {
	&config_get, &config_set, &config_edit, &config_reset, NULL,
};

const struct perun_command perun_cmd_config = {
	.name = "config",
	.options = config_options,
	.summary = "read and change the local and shared configuration",
	.description = "Perun reads .perun/local.yml of the nearest instance and the shared\n"
		       "$PERUN_CONFIG_DIR/shared.yml (default ~/.config/perun/shared.yml),\n"
		       "created with defaults when missing.  A key set locally overrides\n"
		       "the shared one.\n\n"
		       "The store reads two keys: store.max_object_size (bytes, or with K,\n"
		       "M, G; 4G by default) refuses bigger objects before inflating them,\n"
		       "and store.compression (0 to 12, 1 by default) is the level new\n"
		       "objects are compressed at: 6 makes objects of big profiles about a\n"
		       "tenth smaller and takes about three times as long.",
	.subcommands = config_subcommands,
	.see_also = "perun-init(1)",
};
