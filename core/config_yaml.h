/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * YAML files as JSON trees: loading (YAML 1.1 typing of plain scalars, as
 * PyYAML's safe_load), saving atomically and one-line formatting.
 */
#ifndef PERUN_CORE_CONFIG_YAML_H
#define PERUN_CORE_CONFIG_YAML_H

#include <perun/perun.h>

/* Parse a command-line value the way YAML would type it; new reference. */
json_t *perun_config_parse_scalar(const char *text);

/* Read YAML text into JSON (*out a new reference); the error names the
 * line but not the text, which the caller names. */
int perun_yaml_load(const char *buf, size_t len, json_t **out, struct perun_error *err);
/* Read a YAML file into JSON; *out is a new reference. */
int perun_yaml_load_file(const char *path, json_t **out, struct perun_error *err);
int perun_yaml_load_buffer(const char *buf, size_t len, const char *name, json_t **out,
			   struct perun_error *err);
/* Write JSON as YAML atomically. */
int perun_yaml_save_file(const char *path, const json_t *value, struct perun_error *err);

/* One-line text of value: strings as they are, numbers and booleans as
 * YAML writes them, lists and mappings in YAML flow style.  Caller frees. */
char *perun_yaml_format_inline(const json_t *value);

/* Does the plain scalar s (len bytes) read back as the string itself
 * (not a number, boolean, null or date)? */
int perun_yaml_plain_is_string(const char *s, size_t len);

#endif
