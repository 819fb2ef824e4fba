/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun utils stats list-files|list-versions|delete|clean|sync: the stats
 * files that collectors and postprocessors keep per minor version.
 *
 * Python Perun's layout (perun/logic/stats.py), kept so that both work on
 * one store: .perun/stats/<sha[:2]>/<sha[2:]>/<file> (each file a zlib-
 * compressed JSON object of stats by ID), and .perun/stats/.index, the
 * zlib-compressed JSON list of [sha, "%Y-%m-%d %H:%M:%S" date] of the
 * version directories, newest first (VCS order among equal dates).
 * Anything else in .perun/stats is "custom" and removed by clean.
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
#include "store.h"
#include "utils_store.h"
#include "xalloc.h"

static const char *rec_sha(const json_t *rec)
{
	const char *s = json_string_value(json_array_get(rec, 0));
	return s ? s : "";
}

static const char *rec_date(const json_t *rec)
{
	const char *d = json_string_value(json_array_get(rec, 1));
	return d ? d : "";
}

/* .perun/stats/<sha[:2]>/<sha[2:]> (malloc'd). */
static char *version_dir(const struct perun_side_store *ss, const char *sha)
{
	char upper[3] = { sha[0], sha[0] ? sha[1] : 0, 0 };
	char *up = perun_path_join(ss->dir, upper);
	char *dir = perun_path_join(up, sha[0] && sha[1] ? sha + 2 : "");
	free(up);
	return dir;
}

/* The checksum and date of rev (a full sha, or any revision); 0 or -1. */
static int version_info(struct perun_side_store *ss, const char *rev, char sha[65], char date[32])
{
	struct perun_vcs_commit commit;
	struct perun_error err = { 0 };
	if (perun_vcs_info(&ss->inst.vcs, rev, &commit, &err))
		return -1;
	snprintf(sha, 65, "%s", commit.checksum);
	snprintf(date, 32, "%s", commit.date ? commit.date : "");
	return 0;
}

struct same_date {
	const char *date;
	json_t *shas; /* successors (older versions) with that date */
	int first;
};

static int collect_same_date(const struct perun_vcs_commit *commit, void *data)
{
	struct same_date *sd = data;
	if (sd->first) { /* the version itself */
		sd->first = 0;
		return 0;
	}
	if (!commit->date || strcmp(commit->date, sd->date))
		return 1;
	json_array_append_new(sd->shas, json_string(commit->checksum));
	return 0;
}

/* Where (sha, date) is or would go in the index: the record itself, or the
 * first older one (as stats.py's _find_nearest_version). */
static size_t nearest_version(struct perun_side_store *ss, const char *sha, const char *date)
{
	struct same_date sd = { date, json_array(), 1 };
	struct perun_error err = { 0 };
	perun_vcs_walk(&ss->inst.vcs, sha, collect_same_date, &sd, &err);
	size_t i;
	json_t *rec;
	json_array_foreach(ss->entries, i, rec)
	{
		int cmp = strcmp(rec_date(rec), date);
		int candidate = 0;
		size_t k;
		json_t *c;
		json_array_foreach(sd.shas, k, c) candidate |=
			!strcmp(json_string_value(c), rec_sha(rec));
		if (!strcmp(rec_sha(rec), sha) || cmp < 0 || (cmp == 0 && candidate))
			break;
	}
	json_decref(sd.shas);
	return i;
}

static void index_remove(struct perun_side_store *ss, const char *sha)
{
	for (size_t i = json_array_size(ss->entries); i-- > 0;)
		if (!strcmp(rec_sha(json_array_get(ss->entries, i)), sha))
			json_array_remove(ss->entries, i);
}

static int is_dir(const char *path)
{
	struct stat st;
	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* Names in dir (not . and ..), sorted; NULL-terminated, malloc'd. */
static char **list_dir(const char *dir, size_t *n)
{
	struct dirent **names;
	int count = scandir(dir, &names, NULL, alphasort);
	char **out = perun_xcalloc((size_t)(count > 0 ? count : 0) + 1, sizeof(*out));
	*n = 0;
	for (int i = 0; i < count; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			out[(*n)++] = perun_xstrdup(names[i]->d_name);
		free(names[i]);
	}
	if (count >= 0)
		free(names);
	return out;
}

static void free_list(char **l)
{
	for (char **p = l; p && *p; p++)
		free(*p);
	free(l);
}

/* Removes a version directory, and its upper directory when that is left
 * empty; only_empty: only when it holds nothing. 1 when removed. */
static int remove_version_dir(struct perun_side_store *ss, const char *sha, int only_empty)
{
	char *dir = version_dir(ss, sha);
	int removed;
	if (only_empty)
		removed = rmdir(dir) == 0;
	else {
		perun_remove_tree(dir);
		removed = !is_dir(dir);
	}
	if (removed) {
		*strrchr(dir, '/') = '\0';
		rmdir(dir);
		index_remove(ss, sha);
	}
	free(dir);
	return removed;
}

/* The version directories of .perun/stats as [sha, date] (valid versions,
 * newest first), the rest appended to custom (paths). */
static json_t *scan_stats(struct perun_side_store *ss, json_t *custom)
{
	json_t *found = json_array();
	size_t nu;
	char **uppers = list_dir(ss->dir, &nu);
	for (size_t u = 0; u < nu; u++) {
		if (!strcmp(uppers[u], ".index"))
			continue;
		char *up = perun_path_join(ss->dir, uppers[u]);
		size_t nl;
		char **lowers = is_dir(up) ? list_dir(up, &nl) : NULL;
		if (!lowers || strlen(uppers[u]) != 2) {
			json_array_append_new(custom, json_string(up));
			free(up);
			free_list(lowers);
			continue;
		}
		size_t valid = 0;
		for (size_t l = 0; l < nl; l++) {
			char *low = perun_path_join(up, lowers[l]);
			char rev[130], sha[65], date[32];
			snprintf(rev, sizeof(rev), "%s%s", uppers[u], lowers[l]);
			if (!is_dir(low) || !perun_is_sha1(rev) ||
			    version_info(ss, rev, sha, date) || strcmp(sha, rev)) {
				json_array_append_new(custom, json_string(low));
			} else {
				valid++;
				/* Directories inside a version directory are custom. */
				size_t nf;
				char **files = list_dir(low, &nf);
				for (size_t f = 0; f < nf; f++) {
					char *p = perun_path_join(low, files[f]);
					if (is_dir(p))
						json_array_append_new(custom, json_string(p));
					free(p);
				}
				free_list(files);
				json_array_append_new(found, json_pack("[ss]", sha, date));
			}
			free(low);
		}
		if (!valid) /* nothing in it is a version: all of it is custom */
			json_array_append_new(custom, json_string(up));
		free_list(lowers);
		free(up);
	}
	free_list(uppers);
	return found;
}

/* The index made anew from the version directories there are, in the
 * order of their dates (the indexed order kept among equal ones). */
static void stats_sync(struct perun_side_store *ss)
{
	json_t *custom = json_array();
	json_t *found = scan_stats(ss, custom);
	json_t *old = ss->entries;
	ss->entries = json_array();
	/* Known ones first, in their order, then the new ones at their place. */
	size_t i, k;
	json_t *rec, *f;
	json_array_foreach(old, i, rec)
		json_array_foreach(found, k, f) if (!strcmp(rec_sha(f), rec_sha(rec)))
			json_array_append(ss->entries, f);
	json_array_foreach(found, k, f)
	{
		int known = 0;
		size_t j;
		json_t *r;
		json_array_foreach(ss->entries, j, r) known |= !strcmp(rec_sha(r), rec_sha(f));
		if (!known)
			json_array_insert(ss->entries, nearest_version(ss, rec_sha(f), rec_date(f)),
					  f);
	}
	json_decref(old);
	json_decref(found);
	json_decref(custom);
}

struct stat_file {
	char *name;
	long long size; /* -1: an empty version's placeholder */
	const char *version;
};

/* The regular files of a version directory, appended to *files. */
static size_t version_files(struct perun_side_store *ss, const char *sha, struct stat_file **files,
			    size_t *n, long long *size)
{
	char *dir = version_dir(ss, sha);
	size_t count;
	char **names = list_dir(dir, &count);
	size_t added = 0;
	*size = 0;
	for (size_t i = 0; i < count; i++) {
		char *p = perun_path_join(dir, names[i]);
		struct stat st;
		if (!stat(p, &st) && S_ISREG(st.st_mode)) {
			*files = perun_xrealloc(*files, (*n + 1) * sizeof(**files));
			(*files)[(*n)++] = (struct stat_file){ perun_xstrdup(names[i]),
							       (long long)st.st_size, sha };
			*size += (long long)st.st_size;
			added++;
		}
		free(p);
	}
	free_list(names);
	free(dir);
	return added;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct stat_file *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x < y ? -1 : x > y; /* stable: keep the listed order */
}

static int cmd_stats_list(const struct perun_params *params, struct perun_cli *cli, int files_mode)
{
	struct perun_side_store ss;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ss, "stats", 1, 1, &err))
		return perun_error_exit(&err);
	long long top = perun_params_int(params, "top", 20);
	const char *from = perun_params_string(params, "from-minor", NULL);
	int rc = PERUN_EXIT_OK;
	if (top < 0) {
		rc = perun_fail(PERUN_EXIT_USAGE, "--top must be 0 (all) or more, not %lld", top);
		goto out;
	}
	char sha[65], date[32];
	size_t start = 0;
	if (from && perun_resolve_minor(&ss.inst, from, sha, &err)) {
		rc = perun_error_exit(&err);
		goto out;
	}
	if (!version_info(&ss, from ? sha : "HEAD", sha, date))
		start = nearest_version(&ss, sha, date);
	size_t total_versions = json_array_size(ss.entries);
	size_t end = top == 0 || start + (size_t)top > total_versions ? total_versions
								      : start + (size_t)top;
	if (start >= end) {
		printf("== No results for the given parameters in the .perun/stats/ directory "
		       "==\n");
		goto out;
	}
	struct stat_file *items = NULL;
	size_t n = 0;
	long long total = 0;
	for (size_t v = start; v < end; v++) {
		const char *vsha = rec_sha(json_array_get(ss.entries, v));
		long long size;
		size_t before = n;
		size_t count = version_files(&ss, vsha, &items, &n, &size);
		total += size;
		if (!files_mode) {
			/* One record per version: its size and file count. */
			for (size_t i = before; i < n; i++)
				free(items[i].name);
			n = before;
			items = perun_xrealloc(items, (n + 1) * sizeof(*items));
			char buf[32];
			snprintf(buf, sizeof(buf), "%zu", count);
			items[n++] = (struct stat_file){ perun_xstrdup(buf), size, vsha };
		} else if (!count) {
			items = perun_xrealloc(items, (n + 1) * sizeof(*items));
			items[n++] = (struct stat_file){ perun_xstrdup("-= No stats file =-"), -1,
							 vsha };
		}
	}
	if (perun_params_bool(params, "sort-by-size", 0)) {
		/* Versions by size; files by size, the empty versions after them. */
		size_t valid = 0;
		for (size_t i = 0; i < n; i++)
			if (items[i].size >= 0) {
				struct stat_file t = items[valid];
				items[valid++] = items[i];
				items[i] = t;
			}
		qsort(items, valid, sizeof(*items), by_size_desc);
	}
	const char *emph = perun_color(cli, "cyan"), *warn = perun_color(cli, "yellow"),
		   *reset = perun_color(cli, "reset");
	char size[32];
	if (!perun_params_bool(params, "no-total-size", 0))
		perun_print_total_size(cli, total);
	int show_size = !perun_params_bool(params, files_mode ? "no-file-size" : "no-dir-size", 0);
	int show_version = files_mode ? !perun_params_bool(params, "no-minor", 0) : 1;
	int show_name = files_mode ? 1 : !perun_params_bool(params, "no-file-count", 0);
	for (size_t i = 0; i < n; i++) {
		int fields = 0;
		if (show_size) {
			if (items[i].size < 0)
				snprintf(size, sizeof(size), "%10s", "");
			else
				perun_format_file_size(items[i].size, size, sizeof(size));
			printf("%s%s%s", emph, size, reset);
			fields++;
		}
		const char *parts[2] = { show_version ? items[i].version : NULL,
					 show_name ? items[i].name : NULL };
		for (int k = 0; k < 2; k++) {
			if (!parts[k])
				continue;
			if (fields++)
				printf("%s | %s", warn, reset);
			printf("%s", parts[k]);
		}
		printf("\n");
		free(items[i].name);
	}
	free(items);
out:
	perun_side_store_close(&ss);
	return rc;
}

static int cmd_stats_list_files(const struct perun_command *cmd, struct perun_cli *cli,
				const struct perun_params *params, int argc, char **argv)
{
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils stats list-files");
	return cmd_stats_list(params, cli, 1);
}

static int cmd_stats_list_versions(const struct perun_command *cmd, struct perun_cli *cli,
				   const struct perun_params *params, int argc, char **argv)
{
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils stats list-versions");
	return cmd_stats_list(params, cli, 0);
}

/* A stats file name: a plain file name, not a path. */
static int check_name(const char *name)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    !strcmp(name, ".index"))
		return perun_fail(PERUN_EXIT_USAGE, "bad stats file name '%s'", name);
	return 0;
}

static int cmd_stats_delete_file(const struct perun_command *cmd, struct perun_cli *cli,
				 const struct perun_params *params, int argc, char **argv)
{
	if (argc != 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils stats delete file <name>");
	if (check_name(argv[0]))
		return PERUN_EXIT_USAGE;
	struct perun_side_store ss;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ss, "stats", 1, 1, &err))
		return perun_error_exit(&err);
	const char *in_minor = perun_params_string(params, "in-minor", NULL);
	int keep = perun_params_bool(params, "keep-directory", 0);
	int rc = PERUN_EXIT_OK;
	json_t *shas = json_array();
	if (in_minor && !strcmp(in_minor, ".")) {
		size_t i;
		json_t *rec;
		json_array_foreach(ss.entries, i, rec)
			json_array_append_new(shas, json_string(rec_sha(rec)));
	} else {
		char sha[65];
		if (perun_resolve_minor(&ss.inst, in_minor, sha, &err)) {
			rc = perun_error_exit(&err);
			goto out;
		}
		json_array_append_new(shas, json_string(sha));
	}
	size_t deleted = 0, i;
	json_t *s;
	json_array_foreach(shas, i, s)
	{
		char *dir = version_dir(&ss, json_string_value(s));
		char *file = perun_path_join(dir, argv[0]);
		if (!unlink(file)) {
			deleted++;
			if (!keep)
				remove_version_dir(&ss, json_string_value(s), 1);
		}
		free(file);
		free(dir);
	}
	if (!deleted) {
		rc = perun_fail(PERUN_EXIT_USAGE, "no stats file '%s' in %s", argv[0],
				in_minor && !strcmp(in_minor, ".")
					? "any minor version"
					: json_string_value(json_array_get(shas, 0)));
		goto out;
	}
	if (perun_side_store_save(&ss, &err))
		rc = perun_error_exit(&err);
	else
		printf("deleted '%s' in %zu minor version%s\n", argv[0], deleted,
		       deleted == 1 ? "" : "s");
out:
	json_decref(shas);
	perun_side_store_close(&ss);
	return rc;
}

static int cmd_stats_delete_minor(const struct perun_command *cmd, struct perun_cli *cli,
				  const struct perun_params *params, int argc, char **argv)
{
	if (argc != 1)
		return perun_fail(PERUN_EXIT_USAGE,
				  "usage: perun utils stats delete minor <version>");
	struct perun_side_store ss;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ss, "stats", 1, 1, &err))
		return perun_error_exit(&err);
	int rc = PERUN_EXIT_OK;
	char sha[65];
	if (perun_resolve_minor(&ss.inst, argv[0], sha, &err)) {
		rc = perun_error_exit(&err);
		goto out;
	}
	char *dir = version_dir(&ss, sha);
	if (!is_dir(dir)) {
		rc = perun_fail(PERUN_EXIT_USAGE, "minor version %s has no stats directory", sha);
	} else if (perun_params_bool(params, "keep-directory", 0)) {
		size_t n;
		char **names = list_dir(dir, &n);
		for (size_t i = 0; i < n; i++) {
			char *p = perun_path_join(dir, names[i]);
			perun_remove_tree(p);
			free(p);
		}
		free_list(names);
	} else
		remove_version_dir(&ss, sha, 0);
	free(dir);
	if (rc == PERUN_EXIT_OK && perun_side_store_save(&ss, &err))
		rc = perun_error_exit(&err);
out:
	perun_side_store_close(&ss);
	return rc;
}

/* clean's work: sync, custom objects out (unless keep_custom), empty
 * version directories out (unless keep_empty). */
static void stats_clean(struct perun_side_store *ss, int keep_custom, int keep_empty)
{
	stats_sync(ss);
	if (!keep_custom) {
		json_t *custom = json_array();
		json_decref(scan_stats(ss, custom));
		size_t i;
		json_t *p;
		json_array_foreach(custom, i, p) perun_remove_tree(json_string_value(p));
		json_decref(custom);
	}
	if (!keep_empty)
		for (size_t i = json_array_size(ss->entries); i-- > 0;) {
			char sha[65];
			snprintf(sha, sizeof(sha), "%s", rec_sha(json_array_get(ss->entries, i)));
			remove_version_dir(ss, sha, 1);
		}
}

static int cmd_stats_delete_all(const struct perun_command *cmd, struct perun_cli *cli,
				const struct perun_params *params, int argc, char **argv)
{
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils stats delete .");
	struct perun_side_store ss;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ss, "stats", 1, 1, &err))
		return perun_error_exit(&err);
	int rc = PERUN_EXIT_OK;
	if (perun_params_bool(params, "keep-directory", 0)) {
		stats_sync(&ss);
		size_t i;
		json_t *rec;
		json_array_foreach(ss.entries, i, rec)
		{
			char *dir = version_dir(&ss, rec_sha(rec));
			size_t n;
			char **names = list_dir(dir, &n);
			for (size_t k = 0; k < n; k++) {
				char *p = perun_path_join(dir, names[k]);
				perun_remove_tree(p);
				free(p);
			}
			free_list(names);
			free(dir);
		}
		stats_clean(&ss, 0, 1);
		if (perun_side_store_save(&ss, &err))
			rc = perun_error_exit(&err);
	} else {
		perun_remove_tree(ss.dir);
		if (perun_mkdirs(ss.dir, 0777, &err))
			rc = perun_error_exit(&err);
	}
	perun_side_store_close(&ss);
	return rc;
}

static int cmd_stats_clean(const struct perun_command *cmd, struct perun_cli *cli,
			   const struct perun_params *params, int argc, char **argv)
{
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils stats clean");
	struct perun_side_store ss;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ss, "stats", 1, 1, &err))
		return perun_error_exit(&err);
	stats_clean(&ss, perun_params_bool(params, "keep-custom", 0),
		    perun_params_bool(params, "keep-empty", 0));
	int rc = perun_side_store_save(&ss, &err) ? perun_error_exit(&err) : PERUN_EXIT_OK;
	perun_side_store_close(&ss);
	return rc;
}

static int cmd_stats_sync(const struct perun_command *cmd, struct perun_cli *cli,
			  const struct perun_params *params, int argc, char **argv)
{
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils stats sync");
	struct perun_side_store ss;
	struct perun_error err = { 0 };
	if (perun_side_store_open(&ss, "stats", 1, 1, &err))
		return perun_error_exit(&err);
	stats_sync(&ss);
	int rc = perun_side_store_save(&ss, &err) ? perun_error_exit(&err) : PERUN_EXIT_OK;
	perun_side_store_close(&ss);
	return rc;
}

static const struct perun_option list_files_options[] = {
	{ "top", "N", PERUN_OPTION_INT, "20", NULL, "<n>",
	  "the stats files of the top <n> minor versions (0: all)", 0 },
	{ "from-minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<hash>",
	  "start at this minor version (default HEAD)", 0 },
	{ "no-minor", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL, "do not show the minor versions",
	  0 },
	{ "no-file-size", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not show the size of each file", 0 },
	{ "no-total-size", "t", PERUN_OPTION_BOOL, NULL, NULL, NULL, "do not show the total size",
	  0 },
	{ "sort-by-size", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "largest first instead of the minor versions' order", 0 },
	{ NULL },
};

static const struct perun_option list_versions_options[] = {
	{ "top", "N", PERUN_OPTION_INT, "20", NULL, "<n>", "the top <n> minor versions (0: all)",
	  0 },
	{ "from-minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<hash>",
	  "start at this minor version (default HEAD)", 0 },
	{ "no-dir-size", "d", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not show the size of each version directory", 0 },
	{ "no-file-count", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not show the number of files of each version", 0 },
	{ "no-total-size", "t", PERUN_OPTION_BOOL, NULL, NULL, NULL, "do not show the total size",
	  0 },
	{ "sort-by-size", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "largest first instead of the minor versions' order", 0 },
	{ NULL },
};

static const struct perun_option delete_file_options[] = {
	{ "in-minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<hash>|.",
	  "in this minor version (default HEAD), or in all of them with '.'", 0 },
	{ "keep-directory", "k", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep a version directory the deletion empties", 0 },
	{ NULL },
};

static const struct perun_option keep_directory_options[] = {
	{ "keep-directory", "k", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the version directories, emptied", 0 },
	{ NULL },
};

static const struct perun_option clean_options[] = {
	{ "keep-custom", "c", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep what is not a stats version directory or file", 0 },
	{ "keep-empty", "e", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the empty version directories", 0 },
	{ NULL },
};

static const struct perun_command cmd_list_files = {
	.name = "list-files",
	.fn = cmd_stats_list_files,
	.options = list_files_options,
	.summary = "list the stats files",
	.description = "Lists the stats files of the minor versions, newest first, as\n"
		       "'file size | minor version | file name' after the total size.",
};

static const struct perun_command cmd_list_versions = {
	.name = "list-versions",
	.fn = cmd_stats_list_versions,
	.options = list_versions_options,
	.summary = "list the minor versions with stats",
	.description = "Lists the minor versions with a stats directory, newest first, as\n"
		       "'directory size | minor version | file count' after the total size.",
};

static const struct perun_command cmd_delete_file = {
	.name = "file",
	.fn = cmd_stats_delete_file,
	.options = delete_file_options,
	.args = "<name>",
	.summary = "delete a stats file",
	.description = "Deletes the stats file <name> of a minor version (or of all).",
};

static const struct perun_command cmd_delete_minor = {
	.name = "minor",
	.fn = cmd_stats_delete_minor,
	.options = keep_directory_options,
	.args = "<version>",
	.summary = "delete the stats of a minor version",
	.description = "Deletes the stats directory of the minor version <version>.",
};

static const struct perun_command cmd_delete_all = {
	.name = ".",
	.fn = cmd_stats_delete_all,
	.options = keep_directory_options,
	.summary = "delete all stats",
	.description = "Deletes everything in .perun/stats.",
};

static const struct perun_command *const delete_subcommands[] = {
	&cmd_delete_file,
	&cmd_delete_minor,
	&cmd_delete_all,
	NULL,
};

static const struct perun_command cmd_delete = {
	.name = "delete",
	.summary = "delete stats files, minor versions or all stats",
	.description = "Deletes a stats file, the stats of a minor version, or all stats.",
	.subcommands = delete_subcommands,
};

static const struct perun_command cmd_clean = {
	.name = "clean",
	.fn = cmd_stats_clean,
	.options = clean_options,
	.summary = "synchronise, then remove custom objects and empty versions",
	.description = "Synchronises the index, removes what the stats interface did not make\n"
		       "(files beside the version directories, directories that are no\n"
		       "minor version) and the empty version directories.",
};

static const struct perun_command cmd_sync = {
	.name = "sync",
	.fn = cmd_stats_sync,
	.summary = "rebuild the index from the version directories",
	.description = "Makes .perun/stats/.index list exactly the version directories there\n"
		       "are, newest first.",
};

static const struct perun_command *const stats_subcommands[] = {
	&cmd_list_files, &cmd_list_versions, &cmd_delete, &cmd_clean, &cmd_sync, NULL,
};

const struct perun_command perun_cmd_utils_stats = {
	.name = "stats",
	.summary = "list and delete the stats files in .perun/stats",
	.description = "The stats files of .perun/stats/<sha[:2]>/<sha[2:]>/ and their index\n"
		       ".perun/stats/.index, in Python Perun's format (zlib-compressed JSON).",
	.subcommands = stats_subcommands,
};
