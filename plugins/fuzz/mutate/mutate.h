/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The mutate fuzzer's shared state: runs, coverage, the report. */
#ifndef PERUN_FUZZ_MUTATE_H
#define PERUN_FUZZ_MUTATE_H

#include <regex.h>
#include <stdio.h>

#include <perun/perun.h>

#include "rules.h"

/* One input: a seed or a mutant kept as a parent or a finding. */
struct mut_input {
	char *name;	     /* file name, e.g. "words-3f2a....txt" */
	char *path;	     /* where it is on disk */
	struct mut_buf data; /* its bytes (parents only; others empty) */
	size_t seed;	     /* index of its seed */
	double cov;	     /* coverage count, or CPU seconds without coverage */
	double time;	     /* CPU seconds of one run */
	double fitness;
	double deg_ratio;
	size_t depth;	/* rule applications since the seed */
	char trail[96]; /* the last rules applied, "T.1 T.5 ..." */
	int rule;	/* the last rule (index into the rule set), -1 for seeds */
};

enum mut_run_result {
	MUT_RUN_OK = 0,
	MUT_RUN_FAULT = 1, /* non-zero exit or killed by a signal */
	MUT_RUN_HANG = 2,  /* ran longer than --hang-timeout */
};

struct mut_runner {
	char **argv; /* cmd words, args words, then the input (last slot) */
	size_t argc, argv_cap;
	double hang_timeout;
	/* gcov coverage; gcno_dir NULL when skipped */
	const char *gcno_dir;
	char **gcno; /* .gcno files */
	size_t ngcno, gcno_cap;
	int gcda; /* read .gcda arc counters in process instead of gcov */
	const volatile int *interrupted;
};

/* Split cmd and args into argv and check that the program exists. */
int mut_runner_init(struct mut_runner *run, const char *cmd, const char *args,
		    struct perun_error *err);
void mut_runner_release(struct mut_runner *run);
/* Find the .gcno files under dir; an error when there is none. */
int mut_runner_coverage(struct mut_runner *run, const char *dir, struct perun_error *err);
/* Run the program on input: *cpu gets its user+system seconds, *cov the
 * summed gcov line counts of this run (0 without coverage). */
int mut_runner_run(struct mut_runner *run, const char *input, enum mut_run_result *result,
		   double *cpu, double *cov, struct perun_error *err);

/* A point of a time series. */
struct mut_sample {
	double t, value;
};

struct mut_report {
	const char *out_dir;
	int plotting;
	double elapsed;
	size_t executions, hangs, faults, degradations;
	double max_cov_ratio;
	struct mut_sample *cov_ts, *deg_ts;
	size_t nts;
	const struct mut_ruleset *rules;
	size_t *rule_tries;	     /* mutants made per rule */
	struct mut_input **findings; /* degrading mutants, worst first */
	size_t nfindings;
	const struct mut_input *seeds;
	double *seed_time;  /* re-measured CPU seconds of each finding's seed */
	double *found_time; /* and of the finding */
	int interrupted;
};

/* HTML diff of a mutant against its seed into diffs/<name>-diff.html. */
int mut_report_diff(const char *out_dir, const struct mut_input *seed,
		    const struct mut_input *mutant, struct perun_error *err);
/* logs/, graphs/ and the summary on out. */
int mut_report_write(const struct mut_report *rep, FILE *out, struct perun_error *err);

#endif
