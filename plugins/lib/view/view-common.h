/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * view-common.h - what the graphical view plugins share (a libtool
 * convenience library linked into each of them, never installed):
 *   - self-contained HTML pages with Chart.js inlined from Debian's
 *     libjs-chart.js, found at run time (offline: no CDN);
 *   - a static SVG plot writer (axes, ticks, points, lines, bars, areas,
 *     legend), so a terminal or CI user gets a picture without a browser;
 *   - resources grouped by --of/--per/--by and aggregated with Perun's
 *     functions (sum, mean, count, nunique, median, min, max).
 * Functions return 0 or a negative code with err filled.
 */
#ifndef VIEWLIB_COMMON_H
#define VIEWLIB_COMMON_H

#include <stddef.h>

#include <perun/perun.h>
#include <perun/strbuf.h>

/* ---- HTML ------------------------------------------------------------- */

/*
 * The Chart.js source: $PERUN_CHARTJS when set, else the path configure
 * found (--with-chartjs).  *text is malloc'd, the caller frees it.
 */
int viewlib_chartjs_read(char **text, size_t *len, struct perun_error *err);

/* Text for HTML/SVG element content and attribute values (controls become
 * spaces: XML has no way to hold them); NULL adds nothing. */
void viewlib_html_escape(struct perun_strbuf *sb, const char *s);
/* A JSON string literal that is also safe inside <script> ("</" escaped). */
void viewlib_js_string(struct perun_strbuf *sb, const char *s);
/* A number for JavaScript: shortest round-trip digits, null if not finite. */
void viewlib_js_number(struct perun_strbuf *sb, double v);

/*
 * Start a page: doctype, title, a small stylesheet and, when chartjs is
 * set, Chart.js inlined in a <script>.  Ends inside <body>.
 */
int viewlib_html_begin(struct perun_strbuf *sb, const char *title, int chartjs,
		       struct perun_error *err);
void viewlib_html_end(struct perun_strbuf *sb);

/*
 * Interactive plots on a page begun with chartjs set: one <div class="plot">
 * with a heading (none when title is NULL, e.g. a page's only chart under
 * the page's own heading) and a <canvas>, its data in a <script>.  Between open and
 * close come the series: kind "points", "line" (null y breaks it), "bar"
 * (y per category) or "area" (stacked when the chart is).  With categories
 * the x axis is categorical.  viewlib_charts_script, once after the last
 * plot, draws them all.
 */
void viewlib_chart_open(struct perun_strbuf *sb, size_t index, const char *title,
			const char *xlabel, const char *ylabel, const char *const *categories,
			size_t ncategories, int stacked);
void viewlib_chart_series(struct perun_strbuf *sb, const char *label, const char *kind,
			  size_t color, const double *x, const double *y, size_t n);
void viewlib_chart_close(struct perun_strbuf *sb);
void viewlib_charts_script(struct perun_strbuf *sb);

/* Write the buffer to path atomically (viewlib_write: "-" is the
 * view's output) and release it; a failed buffer is out of memory. */
int viewlib_write_buffer(const char *path, void *out, struct perun_strbuf *sb,
			 struct perun_error *err);

/* The cells naming a profile in a diff view's summary table:
 * <td>label</td><td>cmd workload</td><td>collector</td>. */
void viewlib_profile_cells(struct perun_strbuf *sb, const char *label,
			   const struct perun_profile *profile);

/* A colour of the palette (cycles), as "#rrggbb". */
const char *viewlib_color(size_t i);

/* Perun's sanitize_filepart, in place: characters that are awkward in file
 * names become '_'. */
void viewlib_sanitize(char *s);

/* "<prefix>_<sanitized part><suffix>", malloc'd; NULL without memory. */
char *viewlib_file_name(const char *prefix, const char *part, const char *suffix);

/* The unit of of_key for axis labels as Perun's add_y_units finds it
 * ("" when none): the header's unit of the profile type. */
const char *viewlib_y_unit(const struct perun_profile *profile, const char *of_key);

/* ---- static SVG plots ------------------------------------------------- */

enum viewlib_svg_kind {
	VIEWLIB_SVG_POINTS = 1,
	VIEWLIB_SVG_LINE = 2, /* a polyline; NaN y breaks it into segments */
	VIEWLIB_SVG_BARS = 3, /* a bar per point from y0 (or 0) to y */
	VIEWLIB_SVG_AREA = 4, /* the area between y0 (or 0) and y */
};

struct viewlib_svg_series {
	enum viewlib_svg_kind kind;
	const char *label; /* legend text, NULL: not in the legend */
	const double *x, *y;
	const double *y0; /* bars and areas: the base, NULL for 0 */
	size_t n;
	double bar_width;  /* in x units (bars) */
	double bar_offset; /* added to x (grouped bars) */
	size_t color;	   /* palette index */
};

struct viewlib_svg_plot {
	const char *title, *xlabel, *ylabel;
	/* When set, x values are indices into these category names. */
	const char *const *categories;
	size_t ncategories;
	const struct viewlib_svg_series *series;
	size_t nseries;
	int width, height; /* 0: defaults */
};

/*
 * Append one <svg> element (a standalone file when standalone is set: with
 * the XML declaration).  Points falling on an already drawn pixel are not
 * drawn again, so a million points make a small file that looks the same.
 */
int viewlib_svg_render(struct perun_strbuf *sb, const struct viewlib_svg_plot *plot, int standalone,
		       struct perun_error *err);

/* ---- text in static SVGs (estimated widths, on the wide side) ----------- */

/* Width in pixels of s[0..n) at a font size. */
double viewlib_text_width(const char *s, size_t n, double size);

/* Bytes of s[0..n) that fit width (whole code points). */
size_t viewlib_text_fit(const char *s, size_t n, double size, double width);

struct viewlib_text_line {
	const char *text; /* into the string wrapped, or into buf */
	size_t len;
};

/*
 * Wrap s into at most max lines of width, breaking after spaces and
 * punctuation.  Text that needs more is cut where it says least: a path
 * (it has a '/') loses its start, anything else its end, marked "...";
 * the cut text is made in buf.  Returns the number of lines.
 */
size_t viewlib_text_wrap(const char *s, double size, double width, size_t max,
			 struct viewlib_text_line *lines, char *buf, size_t bufsize);

/* Up to max "nice" tick values covering [lo, hi]; returns their count. */
size_t viewlib_ticks(double lo, double hi, size_t max, double *ticks);

/*
 * The options of a plot's labels, for a view's option table: x_key is the
 * option whose key labels the X axis by default, title_help describes
 * --graph-title.
 */
#define VIEWLIB_LABEL_OPTIONS(x_key, title_help)                                                   \
	{ "x-axis-label",                                                                          \
	  "xl",                                                                                    \
	  PERUN_OPTION_STRING,                                                                     \
	  NULL,                                                                                    \
	  NULL,                                                                                    \
	  "<text>",                                                                                \
	  "label of the X axis (default: the --" x_key " key)",                                    \
	  0 },                                                                                     \
		{ "y-axis-label",                                                                  \
		  "yl",                                                                            \
		  PERUN_OPTION_STRING,                                                             \
		  NULL,                                                                            \
		  NULL,                                                                            \
		  "<text>",                                                                        \
		  "label of the Y axis (default: the --of key and its unit)",                      \
		  0 },                                                                             \
	{                                                                                          \
		"graph-title", "gt", PERUN_OPTION_STRING, NULL, NULL, "<text>", title_help, 0      \
	}

/* ---- grouping and aggregation ----------------------------------------- */

enum viewlib_agg {
	VIEWLIB_AGG_SUM,
	VIEWLIB_AGG_MEAN,
	VIEWLIB_AGG_COUNT,
	VIEWLIB_AGG_NUNIQUE,
	VIEWLIB_AGG_MEDIAN,
	VIEWLIB_AGG_MIN,
	VIEWLIB_AGG_MAX,
};
/* "sum|mean|count|nunique|median|min|max": Perun's AGGREGATIONS. */
#define VIEWLIB_AGGREGATIONS "sum|mean|count|nunique|median|min|max"
int viewlib_agg_parse(const char *name, enum viewlib_agg *out, struct perun_error *err);
/* --of of the aggregating views (bars, flow). */
#define VIEWLIB_AGG_OF_OPTION                                                                      \
	{                                                                                          \
		"of", "o", PERUN_OPTION_STRING, NULL, NULL, "<key>",                               \
			"the resource key whose values are aggregated (Y axis)",                   \
			PERUN_OPTION_REQUIRED                                                      \
	}

/*
 * Resources grouped by the values of per (x) and by (series) with the
 * values of of aggregated in each cell.  Keys are flattened resource fields
 * as Perun names them ("uid", "uid:function", "snapshots", "amount"...).
 * by may be NULL: one series named after of.  Categories are sorted:
 * numerically when all are numbers, else as text.
 */
struct viewlib_groups {
	size_t nper, nby;
	char **per;	  /* texts of the x values */
	double *per_num;  /* their numbers (NaN when not numeric) */
	int per_numeric;  /* every x value is a number */
	char **by;	  /* series names */
	double *cell;	  /* nper * nby, row major by x; NaN: no resource */
	size_t resources; /* resources that had all keys */
};

int viewlib_group(const struct perun_profile *profile, const char *of, const char *per,
		  const char *by, enum viewlib_agg agg, struct viewlib_groups *out,
		  struct perun_error *err);
void viewlib_groups_free(struct viewlib_groups *g);

/* ---- the bars and flow views ------------------------------------------ */

/*
 * The whole of "perun show <profile> bars|flow [<func>]": options of, per
 * (bars) or through (flow), by, stacked/grouped, accumulate (flow),
 * filename, x-axis-label, y-axis-label, graph-title.
 */
int viewlib_aggregated_show(struct perun_view_ctx *ctx, int flow, struct perun_error *err);

/* ---- the diff views (table, report) ----------------------------------- */

/* Summed amounts of one (uid, trace) in the baseline [0] and target [1];
 * trace is Perun's flattened text ("" when the resource has none). */
struct viewlib_diff_row {
	char *uid, *trace;
	double amount[2];
};

struct viewlib_diff_rows {
	struct viewlib_diff_row *rows; /* in order of first appearance */
	size_t n;
	double total[2]; /* all amounts kept by the filters */
	char **texts;	 /* the blocks holding the rows' uid and trace */
	size_t ntexts;
};

/*
 * Sum the amounts of both profiles per (uid, trace), reading each resource
 * type's column once.  filters are nfilters (key, value) pairs, flattened
 * text compared, ORed as Perun's showdiff table does.
 */
int viewlib_diff_rows_build(const struct perun_profile *baseline,
			    const struct perun_profile *target, const char *const *filters,
			    size_t nfilters, struct viewlib_diff_rows *out,
			    struct perun_error *err);
void viewlib_diff_rows_free(struct viewlib_diff_rows *rows);
/* The same for a show_diff call: ctx->baseline against ctx->profile, the
 * filters from the PAIR|MULTIPLE option filter_option (NULL: none). */
int viewlib_diff_rows_of_view(const struct perun_view_ctx *ctx, const char *filter_option,
			      struct viewlib_diff_rows *out, struct perun_error *err);

#endif
