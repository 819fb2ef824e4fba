/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flamegraph - call stacks of a profile as an interactive SVG flame graph.
 *
 *   perun show <profile> flamegraph [-o flame.svg] [options]
 *   perun showdiff <baseline> <target> flamegraph [-o page.html] [options]
 *
 * Python Perun converts the profile to folded stacks and runs Brendan
 * Gregg's flamegraph.pl; this view draws the graph itself from the call
 * tree (plugins/lib/view/stacks.c): one <g class="f"> per frame with a
 * <title> tooltip and exact sample offsets in fg:x/fg:w, and a script of
 * our own (flamegraph.js) for zoom, search and the details line.  The diff
 * page holds baseline, target and a differential graph whose frames are as
 * wide as in the target and red where they grew, blue where they shrank,
 * against the baseline scaled to the target's total (difffolded.pl -n),
 * and its negation, the baseline's frames against the target, which shows
 * what the target lost.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>
#include <perun/strbuf.h>

#include "output.h"
#include "stacks.h"
#include "view-common.h"

static const char flame_js[] =
#include "flamegraph-js.h"
	;

static const struct perun_option flamegraph_options[] = {
	{ "output-file", "o", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "where to write (show: flame.svg; showdiff: an HTML page named after both profiles; "
	  "- for standard output)",
	  0 },
	{ "filename", "f", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "Python Perun's name of --output-file", 0 },
	{ "width", "w", PERUN_OPTION_INT, "1200", NULL, "<px>", "width of the image", 0 },
	{ "height", "h", PERUN_OPTION_INT, "16", NULL, "<px>", "height of one frame", 0 },
	{ "graph-height", NULL, PERUN_OPTION_INT, NULL, NULL, "<px>",
	  "Python Perun's name of --height", 0 },
	{ "minimum", "m", PERUN_OPTION_FLOAT, "0.1", NULL, "<px>",
	  "omit frames narrower than this (they stay in their parents' widths)", 0 },
	VIEWLIB_STACKS_MAX_TRACE_OPTION,
	VIEWLIB_STACKS_OF_OPTION,
	{ "title", "t", PERUN_OPTION_STRING, NULL, NULL, "<text>",
	  "title (default: '<type> consumption of <cmd> <workload>')", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

#define FONT_SIZE  12
#define PAD_X	   10
#define PAD_TOP	   64
#define PAD_BOTTOM 32

struct flame_opts {
	const char *output;
	long long width, height;
	double minimum;
	const char *title;
};

static int read_opts(const struct perun_view_ctx *ctx, struct flame_opts *o,
		     struct perun_error *err)
{
	const struct perun_params *p = ctx->params;
	o->output = perun_params_string(p, "output-file", NULL);
	const char *alias = perun_params_string(p, "filename", NULL);
	if (o->output && alias)
		return perun_error_set(err, PERUN_EINVAL,
				       "--output-file and --filename name the same file; give one");
	if (!o->output)
		o->output = alias;
	o->width = perun_params_int(p, "width", 1200);
	o->height = perun_params_has(p, "graph-height") ? perun_params_int(p, "graph-height", 16)
							: perun_params_int(p, "height", 16);
	o->minimum = perun_params_float(p, "minimum", 0.1);
	o->title = perun_params_string(p, "title", NULL);
	if (o->width < 2 * PAD_X + 10 || o->width > 1000000)
		return perun_error_set(err, PERUN_EINVAL,
				       "--width %lld: not between %d and 1000000", o->width,
				       2 * PAD_X + 10);
	if (o->height < 1 || o->height > 1000)
		return perun_error_set(err, PERUN_EINVAL, "--height %lld: not between 1 and 1000",
				       o->height);
	if (!(o->minimum >= 0) || !isfinite(o->minimum))
		return perun_error_set(err, PERUN_EINVAL, "--minimum %g: not a width of 0 or more",
				       o->minimum);
	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	return 0;
}

/* A value with thousands separators for the tooltips. */
/* v for people: thousands grouped, at most two decimals (exports keep
 * the exact weight). */
static void human(double v, char out[48])
{
	char raw[40];
	if (isfinite(v) && fabs(v) < 1e15) {
		snprintf(raw, sizeof(raw), "%.2f", v);
		char *end = raw + strlen(raw);
		while (end[-1] == '0')
			*--end = '\0';
		if (end[-1] == '.')
			*--end = '\0';
		if (!strcmp(raw, "-0"))
			strcpy(raw, "0");
	} else {
		viewlib_stacks_format_weight(v, raw);
	}
	const char *dot = strchr(raw, '.'), *e = strpbrk(raw, "eE");
	if (e || raw[0] == 'n' || raw[0] == 'i') {
		snprintf(out, 48, "%s", raw);
		return;
	}
	size_t int_len = dot ? (size_t)(dot - raw) : strlen(raw), o = 0, start = raw[0] == '-';
	for (size_t i = 0; i < int_len; i++) {
		if (i > start && (int_len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = raw[i];
	}
	snprintf(out + o, 48 - o, "%s", dot ? dot : "");
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Warm colours like flamegraph.pl's "hot", green ones for memory. */
static void frame_color(const char *name, int memory, char out[32])
{
	uint32_t h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;
	if (memory)
		snprintf(out, 32, "rgb(%d,%d,%d)", 0, 190 + (int)(50 * v2), (int)(210 * v1));
	else
		snprintf(out, 32, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1),
			 (int)(55 * v2));
}

/*
 * A differential graph draws one profile's tree coloured by the change to
 * the other's, scaled to the drawn total: the target against the baseline,
 * or (negated) the baseline against the target, which shows what the
 * target lost.  Red grew from baseline to target, blue shrank.
 */
struct diff_ref {
	double *other; /* drawn node -> the other profile's total of its path,
			* NAN where the other has none */
	double scale, max_delta;
	int negated; /* the baseline is drawn */
};

static double base_total(const struct diff_ref *d, uint32_t node)
{
	return isnan(d->other[node]) ? 0 : d->other[node] * d->scale;
}

/* The width of a frame of this total in a graph of root_total. */
static double frame_width(const struct flame_opts *o, double total, double root_total)
{
	return total * (root_total > 0 ? (o->width - 2.0 * PAD_X) / root_total : 0);
}

/* What frame_svg draws. */
static int frame_drawn(double total, double root_total, void *data)
{
	return !(frame_width(data, total, root_total) <
			 ((const struct flame_opts *)data)->minimum ||
		 total <= 0);
}

struct svg_job {
	struct perun_strbuf *sb;
	const struct viewlib_stacks *s;
	const struct flame_opts *o;
	const struct diff_ref *diff;
	double scale; /* pixels per unit of weight */
	int memory;
	uint32_t depth;
	size_t frames;
};

/* One frame; frames too narrow to draw hide their subtrees too. */
static int frame_svg(const struct viewlib_stacks *s, uint32_t node, const uint32_t *path,
		     uint32_t depth, double offset, void *data)
{
	struct svg_job *j = data;
	const struct viewlib_stack_node *n = &s->nodes[node];
	double w = n->total * j->scale;
	(void)path;
	(void)depth;
	if (!frame_drawn(n->total, j->s->nodes[0].total, (void *)j->o))
		return 1;
	const char *name = viewlib_stacks_name(j->s, node);
	double x = PAD_X + offset * j->scale;
	double y = PAD_TOP + (double)(j->depth - n->depth) * (double)j->o->height;
	double root_total = j->s->nodes[0].total;
	char value[48], fill[32], exact_x[32], exact_w[32];
	human(n->total, value);
	viewlib_stacks_format_weight(offset, exact_x);
	viewlib_stacks_format_weight(n->total, exact_w);
	perun_strbuf_addstr(j->sb, "<g class=\"f\"><title>");
	viewlib_html_escape(j->sb, name);
	perun_strbuf_addf(j->sb, " (%s %s, %.2f%%", value, j->s->unit[0] ? j->s->unit : "samples",
			  root_total > 0 ? 100.0 * n->total / root_total : 0.0);
	if (j->diff) {
		double other = base_total(j->diff, node);
		double before = j->diff->negated ? n->total : other;
		double delta = (j->diff->negated ? other : n->total) - before;
		char b[48];
		human(other, b);
		perun_strbuf_addf(j->sb, "; %s %s scaled, %+.2f%%",
				  j->diff->negated ? "target" : "baseline", b,
				  before > 0 ? 100.0 * delta / before : (delta > 0 ? 100.0 : 0.0));
		double r = j->diff->max_delta > 0 ? fabs(delta) / j->diff->max_delta : 0;
		int c = (int)lround(220 * (1 - r));
		/* Rounding of the scaled baseline is no change. */
		if (fabs(delta) <= 1e-9 * root_total)
			delta = 0;
		if (delta > 0)
			snprintf(fill, sizeof(fill), "rgb(255,%d,%d)", c, c);
		else if (delta < 0)
			snprintf(fill, sizeof(fill), "rgb(%d,%d,255)", c, c);
		else
			snprintf(fill, sizeof(fill), "rgb(235,235,235)");
	} else {
		frame_color(name, j->memory, fill);
	}
	perun_strbuf_addf(j->sb,
			  ")</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			  "fill=\"%s\" rx=\"2\" ry=\"2\" fg:x=\"%s\" fg:w=\"%s\"/>"
			  "<text x=\"%.2f\" y=\"%.1f\">",
			  x, y, w, (double)j->o->height - 1, fill, exact_x, exact_w, x + 3,
			  y + j->o->height / 2.0 + FONT_SIZE / 2.0 - 2);
	/* The same cut flamegraph.js makes on zoom. */
	size_t room = w > 6 ? (size_t)((w - 6) / (0.59 * FONT_SIZE)) : 0, len = strlen(name);
	if (room >= 3) {
		if (len <= room) {
			viewlib_html_escape(j->sb, name);
		} else {
			/* Never inside a UTF-8 sequence: the SVG would not parse. */
			size_t keep = room - 2;
			while (keep > 0 && ((unsigned char)name[keep] & 0xc0) == 0x80)
				keep--;
			char *cut = strndup(name, keep);
			if (cut) {
				viewlib_html_escape(j->sb, cut);
				perun_strbuf_addstr(j->sb, "..");
			}
			free(cut);
		}
	}
	perun_strbuf_addstr(j->sb, "</text></g>\n");
	j->frames++;
	return 0;
}

/*
 * One <svg> of the graph.  standalone: a whole SVG document (with its XML
 * prolog and the fg namespace); otherwise an element to inline in HTML.
 */
static size_t render_svg(struct perun_strbuf *sb, const struct viewlib_stacks *s,
			 const struct flame_opts *o, const char *title, const char *subtitle,
			 int memory, const struct diff_ref *diff, int standalone)
{
	uint32_t depth = s->depth;
	double height = PAD_TOP + (depth + 1.0) * (double)o->height + PAD_BOTTOM;
	double total = s->nodes[0].total;
	struct svg_job j = {
		sb, s, o, diff, total > 0 ? (o->width - 2.0 * PAD_X) / total : 0, memory, depth, 0
	};
	char total_text[32];
	viewlib_stacks_format_weight(total, total_text);
	if (standalone)
		perun_strbuf_addstr(sb, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	perun_strbuf_addf(
		sb,
		"<svg version=\"1.1\" class=\"perun-flame\" width=\"%lld\" height=\"%.0f\" "
		"viewBox=\"0 0 %lld %.0f\" xmlns=\"http://www.w3.org/2000/svg\"%s "
		"fg:pad=\"%d\" fg:total=\"%s\" fg:font=\"%d\">\n",
		o->width, height, o->width, height,
		standalone ? " xmlns:fg=\"urn:perun:flamegraph\"" : "", PAD_X, total_text,
		FONT_SIZE);
	perun_strbuf_addf(
		sb,
		"<style>text{font-family:Verdana,sans-serif;font-size:%dpx;fill:#000}"
		".title{font-size:17px;text-anchor:middle}.sub{fill:#555;text-anchor:middle}"
		".btn{cursor:pointer;fill:#333}.unzoom{opacity:0}.search{opacity:.5}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:.5}"
		"g.parent{opacity:.5}.matched{text-anchor:end}</style>\n",
		FONT_SIZE);
	perun_strbuf_addf(
		sb,
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#fbfbf4\"/>\n"
		"<text class=\"title\" x=\"%.1f\" y=\"24\">",
		o->width / 2.0);
	viewlib_html_escape(sb, title);
	perun_strbuf_addf(sb, "</text>\n<text class=\"sub\" x=\"%.1f\" y=\"44\">", o->width / 2.0);
	viewlib_html_escape(sb, subtitle);
	perun_strbuf_addf(
		sb,
		"</text>\n<text class=\"btn unzoom\" x=\"%d\" y=\"44\">Reset Zoom</text>\n"
		"<text class=\"btn search\" x=\"%lld\" y=\"44\">Search</text>\n"
		"<text class=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n"
		"<text class=\"matched\" x=\"%lld\" y=\"%.0f\"> </text>\n",
		PAD_X, o->width - PAD_X - 50, PAD_X, height - 12, o->width - PAD_X, height - 12);
	if (viewlib_stacks_walk(s, frame_svg, &j))
		sb->failed = 1;
	perun_strbuf_addstr(sb, "<script type=\"text/ecmascript\"><![CDATA[\n");
	perun_strbuf_addstr(sb, flame_js);
	perun_strbuf_addstr(sb, "]]></script>\n</svg>\n");
	return j.frames;
}

static const char *header_or(const struct perun_profile *p, const char *key, const char *dflt)
{
	const char *v = perun_profile_header(p, key);
	return v && *v ? v : dflt;
}

static char *default_title_dup(const struct perun_profile *p)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_strbuf_addf(&sb, "%s consumption of %s %s", header_or(p, "type", "?"),
			  header_or(p, "cmd", "?"), perun_profile_header(p, "workload"));
	return perun_strbuf_detach(&sb, NULL);
}

static int is_memory(const struct perun_profile *p)
{
	return !strcmp(perun_profile_type(p), "memory");
}

static void subtitle_of(const struct viewlib_stacks *s, const char *label, char *out, size_t len)
{
	char total[48];
	human(s->nodes[0].total, total);
	snprintf(out, len, "%s: %zu %s, %s %s in total", label ? label : "profile", s->nstacks,
		 s->timed ? "calls" : "stacks", total, s->unit[0] ? s->unit : "samples");
}

/* The stacks of p as a list (trace profiles: as a tree). */
static int load_stacks(const struct perun_view_ctx *ctx, const struct perun_profile *p,
		       struct viewlib_stacks *s, const char *what, struct perun_error *err)
{
	int rc = viewlib_stacks_list_from_view(s, p, ctx->params, err);
	if (rc && what)
		perun_error_prefix(err, "%s", what);
	return rc;
}

/* PERUN_TEST_WHOLE_TREE=1 draws from whole trees, for the tests that
 * compare them with the kept trees. */
static int whole_trees(void)
{
	const char *whole = getenv("PERUN_TEST_WHOLE_TREE");
	return whole && !strcmp(whole, "1");
}

/* The stacks of one graph, as a tree of the frames it draws: a million
 * stacks' whole tree is most of the memory of their graph. */
static int load_drawn_stacks(const struct perun_view_ctx *ctx, const struct flame_opts *o,
			     struct viewlib_stacks *s, struct perun_error *err)
{
	int rc = load_stacks(ctx, ctx->profile, s, NULL, err);
	if (rc)
		return rc;
	return whole_trees() ? viewlib_stacks_unlist(s, err)
			     : viewlib_stacks_kept_tree(s, frame_drawn, (void *)o, err);
}

/* What is done to both profiles' stacks, the baseline's in a thread of
 * its own while the target's are done here: for big profiles this is
 * most of the work. */
enum side_work { SIDE_LOAD, SIDE_SORT, SIDE_UNLIST };

struct side_job {
	const struct perun_view_ctx *ctx;
	struct viewlib_stacks *s;
	struct viewlib_sorted_stacks *sorted; /* SIDE_SORT's */
	enum side_work work;
	int baseline;
	struct perun_error err;
	int rc;
};

static void *side_job_run(void *arg)
{
	struct side_job *j = arg;
	switch (j->work) {
	case SIDE_LOAD:
		j->rc = load_stacks(j->ctx, j->baseline ? j->ctx->baseline : j->ctx->profile, j->s,
				    j->baseline ? "baseline" : "target", &j->err);
		break;
	case SIDE_SORT: j->rc = viewlib_stacks_sort_exact(j->s, j->sorted, &j->err); break;
	case SIDE_UNLIST: j->rc = viewlib_stacks_unlist(j->s, &j->err); break;
	}
	return NULL;
}

/* work on both sides; an error of either, else the first positive
 * result (SIDE_SORT: not exact). */
static int on_both_sides(const struct perun_view_ctx *ctx, struct viewlib_stacks *base,
			 struct viewlib_sorted_stacks *base_sorted, struct viewlib_stacks *target,
			 struct viewlib_sorted_stacks *target_sorted, enum side_work work,
			 struct perun_error *err)
{
	struct side_job b = { ctx, base, base_sorted, work, 1, { 0 }, 0 };
	struct side_job t = { ctx, target, target_sorted, work, 0, { 0 }, 0 };
	pthread_t thread;
	int threaded = pthread_create(&thread, NULL, side_job_run, &b) == 0;
	if (!threaded)
		side_job_run(&b);
	side_job_run(&t);
	if (threaded)
		pthread_join(thread, NULL);
	if (b.rc < 0 || (b.rc > 0 && t.rc >= 0)) {
		*err = b.err;
		return b.rc;
	}
	*err = t.err;
	return t.rc;
}

/* Both profiles' stacks, listed; both need viewlib_stacks_release,
 * whatever happens. */
static int load_both_stacks(const struct perun_view_ctx *ctx, struct viewlib_stacks *base,
			    struct viewlib_stacks *target, struct perun_error *err)
{
	return on_both_sides(ctx, base, NULL, target, NULL, SIDE_LOAD, err);
}

static int flamegraph_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct flame_opts o;
	struct viewlib_stacks s;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	char *title = NULL, *text = NULL, subtitle[512];
	size_t len;
	int rc = read_opts(ctx, &o, err);
	if (rc)
		return rc;
	const char *label = PERUN_ABI_HAS(ctx, struct perun_view_ctx, profile_label)
				    ? ctx->profile_label
				    : NULL;
	if ((rc = load_drawn_stacks(ctx, &o, &s, err)))
		goto out;
	if (!o.title && !(title = default_title_dup(ctx->profile)))
		goto oom;
	subtitle_of(&s, label, subtitle, sizeof(subtitle));
	render_svg(&sb, &s, &o, o.title ? o.title : title, subtitle, is_memory(ctx->profile), NULL,
		   1);
	if (!(text = perun_strbuf_detach(&sb, &len)))
		goto oom;
	rc = viewlib_write(o.output ? o.output : "flame.svg", ctx->out, text, len, err);
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory drawing the flame graph");
out:
	perun_strbuf_release(&sb);
	viewlib_stacks_release(&s);
	free(title);
	free(text);
	return rc;
}

/* Match every node of the drawn tree (target) with the other tree's
 * (base) node of the same path. */
static int diff_prepare(struct diff_ref *d, const struct viewlib_stacks *base,
			const struct viewlib_stacks *target, int negated)
{
	d->negated = negated;
	uint32_t *map = malloc((target->nnames + 1) * sizeof(*map));
	uint32_t *base_node = malloc(target->nnodes * sizeof(*base_node));
	d->other = malloc(target->nnodes * sizeof(*d->other));
	if (!map || !base_node || !d->other) {
		free(map);
		free(base_node);
		return -1;
	}
	for (uint32_t i = 0; i < target->nnames; i++)
		map[i] = viewlib_stacks_lookup(base, target->names[i]);
	double bt = base->nodes[0].total, tt = target->nodes[0].total;
	d->scale = bt > 0 ? tt / bt : 0;
	base_node[0] = 0;
	d->other[0] = bt;
	d->max_delta = 0;
	for (uint32_t i = 1; i < target->nnodes; i++) {
		uint32_t bp = base_node[target->nodes[i].parent];
		base_node[i] =
			bp == VIEWLIB_STACKS_NONE
				? VIEWLIB_STACKS_NONE
				: viewlib_stacks_child(base, bp, map[target->nodes[i].frame]);
		d->other[i] =
			base_node[i] == VIEWLIB_STACKS_NONE ? NAN : base->nodes[base_node[i]].total;
		double delta = fabs(target->nodes[i].total - base_total(d, i));
		if (delta > d->max_delta)
			d->max_delta = delta;
	}
	free(map);
	free(base_node);
	return 0;
}

/*
 * The two kept trees of a diff page (kept-tree.c), each with the other's
 * totals of its paths, and the colour scales, which need every node, from
 * both sorted lists (tree-changes.c).
 */
struct kept_side {
	struct viewlib_stacks *s;
	struct viewlib_sorted_stacks sorted;
	struct viewlib_kept_nodes kept;
	double *other; /* the other side's totals of kept's paths */
};

/*
 * d (target drawn) and neg (baseline drawn) from kept trees, which then
 * replace both lists; 1 (nothing changed) when the weights are not whole:
 * the caller makes whole trees.
 */
static int diff_kept(const struct perun_view_ctx *ctx, struct kept_side *base,
		     struct kept_side *target, const struct flame_opts *o, struct diff_ref *d,
		     struct diff_ref *neg, struct perun_error *err)
{
	struct kept_side *sides[2] = { base, target };
	int rc = on_both_sides(ctx, base->s, &base->sorted, target->s, &target->sorted, SIDE_SORT,
			       err);
	for (int k = 0; k < 2 && !rc; k++)
		rc = viewlib_stacks_keep(sides[k]->s, &sides[k]->sorted, frame_drawn, (void *)o,
					 &sides[k]->kept, err);
	for (int k = 0; k < 2 && !rc; k++) {
		struct kept_side *x = sides[k], *y = sides[1 - k];
		if (!(x->other = malloc(((size_t)x->kept.n + 1) * sizeof(*x->other))))
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "out of memory drawing the flame graphs");
		else
			rc = viewlib_kept_totals_in(x->s, &x->kept, y->s, &y->sorted, x->other,
						    err);
	}
	if (rc)
		return rc;
	double bt = base->sorted.sum[base->sorted.n], tt = target->sorted.sum[target->sorted.n];
	d->scale = bt > 0 ? tt / bt : 0;
	neg->scale = tt > 0 ? bt / tt : 0;
	d->negated = 0;
	neg->negated = 1;
	if ((rc = viewlib_stacks_largest_changes(target->s, &target->sorted, base->s, &base->sorted,
						 d->scale, neg->scale, &d->max_delta,
						 &neg->max_delta, err)) ||
	    (rc = viewlib_stacks_install_kept(target->s, &target->kept, err)) ||
	    (rc = viewlib_stacks_install_kept(base->s, &base->kept, err)))
		return rc;
	d->other = target->other;
	neg->other = base->other;
	target->other = base->other = NULL;
	return 0;
}

static void kept_side_release(struct kept_side *x)
{
	viewlib_sorted_stacks_release(&x->sorted);
	viewlib_kept_nodes_release(&x->kept);
	free(x->other);
}

/* The diff page's two trees with the other's totals of their paths:
 * kept trees when the weights are whole, else whole trees. */
static int diff_trees(const struct perun_view_ctx *ctx, struct viewlib_stacks *base,
		      struct viewlib_stacks *target, const struct flame_opts *o, struct diff_ref *d,
		      struct diff_ref *neg, struct perun_error *err)
{
	struct kept_side b = { base, { 0 }, { 0 }, NULL }, t = { target, { 0 }, { 0 }, NULL };
	int rc = whole_trees() ? 1 : diff_kept(ctx, &b, &t, o, d, neg, err);
	kept_side_release(&b);
	kept_side_release(&t);
	if (rc <= 0)
		return rc;
	if ((rc = on_both_sides(ctx, base, NULL, target, NULL, SIDE_UNLIST, err)))
		return rc;
	if (diff_prepare(d, base, target, 0) || diff_prepare(neg, target, base, 1))
		return perun_error_set(err, PERUN_EGENERIC,
				       "out of memory drawing the flame graphs");
	return 0;
}

static void add_summary_row(struct perun_strbuf *sb, const char *what, const char *label,
			    const struct perun_profile *p, const struct viewlib_stacks *s)
{
	char total[48];
	human(s->nodes[0].total, total);
	perun_strbuf_addf(sb, "<tr><th>%s</th>", what);
	viewlib_profile_cells(sb, label, p);
	perun_strbuf_addstr(sb, "<td>");
	viewlib_html_escape(sb, perun_profile_origin(p));
	perun_strbuf_addf(sb, "</td><td class=\"n\">%zu</td><td class=\"n\">%s ", s->nstacks,
			  total);
	viewlib_html_escape(sb, s->unit[0] ? s->unit : "samples");
	perun_strbuf_addstr(sb, "</td></tr>\n");
}

static int flamegraph_show_diff(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct flame_opts o;
	struct viewlib_stacks base, target;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct diff_ref d = { 0 }, neg = { 0 };
	char *text = NULL, *name = NULL, subtitle[512];
	size_t len;
	int rc = read_opts(ctx, &o, err);
	if (rc)
		return rc;
	if (!PERUN_ABI_HAS(ctx, struct perun_view_ctx, baseline_label) || !ctx->baseline)
		return perun_error_set(err, PERUN_EINVAL, "no baseline profile to compare with");
	const char *bl = ctx->baseline_label, *tl = ctx->profile_label;
	if ((rc = load_both_stacks(ctx, &base, &target, err)) ||
	    (rc = diff_trees(ctx, &base, &target, &o, &d, &neg, err)))
		goto out;
	const char *title = o.title ? o.title : "Differences of profiles (with flame graphs)";
	perun_strbuf_addstr(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
				 "<title>");
	viewlib_html_escape(&sb, title);
	perun_strbuf_addstr(
		&sb,
		"</title>\n<style>body{font-family:Verdana,sans-serif;margin:1em;background:#fff}"
		"table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;"
		"padding:.2em .5em;text-align:left}td.n{text-align:right}"
		"section{margin:1.5em 0}svg.perun-flame{max-width:100%;height:auto}</style>\n"
		"</head><body>\n<h1>");
	viewlib_html_escape(&sb, title);
	perun_strbuf_addstr(&sb, "</h1>\n<table><tr><th></th><th>profile</th><th>command</th>"
				 "<th>collector</th><th>origin</th><th>stacks</th><th>total</th>"
				 "</tr>\n");
	add_summary_row(&sb, "baseline", bl, ctx->baseline, &base);
	add_summary_row(&sb, "target", tl, ctx->profile, &target);
	perun_strbuf_addstr(&sb, "</table>\n<section id=\"baseline\"><h2>Baseline</h2>\n");
	subtitle_of(&base, bl, subtitle, sizeof(subtitle));
	render_svg(&sb, &base, &o, "Baseline flame graph", subtitle, is_memory(ctx->baseline), NULL,
		   0);
	perun_strbuf_addstr(&sb, "</section>\n<section id=\"target\"><h2>Target</h2>\n");
	subtitle_of(&target, tl, subtitle, sizeof(subtitle));
	render_svg(&sb, &target, &o, "Target flame graph", subtitle, is_memory(ctx->profile), NULL,
		   0);
	perun_strbuf_addstr(&sb, "</section>\n<section id=\"difference\"><h2>Difference</h2>\n"
				 "<p>Frames are as wide as in the target; red grew and blue shrank "
				 "against the baseline scaled to the target's total.</p>\n");
	snprintf(subtitle, sizeof(subtitle), "baseline scaled by %.4g to the target's total",
		 d.scale);
	render_svg(&sb, &target, &o, "Difference flame graph", subtitle, 0, &d, 0);
	perun_strbuf_addstr(&sb,
			    "</section>\n<section id=\"negated\"><h2>What the target lost</h2>\n"
			    "<p>Frames are as wide as in the baseline, coloured the same way "
			    "against the target scaled to the baseline's total: blue frames "
			    "shrank or are gone.</p>\n");
	snprintf(subtitle, sizeof(subtitle), "target scaled by %.4g to the baseline's total",
		 neg.scale);
	render_svg(&sb, &base, &o, "Negated difference flame graph", subtitle, 0, &neg, 0);
	perun_strbuf_addstr(&sb, "</section>\n</body></html>\n");
	if (!(text = perun_strbuf_detach(&sb, &len)))
		goto oom;
	if (!o.output && !(name = viewlib_diff_name_dup("flamegraph", bl, tl, "html")))
		goto oom;
	rc = viewlib_write(o.output ? o.output : name, ctx->out, text, len, err);
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory drawing the flame graphs");
out:
	free(d.other);
	free(neg.other);
	perun_strbuf_release(&sb);
	viewlib_stacks_release(&base);
	viewlib_stacks_release(&target);
	free(text);
	free(name);
	return rc;
}

static const struct perun_view_ops flamegraph_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = flamegraph_show,
	.show_diff = flamegraph_show_diff,
	/* Its stacks are read with one walk of the types. */
	.flags = PERUN_VIEW_WALKS_TYPES,
};

PERUN_PLUGIN_DEFINE(
	flamegraph, PERUN_KIND_VIEW, .version = "1.0",
	.summary = "call stacks as an interactive SVG flame graph (trace, memory, kperf)",
	.options = flamegraph_options, .ops = &flamegraph_ops);
