/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Performance profiles in Perun's JSON format.
 *
 * In memory a profile is the flattened form Python Perun writes:
 *   resources          {"<uid>#<n>": {"<collectable key>": [v0, v1, ...]}}
 *   resource_type_map  {"<uid>#<n>": {<persistent key>: value}}
 *   models, header, collector_info, postprocessors, machine, origin
 * Legacy "global"/"snapshots" profiles are converted on load.
 */
#ifndef PERUN_PROFILE_H
#define PERUN_PROFILE_H

#include <stdio.h>
#include <jansson.h>
#include <perun/error.h>
#include <perun/jsonview.h>
#include <perun/strbuf.h>

/* New empty profile of the given type ("time", "mixed", "memory");
 * caller frees with perun_profile_free. */
PERUN_API struct perun_profile *perun_profile_new(const char *type);
PERUN_API void perun_profile_free(struct perun_profile *profile);

/*
 * Load a profile from a file or buffer; name is used in error messages.
 * On success *out is owned by the caller.  Refuses malformed JSON,
 * unknown top-level keys, missing or inconsistent resources and headers.
 */
PERUN_API int perun_profile_load_file(const char *path, struct perun_profile **out,
				      struct perun_error *err);
PERUN_API int perun_profile_load_buffer(const char *buf, size_t len, const char *name,
					struct perun_profile **out, struct perun_error *err);
/*
 * perun_profile_load_file for a reader that walks the resource types with
 * perun_profile_foreach_type, once or a few times: the resource_type_map,
 * most of a big profile, is read and checked during each walk, in a thread
 * of its own beside the walk, and never kept whole in memory.  A walk
 * fails as this load would have (the same message) when it finds the map
 * malformed; the values it gives are valid during the call only.
 * perun_profile_dump writes the map as such a walk reads it (when the walk
 * fails, as below; perun_profile_load_error then says why).  Other
 * readers of the resources may be used too: those given a const profile
 * (perun_profile_types, perun_profile_foreach_resource) read the file
 * whole into a profile of their own each time and leave the profile as it
 * is; perun_profile_load_whole, and the readers that take a
 * non-const profile (perun_profile_json, ...), make it whole itself, once
 * (its resources empty when that load fails).
 */
PERUN_API int perun_profile_load_file_streamed(const char *path, struct perun_profile **out,
					       struct perun_error *err);
/*
 * perun_profile_load_file_streamed whose messages call the profile name
 * instead of path (a file standing for something else; the core's store
 * objects used it through /proc/self/fd/<n> until interface 6).  Since
 * libperun interface 4.
 */
PERUN_API int perun_profile_load_file_streamed_as(const char *path, const char *name,
						  struct perun_profile **out,
						  struct perun_error *err);
/*
 * Where a streamed profile's text comes from, for a load of text in
 * memory (a store object inflated into a buffer of its own): text[0 ..
 * len), writable (the parts but the map are decoded in place); name, what
 * messages call the profile; reload(data, ...), the usual load of the same
 * profile (perun_profile_load_buffer of the original text), for readers
 * that read it whole or find the map malformed, since the text, decoded,
 * cannot be parsed again; release(data) frees text, name and data, when
 * the profile is freed.  Since libperun interface 6.
 */
struct perun_profile_source {
	char *text;
	size_t len;
	const char *name;
	int (*reload)(void *data, struct perun_profile **out, struct perun_error *err);
	void (*release)(void *data);
	void *data;
};
/*
 * perun_profile_load_file_streamed of text in memory: the source is the
 * profile's from the call on (released at once when the text cannot be
 * streamed, after reload gave the usual load's profile or error).
 * Since libperun interface 6.
 */
PERUN_API int perun_profile_load_memory_streamed(const struct perun_profile_source *source,
						 struct perun_profile **out,
						 struct perun_error *err);
/*
 * A streamed profile's resource_type_map read in order, a part at a time,
 * afresh for each walk (a store object's map, inflated as it is read,
 * never whole): len, its bytes; part, the size of the parts it reads
 * best whole (0: any), which the walk gives it room for; open(data), a
 * reading from its first byte (NULL without memory); read(reading, buf,
 * cap), the next bytes into buf: their count, 0 at the end (once all len
 * bytes are read and found sound), -1 when they are damaged;
 * close(reading).  Since libperun interface 9.
 */
struct perun_profile_map_reader {
	size_t len;
	size_t part;
	void *(*open)(void *data);
	long (*read)(void *reading, char *buf, size_t cap);
	void (*close)(void *reading);
	void *data;
};
/*
 * perun_profile_load_memory_streamed of a profile whose source text holds
 * the map as "{}" at map_at (the byte its value starts at), the map itself
 * read from map when it is walked.  map->data is the source's, freed by
 * its release.  A source whose "{}" is not there is loaded by its reload.
 * Since libperun interface 9.
 */
PERUN_API int perun_profile_load_outline_streamed(const struct perun_profile_source *source,
						  size_t map_at,
						  const struct perun_profile_map_reader *map,
						  struct perun_profile **out,
						  struct perun_error *err);
/*
 * Load a streamed profile's resources whole now, explicitly, for a reader
 * that comes back to them: 0, or the load's error as a negative code
 * (the profile's resources are then empty).  0 for any other profile.
 * Since libperun interface 1.
 */
PERUN_API int perun_profile_load_whole(struct perun_profile *profile, struct perun_error *err);
/*
 * For a streamed profile whose walk found it malformed: its load error (as
 * perun_profile_load_file gives it) in err, returned as a negative code;
 * 0 for any other profile.  Callers report it as a load error, not as the
 * walker's.
 */
PERUN_API int perun_profile_load_error(const struct perun_profile *profile,
				       struct perun_error *err);
/* Take ownership of root (a decoded profile) and validate it. */
PERUN_API int perun_profile_from_json(json_t *root, const char *name, struct perun_profile **out,
				      struct perun_error *err);

/*
 * The JSON tree, borrowed; edits through it must keep the format valid.
 * A loaded profile keeps its resources in the compact form that
 * perun_profile_foreach_type reads until this is first called, which
 * changes the profile's form (hence non-const; a streamed profile is
 * loaded whole first); building the tree of a big profile then takes time
 * and memory (about 20 times the text), so readers of resources should
 * prefer perun_profile_foreach_type.  NULL without memory.
 */
PERUN_API json_t *perun_profile_json(struct perun_profile *profile);
/*
 * One top-level part of the tree ("models", "header", "collector_info",
 * ...), borrowed, NULL when absent.  It never changes the profile's form:
 * "resources" and "resource_type_map" are NULL while they are in their
 * compact form (perun_profile_json makes their tree).
 */
PERUN_API json_t *perun_profile_get(const struct perun_profile *profile, const char *key);

enum perun_dump_style {
	/* json.dumps() with default separators: the stored-object form */
	PERUN_DUMP_COMPACT = 0,
	/* json.dumps(indent=2) with number lists folded: the pending form */
	PERUN_DUMP_PENDING = 1,
};

/*
 * Serialise exactly as Python Perun does (key order kept, ASCII only,
 * floats in their shortest round-trip form).  Returns a malloc'd string the
 * caller frees, or NULL on allocation failure; *len gets its length.
 */
PERUN_API char *perun_profile_dump(const struct perun_profile *profile, enum perun_dump_style style,
				   int with_origin, size_t *len);
/*
 * perun_profile_dump's text written into fd as it is made, a part at a
 * time (a profile of a million calls is never held whole as text): 0, or
 * -1 with errno set (ENOMEM, or the failed write's).  For a
 * perun_write_fn (perun/fsutil.h); the caller names the file.
 */
PERUN_API int perun_profile_write(const struct perun_profile *profile, enum perun_dump_style style,
				  int with_origin, int fd);
/*
 * perun_profile_write, a part at a time even for a streamed profile, and
 * where in the text resource_type_map's value lies: map_span[0] ..
 * map_span[1) (both 0 without one).  When a streamed profile's walk fails
 * halfway, what fd got is no profile: perun_profile_load_error then says
 * why.  The store writes a profile so, into a file of its own, and
 * compresses the map apart, to be read as it is walked.  Since libperun
 * interface 9.
 */
PERUN_API int perun_profile_write_map_span(const struct perun_profile *profile,
					   enum perun_dump_style style, int with_origin, int fd,
					   size_t map_span[2]);
/* Write the pending form to path atomically. */
PERUN_API int perun_profile_save_file(const struct perun_profile *profile, const char *path,
				      struct perun_error *err);

/* Header and metadata: borrowed strings, "" when absent. */
PERUN_API const char *perun_profile_type(const struct perun_profile *profile);
PERUN_API const char *perun_profile_header(const struct perun_profile *profile, const char *key);
PERUN_API int perun_profile_set_header(struct perun_profile *profile, const char *key,
				       const char *value);
/* Set the "units" object of the header from a JSON text like {"time":"s"}. */
PERUN_API int perun_profile_set_units(struct perun_profile *profile, const char *units_json,
				      struct perun_error *err);
PERUN_API const char *perun_profile_collector(const struct perun_profile *p);
/* params is copied; NULL stores {}. */
PERUN_API int perun_profile_set_collector(struct perun_profile *profile, const char *name,
					  const json_t *params);
PERUN_API int perun_profile_add_postprocessor(struct perun_profile *profile, const char *name,
					      const json_t *params);
/* Postprocessor names joined by " " (the index form); caller frees. */
PERUN_API char *perun_profile_postprocessors_dup(const struct perun_profile *p);
PERUN_API const char *perun_profile_origin(const struct perun_profile *p);
/* NULL removes the origin. */
PERUN_API int perun_profile_set_origin(struct perun_profile *profile, const char *origin);

/*
 * Add one resource given in Perun's unflattened form, e.g.
 * {"amount": 0.5, "uid": "real", "order": 1, "type": "time"}.  resource is
 * borrowed.  Collectable keys become columns, the rest identify the
 * resource type.
 */
PERUN_API int perun_profile_add_resource(struct perun_profile *profile, const json_t *resource,
					 struct perun_error *err);
/*
 * Add resource types given column by column: the same profile as
 * perun_profile_add_resource of every row of each type in turn, row i being
 * the keys of persistent (an object with "uid"; none of them collectable)
 * and value i of each column.  Collectors that gather their rows in arrays
 * add millions of them this way without a tree: a profile without
 * resources yet (and types whose persistent parts all differ) takes them
 * into the compact form a loaded profile has, which the dump writes out as
 * it is.  Everything is borrowed.  0, or an error: PERUN_EINVAL for a type
 * without "uid", a column whose key is not collectable, repeated or of an
 * unknown kind.
 */
enum perun_column_kind {
	PERUN_COLUMN_REAL,    /* values: const double[rows] */
	PERUN_COLUMN_INTEGER, /* values: const int64_t[rows] */
};
struct perun_column {
	const char *key; /* perun_profile_key_is_collectable */
	enum perun_column_kind kind;
	const void *values;
};
struct perun_column_type {
	const json_t *persistent;
	size_t rows;
	const struct perun_column *columns;
	size_t ncolumns;
};
PERUN_API int perun_profile_add_columns(struct perun_profile *profile,
					const struct perun_column_type *types, size_t ntypes,
					struct perun_error *err);
/*
 * perun_profile_add_columns, the values taken: each column's values are a
 * malloc'd array of their own, which the profile frees, whatever the
 * result.  Into a fresh profile (see above) they are kept as they are, and
 * the dump writes them straight from the arrays; a reader that needs the
 * resources otherwise (perun_profile_foreach_type, ...) makes them the
 * compact form then.  A collector hands over a million calls so without a
 * copy of them.
 */
PERUN_API int perun_profile_take_columns(struct perun_profile *profile,
					 const struct perun_column_type *types, size_t ntypes,
					 struct perun_error *err);
/* Append a model record; model is borrowed (copied). */
PERUN_API int perun_profile_add_model(struct perun_profile *profile, const json_t *model);

/* Number of resources (rows over all resource types). */
PERUN_API size_t perun_profile_resource_count(const struct perun_profile *p);

/*
 * Call fn for every resource as a full, unflattened row (persistent keys
 * plus one value of every column), in the order of "resources".  The row is
 * only valid during the call (the next call refills it unless fn took a
 * reference).  A loaded profile's resources are read from its text without
 * building their tree.  A non-zero return from fn stops the walk and is
 * returned; -PERUN_EGENERIC means memory ran out.
 */
typedef int (*perun_resource_fn)(const json_t *row, void *data);
PERUN_API int perun_profile_foreach_resource(const struct perun_profile *p, perun_resource_fn fn,
					     void *data);

/*
 * Call fn for every resource type in resource_type_map order, with its id,
 * its persistent part (resource_type_map[id], an object) and its columns
 * (resources[id]: an object of equally long lists, an empty object when the
 * type has no resources).  Values are read straight from the profile's text
 * when it was loaded and has not become a tree, so a profile of millions of
 * resources is read without building one; they are valid during the call.
 * fn's non-zero return stops the walk and is returned as it is; otherwise
 * returns 0, or a negative code with err filled without memory.
 */
typedef int (*perun_type_fn)(const char *type_id, const struct perun_jv *persistent,
			     const struct perun_jv *columns, void *data);
PERUN_API int perun_profile_foreach_type(const struct perun_profile *p, perun_type_fn fn,
					 void *data, struct perun_error *err);

/*
 * Share p's next walk (perun_profile_foreach_type, by whoever calls it
 * next): fn is called for each of its types too, with the same values,
 * before the walker's own callback, so a reader that would walk p after
 * another reads the same pass (a streamed profile's map is read, or
 * inflated, once instead of twice).  fn's non-zero return ends the
 * sharing, not the walk.  Only that one walk is shared: *whole is set to
 * 1 when it ran to its end with fn never refusing a type, else to 0 (a
 * walk stopped early, or p read another way: the reader then walks p
 * itself).  A NULL fn withdraws an unshared request (*whole stays 0).
 * Not for profiles walked from several threads at once.  Since libperun
 * interface 10.
 */
PERUN_API void perun_profile_share_next_walk(const struct perun_profile *p, perun_type_fn fn,
					     void *data, int *whole);

/*
 * The resource types in the order of "resources", the order Python Perun's
 * Profile.all_resources yields them (a type of resource_type_map without
 * resources is not among them), each with its id, persistent part and
 * columns as perun_profile_foreach_type gives them.  Unlike there, the
 * values stay valid until the list is released or the profile changes, for
 * readers that come back to a type: they are the profile's own compact form
 * when it has one (no copy), else a copy the list holds (of a streamed
 * profile, a whole load of its file, which leaves the profile as it is).
 * Returns 0 with *out filled, or a negative code with err filled without
 * memory or, for a streamed profile, when its file does not load.
 */
struct perun_type_ref {
	const char *id;
	const struct perun_jv *persistent, *columns;
};
struct perun_type_list {
	struct perun_type_ref *types;
	size_t n;
	void *copy; /* private: the values copied from a profile that is a tree */
};
PERUN_API int perun_profile_types(const struct perun_profile *p, struct perun_type_list *out,
				  struct perun_error *err);
PERUN_API void perun_type_list_release(struct perun_type_list *list);

/*
 * Set one top-level part ("models", "machine", ...) to value, taking its
 * reference also on failure; like perun_profile_get it leaves the resources
 * in their compact form unless key names one of them.  0, or -1.
 */
PERUN_API int perun_profile_set_new(struct perun_profile *p, const char *key, json_t *value);

/*
 * The number in v: integers, reals and Python's non-finite values (NaN,
 * Infinity, -Infinity), which are kept as marker strings because JSON has
 * no way to hold them.  Returns 0 and sets *out, or -1 for non-numbers.
 */
PERUN_API int perun_json_number(const json_t *v, double *out);

/* Is key one of the collectable (column) keys? */
PERUN_API int perun_profile_key_is_collectable(const char *key);

/*
 * Python Perun's text of a value, str(convert.flatten(value)): a dict is the
 * values of its items (see perun_items_of) joined by ':' in Perun's uid
 * order (bin, file/source/package, module, class, function, line,
 * instruction, then other keys); a list is its elements joined by ',', each
 * the values of its items joined by ':'; a scalar is Python's str() of it
 * (True, None, nan, inf, 1e-05).  This is the "<uid>" of resource-type ids
 * "<uid>#<n>" and the text of a table cell.  Returns a malloc'd string the
 * caller frees, or NULL without memory.
 */
PERUN_API char *perun_value_flatten_dup(const json_t *value);
/* The same text appended to sb (sb->failed set without memory). */
PERUN_API void perun_value_flatten_add(struct perun_strbuf *sb, const json_t *value);
/* The same text of a value read from a profile's compact form. */
PERUN_API char *perun_jv_flatten_dup(const struct perun_jv *value);

/* Python's str() of a float, in out: the shortest digits that read back as
 * value ("2.0", "0.24", "1e-05", "inf", "nan"), as degradation reports and
 * .changes files show rates. */
PERUN_API void perun_python_float_str(double value, char out[32]);

/*
 * Python Perun's flattened items of a record such as a resource row or a
 * model (query.all_items_of), in Python's order: for every key, a scalar is
 * the item (key, value); a dict gives the items "key:sub" of its own items,
 * recursively, then (key, their joined text) as perun_value_flatten_dup
 * makes it; a list of {"name", "value"} dicts (model coefficients) is taken
 * as the dict {name: value}; any other list gives (key, its text).  So
 *   {"uid": {"source": "a.c", "function": "f", "line": 3}, "amount": 4}
 * yields ("uid:source", "a.c"), ("uid:function", "f"), ("uid:line", 3),
 * ("uid", "a.c:f:3"), ("amount", 4).
 *
 * fn gets each key and value, both borrowed for the call only; a value is
 * the record's own scalar (NaN/Infinity as the markers perun_json_number
 * reads) or a string.  A non-zero return from fn stops the walk and is
 * returned as it is.  Otherwise returns 0, or a negative code with err
 * filled when record is not an object or memory runs out.
 */
typedef int (*perun_item_fn)(const char *key, const json_t *value, void *data);
PERUN_API int perun_items_of(const json_t *record, perun_item_fn fn, void *data,
			     struct perun_error *err);

#endif
