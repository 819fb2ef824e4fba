/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun collect: run one collector over commands and workloads. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command_list.h"
#include "cmd_util.h"
#include "config.h"
#include "jobs.h"
#include "runner.h"
#include "worktree.h"

struct collect_run {
	struct perun_instance *inst;
	const struct perun_loaded_plugin *collector;
	const struct perun_params *collector_params;
	const struct perun_params *params;
	int failed, stored;
	int usage_errors; /* failures caused by bad options or input */
	unsigned timeout; /* seconds per collection, 0: none */
};

static int run_at_version(struct collect_run *run, const char *sha)
{
	const struct perun_params *params = run->params;
	size_t ncmd = perun_params_count(params, "cmd");
	size_t nwork = perun_params_count(params, "workload");
	size_t nargs = perun_params_count(params, "args");
	struct perun_error err = { 0 };
	char dirty[PERUN_SHA1_HEX];
	if (perun_worktree_diff(run->inst, sha, dirty, &err)) {
		perun_error_print(&err);
		run->failed++;
		return 0;
	}
	for (size_t c = 0; c < ncmd; c++) {
		for (size_t w = 0; w < (nwork ? nwork : 1); w++) {
			struct perun_job job = {
				.cmd = perun_params_string_at(params, "cmd", c),
				.args = nargs ? perun_params_string_at(params, "args",
								       nargs > c ? c : 0)
					      : "",
				.workload =
					nwork ? perun_params_string_at(params, "workload", w) : "",
				.timeout = run->timeout,
			};
			struct perun_profile *profile;
			if (perun_runner_collect(run->collector, run->collector_params, &job, sha,
						 &profile, &err)) {
				perun_error_print(&err);
				run->failed++;
				run->usage_errors += err.code == PERUN_EINVAL;
				if (err.code == PERUN_EINTR)
					return -1;
				continue;
			}
			if (!profile)
				continue; /* none on purpose; the collector said why */
			if (dirty[0])
				perun_worktree_mark(profile, dirty);
			char path[PATH_MAX];
			if (perun_runner_store(
				    run->inst, profile,
				    perun_params_string(params, "profile-name", NULL),
				    perun_params_string(params, "output-filename-template", NULL),
				    0, path, &err)) {
				perun_error_print(&err);
				run->failed++;
			} else {
				run->stored++;
				printf("Collected %s%s\n", path[0] ? "profile " : "",
				       path[0] ? path : "into the index");
			}
			perun_profile_free(profile);
		}
	}
	return 0;
}

static int at_version(const char *sha, size_t index, size_t count, void *data)
{
	(void)index, (void)count;
	return run_at_version(data, sha);
}

static void version_failed(const char *sha, const struct perun_error *err, void *data)
{
	struct collect_run *run = data;
	(void)sha;
	perun_error_print(err);
	run->failed++;
}

static int cmd_collect(const struct perun_command *cmd, struct perun_cli *cli,
		       const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	if (argc < 1)
		return perun_fail(PERUN_EXIT_USAGE,
				  "collect: name a collector (see 'perun plugins list')");
	if (!perun_params_count(params, "cmd"))
		return perun_fail(PERUN_EXIT_USAGE,
				  "collect: give the command to profile with --cmd/-c");
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	int exit_code = PERUN_EXIT_OK;
	struct perun_params *unit_params = NULL;
	json_t *yaml = NULL;
	const struct perun_loaded_plugin *collector =
		perun_plugin_load(PERUN_KIND_COLLECT, argv[0], &err);
	if (!collector)
		goto fail;
	const char *yaml_file = perun_params_string(params, "params", NULL);
	if (yaml_file && perun_yaml_load_file(yaml_file, &yaml, &err))
		goto fail;
	if (yaml && !json_is_object(yaml)) {
		perun_error_set(&err, PERUN_EINVAL, "collector params '%s' are not a mapping",
				yaml_file);
		goto fail;
	}
	if (perun_runner_unit_params(collector, argc - 1, argv + 1, yaml, &unit_params, NULL, NULL,
				     &err))
		goto fail;
	unsigned timeout;
	if (perun_runner_timeout(params, &inst.config, &timeout, &err))
		goto fail;

	struct collect_run run = { &inst, collector, unit_params, params, 0, 0, 0, timeout };
	size_t nminor = perun_params_count(params, "minor");
	const char **revs = calloc(nminor + 1, sizeof(*revs));
	for (size_t m = 0; m < nminor; m++)
		revs[m] = perun_params_string_at(params, "minor", m);
	struct perun_versions versions = {
		.revs = revs,
		.nrevs = nminor,
		.at_version = at_version,
		.version_failed = version_failed,
		.data = &run,
	};
	int rc = perun_jobs_each_version(&inst, &versions, &err);
	free(revs);
	/* An interrupted collection was reported and counted already. */
	if (rc && (rc != -PERUN_EINTR || !run.failed))
		goto fail;
	if (run.failed) {
		perun_fail(0, "%d of %d collection%s failed", run.failed, run.failed + run.stored,
			   run.failed + run.stored == 1 ? "" : "s");
		/* Bad options or input are the user's to fix: a usage error. */
		exit_code = run.usage_errors == run.failed ? PERUN_EXIT_USAGE : PERUN_EXIT_FAILURE;
	}
	if (rc == -PERUN_EINTR)
		exit_code = perun_interrupt_exit();
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	json_decref(yaml);
	perun_params_free(unit_params);
	perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option collect_options[] = {
	{ "cmd", "c", PERUN_OPTION_STRING, NULL, NULL, "<command>", "command to profile",
	  PERUN_OPTION_MULTIPLE },
	{ "args", "a", PERUN_OPTION_STRING, NULL, NULL, "<args>", "arguments of the command",
	  PERUN_OPTION_MULTIPLE },
	{ "workload", "w", PERUN_OPTION_STRING, NULL, NULL, "<workload>",
	  "workload given to the command after its arguments", PERUN_OPTION_MULTIPLE },
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version to collect at (default HEAD; others are checked out and restored)",
	  PERUN_OPTION_MULTIPLE },
	{ "profile-name", "pn", PERUN_OPTION_STRING, NULL, NULL, "<name>",
	  "name of the resulting profile", 0 },
	{ "output-filename-template", "ot", PERUN_OPTION_STRING, NULL, NULL, "<template>",
	  "template of the profile name (tags %collector%, %cmd%, %workload%, %date%, ...)", 0 },
	{ "params", "p", PERUN_OPTION_STRING, NULL, NULL, "<yaml-file>",
	  "collector parameters from a YAML file", 0 },
	{ "timeout", NULL, PERUN_OPTION_INT, NULL, NULL, "<seconds>",
	  "stop a collection that runs longer (default: execute.timeout, else none)", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_collect = {
	.name = "collect",
	.fn = cmd_collect,
	.options = collect_options,
	.args = "<collector> [<collector options>]",
	.flags = PERUN_COMMAND_STOP_AT_POSITIONAL,
	.plugin_kind = PERUN_KIND_COLLECT,
	.summary = "collect profiles of a command with one collector",
	.description = "Runs the collector for every --cmd and --workload and stores each\n"
		       "profile as pending in .perun/jobs (or in the index right away when\n"
		       "profiles.register_after_run is set).  Options after the collector's\n"
		       "name are the collector's own: 'perun collect <collector> --help'\n"
		       "lists them.",
};
