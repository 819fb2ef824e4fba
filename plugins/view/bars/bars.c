/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bars: "perun show <profile> bars [<func>] --of <key>": the values of
 * --of aggregated by <func> for each value of --per, one bar per --by
 * group, stacked (the default) or grouped.  The work is shared with flow
 * (plugins/lib/view/aggview.c).
 */
#include <perun/perun.h>

#include "view-common.h"

static const struct perun_option bars_options[] = {
	VIEWLIB_AGG_OF_OPTION,
	{ "per", "p", PERUN_OPTION_STRING, "snapshots", NULL, "<key>",
	  "the resource key on the X axis", 0 },
	{ "by", "b", PERUN_OPTION_STRING, NULL, NULL, "<key>",
	  "the resource key whose values make the stacked or grouped bars", 0 },
	{ "stacked", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "stack the bars of the --by groups (the default)", 0 },
	{ "grouped", "g", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "put the bars of the --by groups side by side", 0 },
	{ "filename", "f", PERUN_OPTION_STRING, "bars.html", NULL, "<path>",
	  "the page to write (a static <stem>.svg goes beside it)", 0 },
	VIEWLIB_LABEL_OPTIONS("per", "title of the graph"),
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static int bars_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	return viewlib_aggregated_show(ctx, 0, err);
}

static const struct perun_view_ops bars_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = bars_show,
};

PERUN_PLUGIN_DEFINE(bars, PERUN_KIND_VIEW, .version = "1.0",
		    .summary = "aggregated resources as stacked or grouped bars",
		    .options = bars_options, .ops = &bars_ops);
