/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun check head|all|profiles: detect performance changes. */
#define _GNU_SOURCE /* open_memstream */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_history.h"
#include "cmd_util.h"
#include "command_list.h"
#include "jobs.h"
#include "pager.h"
#include "runner.h"
#include "profiles.h"
#include "worktree.h"

static int has_profiles(struct perun_instance *inst, const char *sha);

/* Options of a check run: the group's, overridden by the subcommand's. */
struct check_opts {
	enum perun_check_format format;
	enum perun_change fail_at; /* exit 1 at or below this; 0: never */
	int force;
	int allow_missing_baseline; /* a gate that compared nothing passes */
	const char *models_type;
};

static const char *opt_string(const struct perun_cli *cli, const struct perun_params *params,
			      const char *name)
{
	const char *v = perun_params_string(params, name, NULL);
	return v ? v : perun_params_string(cli->group_params, name, NULL);
}

static void read_opts(const struct perun_cli *cli, const struct perun_params *params,
		      struct check_opts *o)
{
	static const char *const formats[] = { "text", "json", "junit", "sarif", "markdown" };
	const char *format = opt_string(cli, params, "format");
	const char *fail_on = opt_string(cli, params, "fail-on");
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; format && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i], format))
			o->format = (enum perun_check_format)i;
	if (fail_on)
		o->fail_at = !strcmp(fail_on, "severe")	       ? PERUN_CHANGE_SEVERE_DEGRADATION
			     : !strcmp(fail_on, "degradation") ? PERUN_CHANGE_DEGRADATION
							       : PERUN_CHANGE_MAYBE_DEGRADATION;
	o->force = perun_params_bool(cli->group_params, "force", 0);
	o->allow_missing_baseline =
		perun_params_bool(params, "allow-missing-baseline", 0) ||
		perun_params_bool(cli->group_params, "allow-missing-baseline", 0);
	o->models_type = perun_params_string(cli->group_params, "models-type", "best-model");
}

/* Does the report gate the run (--fail-on)? */
static int gated(const struct check_opts *o, const struct perun_check_report *r)
{
	for (size_t i = 0; o->fail_at && i < r->nchanges; i++) {
		enum perun_change c = r->changes[i].result;
		if (c >= PERUN_CHANGE_TOTAL_DEGRADATION && c <= o->fail_at &&
		    !r->changes[i].unreliable)
			return 1;
	}
	return 0;
}

/* Pointers to the reported changes of r from index from on. */
static const struct perun_check_change **change_ptrs(const struct perun_check_report *r,
						     size_t from, size_t *n)
{
	const struct perun_check_change **v = malloc((r->nchanges - from + 1) * sizeof(*v));
	*n = 0;
	for (size_t i = from; v && i < r->nchanges; i++)
		v[(*n)++] = &r->changes[i];
	return v;
}

/*
 * Print the machine report, or nothing for text; the exit code.  nothing
 * says why no pair was compared, or is NULL: a gate (--fail-on) then
 * fails with its own status unless --allow-missing-baseline, since a
 * check that compared nothing has not passed.
 */
static int finish(const struct check_opts *o, struct perun_check_ctx *ctx, const char *nothing)
{
	struct perun_error err = { 0 };
	if (o->format != PERUN_CHECK_TEXT &&
	    perun_check_write_report(stdout, &ctx->report, o->format, &err))
		return perun_error_exit(&err);
	fflush(stdout);
	if (nothing && o->fail_at && !o->allow_missing_baseline)
		return perun_fail(PERUN_EXIT_NOTHING_COMPARED,
				  "%s (--allow-missing-baseline lets the gate pass)", nothing);
	if (nothing && o->format != PERUN_CHECK_TEXT)
		perun_warn("%s", nothing);
	return gated(o, &ctx->report) ? PERUN_EXIT_DEGRADED : PERUN_EXIT_OK;
}

/* Why a check of versions compared no pair, in buf; NULL when it did. */
static const char *nothing_compared(struct perun_instance *inst, const struct perun_check_ctx *ctx,
				    const char *sha, char *buf, size_t len)
{
	if (ctx->report.npairs)
		return NULL;
	if (!has_profiles(inst, sha))
		snprintf(buf, len, "no profiles at %.7s: nothing compared", sha);
	else
		snprintf(buf, len, "no baseline profiles for %.7s: nothing compared", sha);
	return buf;
}

static int cmd_check_profiles(const struct perun_command *cmd, struct perun_cli *cli,
			      const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct perun_profile *pair[2] = { NULL, NULL };
	struct perun_check_ctx ctx = { 0 };
	struct check_opts o;
	int exit_code;
	if (argc != 2)
		return perun_fail(
			PERUN_EXIT_USAGE,
			"check profiles: usage: perun check profiles <baseline> <target>");
	read_opts(cli, params, &o);
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	char sha[65];
	if (perun_resolve_minor(&inst, perun_params_string(params, "minor", NULL), sha, &err) ||
	    perun_profiles_load_two(&inst, sha, (const char *const *)argv, PERUN_LOAD_STREAMED,
				    pair, &err) ||
	    perun_check_init(&ctx, &inst.config, o.models_type, &err))
		goto fail;
	const struct perun_profile *baseline = pair[0], *target = pair[1];
	if (!o.force && !perun_check_same_config(baseline, target)) {
		char *a = perun_profile_postprocessors_dup(baseline);
		char *b = perun_profile_postprocessors_dup(target);
		perun_error_set(
			&err, PERUN_EINVAL,
			"incompatible configurations ('%s', '%s', '%s', '%s') and "
			"('%s', '%s', '%s', '%s'): use --force to compare them anyway",
			perun_profile_collector(baseline), perun_profile_header(baseline, "cmd"),
			perun_profile_header(baseline, "workload"), a ? a : "",
			perun_profile_collector(target), perun_profile_header(target, "cmd"),
			perun_profile_header(target, "workload"), b ? b : "");
		free(a);
		free(b);
		goto fail;
	}
	/* The changes belong to the target's version: -m, else its origin
	 * when that is a version of this project, else HEAD. */
	const char *origin = perun_profile_origin(target);
	char minor[65];
	struct perun_error oerr = { 0 };
	snprintf(minor, sizeof(minor), "%s", sha);
	if (!perun_params_string(params, "minor", NULL) && origin && *origin &&
	    perun_vcs_rev_parse(&inst.vcs, origin, minor, &oerr))
		snprintf(minor, sizeof(minor), "%s", sha);
	if (perun_check_pair(&ctx, baseline, target, argv[0], argv[1], minor, minor, &err) ||
	    perun_check_save(&inst, &ctx.report, &err))
		goto fail;
	perun_pager_start(cli, &inst.config, "check");
	if (o.format == PERUN_CHECK_TEXT) {
		size_t n;
		const struct perun_check_change **v = change_ptrs(&ctx.report, 0, &n);
		printf("[Checking two compatible profiles]\n\n");
		perun_check_print_list(stdout, v, n, cli->color);
		perun_check_print_unreliable(stdout, v, n, cli->verbose);
		perun_check_print_summary(stdout, v, n, cli->color);
		free(v);
	}
	exit_code = finish(&o, &ctx, NULL);
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	perun_check_release(&ctx);
	perun_profiles_free_two(pair);
	perun_instance_close(&inst);
	return exit_code;
}

/* Is e a clean profile (not of uncommitted changes) configured as t is? */
static int clean_like(const struct perun_index_entry *e, const struct perun_index_entry *t)
{
	return !strstr(e->path, "-dirty-") && !strcmp(e->type, t->type) &&
	       !strcmp(e->cmd, t->cmd) && !strcmp(e->workload, t->workload) &&
	       !strcmp(e->collector, t->collector);
}

/* The newest clean profile of tracked configured as target is, or -1. */
static long clean_baseline(const struct perun_profile_list *tracked,
			   const struct perun_index_entry *t)
{
	for (size_t i = 0; i < tracked->n; i++)
		if (clean_like(&tracked->items[i].entry, t))
			return (long)i;
	return -1;
}

/* The newest clean profile of fetched configured as target is, or NULL. */
static const struct perun_index_entry *clean_fetched(const struct perun_index *fetched,
						     const struct perun_index_entry *t)
{
	const struct perun_index_entry *best = NULL;
	for (size_t i = 0; i < fetched->n; i++)
		if (clean_like(&fetched->entries[i], t) &&
		    (!best || fetched->entries[i].mtime > best->mtime))
			best = &fetched->entries[i];
	return best;
}

/*
 * perun check worktree: the profiles collected on the uncommitted changes
 * of the working tree (marked with the diff's hash, pending or registered
 * at HEAD) against HEAD's own clean profiles of the same configuration:
 * the store's, else the newest a fetched remote has (perun fetch).
 */
static int cmd_check_worktree(const struct perun_command *cmd, struct perun_cli *cli,
			      const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	struct perun_check_ctx ctx = { 0 };
	struct perun_profile_list tracked = { 0 }, pending = { 0 };
	struct perun_check_cache cache = { 0 };
	struct perun_index fetched = { 0 };
	int fetched_read = 0;
	struct check_opts o;
	char sha[65], diff[PERUN_SHA1_HEX], mark[32], nothing[160];
	int exit_code;
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "check worktree: unexpected argument '%s'",
				  argv[0]);
	read_opts(cli, params, &o);
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	if (perun_resolve_minor(&inst, NULL, sha, &err) ||
	    perun_worktree_diff(&inst, sha, diff, &err))
		goto fail;
	if (!diff[0]) {
		perun_error_set(&err, PERUN_EINVAL,
				"check worktree: the working tree has no uncommitted changes to "
				"tracked files");
		goto fail;
	}
	perun_worktree_name_mark(diff, mark, sizeof(mark));
	if (perun_profiles_tracked(&inst, sha, &tracked, &err) ||
	    perun_profiles_pending(&inst, &pending, &err) ||
	    perun_check_init(&ctx, &inst.config, o.models_type, &err))
		goto fail;
	size_t targets = 0;
	const struct perun_profile_list *lists[] = { &pending, &tracked };
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct perun_profile_info *t = &lists[l]->items[i];
			if (!strstr(t->entry.path, mark))
				continue;
			targets++;
			long b = clean_baseline(&tracked, &t->entry);
			const struct perun_index_entry *fb = NULL;
			if (b < 0 && !fetched_read) {
				if (perun_check_fetched_index(&inst, &cache, sha, &fetched, &err))
					goto fail;
				fetched_read = 1;
			}
			if (b < 0 && !(fb = clean_fetched(&fetched, &t->entry)))
				continue;
			struct perun_profile *own = NULL, *target = NULL;
			const struct perun_profile *base = NULL;
			int rc = fb ? perun_check_cache_load(&inst, &cache, fb->checksum, &base,
							     &err)
				    : perun_profile_info_load_as(&inst, &tracked.items[b],
								 PERUN_LOAD_STREAMED, &own, &err);
			if (!fb)
				base = own;
			if (!rc)
				rc = perun_profile_info_load_as(&inst, t, PERUN_LOAD_STREAMED,
								&target, &err);
			if (!rc && (o.force || perun_check_same_config(base, target)))
				rc = perun_check_pair(&ctx, base, target,
						      fb ? fb->path : tracked.items[b].entry.path,
						      t->entry.path, sha, sha, &err);
			perun_profile_free(own);
			perun_profile_free(target);
			if (rc)
				goto fail;
		}
	if (!targets)
		snprintf(nothing, sizeof(nothing),
			 "no profiles of the uncommitted changes (diff %.12s): collect them "
			 "first (perun run matrix)",
			 diff);
	else if (!ctx.report.npairs)
		snprintf(nothing, sizeof(nothing),
			 "no clean profiles at %.7s to compare the uncommitted changes with", sha);
	perun_pager_start(cli, &inst.config, "check");
	if (o.format == PERUN_CHECK_TEXT) {
		size_t n;
		const struct perun_check_change **v = change_ptrs(&ctx.report, 0, &n);
		printf("[Checking the uncommitted changes (diff %.12s) against %.7s]\n\n", diff,
		       sha);
		perun_check_print_list(stdout, v, n, cli->color);
		perun_check_print_unreliable(stdout, v, n, cli->verbose);
		perun_check_print_summary(stdout, v, n, cli->color);
		free(v);
	}
	exit_code = finish(&o, &ctx, ctx.report.npairs ? NULL : nothing);
	goto out;
fail:
	exit_code = perun_error_exit(&err);
out:
	perun_check_release(&ctx);
	perun_index_release(&fetched);
	perun_check_cache_release(&cache);
	perun_profile_list_release(&tracked);
	perun_profile_list_release(&pending);
	perun_instance_close(&inst);
	return exit_code;
}

/* Is precollection asked for (--compute-missing or the config)? */
static int wants_precollect(const struct perun_cli *cli, const struct perun_instance *inst)
{
	if (perun_params_bool(cli->group_params, "compute-missing", 0))
		return 1;
	json_t *v = perun_config_lookup(&inst->config, "degradation.collect_before_check");
	const char *s = json_string_value(v);
	return json_is_true(v) || (s && (!strcasecmp(s, "true") || !strcasecmp(s, "yes") ||
					 !strcasecmp(s, "on") || !strcmp(s, "1")));
}

static int has_profiles(struct perun_instance *inst, const char *sha)
{
	struct perun_index idx;
	struct perun_error err = { 0 };
	if (perun_minor_index_read(inst, sha, &idx, &err))
		return 1; /* a broken index is reported by the check itself */
	int any = idx.n > 0;
	perun_index_release(&idx);
	return any;
}

static void add_missing(struct perun_instance *inst, const char *sha, const char ***revs, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*revs)[i], sha))
			return;
	if (has_profiles(inst, sha))
		return;
	const char **grown = realloc(*revs, (*n + 1) * sizeof(*grown));
	if (grown) {
		*revs = grown;
		grown[(*n)++] = sha;
	}
}

/*
 * Collect the profiles of the versions (and their parents) that have none
 * by the job matrix, registering them in the index.  A failed collection
 * is a warning, as in Perun: the check goes on with what there is.
 */
static void precollect(struct perun_instance *inst, const struct perun_check_versions *vs)
{
	const char **revs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < vs->n; i++) {
		add_missing(inst, vs->items[i].sha, &revs, &n);
		for (size_t k = 0; k < vs->items[i].nparents; k++)
			add_missing(inst, vs->items[i].parents[k], &revs, &n);
	}
	if (!n)
		return;
	struct perun_error err = { 0 };
	struct perun_matrix m = { 0 };
	struct perun_run_result res = { 0 };
	struct perun_run_opts opts = { .revs = revs, .nrevs = n };
	if (perun_runner_timeout(NULL, &inst->config, &opts.timeout, &err))
		perun_warn("%s", err.message);
	if (!inst->config.level[PERUN_CONFIG_RUNTIME])
		inst->config.level[PERUN_CONFIG_RUNTIME] = json_object();
	if (perun_config_set(&inst->config, PERUN_CONFIG_RUNTIME, "profiles.register_after_run",
			     json_true(), &err) ||
	    perun_matrix_from_config(&m, &inst->config, &err) ||
	    (!m.nargs && perun_matrix_add_word(&m.args, &m.nargs, "", &err)) ||
	    (!m.nworkloads && perun_matrix_add_word(&m.workloads, &m.nworkloads, "", &err)) ||
	    perun_jobs_run(inst, &m, &opts, &res, &err))
		perun_warn("could not precollect profiles: %s", err.message);
	else if (res.failed || res.interrupted)
		perun_warn("could not precollect every profile: %zu of %zu jobs failed (log: %s)",
			   res.failed, res.jobs, res.log_path ? res.log_path : "none");
	else
		fprintf(stderr, "perun: precollected %zu profile%s at %zu version%s\n", res.stored,
			res.stored == 1 ? "" : "s", n, n == 1 ? "" : "s");
	perun_run_result_release(&res);
	perun_matrix_release(&m);
	free(revs);
}

/* Set up a check of versions from rev: instance, versions, precollection,
 * methods.  On failure the exit code is returned (> 0). */
static int begin_history(struct perun_cli *cli, const struct perun_params *params, int argc,
			 char **argv, int whole, struct check_opts *o, struct perun_instance *inst,
			 struct perun_check_versions *vs, struct perun_check_ctx *ctx)
{
	struct perun_error err = { 0 };
	char sha[65];
	memset(ctx, 0, sizeof(*ctx));
	read_opts(cli, params, o);
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "check %s: unexpected argument '%s'",
				  whole ? "all" : "head", argv[1]);
	if (perun_instance_open(inst, &err))
		return perun_error_exit(&err);
	if (perun_resolve_minor(inst, argc ? argv[0] : NULL, sha, &err) ||
	    perun_check_init(ctx, &inst->config, o->models_type, &err))
		goto fail;
	if (wants_precollect(cli, inst)) {
		if (perun_check_versions_walk(inst, sha, whole ? PERUN_CHECK_ALL_VERSIONS : 1, vs,
					      &err))
			goto fail;
		precollect(inst, vs);
		perun_check_versions_release(vs);
	}
	if (perun_check_versions_walk(inst, sha, whole ? PERUN_CHECK_ALL_VERSIONS : 1, vs, &err))
		goto fail;
	return 0;
fail:
	perun_check_release(ctx);
	perun_instance_close(inst);
	return perun_error_exit(&err);
}

static int check_series(struct perun_check_ctx *ctx, struct perun_check_series_set *set,
			struct perun_error *err);

/* Does a method that applies to some rule judge whole histories? */
static int any_series_method(const struct perun_check_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nmethods; i++) {
		const struct perun_check_ops *ops = ctx->methods[i].plugin->desc->ops;
		if (PERUN_ABI_HAS(ops, struct perun_check_ops, compare_series) &&
		    ops->compare_series)
			return 1;
	}
	return 0;
}

/* Is location c's series: its location, or cpd's uid and subtype as
 * the other methods name a time profile's series ("prog:real")? */
static int same_series(const char *location, const struct perun_check_change *c)
{
	size_t ll = strlen(c->location);
	return !strcmp(location, c->location) ||
	       (!strncmp(location, c->location, ll) && location[ll] == ':' &&
		!strcmp(location + ll + 1, c->type));
}

/* Does the .changes of c's version hold a change of the same direction at
 * its location and configuration (found when that version was checked)? */
static int already_found(const struct perun_instance *inst, const struct perun_check_change *c)
{
	struct perun_check_change *saved = NULL;
	size_t n = 0;
	struct perun_error err = { 0 };
	int found = 0;
	if (!perun_changes_load(inst, c->version, &saved, &n, &err))
		for (size_t i = 0; i < n; i++)
			found |= same_series(saved[i].location, c) &&
				 !strcmp(saved[i].cmdstr, c->cmdstr) &&
				 perun_change_is_degradation(saved[i].result) ==
					 perun_change_is_degradation(c->result);
	for (size_t i = 0; i < n; i++)
		perun_check_change_release(&saved[i]);
	free(saved);
	return found;
}

/* A count of at least least in the configuration at key (fallback when
 * unset) into *out; anything else is an error naming the key. */
static int config_count(const struct perun_instance *inst, const char *key, long long fallback,
			long long least, long long *out, struct perun_error *err)
{
	json_t *v = perun_config_lookup(&inst->config, key);
	const char *text = json_string_value(v);
	char *end = NULL;
	*out = fallback;
	if (json_is_integer(v))
		*out = json_integer_value(v);
	else if (text)
		*out = strtoll(text, &end, 10);
	if ((v && !json_is_integer(v) && (!text || end == text || *end)) || *out < least)
		return perun_error_set(err, PERUN_EINVAL, "%s: not a whole number of at least %lld",
				       key, least);
	return 0;
}

/*
 * check head with methods that judge histories (cpd): the series of each
 * configuration over the last degradation.history_length versions (20)
 * up to sha, of which the changes dated at the newest
 * degradation.recent_versions (2) are the gate's: a change point needs
 * versions after it to be seen, so a change made at sha's parent is
 * found only now.
 */
static int check_head_series(struct perun_check_ctx *ctx, struct perun_instance *inst,
			     const char *sha, struct perun_check_cache *cache,
			     struct perun_error *err)
{
	if (!any_series_method(ctx))
		return 0;
	long long keep, recent;
	if (config_count(inst, "degradation.history_length", 20, 2, &keep, err) ||
	    config_count(inst, "degradation.recent_versions", 2, 1, &recent, err))
		return -err->code;
	struct perun_check_versions hist = { 0 };
	struct perun_check_series_set series = { 0 };
	int rc = perun_check_versions_walk(inst, sha, (size_t)keep, &hist, err);
	for (size_t i = 0; i < hist.n && !rc; i++)
		rc = perun_check_minor_series(inst, &hist.items[i], cache, &series, err);
	size_t from = ctx->report.nchanges;
	if (!rc)
		rc = check_series(ctx, &series, err);
	/* the changes the history shows at older versions are theirs, and
	 * so is one their own check already found */
	struct perun_check_report *r = &ctx->report;
	size_t kept = from;
	for (size_t i = from; i < r->nchanges && !rc; i++) {
		int mine = 0;
		for (size_t k = 0; k < hist.n && k < (size_t)recent && r->changes[i].version; k++)
			if (!strcmp(r->changes[i].version, hist.items[k].sha))
				mine = k == 0 || !already_found(inst, &r->changes[i]);
		if (mine)
			r->changes[kept++] = r->changes[i];
		else
			perun_check_change_release(&r->changes[i]);
	}
	if (!rc)
		r->nchanges = kept;
	perun_check_series_set_release(&series);
	perun_check_versions_release(&hist);
	return rc;
}

static int cmd_check_head(const struct perun_command *cmd, struct perun_cli *cli,
			  const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_check_ctx ctx;
	struct perun_check_versions vs = { 0 };
	struct perun_check_cache cache = { 0 };
	struct perun_error err = { 0 };
	struct check_opts o;
	int exit_code = begin_history(cli, params, argc, argv, 0, &o, &inst, &vs, &ctx);
	if (exit_code)
		return exit_code;
	cache.whole = any_series_method(&ctx);
	if (perun_check_minor(&ctx, &inst, &vs.items[0], &cache, NULL, &err) ||
	    check_head_series(&ctx, &inst, vs.items[0].sha, &cache, &err) ||
	    perun_check_save(&inst, &ctx.report, &err)) {
		exit_code = perun_error_exit(&err);
		goto out;
	}
	char why[128];
	const char *nothing = nothing_compared(&inst, &ctx, vs.items[0].sha, why, sizeof(why));
	perun_pager_start(cli, &inst.config, "check");
	if (o.format == PERUN_CHECK_TEXT) {
		size_t n;
		const struct perun_check_change **v = change_ptrs(&ctx.report, 0, &n);
		printf("[Checking version %s]\n\n", vs.items[0].sha);
		if (nothing) {
			printf("%s\n", nothing);
		} else {
			perun_check_print_list(stdout, v, n, cli->color);
			perun_check_print_unreliable(stdout, v, n, cli->verbose);
		}
		free(v);
	}
	exit_code = finish(&o, &ctx, nothing);
out:
	perun_check_cache_release(&cache);
	perun_check_versions_release(&vs);
	perun_check_release(&ctx);
	perun_instance_close(&inst);
	return exit_code;
}

/* Print text with the graph's border before every line. */
static void print_bordered(const struct perun_check_graph *g, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		perun_check_graph_border(stdout, g);
		fwrite(text, 1, len, stdout);
		fputc('\n', stdout);
		text += len + (text[len] == '\n');
	}
}

/* The list of the changes [from, to) of the report, as text. */
static char *list_text(const struct perun_check_report *r, size_t from, size_t to, int color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	size_t n;
	const struct perun_check_change **v = change_ptrs(r, from, &n);
	if (v)
		perun_check_print_list(f, v, to - from, color);
	free(v);
	fclose(f);
	return buf;
}

/* The series of every configuration, oldest first, to compare_series. */
static int check_series(struct perun_check_ctx *ctx, struct perun_check_series_set *set,
			struct perun_error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		struct perun_check_series *s = &set->items[i];
		for (size_t a = 0, b = s->n ? s->n - 1 : 0; a < b; a++, b--) {
			struct perun_check_series_entry t = s->entries[a];
			s->entries[a] = s->entries[b];
			s->entries[b] = t;
		}
		int rc = perun_check_series(ctx, s->entries, s->n, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Is any change of the report from index from on reported? */
static int any_reported(const struct perun_check_report *r, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (perun_check_is_change(&r->changes[i]))
			return 1;
	return 0;
}

/*
 * The text of check all.  Findings first: the versions with reported
 * changes, each with its list, then the changes over whole histories,
 * then the history graph with one summary line per version (verbose:
 * every version's list under it, as Perun prints), then the totals.
 * bounds[i] is where the changes of version i start; bounds[n] where the
 * series' changes start.
 */
static void print_all(const struct perun_cli *cli, const struct perun_check_versions *vs,
		      const struct perun_check_report *r, const size_t *bounds, size_t npairwise)
{
	int color = cli->color, verbose = cli->verbose;
	struct perun_check_graph graph;
	printf("[Checking whole history]\n\n");
	if (!verbose && any_reported(r, 0, r->nchanges)) {
		printf("[Findings]\n\n");
		for (size_t i = 0; i < vs->n; i++) {
			if (!any_reported(r, bounds[i], bounds[i + 1]))
				continue;
			printf("version %.7s:\n", vs->items[i].sha);
			char *t = list_text(r, bounds[i], bounds[i + 1], color);
			if (t)
				fputs(t, stdout);
			free(t);
		}
	}
	if (any_reported(r, npairwise, r->nchanges) || (verbose && r->nchanges > npairwise)) {
		printf("[Changes over the history of each configuration]\n\n");
		char *t = list_text(r, npairwise, r->nchanges, color);
		if (t)
			fputs(t, stdout);
		free(t);
	}
	printf("[History]\n\n");
	perun_check_graph_init(&graph, vs->n ? vs->items[0].sha : "");
	for (size_t i = 0; i < vs->n; i++) {
		const struct perun_check_version *v = &vs->items[i];
		size_t n;
		perun_check_graph_version(stdout, &graph, v);
		const struct perun_check_change **list = change_ptrs(r, bounds[i], &n);
		if (list)
			perun_check_print_short(stdout, list, bounds[i + 1] - bounds[i], color);
		free(list);
		fputc('\n', stdout);
		perun_check_graph_finish(stdout, &graph, v);
		if (!verbose)
			continue;
		char *t = list_text(r, bounds[i], bounds[i + 1], color);
		if (t)
			print_bordered(&graph, t);
		free(t);
	}
	perun_check_graph_release(&graph);
	size_t n;
	const struct perun_check_change **all = change_ptrs(r, 0, &n);
	fputc('\n', stdout);
	if (all) {
		perun_check_print_unreliable(stdout, all, n, verbose);
		perun_check_print_summary(stdout, all, n, color);
	}
	free(all);
}

static int cmd_check_all(const struct perun_command *cmd, struct perun_cli *cli,
			 const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_check_ctx ctx;
	struct perun_check_versions vs = { 0 };
	struct perun_check_cache cache = { 0 };
	struct perun_check_series_set series = { 0 };
	struct perun_error err = { 0 };
	struct check_opts o;
	size_t *bounds = NULL;
	int exit_code = begin_history(cli, params, argc, argv, 1, &o, &inst, &vs, &ctx);
	if (exit_code)
		return exit_code;
	cache.whole = any_series_method(&ctx);
	if (o.format == PERUN_CHECK_TEXT)
		fprintf(stderr, "perun: checking %zu version%s; this might take a while\n", vs.n,
			vs.n == 1 ? "" : "s");
	int rc = (bounds = malloc((vs.n + 1) * sizeof(*bounds)))
			 ? 0
			 : perun_error_set(&err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < vs.n && !rc; i++) {
		bounds[i] = ctx.report.nchanges;
		rc = perun_check_minor(&ctx, &inst, &vs.items[i], &cache,
				       cache.whole ? &series : NULL, &err);
	}
	size_t pairwise = ctx.report.nchanges;
	if (!rc) {
		bounds[vs.n] = pairwise;
		rc = check_series(&ctx, &series, &err);
	}
	if (!rc)
		rc = perun_check_save(&inst, &ctx.report, &err);
	if (rc) {
		exit_code = perun_error_exit(&err);
		goto out;
	}
	perun_pager_start(cli, &inst.config, "check");
	if (o.format == PERUN_CHECK_TEXT)
		print_all(cli, &vs, &ctx.report, bounds, pairwise);
	char why[128];
	const char *nothing = NULL;
	if (!ctx.report.npairs) {
		snprintf(why, sizeof(why),
			 "no two profiles to compare in the history of %.7s: "
			 "nothing compared",
			 vs.n ? vs.items[0].sha : "");
		nothing = why;
		if (o.format == PERUN_CHECK_TEXT)
			printf("%s\n", nothing);
	}
	exit_code = finish(&o, &ctx, nothing);
out:
	free(bounds);
	perun_check_series_set_release(&series);
	perun_check_cache_release(&cache);
	perun_check_versions_release(&vs);
	perun_check_release(&ctx);
	perun_instance_close(&inst);
	return exit_code;
}

#define REPORT_OPTIONS                                                                             \
	{ "format",                                                                                \
	  NULL,                                                                                    \
	  PERUN_OPTION_CHOICE,                                                                     \
	  NULL,                                                                                    \
	  "text|json|junit|sarif|markdown",                                                        \
	  NULL,                                                                                    \
	  "report format: Perun's text, JSON, JUnit XML, SARIF 2.1.0 or a Markdown table",         \
	  0 },                                                                                     \
	{                                                                                          \
		"fail-on", NULL, PERUN_OPTION_CHOICE, NULL, "severe|degradation|maybe", NULL,      \
			"exit 1 when a change at or above this level is found", 0                  \
	}

#define ALLOW_MISSING_OPTION                                                                       \
	{                                                                                          \
		"allow-missing-baseline", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,               \
			"with --fail-on, pass when there was nothing to compare (else exit 4)", 0  \
	}

static const struct perun_option profiles_options[] = {
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version whose index N@i refers to (default HEAD)", 0 },
	REPORT_OPTIONS,
	{ NULL },
};

static const struct perun_command check_profiles = {
	.name = "profiles",
	.fn = cmd_check_profiles,
	.options = profiles_options,
	.args = "<baseline> <target>",
	.summary = "check for changes between two profiles",
	.description = "Compares <baseline> with <target> (tags such as 0@i, 0@p or\n"
		       "<rev>^0@i, names, object SHA-1s or files) by every method that\n"
		       "degradation.strategies selects for the baseline.  Profiles of\n"
		       "different configurations (collector, command, workload,\n"
		       "postprocessors) are refused unless --force is given.  The changes\n"
		       "are saved to the .changes of the target's version: -m <rev> when\n"
		       "given, else the target's origin when it is a version of this\n"
		       "project, else HEAD.",
};

static const struct perun_option history_options[] = {
	REPORT_OPTIONS,
	ALLOW_MISSING_OPTION,
	{ NULL },
};

static const struct perun_command check_head = {
	.name = "head",
	.fn = cmd_check_head,
	.options = history_options,
	.args = "[<rev>]",
	.summary = "check a minor version against its parents",
	.description = "Compares every profile registered at <rev> (default HEAD; the last\n"
		       "one of each configuration) with each compatible profile of each\n"
		       "parent: same type, command, workload and collector, and the\n"
		       "baseline's postprocessors among the target's.  The changes are\n"
		       "saved to the .changes of <rev> and shown by 'perun status' and\n"
		       "'perun log'.",
};

static const struct perun_command check_all = {
	.name = "all",
	.fn = cmd_check_all,
	.options = history_options,
	.args = "[<rev>]",
	.summary = "check every minor version reachable from a revision",
	.description = "Does 'perun check head' at every version from <rev> (default HEAD)\n"
		       "back through history, printing the history graph with the changes\n"
		       "found at each version.  Methods that judge a whole history (check\n"
		       "plugins with compare_series, such as cpd) then get the profiles of\n"
		       "each configuration, oldest first, one per version that has one.",
};

static const struct perun_command check_worktree = {
	.name = "worktree",
	.fn = cmd_check_worktree,
	.options = history_options,
	.summary = "check the uncommitted changes against HEAD",
	.description = "Compares the profiles collected on the uncommitted changes of the\n"
		       "working tree (perun collect or perun run at HEAD mark them with the\n"
		       "hash of the diff, in the profile and in its name) with the newest\n"
		       "clean profile of the same configuration registered at HEAD: a\n"
		       "performance check without a commit.  Profiles of earlier changes\n"
		       "(another diff) are left out.  The changes are not saved.",
};

static const struct perun_command *const check_subcommands[] = { &check_head, &check_all,
								 &check_profiles, &check_worktree,
								 NULL };

static const struct perun_option check_options[] = {
	{ "force", "f", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "compare profiles even if their configurations differ", 0 },
	{ "compute-missing", "c", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "collect the profiles of versions that have none by the job matrix first", 0 },
	{ "models-type", "m", PERUN_OPTION_CHOICE, "best-model",
	  "best-model|best-param|best-nonparam|all-param|all-nonparam|all-models|best-both", NULL,
	  "which models int and loc compare", 0 },
	REPORT_OPTIONS,
	ALLOW_MISSING_OPTION,
	{ NULL },
};

const struct perun_command perun_cmd_check = {
	.name = "check",
	.options = check_options,
	.subcommands = check_subcommands,
	/* "perun check aat --help": a method's usage. */
	.plugin_kind = PERUN_KIND_CHECK,
	.summary = "detect performance changes between versions or profiles",
	.description = "Runs the degradation methods that degradation.strategies selects\n"
		       "(rules matched on collector, postprocessor and header keys, and\n"
		       "interleaved: true|false for profiles of perun run --rounds;\n"
		       "degradation.apply says whether the first or all applicable rules\n"
		       "count).  The rules of local.yml come before the shared ones; a\n"
		       "rule of method 'none' ends the rules for the profiles it matches,\n"
		       "so local.yml can keep the shared rules from them.  Methods are\n"
		       "check plugins ('perun plugins list'), named by the plugin or by\n"
		       "Perun's long name, e.g. average_amount_threshold for aat.  A\n"
		       "method's options come from the configuration as\n"
		       "degradation.<option> (e.g. degradation.cutoff); 'perun check\n"
		       "<method> --help' lists them.  A rule may set its own, as in\n"
		       "{method: cpd, options: {min_change: 0.05}}, and judge one subtype\n"
		       "only (subtype: sys), which the method's other rules then leave.\n"
		       "\n"
		       "Every verdict is then weighed against the measured noise: the\n"
		       "samples of its location on both sides (runs, calls, allocations)\n"
		       "are counted and shown beside it, a change of count is flagged,\n"
		       "and a degradation or optimization is unreliable - shown only with\n"
		       "-v, never failing a gate - when it is within the method's own\n"
		       "noise, under degradation.noise.min_share (0.01) of the baseline's\n"
		       "biggest series, under degradation.noise.min_effect (0.08), moved\n"
		       "the other way, or not significant at degradation.noise.alpha\n"
		       "(0.05; Welch's t-test of runs, Mann-Whitney of calls).\n"
		       "degradation.noise.enabled: false turns the weighing off.\n"
		       "\n"
		       "Exits 0 when the check worked, 1 with --fail-on when a change at\n"
		       "or above that level was found, 2 on bad input, 3 when a method\n"
		       "failed and 4 with --fail-on when no two profiles could be compared\n"
		       "(no baseline or no target profiles) unless --allow-missing-baseline\n"
		       "is given.",
};
