/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Workload generators (config generators.workload): a job's workload that
 * equals a generator's id is expanded by it (integer, string, textfile,
 * singleton, external); any other workload is a singleton of itself.
 */
#ifndef PERUN_CORE_WORKLOAD_H
#define PERUN_CORE_WORKLOAD_H

#include "config.h"

struct perun_workload_gen;

/*
 * Open the generator for workload: the generators.workload entry whose id
 * is workload, else a singleton.  tmpdir holds generated files (textfile).
 * *out is owned by the caller (perun_workload_close).
 */
int perun_workload_open(const struct perun_config *cfg, const char *workload, const char *tmpdir,
			struct perun_workload_gen **out, struct perun_error *err);

/*
 * The next workload: *text is what the command gets (a file's path for
 * textfile and external), *value the value itself (a number for integer),
 * *ctx an object of properties parsed for it (external; may be empty).
 * All are borrowed until the next call.  *done is set after the last.
 */
int perun_workload_next(struct perun_workload_gen *gen, const char **text, const json_t **value,
			const json_t **ctx, int *done, struct perun_error *err);

/* Was the workload a generator's id (not a plain singleton)? */
int perun_workload_is_generated(const struct perun_workload_gen *gen);
/* profile_for_each_workload: one profile per value rather than one merged. */
int perun_workload_for_each(const struct perun_workload_gen *gen);

/* Remove generated files and free gen (NULL is fine). */
void perun_workload_close(struct perun_workload_gen *gen);

#endif
