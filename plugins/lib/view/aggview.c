/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The bars and flow views: resources grouped by --per/--through and --by,
 * aggregated, drawn as bars (stacked or grouped) or as areas over x
 * (accumulated, stacked or overlaid); an HTML page with Chart.js and a
 * static SVG beside it.  Both plugins are this code with their options.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/params.h>
#include <perun/profile.h>

#include "view-common.h"

/* "<stem>.svg" beside "<stem>.html" (or beside any other name). */
static char *svg_name(const char *html)
{
	size_t n = strlen(html);
	if (n > 5 && !strcmp(html + n - 5, ".html"))
		n -= 5;
	char *s = malloc(n + 5);
	if (s) {
		memcpy(s, html, n);
		memcpy(s + n, ".svg", 5);
	}
	return s;
}

int viewlib_aggregated_show(struct perun_view_ctx *ctx, int flow, struct perun_error *err)
{
	const struct perun_params *params = ctx->params;
	const char *func = ctx->argc > 0 ? ctx->argv[0] : "sum";
	const char *of = perun_params_string(params, "of", NULL);
	const char *per = perun_params_string(params, flow ? "through" : "per", "snapshots");
	const char *by = perun_params_string(params, "by", NULL);
	int stacked = flow ? perun_params_bool(params, "stacked", 0)
			   : !perun_params_bool(params, "grouped", 0);
	int accumulate = flow && perun_params_bool(params, "accumulate", 1);
	const char *filename =
		perun_params_string(params, "filename", flow ? "flow.html" : "bars.html");
	struct viewlib_groups g = { 0 };
	struct perun_strbuf sb = PERUN_STRBUF_INIT, page = PERUN_STRBUF_INIT;
	struct viewlib_svg_series *series = NULL;
	double *x = NULL, *y = NULL, *base = NULL;
	char *title = NULL, *ylabel = NULL, *svg = NULL;
	enum viewlib_agg agg;
	int rc;

	if (ctx->argc > 1)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[1]);
	if (!of)
		return perun_error_set(err, PERUN_EINVAL, "say what to aggregate: --of <key>");
	if (!flow && perun_params_bool(params, "grouped", 0) &&
	    perun_params_has(params, "stacked") && perun_params_bool(params, "stacked", 0))
		return perun_error_set(err, PERUN_EINVAL,
				       "'--stacked' and '--grouped' exclude each other");
	if ((rc = viewlib_agg_parse(func, &agg, err)) < 0)
		return rc;
	if ((rc = viewlib_group(ctx->profile, of, per, by, agg, &g, err)) < 0)
		return rc;

	/* Perun's default titles and labels. */
	char Func[16];
	snprintf(Func, sizeof(Func), "%s", func);
	Func[0] = (char)(Func[0] - 'a' + 'A');
	if (flow)
		perun_strbuf_addf(&sb, "%s of '%s' through '%s' for each %s%s", Func, of, per,
				  by ? by : of, stacked ? " (stacked)" : "");
	else
		perun_strbuf_addf(&sb, "%s of '%s' per '%s' %s by %s", Func, of, per,
				  stacked ? "stacked" : "grouped", by ? by : "None");
	title = perun_strbuf_detach(&sb, NULL);
	const char *unit = viewlib_y_unit(ctx->profile, of);
	const char *yl = perun_params_string(params, "y-axis-label", NULL);
	if (yl || !*unit || agg == VIEWLIB_AGG_COUNT || agg == VIEWLIB_AGG_NUNIQUE)
		perun_strbuf_addstr(&sb, yl ? yl : of);
	else
		perun_strbuf_addf(&sb, "%s [%s]", of, unit);
	ylabel = perun_strbuf_detach(&sb, NULL);
	const char *xlabel = perun_params_string(params, "x-axis-label", per);
	const char *gtitle = perun_params_string(params, "graph-title", title);
	svg = svg_name(filename);
	size_t cells = g.nper * g.nby;
	x = malloc((cells + 1) * sizeof(double));
	y = malloc((cells + 1) * sizeof(double));
	base = malloc((cells + 1) * sizeof(double));
	series = calloc(g.nby + 1, sizeof(*series));
	if (!title || !ylabel || !svg || !x || !y || !base || !series) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}

	/* Series j at row j: x, y and the base it stands on. */
	int numeric_x = flow && g.per_numeric;
	for (size_t j = 0; j < g.nby; j++) {
		double running = 0.0;
		for (size_t i = 0; i < g.nper; i++) {
			size_t k = j * g.nper + i;
			double v = g.cell[i * g.nby + j];
			if (flow) { /* flows are zero where a group has nothing */
				if (isnan(v))
					v = 0.0;
				if (accumulate)
					v = running += v;
			}
			x[k] = numeric_x ? g.per_num[i] : (double)i;
			y[k] = v;
			base[k] = 0.0;
			if (stacked && j > 0) {
				double below = y[k - g.nper];
				base[k] = isnan(below) ? base[k - g.nper] : below;
				if (!isnan(v))
					y[k] = base[k] + v;
				else if (!flow)
					y[k] = NAN;
			}
		}
	}
	double width = stacked || flow ? 0.8 : 0.8 / (double)g.nby;
	for (size_t j = 0; j < g.nby; j++)
		series[j] = (struct viewlib_svg_series){
			.kind = flow ? VIEWLIB_SVG_AREA : VIEWLIB_SVG_BARS,
			.label = g.by[j],
			.x = x + j * g.nper,
			.y = y + j * g.nper,
			.y0 = base + j * g.nper,
			.n = g.nper,
			.bar_width = flow ? 0 : width,
			.bar_offset = stacked || flow ? 0 : width * ((double)j - (g.nby - 1) / 2.0),
			.color = j
		};
	struct viewlib_svg_plot plot = { .title = gtitle,
					 .xlabel = xlabel,
					 .ylabel = ylabel,
					 .categories =
						 numeric_x ? NULL : (const char *const *)g.per,
					 .ncategories = numeric_x ? 0 : g.nper,
					 .series = series,
					 .nseries = g.nby };
	if ((rc = viewlib_svg_render(&sb, &plot, 1, err)) < 0 ||
	    (rc = viewlib_write_buffer(svg, NULL, &sb, err)) < 0)
		goto out;

	/* The page gets the values unstacked: Chart.js stacks them itself. */
	if ((rc = viewlib_html_begin(&page, gtitle, 1, err)) < 0)
		goto out;
	/* The page's heading is the title: the one chart needs no other. */
	viewlib_chart_open(&page, 0, NULL, xlabel, ylabel,
			   numeric_x ? NULL : (const char *const *)g.per, numeric_x ? 0 : g.nper,
			   stacked);
	for (size_t j = 0; j < g.nby; j++) {
		double *raw = y + j * g.nper;
		for (size_t i = 0; i < g.nper; i++)
			if (stacked && !isnan(raw[i]))
				raw[i] -= base[j * g.nper + i];
		viewlib_chart_series(&page, g.by[j], flow ? "area" : "bar", j, x + j * g.nper, raw,
				     g.nper);
	}
	viewlib_chart_close(&page);
	perun_strbuf_addf(&page, "<p class=\"note\">%zu resources, %zu values of '", g.resources,
			  g.nper);
	viewlib_html_escape(&page, per);
	perun_strbuf_addf(&page, "', %zu series; a static picture: ", g.nby);
	const char *slash = strrchr(svg, '/');
	viewlib_html_escape(&page, slash ? slash + 1 : svg);
	perun_strbuf_addstr(&page, "</p>\n");
	viewlib_charts_script(&page);
	viewlib_html_end(&page);
	if ((rc = viewlib_write_buffer(filename, ctx->out, &page, err)) < 0)
		goto out;
	if (strcmp(filename, "-"))
		fprintf(ctx->out, "%s written to %s (and %s)\n", flow ? "flow graph" : "bar graph",
			filename, svg);
	rc = 0;
out:
	viewlib_groups_free(&g);
	perun_strbuf_release(&sb);
	perun_strbuf_release(&page);
	free(series);
	free(x);
	free(y);
	free(base);
	free(title);
	free(ylabel);
	free(svg);
	return rc;
}
