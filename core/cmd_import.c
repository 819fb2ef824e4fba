/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun import <source> <file>: a foreign tool's data file as a pending
 * profile of this instance, as if collected at --minor (default HEAD).
 * Each source is a subcommand made from an entry of import_sources.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "command_list.h"
#include "cmd_util.h"
#include "import.h"
#include "runner.h"

static const struct perun_import_source *const import_sources[] = {
	&perun_import_heaptrack,
	&perun_import_chrome,
	NULL,
};

static int cmd_import_source(const struct perun_command *cmd, struct perun_cli *cli,
			     const struct perun_params *params, int argc, char **argv)
{
	const struct perun_import_source *src = NULL;
	(void)cli;
	for (size_t i = 0; import_sources[i] && !src; i++)
		if (!strcmp(import_sources[i]->name, cmd->name))
			src = import_sources[i];
	if (!src || (src->read_many ? argc < 1 : argc != 1))
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun import %s %s", cmd->name,
				  cmd->args);
	struct perun_instance inst;
	struct perun_error err = { 0 };
	char sha[65], path[PATH_MAX];
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	struct perun_profile *profile = perun_profile_new(src->profile_type);
	int rc = profile ? 0 : perun_error_set(&err, PERUN_EGENERIC, "out of memory");
	if (!rc)
		rc = perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha,
					 &err);
	if (!rc)
		rc = src->read_many ? src->read_many(argv, argc, profile, &err)
				    : src->read(argv[0], profile, &err);
	if (!rc) {
		json_t *files = json_array();
		for (int i = 0; i < argc; i++)
			json_array_append_new(files, json_string(argv[i]));
		json_t *info = src->read_many ? json_pack("{s:o}", "files", files)
					      : json_pack("{s:s}", "file", argv[0]);
		if (!src->read_many)
			json_decref(files);
		perun_profile_set_header(profile, "type", src->profile_type);
		rc = perun_profile_set_units(profile, src->units, &err);
		perun_profile_set_collector(profile, src->name, info);
		json_decref(info);
		perun_profile_set_origin(profile, sha);
	}
	if (!rc)
		rc = perun_runner_store(&inst, profile,
					perun_params_string(params, "profile-name", NULL), NULL, 0,
					path, &err);
	if (!rc)
		printf("Imported %s%s\n", path[0] ? "profile " : "",
		       path[0] ? path : "into the index");
	perun_profile_free(profile);
	perun_instance_close(&inst);
	return rc ? perun_error_exit(&err) : PERUN_EXIT_OK;
}

static const struct perun_option import_options[] = {
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version the profile belongs to (default HEAD)", 0 },
	{ "profile-name", "pn", PERUN_OPTION_STRING, NULL, NULL, "<name>",
	  "name of the profile file (default: format.output_profile_template)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct perun_command import_heaptrack = {
	.name = "heaptrack",
	.fn = cmd_import_source,
	.options = import_options,
	.args = "<file>",
	.summary = "import a heaptrack data file (.zst, .gz or plain)",
	.description = "Reads what heaptrack recorded (heaptrack.<prog>.<pid>.zst) into a memory\n"
		       "profile aggregated per allocation trace, of the same shape as\n"
		       "'perun collect memory' writes: bytes, count, peak, leaked and live bytes\n"
		       "per trace, and the live-bytes series per heaptrack timestamp.",
};

static const struct perun_command import_chrome = {
	.name = "chrome",
	.fn = cmd_import_source,
	.options = import_options,
	.args = "<file>...",
	.summary = "merge Chrome Trace Event JSON files into one trace profile",
	.description = "Reads Chrome Trace Event JSON (arrays of events or objects with\n"
		       "traceEvents) written by libperun-annotate (PERUN_ANNOTATE), its Python\n"
		       "module, PerfFlowAspect or 'perun show ... chrome', one file per process\n"
		       "and host of a workflow run, into one profile of the trace collector's\n"
		       "shape: a resource per region (B/E, X, async b/e matched by id) with its\n"
		       "duration, exclusive time, thread, process and host, timestamps from the\n"
		       "earliest event, and a record per thread and process.",
};

static const struct perun_command *const import_subcommands[] = {
	&import_heaptrack,
	&import_chrome,
	&perun_import_perf,
	NULL,
};

/* Python Perun's "perun import" options, read by the perf sources. */
static const struct perun_option import_group_options[] = {
	{ "machine-info", "i", PERUN_OPTION_STRING, NULL, NULL, "<file.json>",
	  "the profile's machine from this JSON file (default: this machine)", 0 },
	{ "import-dir", "d", PERUN_OPTION_STRING, NULL, NULL, "<dir>",
	  "where relative entry, CSV, metadata and machine-info paths are (default: .)", 0 },
	{ "minor-version", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version the profile belongs to (default HEAD)", 0 },
	{ "stats-headers", "t", PERUN_OPTION_STRING, NULL, NULL, "<headers>",
	  "stats of the entries: 'NAME[|CMP[|UNIT[|AGGREGATE_BY[|DESCRIPTION]]]],...'", 0 },
	{ "metadata", "md", PERUN_OPTION_STRING, NULL, NULL, "<'key|value[|desc]'|file.json>",
	  "a metadata entry, or a JSON file of them (keys flattened); repeatable",
	  PERUN_OPTION_MULTIPLE },
	{ "cmd", "c", PERUN_OPTION_STRING, NULL, NULL, "<cmd>", "the command that was profiled",
	  0 },
	{ "workload", "w", PERUN_OPTION_STRING, NULL, NULL, "<workload>", "its workload", 0 },
	{ "save-to-index", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "register the profile in the index of its minor version instead of pending", 0 },
	{ "profile-name", "pn", PERUN_OPTION_STRING, NULL, NULL, "<name>",
	  "name of the profile file (default: format.output_profile_template)", 0 },
	{ "profile-label", "pl", PERUN_OPTION_STRING, NULL, NULL, "<label>",
	  "a label stored in the profile's header", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct perun_command perun_cmd_import = {
	.name = "import",
	.options = import_group_options,
	.summary = "import a profile recorded by another tool",
	.description = "Turns another tool's data file into a pending profile of this\n"
		       "instance: 'perun import heaptrack <file>', or perf's samples:\n"
		       "'perun import [options] perf record|script|stack <entry>...' (the\n"
		       "options before 'perf' are Python Perun's and apply to perf only).",
	.subcommands = import_subcommands,
};
