/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Layer 5 of libperun, the flattened form (profile_flatten.c): rows made
 * columns of resource types.  Private, not installed.  It rests on the
 * core (profile_core.h) and the writer (json_python.h); the whole form
 * (profile.c) includes it to convert legacy profiles.
 */
#ifndef PERUN_SDK_PROFILE_FLATTEN_H
#define PERUN_SDK_PROFILE_FLATTEN_H

#include <jansson.h>
#include <perun/error.h>

#include "json_python.h"
#include "profile_core.h"

/*
 * Add a list of unflattened resources, each extended by the keys of extra
 * (may be NULL).  snapshot is the snapshot number or -1, for messages.
 */
int profile_translate_legacy(struct perun_profile *p, json_t *list, json_t *extra, long snapshot,
			     const char *name, struct perun_error *err);

/*
 * The member key of the root of p, a profile holding taken columns, as the
 * dump writes it straight from them: 1 and *m set for "resources" and
 * "resource_type_map", 0 for the other keys or profiles.
 */
int profile_taken_member(const struct perun_profile *p, const char *key,
			 struct json_python_member *m);

#endif
