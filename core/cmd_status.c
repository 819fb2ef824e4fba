/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun status: the head version and its tracked and pending profiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "command_list.h"
#include "json_reports.h"
#include "pager.h"
#include "cmd_util.h"
#include "format.h"
#include "profiles.h"
#include "share.h"
#include "worktree.h"
#include "xalloc.h"

static const char *const profile_types[] = { "memory", "mixed", "time", NULL };

static const char *info_field(const struct perun_profile_info *info, const char *name)
{
	const struct perun_index_entry *e = &info->entry;
	if (!strcmp(name, "type"))
		return e->type;
	if (!strcmp(name, "collector"))
		return e->collector;
	if (!strcmp(name, "time"))
		return e->time;
	if (!strcmp(name, "source"))
		return e->path;
	if (!strcmp(name, "cmd"))
		return e->cmd;
	if (!strcmp(name, "workload"))
		return e->workload;
	if (!strcmp(name, "postprocessors"))
		return e->postprocessors;
	if (!strcmp(name, "checksum"))
		return info->pending ? "" : e->checksum;
	if (!strcmp(name, "realpath"))
		return info->file ? info->file : e->path;
	return NULL;
}

/* Widest value of field over both lists, at least the field's name. */
static size_t field_width(const struct perun_format_token *t, const struct perun_profile_list *a,
			  const struct perun_profile_list *b)
{
	size_t w = strlen(t->text);
	if (t->width >= 0)
		return (size_t)t->width > w ? (size_t)t->width : w;
	const struct perun_profile_list *lists[] = { a, b };
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			size_t v = perun_utf8_width(info_field(&lists[l]->items[i], t->text));
			if (v > w)
				w = v;
		}
	return w;
}

static void print_counts(const struct perun_profile_list *list, const char *what,
			 const char *ending)
{
	if (!list->n) {
		printf("(no %s profiles)\n", what);
		return;
	}
	printf("%zu %s profiles (", list->n, what);
	int first = 1;
	for (const char *const *t = profile_types; *t; t++) {
		size_t count = 0;
		for (size_t i = 0; i < list->n; i++)
			count += !strcmp(list->items[i].entry.type, *t);
		if (!count)
			continue;
		printf("%s%zu %s", first ? "" : ", ", count, *t);
		first = 0;
	}
	printf(")%s", ending);
}

static void print_rule(size_t width)
{
	for (size_t i = 0; i < width; i++)
		fputs("\u2550", stdout);
	fputs("\u25A3\n", stdout);
}

static void print_table(const struct perun_format *fmt, const struct perun_profile_list *list,
			const struct perun_profile_list *other, char id_char)
{
	size_t id_width = 1;
	for (size_t n = list->n; n >= 10; n /= 10)
		id_width++;
	size_t header_width = id_width + 4;
	size_t *widths = perun_xcalloc(fmt->n, sizeof(size_t));
	for (size_t k = 0; k < fmt->n; k++) {
		const struct perun_format_token *t = &fmt->tokens[k];
		if (t->is_field)
			widths[k] = field_width(t, list, other) + (strcmp(t->text, "type") ? 0 : 2);
		else
			widths[k] = perun_utf8_width(t->text);
		header_width += widths[k];
	}
	print_rule(header_width);
	fputc(' ', stdout);
	perun_print_centered(stdout, "id", id_width + 2);
	fputc(' ', stdout);
	for (size_t k = 0; k < fmt->n; k++) {
		if (fmt->tokens[k].is_field)
			perun_print_centered(stdout, fmt->tokens[k].text, widths[k]);
		else
			fputs(fmt->tokens[k].text, stdout);
	}
	putchar('\n');
	print_rule(header_width);
	for (size_t i = 0; i < list->n; i++) {
		char id[32];
		snprintf(id, sizeof(id), "%zu@%c", i, id_char);
		printf(" %*s ", (int)(id_width + 2), id);
		for (size_t k = 0; k < fmt->n; k++) {
			const struct perun_format_token *t = &fmt->tokens[k];
			if (!t->is_field) {
				fputs(t->text, stdout);
				continue;
			}
			const char *value = info_field(&list->items[i], t->text);
			if (!strcmp(t->text, "type")) {
				putchar('[');
				perun_print_padded(stdout, value, widths[k] - 2, t->fill);
				putchar(']');
			} else {
				perun_print_padded(stdout, value, widths[k], t->fill);
			}
		}
		putchar('\n');
		if (i % 5 == 0 || i == list->n - 1)
			print_rule(header_width);
	}
	free(widths);
}

json_t *perun_profile_info_json(const struct perun_profile_info *info, const char *id)
{
	json_t *item =
		json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "id", id, "source", info->entry.path,
			  "type", info->entry.type, "time", info->entry.time, "cmd",
			  info->entry.cmd, "workload", info->entry.workload, "collector",
			  info->entry.collector, "postprocessors", info->entry.postprocessors);
	if (!info->pending)
		json_object_set_new(item, "checksum", json_string(info->entry.checksum));
	else
		json_object_set_new(item, "path", json_string(info->file));
	return item;
}

json_t *perun_profile_list_json(const struct perun_profile_list *list, char id_char)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < list->n; i++) {
		char id[32];
		snprintf(id, sizeof(id), "%zu@%c", i, id_char);
		json_array_append_new(arr, perun_profile_info_json(&list->items[i], id));
	}
	return arr;
}

/* The tracked profiles of sha against the fetched remotes: on[i] says
 * tracked i is on a remote too, remote_only the remotes' profiles not
 * here.  *shared is 0 (and nothing allocated) when nothing was fetched. */
struct shared {
	int fetched;
	int *on;
	struct perun_index remote_only;
	size_t both;
};

static int shared_compare(struct perun_instance *inst, const char *sha,
			  const struct perun_profile_list *tracked, struct shared *sh,
			  struct perun_error *err)
{
	struct perun_share_view *view;
	memset(sh, 0, sizeof(*sh));
	int rc = perun_share_view_open(inst, &view, err);
	if (rc || !view)
		return rc;
	const char **sums = perun_xcalloc(tracked->n + 1, sizeof(*sums));
	sh->on = perun_xcalloc(tracked->n + 1, sizeof(*sh->on));
	for (size_t i = 0; i < tracked->n; i++)
		sums[i] = tracked->items[i].entry.checksum;
	rc = perun_share_view_compare(view, sha, sums, tracked->n, sh->on, &sh->remote_only, err);
	for (size_t i = 0; i < tracked->n; i++)
		sh->both += (size_t)sh->on[i];
	sh->fetched = !rc;
	free(sums);
	perun_share_view_close(view);
	return rc;
}

static void shared_release(struct shared *sh)
{
	free(sh->on);
	perun_index_release(&sh->remote_only);
}

static void shared_print(const struct shared *sh, size_t ntracked, int short_form)
{
	if (!sh->fetched)
		return;
	printf("\nShared: %zu on a remote too, %zu local only%s, %zu remote only%s\n", sh->both,
	       ntracked - sh->both, ntracked > sh->both ? " (perun push sends them)" : "",
	       sh->remote_only.n, sh->remote_only.n ? " (perun pull takes them)" : "");
	for (size_t i = 0; !short_form && i < sh->remote_only.n; i++) {
		const struct perun_index_entry *e = &sh->remote_only.entries[i];
		printf("  remote only: [%s] %s (%s) %s %.12s\n", e->type, e->collector, e->time,
		       e->path, e->checksum);
	}
}

static void shared_json(json_t *doc, const struct shared *sh)
{
	if (!sh->fetched)
		return;
	json_t *tracked = json_object_get(doc, "tracked");
	for (size_t i = 0; i < json_array_size(tracked); i++)
		json_object_set_new(json_array_get(tracked, i), "shared",
				    json_string(sh->on[i] ? "both" : "local"));
	json_t *arr = json_array();
	for (size_t i = 0; i < sh->remote_only.n; i++) {
		const struct perun_index_entry *e = &sh->remote_only.entries[i];
		json_array_append_new(arr,
				      json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "source", e->path,
						"type", e->type, "time", e->time, "cmd", e->cmd,
						"workload", e->workload, "collector", e->collector,
						"checksum", e->checksum));
	}
	json_object_set_new(doc, "remote_only", arr);
}

/* Profiles of the uncommitted changes diff among the two lists. */
static size_t worktree_profiles(const char *diff, const struct perun_profile_list *a,
				const struct perun_profile_list *b)
{
	char mark[32];
	size_t n = 0;
	perun_worktree_name_mark(diff, mark, sizeof(mark));
	for (size_t i = 0; diff[0] && i < a->n; i++)
		n += strstr(a->items[i].entry.path, mark) != NULL;
	for (size_t i = 0; diff[0] && i < b->n; i++)
		n += strstr(b->items[i].entry.path, mark) != NULL;
	return n;
}

static int validate_fields(const struct perun_format *fmt, const char *fmt_text,
			   struct perun_error *err)
{
	static const struct perun_profile_info probe = {
		.entry = { .type = "",
			   .collector = "",
			   .path = "",
			   .cmd = "",
			   .workload = "",
			   .postprocessors = "" },
	};
	for (size_t k = 0; k < fmt->n; k++)
		if (fmt->tokens[k].is_field && !info_field(&probe, fmt->tokens[k].text))
			return perun_error_set(err, PERUN_EINVAL,
					       "format.status '%s': unknown field '%%%s%%'",
					       fmt_text, fmt->tokens[k].text);
	return 0;
}

static int cmd_status(const struct perun_command *cmd, struct perun_cli *cli,
		      const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	char sha[65], branch[256];
	struct perun_profile_list tracked = { 0 }, pending = { 0 };
	struct perun_vcs_commit commit;
	struct perun_format fmt = { 0 };
	struct shared sh = { 0 };
	char diff[PERUN_SHA1_HEX] = "";
	int rc, exit_code = PERUN_EXIT_OK;
	int short_form = perun_params_bool(params, "short", 0);
	int json = !strcmp(perun_params_string(params, "format", "text"), "json");
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "status takes no arguments");
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	const char *sort_by = perun_params_string(params, "sort-by", NULL);
	if (sort_by) {
		rc = perun_config_set(&inst.config, PERUN_CONFIG_LOCAL, "format.sort_profiles_by",
				      json_string(sort_by), &err);
		if (rc)
			goto fail;
	}
	const char *fmt_text = perun_config_lookup_string(
		&inst.config, "format.status",
		"\u2503 %type% \u2503 %collector%  \u2503 (%time%) \u2503 %source% \u2503");
	if ((rc = perun_format_parse(fmt_text, &fmt, &err)) ||
	    (rc = validate_fields(&fmt, fmt_text, &err)) ||
	    (rc = perun_resolve_minor(&inst, NULL, sha, &err)) ||
	    (rc = perun_vcs_major_head(&inst.vcs, branch, &err)) ||
	    (rc = perun_vcs_info(&inst.vcs, sha, &commit, &err)) ||
	    (rc = perun_profiles_tracked(&inst, sha, &tracked, &err)) ||
	    (rc = perun_profiles_pending(&inst, &pending, &err)) ||
	    (rc = shared_compare(&inst, sha, &tracked, &sh, &err)) ||
	    (rc = perun_worktree_diff(&inst, sha, diff, &err)))
		goto fail;
	size_t dirty_profiles = worktree_profiles(diff, &tracked, &pending);

	if (json) {
		json_t *doc = json_pack("{s:i,s:s,s:s,s:o,s:o}", "schema", 1, "major_version",
					branch, "minor_version", sha, "tracked",
					perun_profile_list_json(&tracked, 'i'), "pending",
					perun_profile_list_json(&pending, 'p'));
		json_t *changes;
		if (perun_check_changes_json(&inst, sha, &changes, &err)) {
			json_decref(doc);
			goto fail;
		}
		json_object_set_new(doc, "changes", changes);
		shared_json(doc, &sh);
		json_object_set_new(doc, "worktree",
				    json_pack("{s:b,s:s,s:I}", "dirty", diff[0] != '\0', "diff",
					      diff, "profiles", (json_int_t)dirty_profiles));
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(doc);
		goto out;
	}
	perun_pager_start(cli, &inst.config, "status");
	printf("On major version %s%s%s (minor version: %s%s%s)\n", perun_color(cli, "bold"),
	       branch, perun_color(cli, "reset"), perun_color(cli, "bold"), sha,
	       perun_color(cli, "reset"));
	if (!short_form) {
		printf("\nAuthor: %s <%s> %s\n", commit.author, commit.email, commit.date);
		for (size_t i = 0; i < commit.parent_count; i++)
			printf("Parent: %s\n", commit.parents[i]);
		printf("\n%s", commit.desc);
		if (!*commit.desc || commit.desc[strlen(commit.desc) - 1] != '\n')
			putchar('\n');
		putchar('\n');
	}
	print_counts(&tracked, "tracked", short_form || !tracked.n ? "\n" : ":\n");
	if (!short_form && tracked.n)
		print_table(&fmt, &tracked, &pending, 'i');
	shared_print(&sh, tracked.n, short_form);
	if (!short_form)
		putchar('\n');
	print_counts(&pending, "untracked", short_form || !pending.n ? "\n" : ":\n");
	if (!short_form && pending.n)
		print_table(&fmt, &pending, &tracked, 'p');
	if (diff[0])
		printf("\nUncommitted changes (diff %.12s): %zu profile%s of them%s\n", diff,
		       dirty_profiles, dirty_profiles == 1 ? "" : "s",
		       dirty_profiles ? " (perun check worktree compares them with HEAD)"
				      : " (perun run matrix collects them)");
	if (perun_check_print_status(stdout, &inst, sha, short_form, cli->color, &err))
		goto fail;
	goto out;
fail:
	perun_error_print(&err);
	exit_code = perun_exit_for(err.code);
out:
	perun_format_release(&fmt);
	shared_release(&sh);
	perun_profile_list_release(&tracked);
	perun_profile_list_release(&pending);
	perun_instance_close(&inst);
	return exit_code;
}

static const struct perun_option status_options[] = {
	{ "short", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL, "only the head and the profile counts",
	  0 },
	{ "sort-by", "sb", PERUN_OPTION_CHOICE, NULL,
	  "realpath|type|time|cmd|workload|collector|checksum|source", NULL,
	  "sort the profiles by this attribute (saved as format.sort_profiles_by)", 0 },
	{ "format", NULL, PERUN_OPTION_CHOICE, "text", "text|json", NULL, "output format", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_status = {
	.name = "status",
	.fn = cmd_status,
	.options = status_options,
	.summary = "show the head version and its tracked and pending profiles",
	.description = "Profiles are listed as format.status says (fields %type%, %collector%,\n"
		       "%time%, %source%, %cmd%, %workload%, %postprocessors%, %checksum%,\n"
		       "%realpath%; %name:N% fixes a width), newest first by default.\n"
		       "Tracked profiles are selected elsewhere as N@i, pending ones as N@p.",
};
