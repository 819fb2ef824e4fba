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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/profile.h>

#include "json_python.h"
#include "profile_core.h"
#include "profile_flatten.h"

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
 * are still there, their placeholders when empty.  map_span, when set,
 * gets where the map's value is written.
 */
static size_t root_members(const struct perun_profile *p, int with_origin, int walk_types,
			   int empty, size_t *map_span, struct json_python_member *m)
{
	size_t n = 0;
	const char *key;
	json_t *value;
	json_object_foreach(p->root, key, value)
	{
		if (!with_origin && !strcmp(key, "origin"))
			continue;
		int is_map = !strcmp(key, "resource_type_map");
		if (profile_taken_member(p, key, &m[n])) {
			m[n++].span = is_map ? map_span : NULL;
			continue;
		}
		const struct perun_jv *view = NULL;
		int walk = walk_types && is_map;
		if (p->text && !strcmp(key, "resources"))
			view = &p->tape.nodes[empty ? p->types : p->resources];
		else if (p->text && is_map)
			view = &p->tape.nodes[p->types];
		m[n++] = (struct json_python_member){ key,
						      view || walk ? NULL : value,
						      view,
						      walk ? walk_map : NULL,
						      walk ? (void *)p : NULL,
						      is_map ? map_span : NULL };
	}
	return n;
}

/*
 * cp as Python Perun writes it into sb, or with sink set into the sink (sb
 * its buffer).  sb->failed without memory.  map_span (without a sink)
 * gets where the map's value lies in sb, or stays as it is without a map.
 */
static void dump_profile(const struct perun_profile *cp, enum perun_dump_style style,
			 int with_origin, struct perun_strbuf *sb, struct json_python_sink *sink,
			 size_t *map_span)
{
	struct perun_error ignored = { 0 };
	const struct perun_profile *p;
	struct perun_profile *whole = NULL;
	int indent = style == PERUN_DUMP_PENDING ? JSON_PYTHON_PENDING : -1;
	struct json_python_member *m = malloc((json_object_size(cp->root) + 1) * sizeof(*m));
	if (!m) {
		sb->failed = 1;
		return;
	}
	/* A streamed profile's map is written as a walk reads it, never
	 * held whole; taken columns straight from their arrays; resources
	 * still in the tape are written from it, so saving a postprocessed
	 * profile does not build their tree. */
	if (cp->form && (cp->text || cp->taken)) {
		size_t n = root_members(cp, with_origin, 1, 0, map_span, m);
		if (!json_python_dump_members(m, n, indent, sb, sink))
			goto out;
		/* The walk failed: the whole load below says how (with a sink,
		 * only perun_profile_write_map_span's, after what the sink got:
		 * its caller refuses the text, see perun_profile_load_error). */
		sb->len = 0;
	}
	/* Otherwise from a whole load of its own; when that fails, with its
	 * resources and map empty (the map's placeholder), as a reader finds
	 * them. */
	int empty = profile_read_whole(cp, &p, &whole, &ignored) != 0;
	json_python_dump_members(m, root_members(p, with_origin, 0, empty, map_span, m), indent, sb,
				 sink);
out:
	free(m);
	perun_profile_free(whole);
}

char *perun_profile_dump(const struct perun_profile *cp, enum perun_dump_style style,
			 int with_origin, size_t *len)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	dump_profile(cp, style, with_origin, &sb, NULL, NULL);
	return perun_strbuf_detach(&sb, len);
}

/* The dump into fd through a sink: 0, or -1 with errno set. */
static int write_sunk(const struct perun_profile *p, enum perun_dump_style style, int with_origin,
		      int fd, size_t *map_span)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct json_python_sink sink = { fd, 0, 0 };
	dump_profile(p, style, with_origin, &sb, &sink, map_span);
	int rc = sb.failed ? ENOMEM : sink.error;
	perun_strbuf_release(&sb);
	errno = rc;
	return rc ? -1 : 0;
}

int perun_profile_write(const struct perun_profile *p, enum perun_dump_style style, int with_origin,
			int fd)
{
	/* A streamed profile's walk may fail halfway, and the whole load
	 * then writes it anew: its text is made whole first. */
	if (!(p->form && p->text))
		return write_sunk(p, style, with_origin, fd, NULL);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	dump_profile(p, style, with_origin, &sb, NULL, NULL);
	int rc = sb.failed ? ENOMEM : perun_write_all(fd, sb.buf, sb.len) ? errno : 0;
	perun_strbuf_release(&sb);
	errno = rc;
	return rc ? -1 : 0;
}

int perun_profile_write_map_span(const struct perun_profile *p, enum perun_dump_style style,
				 int with_origin, int fd, size_t map_span[2])
{
	map_span[0] = map_span[1] = 0;
	return write_sunk(p, style, with_origin, fd, map_span);
}

/* perun_profile_write as a perun_write_fn. */
static int write_pending(int fd, void *data)
{
	return perun_profile_write(data, PERUN_DUMP_PENDING, 1, fd);
}

int perun_profile_save_file(const struct perun_profile *p, const char *path,
			    struct perun_error *err)
{
	return perun_file_write_atomic_with(path, write_pending, (void *)p, err);
}
