/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Configuration: the local .perun/local.yml, the shared
 * $PERUN_CONFIG_DIR/shared.yml (default ~/.config/perun/shared.yml) and a
 * runtime level in memory.  Values are kept as JSON trees (YAML mappings,
 * sequences and typed scalars).  Keys are dot paths ("format.status").
 */
#ifndef PERUN_CORE_CONFIG_H
#define PERUN_CORE_CONFIG_H

#include <perun/perun.h>

#include "config_yaml.h"

enum perun_config_level {
	PERUN_CONFIG_RUNTIME = 0,
	PERUN_CONFIG_LOCAL = 1,
	PERUN_CONFIG_SHARED = 2,
};

struct perun_config {
	json_t *level[3]; /* owned; NULL when that level is absent */
	char *path[3];	  /* file of local and shared; NULL for runtime */
};

/*
 * Load the shared config (created with Perun's defaults when missing) and,
 * when local_path is not NULL, the local one.  Caller releases with
 * perun_config_release.
 */
int perun_config_init(struct perun_config *cfg, const char *local_path, struct perun_error *err);
void perun_config_release(struct perun_config *cfg);

/* Is key a valid dot path ([a-zA-Z0-9_]+ separated by dots)? */
int perun_config_key_valid(const char *key);

/* First hit runtime -> local -> shared; borrowed, NULL when absent. */
json_t *perun_config_lookup(const struct perun_config *cfg, const char *key);
/* The value at one level only; borrowed. */
json_t *perun_config_get(const struct perun_config *cfg, enum perun_config_level level,
			 const char *key);
/* A string value from lookup, or fallback. */
const char *perun_config_lookup_string(const struct perun_config *cfg, const char *key,
				       const char *fallback);
/* All list values of key over every level, concatenated; caller decrefs. */
json_t *perun_config_gather(const struct perun_config *cfg, const char *key);

/* Set key at level (value is stolen) and save that level's file. */
int perun_config_set(struct perun_config *cfg, enum perun_config_level level, const char *key,
		     json_t *value, struct perun_error *err);
/* Run $EDITOR (else general.editor, else vi) on path and wait for it. */
int perun_config_run_editor(const struct perun_config *cfg, const char *path,
			    struct perun_error *err);
/* Check that path reads as a configuration file (a YAML mapping). */
int perun_config_check_file(const char *path, struct perun_error *err);

/*
 * Call fn for each key of the local configuration that Perun does not read
 * (e.g. "degradation.strategy" for "strategies"); hint is "; did you mean
 * '...'?" or "".  Under degradation, where check methods' options live,
 * only near misses of known keys are reported.
 */
typedef void (*perun_config_key_fn)(const char *key, const char *hint, void *data);
void perun_config_unknown_keys(const struct perun_config *cfg, perun_config_key_fn fn, void *data);

/* Write Perun's shared defaults to path (creating its directory). */
int perun_config_reset_shared(const char *path, struct perun_error *err);

/*
 * Text of the local config for a template: "master", "developer", "user"
 * (see perun init -t); vcs_type/vcs_url fill the vcs section.  "user" runs
 * make and looks for executables and workloads below the current
 * directory, as Perun does.  Caller frees.  Returns NULL for an unknown
 * template.
 */
char *perun_config_template_dup(const char *name, const char *vcs_type, const char *vcs_url);

#endif
