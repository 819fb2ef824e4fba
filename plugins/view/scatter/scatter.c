/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scatter: one plot per uid with the resources as points (x from --per, y
 * from --of) and every model of that uid drawn as its curve: parametric
 * models from their coefficients over their interval (so interval and
 * bisection models are segments), regressograms as steps of their bucket
 * statistics, moving averages and kernel regressions as lines through
 * their statistics at the uid's sorted x values.  Writes <filename>.html
 * (Chart.js, inlined) and a static <filename>_<uid>.svg per plot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>
#include <perun/points.h>
#include <perun/profile.h>
#include <perun/params.h>
#include <perun/strbuf.h>

#include "view-common.h"

static const struct perun_option scatter_options[] = {
	{ "of", "o", PERUN_OPTION_STRING, "amount", NULL, "<key>", "the resource key on the Y axis",
	  0 },
	{ "per", "p", PERUN_OPTION_STRING, "structure-unit-size", NULL, "<key>",
	  "the resource key on the X axis", 0 },
	{ "filename", "f", PERUN_OPTION_STRING, "scatter", NULL, "<path>",
	  "output prefix: <path>.html and <path>_<uid>.svg", 0 },
	VIEWLIB_LABEL_OPTIONS("per", "title of the plots (default: Plot of '<of>' per '<per>')"),
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

/* Points the parametric curves are sampled at. */
#define CURVE_POINTS 200
/* The interactive page keeps one point per cell of this grid (a cell is
 * about two pixels of the chart): a million points would make the browser
 * crawl and look no different. */
#define GRID_W 500
#define GRID_H 250

struct curve {
	char *label;
	double *x, *y;
	size_t n;
};

struct plot {
	const char *uid;
	double *x, *y;
	size_t n;
	struct curve *curves;
	size_t ncurves;
	struct perun_strbuf notes;
};

static void plot_free(struct plot *p)
{
	for (size_t i = 0; i < p->ncurves; i++) {
		free(p->curves[i].label);
		free(p->curves[i].x);
		free(p->curves[i].y);
	}
	free(p->curves);
	free(p->x);
	free(p->y);
	perun_strbuf_release(&p->notes);
}

static double coeff(const json_t *model, const char *name)
{
	size_t i;
	json_t *c;
	double v;
	json_array_foreach(
		json_object_get(model, "coeffs"), i,
		c) if (!strcmp(json_string_value(json_object_get(c, "name")) ?: "", name) &&
		       !perun_json_number(json_object_get(c, "value"), &v)) return v;
	return 0.0; /* Perun's transformation defaults a missing one to 0 */
}

/* The formulas of Perun's plot_model transformations. */
static int parametric(const char *model, double x, double b0, double b1, double b2, double *y)
{
	if (!strcmp(model, "linear") || !strcmp(model, "constant"))
		*y = b0 + b1 * x;
	else if (!strcmp(model, "logarithmic"))
		*y = b0 + b1 * log(x);
	else if (!strcmp(model, "quadratic"))
		*y = b0 + b1 * x + b2 * x * x;
	else if (!strcmp(model, "power"))
		*y = b0 * pow(x, b1);
	else if (!strcmp(model, "exponential"))
		*y = b0 * pow(b1, x);
	else
		return -1;
	return 0;
}

static char *model_label(const json_t *m)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	const char *name = json_string_value(json_object_get(m, "model")) ?: "?";
	double r2 = NAN;
	perun_json_number(json_object_get(m, "r_square"), &r2);
	if (json_object_get(m, "coeffs")) {
		size_t i;
		json_t *c;
		double v;
		perun_strbuf_addf(&sb, "%s: ", name);
		json_array_foreach(json_object_get(m, "coeffs"), i, c)
		{
			if (perun_json_number(json_object_get(c, "value"), &v))
				v = NAN;
			perun_strbuf_addf(&sb, "%s=%f, ",
					  json_string_value(json_object_get(c, "name")) ?: "?", v);
		}
		perun_strbuf_addf(&sb, "r^2=%.3f", r2);
	} else if (!strcmp(name, "moving_average")) {
		perun_strbuf_addf(&sb, "%s: window=%lld, R^2=%.3f",
				  json_string_value(json_object_get(m, "moving_method")) ?: "?",
				  (long long)json_integer_value(json_object_get(m, "window_width")),
				  r2);
	} else if (!strcmp(name, "kernel_regression")) {
		double bw = NAN;
		perun_json_number(json_object_get(m, "bandwidth"), &bw);
		perun_strbuf_addf(&sb, "%s: bw=%g, R^2=%f",
				  json_string_value(json_object_get(m, "kernel_mode")) ?: "?", bw,
				  r2);
	} else if (!strcmp(name, "regressogram")) {
		perun_strbuf_addf(
			&sb, "reg: buckets=%zu, stat: %s, R^2=%.3f",
			json_array_size(json_object_get(m, "bucket_stats")),
			json_string_value(json_object_get(m, "statistic_function")) ?: "?", r2);
	} else {
		perun_strbuf_addstr(&sb, name);
	}
	return perun_strbuf_detach(&sb, NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The curve of one model, or a note on the plot why it has none. */
static int add_model(struct plot *p, const json_t *m, const char *per)
{
	const char *name = json_string_value(json_object_get(m, "model")) ?: "";
	double x0 = NAN, x1 = NAN;
	perun_json_number(json_object_get(m, "x_start"), &x0);
	perun_json_number(json_object_get(m, "x_end"), &x1);
	const json_t *stats = json_object_get(m, "bucket_stats");
	if (!stats)
		stats = json_object_get(m, "kernel_stats"); /* older profiles */
	size_t k = json_array_size(stats), n = 0;
	struct curve c = { 0 };

	if (json_object_get(m, "coeffs")) {
		double b0 = coeff(m, "b0"), b1 = coeff(m, "b1"), b2 = coeff(m, "b2"), y;
		if (parametric(name, 1.0, b0, b1, b2, &y) < 0 || !isfinite(x0) || !isfinite(x1)) {
			perun_strbuf_addf(&p->notes, "model '%s' cannot be drawn; ", name);
			return 0;
		}
		c.x = malloc(CURVE_POINTS * sizeof(double));
		c.y = malloc(CURVE_POINTS * sizeof(double));
		if (!c.x || !c.y)
			goto oom;
		for (size_t i = 0; i < CURVE_POINTS; i++) {
			double x = x0 + (x1 - x0) * (double)i / (CURVE_POINTS - 1);
			parametric(name, x, b0, b1, b2, &y);
			c.x[n] = x;
			c.y[n++] = isfinite(y) ? y : NAN; /* log(0): a gap */
		}
	} else if (!strcmp(name, "regressogram") && k) {
		/* Steps: bucket i spans an even share of [x_start, x_end] at
		 * the height of its statistic, starting from y_start. */
		double y = NAN;
		perun_json_number(json_object_get(m, "y_start"), &y);
		c.x = malloc((2 * k + 1) * sizeof(double));
		c.y = malloc((2 * k + 1) * sizeof(double));
		if (!c.x || !c.y)
			goto oom;
		c.x[n] = x0;
		c.y[n++] = y;
		for (size_t i = 0; i < k; i++) {
			double edge = x0 + (x1 - x0) * (double)(i + 1) / (double)k;
			if (perun_json_number(json_array_get(stats, i), &y))
				y = NAN;
			c.x[n] = n > 1 ? c.x[n - 1] : x0;
			c.y[n++] = y;
			c.x[n] = edge;
			c.y[n++] = y;
		}
	} else if ((!strcmp(name, "moving_average") || !strcmp(name, "kernel_regression")) && k) {
		const char *mper = json_string_value(json_object_get(m, "per_key"));
		if (mper && strcmp(mper, per)) {
			perun_strbuf_addf(&p->notes, "model '%s' is per '%s', not drawn per '%s'; ",
					  name, mper, per);
			return 0;
		}
		/* Its statistics belong to the uid's x values in sorted order. */
		size_t cnt = k < p->n ? k : p->n;
		c.x = malloc((p->n + 1) * sizeof(double));
		c.y = malloc((cnt + 1) * sizeof(double));
		if (!c.x || !c.y)
			goto oom;
		memcpy(c.x, p->x, p->n * sizeof(double));
		qsort(c.x, p->n, sizeof(double), cmp_double);
		for (size_t i = 0; i < cnt; i++)
			if (perun_json_number(json_array_get(stats, i), &c.y[i]))
				c.y[i] = NAN;
		n = cnt;
	} else {
		perun_strbuf_addf(&p->notes, "model '%s' cannot be drawn; ", name);
		return 0;
	}
	c.n = n;
	if (!(c.label = model_label(m)))
		goto oom;
	struct curve *grown = realloc(p->curves, (p->ncurves + 1) * sizeof(*grown));
	if (!grown)
		goto oom;
	p->curves = grown;
	p->curves[p->ncurves++] = c;
	return 0;
oom:
	free(c.x);
	free(c.y);
	free(c.label);
	return -1;
}

/* The points of one uid, thinned to one per cell of the page's grid. */
static size_t thin_points(const struct plot *p, double *x, double *y)
{
	double xlo = HUGE_VAL, xhi = -HUGE_VAL, ylo = HUGE_VAL, yhi = -HUGE_VAL;
	for (size_t i = 0; i < p->n; i++) {
		xlo = fmin(xlo, p->x[i]);
		xhi = fmax(xhi, p->x[i]);
		ylo = fmin(ylo, p->y[i]);
		yhi = fmax(yhi, p->y[i]);
	}
	if (p->n <= 2000) {
		memcpy(x, p->x, p->n * sizeof(double));
		memcpy(y, p->y, p->n * sizeof(double));
		return p->n;
	}
	unsigned char *seen = calloc((size_t)GRID_W * GRID_H / 8 + 1, 1);
	if (!seen)
		return (size_t)-1;
	double sx = xhi > xlo ? (GRID_W - 1) / (xhi - xlo) : 0;
	double sy = yhi > ylo ? (GRID_H - 1) / (yhi - ylo) : 0;
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t cell =
			(size_t)((p->y[i] - ylo) * sy) * GRID_W + (size_t)((p->x[i] - xlo) * sx);
		if (seen[cell / 8] & (1u << (cell % 8)))
			continue;
		seen[cell / 8] |= (unsigned char)(1u << (cell % 8));
		x[n] = p->x[i];
		y[n++] = p->y[i];
	}
	free(seen);
	return n;
}

static int write_svg(const char *prefix, const struct plot *p, const char *title,
		     const char *xlabel, const char *ylabel, struct perun_error *err)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct viewlib_svg_series *s = calloc(p->ncurves + 1, sizeof(*s));
	char *path = viewlib_file_name(prefix, p->uid, ".svg");
	int rc;
	if (!s || !path) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	s[0] = (struct viewlib_svg_series){ .kind = VIEWLIB_SVG_POINTS,
					    .label = "resources",
					    .x = p->x,
					    .y = p->y,
					    .n = p->n,
					    .color = 3 };
	for (size_t i = 0; i < p->ncurves; i++)
		s[i + 1] = (struct viewlib_svg_series){ .kind = VIEWLIB_SVG_LINE,
							.label = p->curves[i].label,
							.x = p->curves[i].x,
							.y = p->curves[i].y,
							.n = p->curves[i].n,
							.color = i >= 3 ? i + 1 : i };
	struct viewlib_svg_plot plot = { .title = title,
					 .xlabel = xlabel,
					 .ylabel = ylabel,
					 .series = s,
					 .nseries = p->ncurves + 1 };
	rc = viewlib_svg_render(&sb, &plot, 1, err);
	if (!rc)
		rc = viewlib_write_buffer(path, NULL, &sb, err);
out:
	perun_strbuf_release(&sb);
	free(path);
	free(s);
	return rc;
}

static int add_plot(struct perun_strbuf *html, size_t index, struct plot *p, const char *title,
		    const char *xlabel, const char *ylabel, struct perun_error *err)
{
	double *tx = malloc((p->n + 1) * sizeof(double)), *ty = malloc((p->n + 1) * sizeof(double));
	size_t n = tx && ty ? thin_points(p, tx, ty) : (size_t)-1;
	if (n == (size_t)-1) {
		free(tx);
		free(ty);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	viewlib_chart_open(html, index, title, xlabel, ylabel, NULL, 0, 0);
	viewlib_chart_series(html, "resources", "points", 3, tx, ty, n);
	for (size_t i = 0; i < p->ncurves; i++)
		viewlib_chart_series(html, p->curves[i].label, "line", i >= 3 ? i + 1 : i,
				     p->curves[i].x, p->curves[i].y, p->curves[i].n);
	viewlib_chart_close(html);
	perun_strbuf_addf(html, "<p class=\"note\">%zu points", p->n);
	if (n < p->n)
		perun_strbuf_addf(html, " (%zu shown: one per cell of a %dx%d grid)", n, GRID_W,
				  GRID_H);
	perun_strbuf_addf(html, ", %zu model%s", p->ncurves, p->ncurves == 1 ? "" : "s");
	if (p->notes.len) {
		perun_strbuf_addstr(html, "; ");
		viewlib_html_escape(html, p->notes.buf);
	}
	perun_strbuf_addstr(html, "</p>\n");
	free(tx);
	free(ty);
	return 0;
}

static int scatter_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	const struct perun_params *params = ctx->params;
	const char *of = perun_params_string(params, "of", "amount");
	const char *per = perun_params_string(params, "per", "structure-unit-size");
	const char *prefix = perun_params_string(params, "filename", "scatter");
	struct perun_points *points = NULL;
	struct perun_strbuf html = PERUN_STRBUF_INIT, sb = PERUN_STRBUF_INIT;
	char *base = NULL, *html_path = NULL;
	size_t nplots = 0;
	int rc;

	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	/* "--filename x.html" names the page; the SVGs are beside it. */
	size_t plen = strlen(prefix);
	base = strdup(prefix);
	if (!base)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (plen > 5 && !strcmp(base + plen - 5, ".html"))
		base[plen - 5] = '\0';

	perun_strbuf_addf(&sb, "Plot of '%s' per '%s'", of, per);
	char *dflt_title = perun_strbuf_detach(&sb, NULL);
	const char *unit = viewlib_y_unit(ctx->profile, of);
	const char *ylabel_given = perun_params_string(params, "y-axis-label", NULL);
	if (ylabel_given || !*unit)
		perun_strbuf_addstr(&sb, ylabel_given ? ylabel_given : of);
	else
		perun_strbuf_addf(&sb, "%s [%s]", of, unit);
	char *ylabel = perun_strbuf_detach(&sb, NULL);
	const char *xlabel = perun_params_string(params, "x-axis-label", per);
	const char *gtitle = perun_params_string(params, "graph-title", dflt_title);
	if (!dflt_title || !ylabel) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}

	if ((rc = perun_points_open(ctx->profile, &points, err)) < 0 ||
	    (rc = perun_points_check_key(points, "of", of, err)) < 0 ||
	    (rc = perun_points_check_key(points, "per", per, err)) < 0)
		goto out;
	if ((rc = viewlib_html_begin(&html, gtitle, 1, err)) < 0)
		goto out;
	const json_t *models = perun_profile_get(ctx->profile, "models");
	for (;;) {
		const char *uid;
		struct perun_point *pts;
		size_t n;
		rc = perun_points_next(points, per, of, &uid, &pts, &n, err);
		if (rc <= 0)
			break;
		rc = 0;
		struct plot p = { .uid = uid, .n = n, .notes = PERUN_STRBUF_INIT };
		p.x = malloc(n * sizeof(double));
		p.y = malloc(n * sizeof(double));
		if (!p.x || !p.y) {
			plot_free(&p);
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		for (size_t i = 0; i < n; i++) {
			p.x[i] = pts[i].x.d;
			p.y[i] = pts[i].y.d;
		}
		size_t i;
		json_t *m;
		json_array_foreach(models, i, m)
		{
			const char *muid = json_string_value(json_object_get(m, "uid"));
			if (muid && !strcmp(muid, uid) && add_model(&p, m, per) < 0) {
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
				break;
			}
		}
		perun_strbuf_addf(&sb, "%s; uid: %s", gtitle, uid);
		char *title = perun_strbuf_detach(&sb, NULL);
		if (!rc && !title)
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		if (!rc)
			rc = add_plot(&html, nplots++, &p, title, xlabel, ylabel, err);
		if (!rc)
			rc = write_svg(base, &p, title, xlabel, ylabel, err);
		free(title);
		plot_free(&p);
		if (rc)
			break;
	}
	if (rc < 0)
		goto out;
	viewlib_charts_script(&html);
	viewlib_html_end(&html);
	perun_strbuf_addf(&sb, "%s.html", base);
	if (!(html_path = perun_strbuf_detach(&sb, NULL))) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	if ((rc = viewlib_write_buffer(html_path, ctx->out, &html, err)) < 0)
		goto out;
	fprintf(ctx->out, "%zu plot%s written to %s (and %s_<uid>.svg)\n", nplots,
		nplots == 1 ? "" : "s", html_path, base);
	rc = 0;
out:
	perun_points_free(points);
	perun_strbuf_release(&html);
	perun_strbuf_release(&sb);
	free(dflt_title);
	free(ylabel);
	free(base);
	free(html_path);
	return rc;
}

static const struct perun_view_ops scatter_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = scatter_show,
};

PERUN_PLUGIN_DEFINE(scatter, PERUN_KIND_VIEW, .version = "1.0",
		    .summary = "resources and their models as scatter plots per uid",
		    .options = scatter_options, .ops = &scatter_ops);
