/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a fuzzing run leaves: an HTML diff of each finding against its
 * seed, the time series of coverage and degradations (text, SVG and an
 * offline HTML page in the views' style) and the summary table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perun/strbuf.h>

#include "mutate.h"
#include "view-common.h"

/* ---- diff --------------------------------------------------------------- */

struct lines {
	const char **p;
	size_t *len;
	size_t n;
};

static struct lines split_lines(const struct mut_buf *b)
{
	struct lines l = { NULL, NULL, 0 };
	size_t cap = 0, s = 0;
	for (size_t i = 0; i <= b->len; i++)
		if (i == b->len || b->data[i] == '\n') {
			if (i == b->len && s == i && l.n)
				break;
			size_t cap_len = cap;
			mut_grow((void **)&l.p, &cap, l.n + 1, sizeof(*l.p));
			mut_grow((void **)&l.len, &cap_len, l.n + 1, sizeof(*l.len));
			l.p[l.n] = (const char *)b->data + s;
			l.len[l.n++] = i - s;
			s = i + 1;
		}
	return l;
}

static int same_line(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->p[i], b->p[j], a->len[i]);
}

/* One row; long lines are cut, the cut said. */
static void diff_row(struct perun_strbuf *sb, const char *cls, char mark, const char *p, size_t n)
{
	char *s = strndup(p, n < 2000 ? n : 2000);
	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 32 && *c != '\t')
			*c = '?';
	perun_strbuf_addf(sb, "<tr class=\"%s\"><td>%c</td><td><pre>", cls, mark);
	viewlib_html_escape(sb, s);
	if (n > 2000)
		perun_strbuf_addf(sb, "</pre><i>... %zu more bytes</i><pre>", n - 2000);
	perun_strbuf_addstr(sb, "</pre></td></tr>\n");
	free(s);
}

/*
 * Lines the mutant shares with its seed at the start and at the end are
 * context; what lies between is shown as removed and added.  Mutations
 * are local, so this is the diff a line LCS would give for one change,
 * at linear cost on files of megabytes.
 */
int mut_report_diff(const char *out_dir, const struct mut_input *seed,
		    const struct mut_input *mutant, struct perun_error *err)
{
	struct lines a = split_lines(&seed->data), b = split_lines(&mutant->data);
	size_t pre = 0, suf = 0;
	while (pre < a.n && pre < b.n && same_line(&a, pre, &b, pre))
		pre++;
	while (suf < a.n - pre && suf < b.n - pre &&
	       same_line(&a, a.n - 1 - suf, &b, b.n - 1 - suf))
		suf++;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	char title[512];
	snprintf(title, sizeof(title), "%s against %s", mutant->name, seed->name);
	int rc = viewlib_html_begin(&sb, title, 0, err);
	if (rc) {
		perun_strbuf_release(&sb);
		goto out;
	}
	perun_strbuf_addstr(&sb, "<style>tr.del{background:#fdd}tr.add{background:#dfd}"
				 "tr.ctx{color:#666}pre{margin:0;white-space:pre-wrap;"
				 "word-break:break-all}</style>\n");
	perun_strbuf_addf(&sb,
			  "<p>seed: %zu bytes, %zu lines; mutant: %zu bytes, %zu lines; "
			  "rules applied: ",
			  seed->data.len, a.n, mutant->data.len, b.n);
	viewlib_html_escape(&sb, mutant->trail);
	perun_strbuf_addstr(&sb, "</p>\n<table>\n");
	size_t ctx0 = pre > 3 ? pre - 3 : 0;
	if (ctx0)
		perun_strbuf_addf(&sb,
				  "<tr class=\"ctx\"><td></td><td>... %zu equal lines</td></tr>\n",
				  ctx0);
	for (size_t i = ctx0; i < pre; i++)
		diff_row(&sb, "ctx", ' ', a.p[i], a.len[i]);
	for (size_t i = pre; i < a.n - suf && i < pre + 500; i++)
		diff_row(&sb, "del", '-', a.p[i], a.len[i]);
	for (size_t i = pre; i < b.n - suf && i < pre + 500; i++)
		diff_row(&sb, "add", '+', b.p[i], b.len[i]);
	if (a.n - suf > pre + 500 || b.n - suf > pre + 500)
		perun_strbuf_addstr(&sb, "<tr class=\"ctx\"><td></td><td>... (cut at 500 lines)"
					 "</td></tr>\n");
	for (size_t i = a.n - suf; i < a.n && i < a.n - suf + 3; i++)
		diff_row(&sb, "ctx", ' ', a.p[i], a.len[i]);
	perun_strbuf_addstr(&sb, "</table>\n");
	viewlib_html_end(&sb);
	char path[4096];
	snprintf(path, sizeof(path), "%s/diffs/%s-diff.html", out_dir, mutant->name);
	rc = viewlib_write_buffer(path, NULL, &sb, err);
out:
	free(a.p);
	free(a.len);
	free(b.p);
	free(b.len);
	return rc;
}

/* ---- time series -------------------------------------------------------- */

static int write_series(const char *out_dir, const char *name, const struct mut_sample *s, size_t n,
			struct perun_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/logs/%s", out_dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return perun_error_set(err, PERUN_EGENERIC, "fuzz: cannot write '%s': %m", path);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.3f %.6g\n", s[i].t, s[i].value);
	if (fclose(f))
		return perun_error_set(err, PERUN_EGENERIC, "fuzz: cannot write '%s': %m", path);
	return 0;
}

static int series_plot(struct perun_strbuf *sb, const struct mut_sample *s, size_t n,
		       const char *title, const char *ylabel, int standalone,
		       struct perun_error *err)
{
	double *x = malloc((n + 1) * sizeof(double)), *y = malloc((n + 1) * sizeof(double));
	for (size_t i = 0; i < n; i++)
		x[i] = s[i].t, y[i] = s[i].value;
	struct viewlib_svg_series ser = {
		.kind = VIEWLIB_SVG_LINE, .label = NULL, .x = x, .y = y, .n = n, .color = 0
	};
	struct viewlib_svg_plot plot = {
		.title = title, .xlabel = "time [s]", .ylabel = ylabel, .series = &ser, .nseries = 1
	};
	int rc = viewlib_svg_render(sb, &plot, standalone, err);
	free(x);
	free(y);
	return rc;
}

static int write_graphs(const struct mut_report *rep, struct perun_error *err)
{
	static const struct {
		const char *file, *title, *ylabel;
	} g[2] = {
		{ "coverage_ts.svg", "Coverage over time", "max coverage ratio" },
		{ "degradations_ts.svg", "Degradations over time", "degradations found" },
	};
	const struct mut_sample *s[2] = { rep->cov_ts, rep->deg_ts };
	struct perun_strbuf page = PERUN_STRBUF_INIT;
	int rc = viewlib_html_begin(&page, "perun fuzz", 0, err);
	for (int k = 0; !rc && k < 2; k++) {
		struct perun_strbuf sb = PERUN_STRBUF_INIT;
		char path[4096];
		snprintf(path, sizeof(path), "%s/graphs/%s", rep->out_dir, g[k].file);
		rc = series_plot(&sb, s[k], rep->nts, g[k].title, g[k].ylabel, 1, err);
		if (!rc)
			rc = viewlib_write_buffer(path, NULL, &sb, err);
		else
			perun_strbuf_release(&sb);
		if (!rc) {
			perun_strbuf_addstr(&page, "<div class=\"plot\">\n");
			rc = series_plot(&page, s[k], rep->nts, g[k].title, g[k].ylabel, 0, err);
			perun_strbuf_addstr(&page, "</div>\n");
		}
	}
	if (rc) {
		perun_strbuf_release(&page);
		return rc;
	}
	perun_strbuf_addf(&page,
			  "<p>%zu executions in %.1f s; %zu degradations, %zu hangs, %zu "
			  "faults.</p>\n",
			  rep->executions, rep->elapsed, rep->degradations, rep->hangs,
			  rep->faults);
	viewlib_html_end(&page);
	char path[4096];
	snprintf(path, sizeof(path), "%s/graphs/fuzz.html", rep->out_dir);
	return viewlib_write_buffer(path, NULL, &page, err);
}

/* ---- summary ------------------------------------------------------------ */

static void summary(const struct mut_report *rep, FILE *out)
{
	fprintf(out, "perun fuzz: %s\n", rep->interrupted ? "interrupted" : "done");
	fprintf(out, "  %-22s %.2f s\n", "time", rep->elapsed);
	fprintf(out, "  %-22s %zu (%.1f/s)\n", "executions", rep->executions,
		rep->elapsed > 0 ? (double)rep->executions / rep->elapsed : 0.0);
	fprintf(out, "  %-22s %.3g\n", "max coverage ratio", rep->max_cov_ratio);
	fprintf(out, "  %-22s %zu\n", "degradations", rep->degradations);
	fprintf(out, "  %-22s %zu\n", "hangs", rep->hangs);
	fprintf(out, "  %-22s %zu\n", "faults", rep->faults);
	if (rep->nfindings) {
		fprintf(out, "  %-22s %s (%s)\n", "worst-case mutation", rep->findings[0]->name,
			rep->findings[0]->trail);
		double worst = 0;
		for (size_t i = 0; i < rep->nfindings && i < 10; i++)
			if (rep->seed_time[i] > 0 && rep->found_time[i] / rep->seed_time[i] > worst)
				worst = rep->found_time[i] / rep->seed_time[i];
		fprintf(out, "  %-22s %.1fx\n", "worst slowdown", worst);
	}
	fprintf(out, "\nworst inputs found:\n");
	fprintf(out, "  %-40s %10s %12s %10s %6s  %s\n", "input", "size [kB]", "time [s]",
		"slowdown", "rules", "last rules");
	const struct mut_input *seed0 =
		rep->nfindings ? &rep->seeds[rep->findings[0]->seed] : &rep->seeds[0];
	fprintf(out, "  %-40s %10.1f %12.4f %10s %6s  %s\n", seed0->name,
		(double)seed0->data.len / 1000, rep->nfindings ? rep->seed_time[0] : seed0->time,
		"-", "-", "-");
	for (size_t i = 0; i < rep->nfindings && i < 10; i++) {
		const struct mut_input *f = rep->findings[i];
		double st = rep->seed_time[i], ft = rep->found_time[i];
		fprintf(out, "  %-40s %10.1f %12.4f %10.1f %6zu  %s\n", f->name,
			(double)f->data.len / 1000, ft, st > 0 ? ft / st : NAN, f->depth, f->trail);
	}
	fprintf(out, "\nrule efficiency:\n  %-6s %10s %10s %8s  %s\n", "rule", "mutants",
		"successes", "rate", "description");
	for (size_t i = 0; i < rep->rules->n; i++) {
		size_t tries = rep->rule_tries[i], hits = rep->rules->hits[i];
		const struct mut_rule *r = &rep->rules->rules[i];
		fprintf(out, "  %-6s %10zu %10zu %7.1f%%  %s%s%s\n", r->id, tries, hits,
			tries ? 100.0 * (double)hits / (double)tries : 0.0, r->desc,
			r->pattern ? ": " : "", r->pattern ? r->pattern : "");
	}
}

int mut_report_write(const struct mut_report *rep, FILE *out, struct perun_error *err)
{
	int rc = write_series(rep->out_dir, "coverage_plot_data.txt", rep->cov_ts, rep->nts, err);
	if (!rc)
		rc = write_series(rep->out_dir, "degradation_plot_data.txt", rep->deg_ts, rep->nts,
				  err);
	if (!rc && rep->plotting)
		rc = write_graphs(rep, err);
	if (rc)
		return rc;
	char path[4096];
	snprintf(path, sizeof(path), "%s/logs/results_data.txt", rep->out_dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return perun_error_set(err, PERUN_EGENERIC, "fuzz: cannot write '%s': %m", path);
	summary(rep, f);
	fclose(f);
	summary(rep, out);
	return 0;
}
