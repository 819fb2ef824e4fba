/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun log: the history with the number of profiles at each version. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command_list.h"
#include "pager.h"
#include "cmd_util.h"
#include "format.h"
#include "index.h"
#include "profiles.h"
#include "json_reports.h"
#include "share.h"
#include "xalloc.h"

/* Per-type profile counts of one minor version, from its index header. */
struct minor_stats {
	long all, memory, mixed, time;
};

struct minor_row {
	char checksum[65];
	char *date, *author, *email, *desc, *parents;
	struct minor_stats stats;
	long optimizations, degradations;
	int damaged; /* its index does not read */
	int shared;  /* a remote was fetched: the counts below hold */
	long both, local_only, remote_only;
};

struct log_walk {
	struct perun_instance *inst;
	struct perun_share_view *view; /* fetched remotes, or NULL */
	struct minor_row *rows;
	size_t n;
	struct perun_error err;
};

/* The version's profiles here, on a fetched remote, or both. */
static int count_shared(struct log_walk *walk, struct minor_row *row, struct perun_error *err)
{
	struct perun_index idx, remote_only;
	int rc = perun_minor_index_read(walk->inst, row->checksum, &idx, err);
	if (rc)
		return rc;
	const char **sums = perun_xcalloc(idx.n + 1, sizeof(*sums));
	int *on = perun_xcalloc(idx.n + 1, sizeof(*on));
	for (size_t i = 0; i < idx.n; i++)
		sums[i] = idx.entries[i].checksum;
	rc = perun_share_view_compare(walk->view, row->checksum, sums, idx.n, on, &remote_only,
				      err);
	if (!rc) {
		row->shared = 1;
		for (size_t i = 0; i < idx.n; i++)
			row->both += on[i];
		row->local_only = (long)idx.n - row->both;
		row->remote_only = (long)remote_only.n;
		perun_index_release(&remote_only);
	}
	free(sums);
	free(on);
	perun_index_release(&idx);
	return rc;
}

static void count_type(struct minor_stats *st, const char *type)
{
	st->memory += !strcmp(type, "memory");
	st->mixed += !strcmp(type, "mixed");
	st->time += !strcmp(type, "time");
}

static int count_profiles(struct perun_instance *inst, const char *sha, struct minor_stats *st,
			  struct perun_error *err)
{
	memset(st, 0, sizeof(*st));
	struct perun_index idx;
	int rc = perun_minor_index_read(inst, sha, &idx, err);
	if (rc)
		return rc;
	st->all = (long)idx.n;
	if (idx.version >= 2) {
		for (size_t i = 0; i < idx.n; i++)
			count_type(st, idx.entries[i].type);
		perun_index_release(&idx);
		return 0;
	}
	/* A version 1 index has no types: they are in the objects. */
	perun_index_release(&idx);
	struct perun_profile_list tracked;
	rc = perun_profiles_tracked(inst, sha, &tracked, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < tracked.n; i++)
		count_type(st, tracked.items[i].entry.type);
	perun_profile_list_release(&tracked);
	return 0;
}

/* Count "Optimization"/"Degradation" lines of the version's .changes. */
static void count_changes(struct perun_instance *inst, const char *sha, long *opt, long *deg)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "objects/%.2s/%s.changes", sha, sha + 2);
	char *path = perun_instance_path(inst, rel), *text;
	*opt = *deg = 0;
	if (!perun_file_read(path, &text, NULL, NULL)) {
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			if (strstr(line, " PerformanceChange.Optimization "))
				(*opt)++;
			else if (strstr(line, " PerformanceChange.Degradation "))
				(*deg)++;
		}
		free(text);
	}
	free(path);
}

static int collect_row(const struct perun_vcs_commit *c, void *data)
{
	struct log_walk *walk = data;
	walk->rows = perun_xrealloc(walk->rows, (walk->n + 1) * sizeof(*walk->rows));
	struct minor_row *row = &walk->rows[walk->n++];
	memset(row, 0, sizeof(*row));
	snprintf(row->checksum, sizeof(row->checksum), "%s", c->checksum);
	row->date = perun_xstrdup(c->date);
	row->author = perun_xstrdup(c->author);
	row->email = perun_xstrdup(c->email);
	row->desc = perun_xstrdup(c->desc);
	size_t plen = 1;
	for (size_t i = 0; i < c->parent_count; i++)
		plen += strlen(c->parents[i]) + 1;
	row->parents = perun_xcalloc(1, plen);
	for (size_t i = 0; i < c->parent_count; i++) {
		if (i)
			strcat(row->parents, " ");
		strcat(row->parents, c->parents[i]);
	}
	/* One damaged index must not hide the rest of the history. */
	struct perun_error err = { 0 };
	if (count_profiles(walk->inst, row->checksum, &row->stats, &err)) {
		perun_warn("%s ('perun fsck --repair' repairs it)", err.message);
		row->damaged = 1;
	}
	count_changes(walk->inst, row->checksum, &row->optimizations, &row->degradations);
	if (walk->view && !row->damaged && count_shared(walk, row, &err))
		perun_warn("%s", err.message);
	return 0;
}

static void rows_release(struct log_walk *walk)
{
	for (size_t i = 0; i < walk->n; i++) {
		struct minor_row *r = &walk->rows[i];
		free(r->date);
		free(r->author);
		free(r->email);
		free(r->desc);
		free(r->parents);
	}
	free(walk->rows);
}

static void print_type_counts(const struct minor_stats *st, int damaged)
{
	if (damaged) {
		printf("(index damaged: see 'perun fsck')\n");
		return;
	}
	if (!st->all) {
		printf("(no tracked profiles)\n");
		return;
	}
	printf("%ld tracked profiles (", st->all);
	const char *names[] = { "memory", "mixed", "time" };
	long counts[] = { st->memory, st->mixed, st->time };
	int first = 1;
	for (int i = 0; i < 3; i++) {
		if (!counts[i])
			continue;
		printf("%s%ld %s", first ? "" : ", ", counts[i], names[i]);
		first = 0;
	}
	printf(")\n");
}

static void print_long(const struct log_walk *walk)
{
	for (size_t i = 0; i < walk->n; i++) {
		const struct minor_row *r = &walk->rows[i];
		printf("Minor Version %s\n", r->checksum);
		print_type_counts(&r->stats, r->damaged);
		if (r->shared)
			printf("Shared: %ld on a remote too, %ld local only, %ld remote only\n",
			       r->both, r->local_only, r->remote_only);
		printf("Author: %s <%s> %s\n", r->author, r->email, r->date);
		char *parents = perun_xstrdup(r->parents);
		for (char *p = strtok(parents, " "); p; p = strtok(NULL, " "))
			printf("Parent: %s\n", p);
		free(parents);
		putchar('\n');
		const char *line = r->desc;
		while (*line) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			printf("    %.*s\n", (int)len, line);
			line += len + (nl ? 1 : 0);
		}
		putchar('\n');
	}
}

static const char *row_field(const struct minor_row *r, const char *name, char *buf, size_t len)
{
	if (!strcmp(name, "checksum"))
		return r->checksum;
	if (!strcmp(name, "date"))
		return r->date;
	if (!strcmp(name, "author"))
		return r->author;
	if (!strcmp(name, "email"))
		return r->email;
	if (!strcmp(name, "parents"))
		return r->parents;
	if (!strcmp(name, "shared")) {
		if (!r->shared)
			return "";
		snprintf(buf, len, "%ld both, %ld local, %ld remote", r->both, r->local_only,
			 r->remote_only);
		return buf;
	}
	if (!strcmp(name, "desc")) {
		/* The short log shows the first line only. */
		const char *nl = strchr(r->desc, '\n');
		snprintf(buf, len, "%.*s", nl ? (int)(nl - r->desc) : (int)strlen(r->desc),
			 r->desc);
		return buf;
	}
	return NULL;
}

static int print_short(const struct log_walk *walk, const char *fmt_text, struct perun_error *err)
{
	struct perun_format fmt;
	int rc = perun_format_parse(fmt_text, &fmt, err);
	if (rc)
		return rc;
	char buf[4096];
	struct minor_row probe = {
		.desc = "", .date = "", .author = "", .email = "", .parents = ""
	};
	for (size_t k = 0; k < fmt.n; k++) {
		const char *f = fmt.tokens[k].text;
		if (fmt.tokens[k].is_field && strcmp(f, "stats") && strcmp(f, "changes") &&
		    !row_field(&probe, f, buf, sizeof(buf))) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "format.shortlog '%s': unknown field '%%%s%%'",
					     fmt_text, f);
			perun_format_release(&fmt);
			return rc;
		}
	}
	/* Column widths: the widest value, at least the field name. */
	int wa = 1, wm = 1, wx = 1, wt = 1, wchanges = (int)strlen(" changes ");
	for (size_t i = 0; i < walk->n; i++) {
		const struct minor_row *r = &walk->rows[i];
		char num[32];
		wa = (int)fmax(wa, snprintf(num, sizeof(num), "%ld", r->stats.all));
		wm = (int)fmax(wm, snprintf(num, sizeof(num), "%ld", r->stats.memory));
		wx = (int)fmax(wx, snprintf(num, sizeof(num), "%ld", r->stats.mixed));
		wt = (int)fmax(wt, snprintf(num, sizeof(num), "%ld", r->stats.time));
		wchanges = (int)fmax(wchanges, (double)(r->optimizations + r->degradations));
	}
	size_t *widths = perun_xcalloc(fmt.n, sizeof(size_t));
	for (size_t k = 0; k < fmt.n; k++) {
		const struct perun_format_token *t = &fmt.tokens[k];
		if (!t->is_field)
			continue;
		size_t w = strlen(t->text);
		if (t->width >= 0) {
			widths[k] = (size_t)t->width > w ? (size_t)t->width : w;
			continue;
		}
		for (size_t i = 0; i < walk->n; i++) {
			const char *v = row_field(&walk->rows[i], t->text, buf, sizeof(buf));
			if (v && perun_utf8_width(v) > w)
				w = perun_utf8_width(v);
		}
		widths[k] = w;
	}
	size_t stat_len = (size_t)(wa + wm + wx + wt + 3) + strlen(" profiles");
	/* Header. */
	for (size_t k = 0; k < fmt.n; k++) {
		const struct perun_format_token *t = &fmt.tokens[k];
		if (!t->is_field)
			fputs(t->text, stdout);
		else if (!strcmp(t->text, "stats"))
			printf("%*s|%*s|%*s|%*s profiles", wa, "a", wm, "m", wx, "x", wt, "t");
		else if (!strcmp(t->text, "changes"))
			perun_print_centered(stdout, "changes", (size_t)wchanges);
		else
			perun_print_centered(stdout, t->text, widths[k]);
	}
	putchar('\n');
	for (size_t i = 0; i < walk->n; i++) {
		const struct minor_row *r = &walk->rows[i];
		for (size_t k = 0; k < fmt.n; k++) {
			const struct perun_format_token *t = &fmt.tokens[k];
			if (!t->is_field) {
				fputs(t->text, stdout);
			} else if (!strcmp(t->text, "stats")) {
				if (r->damaged)
					perun_print_centered(stdout, "-index-damaged-", stat_len);
				else if (r->stats.all)
					printf("%*ld|%*ld|%*ld|%*ld profiles", wa, r->stats.all, wm,
					       r->stats.memory, wx, r->stats.mixed, wt,
					       r->stats.time);
				else
					perun_print_centered(stdout, "--no--profiles--", stat_len);
			} else if (!strcmp(t->text, "changes")) {
				for (long c = 0; c < r->optimizations; c++)
					putchar('+');
				for (long c = 0; c < r->degradations; c++)
					putchar('-');
			} else {
				perun_print_padded(stdout, row_field(r, t->text, buf, sizeof(buf)),
						   widths[k], t->fill);
			}
		}
		putchar('\n');
	}
	free(widths);
	perun_format_release(&fmt);
	return 0;
}

/* The document of perun log --format json. */
static json_t *log_json(const struct log_walk *walk)
{
	json_t *list = json_array();
	for (size_t i = 0; i < walk->n; i++) {
		const struct minor_row *r = &walk->rows[i];
		json_t *parents = json_array();
		char *copy = perun_xstrdup(r->parents);
		for (char *p = strtok(copy, " "); p; p = strtok(NULL, " "))
			json_array_append_new(parents, json_string(p));
		free(copy);
		json_t *row = json_pack(
			"{s:s,s:s,s:s,s:s,s:s,s:o,s:{s:I,s:I,s:I,s:I},s:{s:I,s:I}}", "checksum",
			r->checksum, "date", r->date, "author", r->author, "email", r->email,
			"desc", r->desc, "parents", parents, "profiles", "all",
			(json_int_t)r->stats.all, "memory", (json_int_t)r->stats.memory, "mixed",
			(json_int_t)r->stats.mixed, "time", (json_int_t)r->stats.time, "changes",
			"optimizations", (json_int_t)r->optimizations, "degradations",
			(json_int_t)r->degradations);
		if (r->damaged)
			json_object_set_new(row, "index_damaged", json_true());
		if (r->shared)
			json_object_set_new(row, "shared",
					    json_pack("{s:I,s:I,s:I}", "both", (json_int_t)r->both,
						      "local_only", (json_int_t)r->local_only,
						      "remote_only", (json_int_t)r->remote_only));
		json_array_append_new(list, row);
	}
	return json_pack("{s:i,s:o}", "schema", 1, "minor_versions", list);
}

/* Walk the history from rev (NULL: HEAD) into walk->rows. */
static int log_walk_run(struct log_walk *walk, const char *rev, struct perun_error *err)
{
	char sha[65];
	int rc = perun_resolve_minor(walk->inst, rev, sha, err);
	if (!rc)
		rc = perun_share_view_open(walk->inst, &walk->view, err);
	if (!rc)
		rc = perun_vcs_walk(&walk->inst->vcs, sha, collect_row, walk, err);
	return rc;
}

int perun_log_json(struct perun_instance *inst, const char *rev, json_t **out,
		   struct perun_error *err)
{
	struct log_walk walk = { .inst = inst };
	int rc = log_walk_run(&walk, rev, err);
	*out = rc ? NULL : log_json(&walk);
	rows_release(&walk);
	perun_share_view_close(walk.view);
	return rc;
}

static int cmd_log(const struct perun_command *cmd, struct perun_cli *cli,
		   const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct log_walk walk = { 0 };
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "log takes at most one revision");
	if (perun_instance_open(&inst, &walk.err))
		return perun_error_exit(&walk.err);
	walk.inst = &inst;
	int rc = log_walk_run(&walk, argc ? argv[0] : NULL, &walk.err);
	if (!rc) {
		perun_pager_start(cli, &inst.config, "log");
		if (!strcmp(perun_params_string(params, "format", "text"), "json")) {
			json_t *doc = log_json(&walk);
			json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(doc);
		} else if (perun_params_bool(params, "short", 0))
			rc = print_short(&walk,
					 perun_config_lookup_string(
						 &inst.config, "format.shortlog",
						 "%checksum:6% (%stats%) %desc% %changes%"),
					 &walk.err);
		else
			print_long(&walk);
	}
	int exit_code = rc ? perun_error_exit(&walk.err) : PERUN_EXIT_OK;
	rows_release(&walk);
	perun_share_view_close(walk.view);
	perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option log_options[] = {
	{ "short", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "one line per version, as format.shortlog says", 0 },
	{ "format", NULL, PERUN_OPTION_CHOICE, "text", "text|json", NULL, "output format", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_log = {
	.name = "log",
	.fn = cmd_log,
	.options = log_options,
	.args = "[<rev>]",
	.summary = "show the history with the profiles of each version",
	.description = "Walks the history from <rev> (default HEAD), newest first.  The short\n"
		       "form follows format.shortlog: fields %checksum%, %date%, %author%,\n"
		       "%email%, %desc%, %parents%, %stats% (a|m|x|t profile counts),\n"
		       "%changes% (+ per optimization, - per degradation) and %shared%\n"
		       "(after perun fetch: the profiles on a remote too, local only and\n"
		       "remote only).",
};
