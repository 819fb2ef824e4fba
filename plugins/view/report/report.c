/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report (perun showdiff only): one self-contained HTML page with every
 * (uid, trace) of the two profiles, their summed amounts and shares of
 * each profile's total, and the change; sortable by any column, filterable
 * by text, groupable by uid.  Amounts are summed per (uid, trace) in C
 * first, so a page for millions of resources carries one row per record
 * and the browser renders only the rows in view; the page is written as
 * it is made, never held whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/params.h>
#include <perun/profile.h>
#include <perun/strbuf.h>

#include "output.h"
#include "view-common.h"

static const struct perun_option report_options[] = {
	{ "output-file", "o", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "the page to write (default: report-diff-of-<baseline>-and-<target>.html)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

/* Sorting, filtering, grouping and paging of PERUN_REPORT.rows
 * ([uid, trace, baseline, target]); rows are drawn 200 at a time. */
static const char report_script[] =
	"<script>\n"
	"(function () {\n"
	"  var R = PERUN_REPORT, T0 = R.totals[0] || 1, T1 = R.totals[1] || 1;\n"
	"  var cols = [\n"
	"    {name: 'uid', get: function (r) { return r[0]; }},\n"
	"    {name: 'trace', get: function (r) { return r[1]; }},\n"
	"    {name: 'baseline', get: function (r) { return r[2]; }, num: true},\n"
	"    {name: 'baseline %', get: function (r) { return 100 * r[2] / T0; }, num: true, pct: "
	"true},\n"
	"    {name: 'target', get: function (r) { return r[3]; }, num: true},\n"
	"    {name: 'target %', get: function (r) { return 100 * r[3] / T1; }, num: true, pct: "
	"true},\n"
	"    {name: 'change', get: function (r) { return r[3] - r[2]; }, num: true},\n"
	"    {name: 'change %', get: function (r) { return 100 * r[3] / T1 - 100 * r[2] / T0; }, "
	"num: true, pct: true}\n"
	"  ];\n"
	"  var state = {sort: 6, desc: true, filter: '', byUid: false, shown: 200};\n"
	"  var head = document.getElementById('head'), body = document.getElementById('rows');\n"
	"  var info = document.getElementById('info'), more = document.getElementById('more');\n"
	"  function grouped() {\n"
	"    if (!state.byUid) return R.rows;\n"
	"    var m = new Map();\n"
	"    R.rows.forEach(function (r) {\n"
	"      var g = m.get(r[0]);\n"
	"      if (!g) { g = [r[0], '', 0, 0, 0]; m.set(r[0], g); }\n"
	"      g[2] += r[2]; g[3] += r[3]; g[4]++;\n"
	"    });\n"
	"    return Array.from(m.values()).map(function (g) { g[1] = g[4] + ' traces'; return g; "
	"});\n"
	"  }\n"
	"  function fmt(c, v) {\n"
	"    if (!c.num) return v;\n"
	"    return c.pct ? v.toFixed(2) : (Math.round(v * 1e6) / 1e6).toLocaleString('en');\n"
	"  }\n"
	"  function shortTrace(t) { return t.length > 80 ? '\\u2026' + t.slice(-79) : t; }\n"
	"  function draw() {\n"
	"    var f = state.filter.toLowerCase(), c = cols[state.sort];\n"
	"    var rows = grouped().filter(function (r) {\n"
	"      return !f || r[0].toLowerCase().indexOf(f) >= 0 || r[1].toLowerCase().indexOf(f) >= "
	"0;\n"
	"    });\n"
	"    rows.sort(function (a, b) {\n"
	"      var x = c.get(a), y = c.get(b), d = c.num ? x - y : (x < y ? -1 : x > y ? 1 : 0);\n"
	"      return state.desc ? -d : d;\n"
	"    });\n"
	"    var html = [];\n"
	"    rows.slice(0, state.shown).forEach(function (r) {\n"
	"      var tr = '<tr>';\n"
	"      cols.forEach(function (col, i) {\n"
	"        var v = col.get(r), t = i === 1 ? shortTrace(v) : fmt(col, v);\n"
	"        var cls = col.num ? (i >= 6 && v > 0 ? 'num up' : i >= 6 && v < 0 ? 'num down' : "
	"'num') : '';\n"
	"        tr += '<td class=\"' + cls + '\"' + (i === 1 ? ' title=\"' + esc(v) + '\"' : '') "
	"+ '>' + esc(String(t)) + '</td>';\n"
	"      });\n"
	"      html.push(tr + '</tr>');\n"
	"    });\n"
	"    body.innerHTML = html.join('');\n"
	"    info.textContent = rows.length + ' of ' + grouped().length + ' rows' +\n"
	"      (rows.length > state.shown ? ', first ' + state.shown + ' shown' : '');\n"
	"    more.style.display = rows.length > state.shown ? '' : 'none';\n"
	"    Array.prototype.forEach.call(head.children, function (th, i) {\n"
	"      th.textContent = cols[i].name + (i === state.sort ? (state.desc ? ' \\u25bc' : ' "
	"\\u25b2') : '');\n"
	"    });\n"
	"  }\n"
	"  function esc(s) {\n"
	"    return s.replace(/[&<>\"]/g, function (ch) {\n"
	"      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;'}[ch];\n"
	"    });\n"
	"  }\n"
	"  cols.forEach(function (c, i) {\n"
	"    var th = document.createElement('th');\n"
	"    th.addEventListener('click', function () {\n"
	"      state.desc = state.sort === i ? !state.desc : !!c.num; state.sort = i; draw();\n"
	"    });\n"
	"    head.appendChild(th);\n"
	"  });\n"
	"  document.getElementById('filter').addEventListener('input', function (e) {\n"
	"    state.filter = e.target.value; state.shown = 200; draw();\n"
	"  });\n"
	"  document.getElementById('byuid').addEventListener('change', function (e) {\n"
	"    state.byUid = e.target.checked; state.shown = 200; draw();\n"
	"  });\n"
	"  more.addEventListener('click', function () { state.shown += 1000; draw(); });\n"
	"  window.perunReport = {state: state, draw: draw, cols: cols};\n"
	"  draw();\n"
	"})();\n"
	"</script>\n";

static void header_row(struct perun_strbuf *sb, const char *what, const struct perun_profile *p,
		       const char *label, double total)
{
	perun_strbuf_addf(sb, "<tr><th>%s</th>", what);
	viewlib_profile_cells(sb, label, p);
	perun_strbuf_addstr(sb, "<td class=\"num\">");
	char buf[32];
	perun_python_float_str(total, buf);
	perun_strbuf_addf(sb, "%s</td></tr>\n", buf);
}

static int report_show_diff(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct viewlib_diff_rows r = { 0 };
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct viewlib_stream page; /* rows go out as they are made */
	char *name = NULL;
	int rc, opened = 0;

	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	const char *path = perun_params_string(ctx->params, "output-file", NULL);
	if ((rc = viewlib_diff_rows_of_view(ctx, NULL, &r, err)) < 0)
		return rc;
	if (!path) {
		name = viewlib_diff_name_dup("report", ctx->baseline_label, ctx->profile_label,
					     "html");
		if (!name) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		path = name;
	}
	if ((rc = viewlib_stream_open(&page, path, ctx->out, err)) < 0)
		goto out;
	opened = 1;
	if ((rc = viewlib_html_begin(&sb, "Difference report", 0, err)) < 0)
		goto out;
	perun_strbuf_addstr(&sb,
			    "<table class=\"summary\"><tr><th></th><th>profile</th><th>command</th>"
			    "<th>collector</th><th>total amount</th></tr>\n");
	header_row(&sb, "baseline", ctx->baseline, ctx->baseline_label, r.total[0]);
	header_row(&sb, "target", ctx->profile, ctx->profile_label, r.total[1]);
	perun_strbuf_addf(&sb, "</table>\n<p><input id=\"filter\" type=\"search\" "
			       "placeholder=\"filter uid or trace\" size=\"40\"> "
			       "<label><input id=\"byuid\" type=\"checkbox\"> group by uid</label> "
			       "<span id=\"info\" class=\"note\"></span></p>\n"
			       "<table class=\"report\"><thead><tr id=\"head\"></tr></thead><tbody "
			       "id=\"rows\"></tbody></table>\n"
			       "<p><button id=\"more\">show more rows</button></p>\n"
			       "<style>td.up{color:#b00}td.down{color:#070}table.summary{margin-"
			       "bottom:1em}</style>\n"
			       "<script>var PERUN_REPORT = {totals: [");
	viewlib_js_number(&sb, r.total[0]);
	perun_strbuf_addch(&sb, ',');
	viewlib_js_number(&sb, r.total[1]);
	perun_strbuf_addstr(&sb, "], rows: [\n");
	for (size_t i = 0; i < r.n; i++) {
		perun_strbuf_addch(&sb, '[');
		viewlib_js_string(&sb, r.rows[i].uid);
		perun_strbuf_addch(&sb, ',');
		viewlib_js_string(&sb, r.rows[i].trace);
		perun_strbuf_addch(&sb, ',');
		viewlib_js_number(&sb, r.rows[i].amount[0]);
		perun_strbuf_addch(&sb, ',');
		viewlib_js_number(&sb, r.rows[i].amount[1]);
		perun_strbuf_addstr(&sb, "],\n");
		viewlib_stream_add(&page, &sb, 0);
	}
	perun_strbuf_addstr(&sb, "]};</script>\n");
	perun_strbuf_addstr(&sb, report_script);
	viewlib_html_end(&sb);
	if (sb.failed) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	viewlib_stream_add(&page, &sb, 1);
	opened = 0;
	if ((rc = viewlib_stream_close(&page, 1, err)) < 0)
		goto out;
	if (strcmp(path, "-"))
		fprintf(ctx->out, "report of %zu records written to %s\n", r.n, path);
out:
	if (opened)
		viewlib_stream_close(&page, 0, err);
	perun_strbuf_release(&sb);
	viewlib_diff_rows_free(&r);
	free(name);
	return rc;
}

static const struct perun_view_ops report_ops = {
	.size = sizeof(struct perun_view_ops),
	.show_diff = report_show_diff,
	/* Its rows are summed in one walk of each profile's types. */
	.flags = PERUN_VIEW_WALKS_TYPES,
};

PERUN_PLUGIN_DEFINE(
	report, PERUN_KIND_VIEW, .version = "1.0",
	.summary = "showdiff: every record of both profiles on one sortable, filterable page",
	.options = report_options, .ops = &report_ops);
