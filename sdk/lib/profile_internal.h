/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef PERUN_SDK_PROFILE_INTERNAL_H
#define PERUN_SDK_PROFILE_INTERNAL_H

#include <perun/profile.h>
#include <perun/strbuf.h>

#include "internal.h"

struct perun_profile {
	/* The tree; while text is set, its "resources" and
	 * "resource_type_map" are empty placeholders and the real ones are
	 * in the tape (profile_tree makes them a tree on first need). */
	json_t *root;
	char *text;                        /* owned; the tape's strings */
	struct json_tape tape;
	uint32_t resources, types;         /* their nodes in the tape */
	char *old_text;                    /* text and tape once the tree */
	struct json_tape old_tape;         /* replaced them, freed with it */
	int same_order;                    /* both list the same ids in the
					    * same order */
	struct profile_stream *stream;     /* perun_profile_load_file_streamed:
					    * the map's text, read on a walk */
	/* Built on the first add: persistent-tuple key -> resource type id,
	 * and flattened uid -> next free counter. */
	json_t *tuple_index;
	json_t *uid_counter;
	/* The tuple key of the row being added, kept between rows. */
	struct perun_strbuf tuple;
};

/* Members of a big object by key: slots hold the key node's offset + 1. */
struct member_index {
	uint32_t *slots;
	size_t mask;
};

/*
 * Walks one object's members while another is walked by key, as both are
 * usually written in the same order (resources and resource_type_map): the
 * next member is tried first, an index of the object only built when it is
 * not the one.
 */
struct member_cursor {
	const struct perun_jv *object, *next_key;
	size_t left;
	int trusted;    /* the keys asked for are known to come in order */
	struct member_index index;
};

/* trusted: the keys will be asked for in the object's own order, all of
 * them (the two halves of a profile with same_order): none is compared. */
void member_cursor_init(struct member_cursor *c, const struct perun_jv *object, int trusted);
/* The value of key (a string node), or NULL; -1 in *oom without memory. */
const struct perun_jv *member_cursor_find(struct member_cursor *c, const struct perun_jv *key,
					  int *oom);
void member_cursor_release(struct member_cursor *c);

/*
 * The profile of a read text's tape (taken over whatever happens; *out's
 * tape is empty when the profile is all tree).  map_read 0: the
 * resource_type_map is still to be read (a streamed load), so the
 * resources are checked only as far as they can be without it.
 */
int profile_of_tape(struct json_tape *tape, const char *name, int map_read,
		    struct perun_profile **out, struct perun_error *err);
/* One resource's columns: equally long lists. */
int validate_columns(const char *type_id, const struct perun_jv *columns, const char *name,
		     struct perun_error *err);

/* A streamed load's map (profile_stream.c). */
extern const struct perun_jv profile_empty_object;
/*
 * Walk the types of a streamed profile that has not been loaded the usual
 * way.  Returns fn's non-zero return or an error; 0 with *walked SIZE_MAX
 * when all were walked; 0 with the number walked when the stream could not
 * go on and p is now loaded the usual way (0 when p is no such profile):
 * the caller walks the rest there.
 */
int profile_stream_foreach_type(const struct perun_profile *p, perun_type_fn fn, void *data,
				size_t *walked, struct perun_error *err);
/*
 * Load a streamed profile the usual way, for readers other than
 * perun_profile_foreach_type: 0, or -1 when that fails (the profile then
 * has no resources, and profile_stream_error says why).
 */
int profile_settle(const struct perun_profile *p);
int profile_stream_error(const struct perun_profile *p, struct perun_error *err);
/* Whether text is the stream's (the file's mapping), not the heap's. */
int profile_stream_owns(const struct perun_profile *p, const char *text);
void profile_stream_free(struct perun_profile *p);

/* p->root with every part a tree (aborts when memory runs out). */
json_t *profile_tree(const struct perun_profile *p);

/*
 * Add a list of unflattened resources, each extended by the keys of extra
 * (may be NULL).  snapshot is the snapshot number or -1, for messages.
 */
int profile_translate_legacy(struct perun_profile *p, json_t *list,
			     json_t *extra, long snapshot, const char *name,
			     struct perun_error *err);

#endif
