/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * folded - call stacks as Brendan Gregg's folded stacks, one line each:
 *
 *   outer;inner;leaf <weight>
 *
 *   perun show <profile> folded [-o out.folded] [--max-trace n]
 *
 * The format flamegraph.pl, inferno, speedscope and difffolded.pl read.
 * Lines are the call tree's paths with a weight of their own, in name
 * order, identical stacks merged.  A frame's ';' (the separator) becomes
 * ':' and line breaks become spaces: the format cannot hold them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>
#include <perun/strbuf.h>

#include "output.h"
#include "stacks.h"

static const struct perun_option folded_options[] = {
	{ "output-file", "o", PERUN_OPTION_STRING, "-", NULL, "<path>",
	  "where to write (- is standard output)", 0 },
	VIEWLIB_STACKS_MAX_TRACE_OPTION,
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static void add_frame(struct perun_strbuf *sb, const char *name)
{
	size_t n = strcspn(name, ";\n\r");
	perun_strbuf_add(sb, name, n);
	for (name += n; *name; name += n) {
		perun_strbuf_addch(sb, *name == ';' ? ':' : ' ');
		name++;
		n = strcspn(name, ";\n\r");
		perun_strbuf_add(sb, name, n);
	}
}

static int fold_line(const struct viewlib_stacks *s, uint32_t node, const uint32_t *path,
		     uint32_t depth, double offset, void *data)
{
	struct perun_strbuf *sb = data;
	char w[32];
	(void)offset;
	if (!depth || s->nodes[node].self == 0)
		return 0;
	for (uint32_t i = 0; i < depth; i++) {
		if (i)
			perun_strbuf_addch(sb, ';');
		add_frame(sb, viewlib_stacks_name(s, path[i]));
	}
	viewlib_stacks_format_weight(s->nodes[node].self, w);
	perun_strbuf_addf(sb, " %s\n", w);
	return 0;
}

static int folded_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct viewlib_stacks s;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	char *text = NULL;
	size_t len;
	int rc;
	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	if ((rc = viewlib_stacks_from_view(&s, ctx->profile, ctx->params, err)))
		goto out;
	if (viewlib_stacks_walk(&s, fold_line, &sb) || !(text = perun_strbuf_detach(&sb, &len))) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory folding the stacks");
		goto out;
	}
	rc = viewlib_write(perun_params_string(ctx->params, "output-file", "-"), ctx->out, text,
			   len, err);
out:
	perun_strbuf_release(&sb);
	viewlib_stacks_release(&s);
	free(text);
	return rc;
}

static const struct perun_view_ops folded_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = folded_show,
	/* Its stacks are read with one walk of the types. */
	.flags = PERUN_VIEW_WALKS_TYPES,
};

PERUN_PLUGIN_DEFINE(
	folded, PERUN_KIND_VIEW, .version = "1.0",
	.summary = "export call stacks as folded stacks (flamegraph.pl, inferno, speedscope)",
	.options = folded_options, .ops = &folded_ops);
