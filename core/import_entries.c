/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Import entries, stats and metadata as Python Perun's profile/imports.py
 * reads them: stats given on the command line take the values of the
 * command line's entries, a CSV file's header its own rows' values (and
 * merges into a stat of the same name); bad pieces are warned about and
 * skipped as there, except an exit code that is not a number.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "import_entries.h"

static char *strip_dup(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return strndup(s, len);
}

char *import_path(const char *path, const char *dir)
{
	char *p = strip_dup(path, strlen(path));
	if (!p || p[0] == '/' || !dir || !dir[0])
		return p;
	char *joined;
	if (asprintf(&joined, "%s/%s", dir, p) < 0)
		joined = NULL;
	free(p);
	return joined;
}

/* A value: a number when Python's float() takes it, else the text. */
static json_t *stat_value(const char *s, size_t len)
{
	char *v = strip_dup(s, len), *end;
	if (!v)
		return NULL;
	double d = strtod(v, &end);
	json_t *j = *v && !*end && isfinite(d) ? json_real(d) : json_string(v);
	free(v);
	return j;
}

/* ProfileStat.from_string: missing parts take their defaults. */
static json_t *stat_header(const char *text, size_t len)
{
	const char *defaults[5] = { "", "", "#", "", "" };
	const char *names[5] = { "name", "cmp", "unit", "aggregate_by", "description" };
	json_t *stat = json_object();
	const char *p = text, *end = text + len;
	for (int i = 0; i < 5 && stat; i++) {
		const char *bar = p <= end ? memchr(p, '|', (size_t)(end - p)) : NULL;
		const char *stop = bar ? bar : end;
		char *part = p <= end ? strndup(p, (size_t)(stop - p)) : strdup(defaults[i]);
		if (!part || json_object_set_new(stat, names[i], json_string(part))) {
			free(part);
			json_decref(stat);
			return NULL;
		}
		free(part);
		p = bar ? bar + 1 : end + 1;
	}
	const char *name = json_string_value(json_object_get(stat, "name"));
	if (!name[0]) {
		perun_warn("empty profile stat specification: a dummy '[empty]' stat");
		json_object_set_new(stat, "name", json_string("[empty]"));
	}
	const char *cmp = json_string_value(json_object_get(stat, "cmp"));
	static const char *const known[] = { "auto", "higher_is_better", "lower_is_better",
					     "equality" };
	int ok = !cmp[0];
	for (size_t i = 0; i < 4; i++)
		ok |= !strcmp(cmp, known[i]);
	if (!ok)
		perun_warn("unknown stat comparison '%s': auto (choose one of auto, "
			   "higher_is_better, lower_is_better, equality)",
			   cmp);
	if (!ok || !cmp[0])
		json_object_set_new(stat, "cmp", json_string("auto"));
	json_object_set_new(stat, "value", json_array());
	return stat;
}

static json_t *stat_headers(const char *list)
{
	json_t *stats = json_array();
	for (const char *p = list; list && stats;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (json_array_append_new(stats, stat_header(p, len))) {
			json_decref(stats);
			return NULL;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return stats;
}

/* One CSV row (RFC 4180 quoting, one line) or one entry split at ','. */
static size_t split_fields(const char *line, int csv, char ***out)
{
	size_t n = 0, cap = 8;
	char **f = malloc(cap * sizeof(*f));
	const char *p = line;
	while (f) {
		char *field = malloc(strlen(p) + 1), *w = field;
		if (!field)
			break;
		if (csv && *p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
				*w++ = *p == '"' ? *++p : *p;
			if (*p == '"')
				p++;
		}
		while (*p && *p != ',')
			*w++ = *p++;
		*w = '\0';
		if (n == cap) {
			char **g = realloc(f, (cap *= 2) * sizeof(*f));
			if (!g) {
				free(field);
				break;
			}
			f = g;
		}
		f[n++] = field;
		if (*p != ',')
			break;
		p++;
	}
	*out = f;
	return n;
}

static void free_fields(char **f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
}

static int add_entry(struct import_entries *out, char **f, size_t n, json_t *stats, const char *dir,
		     struct perun_error *err)
{
	char *path = n ? strip_dup(f[0], strlen(f[0])) : NULL;
	if (!path || !path[0]) {
		free(path);
		perun_warn("empty import entry: skipped");
		return 0;
	}
	free(path);
	int exit_code = 0;
	if (n >= 2) {
		char *end;
		long v = strtol(f[1], &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (end == f[1] || *end)
			return perun_error_set(err, PERUN_EINVAL,
					       "import entry '%s': exit code '%s' is not a number",
					       f[0], f[1]);
		exit_code = (int)v;
	}
	size_t nstats = json_array_size(stats);
	for (size_t i = 2; i < n && i - 2 < nstats; i++)
		json_array_append_new(json_object_get(json_array_get(stats, i - 2), "value"),
				      stat_value(f[i], strlen(f[i])));
	if (n > 2 && n - 2 > nstats)
		perun_warn("import entry '%s' has more stat values than stats headers: the "
			   "rest is left out",
			   f[0]);
	if (exit_code)
		perun_warn("import entry '%s' has the non-zero exit code %d", f[0], exit_code);
	struct import_entry *e = realloc(out->entries, (out->n + 1) * sizeof(*e));
	if (!e)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	out->entries = e;
	e[out->n] = (struct import_entry){ import_path(f[0], dir), exit_code };
	if (!e[out->n].path || json_array_append_new(out->exit_codes, json_integer(exit_code)))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	out->n++;
	return 0;
}

/* A stat of a CSV header joins the stat of its name, or is a new one. */
static void merge_stat(json_t *stats, json_t *stat)
{
	const char *name = json_string_value(json_object_get(stat, "name"));
	size_t i;
	json_t *old;
	json_array_foreach(stats, i, old)
	{
		if (strcmp(json_string_value(json_object_get(old, "name")), name))
			continue;
		const char *keys[] = { "cmp", "unit", "aggregate_by", "description" };
		for (size_t k = 0; k < 4; k++)
			if (!json_equal(json_object_get(old, keys[k]),
					json_object_get(stat, keys[k])))
				perun_warn(
					"stat '%s' has other headers in another place: the first "
					"are kept",
					name);
		json_array_extend(json_object_get(old, "value"), json_object_get(stat, "value"));
		return;
	}
	json_array_append(stats, stat);
}

static int add_csv(struct import_entries *out, const char *word, const char *dir,
		   struct perun_error *err)
{
	char *path = import_path(word, dir), *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f = path ? fopen(path, "re") : NULL;
	if (!f) {
		int rc = path ? perun_error_set_errno(err, PERUN_EINVAL, errno, "cannot read '%s'",
						      path)
			      : perun_error_set(err, PERUN_EGENERIC, "out of memory");
		free(path);
		return rc;
	}
	json_t *stats = NULL;
	int rc = 0;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		char **fields;
		size_t n = split_fields(line, 1, &fields);
		if (!stats) { /* the header: Profile,Exit_code,<stat headers> */
			stats = json_array();
			for (size_t i = 2; i < n; i++)
				json_array_append_new(stats,
						      stat_header(fields[i], strlen(fields[i])));
		} else {
			rc = add_entry(out, fields, len ? n : 0, stats, dir, err);
		}
		free_fields(fields, n);
	}
	if (!stats)
		perun_warn("empty import file '%s': skipped", path);
	size_t i;
	json_t *stat;
	json_array_foreach(stats, i, stat) merge_stat(out->stats, stat);
	json_decref(stats);
	free(line);
	fclose(f);
	free(path);
	return rc;
}

static int ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n >= m && !strncasecmp(s + n - m, suffix, m);
}

int import_entries_parse(char **words, int nwords, const char *stats_headers, const char *dir,
			 struct import_entries *out, struct perun_error *err)
{
	*out = (struct import_entries){ NULL, 0, json_array(), stat_headers(stats_headers) };
	if (!out->exit_codes || !out->stats)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	/* Entries on the command line have the command line's stats only. */
	json_t *cli_stats = json_copy(out->stats);
	json_decref(out->stats);
	out->stats = cli_stats;
	size_t ncli = json_array_size(cli_stats);
	int rc = 0;
	for (int i = 0; i < nwords && !rc; i++) {
		if (ends_with_ci(words[i], ".csv")) {
			rc = add_csv(out, words[i], dir, err);
			continue;
		}
		char **fields;
		size_t n = split_fields(words[i], 0, &fields);
		json_t *own = json_array();
		for (size_t s = 0; s < ncli; s++)
			json_array_append(own, json_array_get(out->stats, s));
		rc = add_entry(out, fields, n, own, dir, err);
		json_decref(own);
		free_fields(fields, n);
	}
	return rc;
}

void import_entries_release(struct import_entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->entries[i].path);
	free(e->entries);
	json_decref(e->exit_codes);
	json_decref(e->stats);
}

static int add_item(const char *key, const json_t *value, void *data)
{
	return json_array_append_new(data, json_pack("{s:s,s:O,s:s,s:{}}", "name", key, "value",
						     value, "description", "", "details"));
}

/* ProfileHeaderEntry.from_string: 'name|value|description'. */
static json_t *metadata_entry(const char *text)
{
	const char *bar = strchr(text, '|');
	const char *bar2 = bar ? strchr(bar + 1, '|') : NULL;
	char *name = strndup(text, bar ? (size_t)(bar - text) : strlen(text));
	json_t *value = bar ? stat_value(bar + 1, bar2 ? (size_t)(bar2 - bar - 1) : strlen(bar + 1))
			    : json_string("[empty]");
	json_t *e = name && value ? json_pack("{s:s,s:o,s:s,s:{}}", "name", name, "value", value,
					      "description", bar2 ? bar2 + 1 : "", "details")
				  : NULL;
	free(name);
	return e;
}

json_t *import_metadata(const char *const *values, size_t n, const char *dir)
{
	json_t *list = json_array();
	for (size_t i = 0; i < n && list; i++) {
		char *text = strip_dup(values[i], strlen(values[i]));
		if (text && ends_with_ci(text, ".json")) {
			char *path = import_path(text, dir);
			json_error_t jerr;
			json_t *doc = path ? json_load_file(path, 0, &jerr) : NULL;
			struct perun_error err = { 0 };
			if (!doc)
				perun_warn("metadata file '%s' not found or not JSON: skipped",
					   text);
			else if (perun_items_of(doc, add_item, list, &err))
				perun_warn("metadata file '%s': %s", text, err.message);
			json_decref(doc);
			free(path);
		} else if (text) {
			json_array_append_new(list, metadata_entry(text));
		}
		free(text);
	}
	return list;
}
