/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Self-contained HTML pages for the graphical views (see view-common.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/fsutil.h>
#include <perun/profile.h>

#include "output.h"
#include "view-common.h"

#ifndef VIEWLIB_CHARTJS_PATH
#define VIEWLIB_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"
#endif

int viewlib_chartjs_read(char **text, size_t *len, struct perun_error *err)
{
	const char *env = getenv("PERUN_CHARTJS");
	const char *path = env && *env ? env : VIEWLIB_CHARTJS_PATH;
	struct perun_error e = { 0 };
	if (perun_file_read(path, text, len, &e) < 0)
		return perun_error_set(err, PERUN_ENOTFOUND,
				       "cannot read Chart.js from '%s' (Debian: libjs-chart.js; "
				       "or set PERUN_CHARTJS): %s",
				       path, e.message);
	return 0;
}

void viewlib_html_escape(struct perun_strbuf *sb, const char *s)
{
	if (!s)
		return;
	const char *run = s;
	for (; *s; s++) {
		const char *rep = NULL;
		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			/* Controls are not allowed in XML 1.0 (SVG) at all. */
			if ((unsigned char)*s < 32 && *s != '\t' && *s != '\n')
				rep = " ";
		}
		if (rep) {
			perun_strbuf_add(sb, run, (size_t)(s - run));
			perun_strbuf_addstr(sb, rep);
			run = s + 1;
		}
	}
	perun_strbuf_add(sb, run, (size_t)(s - run));
}

/* The bytes a JavaScript string in a page escapes (and the NUL that ends
 * it): a table, as pages carry millions of strings. */
static const unsigned char js_special[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, ['<'] = 1, ['>'] = 1, ['&'] = 1,
};

void viewlib_js_string(struct perun_strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	/* Room for the worst once (every byte escaped): a call per run was
	 * a fifth of a million-row page's writing. */
	size_t len = strlen(s);
	if (perun_strbuf_grow(sb, len < ((size_t)-1 >> 3) ? 6 * len + 2 : (size_t)-1) < 0)
		return;
	char *at = sb->buf + sb->len;
	*at++ = '"';
	for (;;) {
		const char *run = s;
		while (!js_special[(unsigned char)*s])
			s++;
		memcpy(at, run, (size_t)(s - run));
		at += s - run;
		if (!*s)
			break;
		unsigned char c = (unsigned char)*s++;
		memcpy(at, "\\u00", 4);
		at[4] = hex[c >> 4];
		at[5] = hex[c & 15];
		at += 6;
	}
	*at++ = '"';
	*at = '\0';
	sb->len = (size_t)(at - sb->buf);
}

void viewlib_js_number(struct perun_strbuf *sb, double v)
{
	char buf[32];
	if (!isfinite(v)) {
		perun_strbuf_addstr(sb, "null");
		return;
	}
	perun_python_float_str(v, buf);
	/* Python writes integral floats as "2.0": valid JavaScript as well. */
	perun_strbuf_addstr(sb, buf);
}

static const char page_style[] = "body{font-family:sans-serif;margin:1em 2em;color:#222}"
				 "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.5em}"
				 "h1,h2{overflow-wrap:anywhere}"
				 ".plot{max-width:1100px;margin-bottom:2em}"
				 ".plot .chart{position:relative;height:420px}"
				 ".note{color:#555;font-size:.9em}"
				 "table{border-collapse:collapse;font-size:.9em}"
				 "th,td{border:1px solid #ccc;padding:2px 6px}"
				 "th{background:#eee;cursor:pointer;position:sticky;top:0}"
				 "td.num{text-align:right;font-family:monospace}";

int viewlib_html_begin(struct perun_strbuf *sb, const char *title, int chartjs,
		       struct perun_error *err)
{
	perun_strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
				"<meta charset=\"utf-8\">\n<title>");
	viewlib_html_escape(sb, title);
	perun_strbuf_addf(sb, "</title>\n<style>%s</style>\n", page_style);
	if (chartjs) {
		char *js = NULL;
		size_t len = 0;
		int rc = viewlib_chartjs_read(&js, &len, err);
		if (rc < 0)
			return rc;
		/* The library is inlined as it is: it holds no "</script". */
		if (strstr(js, "</script")) {
			free(js);
			return perun_error_set(
				err, PERUN_EINVAL,
				"the Chart.js file contains '</script' and cannot be inlined");
		}
		perun_strbuf_addstr(sb, "<script>\n");
		perun_strbuf_add(sb, js, len);
		perun_strbuf_addstr(sb, "\n</script>\n<script>var PERUN_PLOTS = [];</script>\n");
		free(js);
	}
	perun_strbuf_addstr(sb, "</head>\n<body>\n<h1>");
	viewlib_html_escape(sb, title);
	perun_strbuf_addstr(sb, "</h1>\n");
	return 0;
}

void viewlib_html_end(struct perun_strbuf *sb)
{
	perun_strbuf_addstr(sb, "</body>\n</html>\n");
}

void viewlib_chart_open(struct perun_strbuf *sb, size_t index, const char *title,
			const char *xlabel, const char *ylabel, const char *const *categories,
			size_t ncategories, int stacked)
{
	perun_strbuf_addf(sb, "<div class=\"plot\" id=\"plot%zu\">\n", index);
	if (title) {
		perun_strbuf_addstr(sb, "<h2>");
		viewlib_html_escape(sb, title);
		perun_strbuf_addstr(sb, "</h2>\n");
	}
	perun_strbuf_addf(sb,
			  "<div class=\"chart\"><canvas id=\"chart%zu\"></canvas></div>\n"
			  "<script>PERUN_PLOTS.push({canvas: \"chart%zu\", title: ",
			  index, index);
	viewlib_js_string(sb, title ? title : "");
	perun_strbuf_addstr(sb, ", xlabel: ");
	viewlib_js_string(sb, xlabel);
	perun_strbuf_addstr(sb, ", ylabel: ");
	viewlib_js_string(sb, ylabel);
	perun_strbuf_addf(sb, ", stacked: %s, categories: ", stacked ? "true" : "false");
	if (categories) {
		perun_strbuf_addch(sb, '[');
		for (size_t i = 0; i < ncategories; i++) {
			if (i)
				perun_strbuf_addch(sb, ',');
			viewlib_js_string(sb, categories[i]);
		}
		perun_strbuf_addch(sb, ']');
	} else {
		perun_strbuf_addstr(sb, "null");
	}
	perun_strbuf_addstr(sb, ", series: [\n");
}

void viewlib_chart_series(struct perun_strbuf *sb, const char *label, const char *kind,
			  size_t color, const double *x, const double *y, size_t n)
{
	perun_strbuf_addstr(sb, "{label: ");
	viewlib_js_string(sb, label);
	perun_strbuf_addf(sb, ", kind: \"%s\", color: \"%s\", xy: [", kind, viewlib_color(color));
	for (size_t i = 0; i < n; i++) {
		if (i)
			perun_strbuf_addch(sb, ',');
		viewlib_js_number(sb, x[i]);
		perun_strbuf_addch(sb, ',');
		viewlib_js_number(sb, y[i]);
	}
	perun_strbuf_addstr(sb, "]},\n");
}

void viewlib_chart_close(struct perun_strbuf *sb)
{
	perun_strbuf_addstr(sb, "]});</script>\n</div>\n");
}

/* Draws every PERUN_PLOTS entry with Chart.js; no animation, so a page is
 * complete once loaded (and screenshots are deterministic). */
static const char charts_script[] =
	"<script>\n"
	"(function () {\n"
	"  function dataset(p, s, i) {\n"
	"    var d = [], k;\n"
	"    if (s.kind === 'bar') {\n"
	"      for (k = 1; k < s.xy.length; k += 2) d.push(s.xy[k]);\n"
	"      return {type: 'bar', label: s.label, data: d, backgroundColor: s.color, "
	"borderColor: s.color};\n"
	"    }\n"
	"    for (k = 0; k < s.xy.length; k += 2) d.push({x: s.xy[k], y: s.xy[k + 1]});\n"
	"    var base = {label: s.label, data: d, borderColor: s.color, parsing: false, "
	"normalized: true};\n"
	"    if (s.kind === 'points')\n"
	"      return Object.assign(base, {type: 'scatter', showLine: false, pointRadius: 3,\n"
	"        backgroundColor: s.color + 'aa', borderWidth: 0.5});\n"
	"    if (s.kind === 'area')\n"
	"      return Object.assign(base, {type: 'line', pointRadius: 0, borderWidth: 1,\n"
	"        fill: p.stacked && i > 0 ? '-1' : 'origin', backgroundColor: s.color + 'b3'});\n"
	"    return Object.assign(base, {type: 'line', showLine: true, pointRadius: 0, "
	"borderWidth: 2.5,\n"
	"      fill: false, spanGaps: false, backgroundColor: s.color});\n"
	"  }\n"
	"  /* Chart.js lets a legend run off its canvas: labels wider than it and\n"
	"   * rows past the half of its height it may take.  Labels are cut to fit\n"
	"   * (a path keeps its end; tooltips keep them whole) and the entries\n"
	"   * past the last row are one \"(N more)\", packed as Chart.js packs. */\n"
	"  function fitLabels(chart) {\n"
	"    var o = chart.options.plugins.legend.labels, ctx = chart.ctx;\n"
	"    var font = Chart.helpers.toFont(o.font), box = o.boxWidth + font.size / 2;\n"
	"    var room = chart.width - box - 2 * o.padding - 8, row = font.size + o.padding;\n"
	"    var rows = Math.floor((chart.height / 2 - 2 * o.padding) / row), line = -1, used = "
	"0;\n"
	"    var items = Chart.defaults.plugins.legend.labels.generateLabels(chart), shown = [];\n"
	"    var width = function (t) { return box + ctx.measureText(t).width + o.padding; };\n"
	"    ctx.save();\n"
	"    ctx.font = font.string;\n"
	"    for (var i = 0; i < items.length; i++) {\n"
	"      var it = items[i], t = it.text, path = t.indexOf('/') >= 0, lo = 0, hi = t.length;\n"
	"      var cut = function (n) { return path ? '...' + t.slice(t.length - n) : "
	"t.slice(0, n) + '...'; };\n"
	"      if (ctx.measureText(t).width > room) {\n"
	"        while (lo < hi) {\n"
	"          var mid = (lo + hi + 1) >> 1;\n"
	"          if (ctx.measureText(cut(mid)).width <= room) lo = mid; else hi = mid - 1;\n"
	"        }\n"
	"        it.text = cut(lo);\n"
	"      }\n"
	"      if (line < 0 || used + width(it.text) + o.padding > chart.width - 8) {\n"
	"        if (++line >= rows - (i + 1 < items.length ? 1 : 0)) {\n"
	"          shown.push({text: '(' + (items.length - i) + ' more)', datasetIndex: -1,\n"
	"            fillStyle: 'transparent', strokeStyle: 'transparent', lineWidth: 0});\n"
	"          break;\n"
	"        }\n"
	"        used = 0;\n"
	"      }\n"
	"      used += width(it.text);\n"
	"      shown.push(it);\n"
	"    }\n"
	"    ctx.restore();\n"
	"    return shown;\n"
	"  }\n"
	"  function legendClick(e, item, legend) {\n"
	"    if (item.datasetIndex >= 0)\n"
	"      Chart.defaults.plugins.legend.onClick.call(this, e, item, legend);\n"
	"  }\n"
	"  PERUN_PLOTS.forEach(function (p) {\n"
	"    var axis = function (label) { return {display: true, text: label}; };\n"
	"    var x = p.categories ? {type: 'category', stacked: p.stacked, title: axis(p.xlabel)}\n"
	"                         : {type: 'linear', title: axis(p.xlabel)};\n"
	"    var config = {\n"
	"      type: p.categories ? 'bar' : 'scatter',\n"
	"      data: {labels: p.categories || undefined,\n"
	"             datasets: p.series.map(function (s, i) { return dataset(p, s, i); })},\n"
	"      options: {animation: false, responsive: true, maintainAspectRatio: false,\n"
	"        plugins: {title: {display: false},\n"
	"          legend: {position: 'bottom', onClick: legendClick,\n"
	"                   labels: {generateLabels: fitLabels}}},\n"
	"        scales: {x: x, y: {stacked: p.stacked, title: axis(p.ylabel)}}}\n"
	"    };\n"
	"    p.chart = new Chart(document.getElementById(p.canvas), config);\n"
	"  });\n"
	"})();\n"
	"</script>\n";

void viewlib_charts_script(struct perun_strbuf *sb)
{
	perun_strbuf_addstr(sb, charts_script);
}

int viewlib_write_buffer(const char *path, void *out, struct perun_strbuf *sb,
			 struct perun_error *err)
{
	size_t len = 0;
	char *text = perun_strbuf_detach(sb, &len);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = viewlib_write(path, out, text, len, err);
	free(text);
	return rc;
}

void viewlib_profile_cells(struct perun_strbuf *sb, const char *label,
			   const struct perun_profile *profile)
{
	perun_strbuf_addstr(sb, "<td>");
	viewlib_html_escape(sb, label ? label : "");
	perun_strbuf_addstr(sb, "</td><td>");
	viewlib_html_escape(sb, perun_profile_header(profile, "cmd"));
	perun_strbuf_addch(sb, ' ');
	viewlib_html_escape(sb, perun_profile_header(profile, "workload"));
	perun_strbuf_addstr(sb, "</td><td>");
	viewlib_html_escape(sb, perun_profile_collector(profile));
	perun_strbuf_addstr(sb, "</td>");
}

/* Colour-blind friendly (Okabe-Ito, then Tableau's remaining hues). */
static const char *const palette[] = {
	"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9",
	"#f0e442", "#000000", "#8c564b", "#7f7f7f", "#bcbd22", "#17becf",
};

const char *viewlib_color(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void viewlib_sanitize(char *s)
{
	for (; *s; s++)
		if (strchr("# %&{}\\<>*?/ $!'\":@", *s))
			*s = '_';
}

char *viewlib_file_name(const char *prefix, const char *part, const char *suffix)
{
	size_t len = strlen(prefix) + strlen(part) + strlen(suffix) + 2;
	char *name = malloc(len);
	if (!name)
		return NULL;
	snprintf(name, len, "%s_%s%s", prefix, part, suffix);
	viewlib_sanitize(name + strlen(prefix) + 1);
	return name;
}

const char *viewlib_y_unit(const struct perun_profile *profile, const char *of_key)
{
	if (!strcmp(of_key, "count") || !strcmp(of_key, "nunique"))
		return "";
	json_t *header = perun_profile_get(profile, "header");
	json_t *units = json_object_get(header, "units");
	const char *type = json_string_value(json_object_get(header, "type"));
	if (!type || !json_is_object(units))
		return "";
	const char *unit = json_string_value(json_object_get(units, type));
	if (unit)
		return unit;
	const char *key;
	json_t *value;
	/* "mixed" finds "mixed(time delta)" as Perun's loop does. */
	json_object_foreach(units, key,
			    value) if (strstr(key, type) &&
				       json_is_string(value)) return json_string_value(value);
	return "";
}
