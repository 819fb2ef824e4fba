/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A plugin's usage, help text and option list (see plugin_help.h). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "command.h"
#include "plugin_help.h"

/* A plugin of a job matrix, named on the command line with its options
 * after it: "perun <command> [options] <args><name> [<name> options]". */
static void named_usage(struct perun_plugin_usage *u, const char *command, const char *args,
			const char *name, const char *what)
{
	u->command = command;
	snprintf(u->synopsis[0], sizeof(u->synopsis[0]), "perun %s [options] %s%s [<%s options>]",
		 command, args, name, name);
	snprintf(u->how, sizeof(u->how),
		 "%s  Its options follow its name;\n"
		 "in a job matrix (perun run) they are the params of %s.",
		 what, name);
}

void perun_plugin_usage_of(const struct perun_loaded_plugin *p, struct perun_plugin_usage *u)
{
	const char *n = p->name;
	memset(u, 0, sizeof(*u));
	switch (p->kind) {
	case PERUN_KIND_COLLECT:
		named_usage(u, "collect", "", n,
			    "A collector of 'perun collect': it profiles each --cmd with each\n"
			    "--workload given before its name.");
		break;
	case PERUN_KIND_POSTPROCESS:
		named_usage(u, "postprocessby", "<profile> ", n,
			    "A postprocessor of 'perun postprocessby': it makes a new profile\n"
			    "of <profile>.");
		break;
	case PERUN_KIND_VIEW: {
		const struct perun_view_ops *ops = p->desc->ops;
		int diff = PERUN_ABI_HAS(ops, struct perun_view_ops, show_diff) && ops->show_diff;
		u->command = ops->show ? "show" : "showdiff";
		char *line = u->synopsis[0];
		if (ops->show) {
			snprintf(line, sizeof(u->synopsis[0]),
				 "perun show [options] <profile> %s [<%s options>]", n, n);
			line = u->synopsis[1];
		}
		if (diff)
			snprintf(line, sizeof(u->synopsis[0]),
				 "perun showdiff [options] <baseline> <target> %s [<%s options>]",
				 n, n);
		const char *what =
			!diff	    ? "'perun show': it shows one profile"
			: ops->show ? "'perun show' (one profile) and 'perun showdiff'\n"
				      "(a baseline and a target)"
				    : "'perun showdiff': it compares a baseline with a target";
		snprintf(u->how, sizeof(u->how), "A view of %s.  Its options follow its name.",
			 what);
		break;
	}
	case PERUN_KIND_CHECK: {
		const char *method = perun_check_method_name(p);
		u->command = "check";
		u->key_prefix = "degradation.";
		snprintf(u->synopsis[0], sizeof(u->synopsis[0]),
			 "perun check [options] head|all [<rev>]");
		snprintf(u->synopsis[1], sizeof(u->synopsis[1]),
			 "perun check [options] profiles <baseline> <target>");
		snprintf(u->how, sizeof(u->how),
			 "A degradation method of 'perun check': it compares the profiles\n"
			 "that a rule of degradation.strategies names it for\n"
			 "(method: %s%s%s).\n"
			 "Its options are keys of the configuration\n"
			 "('perun config --local set <key> <value>').",
			 method ? method : n, method ? " or " : "", method ? n : "");
		break;
	}
	case PERUN_KIND_FUZZ:
		u->command = "fuzz";
		snprintf(u->synopsis[0], sizeof(u->synopsis[0]),
			 "perun fuzz --fuzzer %s --cmd <cmd> --input-sample <path> -o <dir> ...",
			 n);
		snprintf(u->how, sizeof(u->how),
			 "A performance fuzzer: 'perun fuzz --fuzzer %s' mutates the input\n"
			 "samples and keeps the mutants that slow the command down.",
			 n);
		break;
	case PERUN_KIND_VCS:
		u->command = "init";
		snprintf(u->synopsis[0], sizeof(u->synopsis[0]),
			 "perun init [options] --vcs-type %s", n);
		snprintf(u->how, sizeof(u->how),
			 "A version control backend: 'perun init --vcs-type %s' sets up\n"
			 "an instance whose versions %s keeps.",
			 n, n);
		break;
	}
}

const struct perun_loaded_plugin *perun_plugin_help_find(enum perun_plugin_kind kind,
							 const char *name, struct perun_error *err)
{
	if (kind == PERUN_KIND_CHECK)
		return perun_check_method_find(name, err);
	return perun_plugin_load(kind, name, err);
}

void perun_plugin_help(const struct perun_loaded_plugin *p, FILE *out)
{
	struct perun_plugin_usage u;
	perun_plugin_usage_of(p, &u);
	fprintf(out, "usage: %s\n", u.synopsis[0]);
	if (u.synopsis[1][0])
		fprintf(out, "   or: %s\n", u.synopsis[1]);
	fprintf(out, "\n%s %s: %s\n\n%s\n", p->name, p->desc->version ? p->desc->version : "",
		p->desc->summary ? p->desc->summary : "", u.how);
	fputc('\n', out);
	perun_plugin_options_print(p, out);
}

void perun_plugin_options_print(const struct perun_loaded_plugin *p, FILE *out)
{
	struct perun_plugin_usage u;
	perun_plugin_usage_of(p, &u);
	fprintf(out, "%s:\n", u.key_prefix ? "configuration" : "options");
	if (!p->desc->options || !p->desc->options->name)
		fprintf(out, "  (none)\n");
	perun_options_print(p->desc->options, u.key_prefix, out);
}

static const char *type_name(enum perun_option_type type)
{
	switch (type) {
	case PERUN_OPTION_BOOL: return "flag";
	case PERUN_OPTION_INT: return "int";
	case PERUN_OPTION_FLOAT: return "float";
	case PERUN_OPTION_STRING: return "string";
	case PERUN_OPTION_CHOICE: return "choice";
	}
	return "?";
}

json_t *perun_plugin_entry_json(const struct perun_loaded_plugin *e, int with_options)
{
	json_t *obj = json_pack("{s:s,s:s?,s:s}", "name", e->name, "kind",
				perun_plugin_kind_name(e->kind), "path", e->path);
	if (e->desc) {
		json_object_set_new(obj, "version",
				    json_string(e->desc->version ? e->desc->version : ""));
		json_object_set_new(obj, "summary",
				    json_string(e->desc->summary ? e->desc->summary : ""));
		char abi[32];
		snprintf(abi, sizeof(abi), "%u.%u", e->desc->abi_major, e->desc->abi_minor);
		json_object_set_new(obj, "abi", json_string(abi));
		if (e->kind == PERUN_KIND_CHECK && !e->error) {
			const char *method = perun_check_method_name(e);
			json_object_set_new(obj, "method",
					    method ? json_string(method) : json_null());
			json_object_set_new(obj, "title", json_string(perun_check_method_title(e)));
		}
	}
	json_object_set_new(obj, "status",
			    json_string(e->error	 ? "rejected"
					: e->shadowed_by ? "shadowed"
							 : "ok"));
	if (e->error)
		json_object_set_new(obj, "error", json_string(e->error));
	if (e->shadowed_by)
		json_object_set_new(obj, "shadowed_by", json_string(e->shadowed_by));
	if (with_options && e->desc) {
		json_t *opts = json_array();
		for (const struct perun_option *o = e->desc->options; o && o->name; o++)
			json_array_append_new(
				opts, json_pack("{s:s,s:s?,s:s,s:s?,s:s?,s:s?}", "name", o->name,
						"short", o->short_name, "type", type_name(o->type),
						"default", o->default_value, "choices", o->choices,
						"help", o->help));
		json_object_set_new(obj, "options", opts);
	}
	return obj;
}
