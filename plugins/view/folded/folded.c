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
	unsigned char *plain;	      /* plain[id]: name id is its own text */
	double exact;		      /* weight of the lines so far */
	long long written;	      /* their rounded weights */
	struct viewlib_stream stream; /* where full buffers of lines go */
};

/* The walk's path cut to depth - 1 frames, then name. */
static void fold_frame(struct folding *f, const struct viewlib_stacks *s, uint32_t depth,
		       uint32_t frame)
{
	f->path.len = f->path_end[depth - 1];
	if (depth > 1)
		perun_strbuf_addch(&f->path, ';');
	if (f->plain[frame])
		perun_strbuf_add(&f->path, s->names[frame], s->name_lens[frame]);
	else
		add_frame(&f->path, s->names[frame]);
	f->path_end[depth] = f->path.len;
}

/* The path's line, of weight self. */
static void fold_write(struct folding *f, double self)
{
	long long w;
	if (self == 0)
		return;
	f->exact += self;
	w = llround(f->exact) - f->written;
	if (w <= 0)
		return;
	f->written += w;
	perun_strbuf_add(&f->sb, f->path.buf, f->path.len);
	perun_strbuf_addf(&f->sb, " %lld\n", w);
	viewlib_stream_add(&f->stream, &f->sb, 0);
}

static int same_stack(const struct viewlib_stacks *s, const struct viewlib_listed_stack *a,
		      const struct viewlib_listed_stack *b)
{
	return a->len == b->len && !memcmp(s->frames.ids + a->start, s->frames.ids + b->start,
					   a->len * sizeof(*s->frames.ids));
}

/*
 * The listed stacks in the walk's order: equal stacks are the walk's node,
 * one line weighing their sum (added in the order read, as the node's
 * is), and a stack's path is the last one's up to where they part.
 */
static void fold_list(struct folding *f, const struct viewlib_stacks *s, const uint32_t *order)
{
	const uint32_t *last = NULL;
	uint32_t last_len = 0;
	for (uint32_t i = 0; i < s->nlisted;) {
		/* Stacks in this order are all over memory: their frames are
		 * fetched a few stacks ahead. */
		if (i + 16 < s->nlisted)
			__builtin_prefetch(&s->list[order[i + 16]]);
		if (i + 8 < s->nlisted)
			__builtin_prefetch(s->frames.ids + s->list[order[i + 8]].start);
		const struct viewlib_listed_stack *st = &s->list[order[i]];
		const uint32_t *ids = s->frames.ids + st->start;
		double self = 0;
		for (; i < s->nlisted && same_stack(s, &s->list[order[i]], st); i++)
			self += s->list[order[i]].weight;
		uint32_t d = 0;
		while (d < st->len && d < last_len && ids[d] == last[d])
			d++;
		for (; d < st->len; d++)
			fold_frame(f, s, d + 1, ids[d]);
		fold_write(f, self);
		last = ids;
		last_len = st->len;
	}
}

static int folded_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct viewlib_stacks s;
	struct viewlib_stack_step *steps = NULL;
	uint32_t *order = NULL;
	struct folding f = { PERUN_STRBUF_INIT, PERUN_STRBUF_INIT, NULL, NULL, 0, 0, { 0 } };
	int rc, opened = 0;
	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	/* The stacks sorted as a list, without a tree; or, when they are
	 * nested calls, every node of the tree in walk order. */
	if ((rc = viewlib_stacks_list_from_view(&s, ctx->profile, ctx->params, err)))
		goto out;
	if (s.listed)
		rc = viewlib_stacks_sort_list(&s, &order, NULL, err);
	else {
		viewlib_stacks_drop_lookup(&s);
		rc = viewlib_stacks_in_walk_order(&s, &steps, err);
	}
	if (rc)
		goto out;
	if ((rc = viewlib_stream_open(&f.stream,
				      perun_params_string(ctx->params, "output-file", "-"),
				      ctx->out, err)))
		goto out;
	opened = 1;
	f.path_end = calloc((size_t)s.depth + 2, sizeof(*f.path_end));
	f.plain = malloc((size_t)s.nnames + 1);
	if (!f.path_end || !f.plain) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory folding the stacks");
		goto out;
	}
	for (uint32_t i = 0; i < s.nnames; i++)
		f.plain[i] = strcspn(s.names[i], ";\n\r") == s.name_lens[i];
	if (order)
		fold_list(&f, &s, order);
	for (uint32_t i = 1; steps && i < s.nnodes; i++) {
		fold_frame(&f, &s, steps[i].depth, steps[i].frame);
		fold_write(&f, steps[i].self);
	}
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
	free(f.plain);
	free(steps);
	free(order);
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
