/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun fuzz: performance fuzzing.  The fuzzer itself is a plugin of kind
 * fuzz (--fuzzer, default "mutate"); the core only loads it and lends it
 * what it cannot do alone: profiling a workload with the chosen collector
 * and postprocessors, and judging a profile against a baseline with the
 * check methods of degradation.strategies.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cmd_util.h"
#include "command_list.h"
#include "runner.h"
#include "xalloc.h"

struct fuzz_unit {
	const struct perun_loaded_plugin *plugin;
	struct perun_params *params;
};

struct fuzz_host {
	struct perun_config *config;
	struct fuzz_unit collector;
	struct fuzz_unit *post;
	size_t npost;
	struct perun_check_ctx check;
	const char *cmd, *args, *origin;
	unsigned timeout;
};

static volatile int fuzz_interrupted;

static void on_fuzz_signal(int sig)
{
	fuzz_interrupted = sig;
	perun_note_interrupt(sig);
}

static int host_profile(void *data, const char *workload, struct perun_profile **out,
			struct perun_error *err)
{
	struct fuzz_host *h = data;
	struct perun_job job = {
		.cmd = h->cmd, .args = h->args, .workload = workload, .timeout = h->timeout
	};
	*out = NULL;
	if (perun_runner_collect(h->collector.plugin, h->collector.params, &job, h->origin, out,
				 err)) {
		/* The collector's own handler took the Ctrl-C; the fuzzer must
		 * see it too, to stop with its summary. */
		if (err->code == PERUN_EINTR)
			fuzz_interrupted =
				perun_runner_interrupted ? perun_runner_interrupted : SIGINT;
		return -err->code;
	}
	if (!*out)
		return perun_error_set(err, PERUN_ETOOL, "collector '%s' made no profile",
				       h->collector.plugin->name);
	for (size_t i = 0; i < h->npost; i++) {
		char warning[256];
		if (perun_runner_postprocess(h->post[i].plugin, h->post[i].params, *out, warning,
					     sizeof(warning), err)) {
			perun_profile_free(*out);
			*out = NULL;
			return -err->code;
		}
	}
	return 0;
}

static int host_compare(void *data, const struct perun_profile *baseline,
			const struct perun_profile *target, size_t *degradations, size_t *results,
			struct perun_error *err)
{
	struct fuzz_host *h = data;
	struct perun_check_report *r = &h->check.report;
	size_t first = r->nchanges;
	*degradations = *results = 0;
	if (perun_check_pair(&h->check, baseline, target, "seed", "mutant", NULL, NULL, err))
		return -err->code;
	for (size_t i = first; i < r->nchanges; i++) {
		enum perun_change c = r->changes[i].result;
		(*results)++;
		if (c == PERUN_CHANGE_DEGRADATION || c == PERUN_CHANGE_SEVERE_DEGRADATION ||
		    c == PERUN_CHANGE_TOTAL_DEGRADATION)
			(*degradations)++;
		perun_check_change_release(&r->changes[i]);
	}
	/* The verdicts are counted, not reported: a long run keeps none. */
	r->nchanges = first;
	return 0;
}

static void host_release(void *data, struct perun_profile *profile)
{
	(void)data;
	perun_profile_free(profile);
}

/* Options of a unit given as one string of words ("-r 3 -w 0"). */
static int unit_params(struct fuzz_unit *u, const char *words, struct perun_error *err)
{
	char *copy = perun_xstrdup(words ? words : "");
	char *argv[64];
	int argc = 0;
	for (char *save, *w = strtok_r(copy, " \t\n", &save); w && argc < 63;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	int rc = perun_runner_unit_params(u->plugin, argc, argv, NULL, &u->params, NULL, NULL, err);
	free(copy);
	return rc;
}

/* Without degradation.strategies anywhere, Perun's default method judges. */
static void default_strategy(struct perun_config *config)
{
	json_t *s = perun_config_gather(config, "degradation.strategies");
	int none = !s || !json_array_size(s);
	json_decref(s);
	if (!none)
		return;
	if (!config->level[PERUN_CONFIG_RUNTIME])
		config->level[PERUN_CONFIG_RUNTIME] = json_object();
	json_object_set_new(
		config->level[PERUN_CONFIG_RUNTIME], "degradation",
		json_pack("{s:[{s:s}]}", "strategies", "method", "average_amount_threshold"));
}

static int cmd_fuzz(const struct perun_command *cmd, struct perun_cli *cli,
		    const struct perun_params *params, int argc, char **argv)
{
	(void)cmd;
	(void)cli;
	(void)argv;
	struct perun_error err = { 0 };
	struct perun_instance inst = { 0 };
	struct perun_config shared = { 0 };
	struct fuzz_host h = { 0 };
	int have_inst = 0, have_shared = 0, have_check = 0, exit_code = PERUN_EXIT_OK;
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "fuzz: unexpected argument '%s'", argv[0]);
	const struct perun_loaded_plugin *fuzzer = perun_plugin_load(
		PERUN_KIND_FUZZ, perun_params_string(params, "fuzzer", "mutate"), &err);
	if (!fuzzer)
		return perun_error_exit(&err);
	/* Inside an instance its configuration decides the checks; outside
	 * one, the shared configuration does. */
	char cwd[4096];
	char *root = getcwd(cwd, sizeof(cwd)) ? perun_instance_locate(cwd) : NULL;
	char sha[65] = "";
	if (root) {
		free(root);
		if (perun_instance_open(&inst, &err))
			return perun_error_exit(&err);
		have_inst = 1;
		h.config = &inst.config;
		/* the profiles belong to --minor-version, resolved as elsewhere */
		if (perun_resolve_minor(&inst, perun_params_string(params, "minor-version", NULL),
					sha, &err))
			goto fail;
	} else {
		if (perun_config_init(&shared, NULL, &err))
			return perun_error_exit(&err);
		have_shared = 1;
		h.config = &shared;
	}
	default_strategy(h.config);
	if (perun_check_init(&h.check, h.config, NULL, &err))
		goto fail;
	have_check = 1;
	h.collector.plugin = perun_plugin_load(
		PERUN_KIND_COLLECT, perun_params_string(params, "collector", "time"), &err);
	if (!h.collector.plugin ||
	    unit_params(&h.collector, perun_params_string(params, "collector-params", ""), &err))
		goto fail;
	h.npost = perun_params_count(params, "postprocessor");
	h.post = perun_xcalloc(h.npost ? h.npost : 1, sizeof(*h.post));
	for (size_t i = 0; i < h.npost; i++) {
		h.post[i].plugin =
			perun_plugin_load(PERUN_KIND_POSTPROCESS,
					  perun_params_string_at(params, "postprocessor", i), &err);
		const char *pp = i < perun_params_count(params, "postprocessor-params")
					 ? perun_params_string_at(params, "postprocessor-params", i)
					 : "";
		if (!h.post[i].plugin || unit_params(&h.post[i], pp, &err))
			goto fail;
	}
	h.cmd = perun_params_string(params, "cmd", "");
	h.args = perun_params_string(params, "args", "");
	h.origin = *sha ? sha : perun_params_string(params, "minor-version", "HEAD");
	double hang = perun_params_float(params, "hang-timeout", 10);
	/* A profile repeats the run; a mutant that did not hang once gets
	 * ample time, but never forever. */
	h.timeout = (unsigned)(hang * 30 + 1);

	struct perun_fuzz_host host = {
		.size = sizeof(host),
		.data = &h,
		.profile = host_profile,
		.compare = host_compare,
		.release = host_release,
	};
	struct perun_fuzz_ctx ctx = {
		.size = sizeof(ctx),
		.params = params,
		.host = &host,
		.interrupted = &fuzz_interrupted,
		.progress = isatty(STDERR_FILENO) ? stderr : NULL,
	};
	struct sigaction sa = { .sa_handler = on_fuzz_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	const struct perun_fuzz_ops *ops = fuzzer->desc->ops;
	int rc = ops->fuzz(&ctx, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc)
		goto fail;
	/* the summary is out; an interrupted run still says so */
	if (fuzz_interrupted)
		exit_code = perun_interrupt_exit();
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	perun_params_free(h.collector.params);
	for (size_t i = 0; i < h.npost; i++)
		perun_params_free(h.post[i].params);
	free(h.post);
	if (have_check)
		perun_check_release(&h.check);
	if (have_inst)
		perun_instance_close(&inst);
	if (have_shared)
		perun_config_release(&shared);
	return exit_code;
}

static const struct perun_option fuzz_options[] = {
	{ "cmd", "b", PERUN_OPTION_STRING, NULL, NULL, "<cmd>", "the program to fuzz",
	  PERUN_OPTION_REQUIRED },
	{ "args", "a", PERUN_OPTION_STRING, NULL, NULL, "<args>",
	  "its arguments, before the input file", 0 },
	{ "input-sample", "w", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "a seed file, or a directory of seeds (recursive)",
	  PERUN_OPTION_REQUIRED | PERUN_OPTION_MULTIPLE },
	{ "fuzzer", "f", PERUN_OPTION_STRING, "mutate", NULL, "<name>",
	  "the fuzz plugin that does the fuzzing", 0 },
	{ "collector", "c", PERUN_OPTION_STRING, "time", NULL, "<name>",
	  "collector profiling the candidates", 0 },
	{ "collector-params", "cp", PERUN_OPTION_STRING, NULL, NULL, "<options>",
	  "the collector's options, e.g. \"--repeat 3 --warmup 0\"", 0 },
	{ "postprocessor", "p", PERUN_OPTION_STRING, NULL, NULL, "<name>",
	  "postprocessor applied to each profile", PERUN_OPTION_MULTIPLE },
	{ "postprocessor-params", "pp", PERUN_OPTION_STRING, NULL, NULL, "<options>",
	  "options of the postprocessor of the same position", PERUN_OPTION_MULTIPLE },
	{ "minor-version", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version the profiles are of (in an instance; default HEAD)", 0 },
	{ "workloads-filter", "wf", PERUN_OPTION_STRING, NULL, NULL, "<regex>",
	  "take only seeds whose name matches <regex>", 0 },
	{ "skip-coverage-testing", NULL, PERUN_OPTION_BOOL, "0", NULL, NULL,
	  "judge mutants by their run time, not by gcov coverage", 0 },
	{ "coverage-reader", NULL, PERUN_OPTION_CHOICE, "gcov", "gcov|gcda", NULL,
	  "gcov: gcov's line counts; gcda: the arc counters read in process (faster)", 0 },
	{ "source-path", "s", PERUN_OPTION_STRING, ".", NULL, "<dir>",
	  "where the program's sources are", 0 },
	{ "gcno-path", "g", PERUN_OPTION_STRING, ".", NULL, "<dir>",
	  "where its .gcno/.gcda files are", 0 },
	{ "output-dir", "o", PERUN_OPTION_STRING, NULL, NULL, "<dir>",
	  "where results go (hangs/, faults/, diffs/, graphs/, logs/)", PERUN_OPTION_REQUIRED },
	{ "timeout", "t", PERUN_OPTION_FLOAT, "1800", NULL, "<seconds>",
	  "stop fuzzing after <seconds>", 0 },
	{ "hang-timeout", "ht", PERUN_OPTION_FLOAT, "10", NULL, "<seconds>",
	  "a run longer than this is a hang", 0 },
	{ "max-size", "N", PERUN_OPTION_INT, NULL, NULL, "<bytes>", "mutants are cut to <bytes>",
	  0 },
	{ "max-size-increase", "mi", PERUN_OPTION_INT, "1000000", NULL, "<bytes>",
	  "mutants grow at most <bytes> beyond the largest seed", 0 },
	{ "max-size-ratio", "mp", PERUN_OPTION_FLOAT, NULL, NULL, "<ratio>",
	  "mutants grow at most to <ratio> times the largest seed", 0 },
	{ "exec-limit", "e", PERUN_OPTION_INT, "100", NULL, "<n>",
	  "executions per round of mutation", 0 },
	{ "interesting-files-limit", "l", PERUN_OPTION_INT, "20", NULL, "<n>",
	  "candidates per round that end it early", 0 },
	{ "coverage-increase-rate", "cr", PERUN_OPTION_FLOAT, "1.5", NULL, "<rate>",
	  "coverage a mutant must exceed, relative to the seeds'", 0 },
	{ "mutations-per-rule", "mpr", PERUN_OPTION_CHOICE, "mixed",
	  "unitary|proportional|probabilistic|mixed", NULL,
	  "how many mutants each rule makes of a parent", 0 },
	{ "regex-rules", "r", PERUN_OPTION_STRING, NULL, NULL, "<yaml>",
	  "extra rules: a YAML mapping of regex to replacement", 0 },
	{ "no-plotting", "np", PERUN_OPTION_BOOL, "0", NULL, NULL, "write no graphs", 0 },
	{ "seed", NULL, PERUN_OPTION_INT, NULL, NULL, "<n>",
	  "seed of the random choices; the mutants repeat exactly (see above)", 0 },
	{ "max-executions", NULL, PERUN_OPTION_INT, "0", NULL, "<n>",
	  "stop after <n> executions (0: no limit)", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_fuzz = {
	.name = "fuzz",
	.fn = cmd_fuzz,
	.options = fuzz_options,
	.summary = "find inputs that slow a program down",
	.description = "Mutates the input samples with rules modelled on real performance\n"
		       "bugs, keeps mutants that raise gcov coverage (or, with\n"
		       "--skip-coverage-testing, run time), profiles them with the collector\n"
		       "and keeps those the check methods of degradation.strategies find\n"
		       "degraded against their seed.  Results go to --output-dir.\n"
		       "\n"
		       "With --seed, a run with the same options and seeds makes the same\n"
		       "mutants in the same order (logs/executions.log names each by size and\n"
		       "content hash), whatever the load of the machine: gcov counts are\n"
		       "exact, and the verdicts of the check methods, which rest on measured\n"
		       "time, only decide which candidates are findings and no longer raise\n"
		       "a mutant's fitness or its rule's count.  What stays load-dependent:\n"
		       "those verdicts (so the findings and the slowdowns reported), the\n"
		       "--hang-timeout verdict of a run that takes about that long, where a\n"
		       "--timeout cuts the run, and with --skip-coverage-testing which\n"
		       "mutants are candidates, as CPU time then stands in for coverage.",
};
