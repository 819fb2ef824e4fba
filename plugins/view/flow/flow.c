/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flow: "perun show <profile> flow [<func>] --of <key>": the values of
 * --of aggregated by <func> at each value of --through, one area per --by
 * group, accumulated over x (the default) and optionally stacked.  The
 * work is shared with bars (plugins/lib/view/aggview.c).
 */
#include <perun/perun.h>

#include "view-common.h"

static const struct perun_option flow_options[] = {
	VIEWLIB_AGG_OF_OPTION,
	{ "through", "t", PERUN_OPTION_STRING, "snapshots", NULL, "<key>",
	  "the resource key on the X axis", 0 },
	{ "by", "b", PERUN_OPTION_STRING, NULL, NULL, "<key>",
	  "the resource key whose values make the areas", 0 },
	{ "stacked", "s", PERUN_OPTION_BOOL, NULL, NULL, NULL, "stack the areas of the --by groups",
	  0 },
	{ "accumulate", NULL, PERUN_OPTION_BOOL, "true", NULL, NULL,
	  "accumulate the values over X (--no-accumulate: each on its own)", 0 },
	{ "filename", "f", PERUN_OPTION_STRING, "flow.html", NULL, "<path>",
	  "the page to write (a static <stem>.svg goes beside it)", 0 },
	VIEWLIB_LABEL_OPTIONS("through", "title of the graph"),
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static int flow_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	return viewlib_aggregated_show(ctx, 1, err);
}

static const struct perun_view_ops flow_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = flow_show,
};

PERUN_PLUGIN_DEFINE(flow, PERUN_KIND_VIEW, .version = "1.0",
		    .summary = "aggregated resources as (accumulated, stacked) areas over x",
		    .options = flow_options, .ops = &flow_ops);
