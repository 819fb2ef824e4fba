/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef PERUN_SDK_PROFILE_INTERNAL_H
#define PERUN_SDK_PROFILE_INTERNAL_H

#include <perun/profile.h>
#include <perun/strbuf.h>

struct perun_profile {
	json_t *root;
	/* Built on the first add: persistent-tuple key -> resource type id,
	 * and flattened uid -> next free counter. */
	json_t *tuple_index;
	json_t *uid_counter;
	/* The tuple key of the row being added, kept between rows. */
	struct perun_strbuf tuple;
};

/*
 * Add a list of unflattened resources, each extended by the keys of extra
 * (may be NULL).  snapshot is the snapshot number or -1, for messages.
 */
int profile_translate_legacy(struct perun_profile *p, json_t *list,
			     json_t *extra, long snapshot, const char *name,
			     struct perun_error *err);

#endif
