/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun import perf record|script|stack <entry>...: perf's data as one
 * kperf profile, as Python Perun's perun/profile/imports.py makes it.
 * "record" entries are perf.data files, read through "perf script -i";
 * "script" entries "perf script" text, collapsed here (perf_script.c);
 * "stack" entries folded stacks.  Every entry's stacks are summed in a
 * table (memory for the distinct stacks only) and become resources
 * {amount: samples, uid: leaf, command: process, trace: callers root
 * first}, the shape of "perun collect kperf".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_util.h"
#include "command_list.h"
#include "import.h"
#include "import_entries.h"
#include "perf_script.h"
#include "runner.h"

extern char **environ;

enum perf_input { PERF_RECORD, PERF_SCRIPT, PERF_STACK };

static int read_folded(struct compressed_file *in, const char *path, struct folded_stacks *t,
		       struct perun_error *err)
{
	char *line;
	size_t len, lineno = 0, stack_len;
	uint64_t count;
	int more;
	while ((more = compressed_getline(in, &line, &len, err)) == 1) {
		lineno++;
		if (!line[strspn(line, " \t\r")])
			continue;
		if (folded_line_parse(line, len, &stack_len, &count))
			return perun_error_set(err, PERUN_EINVAL,
					       "folded stacks file '%s': line %zu: not "
					       "'frame;frame;... count'",
					       path, lineno);
		if (folded_stacks_add(t, line, stack_len, count))
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	return more;
}

static int find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

/* The first line perf wrote to its stderr, for the error. */
static void first_line(FILE *f, char *buf, size_t len)
{
	buf[0] = '\0';
	rewind(f);
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
}

/* perf script -i path, its output collapsed as it comes. */
static int read_record(const char *path, int with_sudo, const struct perf_script_options *o,
		       struct folded_stacks *t, struct perun_error *err)
{
	if (access(path, R_OK))
		return perun_error_set_errno(err, PERUN_EINVAL, errno, "cannot read '%s'", path);
	if (!find_in_path("perf"))
		return perun_error_set(err, PERUN_ETOOL,
				       "perf is not installed (Debian: linux-perf): cannot read "
				       "'%s'",
				       path);
	char *argv[] = { "sudo", "perf", "script", "-i", (char *)path, NULL };
	char **args = with_sudo ? argv : argv + 1;
	int fds[2];
	FILE *errors = tmpfile();
	if (!errors || pipe2(fds, O_CLOEXEC)) {
		if (errors)
			fclose(errors);
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot run perf");
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, fileno(errors), STDERR_FILENO);
	pid_t pid;
	int rc = posix_spawnp(&pid, args[0], &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		fclose(errors);
		return perun_error_set_errno(err, PERUN_ETOOL, rc, "cannot run %s", args[0]);
	}
	struct compressed_file *in;
	char name[PATH_MAX + 32];
	snprintf(name, sizeof(name), "perf script -i %s", path);
	rc = compressed_fdopen(fds[0], name, &in, err);
	if (!rc) {
		rc = perf_script_collapse(in, name, o, t, err);
		compressed_close(in); /* perf gets SIGPIPE if we stopped early */
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		char why[512];
		first_line(errors, why, sizeof(why));
		rc = perun_error_set(err, PERUN_ETOOL, "'%s' failed (%s %d)%s%s", name,
				     WIFEXITED(status) ? "exit" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				     why[0] ? ": " : "", why);
	}
	fclose(errors);
	return rc;
}

static int read_entry(enum perf_input kind, const char *path, const struct perun_params *params,
		      struct folded_stacks *t, struct perun_error *err)
{
	int all = perun_params_bool(params, "all", 0);
	const struct perf_script_options o = {
		.pid = perun_params_bool(params, "pid", 0),
		.tid = perun_params_bool(params, "tid", 0),
		.kernel = all || perun_params_bool(params, "kernel", 0),
		.jit = all || perun_params_bool(params, "jit", 0),
		.addrs = perun_params_bool(params, "addrs", 0),
		.srcline = perun_params_bool(params, "srcline", 0),
		.event = perun_params_string(params, "event-filter", NULL),
	};
	if (kind == PERF_RECORD)
		return read_record(path, perun_params_bool(params, "with-sudo", 0), &o, t, err);
	struct compressed_file *in;
	int rc = compressed_open(path, &in, err);
	if (rc)
		return rc;
	rc = kind == PERF_SCRIPT ? perf_script_collapse(in, path, &o, t, err)
				 : read_folded(in, path, t, err);
	compressed_close(in);
	return rc;
}

/* Python Perun's kperf parser: "command;f1;...;leaf count". */
static int add_stack(const char *stack, size_t len, uint64_t count, void *data)
{
	struct perun_profile *profile = data;
	const char *end = stack + len, *semi = memchr(stack, ';', len);
	const char *leaf = memrchr(stack, ';', len);
	leaf = leaf ? leaf + 1 : stack;
	json_t *trace = json_array();
	for (const char *f = semi ? semi + 1 : end; trace && f < leaf;) {
		const char *next = memchr(f, ';', (size_t)(leaf - f));
		next = next ? next : leaf - 1;
		if (json_array_append_new(trace,
					  json_pack("{s:s%}", "func", f, (size_t)(next - f))))
			json_decref(trace), trace = NULL;
		f = next + 1;
	}
	json_t *res = trace ? json_pack("{s:I,s:s%,s:s%,s:o}", "amount", (json_int_t)count, "uid",
					leaf, (size_t)(end - leaf), "command", stack,
					(size_t)((semi ? semi : end) - stack), "trace", trace)
			    : NULL;
	struct perun_error err = { 0 };
	int rc = res ? perun_profile_add_resource(profile, res, &err) : -1;
	json_decref(res);
	return rc ? -1 : 0;
}

/* The import group's option: the leaf's, its group's or the import's. */
static const char *opt(const struct perun_cli *cli, const char *name)
{
	return perun_params_string(cli->outer_params, name, NULL);
}

static json_t *machine_of(const char *file, const char *dir)
{
	if (file && file[0]) {
		char *path = import_path(file, dir);
		json_error_t jerr;
		json_t *m = path ? json_load_file(path, 0, &jerr) : NULL;
		free(path);
		if (json_is_object(m))
			return m;
		json_decref(m);
		perun_warn("machine info '%s' not found or not a JSON object: this machine's "
			   "instead",
			   file);
	}
	return perun_runner_machine_info();
}

static int fill_profile(struct perun_profile *profile, const struct perun_cli *cli,
			const struct perun_params *params, const struct import_entries *entries,
			const char *sha, struct perun_error *err)
{
	const char *dir = opt(cli, "import-dir");
	size_t nmeta = perun_params_count(cli->outer_params, "metadata");
	const char **meta = calloc(nmeta + 1, sizeof(*meta));
	if (!meta)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < nmeta; i++)
		meta[i] = perun_params_string_at(cli->outer_params, "metadata", i);
	perun_profile_set_header(profile, "type", "time");
	perun_profile_set_header(profile, "cmd", opt(cli, "cmd") ? opt(cli, "cmd") : "");
	perun_profile_set_header(profile, "workload",
				 opt(cli, "workload") ? opt(cli, "workload") : "");
	perun_profile_set_header(profile, "label",
				 opt(cli, "profile-label") ? opt(cli, "profile-label") : "");
	json_object_set(perun_profile_get(profile, "header"), "exitcode", entries->exit_codes);
	int rc = perun_profile_set_units(profile, "{\"time\": \"sample\"}", err);
	json_t *info =
		json_pack("{s:b,s:I,s:I}", "with_sudo", perun_params_bool(params, "with-sudo", 0),
			  "warmup", (json_int_t)perun_params_int(cli->group_params, "warmup", 0),
			  "repeat", (json_int_t)entries->n);
	perun_profile_set_collector(profile, "kperf", info);
	json_decref(info);
	perun_profile_set_new(profile, "machine", machine_of(opt(cli, "machine-info"), dir));
	perun_profile_set_new(profile, "metadata", import_metadata(meta, nmeta, dir));
	perun_profile_set_new(profile, "stats", json_incref(entries->stats));
	perun_profile_set_origin(profile, sha);
	free(meta);
	return rc;
}

static int import_perf(enum perf_input kind, struct perun_cli *cli,
		       const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct import_entries entries;
	char sha[65], path[PATH_MAX];
	int rc = import_entries_parse(argv, argc, opt(cli, "stats-headers"), opt(cli, "import-dir"),
				      &entries, &err);
	if (!rc && !entries.n)
		rc = perun_error_set(&err, PERUN_EINVAL, "no import entry names a file");
	if (rc) {
		import_entries_release(&entries);
		return perun_error_exit(&err);
	}
	if (perun_instance_open(&inst, &err)) {
		import_entries_release(&entries);
		return perun_error_exit(&err);
	}
	struct perun_profile *profile = perun_profile_new("time");
	rc = profile ? 0 : perun_error_set(&err, PERUN_EGENERIC, "out of memory");
	if (!rc)
		rc = perun_resolve_minor(&inst, opt(cli, "minor-version"), sha, &err);
	for (size_t i = 0; !rc && i < entries.n; i++) {
		struct folded_stacks *t = folded_stacks_new();
		rc = t ? read_entry(kind, entries.entries[i].path, params, t, &err)
		       : perun_error_set(&err, PERUN_EGENERIC, "out of memory");
		if (!rc && folded_stacks_foreach(t, add_stack, profile))
			rc = perun_error_set(&err, PERUN_EGENERIC, "out of memory");
		folded_stacks_free(t);
	}
	if (!rc)
		rc = fill_profile(profile, cli, params, &entries, sha, &err);
	if (!rc && perun_params_bool(cli->outer_params, "save-to-index", 0)) {
		if (!inst.config.level[PERUN_CONFIG_RUNTIME])
			inst.config.level[PERUN_CONFIG_RUNTIME] = json_object();
		rc = perun_config_set(&inst.config, PERUN_CONFIG_RUNTIME,
				      "profiles.register_after_run", json_true(), &err);
	}
	if (!rc)
		rc = perun_runner_store(&inst, profile, opt(cli, "profile-name"), NULL, 0, path,
					&err);
	if (!rc)
		printf("Imported %zu resources from %zu %s into %s%s\n",
		       perun_profile_resource_count(profile), entries.n,
		       entries.n == 1 ? "file" : "files", path[0] ? "profile " : "the index",
		       path[0] ? path : "");
	perun_profile_free(profile);
	perun_instance_close(&inst);
	import_entries_release(&entries);
	return rc ? perun_error_exit(&err) : PERUN_EXIT_OK;
}

static int import_perf_record(const struct perun_command *cmd, struct perun_cli *cli,
			      const struct perun_params *params, int argc, char **argv)
{
	(void)cmd;
	return import_perf(PERF_RECORD, cli, params, argc, argv);
}

static int import_perf_script(const struct perun_command *cmd, struct perun_cli *cli,
			      const struct perun_params *params, int argc, char **argv)
{
	(void)cmd;
	return import_perf(PERF_SCRIPT, cli, params, argc, argv);
}

static int import_perf_stack(const struct perun_command *cmd, struct perun_cli *cli,
			     const struct perun_params *params, int argc, char **argv)
{
	(void)cmd;
	return import_perf(PERF_STACK, cli, params, argc, argv);
}

#define COLLAPSE_OPTIONS                                                                           \
	{ "pid",                                                                                   \
	  NULL,                                                                                    \
	  PERUN_OPTION_BOOL,                                                                       \
	  NULL,                                                                                    \
	  NULL,                                                                                    \
	  NULL,                                                                                    \
	  "the process frame is comm-pid (stackcollapse-perf.pl --pid)",                           \
	  0 },                                                                                     \
		{ "tid",                                                                           \
		  NULL,                                                                            \
		  PERUN_OPTION_BOOL,                                                               \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  "the process frame is comm-pid/tid (--tid)",                                     \
		  0 },                                                                             \
		{ "kernel",                                                                        \
		  NULL,                                                                            \
		  PERUN_OPTION_BOOL,                                                               \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  "kernel frames end in _[k] (--kernel)",                                          \
		  0 },                                                                             \
		{ "jit",                                                                           \
		  NULL,                                                                            \
		  PERUN_OPTION_BOOL,                                                               \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  "frames of /tmp/perf-<pid>.map end in _[j] (--jit)",                             \
		  0 },                                                                             \
		{ "all", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL, "--kernel and --jit", 0 },     \
		{ "addrs",                                                                         \
		  NULL,                                                                            \
		  PERUN_OPTION_BOOL,                                                               \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  "frames without a symbol show their address (--addrs)",                          \
		  0 },                                                                             \
		{ "srcline",                                                                       \
		  NULL,                                                                            \
		  PERUN_OPTION_BOOL,                                                               \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  "input of 'perf script -F+srcline': frames get file:line (--srcline)",           \
		  0 },                                                                             \
	{                                                                                          \
		"event-filter", NULL, PERUN_OPTION_STRING, NULL, NULL, "<event>",                  \
			"count this event's samples (default: the first event seen)", 0            \
	}

static const struct perun_option record_options[] = {
	{ "with-sudo", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "run 'perf script' through sudo (data recorded as root)", 0 },
	COLLAPSE_OPTIONS,
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct perun_option script_options[] = {
	COLLAPSE_OPTIONS,
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

#define ENTRY_HELP                                                                                 \
	"An entry is 'path[,exit_code[,stat_value...]]', the values in the order of\n"             \
	"--stats-headers, or a CSV file 'file.csv' whose first row is\n"                           \
	"'Profile,Exit_code,<stat header>...' and whose other rows are entries.\n"                 \
	"All entries make one profile (the collector_info says kperf, repeat = the\n"              \
	"number of entries).  Relative paths are read from --import-dir."

static const struct perun_command import_perf_record_cmd = {
	.name = "record",
	.fn = import_perf_record,
	.options = record_options,
	.args = "<entry>...",
	.summary = "import perf.data files (read through 'perf script -i')",
	.description =
		"Runs 'perf script -i <file>' for each perf.data file that 'perf record -g'\n"
		"wrote and collapses its output as 'perun import perf script' does.\n" ENTRY_HELP,
};

static const struct perun_command import_perf_script_cmd = {
	.name = "script",
	.fn = import_perf_script,
	.options = script_options,
	.args = "<entry>...",
	.summary = "import 'perf script' text files (plain or .gz)",
	.description = "Collapses the samples of 'perf script' output to stacks exactly as\n"
		       "stackcollapse-perf.pl does (its options are those here), in one pass\n"
		       "whose memory grows with the distinct stacks only.  A line that is\n"
		       "neither a sample header nor a frame is an error naming file and "
		       "line.\n" ENTRY_HELP,
};

static const struct perun_command import_perf_stack_cmd = {
	.name = "stack",
	.fn = import_perf_stack,
	.args = "<entry>...",
	.summary = "import folded stacks ('perf script | stackcollapse-perf.pl')",
	.description =
		"Reads lines 'process;outer;...;leaf <samples>' (plain or .gz).\n" ENTRY_HELP,
};

static const struct perun_command *const perf_subcommands[] = {
	&import_perf_record_cmd,
	&import_perf_script_cmd,
	&import_perf_stack_cmd,
	NULL,
};

static const struct perun_option perf_options[] = {
	{ "warmup", "w", PERUN_OPTION_INT, "0", NULL, "<int>",
	  "warm-up runs before the recorded ones (stored in collector_info)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct perun_command perun_import_perf = {
	.name = "perf",
	.options = perf_options,
	.subcommands = perf_subcommands,
	.summary = "import perf's samples as a kperf profile",
	.description = "perf record data, 'perf script' text or folded stacks become one\n"
		       "profile of the shape 'perun collect kperf' writes: a resource per\n"
		       "stack {amount: samples, uid: leaf function, command: process, trace:\n"
		       "callers root first}.",
};
