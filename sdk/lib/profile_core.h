/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Layer 2 of libperun, the profile core (profile_core.c): what every form
 * of a profile shares.  Private, not installed.  It rests on the reader
 * (reader.h) and the public base; the writer (json_python.h), the forms
 * (profile_flatten.h, profile_tree.h, profile_stream.c) and the dumper
 * (profile_dump.c) include it, never the other way round.
 *
 * A profile is in one of three forms, chosen when it is loaded or made:
 *   - whole: the tree (p->root) with, while p->text is set, the resources
 *     and resource_type_map still in the tape (profile_tree makes them a
 *     tree, on a non-const profile only);
 *   - streamed (profile_stream.c): the resource_type_map is read during
 *     each walk and never kept;
 *   - taken columns (profile_flatten.c): a collector's columns kept as
 *     they are until the dump writes them, or a reader makes them the tape.
 * The core and the forms below reach the upper forms only through p->form
 * (struct profile_form), which their makers set: a lower layer never calls
 * a higher one by name.  A reader given a const profile never changes its
 * form, but for taken columns, which settle into the tape in place
 * (profile_settle): a streamed one is read whole into a profile of the
 * reader's own (profile_read_whole).
 */
#ifndef PERUN_SDK_PROFILE_CORE_H
#define PERUN_SDK_PROFILE_CORE_H

#include <stdint.h>
#include <string.h>
#include <jansson.h>
#include <perun/error.h>
#include <perun/profile.h>
#include <perun/strbuf.h>

#include "reader.h"

struct profile_stream;
struct columns_of_types;

/* A form above the core that a profile is in (streamed, taken columns). */
struct profile_form {
	/* perun_profile_foreach_type, the whole walk; NULL for a form that
	 * settles (the walk is then the settled profile's). */
	int (*foreach_type)(const struct perun_profile *p, perun_type_fn fn, void *data,
			    struct perun_error *err);
	/* p read whole: *out NULL when p itself is whole (it was made so),
	 * else a profile of the caller's own (perun_profile_free).  0, or a
	 * negative code with err when the load fails. */
	int (*load_copy)(const struct perun_profile *p, struct perun_profile **out,
			 struct perun_error *err);
	/* Make p itself whole: 0, or a negative code with err (p's resources
	 * and map are then empty). */
	int (*load_whole)(struct perun_profile *p, struct perun_error *err);
	/* Make p whole in place where a const reader may (taken columns
	 * made their tape); NULL where it may not (the streamed form). */
	int (*settle)(struct perun_profile *p, struct perun_error *err);
	/* Free the form's own parts, before the core frees the rest. */
	void (*release)(struct perun_profile *p);
};

struct perun_profile {
	/* The tree; while text is set, its "resources" and
	 * "resource_type_map" are empty placeholders and the real ones are
	 * in the tape (profile_tree makes them a tree on first need). */
	json_t *root;
	char *text; /* owned; the tape's strings */
	struct json_tape tape;
	uint32_t resources, types;	 /* their nodes in the tape */
	char *old_text;			 /* text and tape once the tree */
	struct json_tape old_tape;	 /* replaced them, freed with it */
	int same_order;			 /* both list the same ids in the
					  * same order */
	const struct profile_form *form; /* NULL: loaded whole */
	struct profile_stream *stream;	 /* the streamed form's own state */
	struct columns_of_types *taken;	 /* the taken columns' form's */
	/* Built on the first add: persistent-tuple key -> resource type id,
	 * and flattened uid -> next free counter. */
	json_t *tuple_index;
	json_t *uid_counter;
	/* The tuple key of the row being added, kept between rows. */
	struct perun_strbuf tuple;
	/* perun_profile_share_next_walk's reader, until the next walk. */
	perun_type_fn sharer;
	void *sharer_data;
	int *sharer_whole;
};

/*
 * p with its resources readable: p itself when it is whole (*copy NULL),
 * else a whole load of its own in *copy, which the caller frees.  0, or a
 * negative code with err (a streamed profile whose load fails).
 */
int profile_read_whole(const struct perun_profile *p, const struct perun_profile **whole,
		       struct perun_profile **copy, struct perun_error *err);

/*
 * p made whole in place where its form allows it (see struct profile_form):
 * logically const, as a reader sees the same profile before and after.
 * 0, or a negative code with err without memory.
 */
static inline int profile_settle(const struct perun_profile *p, struct perun_error *err)
{
	return p->form && p->form->settle ? p->form->settle((struct perun_profile *)p, err) : 0;
}

/*
 * p->root with every part a tree, a streamed profile loaded whole first
 * (its resources empty when that fails); NULL without memory.
 */
json_t *profile_tree(struct perun_profile *p);

/* An empty object, for types without resources. */
extern const struct perun_jv profile_empty_object;

/*
 * A jansson scalar as a tape node (a string borrowed from it); the marker
 * strings of Python's non-finite numbers (perun_json_number) are the reals
 * they stand for.  Containers give a null node.
 */
struct perun_jv json_scalar_node(const json_t *v);

/*
 * A tree value appended to a tape.  Its strings are borrowed from the tree,
 * or with arena given copied into it (NUL-terminated), their nodes holding
 * the copy's offset in u.i until profile_tape_relocate points them into
 * the arena's final text.  0, or -1 without memory (arena->failed for the
 * arena's own).
 */
int profile_tape_add_json(struct json_tape *t, const json_t *v, struct perun_strbuf *arena);
/* The string nodes of nodes[0..n) made pointers into text from offsets. */
void profile_tape_relocate(struct perun_jv *nodes, size_t n, const char *text);

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
	int trusted; /* the keys asked for are known to come in order */
	struct member_index index;
};

/* trusted: the keys will be asked for in the object's own order, all of
 * them (the two halves of a profile with same_order): none is compared. */
static inline void member_cursor_init(struct member_cursor *c, const struct perun_jv *object,
				      int trusted)
{
	c->object = object;
	c->next_key = object + 1;
	c->left = perun_jv_len(object);
	c->trusted = trusted;
	c->index.slots = NULL;
}

/* member_cursor_find when key is not the next member. */
const struct perun_jv *member_cursor_search(struct member_cursor *c, const struct perun_jv *key,
					    int *oom);

/* The value of key (a string node), or NULL; -1 in *oom without memory.
 * Inline: walks call it for each of a million types. */
static inline const struct perun_jv *member_cursor_find(struct member_cursor *c,
							const struct perun_jv *key, int *oom)
{
	if (c->left && (c->trusted || (perun_jv_len(c->next_key) == perun_jv_len(key) &&
				       !memcmp(c->next_key->u.s, key->u.s, perun_jv_len(key))))) {
		const struct perun_jv *value = c->next_key + 1;
		c->next_key = perun_jv_skip(value);
		c->left--;
		return value;
	}
	return member_cursor_search(c, key, oom);
}

void member_cursor_release(struct member_cursor *c);

#endif
