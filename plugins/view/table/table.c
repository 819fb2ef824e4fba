/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * table (perun showdiff only): the top-N (uid, trace) records of the
 * baseline and of the target by summed amount, rank by rank, with each
 * record's share of its profile's total and the difference to the other
 * profile's record of that rank, as Python Perun's showdiff table pairs
 * them.  Terminal text, CSV, Markdown or JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/params.h>
#include <perun/profile.h>
#include <perun/strbuf.h>

#include "output.h"
#include "view-common.h"

static const struct perun_option table_options[] = {
	{ "top-n", "n", PERUN_OPTION_INT, "10", NULL, "<int>",
	  "show the top <int> records of each profile", 0 },
	{ "filter", "f", PERUN_OPTION_STRING, NULL, NULL, "<key> <value>",
	  "keep resources whose <key> is <value> (filters are alternatives)",
	  PERUN_OPTION_PAIR | PERUN_OPTION_MULTIPLE },
	{ "group-by", "g", PERUN_OPTION_STRING, "origin", NULL, "<name>",
	  "name the profiles' columns baseline(<name>) and target(<name>)", 0 },
	{ "format", NULL, PERUN_OPTION_CHOICE, "text", "text|csv|markdown|json", NULL,
	  "output format", 0 },
	{ "output-file", "o", PERUN_OPTION_STRING, "-", NULL, "<path>",
	  "write the table to <path> (default: the terminal)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct viewlib_diff_rows *sort_rows;
static int sort_side;

/* Larger amounts first; ties in the order the records were met. */
static int by_amount(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	double x = sort_rows->rows[a].amount[sort_side], y = sort_rows->rows[b].amount[sort_side];
	if (x != y)
		return x > y ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The indices of the top n rows of one side with a non-zero amount. */
static size_t top(const struct viewlib_diff_rows *r, int side, size_t n, size_t *idx)
{
	size_t k = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].amount[side] != 0.0)
			idx[k++] = i;
	sort_rows = r;
	sort_side = side;
	qsort(idx, k, sizeof(size_t), by_amount);
	return k < n ? k : n;
}

static void number(struct perun_strbuf *sb, double v)
{
	char buf[32];
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else
		perun_python_float_str(v, buf);
	perun_strbuf_addstr(sb, buf);
}

static void csv_field(struct perun_strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		perun_strbuf_addstr(sb, s);
		return;
	}
	perun_strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			perun_strbuf_addch(sb, '"');
		perun_strbuf_addch(sb, *s);
	}
	perun_strbuf_addch(sb, '"');
}

/* The end of a trace, where the interesting frames are, in at most w chars. */
static void short_trace(struct perun_strbuf *sb, const char *trace, size_t w)
{
	size_t n = strlen(trace);
	if (n <= w) {
		perun_strbuf_addstr(sb, trace);
		return;
	}
	perun_strbuf_addstr(sb, "...");
	perun_strbuf_addstr(sb, trace + n - (w - 3));
}

/* One record's texts: uid and trace are the row's own (text mode shows
 * the end of long traces); share and amount formatted. */
struct cell {
	const char *uid, *trace;
	char shortened[64], share[32], amount[40];
};

static void fill(struct cell *c, const struct viewlib_diff_rows *r, const size_t *idx, size_t k,
		 size_t i, int side, int short_traces)
{
	memset(c, 0, sizeof(*c));
	if (i >= k)
		return;
	const struct viewlib_diff_row *row = &r->rows[idx[i]];
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	double total = r->total[side];
	c->uid = row->uid;
	c->trace = row->trace;
	if (short_traces) {
		short_trace(&sb, row->trace, 40);
		snprintf(c->shortened, sizeof(c->shortened), "%s", sb.buf ? sb.buf : "");
		c->trace = c->shortened;
		perun_strbuf_release(&sb);
	}
	snprintf(c->share, sizeof(c->share), "%.2f",
		 total ? 100.0 * row->amount[side] / total : 0.0);
	number(&sb, row->amount[side]);
	snprintf(c->amount, sizeof(c->amount), "%s", sb.buf ? sb.buf : "0");
	perun_strbuf_release(&sb);
}

static int table_show_diff(struct perun_view_ctx *ctx, struct perun_error *err)
{
	const struct perun_params *params = ctx->params;
	long long topn = perun_params_int(params, "top-n", 10);
	const char *format = perun_params_string(params, "format", "text");
	const char *group = perun_params_string(params, "group-by", "origin");
	const char *path = perun_params_string(params, "output-file", "-");
	struct viewlib_diff_rows r = { 0 };
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	size_t *idx[2] = { NULL, NULL }, k[2];
	int rc;

	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	if (topn < 1)
		return perun_error_set(err, PERUN_EINVAL, "--top-n must be at least 1, not %lld",
				       topn);
	if ((rc = viewlib_diff_rows_of_view(ctx, "filter", &r, err)) < 0)
		return rc;
	idx[0] = malloc((r.n + 1) * sizeof(size_t));
	idx[1] = malloc((r.n + 1) * sizeof(size_t));
	if (!idx[0] || !idx[1]) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	k[0] = top(&r, 0, (size_t)topn, idx[0]);
	k[1] = top(&r, 1, (size_t)topn, idx[1]);
	size_t ranks = k[0] > k[1] ? k[0] : k[1];
	int text = !strcmp(format, "text"), md = !strcmp(format, "markdown");
	int csv = !strcmp(format, "csv"), json = !strcmp(format, "json");
	const char *side_name[2] = { "baseline", "target" };
	struct cell c[2];

	if (json) {
		json_t *doc = json_pack("{s:s?,s:s?,s:f,s:f,s:[]}", "baseline", ctx->baseline_label,
					"target", ctx->profile_label, "baseline_total", r.total[0],
					"target_total", r.total[1], "ranks");
		json_t *list = json_object_get(doc, "ranks");
		for (size_t i = 0; doc && i < ranks; i++) {
			json_t *rank = json_pack("{s:I}", "rank", (json_int_t)(i + 1));
			for (int s = 0; s < 2 && rank; s++) {
				if (i >= k[s])
					continue;
				const struct viewlib_diff_row *row = &r.rows[idx[s][i]];
				const struct viewlib_diff_row *other =
					i < k[1 - s] ? &r.rows[idx[1 - s][i]] : NULL;
				json_object_set_new(
					rank, side_name[s],
					json_pack("{s:s,s:s,s:f,s:f,s:f}", "uid", row->uid, "trace",
						  row->trace, "amount", row->amount[s], "share",
						  r.total[s] ? 100.0 * row->amount[s] / r.total[s]
							     : 0.0,
						  "diff",
						  row->amount[s] -
							  (other ? other->amount[1 - s] : 0.0)));
			}
			json_array_append_new(list, rank);
		}
		char *dump = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
		json_decref(doc);
		if (!dump) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		perun_strbuf_addstr(&sb, dump);
		perun_strbuf_addch(&sb, '\n');
		free(dump);
	} else {
		const char *hdr[] = { "rank", "uid", "trace", "share %", "amount", "diff" };
		if (text) {
			const char *cmd = perun_profile_header(ctx->profile, "cmd");
			const char *wl = perun_profile_header(ctx->profile, "workload");
			perun_strbuf_addf(&sb,
					  "Difference summary\n  baseline  %s\n  target    %s\n"
					  "  command   %s%s%s\n  totals    %g -> %g\n\n",
					  ctx->baseline_label ? ctx->baseline_label : "",
					  ctx->profile_label ? ctx->profile_label : "", cmd,
					  *wl ? " " : "", wl, r.total[0], r.total[1]);
		}
		/* One line per (rank, profile): the records side by side in
		 * time, as Perun prints each rank's pair. */
		if (md)
			perun_strbuf_addstr(
				&sb, "| rank | profile | uid | trace | share % | amount | diff |\n"
				     "|---:|---|---|---|---:|---:|---:|\n");
		else if (csv)
			perun_strbuf_addstr(&sb, "rank,profile,uid,trace,share,amount,diff\n");
		else
			perun_strbuf_addf(&sb, "%4s  %-16s  %-40s  %8s  %12s  %12s  %s\n", hdr[0],
					  "profile", hdr[1], hdr[3], hdr[4], hdr[5], hdr[2]);
		for (size_t i = 0; i < ranks; i++) {
			for (int s = 0; s < 2; s++) {
				fill(&c[s], &r, idx[s], k[s], i, s, text);
				if (i >= k[s])
					continue;
				double mine = r.rows[idx[s][i]].amount[s];
				double other =
					i < k[1 - s] ? r.rows[idx[1 - s][i]].amount[1 - s] : 0.0;
				char tag[64], diff[40];
				snprintf(tag, sizeof(tag), "%s(%s)", side_name[s], group);
				struct perun_strbuf d = PERUN_STRBUF_INIT;
				number(&d, mine - other);
				snprintf(diff, sizeof(diff), "%s", d.buf ? d.buf : "");
				perun_strbuf_release(&d);
				if (csv) {
					perun_strbuf_addf(&sb, "%zu,%s,", i + 1, tag);
					csv_field(&sb, c[s].uid);
					perun_strbuf_addch(&sb, ',');
					csv_field(&sb, c[s].trace);
					perun_strbuf_addf(&sb, ",%s,%s,%s\n", c[s].share,
							  c[s].amount, diff);
				} else if (md) {
					perun_strbuf_addf(
						&sb, "| %zu | %s | `%s` | `%s` | %s | %s | %s |\n",
						i + 1, tag, c[s].uid, c[s].trace, c[s].share,
						c[s].amount, diff);
				} else {
					perun_strbuf_addf(
						&sb, "%4zu  %-16s  %-40s  %8s  %12s  %12s  %s\n",
						i + 1, tag, c[s].uid, c[s].share, c[s].amount, diff,
						c[s].trace);
				}
			}
		}
	}
	rc = viewlib_write_buffer(path, ctx->out, &sb, err);
out:
	perun_strbuf_release(&sb);
	free(idx[0]);
	free(idx[1]);
	viewlib_diff_rows_free(&r);
	return rc;
}

static const struct perun_view_ops table_ops = {
	.size = sizeof(struct perun_view_ops),
	.show_diff = table_show_diff,
	/* Its rows are summed in one walk of each profile's types. */
	.flags = PERUN_VIEW_WALKS_TYPES,
};

PERUN_PLUGIN_DEFINE(table, PERUN_KIND_VIEW, .version = "1.0",
		    .summary = "showdiff: the top-N records of both profiles with their shares",
		    .options = table_options, .ops = &table_ops);
