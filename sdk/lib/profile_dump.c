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

char *perun_profile_dump(const struct perun_profile *cp, enum perun_dump_style style,
			 int with_origin, size_t *len)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct perun_error ignored = { 0 };
	const struct perun_profile *p;
	struct perun_profile *whole;
	/* A streamed profile is written from a whole load of its own; when
	 * that fails, with its resources and map empty (the map's
	 * placeholder), as a reader finds them. */
	int empty = profile_read_whole(cp, &p, &whole, &ignored) != 0;
	/* Resources still in the tape are written from it: saving a
	 * postprocessed profile does not build their tree. */
	struct json_python_member *m = malloc((json_object_size(p->root) + 1) * sizeof(*m));
	size_t n = 0;
	const char *key;
	json_t *value;
	if (!m) {
		perun_profile_free(whole);
		return NULL;
	}
	json_object_foreach(p->root, key, value)
	{
		if (!with_origin && !strcmp(key, "origin"))
			continue;
		const struct perun_jv *view = NULL;
		if (p->text && !strcmp(key, "resources"))
			view = &p->tape.nodes[empty ? p->types : p->resources];
		else if (p->text && !strcmp(key, "resource_type_map"))
			view = &p->tape.nodes[p->types];
		m[n++] = (struct json_python_member){ key, view ? NULL : value, view };
	}
	json_python_dump_members(m, n, style == PERUN_DUMP_PENDING ? JSON_PYTHON_PENDING : -1, &sb);
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
