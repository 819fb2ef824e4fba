/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Parsing declared options and printing help from the same declarations. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include <perun/suggest.h>

/* "unknown option '--shrot'; did you mean '--short'?" */
static int unknown_option(const struct perun_option *decls, const char *word,
			  struct perun_error *err)
{
	const char *names[128];
	size_t n = 0;
	int is_long = word[1] == '-';
	char typed[128];
	snprintf(typed, sizeof(typed), "%.*s", (int)strcspn(word + 1 + is_long, "="),
		 word + 1 + is_long);
	for (const struct perun_option *o = decls; o && o->name && n < 128; o++)
		if (is_long || o->short_name)
			names[n++] = is_long ? o->name : o->short_name;
	char hint[256];
	perun_suggest(typed, names, n, is_long ? "--" : "-", hint, sizeof(hint));
	return perun_error_set(err, PERUN_EINVAL, "unknown option '%s'%s", word, hint);
}

static int takes_value(const struct perun_option *o)
{
	return o->type != PERUN_OPTION_BOOL;
}

static const struct perun_option *subcommand_of(const struct perun_option *decls)
{
	for (const struct perun_option *o = decls; o && o->name; o++)
		if ((o->flags & PERUN_OPTION_SUBCOMMAND) && o->type == PERUN_OPTION_CHOICE)
			return o;
	return NULL;
}

int perun_options_parse(const struct perun_option *decls, int argc, char **argv,
			int stop_at_positional, struct perun_params *params, char ***rest,
			int *nrest, struct perun_error *err)
{
	/* Positionals are moved to the end, keeping their order. */
	char **positional = calloc((size_t)argc + 1, sizeof(char *));
	int npos = 0, i;
	if (!positional)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (i = 0; i < argc; i++) {
		char *word = argv[i];
		if (!strcmp(word, "--")) {
			i++;
			break;
		}
		if (word[0] != '-' || word[1] == '\0' || (word[1] >= '0' && word[1] <= '9')) {
			/* A click subcommand of Perun's: the first bare word. */
			const struct perun_option *sub = subcommand_of(decls);
			if (!npos && sub && !perun_params_has(params, sub->name)) {
				if (perun_params_set_text(params, sub, word, err) < 0) {
					free(positional);
					return perun_error_set(
						err, PERUN_EINVAL,
						"unknown subcommand '%s' (one of %s)", word,
						sub->choices);
				}
				continue;
			}
			if (stop_at_positional)
				break;
			positional[npos++] = word;
			continue;
		}
		const struct perun_option *o;
		const char *inline_value = NULL;
		int negated = 0;
		char name[128];
		if (word[1] == '-') {
			const char *eq = strchr(word + 2, '=');
			size_t len = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
			snprintf(name, sizeof(name), "%.*s", (int)len, word + 2);
			inline_value = eq ? eq + 1 : NULL;
			o = perun_option_find(decls, name, 0);
			if (!o && !strncmp(name, "no-", 3)) {
				o = perun_option_find(decls, name + 3, 0);
				if (o && o->type == PERUN_OPTION_BOOL)
					negated = 1;
				else
					o = NULL;
			}
		} else {
			snprintf(name, sizeof(name), "%s", word + 1);
			o = perun_option_find(decls, name, 1);
		}
		if (!o) {
			free(positional);
			return unknown_option(decls, word, err);
		}
		int rc;
		if (o->flags & PERUN_OPTION_PAIR) {
			if (i + (inline_value ? 1 : 2) >= argc) {
				free(positional);
				return perun_error_set(err, PERUN_EINVAL,
						       "option '--%s' needs two values", o->name);
			}
			const char *k = inline_value ? inline_value : argv[++i];
			const char *v = argv[++i];
			json_t *pair = json_pack("[ss]", k, v);
			json_t *all = json_object_get(perun_params_json(params), o->name);
			if (!json_is_array(all)) {
				all = json_array();
				json_object_set_new(perun_params_json(params), o->name, all);
			}
			json_array_append_new(all, pair);
			continue;
		}
		if (!takes_value(o)) {
			if (inline_value)
				rc = perun_params_set_text(params, o, inline_value, err);
			else
				rc = perun_params_set_text(params, o, negated ? "false" : NULL,
							   err);
		} else {
			const char *value = inline_value;
			if (!value) {
				if (i + 1 >= argc) {
					free(positional);
					return perun_error_set(err, PERUN_EINVAL,
							       "option '--%s' needs a value",
							       o->name);
				}
				value = argv[++i];
			}
			rc = perun_params_set_text(params, o, value, err);
		}
		if (rc) {
			free(positional);
			return rc;
		}
	}
	/* Whatever is left after a stop is positional too. */
	for (; i < argc; i++)
		positional[npos++] = argv[i];
	/* Reorder argv so that its tail holds the positionals. */
	int start = argc - npos;
	for (int j = 0; j < npos; j++)
		argv[start + j] = positional[j];
	free(positional);
	*rest = argv + start;
	*nrest = npos;
	return 0;
}

void perun_option_synopsis(const struct perun_option *o, const char *key_prefix, char *buf,
			   size_t len)
{
	const char *meta = o->metavar;
	if (!meta) {
		switch (o->type) {
		case PERUN_OPTION_INT: meta = "<int>"; break;
		case PERUN_OPTION_FLOAT: meta = "<number>"; break;
		case PERUN_OPTION_CHOICE: meta = NULL; break;
		default: meta = "<value>"; break;
		}
	}
	char value[256] = "";
	if (o->flags & PERUN_OPTION_PAIR)
		snprintf(value, sizeof(value), " %s", meta ? meta : "<key> <value>");
	else if (o->type == PERUN_OPTION_CHOICE)
		snprintf(value, sizeof(value), " {%s}", o->choices);
	else if (o->type != PERUN_OPTION_BOOL)
		snprintf(value, sizeof(value), " %s", meta);
	else if (key_prefix)
		snprintf(value, sizeof(value), " {true|false}");
	if (key_prefix) {
		/* Configuration keys spell words with '_' (degradation.min_change). */
		char key[160];
		snprintf(key, sizeof(key), "%s%s", key_prefix, o->name);
		for (char *c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		snprintf(buf, len, "%s%s", key, value);
	} else if (o->short_name) {
		snprintf(buf, len, "-%s, --%s%s", o->short_name, o->name, value);
	} else {
		snprintf(buf, len, "    --%s%s", o->name, value);
	}
}

void perun_options_print(const struct perun_option *decls, const char *key_prefix, FILE *out)
{
	for (const struct perun_option *o = decls; o && o->name; o++) {
		char syn[320], notes[320];
		perun_option_synopsis(o, key_prefix, syn, sizeof(syn));
		perun_option_notes(o, notes, sizeof(notes));
		fprintf(out, "  %-34s %s%s\n", syn, o->help ? o->help : "", notes);
	}
}

void perun_option_notes(const struct perun_option *o, char *buf, size_t len)
{
	/* A flag is off unless said otherwise: only a flag that is on by
	 * default has a default worth telling. */
	int has_default = o->default_value &&
			  (o->type != PERUN_OPTION_BOOL || strcmp(o->default_value, "false"));
	snprintf(buf, len, "%s%s%s%s%s", has_default ? " (default: " : "",
		 has_default ? o->default_value : "", has_default ? ")" : "",
		 o->flags & PERUN_OPTION_REQUIRED ? " (required)" : "",
		 o->flags & PERUN_OPTION_MULTIPLE ? " (repeatable)" : "");
}

void perun_command_synopsis(const struct perun_command *cmd, const char *path, char *buf,
			    size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", path,
		 cmd->options && cmd->options->name ? " [options]" : "",
		 cmd->subcommands ? " <command>" : "", cmd->args ? " " : "",
		 cmd->args ? cmd->args : "");
}

void perun_command_help(const struct perun_command *cmd, const char *path, FILE *out)
{
	char usage[1024];
	perun_command_synopsis(cmd, path, usage, sizeof(usage));
	fprintf(out, "usage: %s\n", usage);
	if (cmd->summary)
		fprintf(out, "\n%s\n", cmd->summary);
	if (cmd->description)
		fprintf(out, "\n%s\n", cmd->description);
	if (cmd->options && cmd->options->name) {
		fprintf(out, "\noptions:\n");
		perun_options_print(cmd->options, NULL, out);
	}
	if (cmd->subcommands) {
		fprintf(out, "\ncommands:\n");
		for (const struct perun_command *const *c = cmd->subcommands; *c; c++)
			if (!((*c)->flags & PERUN_COMMAND_HIDDEN))
				fprintf(out, "  %-20s %s\n", (*c)->name,
					(*c)->summary ? (*c)->summary : "");
	}
}

void perun_error_print(const struct perun_error *err)
{
	fprintf(stderr, "perun: %s\n", err->message[0] ? err->message : "unknown error");
}

int perun_fail(int code, const char *fmt, ...)
{
	va_list ap;
	fputs("perun: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void perun_warn(const char *fmt, ...)
{
	va_list ap;
	fputs("perun: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int perun_confirm(struct perun_cli *cli, const char *question)
{
	if (cli->say_yes)
		return 1;
	if (!isatty(STDIN_FILENO))
		return 0;
	fprintf(stderr, "%s [y/N] ", question);
	char answer[16];
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return answer[0] == 'y' || answer[0] == 'Y';
}

const struct perun_command *perun_command_find(const struct perun_command *group, const char *name)
{
	for (const struct perun_command *const *c = group->subcommands; c && *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}
