/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Layer 6 of libperun, the whole (tree) form (profile.c): what the layers
 * above it, the streamed form (profile_stream.c) and the dumper
 * (profile_dump.c), use of it.  Private, not installed.  It rests on the
 * core (profile_core.h); no lower layer includes it.
 */
#ifndef PERUN_SDK_PROFILE_TREE_H
#define PERUN_SDK_PROFILE_TREE_H

#include <stddef.h>
#include <perun/profile.h>

#include "profile_core.h"
#include "reader.h"

/*
 * The profile of a read text's tape (taken over whatever happens; *out's
 * tape is empty when the profile is all tree).  map_read 0: the
 * resource_type_map is still to be read (a streamed load), so the
 * resources are checked only as far as they can be without it.
 */
int profile_of_tape(struct json_tape *tape, const char *name, int map_read,
		    struct perun_profile **out, struct perun_error *err);

/* perun_profile_foreach_type over a profile loaded whole, from the from-th
 * type of its map on. */
int profile_foreach_type_from(const struct perun_profile *p, size_t from, perun_type_fn fn,
			      void *data, struct perun_error *err);

#endif
