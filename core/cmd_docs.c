/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun __docs: man pages and bash completion generated from the command
 * table at build time, so a new command or option documents itself.
 *
 * Following git, every top-level command gets a page perun-<command>.1;
 * the subcommands of a group are sections of the group's page.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_util.h"
#include "command_list.h"
#include "plugin_help.h"
#include "plugin_loader.h"

static int visible(const struct perun_command *cmd)
{
	return !(cmd->flags & PERUN_COMMAND_HIDDEN);
}

/*
 * Text in roff: backslashes escaped, a leading '.' or '\'' defused, the
 * dashes of a word that begins with one (an option) written as minus
 * signs, so that options can be searched for and copied, and a break
 * allowed after each '|', so that a long list of choices can wrap.
 */
static void roff_text(FILE *out, const char *s)
{
	int line_start = 1, in_option = 0;
	for (const char *p = s; *p; p++) {
		if (line_start && (*p == '.' || *p == '\''))
			fputs("\\&", out);
		line_start = *p == '\n';
		if (*p == '-' && (p == s || strchr(" \n[(", p[-1])))
			in_option = 1;
		else if (strchr(" \n])=,", *p))
			in_option = 0;
		if (*p == '\\')
			fputs("\\e", out);
		else if (*p == '-' && in_option)
			fputs("\\-", out);
		else if (*p == '|')
			fputs("|\\:", out);
		else
			fputc(*p, out);
	}
}

/* Paragraphs separated by an empty line become .PP blocks. */
static void roff_paragraphs(FILE *out, const char *text)
{
	const char *p = text;
	while (*p) {
		const char *end = strstr(p, "\n\n");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *para = strndup(p, len);
		fputs(".PP\n", out);
		roff_text(out, para);
		fputc('\n', out);
		free(para);
		p += len;
		while (*p == '\n')
			p++;
	}
}

static void roff_options(FILE *out, const struct perun_option *decls, const char *key_prefix)
{
	/* Left-aligned: a long list of choices breaks only at its '|', and
	 * such a line has no space that justifying could stretch. */
	if (decls && decls->name)
		fputs(".na\n", out);
	for (const struct perun_option *o = decls; o && o->name; o++) {
		char syn[320], notes[320];
		perun_option_synopsis(o, key_prefix, syn, sizeof(syn));
		perun_option_notes(o, notes, sizeof(notes));
		fputs(".TP\n.B ", out);
		roff_text(out, syn + strspn(syn, " "));
		fputc('\n', out);
		roff_text(out, o->help ? o->help : "");
		roff_text(out, notes);
		fputc('\n', out);
	}
}

static void roff_synopsis_line(FILE *out, const char *line)
{
	fputs(".B ", out);
	roff_text(out, line);
	fputs("\n.br\n", out);
}

static void roff_synopsis(FILE *out, const struct perun_command *cmd, const char *path)
{
	char syn[1024];
	perun_command_synopsis(cmd, path, syn, sizeof(syn));
	roff_synopsis_line(out, syn);
}

/* Subcommands of group as .SS sections, recursively for deeper groups. */
static void roff_subcommands(FILE *out, const struct perun_command *group, const char *path)
{
	for (const struct perun_command *const *c = group->subcommands; *c; c++) {
		if (!visible(*c))
			continue;
		char sub[512], syn[1024];
		snprintf(sub, sizeof(sub), "%s %s", path, (*c)->name);
		perun_command_synopsis(*c, sub, syn, sizeof(syn));
		fputs(".SS \"", out);
		roff_text(out, syn);
		fputs("\"\n", out);
		if ((*c)->summary) {
			roff_text(out, (*c)->summary);
			fputc('\n', out);
		}
		if ((*c)->description)
			roff_paragraphs(out, (*c)->description);
		if ((*c)->options && (*c)->options->name) {
			fputs(".PP\nOptions of ", out);
			roff_text(out, sub);
			fputs(":\n", out);
			roff_options(out, (*c)->options, NULL);
		}
		if ((*c)->subcommands)
			roff_subcommands(out, *c, sub);
	}
}

static void roff_synopses(FILE *out, const struct perun_command *cmd, const char *path)
{
	if (cmd->fn || !cmd->subcommands)
		roff_synopsis(out, cmd, path);
	for (const struct perun_command *const *c = cmd->subcommands; c && *c; c++) {
		if (!visible(*c))
			continue;
		/* Options of a group go before the subcommand: "perun config
		 * --local get". */
		char sub[512];
		snprintf(sub, sizeof(sub), "%s%s %s", path,
			 cmd->options && cmd->options->name ? " [options]" : "", (*c)->name);
		if ((*c)->subcommands)
			roff_synopses(out, *c, sub);
		else
			roff_synopsis(out, *c, sub);
	}
}

static void upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

static const char root_extra[] =
	".SH ENVIRONMENT\n"
	".TP\n.B PERUN_PLUGIN_PATH\n"
	"Colon-separated directories searched for plugins before the others,\n"
	"unless \\-\\-plugin\\-path is given.\n"
	"Each directory holds \\fI<kind>\\fP/\\fI<name>\\fP.so.\n"
	".TP\n.B XDG_DATA_HOME\n"
	"Per-user plugins live in \\fI$XDG_DATA_HOME\\fP/perun/plugins\n"
	"(default \\fI~/.local/share/perun/plugins\\fP).\n"
	".TP\n.B XDG_STATE_HOME\n"
	"A crash outside a Perun instance leaves its report in\n"
	"\\fI$XDG_STATE_HOME\\fP/perun (default \\fI~/.local/state/perun\\fP);\n"
	"inside one it goes to \\fI.perun/logs\\fP.\n"
	".TP\n.B NO_COLOR\n"
	"When set and not empty, no ANSI colours are used.\n"
	".SH EXIT STATUS\n"
	".TP\n.B 0\nsuccess\n"
	".TP\n.B 1\na performance degradation was detected where the command gates on it\n"
	".TP\n.B 2\na usage or input error\n"
	".TP\n.B 3\na collection or tool failure\n";

/*
 * Create <dir>/<page>.1 and write its title and NAME line; *out is then
 * the open page, to be closed by close_page.
 */
static int open_page(const char *dir, const char *page, const char *summary, const char *source,
		     FILE **out, struct perun_error *err)
{
	char file[4096], title[256];
	snprintf(file, sizeof(file), "%s/%s.1", dir, page);
	snprintf(title, sizeof(title), "%s", page);
	upper(title);
	*out = fopen(file, "w");
	if (!*out)
		return perun_error_set(err, PERUN_EGENERIC, "cannot write '%s': %s", file,
				       strerror(errno));
	fprintf(*out, ".\\\" Generated by 'perun __docs man' from %s.\n", source);
	fprintf(*out, ".TH %s 1 \"\" \"perun %s\" \"Perun Manual\"\n", title, PACKAGE_VERSION);
	fputs(".SH NAME\n", *out);
	roff_text(*out, page);
	fputs(" \\- ", *out);
	roff_text(*out, summary ? summary : "");
	fputc('\n', *out);
	return 0;
}

static int close_page(FILE *out, const char *dir, const char *page, struct perun_error *err)
{
	if (fclose(out))
		return perun_error_set(err, PERUN_EGENERIC, "cannot write '%s/%s.1': %s", dir, page,
				       strerror(errno));
	return 0;
}

static int write_page(const char *dir, const struct perun_command *cmd, const char *path,
		      struct perun_error *err)
{
	char page[256];
	snprintf(page, sizeof(page), "%s", path);
	for (char *p = page; *p; p++)
		if (*p == ' ')
			*p = '-';
	FILE *out;
	if (open_page(dir, page, cmd->summary, "the command table", &out, err))
		return -err->code;
	fputs(".SH SYNOPSIS\n", out);
	roff_synopses(out, cmd, path);
	if (cmd->description) {
		fputs(".SH DESCRIPTION\n", out);
		roff_paragraphs(out, cmd->description);
	}
	if (cmd->options && cmd->options->name) {
		fputs(".SH OPTIONS\n", out);
		roff_options(out, cmd->options, NULL);
	}
	if (cmd->subcommands && cmd != &perun_root_command) {
		fputs(".SH COMMANDS\n", out);
		roff_subcommands(out, cmd, path);
	}
	if (cmd == &perun_root_command) {
		fputs(".SH COMMANDS\n", out);
		for (const struct perun_command *const *c = cmd->subcommands; *c; c++) {
			if (!visible(*c))
				continue;
			fprintf(out, ".TP\n.BR perun\\-%s (1)\n", (*c)->name);
			roff_text(out, (*c)->summary ? (*c)->summary : "");
			fputc('\n', out);
		}
		fputs(root_extra, out);
	}
	fputs(".SH SEE ALSO\n", out);
	if (cmd == &perun_root_command) {
		fputs("The plugin author guide, plugin-guide.md, in perun's documentation.\n", out);
	} else {
		fputs(".BR perun (1)", out);
		if (cmd->see_also) {
			fputs(",\n", out);
			roff_text(out, cmd->see_also);
		}
		fputc('\n', out);
	}
	return close_page(out, dir, page, err);
}

/* perun-<command>-<plugin>.1: how the plugin is used and its options. */
static int write_plugin_page(const char *dir, const struct perun_loaded_plugin *p,
			     struct perun_error *err)
{
	struct perun_plugin_usage u;
	perun_plugin_usage_of(p, &u);
	char page[256];
	snprintf(page, sizeof(page), "perun-%s-%s", u.command, p->name);
	FILE *out;
	if (open_page(dir, page, p->desc->summary, "the options the plugin declares", &out, err))
		return -err->code;
	fputs(".SH SYNOPSIS\n", out);
	for (size_t i = 0; i < 2 && u.synopsis[i][0]; i++)
		roff_synopsis_line(out, u.synopsis[i]);
	fputs(".SH DESCRIPTION\n", out);
	roff_paragraphs(out, u.how);
	fprintf(out, ".PP\nThis is version %s of the %s plugin %s (plugin ABI %u.%u).\n",
		p->desc->version ? p->desc->version : "?", perun_plugin_kind_name(p->kind), p->name,
		p->desc->abi_major, p->desc->abi_minor);
	fputs(u.key_prefix ? ".SH CONFIGURATION\n" : ".SH OPTIONS\n", out);
	if (!p->desc->options || !p->desc->options->name)
		fputs("None.\n", out);
	roff_options(out, p->desc->options, u.key_prefix);
	fprintf(out, ".SH SEE ALSO\n.BR perun (1),\n.BR perun\\-%s (1),\n.BR perun\\-plugins (1)\n",
		u.command);
	return close_page(out, dir, page, err);
}

struct plugin_pages {
	const char *dir;
	int failed;
};

static void plugin_page(const char *path, enum perun_plugin_kind kind, void *data)
{
	struct plugin_pages *pages = data;
	struct perun_error err = { 0 };
	struct perun_loaded_plugin *p = perun_plugin_open_file(path, kind);
	if (!p) {
		perun_warn("no man page for %s: out of memory", path);
		pages->failed = PERUN_EXIT_FAILURE;
		return;
	}
	if (p->error)
		perun_warn("no man page for %s: %s", path, p->error);
	else if (write_plugin_page(pages->dir, p, &err))
		pages->failed = perun_exit_worse(pages->failed, &err);
	if (err.code)
		perun_error_print(&err);
	perun_plugin_entry_free(p);
}

static int cmd_docs_man(const struct perun_command *cmd, struct perun_cli *cli,
			const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc != 1)
		return perun_fail(PERUN_EXIT_USAGE,
				  "usage: perun __docs man [--plugins <dir>] <outdir>");
	if (mkdir(argv[0], 0777) && errno != EEXIST)
		return perun_fail(PERUN_EXIT_FAILURE, "cannot create '%s': %s", argv[0],
				  strerror(errno));
	int rc = write_page(argv[0], &perun_root_command, "perun", &err);
	for (const struct perun_command *const *c = perun_root_command.subcommands; !rc && *c;
	     c++) {
		char path[256];
		snprintf(path, sizeof(path), "perun %s", (*c)->name);
		if (visible(*c))
			rc = write_page(argv[0], *c, path, &err);
	}
	if (rc) {
		perun_error_print(&err);
		return PERUN_EXIT_FAILURE;
	}
	/* The plugins of one directory (the build's stage), not the whole
	 * search path: the pages must not depend on what else is installed. */
	struct plugin_pages pages = { argv[0], PERUN_EXIT_OK };
	const char *plugins = perun_params_string(params, "plugins", NULL);
	if (plugins)
		perun_plugins_each_file_in(plugins, 0, plugin_page, &pages);
	return pages.failed;
}

/* ---- bash completion -------------------------------------------------- */

/*
 * What a positional word completes to, from its metavar in the usage
 * ("<profile> <view>"): files, directories or names of plugins of a kind.
 */
static const struct {
	const char *metavar;
	const char *what;
} positional_kinds[] = {
	{ "profile", "@file" },
	{ "baseline", "@file" },
	{ "target", "@file" },
	{ "file", "@file" },
	{ "path", "@file" },
	{ "dir", "@dir" },
	{ "dirs", "@dir" },
	{ "directory", "@dir" },
	{ "collector", "@plugin:collect" },
	{ "postprocessor", "@plugin:postprocess" },
	{ "view", "@plugin:view" },
	{ "vcs", "@plugin:vcs" },
	{ "method", "@plugin:check" },
	{ "plugin", "@plugin:" },
	{ "name", "@plugin:" },
};

static const char *metavar_completion(const char *metavar, size_t len)
{
	for (size_t i = 0; i < sizeof(positional_kinds) / sizeof(*positional_kinds); i++)
		if (strlen(positional_kinds[i].metavar) == len &&
		    !strncmp(positional_kinds[i].metavar, metavar, len))
			return positional_kinds[i].what;
	return "@none";
}

/* "<profile>... [<view>]" -> "@file... @plugin:view" */
static void args_completion(const char *args, FILE *out)
{
	const char *p = args;
	int first = 1;
	while (p && (p = strchr(p, '<'))) {
		const char *end = strchr(p, '>');
		if (!end)
			break;
		fprintf(out, "%s%s%s", first ? "" : " ",
			metavar_completion(p + 1, (size_t)(end - p - 1)),
			!strncmp(end + 1, "...", 3) ? "..." : "");
		first = 0;
		p = end + 1;
	}
}

static void option_words(const struct perun_option *decls, int with_value, FILE *out)
{
	int first = 1;
	for (const struct perun_option *o = decls; o && o->name; o++) {
		if ((o->type != PERUN_OPTION_BOOL) != with_value)
			continue;
		fprintf(out, "%s--%s", first ? "" : " ", o->name);
		if (o->short_name)
			fprintf(out, " -%s", o->short_name);
		first = 0;
	}
}

/* One case branch per command: its subcommands, options and arguments. */
static void bash_spec(const struct perun_command *cmd, const char *path, FILE *out)
{
	fprintf(out, "\t'%s')\n\t\t_perun_subs='", path);
	int first = 1;
	for (const struct perun_command *const *c = cmd->subcommands; c && *c; c++)
		if (visible(*c)) {
			fprintf(out, "%s%s", first ? "" : " ", (*c)->name);
			first = 0;
		}
	fputs("'\n\t\t_perun_flags='", out);
	option_words(cmd->options, 0, out);
	fputs("'\n\t\t_perun_valopts='", out);
	option_words(cmd->options, 1, out);
	fputs("'\n\t\t_perun_args='", out);
	args_completion(cmd->args, out);
	fprintf(out, "'\n\t\t_perun_stop=%d ;;\n",
		!!(cmd->flags & PERUN_COMMAND_STOP_AT_POSITIONAL));
	for (const struct perun_command *const *c = cmd->subcommands; c && *c; c++) {
		if (!visible(*c))
			continue;
		char sub[512];
		snprintf(sub, sizeof(sub), "%s %s", path, (*c)->name);
		bash_spec(*c, sub, out);
	}
}

/* The values an option takes: its choices, or files, or directories. */
static void bash_values(const struct perun_command *cmd, const char *path, FILE *out)
{
	for (const struct perun_option *o = cmd->options; o && o->name; o++) {
		if (o->type == PERUN_OPTION_BOOL)
			continue;
		const char *what = NULL;
		char choices[512];
		if (o->type == PERUN_OPTION_CHOICE && o->choices) {
			snprintf(choices, sizeof(choices), "%s", o->choices);
			for (char *p = choices; *p; p++)
				if (*p == '|')
					*p = ' ';
			what = choices;
		} else if (o->metavar && o->metavar[0] == '<') {
			what = metavar_completion(o->metavar + 1, strcspn(o->metavar + 1, ">"));
		}
		if (!what || !strcmp(what, "@none"))
			continue;
		fprintf(out, "\t'%s --%s'", path, o->name);
		if (o->short_name)
			fprintf(out, "|'%s -%s'", path, o->short_name);
		fprintf(out, ") _perun_values='%s' ;;\n", what);
	}
	for (const struct perun_command *const *c = cmd->subcommands; c && *c; c++) {
		if (!visible(*c))
			continue;
		char sub[512];
		snprintf(sub, sizeof(sub), "%s %s", path, (*c)->name);
		bash_values(*c, sub, out);
	}
}

/* The driver: walks the words typed so far through the tables above. */
static const char bash_driver[] =
	"_perun_complete_what()\n"
	"{\n"
	"\tlocal what=$1 cur=$2 kind\n"
	"\tcase $what in\n"
	"\t@file) COMPREPLY=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null ;;\n"
	"\t@dir) COMPREPLY=($(compgen -d -- \"$cur\")); compopt -o filenames 2>/dev/null ;;\n"
	"\t@plugin:*)\n"
	"\t\tkind=${what#@plugin:}\n"
	"\t\tCOMPREPLY=($(compgen -W \"$(\"$_perun_prog\" ${_perun_plugin_path:+--plugin-path "
	"\"$_perun_plugin_path\"} __docs plugin-names $kind 2>/dev/null)\" -- \"$cur\")) ;;\n"
	"\t@none) COMPREPLY=() ;;\n"
	"\t*) COMPREPLY=($(compgen -W \"$what\" -- \"$cur\")) ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"_perun()\n"
	"{\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} path=perun i word npos=0 skip= dashdash=\n"
	"\tlocal _perun_subs _perun_flags _perun_valopts _perun_args _perun_stop _perun_values\n"
	"\tlocal _perun_prog=${COMP_WORDS[0]} _perun_plugin_path=\n"
	"\tCOMPREPLY=()\n"
	"\t_perun_spec perun\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tword=${COMP_WORDS[i]}\n"
	"\t\tif [[ -n $skip ]]; then\n"
	"\t\t\t# With '=' in COMP_WORDBREAKS, \"--opt=v\" arrives as three words.\n"
	"\t\t\t[[ $word == = ]] && continue\n"
	"\t\t\t[[ $skip == --plugin-path ]] && _perun_plugin_path=$word\n"
	"\t\t\tskip=\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\tif [[ -z $dashdash && $word == -- ]]; then\n"
	"\t\t\tdashdash=1\n"
	"\t\telif [[ -z $dashdash && $word == --plugin-path=* ]]; then\n"
	"\t\t\t_perun_plugin_path=${word#--plugin-path=}\n"
	"\t\telif [[ -z $dashdash && $word == -?* && $word != *=* ]]; then\n"
	"\t\t\t[[ \" $_perun_valopts \" == *\" $word \"* ]] && skip=$word\n"
	"\t\telif [[ -z $dashdash && $word != -?* && \" $_perun_subs \" == *\" $word \"* ]]; then\n"
	"\t\t\tpath=\"$path $word\"\n"
	"\t\t\t_perun_spec \"$path\"\n"
	"\t\t\tnpos=0\n"
	"\t\telif [[ $word != -?* || -n $dashdash ]]; then\n"
	"\t\t\t# An unknown command, or the plugin's own words: nothing to offer.\n"
	"\t\t\t[[ -n $_perun_subs || ($_perun_stop == 1 && $npos -ge 1) ]] && return 0\n"
	"\t\t\tnpos=$((npos + 1))\n"
	"\t\tfi\n"
	"\tdone\n"
	"\t[[ $cur == = && -n $skip ]] && cur=\n"
	"\tif [[ -n $skip ]]; then\n"
	"\t\t_perun_values=\n"
	"\t\t_perun_value_spec \"$path $skip\"\n"
	"\t\t[[ -n $_perun_values ]] && _perun_complete_what \"$_perun_values\" \"$cur\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ -z $dashdash && $cur == --?*=* ]]; then\n"
	"\t\t_perun_values=\n"
	"\t\t_perun_value_spec \"$path ${cur%%=*}\"\n"
	"\t\t[[ -n $_perun_values ]] && _perun_complete_what \"$_perun_values\" \"${cur#*=}\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t# After the first positional of such a command, options are the plugin's.\n"
	"\t[[ $_perun_stop == 1 && $npos -ge 1 && $cur == -* ]] && return 0\n"
	"\tif [[ -z $dashdash && $cur == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_perun_flags $_perun_valopts\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ -n $_perun_subs ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_perun_subs\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tlocal -a args=($_perun_args)\n"
	"\tlocal n=${#args[@]}\n"
	"\t(( n == 0 )) && return 0\n"
	"\tlocal what=${args[npos]:-}\n"
	"\tif [[ -z $what && ${args[n - 1]} == *... ]]; then\n"
	"\t\twhat=${args[n - 1]}\n"
	"\tfi\n"
	"\t[[ -n $what ]] && _perun_complete_what \"${what%...}\" \"$cur\"\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _perun perun\n";

static int cmd_docs_bash(const struct perun_command *cmd, struct perun_cli *cli,
			 const struct perun_params *params, int argc, char **argv)
{
	if (argc != 0)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun __docs bash-completion");
	fputs("# bash completion for perun                                -*- shell-script -*-\n"
	      "# SPDX-License-Identifier: GPL-3.0-or-later\n"
	      "# Generated by 'perun __docs bash-completion' from the command table.\n"
	      "\n"
	      "# Sets the subcommands, options and arguments of a command path.\n"
	      "_perun_spec()\n{\n\tcase $1 in\n",
	      stdout);
	bash_spec(&perun_root_command, "perun", stdout);
	fputs("\t*) _perun_subs= _perun_flags= _perun_valopts= _perun_args= _perun_stop=0 ;;\n"
	      "\tesac\n}\n\n"
	      "# Sets what the value of an option (\"<path> --<option>\") completes to.\n"
	      "_perun_value_spec()\n{\n\tcase $1 in\n",
	      stdout);
	bash_values(&perun_root_command, "perun", stdout);
	fputs("\tesac\n}\n\n", stdout);
	fputs(bash_driver, stdout);
	return PERUN_EXIT_OK;
}

static void print_plugin_name(const char *path, enum perun_plugin_kind kind, void *data)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	printf("%.*s\n", (int)(strlen(base) - 3), base);
}

/*
 * Names of the plugins in the search path, without loading them: the
 * completion runs this on every <TAB>, so it has to be fast.
 */
static int cmd_docs_plugin_names(const struct perun_command *cmd, struct perun_cli *cli,
				 const struct perun_params *params, int argc, char **argv)
{
	enum perun_plugin_kind only = 0;
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun __docs plugin-names [<kind>]");
	if (argc == 1 && !(only = perun_plugin_kind_from_name(argv[0])))
		return perun_fail(PERUN_EXIT_USAGE, "unknown plugin kind '%s'", argv[0]);
	perun_plugins_each_file(only, print_plugin_name, NULL);
	return PERUN_EXIT_OK;
}

static const struct perun_option man_options[] = {
	{ "plugins", NULL, PERUN_OPTION_STRING, NULL, NULL, "<dir>",
	  "also write perun-<command>-<plugin>.1 for each plugin in <dir>/<kind>/", 0 },
	{ NULL },
};

static const struct perun_command cmd_man = {
	.name = "man",
	.fn = cmd_docs_man,
	.options = man_options,
	.args = "<outdir>",
	.summary = "write perun.1 and perun-<command>.1 into <outdir>",
};

static const struct perun_command cmd_bash = {
	.name = "bash-completion",
	.fn = cmd_docs_bash,
	.summary = "print the bash completion script",
};

static const struct perun_command cmd_plugin_names = {
	.name = "plugin-names",
	.fn = cmd_docs_plugin_names,
	.args = "[<kind>]",
	.summary = "print the names of the plugins in the search path (for completion)",
};

static const struct perun_command *const subcommands[] = {
	&cmd_man,
	&cmd_bash,
	&cmd_plugin_names,
	NULL,
};

const struct perun_command perun_cmd_docs = {
	.name = "__docs",
	.summary = "generate the man pages and the bash completion (build time)",
	.flags = PERUN_COMMAND_HIDDEN,
	.subcommands = subcommands,
};
