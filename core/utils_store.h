/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers of perun utils temp and stats: paths and the zlib-compressed JSON
 * files that Python Perun keeps their indexes in. */
#ifndef PERUN_CORE_UTILS_STORE_H
#define PERUN_CORE_UTILS_STORE_H

#include <jansson.h>

#include "command.h"
#include "instance.h"

/* A store of Python Perun's beside the profiles, .perun/<name> (tmp,
 * stats), with its index .perun/<name>/.index of zlib-compressed JSON. */
struct perun_side_store {
	struct perun_instance inst;
	char *dir;	 /* absolute .perun/<name> */
	char *index;	 /* .perun/<name>/.index */
	json_t *entries; /* the index: an object or an array */
};
/* Opens the instance (with its VCS if with_vcs), takes the store lock,
 * makes the directory and reads the index; one that is missing or not
 * of the wanted type (array or else object) reads as empty, as in
 * Python Perun.  Close with perun_side_store_close. */
int perun_side_store_open(struct perun_side_store *s, const char *name, int with_vcs, int array,
			  struct perun_error *err);
void perun_side_store_close(struct perun_side_store *s);
/* Writes the index back. */
int perun_side_store_save(struct perun_side_store *s, struct perun_error *err);
/* "Total size of all the displayed files / directories: <size>". */
void perun_print_total_size(const struct perun_cli *cli, long long total);

/* "<dir>/<name>", malloc'd (never NULL: out of memory ends perun). */
char *perun_path_join(const char *dir, const char *name);
/* path made absolute against base (if relative) with ".", ".." and
 * repeated slashes resolved lexically, as Python's os.path.abspath;
 * malloc'd, never NULL. */
char *perun_path_normalize(const char *base, const char *path);
/* The JSON in the zlib-compressed file path (new reference), or NULL when
 * it is missing or not zlib-compressed JSON. */
json_t *perun_zjson_read(const char *path);
/* Writes json, indented by 2 as Python's json.dumps(indent=2), zlib-
 * compressed, atomically to path. */
int perun_zjson_write(const char *path, const json_t *json, struct perun_error *err);
/* Removes path, and everything below it when it is a directory (symbolic
 * links are removed, not followed); errors are ignored. */
void perun_remove_tree(const char *path);
/* Python Perun's fixed-width size: "   123 B  ", "   1.5 KiB". */
void perun_format_file_size(long long size, char *buf, size_t len);

#endif
