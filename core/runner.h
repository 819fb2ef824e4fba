/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running units: a collector's before -> collect -> after phases with
 * teardown always run (also on a signal), a postprocessor's before ->
 * postprocess -> after on a loaded profile, and filing the resulting
 * profile as a pending profile (or straight into the index when
 * profiles.register_after_run is set).
 */
#ifndef PERUN_CORE_RUNNER_H
#define PERUN_CORE_RUNNER_H

#include "instance.h"
#include "plugin_loader.h"

struct perun_job {
	const char *cmd;
	const char *args;
	const char *workload;
	/* Stop the collection after this many seconds (0: never): the
	 * collector is told as on SIGINT and the unit fails as timed out. */
	unsigned timeout;
};

/*
 * Run collector (a loaded collect plugin) with params for job; origin is
 * the minor version the profile belongs to.  *out is a new profile with
 * header, collector_info, machine and origin filled in, or NULL when the
 * collector made none on purpose (perun_collect_ctx.no_profile).
 */
int perun_runner_collect(const struct perun_loaded_plugin *collector,
			 const struct perun_params *params, const struct perun_job *job,
			 const char *origin, struct perun_profile **out, struct perun_error *err);

/*
 * Run postprocessor (a loaded postprocess plugin) with params on profile,
 * which is changed in place: before, postprocess, after.  On success the
 * unit is appended to the profile's postprocessors and warning (warning_len
 * bytes) holds what the phases warned about, "" when nothing.  A phase
 * warns by succeeding with a message left in its struct perun_error.
 */
int perun_runner_postprocess(const struct perun_loaded_plugin *postprocessor,
			     const struct perun_params *params, struct perun_profile *profile,
			     char *warning, size_t warning_len, struct perun_error *err);

/*
 * Parse a collector's or postprocessor's options: words from the command
 * line after its name, then YAML/JSON params (may be NULL) for what the
 * words left unset, then defaults.  *out is owned by the caller.  Words
 * that are not options go to *words and *nwords (pointing into argv), or are
 * an error when words is NULL.
 */
int perun_runner_unit_params(const struct perun_loaded_plugin *unit, int argc, char **argv,
			     const json_t *yaml_params, struct perun_params **out, char ***words,
			     int *nwords, struct perun_error *err);

/* A collection's timeout: --timeout when params has one, else the
 * configuration's execute.timeout, else 0 (none); negative is an error. */
int perun_runner_timeout(const struct perun_params *params, const struct perun_config *config,
			 unsigned *timeout, struct perun_error *err);

enum perun_store_flags {
	/* Pending whatever profiles.register_after_run says (a raw profile
	 * kept after its postprocessing failed). */
	PERUN_STORE_PENDING = 1u << 0,
};

/*
 * File profile: name it from template (NULL: format.output_profile_template)
 * or use name as given, write it to .perun/jobs atomically and register it
 * in the pending index; with register_after_run (and not
 * PERUN_STORE_PENDING) add it to the index of its origin instead.
 * path_out (optional, PATH_MAX) gets the pending file, or "" when the
 * profile went into the index.
 */
int perun_runner_store(struct perun_instance *inst, struct perun_profile *profile, const char *name,
		       const char *template, unsigned flags, char *path_out,
		       struct perun_error *err);

/* Expand a profile name template (Perun's tags); caller frees. */
char *perun_profile_name_dup(const struct perun_profile *profile, const char *tmpl,
			     struct perun_error *err);

/* This machine as Python Perun describes it (architecture, system, cpu,
 * memory, ...): the "machine" part of a profile; NULL without memory. */
json_t *perun_runner_machine_info(void);

/* Set by the signal handler while a unit runs. */
extern volatile int perun_runner_interrupted;

#endif
