/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun check head|all|profiles: detect performance changes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd_util.h"
#include "commands.h"
#include "jobs.h"
#include "profiles.h"

/* Options of a check run: the group's, overridden by the subcommand's. */
struct check_opts {
	enum perun_check_format format;
	enum perun_change fail_at; /* exit 1 at or below this; 0: never */
	int force;
	const char *models_type;
};

static const char *opt_string(const struct perun_cli *cli, const struct perun_params *params,
			      const char *name)
{
	const char *v = perun_params_string(params, name, NULL);
	return v ? v : perun_params_string(cli->group_params, name, NULL);
}

static void read_opts(const struct perun_cli *cli, const struct perun_params *params,
		      struct check_opts *o)
{
	static const char *const formats[] = {"text", "json", "junit", "sarif", "markdown"};
	const char *format = opt_string(cli, params, "format");
	const char *fail_on = opt_string(cli, params, "fail-on");
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; format && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i], format))
			o->format = (enum perun_check_format)i;
	if (fail_on)
		o->fail_at = !strcmp(fail_on, "severe")	       ? PERUN_CHANGE_SEVERE_DEGRADATION
			     : !strcmp(fail_on, "degradation") ? PERUN_CHANGE_DEGRADATION
							       : PERUN_CHANGE_MAYBE_DEGRADATION;
	o->force = perun_params_bool(cli->group_params, "force", 0);
	o->models_type = perun_params_string(cli->group_params, "models-type", "best-model");
}

/* Does the report gate the run (--fail-on)? */
static int gated(const struct check_opts *o, const struct perun_check_report *r)
{
	for (size_t i = 0; o->fail_at && i < r->nchanges; i++) {
		enum perun_change c = r->changes[i].result;
		if (c >= PERUN_CHANGE_TOTAL_DEGRADATION && c <= o->fail_at)
			return 1;
	}
	return 0;
}

/* Pointers to the reported changes of r from index from on. */
static const struct perun_check_change **change_ptrs(const struct perun_check_report *r,
						     size_t from, size_t *n)
{
	const struct perun_check_change **v = malloc((r->nchanges - from + 1) * sizeof(*v));
	*n = 0;
	for (size_t i = from; v && i < r->nchanges; i++)
		v[(*n)++] = &r->changes[i];
	return v;
}

/* Write the changes from index from on to the .changes of sha. */
static int save_changes(struct perun_instance *inst, const struct perun_check_report *r,
			size_t from, const char *sha, struct perun_error *err)
{
	size_t n;
	const struct perun_check_change **v = change_ptrs(r, from, &n);
	if (!v)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_instance_lock(inst, err);
	if (!rc)
		rc = perun_changes_save(inst, sha, v, n, err);
	free(v);
	return rc;
}

/* Print the machine report, or nothing for text; the exit code. */
static int finish(const struct check_opts *o, struct perun_check_ctx *ctx)
{
	struct perun_error err = {0};
	if (o->format != PERUN_CHECK_TEXT &&
	    perun_check_write_report(stdout, &ctx->report, o->format, &err))
		return perun_error_exit(&err);
	fflush(stdout);
	return gated(o, &ctx->report) ? PERUN_EXIT_DEGRADED : PERUN_EXIT_OK;
}

static int cmd_check_profiles(const struct perun_command *cmd, struct perun_cli *cli,
			      const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = {0};
	struct perun_profile *baseline = NULL, *target = NULL;
	struct perun_check_ctx ctx = {0};
	struct check_opts o;
	int exit_code;
	if (argc != 2)
		return perun_fail(PERUN_EXIT_USAGE,
				  "check profiles: usage: perun check profiles <baseline> <target>");
	read_opts(cli, params, &o);
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	char sha[65];
	if (perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha, &err) ||
	    perun_profiles_load_any(&inst, sha, argv[0], &baseline, &err) ||
	    perun_profiles_load_any(&inst, sha, argv[1], &target, &err) ||
	    perun_check_init(&ctx, &inst.config, o.models_type, &err))
		goto fail;
	if (!o.force && !perun_check_same_config(baseline, target)) {
		char *a = perun_profile_postprocessors_dup(baseline);
		char *b = perun_profile_postprocessors_dup(target);
		perun_error_set(&err, PERUN_EINVAL,
				"incompatible configurations ('%s', '%s', '%s', '%s') and "
				"('%s', '%s', '%s', '%s'): use --force to compare them anyway",
				perun_profile_collector(baseline), perun_profile_header(baseline, "cmd"),
				perun_profile_header(baseline, "workload"), a ? a : "",
				perun_profile_collector(target), perun_profile_header(target, "cmd"),
				perun_profile_header(target, "workload"), b ? b : "");
		free(a);
		free(b);
		goto fail;
	}
	/* The changes belong to the target's version: its origin, or -m. */
	const char *origin = perun_profile_origin(target);
	char minor[65];
	snprintf(minor, sizeof(minor), "%s", origin && *origin ? origin : sha);
	if (perun_check_pair(&ctx, baseline, target, argv[0], argv[1], minor, minor, &err) ||
	    save_changes(&inst, &ctx.report, 0, minor, &err))
		goto fail;
	if (o.format == PERUN_CHECK_TEXT) {
		size_t n;
		const struct perun_check_change **v = change_ptrs(&ctx.report, 0, &n);
		printf("[Checking two compatible profiles]\n\n");
		perun_check_print_list(stdout, v, n, cli->color);
		perun_check_print_summary(stdout, v, n, cli->color);
		free(v);
	}
	exit_code = finish(&o, &ctx);
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	perun_check_release(&ctx);
	perun_profile_free(baseline);
	perun_profile_free(target);
	perun_instance_close(&inst);
	return exit_code;
}

#define REPORT_OPTIONS                                                                      \
	{"format", NULL, PERUN_OPTION_CHOICE, NULL, "text|json|junit|sarif|markdown", NULL,  \
	 "report format: Perun's text, JSON, JUnit XML, SARIF 2.1.0 or a Markdown table", 0}, \
	{"fail-on", NULL, PERUN_OPTION_CHOICE, NULL, "severe|degradation|maybe", NULL,        \
	 "exit 1 when a change at or above this level is found", 0}

static const struct perun_option profiles_options[] = {
	{"minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	 "minor version whose index N@i refers to (default HEAD)", 0},
	REPORT_OPTIONS,
	{NULL},
};

static const struct perun_command check_profiles = {
	.name = "profiles",
	.fn = cmd_check_profiles,
	.options = profiles_options,
	.args = "<baseline> <target>",
	.summary = "check for changes between two profiles",
	.description =
		"Compares <baseline> with <target> (tags such as 0@i, 0@p or\n"
		"<rev>^0@i, names, object SHA-1s or files) by every method that\n"
		"degradation.strategies selects for the baseline.  Profiles of\n"
		"different configurations (collector, command, workload,\n"
		"postprocessors) are refused unless --force is given.  The changes\n"
		"are saved to the .changes of the target's version.",
};

static const struct perun_command *const check_subcommands[] = {&check_profiles, NULL};

static const struct perun_option check_options[] = {
	{"force", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	 "compare profiles even if their configurations differ", 0},
	{"compute-missing", "c", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	 "collect the profiles of versions that have none by the job matrix first", 0},
	{"models-type", "m", PERUN_OPTION_CHOICE, "best-model",
	 "best-model|best-param|best-nonparam|all-param|all-nonparam|all-models|best-both",
	 NULL, "which models int and loc compare", 0},
	REPORT_OPTIONS,
	{NULL},
};

const struct perun_command perun_cmd_check = {
	.name = "check",
	.options = check_options,
	.subcommands = check_subcommands,
	.summary = "detect performance changes between versions or profiles",
	.description =
		"Runs the degradation methods that degradation.strategies selects\n"
		"(rules matched on collector, postprocessor and header keys;\n"
		"degradation.apply says whether the first or all applicable rules\n"
		"count).  Methods are check plugins: aat, bmoe, preg, lreg, fast,\n"
		"int, loc, eto.  Exits 0 when the check worked, 1 with --fail-on\n"
		"when a change at or above that level was found, 2 on bad input\n"
		"and 3 when a method failed.",
};
