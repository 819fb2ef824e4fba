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

/* perun log --format json [rev]: the history from rev (NULL: HEAD). */
int perun_log_json(struct perun_instance *inst, const char *rev, json_t **out,
		   struct perun_error *err);

#endif
