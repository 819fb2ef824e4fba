/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Static SVG plots for the graphical views (see view-common.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "view-common.h"

enum { MARGIN_LEFT = 80, MARGIN_TOP = 44, MARGIN_BOTTOM = 60, LEGEND_WIDTH = 230 };

size_t viewlib_ticks(double lo, double hi, size_t max, double *ticks)
{
	if (!isfinite(lo) || !isfinite(hi) || max < 2)
		return 0;
	if (hi <= lo) {
		ticks[0] = lo;
		return 1;
	}
	double raw = (hi - lo) / (double)(max - 1);
	double mag = pow(10.0, floor(log10(raw)));
	double step = mag;
	for (int i = 0; i < 3 && (hi - lo) / step > (double)(max - 1); i++)
		step = mag * (i == 0 ? 2.0 : i == 1 ? 5.0 : 10.0);
	double first = ceil(lo / step - 1e-9) * step;
	size_t n = 0;
	for (double t = first; t <= hi + step * 1e-9 && n < max; t += step)
		ticks[n++] = fabs(t) < step * 1e-9 ? 0.0 : t;
	return n;
}

struct frame {
	double x0, x1, y0, y1; /* data ranges */
	int left, top, w, h;   /* plot area in pixels */
};

static double px(const struct frame *f, double x)
{
	return f->left + (x - f->x0) / (f->x1 - f->x0) * f->w;
}

static double py(const struct frame *f, double y)
{
	return f->top + f->h - (y - f->y0) / (f->y1 - f->y0) * f->h;
}

static void widen(double *lo, double *hi, double v)
{
	if (!isfinite(v))
		return;
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

static void tick_label(struct perun_strbuf *sb, double v)
{
	char buf[32];
	if (fabs(v) >= 1e6 || (fabs(v) < 1e-3 && v != 0.0))
		snprintf(buf, sizeof(buf), "%.3g", v);
	else
		snprintf(buf, sizeof(buf), "%.10g", v);
	perun_strbuf_addstr(sb, buf);
}

static void axes(struct perun_strbuf *sb, const struct viewlib_svg_plot *p, const struct frame *f)
{
	double ticks[16];
	size_t n;
	perun_strbuf_addf(sb,
			  "<g class=\"axes\" font-size=\"11\" fill=\"#333\">\n"
			  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
			  "stroke=\"#333\"/>\n",
			  f->left, f->top, f->w, f->h);
	n = viewlib_ticks(f->y0, f->y1, 8, ticks);
	for (size_t i = 0; i < n; i++) {
		double y = py(f, ticks[i]);
		perun_strbuf_addf(sb,
				  "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
				  "y2=\"%.1f\" stroke=\"#ddd\"/>"
				  "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
				  f->left, f->left + f->w, y, y, f->left - 6, y + 4);
		tick_label(sb, ticks[i]);
		perun_strbuf_addstr(sb, "</text>\n");
	}
	if (p->categories) {
		size_t every = p->ncategories / 20 + 1;
		for (size_t i = 0; i < p->ncategories; i += every) {
			double x = px(f, (double)i);
			perun_strbuf_addf(sb,
					  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
					  "stroke=\"#333\"/>"
					  "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
					  x, x, f->top + f->h, f->top + f->h + 5, x,
					  f->top + f->h + 18);
			char label[40];
			snprintf(label, sizeof(label), "%.36s", p->categories[i]);
			viewlib_html_escape(sb, label);
			perun_strbuf_addstr(sb, "</text>\n");
		}
	} else {
		n = viewlib_ticks(f->x0, f->x1, 10, ticks);
		for (size_t i = 0; i < n; i++) {
			double x = px(f, ticks[i]);
			perun_strbuf_addf(sb,
					  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
					  "stroke=\"#333\"/>"
					  "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
					  x, x, f->top + f->h, f->top + f->h + 5, x,
					  f->top + f->h + 18);
			tick_label(sb, ticks[i]);
			perun_strbuf_addstr(sb, "</text>\n");
		}
	}
	perun_strbuf_addf(sb,
			  "<text class=\"xlabel\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			  "font-size=\"13\">",
			  f->left + f->w / 2.0, f->top + f->h + 42);
	viewlib_html_escape(sb, p->xlabel ? p->xlabel : "");
	perun_strbuf_addf(
		sb,
		"</text>\n<text class=\"ylabel\" transform=\"translate(18,%.1f) rotate(-90)\" "
		"text-anchor=\"middle\" font-size=\"13\">",
		f->top + f->h / 2.0);
	viewlib_html_escape(sb, p->ylabel ? p->ylabel : "");
	perun_strbuf_addstr(sb, "</text>\n</g>\n");
}

static int draw_points(struct perun_strbuf *sb, const struct frame *f,
		       const struct viewlib_svg_series *s, const char *color)
{
	/* One bit per pixel: a point on a pixel already drawn adds nothing. */
	size_t w = (size_t)f->w + 1, h = (size_t)f->h + 1;
	uint8_t *seen = calloc((w * h + 7) / 8, 1);
	if (!seen)
		return -1;
	perun_strbuf_addf(sb,
			  "<g class=\"points\" fill=\"%s\" fill-opacity=\"0.75\" stroke=\"#222\" "
			  "stroke-width=\"0.5\">\n",
			  color);
	for (size_t i = 0; i < s->n; i++) {
		if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
			continue;
		double x = px(f, s->x[i]), y = py(f, s->y[i]);
		size_t cx = (size_t)lround(x - f->left), cy = (size_t)lround(y - f->top);
		if (cx >= w || cy >= h)
			continue;
		size_t bit = cy * w + cx;
		if (seen[bit / 8] & (1u << (bit % 8)))
			continue;
		seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
		perun_strbuf_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n", x, y);
	}
	perun_strbuf_addstr(sb, "</g>\n");
	free(seen);
	return 0;
}

static void draw_line(struct perun_strbuf *sb, const struct frame *f,
		      const struct viewlib_svg_series *s, const char *color)
{
	int open = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
			if (open)
				perun_strbuf_addstr(sb, "\"/>\n");
			open = 0;
			continue;
		}
		if (!open)
			perun_strbuf_addf(sb,
					  "<path class=\"line\" fill=\"none\" stroke=\"%s\" "
					  "stroke-width=\"2.5\" d=\"M",
					  color);
		else
			perun_strbuf_addch(sb, 'L');
		perun_strbuf_addf(sb, "%.1f %.1f", px(f, s->x[i]), py(f, s->y[i]));
		open = 1;
	}
	if (open)
		perun_strbuf_addstr(sb, "\"/>\n");
}

static void draw_bars(struct perun_strbuf *sb, const struct frame *f,
		      const struct viewlib_svg_series *s, const char *color)
{
	perun_strbuf_addf(sb, "<g class=\"bars\" fill=\"%s\">\n", color);
	for (size_t i = 0; i < s->n; i++) {
		double base = s->y0 ? s->y0[i] : 0.0;
		if (!isfinite(s->y[i]) || !isfinite(base))
			continue;
		double xa = px(f, s->x[i] + s->bar_offset - s->bar_width / 2);
		double xb = px(f, s->x[i] + s->bar_offset + s->bar_width / 2);
		double ya = py(f, fmax(base, s->y[i])), yb = py(f, fmin(base, s->y[i]));
		perun_strbuf_addf(sb,
				  "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				  "height=\"%.1f\"/>\n",
				  xa, ya, xb - xa, yb - ya);
	}
	perun_strbuf_addstr(sb, "</g>\n");
}

static void draw_area(struct perun_strbuf *sb, const struct frame *f,
		      const struct viewlib_svg_series *s, const char *color)
{
	if (!s->n)
		return;
	perun_strbuf_addf(
		sb, "<path class=\"area\" fill=\"%s\" fill-opacity=\"0.7\" stroke=\"%s\" d=\"M",
		color, color);
	for (size_t i = 0; i < s->n; i++)
		perun_strbuf_addf(sb, "%s%.1f %.1f", i ? "L" : "", px(f, s->x[i]),
				  py(f, isfinite(s->y[i]) ? s->y[i] : 0.0));
	for (size_t i = s->n; i-- > 0;) {
		double base = s->y0 && isfinite(s->y0[i]) ? s->y0[i] : 0.0;
		perun_strbuf_addf(sb, "L%.1f %.1f", px(f, s->x[i]), py(f, base));
	}
	perun_strbuf_addstr(sb, "Z\"/>\n");
}

/* A legend entry's text: at most this many lines of LEGEND_FONT pixels,
 * LEGEND_LINE apart, entries LEGEND_GAP further apart. */
enum { LEGEND_FONT = 11, LEGEND_LINE = 13, LEGEND_GAP = 5, LEGEND_LINES = 3, TITLE_MAX = 512 };

static void escape_line(struct perun_strbuf *sb, const struct viewlib_text_line *line)
{
	char buf[TITLE_MAX + 4];
	size_t len = line->len < TITLE_MAX ? line->len : TITLE_MAX;
	memcpy(buf, line->text, len);
	buf[len] = 0;
	viewlib_html_escape(sb, buf);
}

static void legend_mark(struct perun_strbuf *sb, const struct viewlib_svg_series *s, int x, int y)
{
	const char *color = viewlib_color(s->color);
	if (s->kind == VIEWLIB_SVG_POINTS)
		perun_strbuf_addf(sb,
				  "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\" stroke=\"#222\" "
				  "stroke-width=\"0.5\"/>",
				  x + 8, y, color);
	else if (s->kind == VIEWLIB_SVG_LINE)
		perun_strbuf_addf(sb,
				  "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
				  "stroke-width=\"2.5\"/>",
				  x, x + 16, y, y, color);
	else
		perun_strbuf_addf(
			sb, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"10\" fill=\"%s\"/>", x,
			y - 5, color);
}

/*
 * The legend right of the plot, at x from y down: each label wrapped to
 * what is left of the image's width, and when the entries run out of
 * height, a last line says how many are not shown.
 */
static void legend(struct perun_strbuf *sb, const struct viewlib_svg_plot *p, int x, int y,
		   int width, int height)
{
	double room = width - (x + 22) - 6;
	size_t left = 0;
	for (size_t k = 0; k < p->nseries; k++)
		left += p->series[k].label != NULL;
	perun_strbuf_addf(sb, "<g class=\"legend\" font-size=\"%d\">\n", LEGEND_FONT);
	for (size_t k = 0; k < p->nseries; k++) {
		const struct viewlib_svg_series *s = &p->series[k];
		struct viewlib_text_line lines[LEGEND_LINES];
		char cut[TITLE_MAX + 4];
		if (!s->label)
			continue;
		size_t n = viewlib_text_wrap(s->label, LEGEND_FONT, room, LEGEND_LINES, lines, cut,
					     sizeof(cut));
		/* Room for this entry and, if more follow, the "more" line. */
		int bottom = y + (int)(n ? n - 1 : 0) * LEGEND_LINE + 4 +
			     (left > 1 ? LEGEND_GAP + LEGEND_LINE : 0);
		if (bottom > height - 4) {
			perun_strbuf_addf(sb, "<text x=\"%d\" y=\"%d\">(%zu more)</text>\n", x,
					  y + 4, left);
			break;
		}
		legend_mark(sb, s, x, y);
		for (size_t i = 0; i < n; i++) {
			perun_strbuf_addf(sb, "<text x=\"%d\" y=\"%d\">", x + 22,
					  y + 4 + (int)i * LEGEND_LINE);
			escape_line(sb, &lines[i]);
			perun_strbuf_addstr(sb, "</text>\n");
		}
		y += (int)(n ? n : 1) * LEGEND_LINE + LEGEND_GAP;
		left--;
	}
	perun_strbuf_addstr(sb, "</g>\n");
}

int viewlib_svg_render(struct perun_strbuf *sb, const struct viewlib_svg_plot *p, int standalone,
		       struct perun_error *err)
{
	int width = p->width ? p->width : 900, height = p->height ? p->height : 520;
	struct frame f = { HUGE_VAL,
			   -HUGE_VAL,
			   HUGE_VAL,
			   -HUGE_VAL,
			   MARGIN_LEFT,
			   MARGIN_TOP,
			   width - MARGIN_LEFT - LEGEND_WIDTH,
			   height - MARGIN_TOP - MARGIN_BOTTOM };
	int has_bars = 0, has_legend = 0;

	for (size_t k = 0; k < p->nseries; k++) {
		const struct viewlib_svg_series *s = &p->series[k];
		if (s->label)
			has_legend = 1;
		if (s->kind == VIEWLIB_SVG_BARS || s->kind == VIEWLIB_SVG_AREA) {
			has_bars = 1;
			widen(&f.y0, &f.y1, 0.0);
		}
		for (size_t i = 0; i < s->n; i++) {
			if (!isfinite(s->y[i]))
				continue;
			widen(&f.x0, &f.x1, s->x[i] + s->bar_offset - s->bar_width / 2);
			widen(&f.x0, &f.x1, s->x[i] + s->bar_offset + s->bar_width / 2);
			widen(&f.y0, &f.y1, s->y[i]);
			if (s->y0)
				widen(&f.y0, &f.y1, s->y0[i]);
		}
	}
	if (p->categories) {
		f.x0 = -0.5;
		f.x1 = (double)p->ncategories - 0.5;
	}
	if (f.x0 > f.x1) { /* nothing finite to show */
		f.x0 = 0;
		f.x1 = 1;
	}
	if (f.y0 > f.y1) {
		f.y0 = 0;
		f.y1 = 1;
	}
	if (f.x1 == f.x0) {
		f.x0 -= 1;
		f.x1 += 1;
	}
	if (f.y1 == f.y0) {
		f.y0 -= f.y0 ? fabs(f.y0) / 2 : 1;
		f.y1 += f.y1 ? fabs(f.y1) / 2 : 1;
	}
	/* A little air around points and lines; bars keep their zero base. */
	double dy = (f.y1 - f.y0) * 0.05, dx = p->categories ? 0 : (f.x1 - f.x0) * 0.03;
	if (!has_bars || f.y0 < 0)
		f.y0 -= dy;
	f.y1 += dy;
	f.x0 -= dx;
	f.x1 += dx;

	if (standalone)
		perun_strbuf_addstr(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	perun_strbuf_addf(sb,
			  "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"perun-plot\" "
			  "width=\"%d\" height=\"%d\" "
			  "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
			  "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n<title>",
			  width, height, width, height);
	viewlib_html_escape(sb, p->title ? p->title : "");
	perun_strbuf_addf(sb,
			  "</title>\n<text class=\"title\" x=\"%d\" y=\"24\" font-size=\"15\" "
			  "font-weight=\"bold\">",
			  MARGIN_LEFT);
	/* One line of bold 15px text (bold is a tenth wider at most). */
	struct viewlib_text_line line = { "", 0 };
	char cut[TITLE_MAX + 4];
	if (p->title && *p->title)
		viewlib_text_wrap(p->title, 15 * 1.1, width - MARGIN_LEFT - 8, 1, &line, cut,
				  sizeof(cut));
	escape_line(sb, &line);
	perun_strbuf_addstr(sb, "</text>\n");
	axes(sb, p, &f);
	perun_strbuf_addf(sb,
			  "<clipPath id=\"plotarea\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
			  "height=\"%d\"/></clipPath>\n"
			  "<g clip-path=\"url(#plotarea)\">\n",
			  f.left, f.top, f.w, f.h);
	for (size_t k = 0; k < p->nseries; k++) {
		const struct viewlib_svg_series *s = &p->series[k];
		const char *color = viewlib_color(s->color);
		switch (s->kind) {
		case VIEWLIB_SVG_POINTS:
			if (draw_points(sb, &f, s, color) < 0)
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		case VIEWLIB_SVG_LINE: draw_line(sb, &f, s, color); break;
		case VIEWLIB_SVG_BARS: draw_bars(sb, &f, s, color); break;
		case VIEWLIB_SVG_AREA: draw_area(sb, &f, s, color); break;
		}
	}
	perun_strbuf_addstr(sb, "</g>\n");
	if (has_legend)
		legend(sb, p, f.left + f.w + 14, f.top + 6, width, height);
	perun_strbuf_addstr(sb, "</svg>\n");
	return sb->failed ? perun_error_set(err, PERUN_EGENERIC, "out of memory") : 0;
}
