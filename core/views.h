/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Rendering profiles with a view plugin: perun show and perun showdiff. */
#ifndef PERUN_CORE_VIEWS_H
#define PERUN_CORE_VIEWS_H

#include "command.h"

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

#endif
