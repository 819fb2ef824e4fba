/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What Python Perun's "perun import" takes besides the data: import
 * entries "path[,exit_code[,stat...]]" or CSV files of them, the stats
 * headers "NAME[|CMP[|UNIT[|AGGREGATE_BY[|DESCRIPTION]]]]" their values
 * belong to, and metadata 'key|value[|description]' or JSON files.
 */
#ifndef PERUN_CORE_IMPORT_ENTRIES_H
#define PERUN_CORE_IMPORT_ENTRIES_H

#include <perun/perun.h>

struct import_entry {
	char *path; /* relative paths prefixed with the import directory */
	int exit_code;
};

struct import_entries {
	struct import_entry *entries;
	size_t n;
	json_t *exit_codes; /* [exit_code, ...] for the header */
	json_t *stats;	    /* [{name, cmp, unit, aggregate_by, description, value}] */
};

/* Parse words (entries or .csv files) with the --stats-headers (NULL:
 * none); paths relative to dir ("" or NULL: as given). */
int import_entries_parse(char **words, int nwords, const char *stats_headers, const char *dir,
			 struct import_entries *out, struct perun_error *err);
void import_entries_release(struct import_entries *entries);

/* The profile's "metadata" from the --metadata values (n of them). */
json_t *import_metadata(const char *const *values, size_t n, const char *dir);

/* path, or dir/path when path is relative and dir is set; caller frees. */
char *import_path(const char *path, const char *dir);

#endif
