/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Rendering profiles with a view plugin: perun show and perun showdiff. */
#include <stddef.h>
#include <stdio.h>

#include "cmd_util.h"
#include "crash.h"
#include "pager.h"
#include "plugin_loader.h"
#include "profiles.h"
#include "runner.h"
#include "views.h"

const struct perun_option perun_views_options[] = {
	{ "minor", "m", PERUN_OPTION_STRING, NULL, NULL, "<rev>",
	  "minor version whose profiles N@i refers to (default HEAD)", 0 },
	{ NULL },
};

/* Profiles are looked up in the instance when there is one (inst, else
 * NULL); profile files can be shown outside any instance.  Two
 * (showdiff) load at once. */
static int load_profiles(struct perun_instance *inst, const char *minor, char *const *selectors,
			 int n, enum perun_load_how how, struct perun_profile **out,
			 struct perun_error *err)
{
	char sha[65];
	int rc;
	if (inst && (rc = perun_resolve_minor(inst, minor, sha, err)))
		return rc;
	if (n == 2)
		return perun_profiles_load_two(inst, sha, (const char *const *)selectors, how, out,
					       err);
	return perun_profiles_load_any(inst, sha, selectors[0], how, out, err);
}

int perun_views_find(const char *view_name, int n, const struct perun_loaded_plugin **out,
		     enum perun_load_how *how, struct perun_error *err)
{
	if (n < 1 || n > 2)
		return perun_error_set(err, PERUN_EINVAL, "a view shows one or two profiles");
	const struct perun_loaded_plugin *view = perun_plugin_load(PERUN_KIND_VIEW, view_name, err);
	if (!view)
		return -(err->code ? err->code : PERUN_EGENERIC);
	const struct perun_view_ops *ops = view->desc->ops;
	/* A plugin built against ABI 1.0 has no show_diff member at all. */
	int (*fn)(struct perun_view_ctx *, struct perun_error *) = ops->show;
	if (n == 2)
		fn = PERUN_ABI_HAS(ops, struct perun_view_ops, show_diff) ? ops->show_diff : NULL;
	if (!fn)
		return perun_error_set(
			err, PERUN_EINVAL,
			n == 2 ? "view '%s' shows single profiles only; use 'perun show'"
			       : "view '%s' only compares two profiles; use 'perun showdiff'",
			view->name);
	/* Views that only walk the types read big files as they walk. */
	*how = PERUN_ABI_HAS(ops, struct perun_view_ops, flags) &&
			       (ops->flags & PERUN_VIEW_WALKS_TYPES)
		       ? PERUN_LOAD_STREAMED
		       : PERUN_LOAD_WHOLE;
	*out = view;
	return 0;
}

int perun_views_call(const struct perun_cli *cli, const struct perun_loaded_plugin *view,
		     struct perun_profile *const profiles[2], char *const *labels, int n,
		     int nwords, char **words, FILE *out, struct perun_error *err)
{
	const struct perun_view_ops *ops = view->desc->ops;
	int (*fn)(struct perun_view_ctx *, struct perun_error *) =
		n == 2 ? ops->show_diff : ops->show;
	struct perun_params *view_params = NULL;
	char **rest;
	int nrest;
	int rc = perun_runner_unit_params(view, nwords, words, NULL, &view_params, &rest, &nrest,
					  err);
	if (rc)
		return rc;
	struct perun_view_ctx ctx = {
		.size = sizeof(ctx),
		.params = view_params,
		.profile = profiles[n - 1],
		.argc = nrest,
		.argv = rest,
		.out = out,
		.color = cli->color,
		.profile_label = labels[n - 1],
		.baseline = n == 2 ? profiles[0] : NULL,
		.baseline_label = n == 2 ? labels[0] : NULL,
	};
	/* A streamed profile found malformed while the view read it fails
	 * as its load would have. */
	perun_crash_enter("view", view->name, n == 2 ? "show_diff" : "show");
	rc = fn(&ctx, err);
	perun_crash_leave();
	if (rc) {
		int load_rc = perun_profile_load_error(profiles[0], err);
		if (!load_rc && n == 2)
			load_rc = perun_profile_load_error(profiles[1], err);
		if (load_rc)
			rc = load_rc;
		else
			perun_error_prefix(err, "view '%s'", view->name);
	}
	perun_params_free(view_params);
	return rc;
}

int perun_views_render(const struct perun_cli *cli, const char *minor, const char *view_name,
		       char *const *selectors, int n, int nwords, char **words,
		       struct perun_error *err)
{
	struct perun_profile *profiles[2] = { NULL, NULL };
	const struct perun_loaded_plugin *view;
	enum perun_load_how how;
	struct perun_instance inst;
	int rc, opened = 0;
	if ((rc = perun_views_find(view_name, n, &view, &how, err)))
		return rc;
	rc = perun_instance_open(&inst, err);
	if (rc && err->code != PERUN_ENOTFOUND)
		goto out;
	opened = !rc;
	perun_error_clear(err);
	if ((rc = load_profiles(opened ? &inst : NULL, minor, selectors, n, how, profiles, err)))
		goto out;
	/* Tables and reports printed to a terminal can be long. */
	perun_pager_start(cli, opened ? &inst.config : NULL, "show");
	rc = perun_views_call(cli, view, profiles, selectors, n, nwords, words, stdout, err);
out:
	if (opened)
		perun_instance_close(&inst);
	perun_profiles_free_two(profiles);
	return rc;
}
