/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Python-exact dumper of profiles: perun_profile_dump and
 * perun_profile_save_file write a profile as Python Perun writes it, its
 * resources straight from the tape when they are still there.
 *
 * Layer 8 of libperun, the top: it uses the core (profile_core.h) and the
 * writer (json_python.h), and reads every form of a profile; no file of
 * libperun uses it but through the public API.
 */
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/profile.h>

#include "json_python.h"
#include "profile_core.h"

/* The streamed map's types, each emitted as it is read. */
static int emit_type(const char *id, const struct perun_jv *persistent,
		     const struct perun_jv *columns, void *data)
{
	(void)columns;
	json_python_emit(data, id, strlen(id), persistent);
	return 0;
}

static int walk_map(void *data, struct json_python_emitter *e)
{
	struct perun_error ignored = { 0 };
	return perun_profile_foreach_type(data, emit_type, e, &ignored);
}

/*
 * The members of p's root into m (room for all), the map walked when
 * walk_types is set; the resources and the map from the tape where they
 * are still there, their placeholders when empty.
 */
static size_t root_members(const struct perun_profile *p, int with_origin, int walk_types,
			   int empty, struct json_python_member *m)
{
	size_t n = 0;
	const char *key;
	json_t *value;
	json_object_foreach(p->root, key, value)
	{
		if (!with_origin && !strcmp(key, "origin"))
			continue;
		const struct perun_jv *view = NULL;
		int walk = walk_types && !strcmp(key, "resource_type_map");
		if (p->text && !strcmp(key, "resources"))
			view = &p->tape.nodes[empty ? p->types : p->resources];
		else if (p->text && !strcmp(key, "resource_type_map"))
			view = &p->tape.nodes[p->types];
		m[n++] = (struct json_python_member){ key, view || walk ? NULL : value, view,
						      walk ? walk_map : NULL,
						      walk ? (void *)p : NULL };
	}
	return n;
}

char *perun_profile_dump(const struct perun_profile *cp, enum perun_dump_style style,
			 int with_origin, size_t *len)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct perun_error ignored = { 0 };
	const struct perun_profile *p;
	struct perun_profile *whole = NULL;
	int indent = style == PERUN_DUMP_PENDING ? JSON_PYTHON_PENDING : -1;
	struct json_python_member *m = malloc((json_object_size(cp->root) + 1) * sizeof(*m));
	if (!m)
		return NULL;
	/* A streamed profile's map is written as a walk reads it, never
	 * held whole; resources still in the tape are written from it, so
	 * saving a postprocessed profile does not build their tree. */
	if (cp->form && cp->text) {
		size_t n = root_members(cp, with_origin, 1, 0, m);
		if (!json_python_dump_members(m, n, indent, &sb))
			goto out;
		/* The walk failed: the whole load below says how. */
		sb.len = 0;
	}
	/* Otherwise from a whole load of its own; when that fails, with its
	 * resources and map empty (the map's placeholder), as a reader finds
	 * them. */
	int empty = profile_read_whole(cp, &p, &whole, &ignored) != 0;
	json_python_dump_members(m, root_members(p, with_origin, 0, empty, m), indent, &sb);
out:
	free(m);
	perun_profile_free(whole);
	return perun_strbuf_detach(&sb, len);
}

int perun_profile_save_file(const struct perun_profile *p, const char *path,
			    struct perun_error *err)
{
	size_t len;
	char *text = perun_profile_dump(p, PERUN_DUMP_PENDING, 1, &len);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_file_write_atomic(path, text, len, err);
	free(text);
	return rc;
}
