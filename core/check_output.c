/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reports of perun check: Perun's list grouped by location and its
 * summary, and JSON, JUnit XML, SARIF 2.1.0 and Markdown for CI.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd_util.h"

static const char *change_colour(enum perun_change c)
{
	switch (c) {
	case PERUN_CHANGE_NOT_IN_BASELINE:
	case PERUN_CHANGE_NOT_IN_TARGET: return "blue";
	case PERUN_CHANGE_TOTAL_DEGRADATION:
	case PERUN_CHANGE_SEVERE_DEGRADATION:
	case PERUN_CHANGE_DEGRADATION: return "red";
	case PERUN_CHANGE_MAYBE_DEGRADATION: return "yellow";
	case PERUN_CHANGE_MAYBE_OPTIMIZATION: return "cyan";
	case PERUN_CHANGE_OPTIMIZATION:
	case PERUN_CHANGE_SEVERE_OPTIMIZATION:
	case PERUN_CHANGE_TOTAL_OPTIMIZATION: return "green";
	case PERUN_CHANGE_UNKNOWN: return "grey";
	default: return "white";
	}
}

/* A degradation the noise does not explain: what fails a report. */
static int is_degradation_finding(const struct perun_check_change *c)
{
	return perun_change_is_degradation(c->result) && perun_check_is_change(c);
}

/* "2,090,000": counts are read by people. */
static void grouped(long long x, char out[32])
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%lld", x < 0 ? -x : x), k = 0;
	if (x < 0)
		out[k++] = '-';
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
}

/* ", calls 2,090,000 -> 25 (changed)": the samples behind a verdict. */
static void print_counts(FILE *out, const char *sep, const struct perun_check_change *c)
{
	char a[32], b[32];
	if (c->count_baseline < 0 || !c->count_unit)
		return;
	grouped(c->count_baseline, a);
	grouped(c->count_target, b);
	fprintf(out, "%s%s %s -> %s%s", sep, c->count_unit, a, b,
		c->counts_changed ? " (changed)" : "");
}

/* Python's str(round(x, 2)). */
static void round2(double x, char out[32])
{
	char buf[64];
	if (!isfinite(x)) {
		perun_python_float_str(x, out);
		return;
	}
	snprintf(buf, sizeof(buf), "%.2f", x);
	perun_python_float_str(strtod(buf, NULL), out);
}

static int location_cmp(const void *a, const void *b)
{
	const struct perun_check_change *const *ca = a, *const *cb = b;
	int d = strcmp((*ca)->location, (*cb)->location);
	/* Python's sort is stable: keep the order of equal locations. */
	return d ? d : (ca < cb ? -1 : ca > cb);
}

void perun_check_print_list(FILE *out, const struct perun_check_change *const *list, size_t n,
			    int color)
{
	const struct perun_cli cli = { .color = color };
	const struct perun_check_change **sorted = malloc((n + 1) * sizeof(*sorted));
	size_t m = 0;
	for (size_t i = 0; i < n && sorted; i++)
		if (perun_check_is_change(list[i]))
			sorted[m++] = list[i];
	if (!m) {
		fputs("no changes found\n", out);
		free(sorted);
		return;
	}
	qsort(sorted, m, sizeof(*sorted), location_cmp);
	const char *bold = perun_color(&cli, "bold"), *reset = perun_color(&cli, "reset");
	for (size_t i = 0; i < m; i++) {
		const struct perun_check_change *c = sorted[i];
		char a[32], b[32];
		if (!i || strcmp(sorted[i - 1]->location, c->location))
			fprintf(out, "at%s %s%s:\n", bold, c->location, reset);
		round2(c->rate, a);
		fprintf(out, "\u2514 %s", bold);
		if (c->rate_relative != 0.0) {
			round2(c->rate_relative, b);
			fprintf(out, "%sms (%s%%)", a, b);
		} else {
			fprintf(out, "%sx", a);
		}
		const char *colour = perun_color(&cli, change_colour(c->result));
		fprintf(out, "%s: %s %s%s%s%s", reset, c->type, bold, colour,
			perun_change_string(c->result), reset);
		const char *from =
			perun_color(&cli, perun_change_is_optimization(c->result)  ? "red"
					  : perun_change_is_degradation(c->result) ? "green"
										   : "yellow");
		const char *to =
			perun_color(&cli, perun_change_is_optimization(c->result)  ? "green"
					  : perun_change_is_degradation(c->result) ? "red"
										   : "yellow");
		fprintf(out, " from: %s%s%s%s -> to: %s%s%s%s", bold, from, c->from, reset, bold,
			to, c->to, reset);
		if (strcmp(c->confidence_type, "no")) {
			perun_python_float_str(c->confidence_rate, a);
			fprintf(out, " (with confidence %s%s = %s%s)", bold, c->confidence_type, a,
				reset);
		}
		/* Beyond Perun: what the verdict was judged against. */
		if (!isnan(c->effect_size) || !isnan(c->noise) || c->version ||
		    c->count_baseline >= 0) {
			const char *sep = " [";
			if (c->count_baseline >= 0 && c->count_unit) {
				print_counts(out, sep, c);
				sep = ", ";
			}
			if (!isnan(c->effect_size)) {
				fprintf(out, "%seffect size %.3g", sep, c->effect_size);
				sep = ", ";
			}
			if (!isnan(c->noise)) {
				fprintf(out, "%snoise %.3g", sep, c->noise);
				sep = ", ";
			}
			if (c->version)
				fprintf(out, "%ssince %.7s", sep, c->version);
			fputc(']', out);
		}
		fprintf(out, " (%s$ %s%s)\n", bold, c->cmdstr, reset);
	}
	fputc('\n', out);
	free(sorted);
}

void perun_check_print_unreliable(FILE *out, const struct perun_check_change *const *list, size_t n,
				  int verbose)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += list[i]->unreliable != NULL;
	if (!m)
		return;
	if (!verbose) {
		fprintf(out, "%zu verdict%s within the noise, not reported (-v shows %s)\n", m,
			m == 1 ? "" : "s", m == 1 ? "it" : "them");
		return;
	}
	fprintf(out, "Within the noise (not reported):\n");
	for (size_t i = 0; i < n; i++) {
		const struct perun_check_change *c = list[i];
		if (!c->unreliable)
			continue;
		fprintf(out, "  %s: %s %s by %s from %s to %s: %s", c->location, c->type,
			perun_change_string(c->result), c->method ? c->method : "?", c->from, c->to,
			c->unreliable);
		print_counts(out, "; ", c);
		fprintf(out, " ($ %s)\n", c->cmdstr);
	}
}

static void count(const struct perun_check_change *const *list, size_t n, size_t *total,
		  size_t *opt, size_t *deg, size_t *opt_all, size_t *deg_all)
{
	*total = *opt = *deg = *opt_all = *deg_all = 0;
	for (size_t i = 0; i < n; i++) {
		enum perun_change r = list[i]->result;
		if (!perun_check_is_change(list[i]))
			continue;
		(*total)++;
		*opt += r == PERUN_CHANGE_OPTIMIZATION;
		*deg += r == PERUN_CHANGE_DEGRADATION;
		*opt_all += r == PERUN_CHANGE_OPTIMIZATION || r == PERUN_CHANGE_SEVERE_OPTIMIZATION;
		*deg_all += r == PERUN_CHANGE_DEGRADATION || r == PERUN_CHANGE_SEVERE_DEGRADATION;
	}
}

void perun_check_print_short(FILE *out, const struct perun_check_change *const *list, size_t n,
			     int color)
{
	const struct perun_cli cli = { .color = color };
	size_t total, opt, deg, opt_all, deg_all;
	count(list, n, &total, &opt, &deg, &opt_all, &deg_all);
	fprintf(out, "%zu change%s", total, total == 1 ? "" : "s");
	if (total) {
		fprintf(out, " | %s%s", perun_color(&cli, "bold"), perun_color(&cli, "green"));
		for (size_t i = 0; i < opt; i++)
			fputc('+', out);
		fprintf(out, "%s%s%s", perun_color(&cli, "reset"), perun_color(&cli, "bold"),
			perun_color(&cli, "red"));
		for (size_t i = 0; i < deg; i++)
			fputc('-', out);
		fputs(perun_color(&cli, "reset"), out);
	}
}

void perun_check_print_summary(FILE *out, const struct perun_check_change *const *list, size_t n,
			       int color)
{
	size_t total, opt, deg, opt_all, deg_all;
	count(list, n, &total, &opt, &deg, &opt_all, &deg_all);
	perun_check_print_short(out, list, n, color);
	fprintf(out, "\n%zu optimization%s(+), %zu degradation%s(-)\n", opt_all,
		opt_all == 1 ? "" : "s", deg_all, deg_all == 1 ? "" : "s");
}

/* ---- machine formats ------------------------------------------------- */

static json_t *number_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *perun_check_change_json(const struct perun_check_change *c)
{
	json_t *o = json_object();
	if (c->pair != SIZE_MAX)
		json_object_set_new(o, "pair", json_integer((json_int_t)c->pair));
	json_object_set_new(o, "method", string_or_null(c->method));
	json_object_set_new(o, "location", json_string(c->location));
	json_object_set_new(o, "result", json_string(perun_change_name(c->result)));
	json_object_set_new(o, "result_code", json_integer(c->result));
	json_object_set_new(o, "type", json_string(c->type));
	json_object_set_new(o, "from", json_string(c->from));
	json_object_set_new(o, "to", json_string(c->to));
	json_object_set_new(o, "rate", number_or_null(c->rate));
	json_object_set_new(o, "confidence_type", json_string(c->confidence_type));
	json_object_set_new(o, "confidence_rate", number_or_null(c->confidence_rate));
	json_object_set_new(o, "rate_relative", number_or_null(c->rate_relative));
	json_object_set_new(o, "effect_size", number_or_null(c->effect_size));
	json_object_set_new(o, "noise", number_or_null(c->noise));
	json_object_set_new(o, "version", string_or_null(c->version));
	json_object_set_new(o, "cmdstr", json_string(c->cmdstr));
	json_object_set_new(o, "source", string_or_null(c->source));
	if (c->count_baseline >= 0 && c->count_unit)
		json_object_set_new(o, "counts",
				    json_pack("{s:I, s:I, s:s, s:b}", "baseline",
					      (json_int_t)c->count_baseline, "target",
					      (json_int_t)c->count_target, "unit", c->count_unit,
					      "changed", c->counts_changed));
	else
		json_object_set_new(o, "counts", json_null());
	json_object_set_new(o, "measured_change", number_or_null(c->measured_change));
	json_object_set_new(o, "p_value", number_or_null(c->p_value));
	json_object_set_new(o, "unreliable", string_or_null(c->unreliable));
	return o;
}

static json_t *report_json(const struct perun_check_report *r)
{
	json_t *root = json_object(), *pairs = json_array(), *list = json_array();
	json_t *verdicts_list = json_array();
	size_t *verdicts = calloc(r->npairs + 1, sizeof(*verdicts));
	for (size_t i = 0; i < r->nchanges; i++) {
		if (r->changes[i].pair < r->npairs && verdicts)
			verdicts[r->changes[i].pair]++;
		if (perun_check_is_change(&r->changes[i]))
			json_array_append_new(list, perun_check_change_json(&r->changes[i]));
		json_array_append_new(verdicts_list, perun_check_change_json(&r->changes[i]));
	}
	for (size_t i = 0; i < r->npairs; i++) {
		const struct perun_check_pair *p = &r->pairs[i];
		json_array_append_new(pairs, json_pack("{s:o, s:o, s:o, s:o, s:o, s:I}", "baseline",
						       string_or_null(p->baseline), "target",
						       string_or_null(p->target), "target_minor",
						       string_or_null(p->target_minor), "cmdstr",
						       string_or_null(p->cmdstr), "method",
						       string_or_null(p->method), "verdicts",
						       (json_int_t)(verdicts ? verdicts[i] : 0)));
	}
	free(verdicts);
	const struct perun_check_change **all = malloc((r->nchanges + 1) * sizeof(*all));
	size_t total = 0, opt = 0, deg = 0, opt_all = 0, deg_all = 0;
	if (all) {
		for (size_t i = 0; i < r->nchanges; i++)
			all[i] = &r->changes[i];
		count(all, r->nchanges, &total, &opt, &deg, &opt_all, &deg_all);
	}
	free(all);
	json_t *by = json_object();
	json_int_t unreliable = 0;
	for (size_t i = 0; i < r->nchanges; i++)
		unreliable += r->changes[i].unreliable != NULL;
	for (size_t i = 0; i < r->nchanges; i++) {
		const char *name = perun_change_name(r->changes[i].result);
		if (!perun_check_is_change(&r->changes[i]))
			continue;
		json_int_t k = json_integer_value(json_object_get(by, name));
		json_object_set_new(by, name, json_integer(k + 1));
	}
	json_object_set_new(root, "schema", json_string("perun-check/1"));
	json_object_set_new(root, "pairs", pairs);
	json_object_set_new(root, "changes", list);
	/* Every verdict, NoChange too, for tools that want the whole picture. */
	json_object_set_new(root, "verdicts", verdicts_list);
	json_object_set_new(root, "summary",
			    json_pack("{s:I, s:I, s:I, s:o, s:I}", "changes", (json_int_t)total,
				      "optimizations", (json_int_t)opt_all, "degradations",
				      (json_int_t)deg_all, "by_result", by, "unreliable",
				      unreliable));
	return root;
}

static void xml_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* XML 1.0 has no place for other control characters. */
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r')
				fputc('?', out);
			else
				fputc(*s, out);
		}
	}
}

/* Verdicts ordered by (pair, location), each group one test case. */
static int pair_location_cmp(const void *a, const void *b)
{
	const struct perun_check_change *const *ca = a, *const *cb = b;
	if ((*ca)->pair != (*cb)->pair)
		return (*ca)->pair < (*cb)->pair ? -1 : 1;
	int d = strcmp((*ca)->location, (*cb)->location);
	return d ? d : (ca < cb ? -1 : ca > cb);
}

static void verdict_text(FILE *out, const struct perun_check_change *c)
{
	char rate[32];
	perun_python_float_str(c->rate, rate);
	fprintf(out, "%s: ", c->method ? c->method : "?");
	xml_escaped(out, perun_change_string(c->result));
	fputs(" from ", out);
	xml_escaped(out, c->from);
	fputs(" to ", out);
	xml_escaped(out, c->to);
	fprintf(out, " (rate %s", rate);
	if (strcmp(c->confidence_type, "no")) {
		perun_python_float_str(c->confidence_rate, rate);
		fputs(", ", out);
		xml_escaped(out, c->confidence_type);
		fprintf(out, " %s", rate);
	}
	if (!isnan(c->effect_size))
		fprintf(out, ", effect size %.3g", c->effect_size);
	if (!isnan(c->noise))
		fprintf(out, ", noise %.3g", c->noise);
	if (c->version)
		fprintf(out, ", since %s", c->version);
	fputs(")\n", out);
}

static int write_junit(FILE *out, const struct perun_check_report *r, struct perun_error *err)
{
	const struct perun_check_change **v = malloc((r->nchanges + 1) * sizeof(*v));
	if (!v)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < r->nchanges; i++)
		v[i] = &r->changes[i];
	qsort(v, r->nchanges, sizeof(*v), pair_location_cmp);
	size_t tests = 0, failures = 0;
	for (size_t i = 0; i < r->nchanges;) {
		size_t j = i;
		int failed = 0;
		while (j < r->nchanges && v[j]->pair == v[i]->pair &&
		       !strcmp(v[j]->location, v[i]->location))
			failed |= is_degradation_finding(v[j++]);
		tests++;
		failures += failed;
		i = j;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<testsuites name=\"perun check\" tests=\"%zu\" failures=\"%zu\">\n", tests,
		failures);
	fprintf(out,
		"  <testsuite name=\"perun check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		tests, failures);
	for (size_t i = 0; i < r->nchanges;) {
		const struct perun_check_pair *p =
			v[i]->pair < r->npairs ? &r->pairs[v[i]->pair] : NULL;
		size_t j = i;
		int failed = 0;
		while (j < r->nchanges && v[j]->pair == v[i]->pair &&
		       !strcmp(v[j]->location, v[i]->location))
			failed |= is_degradation_finding(v[j++]);
		fputs("    <testcase classname=\"", out);
		if (p) {
			xml_escaped(out, p->baseline ? p->baseline : "?");
			fputs(" -> ", out);
			xml_escaped(out, p->target ? p->target : "?");
		}
		fputs("\" name=\"", out);
		xml_escaped(out, v[i]->location);
		fputs("\">\n", out);
		if (failed) {
			const struct perun_check_change *worst = NULL;
			for (size_t k = i; k < j; k++)
				if (is_degradation_finding(v[k]) &&
				    (!worst || v[k]->result < worst->result))
					worst = v[k];
			fputs("      <failure type=\"", out);
			fputs(perun_change_name(worst->result), out);
			fputs("\" message=\"", out);
			xml_escaped(out, perun_change_string(worst->result));
			fputs(" at ", out);
			xml_escaped(out, worst->location);
			fputs("\">", out);
			for (size_t k = i; k < j; k++)
				verdict_text(out, v[k]);
			fputs("</failure>\n", out);
		} else {
			fputs("      <system-out>", out);
			for (size_t k = i; k < j; k++)
				verdict_text(out, v[k]);
			fputs("</system-out>\n", out);
		}
		fputs("    </testcase>\n", out);
		i = j;
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	free(v);
	return 0;
}

static int severity(enum perun_change c)
{
	return c <= PERUN_CHANGE_SEVERE_DEGRADATION ? 3 : c == PERUN_CHANGE_DEGRADATION ? 2 : 1;
}

/* One rule per method the strategies name, titled as its plugin titles
 * itself (ABI 1.4), with its long name in Perun's configuration. */
static json_t *sarif_rules(const struct perun_check_report *r)
{
	json_t *list = json_array();
	for (size_t i = 0; i < r->nmethods; i++) {
		const struct perun_loaded_plugin *p = r->methods[i].plugin;
		int seen = 0; /* a method may have instances of several rules */
		for (size_t k = 0; k < i; k++)
			seen |= r->methods[k].plugin == p;
		if (seen)
			continue;
		const char *title = perun_check_method_title(p);
		const char *long_name = perun_check_method_name(p);
		json_t *rule =
			json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "id", p->name, "name", title,
				  "shortDescription", "text", title, "fullDescription", "text",
				  p->desc->summary ? p->desc->summary : title);
		if (long_name)
			json_object_set_new(rule, "properties",
					    json_pack("{s:s}", "perunMethod", long_name));
		json_array_append_new(list, rule);
	}
	return list;
}

static int sarif_rule_index(const json_t *rules, const char *method)
{
	size_t i;
	json_t *rule;
	json_array_foreach(rules, i,
			   rule) if (method &&
				     !strcmp(json_string_value(json_object_get(rule, "id")),
					     method)) return (int)i;
	return -1;
}

static int location_only_cmp(const void *a, const void *b)
{
	return location_cmp(a, b);
}

static json_t *report_sarif(const struct perun_check_report *r)
{
	json_t *rules = sarif_rules(r), *results = json_array();
	const struct perun_check_change **v = malloc((r->nchanges + 1) * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; v && i < r->nchanges; i++)
		if (is_degradation_finding(&r->changes[i]))
			v[m++] = &r->changes[i];
	if (v)
		qsort(v, m, sizeof(*v), location_only_cmp);
	/* One result per degraded location, naming its worst verdict. */
	for (size_t i = 0; i < m;) {
		size_t j = i;
		const struct perun_check_change *worst = v[i];
		struct perun_strbuf sb = PERUN_STRBUF_INIT;
		for (; j < m && !strcmp(v[j]->location, v[i]->location); j++) {
			char rate[32];
			perun_python_float_str(v[j]->rate, rate);
			if (v[j]->result < worst->result)
				worst = v[j];
			perun_strbuf_addf(&sb, "%s%s by %s: %s -> %s (rate %s) ($ %s)",
					  j > i ? "; " : "", perun_change_string(v[j]->result),
					  v[j]->method ? v[j]->method : "?", v[j]->from, v[j]->to,
					  rate, v[j]->cmdstr);
		}
		char *text = perun_strbuf_detach(&sb, NULL);
		json_t *res = json_pack(
			"{s:s, s:s, s:{s:s}, s:[{s:[{s:s, s:s}]}], s:{s:s, s:I}}", "ruleId",
			worst->method ? worst->method : "perun", "level",
			severity(worst->result) >= 2 ? "error" : "warning", "message", "text",
			text ? text : "", "locations", "logicalLocations", "fullyQualifiedName",
			worst->location, "kind", "function", "properties", "result",
			perun_change_name(worst->result), "verdicts", (json_int_t)(j - i));
		/* Code scanning wants a file: the profiled program. */
		json_t *loc = json_array_get(json_object_get(res, "locations"), 0);
		char binary[256];
		const char *cmdstr = worst->cmdstr ? worst->cmdstr : "";
		snprintf(binary, sizeof(binary), "%.*s", (int)strcspn(cmdstr, " "), cmdstr);
		const char *uri = binary;
		while (uri[0] == '.' && uri[1] == '/')
			uri += 2;
		json_object_set_new(
			loc, "physicalLocation",
			json_pack("{s:{s:s}}", "artifactLocation", "uri", *uri ? uri : "unknown"));
		int idx = sarif_rule_index(rules, worst->method);
		if (res && idx >= 0)
			json_object_set_new(res, "ruleIndex", json_integer(idx));
		json_t *props = json_object_get(res, "properties");
		json_object_set_new(props, "effectSize", number_or_null(worst->effect_size));
		json_object_set_new(props, "noise", number_or_null(worst->noise));
		json_object_set_new(props, "version", string_or_null(worst->version));
		json_array_append_new(results, res);
		free(text);
		i = j;
	}
	free(v);
	return json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:o}}, s:o}]}", "$schema",
			 "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0",
			 "runs", "tool", "driver", "name", "perun", "informationUri",
			 "https://github.com/Perfexionists/perun", "rules", rules, "results",
			 results);
}

static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static int write_markdown(FILE *out, const struct perun_check_report *r, struct perun_error *err)
{
	const struct perun_check_change **v = calloc(r->nchanges + 1, sizeof(*v));
	size_t m = 0, total, opt, deg, opt_all, deg_all;
	if (!v)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < r->nchanges; i++)
		if (perun_check_is_change(&r->changes[i]))
			v[m++] = &r->changes[i];
	count(v, m, &total, &opt, &deg, &opt_all, &deg_all);
	size_t maybe = 0;
	for (size_t i = 0; i < m; i++)
		maybe += v[i]->result == PERUN_CHANGE_MAYBE_DEGRADATION;
	fprintf(out, "### Perun performance check\n\n");
	if (!m) {
		fprintf(out, "No performance changes in %zu compared profile pair%s.\n", r->npairs,
			r->npairs == 1 ? "" : "s");
		free(v);
		return 0;
	}
	fprintf(out,
		"**%zu change%s** in %zu compared profile pair%s: %zu degradation%s, "
		"%zu possible degradation%s, %zu optimization%s.\n\n",
		total, total == 1 ? "" : "s", r->npairs, r->npairs == 1 ? "" : "s", deg_all,
		deg_all == 1 ? "" : "s", maybe, maybe == 1 ? "" : "s", opt_all,
		opt_all == 1 ? "" : "s");
	qsort(v, m, sizeof(*v), location_cmp);
	fputs("| | Location | Change | Method | From | To | Rate | Confidence | Command |\n", out);
	fputs("|---|---|---|---|---|---|---|---|---|\n", out);
	for (size_t i = 0; i < m; i++) {
		const struct perun_check_change *c = v[i];
		char rate[32], conf[32];
		round2(c->rate, rate);
		const char *icon =
			perun_change_is_degradation(c->result)
				? (c->result == PERUN_CHANGE_MAYBE_DEGRADATION ? ":warning:"
									       : ":red_circle:")
			: perun_change_is_optimization(c->result) ? ":green_circle:"
								  : ":large_blue_circle:";
		fprintf(out, "| %s | `", icon);
		md_cell(out, c->location);
		fprintf(out, "` | %s | %s | ", perun_change_string(c->result),
			c->method ? c->method : "-");
		md_cell(out, c->from);
		fputs(" | ", out);
		md_cell(out, c->to);
		fprintf(out, " | %s%s | ", rate, c->rate_relative != 0.0 ? "ms" : "x");
		if (strcmp(c->confidence_type, "no")) {
			round2(c->confidence_rate, conf);
			md_cell(out, c->confidence_type);
			fprintf(out, " %s", conf);
		} else {
			fputs("-", out);
		}
		fputs(" | `", out);
		md_cell(out, c->cmdstr);
		fputs("` |\n", out);
	}
	free(v);
	return 0;
}

int perun_check_write_report(FILE *out, const struct perun_check_report *report,
			     enum perun_check_format format, struct perun_error *err)
{
	json_t *doc = NULL;
	switch (format) {
	case PERUN_CHECK_JUNIT: return write_junit(out, report, err);
	case PERUN_CHECK_MARKDOWN: return write_markdown(out, report, err);
	case PERUN_CHECK_JSON: doc = report_json(report); break;
	case PERUN_CHECK_SARIF: doc = report_sarif(report); break;
	default: return perun_error_set(err, PERUN_EINVAL, "unknown report format");
	}
	if (!doc || json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		json_decref(doc);
		return perun_error_set(err, PERUN_EGENERIC, "cannot write the report");
	}
	fputc('\n', out);
	json_decref(doc);
	return 0;
}
