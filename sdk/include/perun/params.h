/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Parsed option values of a command or plugin.  The core parses the command
 * line and YAML against the declared struct perun_option table; plugins only
 * read.  Values are kept as JSON (they are stored in the profile as
 * collector_info.params / postprocessors[].params).
 */
#ifndef PERUN_PARAMS_H
#define PERUN_PARAMS_H

#include <jansson.h>
#include <perun/error.h>

/* New empty params; caller frees with perun_params_free. */
PERUN_API struct perun_params *perun_params_new(void);
PERUN_API void perun_params_free(struct perun_params *params);

/* The JSON object behind params, borrowed for the life of params. */
PERUN_API json_t *perun_params_json(const struct perun_params *params);

/* Return 1 if name was given (on the command line, YAML or by default). */
PERUN_API int perun_params_has(const struct perun_params *params, const char *name);
PERUN_API long long perun_params_int(const struct perun_params *params, const char *name,
				     long long fallback);
PERUN_API double perun_params_float(const struct perun_params *params, const char *name,
				    double fallback);
PERUN_API int perun_params_bool(const struct perun_params *params, const char *name, int fallback);
/* Borrowed string, valid while params lives; fallback when absent. */
PERUN_API const char *perun_params_string(const struct perun_params *params, const char *name,
					  const char *fallback);
/* The seed of a randomised computation: the value of the INT option name
 * when given, else one drawn from the system (so runs differ). */
PERUN_API unsigned long perun_params_seed(const struct perun_params *params, const char *name);
/* For MULTIPLE options: number of values and the i-th one (borrowed). */
PERUN_API size_t perun_params_count(const struct perun_params *params, const char *name);
PERUN_API const char *perun_params_string_at(const struct perun_params *params, const char *name,
					     size_t i);

/*
 * Set name from a textual value, checked and converted against its
 * declaration (MULTIPLE options append).  Used by the core's parsers.
 */
PERUN_API int perun_params_set_text(struct perun_params *params, const struct perun_option *decl,
				    const char *value, struct perun_error *err);
/* Set name from a JSON value (YAML), checked against its declaration. */
PERUN_API int perun_params_set_json(struct perun_params *params, const struct perun_option *decl,
				    json_t *value, struct perun_error *err);
/* Fill defaults for declared options not yet set; check required ones. */
PERUN_API int perun_params_finish(struct perun_params *params, const struct perun_option *decls,
				  const char *owner, struct perun_error *err);

/* Find a declaration by long or short name (without dashes); long names
 * match with '_' and '-' alike, as Perun spells some with '_'. */
PERUN_API const struct perun_option *perun_option_find(const struct perun_option *decls,
						       const char *name, int is_short);

#endif
