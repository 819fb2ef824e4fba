/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun utils temp list|delete|sync: the temporary files in .perun/tmp/.
 *
 * Python Perun's format (perun/logic/temp.py), kept so that both work on one
 * store: .perun/tmp/.index is the zlib-compressed JSON object
 * {"<absolute path of a file>": {"json": b, "protected": b, "compressed": b}}
 * (indented by 2), holding only files with a flag set.  Paths given on the
 * command line are relative to .perun/tmp/ (or absolute inside it); one
 * leading outside of it is an error.  A protected file is deleted only with
 * --force.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd_util.h"
#include "command_list.h"
#include "instance.h"
#include "utils_store.h"
#include "xalloc.h"

struct temp_file {
	char *path; /* absolute */
	int protected;
	long long size;
};

struct temp_list {
	struct temp_file *items;
	size_t n, alloc;
};

static void temp_list_release(struct temp_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].path);
	free(l->items);
}

/* Every file below dir (the index left out), depth first. */
static void collect_files(const char *dir, struct temp_list *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".index"))
			continue;
		char *path = perun_path_join(dir, de->d_name);
		struct stat st;
		if (lstat(path, &st)) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			collect_files(path, out);
			free(path);
			continue;
		}
		if (out->n == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 16;
			out->items = perun_xrealloc(out->items, out->alloc * sizeof(*out->items));
		}
		out->items[out->n++] = (struct temp_file){ path, 0, (long long)st.st_size };
	}
	if (d)
		closedir(d);
}

static int is_protected(const struct perun_side_store *ts, const char *path)
{
	return json_is_true(json_object_get(json_object_get(ts->entries, path), "protected"));
}

/* Drops the entries of files that are gone or have no flag set. */
static void temp_sync(struct perun_side_store *ts)
{
	const char *key;
	json_t *conf, *tmp;
	json_object_foreach_safe(ts->entries, tmp, key, conf)
	{
		struct stat st;
		int flagged = json_is_true(json_object_get(conf, "json")) ||
			      json_is_true(json_object_get(conf, "protected")) ||
			      json_is_true(json_object_get(conf, "compressed"));
		if (!flagged || stat(key, &st) || !S_ISREG(st.st_mode))
			json_object_del(ts->entries, key);
	}
}

/* The path arg names in the tmp directory (malloc'd), or NULL when it
 * leads out of it (err filled). */
static char *temp_path(const struct perun_side_store *ts, const char *arg, struct perun_error *err)
{
	char *path = perun_path_normalize(ts->dir, arg);
	size_t n = strlen(ts->dir);
	if (strncmp(path, ts->dir, n) || (path[n] && path[n] != '/')) {
		perun_error_set(err, PERUN_EINVAL,
				"the path '%s' is not located in the perun tmp/ directory", path);
		free(path);
		return NULL;
	}
	return path;
}

enum sort_by { SORT_NAME, SORT_PROTECTION, SORT_SIZE };
static enum sort_by sort_key;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct temp_file *)a)->path, ((const struct temp_file *)b)->path);
}

/* Python sorts by name first, then stably by the key: name breaks ties. */
static int by_key(const void *a, const void *b)
{
	const struct temp_file *x = a, *y = b;
	if (sort_key == SORT_PROTECTION && x->protected != y->protected)
		return x->protected - y->protected;
	if (sort_key == SORT_SIZE && x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return strcmp(x->path, y->path);
}

static int cmd_temp_list(const struct perun_command *cmd, struct perun_cli *cli,
			 const struct perun_params *params, int argc, char **argv)
{
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils temp list [<root>]");
	struct perun_side_store ts;
	struct perun_error err = { 0 };
	/* Listing synchronises the index too (as Python Perun's does). */
	if (perun_side_store_open(&ts, "tmp", 0, 0, &err))
		return perun_error_exit(&err);
	int rc = PERUN_EXIT_OK;
	char *root = temp_path(&ts, argc ? argv[0] : ".", &err);
	struct stat st;
	if (!root) {
		rc = perun_error_exit(&err);
		goto out;
	}
	if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
		rc = perun_fail(PERUN_EXIT_USAGE, "the tmp path '%s' is %s", root,
				errno == ENOENT ? "not there" : "not a directory");
		goto out;
	}
	temp_sync(&ts);
	if (perun_side_store_save(&ts, &err)) {
		rc = perun_error_exit(&err);
		goto out;
	}
	struct temp_list files = { 0 };
	collect_files(root, &files);
	const char *filter = perun_params_string(params, "filter-protection", "all");
	size_t kept = 0;
	long long total = 0;
	for (size_t i = 0; i < files.n; i++) {
		struct temp_file f = files.items[i];
		f.protected = is_protected(&ts, f.path);
		if ((!strcmp(filter, "protected") && !f.protected) ||
		    (!strcmp(filter, "unprotected") && f.protected)) {
			free(f.path);
			continue;
		}
		total += f.size;
		files.items[kept++] = f;
	}
	files.n = kept;
	if (!files.n) {
		printf("== No results for the given parameters in the .perun/tmp/ directory ==\n");
		temp_list_release(&files);
		goto out;
	}
	const char *sort = perun_params_string(params, "sort-by", "name");
	sort_key = !strcmp(sort, "size")	 ? SORT_SIZE
		   : !strcmp(sort, "protection") ? SORT_PROTECTION
						 : SORT_NAME;
	qsort(files.items, files.n, sizeof(*files.items), sort_key == SORT_NAME ? by_name : by_key);
	const char *emph = perun_color(cli, "cyan"), *warn = perun_color(cli, "yellow"),
		   *reset = perun_color(cli, "reset");
	char size[32];
	if (!perun_params_bool(params, "no-total-size", 0))
		perun_print_total_size(cli, total);
	int show_size = !perun_params_bool(params, "no-file-size", 0);
	int show_protection = !perun_params_bool(params, "no-protection-level", 0);
	size_t prefix = strlen(ts.dir) + 1;
	for (size_t i = 0; i < files.n; i++) {
		const struct temp_file *f = &files.items[i];
		if (show_size) {
			perun_format_file_size(f->size, size, sizeof(size));
			printf("%s%s%s%s | %s", emph, size, reset, warn, reset);
		}
		if (show_protection) {
			if (f->protected)
				printf("%sprotected%s  %s | %s", warn, reset, warn, reset);
			else
				printf("unprotected%s | %s", warn, reset);
		}
		const char *rel = f->path + prefix, *slash = strrchr(rel, '/');
		if (slash)
			printf("%s%.*s%s", emph, (int)(slash - rel + 1), rel, reset);
		printf("%s\n", slash ? slash + 1 : rel);
	}
	temp_list_release(&files);
out:
	free(root);
	perun_side_store_close(&ts);
	return rc;
}

/* Removes the empty directories below dir (not dir itself), deepest first. */
static void remove_empty_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *path = perun_path_join(dir, de->d_name);
		struct stat st;
		if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
			remove_empty_dirs(path);
			rmdir(path); /* fails, as it should, when not empty */
		}
		free(path);
	}
	if (d)
		closedir(d);
}

static int cmd_temp_delete(const struct perun_command *cmd, struct perun_cli *cli,
			   const struct perun_params *params, int argc, char **argv)
{
	if (argc != 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils temp delete <path>");
	struct perun_side_store ts;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ts, "tmp", 0, 0, &err))
		return perun_error_exit(&err);
	int rc = PERUN_EXIT_OK;
	int force = perun_params_bool(params, "force", 0);
	int warn = perun_params_bool(params, "warn", 0);
	char *path = temp_path(&ts, argv[0], &err);
	struct temp_list files = { 0 };
	struct stat st;
	if (!path) {
		rc = perun_error_exit(&err);
		goto out;
	}
	int is_dir = 0;
	if (stat(path, &st)) {
		rc = perun_fail(PERUN_EXIT_USAGE,
				"the supplied path '%s' does not exist, no files deleted", path);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		is_dir = 1;
		collect_files(path, &files);
	} else if (strcmp(path, ts.index)) {
		files.items = perun_xcalloc(1, sizeof(*files.items));
		files.items[0].path = perun_xstrdup(path);
		files.n = 1;
	}
	/* Protected files: with --warn nothing is deleted, else they are kept. */
	size_t kept = 0, protected = 0;
	for (size_t i = 0; i < files.n; i++) {
		if (!force && is_protected(&ts, files.items[i].path)) {
			protected++;
			free(files.items[i].path);
			continue;
		}
		files.items[kept++] = files.items[i];
	}
	files.n = kept;
	if (protected && warn) {
		rc = perun_fail(
			PERUN_EXIT_USAGE,
			"aborted the deletion of temporary files: %zu protected file%s in '%s' "
			"(--force deletes them too)",
			protected, protected == 1 ? "" : "s", path);
		goto out;
	}
	size_t deleted = 0;
	for (size_t i = 0; i < files.n; i++) {
		if (unlink(files.items[i].path) && errno != ENOENT) {
			perun_warn("cannot delete '%s': %s", files.items[i].path, strerror(errno));
			rc = PERUN_EXIT_FAILURE;
			continue;
		}
		json_object_del(ts.entries, files.items[i].path);
		deleted++;
	}
	if (is_dir && !perun_params_bool(params, "keep-directories", 0)) {
		remove_empty_dirs(path);
		if (strcmp(path, ts.dir))
			rmdir(path);
	}
	if (perun_side_store_save(&ts, &err))
		rc = perun_error_exit(&err);
	printf("deleted %zu temporary file%s", deleted, deleted == 1 ? "" : "s");
	if (protected)
		printf(", kept %zu protected", protected);
	printf("\n");
out:
	temp_list_release(&files);
	free(path);
	perun_side_store_close(&ts);
	return rc;
}

static int cmd_temp_sync(const struct perun_command *cmd, struct perun_cli *cli,
			 const struct perun_params *params, int argc, char **argv)
{
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils temp sync");
	struct perun_side_store ts;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ts, "tmp", 0, 0, &err))
		return perun_error_exit(&err);
	temp_sync(&ts);
	int rc = perun_side_store_save(&ts, &err) ? perun_error_exit(&err) : PERUN_EXIT_OK;
	perun_side_store_close(&ts);
	return rc;
}

static const struct perun_option temp_list_options[] = {
	{ "no-total-size", "t", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not show the total size of the listed files", 0 },
	{ "no-file-size", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not show the size of each file", 0 },
	{ "no-protection-level", "p", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not show the protection level of each file", 0 },
	{ "sort-by", "s", PERUN_OPTION_CHOICE, "name", "name|protection|size", "<key>",
	  "sort by name, protection (unprotected first) or size (largest first)", 0 },
	{ "filter-protection", "fp", PERUN_OPTION_CHOICE, "all", "all|unprotected|protected",
	  "<level>", "list only the files of this protection level", 0 },
	{ NULL },
};

static const struct perun_option temp_delete_options[] = {
	{ "warn", "w", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "delete nothing (and fail) when protected files are among them", 0 },
	{ "force", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "delete protected files too, whatever --warn says", 0 },
	{ "keep-directories", "k", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the directories that the deletion empties", 0 },
	{ NULL },
};

static const struct perun_command cmd_list = {
	.name = "list",
	.fn = cmd_temp_list,
	.options = temp_list_options,
	.args = "[<root>]",
	.summary = "list the temporary files",
	.description = "Lists the files of .perun/tmp/, or of its directory <root> (relative to\n"
		       ".perun/tmp/ or absolute inside it), as 'size | protection | path',\n"
		       "after the total size.  Synchronises the index first, as sync does.",
};

static const struct perun_command cmd_delete = {
	.name = "delete",
	.fn = cmd_temp_delete,
	.options = temp_delete_options,
	.args = "<path>",
	.summary = "delete a temporary file or directory",
	.description = "Deletes the file <path> of .perun/tmp/, or the files of the directory\n"
		       "<path> and the directories that become empty ('.' for all of\n"
		       ".perun/tmp/).  Protected files are kept, unless --force.",
};

static const struct perun_command cmd_sync = {
	.name = "sync",
	.fn = cmd_temp_sync,
	.summary = "drop the index entries of files that are gone",
	.description = "Synchronises .perun/tmp/.index with the files: entries of deleted\n"
		       "files, and entries with no flag set, are dropped.",
};

static const struct perun_command *const temp_subcommands[] = {
	&cmd_list,
	&cmd_delete,
	&cmd_sync,
	NULL,
};

const struct perun_command perun_cmd_utils_temp = {
	.name = "temp",
	.summary = "list and delete the temporary files in .perun/tmp",
	.description = "The temporary files of .perun/tmp/ and their index .perun/tmp/.index,\n"
		       "in Python Perun's format (a zlib-compressed JSON object of the\n"
		       "flags json, protected, compressed by absolute path).",
	.subcommands = temp_subcommands,
};
