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
#include <math.h>
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
	VIEWLIB_STACKS_OF_OPTION,
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

/*
 * Readers take integer weights only (speedscope drops any other line, and
 * with it its time), so weights are rounded to the profile's unit.  Each
 * line gets the rounded running sum less what was written: the total stays
 * the rounded exact total, a line is off by at most 1, and lines left with
 * nothing are not written.
 *
 * The walk's path is kept as text, each frame escaped once when the walk
 * comes down to it: a line copies that text instead of the names of its
 * whole stack.  Lines go out a buffer at a time: the text of a million
 * stacks is never held whole.
 */
struct folding {
	struct perun_strbuf sb;
	struct perun_strbuf path;     /* the frames of the walk's path, ';'-joined */
	size_t *path_end;	      /* path_end[d]: length of the text of d frames */
	double exact;		      /* weight of the lines so far */
	long long written;	      /* their rounded weights */
	struct viewlib_stream stream; /* where full buffers of lines go */
};

static void fold_line(struct folding *f, const struct viewlib_stacks *s,
		      const struct viewlib_stack_step *step)
{
	long long w;
	f->path.len = f->path_end[step->depth - 1];
	if (step->depth > 1)
		perun_strbuf_addch(&f->path, ';');
	add_frame(&f->path, s->names[step->frame]);
	f->path_end[step->depth] = f->path.len;
	if (step->self == 0)
		return;
	f->exact += step->self;
	w = llround(f->exact) - f->written;
	if (w <= 0)
		return;
	f->written += w;
	perun_strbuf_add(&f->sb, f->path.buf, f->path.len);
	perun_strbuf_addf(&f->sb, " %lld\n", w);
	viewlib_stream_add(&f->stream, &f->sb, 0);
}

static int folded_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct viewlib_stacks s;
	struct viewlib_stack_step *steps = NULL;
	struct folding f = { PERUN_STRBUF_INIT, PERUN_STRBUF_INIT, NULL, 0, 0, { 0 } };
	int rc, opened = 0;
	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	/* Every node is visited: in walk order, front to back. */
	if ((rc = viewlib_stacks_from_view(&s, ctx->profile, ctx->params, err)))
		goto out;
	viewlib_stacks_drop_lookup(&s);
	if ((rc = viewlib_stacks_in_walk_order(&s, &steps, err)))
		goto out;
	if ((rc = viewlib_stream_open(&f.stream,
				      perun_params_string(ctx->params, "output-file", "-"),
				      ctx->out, err)))
		goto out;
	opened = 1;
	f.path_end = calloc((size_t)s.depth + 2, sizeof(*f.path_end));
	if (!f.path_end) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory folding the stacks");
		goto out;
	}
	for (uint32_t i = 1; i < s.nnodes; i++)
		fold_line(&f, &s, &steps[i]);
	if (f.sb.failed || f.path.failed) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory folding the stacks");
		goto out;
	}
	viewlib_stream_add(&f.stream, &f.sb, 1);
out:
	if (opened) {
		int close_rc = viewlib_stream_close(&f.stream, !rc, err);
		rc = rc ? rc : close_rc;
	}
	perun_strbuf_release(&f.sb);
	perun_strbuf_release(&f.path);
	free(f.path_end);
	free(steps);
	viewlib_stacks_release(&s);
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
