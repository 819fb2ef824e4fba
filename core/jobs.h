/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running profiling jobs over minor versions: the version loop shared by
 * perun collect and perun run (save dirty work, check out each version,
 * run execute.pre_run, run the jobs, restore the original branch and
 * working tree also on failure or SIGINT/SIGTERM), and the job matrix of
 * perun run (commands x arguments x workloads x collectors, each followed
 * by every postprocessor in order).
 */
#ifndef PERUN_CORE_JOBS_H
#define PERUN_CORE_JOBS_H

#include <stdio.h>

#include "instance.h"
#include "plugin_loader.h"

struct perun_versions {
	const char *const *revs; /* minor versions; none means HEAD */
	size_t nrevs;
	int crawl_parents;     /* also every ancestor of each rev */
	const json_t *pre_run; /* list of shell commands, or NULL */
	FILE *log;	       /* pre_run output goes here; NULL: stderr */
	/* Called at each version with it checked out; return < 0 to stop the
	 * loop (e.g. interrupted). */
	int (*at_version)(const char *sha, size_t index, size_t count, void *data);
	/* Called when a version cannot be checked out or its pre_run fails;
	 * the loop goes on with the next version. */
	void (*version_failed)(const char *sha, const struct perun_error *err, void *data);
	/* When not NULL: is version index (of count) to be visited at all?
	 * One that is not is neither checked out nor pre_run. */
	int (*wanted)(size_t index, size_t count, void *data);
	void *data;
	/* Visit the versions this many times (0 or 1: once), every other
	 * round in reverse order (A B, B A, A B ...), so that a drift of the
	 * machine over time falls alike on every version.  The round being
	 * visited is written to *round when round is not NULL. */
	size_t rounds;
	size_t *round;
};

/*
 * Run v->at_version at every version of v.  A version that is HEAD runs
 * in place; for the others the state is saved once, each is checked out
 * and the saved branch and changes are restored at the end, whatever
 * happened: by this process, or by its supervisor (supervise.h) should
 * it die by a signal.  Returns 0, or a negative code when the versions cannot be
 * resolved, the state cannot be saved or restored, or the run was
 * interrupted (PERUN_EINTR).
 */
int perun_jobs_each_version(struct perun_instance *inst, const struct perun_versions *v,
			    struct perun_error *err);

/*
 * Run cmd with /bin/sh in dir (NULL: here), its stdout and stderr to
 * out_fd, in its own process group, which SIGINT/SIGTERM of the run stop.
 * Fails when it exits non-zero or is killed.
 */
int perun_jobs_shell(const char *cmd, const char *dir, int out_fd, struct perun_error *err);

/* One collector or postprocessor with its checked parameters. */
struct perun_unit {
	const struct perun_loaded_plugin *plugin; /* borrowed from the loader */
	struct perun_params *params;		  /* owned */
};

struct perun_matrix {
	char **cmds, **args, **workloads; /* owned lists; args and workloads
					   * hold at least "" */
	size_t ncmds, nargs, nworkloads;
	struct perun_unit *collectors, *postprocessors; /* owned */
	size_t ncollectors, npostprocessors;
};

/* Add a word to one of the matrix lists (a copy). */
int perun_matrix_add_word(char ***list, size_t *n, const char *word, struct perun_error *err);
/* Load unit name of kind and parse its params (YAML mapping, may be NULL;
 * words from the command line argc/argv) into the matrix. */
int perun_matrix_add_unit(struct perun_matrix *m, enum perun_plugin_kind kind, const char *name,
			  const json_t *yaml, struct perun_error *err);
/* Fill the matrix from local.yml: cmds, args, workloads, collectors,
 * postprocessors (each {name, params}). */
int perun_matrix_from_config(struct perun_matrix *m, const struct perun_config *cfg,
			     struct perun_error *err);
void perun_matrix_release(struct perun_matrix *m);

/* Options of a run of the matrix. */
struct perun_run_opts {
	const char *const *revs;
	size_t nrevs;
	int crawl_parents;
	const char *profile_template; /* NULL: format.output_profile_template */
	int progress;		      /* show progress on stderr (a terminal) */
	unsigned timeout;	      /* seconds per collection, 0: none */
	/* Shard shard_index (0-based) of shard_count: of the jobs numbered
	 * over versions x commands x args x workloads x collectors in this
	 * order, only those whose number modulo shard_count is shard_index
	 * run.  shard_count 0 or 1: every job. */
	size_t shard_index, shard_count;
	/* Interleaved rounds (perun_versions.rounds): each job's profile of a
	 * version gathers its collections of every round, and is stored
	 * after the last one, marked with the run (header interleaved_run)
	 * so that perun check pairs it with the baseline of the same run. */
	size_t rounds;
};

/* Parse "I/N" (1 <= I <= N) into a 0-based index and a count. */
int perun_shard_parse(const char *text, size_t *index, size_t *count, struct perun_error *err);

/* Outcome of a run; failures lists "version job: reason" lines. */
struct perun_run_result {
	size_t jobs, failed, stored;
	size_t kept_raw;       /* raw profiles kept pending after a failed postprocessor */
	size_t usage_failures; /* failures caused by bad options or input */
	int interrupted;
	char *log_path;	 /* .perun/logs/<...>.log, owned */
	char **failures; /* owned */
	size_t nfailures;
};

/*
 * Run matrix m at every version of opts with execute.pre_run and the
 * workload generators of the configuration, filing every profile with
 * perun_runner_store.  Returns 0 when the loop ran (failed jobs are
 * counted in *res), negative on a fatal error.
 */
int perun_jobs_run(struct perun_instance *inst, const struct perun_matrix *m,
		   const struct perun_run_opts *opts, struct perun_run_result *res,
		   struct perun_error *err);
void perun_run_result_release(struct perun_run_result *res);

#endif
