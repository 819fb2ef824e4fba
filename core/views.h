/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Rendering profiles with a view plugin: perun show and perun showdiff. */
#ifndef PERUN_CORE_VIEWS_H
#define PERUN_CORE_VIEWS_H

#include <stdio.h>

#include "command.h"
#include "plugin_loader.h"
#include "profiles.h"

/* Options of perun show and perun showdiff (-m <rev>). */
extern const struct perun_option perun_views_options[];

/*
 * Load view_name, the profiles named by selectors[0..n) (tags, names,
 * SHA-1s or files, as perun show accepts them; minor is -m or NULL) and
 * call the view: show for one profile, show_diff for two (baseline, then
 * target).  words are the view's options and positionals.
 */
int perun_views_render(const struct perun_cli *cli, const char *minor, const char *view_name,
		       char *const *selectors, int n, int nwords, char **words,
		       struct perun_error *err);

/*
 * The view plugin view_name, checked to show n profiles (1: show, 2:
 * show_diff), and how to load profiles for it.
 */
int perun_views_find(const char *view_name, int n, const struct perun_loaded_plugin **view,
		     enum perun_load_how *how, struct perun_error *err);
/*
 * Call view (from perun_views_find) on profiles[0..n) (baseline first),
 * named labels[0..n), with its options and positionals words, writing to
 * out: perun show and showdiff, and perun serve into a buffer.
 */
int perun_views_call(const struct perun_cli *cli, const struct perun_loaded_plugin *view,
		     struct perun_profile *const profiles[2], char *const *labels, int n,
		     int nwords, char **words, FILE *out, struct perun_error *err);

#endif
