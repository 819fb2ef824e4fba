/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The JSON documents of the commands' --format json, made by the code of
 * the commands themselves and shared with perun serve's API, so that the
 * two never differ.
 */
#ifndef PERUN_CORE_JSON_REPORTS_H
#define PERUN_CORE_JSON_REPORTS_H

#include <jansson.h>

#include "instance.h"
#include "profiles.h"

/* perun log --format json [rev]: the history from rev (NULL: HEAD). */
int perun_log_json(struct perun_instance *inst, const char *rev, json_t **out,
		   struct perun_error *err);

/* perun status --format json: one profile as its lists show it (id is
 * its tag, "0@i"), and a whole list tagged N@<id_char>. */
json_t *perun_profile_info_json(const struct perun_profile_info *info, const char *id);
json_t *perun_profile_list_json(const struct perun_profile_list *list, char id_char);

#endif
