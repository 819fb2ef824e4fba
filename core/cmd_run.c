/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun run job|matrix: profiling jobs over minor versions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_util.h"
#include "command_list.h"
#include "jobs.h"
#include "runner.h"

/* The YAML params of unit from "-cp <unit> <yaml-or-file>" pairs, merged
 * in order; *out is a new reference or NULL when none were given. */
static int unit_yaml(const struct perun_params *params, const char *option, const char *unit,
		     json_t **out, struct perun_error *err)
{
	json_t *pairs = json_object_get(perun_params_json(params), option);
	size_t i;
	json_t *pair;
	*out = NULL;
	json_array_foreach(pairs, i, pair)
	{
		const char *name = json_string_value(json_array_get(pair, 0));
		const char *text = json_string_value(json_array_get(pair, 1));
		json_t *yaml = NULL;
		int rc = access(text, F_OK) == 0
				 ? perun_yaml_load_file(text, &yaml, err)
				 : perun_yaml_load_buffer(text, strlen(text), option, &yaml, err);
		if (!rc && !json_is_object(yaml) && !json_is_null(yaml))
			rc = perun_error_set(err, PERUN_EINVAL,
					     "--%s %s: '%s' is not a YAML mapping", option, name,
					     text);
		if (rc) {
			json_decref(yaml);
			json_decref(*out);
			*out = NULL;
			return rc;
		}
		if (!strcmp(name, unit) && json_is_object(yaml)) {
			if (!*out)
				*out = json_object();
			json_object_update(*out, yaml);
		}
		json_decref(yaml);
	}
	return 0;
}

static int add_units(struct perun_matrix *m, const struct perun_params *params,
		     enum perun_plugin_kind kind, const char *option, const char *params_option,
		     struct perun_error *err)
{
	for (size_t i = 0; i < perun_params_count(params, option); i++) {
		char name[128];
		snprintf(name, sizeof(name), "%s", perun_params_string_at(params, option, i));
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		json_t *yaml;
		int rc = unit_yaml(params, params_option, perun_params_string_at(params, option, i),
				   &yaml, err);
		if (!rc)
			rc = perun_matrix_add_unit(m, kind, name, yaml, err);
		json_decref(yaml);
		if (rc)
			return rc;
	}
	return 0;
}

static int words(const struct perun_params *params, const char *option, char ***list, size_t *n,
		 struct perun_error *err)
{
	for (size_t i = 0; i < perun_params_count(params, option); i++) {
		int rc = perun_matrix_add_word(list, n, perun_params_string_at(params, option, i),
					       err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Run the matrix over the versions of the run group's options and report. */
static int run_matrix(struct perun_cli *cli, struct perun_instance *inst, struct perun_matrix *m,
		      int quiet)
{
	const struct perun_params *group = cli->group_params;
	struct perun_error err = { 0 };
	struct perun_run_result res;
	size_t nrevs = perun_params_count(group, "minor-version");
	const char **revs = calloc(nrevs + 1, sizeof(*revs));
	for (size_t i = 0; i < nrevs; i++)
		revs[i] = perun_params_string_at(group, "minor-version", i);
	struct perun_error tmp = { 0 };
	if ((!m->nargs && perun_matrix_add_word(&m->args, &m->nargs, "", &tmp)) ||
	    (!m->nworkloads && perun_matrix_add_word(&m->workloads, &m->nworkloads, "", &tmp))) {
		free(revs);
		return perun_error_exit(&tmp);
	}
	struct perun_run_opts opts = {
		.revs = revs,
		.nrevs = nrevs,
		.crawl_parents = perun_params_bool(group, "crawl-parents", 0),
		.profile_template = perun_params_string(group, "output-filename-template", NULL),
		.progress = !quiet && isatty(STDERR_FILENO),
	};
	long long rounds = perun_params_int(group, "rounds", 1);
	if (rounds < 1 || rounds > 1000) {
		free(revs);
		return perun_fail(PERUN_EXIT_USAGE, "run: --rounds %lld: not between 1 and 1000",
				  rounds);
	}
	opts.rounds = (size_t)rounds;
	const char *shard = perun_params_string(group, "shard", NULL);
	if ((shard && perun_shard_parse(shard, &opts.shard_index, &opts.shard_count, &tmp)) ||
	    perun_runner_timeout(group, &inst->config, &opts.timeout, &tmp)) {
		free(revs);
		return perun_error_exit(&tmp);
	}
	int rc = perun_jobs_run(inst, m, &opts, &res, &err);
	free(revs);
	if (rc)
		return perun_error_exit(&err);
	int exit_code = PERUN_EXIT_OK;
	printf("%zu job%s run, %zu profile%s stored\n", res.jobs, res.jobs == 1 ? "" : "s",
	       res.stored, res.stored == 1 ? "" : "s");
	if (res.kept_raw)
		printf("%zu profile%s kept pending without postprocessing (a postprocessor "
		       "failed; see perun status)\n",
		       res.kept_raw, res.kept_raw == 1 ? "" : "s");
	if (res.failed || res.nfailures) {
		perun_fail(0, "%zu of %zu job%s failed:", res.failed, res.jobs,
			   res.jobs == 1 ? "" : "s");
		for (size_t i = 0; i < res.nfailures; i++)
			fprintf(stderr, "  %s\n", res.failures[i]);
		/* Bad options or input are the user's to fix: a usage error. */
		exit_code =
			res.usage_failures == res.nfailures ? PERUN_EXIT_USAGE : PERUN_EXIT_FAILURE;
	}
	if (res.interrupted) {
		perun_fail(0, "interrupted; the original branch and working tree are restored");
		exit_code = perun_interrupt_exit();
	}
	if (exit_code)
		fprintf(stderr, "perun: the log of the run is %s\n", res.log_path);
	perun_run_result_release(&res);
	return exit_code;
}

static int cmd_run_job(const struct perun_command *cmd, struct perun_cli *cli,
		       const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct perun_matrix m = { 0 };
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "run job: unexpected argument '%s'", argv[0]);
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	int exit_code;
	if (words(params, "cmd", &m.cmds, &m.ncmds, &err) ||
	    words(params, "args", &m.args, &m.nargs, &err) ||
	    words(params, "workload", &m.workloads, &m.nworkloads, &err) ||
	    add_units(&m, params, PERUN_KIND_COLLECT, "collector", "collector-params", &err) ||
	    add_units(&m, params, PERUN_KIND_POSTPROCESS, "postprocessor", "postprocessor-params",
		      &err))
		exit_code = perun_error_exit(&err);
	else
		exit_code = run_matrix(cli, &inst, &m, 0);
	perun_matrix_release(&m);
	perun_instance_close(&inst);
	return exit_code;
}

static int cmd_run_matrix(const struct perun_command *cmd, struct perun_cli *cli,
			  const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct perun_matrix m = { 0 };
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "run matrix: unexpected argument '%s'",
				  argv[0]);
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	int exit_code;
	if (perun_matrix_from_config(&m, &inst.config, &err))
		exit_code = perun_error_exit(&err);
	else
		exit_code = run_matrix(cli, &inst, &m,
				       perun_params_bool(params, "without-vcs-history", 0));
	perun_matrix_release(&m);
	perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option job_options[] = {
	{ "cmd", "b", PERUN_OPTION_STRING, NULL, NULL, "<command>", "command to profile",
	  PERUN_OPTION_MULTIPLE | PERUN_OPTION_REQUIRED },
	{ "args", "a", PERUN_OPTION_STRING, NULL, NULL, "<args>", "arguments of the command",
	  PERUN_OPTION_MULTIPLE },
	{ "workload", "w", PERUN_OPTION_STRING, NULL, NULL, "<workload>",
	  "workload given to the command, or the id of a workload generator",
	  PERUN_OPTION_MULTIPLE },
	{ "collector", "c", PERUN_OPTION_STRING, NULL, NULL, "<collector>",
	  "collector of the profiles", PERUN_OPTION_MULTIPLE | PERUN_OPTION_REQUIRED },
	{ "collector-params", "cp", PERUN_OPTION_STRING, NULL, NULL, "<collector> <yaml>",
	  "parameters of <collector>: YAML text or a YAML file", PERUN_OPTION_PAIR },
	{ "postprocessor", "p", PERUN_OPTION_STRING, NULL, NULL, "<postprocessor>",
	  "postprocessor run on every profile, in the order given", PERUN_OPTION_MULTIPLE },
	{ "postprocessor-params", "pp", PERUN_OPTION_STRING, NULL, NULL, "<postprocessor> <yaml>",
	  "parameters of <postprocessor>: YAML text or a YAML file", PERUN_OPTION_PAIR },
	{ NULL },
};

static const struct perun_command run_job = {
	.name = "job",
	.fn = cmd_run_job,
	.options = job_options,
	.summary = "run profiling jobs given on the command line",
	.description = "Profiles every --cmd with every --args and --workload by every\n"
		       "--collector, runs the --postprocessors in order on each profile and\n"
		       "stores the profiles as pending in .perun/jobs (or in the index of\n"
		       "their version with profiles.register_after_run).  A workload equal\n"
		       "to the id of a generator in generators.workload is expanded by it.",
};

static const struct perun_option matrix_options[] = {
	{ "without-vcs-history", "q", PERUN_OPTION_BOOL, NULL, NULL, NULL, "show no progress", 0 },
	{ NULL },
};

static const struct perun_command run_matrix_cmd = {
	.name = "matrix",
	.fn = cmd_run_matrix,
	.options = matrix_options,
	.summary = "run the job matrix of the local configuration",
	.description = "Runs the jobs of local.yml: every command of 'cmds' with every item\n"
		       "of 'args' and 'workloads', by every collector of 'collectors', each\n"
		       "profile then postprocessed by 'postprocessors' in order.  At every\n"
		       "minor version 'execute.pre_run' runs first (e.g. make).",
};

static const struct perun_option run_options[] = {
	{ "output-filename-template", "ot", PERUN_OPTION_STRING, NULL, NULL, "<template>",
	  "template of the profile names (default: format.output_profile_template)", 0 },
	{ "minor-version", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version to profile (default HEAD; others are checked out, then restored)",
	  PERUN_OPTION_MULTIPLE },
	{ "crawl-parents", "c", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "also profile every ancestor of each minor version", 0 },
	{ "timeout", NULL, PERUN_OPTION_INT, NULL, NULL, "<seconds>",
	  "stop a collection that runs longer; the job fails (default: execute.timeout)", 0 },
	{ "shard", NULL, PERUN_OPTION_STRING, NULL, NULL, "<i>/<n>",
	  "run only shard <i> of <n> of the jobs, so that <n> runs cover each once", 0 },
	{ "rounds", NULL, PERUN_OPTION_INT, NULL, NULL, "<n>",
	  "visit the versions <n> times, alternating their order, one profile per job "
	  "and version of all rounds (A/B runs a check can trust)",
	  0 },
	{ NULL },
};

static const struct perun_command *const run_subcommands[] = { &run_job, &run_matrix_cmd, NULL };

const struct perun_command perun_cmd_run = {
	.name = "run",
	.options = run_options,
	.subcommands = run_subcommands,
	.summary = "run batches of profiling jobs over minor versions",
	.description = "Runs jobs at each minor version: dirty work is saved, the version\n"
		       "checked out, execute.pre_run run, the jobs run, and the original\n"
		       "branch and working tree restored, also when a job fails or the run\n"
		       "is interrupted.  Progress shows on a terminal; a log of every run\n"
		       "goes to .perun/logs.  Exits 3 when any job failed, listing which\n"
		       "and why.  With --shard <i>/<n> the jobs, numbered over versions x\n"
		       "commands x args x workloads x collectors, are dealt round-robin to\n"
		       "<n> shards and only shard <i> runs: <n> CI jobs or a Slurm array\n"
		       "(--shard $((SLURM_ARRAY_TASK_ID+1))/$SLURM_ARRAY_TASK_COUNT) cover\n"
		       "the matrix exactly once.  Versions without jobs in the shard are not\n"
		       "checked out.\n"
		       "\n"
		       "With --rounds <n> the versions are visited <n> times, every other\n"
		       "round in reverse (A B, B A, A B ...), and each job's collections of\n"
		       "all rounds make one profile per version, marked with the run\n"
		       "(header interleaved_run): the machine's drift over the run falls\n"
		       "alike on the baseline and the target, and perun check compares a\n"
		       "target with its baseline of the same run.  perun run -m HEAD~ -m\n"
		       "HEAD --rounds 5 matrix, then perun check head, is the A/B gate.",
};
