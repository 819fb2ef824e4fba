/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The profile core: what every form of a profile shares (the struct, its
 * freeing, the tape's resources made a tree, numbers, the member cursor).
 *
 * Layer 2 of libperun: it uses the reader (reader.h) and the public base
 * (error, strbuf) only.  The forms above it are reached through p->form
 * alone (profile_core.h says why); nothing here calls them by name.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_core.h"
#include "reader.h"

void perun_profile_free(struct perun_profile *p)
{
	if (!p)
		return;
	/* The form's own parts first: a streamed profile's text is the
	 * file's mapping, which the stream unmaps (and clears here). */
	if (p->form)
		p->form->release(p);
	json_tape_release(&p->tape);
	json_tape_release(&p->old_tape);
	free(p->text);
	free(p->old_text);
	json_decref(p->root);
	json_decref(p->tuple_index);
	json_decref(p->uid_counter);
	perun_strbuf_release(&p->tuple);
	free(p);
}

int profile_read_whole(const struct perun_profile *p, const struct perun_profile **whole,
		       struct perun_profile **copy, struct perun_error *err)
{
	*copy = NULL;
	*whole = p;
	if (!p->form)
		return 0;
	int rc = p->form->load_copy(p, copy, err);
	if (*copy)
		*whole = *copy;
	return rc;
}

/* The tree holds everything: the text and tape are set aside, not freed,
 * as a walk may still read them (a perun_profile_foreach_type callback
 * that asks for the tree, a perun_profile_types list). */
static void drop_text(struct perun_profile *p)
{
	p->old_text = p->text;
	p->old_tape = p->tape;
	p->text = NULL;
	memset(&p->tape, 0, sizeof(p->tape));
}

json_t *profile_tree(struct perun_profile *p)
{
	struct perun_error ignored = { 0 };
	/* A failed load leaves the resources empty, as documented. */
	if (p->form)
		p->form->load_whole(p, &ignored);
	if (!p->text)
		return p->root;
	/* Setting an existing key keeps its place in the order. */
	json_t *resources = perun_jv_to_json(&p->tape.nodes[p->resources]);
	json_t *types = perun_jv_to_json(&p->tape.nodes[p->types]);
	if (!resources || !types) {
		json_decref(resources);
		json_decref(types);
		return NULL;
	}
	if (json_object_set_new(p->root, "resources", resources)) {
		json_decref(types);
		return NULL;
	}
	/* The resources alone a tree: the map is still read from the tape. */
	if (json_object_set_new(p->root, "resource_type_map", types)) {
		json_object_set_new(p->root, "resources", json_object());
		return NULL;
	}
	drop_text(p);
	return p->root;
}

/* ---- numbers -------------------------------------------------------------- */

int perun_json_number(const json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (json_is_string(v) && json_string_length(v) > 1 && json_string_value(v)[0] == '\0') {
		const char *word = json_string_value(v) + 1;
		if (!strcmp(word, "NaN"))
			*out = NAN;
		else if (!strcmp(word, "Infinity"))
			*out = INFINITY;
		else if (!strcmp(word, "-Infinity"))
			*out = -INFINITY;
		else
			return -1;
		return 0;
	}
	return -1;
}

const struct perun_jv profile_empty_object = { PERUN_JV_OBJECT, 1, { 0 } };

/*
 * A jansson scalar as a tape node (a string borrowed), so that one dumper
 * writes trees and tapes alike; the markers of Python's non-finite numbers
 * (perun_json_number) are the reals they stand for.
 */
struct perun_jv json_scalar_node(const json_t *v)
{
	struct perun_jv node = { PERUN_JV_NULL, 1, { 0 } };
	switch (json_typeof(v)) {
	case JSON_STRING:
		if (perun_json_number(v, &node.u.d) == 0) {
			node.tag = PERUN_JV_REAL;
		} else {
			node.tag = PERUN_JV_STRING | (uint32_t)json_string_length(v) << 3;
			node.u.s = json_string_value(v);
		}
		break;
	case JSON_INTEGER:
		node.tag = PERUN_JV_INTEGER;
		node.u.i = (int64_t)json_integer_value(v);
		break;
	case JSON_REAL:
		node.tag = PERUN_JV_REAL;
		node.u.d = json_real_value(v);
		break;
	case JSON_TRUE: node.tag = PERUN_JV_TRUE; break;
	case JSON_FALSE: node.tag = PERUN_JV_FALSE; break;
	default: break;
	}
	return node;
}

/* ---- trees onto tapes ------------------------------------------------------ */

/* A string node: its bytes borrowed, or copied into arena (offset in u.i). */
static struct perun_jv string_node(const char *s, size_t len, struct perun_strbuf *arena)
{
	struct perun_jv node = { PERUN_JV_STRING | (uint32_t)len << 3, 1, { .s = s } };
	if (arena) {
		node.u.i = (int64_t)arena->len;
		perun_strbuf_add(arena, s, len);
		perun_strbuf_addch(arena, '\0');
	}
	return node;
}

int profile_tape_add_json(struct json_tape *t, const json_t *v, struct perun_strbuf *arena)
{
	struct perun_jv node = { PERUN_JV_NULL, 1, { 0 } };
	long long at = json_tape_push(t, node);
	if (at < 0)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *member;
		json_object_foreach((json_t *)v, key, member)
		{
			if (json_tape_push(t, string_node(key, strlen(key), arena)) < 0 ||
			    profile_tape_add_json(t, member, arena))
				return -1;
		}
		node.tag = PERUN_JV_OBJECT | (uint32_t)json_object_size(v) << 3;
		node.next = (uint32_t)(t->n - (size_t)at);
		break;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) if (profile_tape_add_json(t, e, arena)) return -1;
		node.tag = PERUN_JV_ARRAY | (uint32_t)json_array_size(v) << 3;
		node.next = (uint32_t)(t->n - (size_t)at);
		break;
	}
	default:
		node = json_scalar_node(v);
		if (perun_jv_is_string(&node))
			node = string_node(node.u.s, perun_jv_len(&node), arena);
		break;
	}
	t->nodes[at] = node;
	return 0;
}

void profile_tape_relocate(struct perun_jv *nodes, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (perun_jv_is_string(&nodes[i]))
			nodes[i].u.s = text + nodes[i].u.i;
}

/* ---- the member cursor ---------------------------------------------------- */

static uint64_t key_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int member_index_build(struct member_index *ix, const struct perun_jv *object)
{
	size_t size = 64, i;
	while (size < 2 * perun_jv_len(object))
		size *= 2;
	ix->slots = calloc(size, sizeof(*ix->slots));
	if (!ix->slots)
		return -1;
	ix->mask = size - 1;
	const struct perun_jv *k, *v;
	perun_jv_object_foreach(object, i, k, v)
	{
		size_t s = (size_t)key_hash(k->u.s, perun_jv_len(k)) & ix->mask;
		while (ix->slots[s])
			s = (s + 1) & ix->mask;
		ix->slots[s] = (uint32_t)(k - object) + 1;
	}
	return 0;
}

/* The value of key in object (indexed by ix), or NULL. */
static const struct perun_jv *member_index_find(const struct member_index *ix,
						const struct perun_jv *object,
						const struct perun_jv *key)
{
	size_t len = perun_jv_len(key);
	for (size_t s = (size_t)key_hash(key->u.s, len) & ix->mask; ix->slots[s];
	     s = (s + 1) & ix->mask) {
		const struct perun_jv *k = object + ix->slots[s] - 1;
		if (perun_jv_len(k) == len && !memcmp(k->u.s, key->u.s, len))
			return k + 1;
	}
	return NULL;
}

const struct perun_jv *member_cursor_search(struct member_cursor *c, const struct perun_jv *key,
					    int *oom)
{
	if (!c->index.slots && member_index_build(&c->index, c->object)) {
		*oom = -1;
		return NULL;
	}
	return member_index_find(&c->index, c->object, key);
}

void member_cursor_release(struct member_cursor *c)
{
	free(c->index.slots);
}

int perun_profile_load_whole(struct perun_profile *p, struct perun_error *err)
{
	return p->form ? p->form->load_whole(p, err) : 0;
}
