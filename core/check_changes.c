/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The .changes file of a minor version (objects/<aa>/<38>.changes), as
 * Python Perun's store.save_degradation_list_for writes it: one line
 *   <location> PerformanceChange.<Result> <type> <from> <to> <rate>
 *   <confidence type> <confidence rate> <relative rate> <source> <cmdstr>
 * per (location, type, cmdstr), sorted, joined by newlines.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const struct {
	enum perun_change change;
	const char *name, *text;
} changes[] = {
	{ PERUN_CHANGE_UNKNOWN, "Unknown", "Unknown" },
	{ PERUN_CHANGE_NOT_IN_BASELINE, "NotInBaseline", "Not in Baseline" },
	{ PERUN_CHANGE_TOTAL_DEGRADATION, "TotalDegradation", "Total Degradation" },
	{ PERUN_CHANGE_SEVERE_DEGRADATION, "SevereDegradation", "Severe Degradation" },
	{ PERUN_CHANGE_DEGRADATION, "Degradation", "Degradation" },
	{ PERUN_CHANGE_MAYBE_DEGRADATION, "MaybeDegradation", "Maybe Degradation" },
	{ PERUN_CHANGE_NO_CHANGE, "NoChange", "No Change" },
	{ PERUN_CHANGE_MAYBE_OPTIMIZATION, "MaybeOptimization", "Maybe Optimization" },
	{ PERUN_CHANGE_OPTIMIZATION, "Optimization", "Optimization" },
	{ PERUN_CHANGE_SEVERE_OPTIMIZATION, "SevereOptimization", "Severe Optimization" },
	{ PERUN_CHANGE_TOTAL_OPTIMIZATION, "TotalOptimization", "Total Optimization" },
	{ PERUN_CHANGE_NOT_IN_TARGET, "NotInTarget", "Not in Target" },
};

const char *perun_change_name(enum perun_change c)
{
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
		if (changes[i].change == c)
			return changes[i].name;
	return "Unknown";
}

const char *perun_change_string(enum perun_change c)
{
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
		if (changes[i].change == c)
			return changes[i].text;
	return "Unknown";
}

static int change_from_name(const char *name, size_t len, enum perun_change *out)
{
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
		if (strlen(changes[i].name) == len && !strncmp(changes[i].name, name, len)) {
			*out = changes[i].change;
			return 0;
		}
	return -1;
}

static char *changes_path(const struct perun_instance *inst, const char *sha)
{
	char rel[80];
	snprintf(rel, sizeof(rel), "objects/%.2s/%s.changes", sha, sha + 2);
	return perun_instance_path(inst, rel);
}

static int parse_double(const char *s, size_t len, double *out)
{
	char buf[64];
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	errno = 0;
	*out = strtod(buf, &end);
	return *end ? -1 : 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse one line as Perun's LINE_PARSING_REGEX does; 0 or -1. */
static int parse_line(const char *line, struct perun_check_change *c)
{
	static const char marker[] = "PerformanceChange.";
	const char *at = NULL;
	/* The location is greedy: the last marker preceded by a blank wins. */
	for (const char *p = strstr(line + 1, marker); p; p = strstr(p + 1, marker))
		if (is_space(p[-1]))
			at = p;
	if (!at || at - 1 == line)
		return -1;
	const char *p = at + sizeof(marker) - 1, *name = p;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
		p++;
	memset(c, 0, sizeof(*c));
	if (!is_space(*p) || change_from_name(name, (size_t)(p - name), &c->result))
		return -1;
	const char *tok[8];
	size_t len[8];
	for (int i = 0; i < 8; i++) {
		p++;
		tok[i] = p;
		while (*p && !is_space(*p))
			p++;
		len[i] = (size_t)(p - tok[i]);
		if (!len[i] || !is_space(*p))
			return -1;
	}
	const char *cmdstr = p + 1;
	if (!*cmdstr)
		return -1;
	if (parse_double(tok[3], len[3], &c->rate) ||
	    parse_double(tok[5], len[5], &c->confidence_rate) ||
	    parse_double(tok[6], len[6], &c->rate_relative))
		return -1;
	c->location = strndup(line, (size_t)(at - 1 - line));
	c->type = strndup(tok[0], len[0]);
	c->from = strndup(tok[1], len[1]);
	c->to = strndup(tok[2], len[2]);
	c->confidence_type = strndup(tok[4], len[4]);
	c->source = strndup(tok[7], len[7]);
	c->cmdstr = strdup(cmdstr);
	c->effect_size = c->noise = c->p_value = c->measured_change = NAN;
	c->count_baseline = c->count_target = -1;
	c->pair = SIZE_MAX;
	return 0;
}

int perun_changes_load(const struct perun_instance *inst, const char *sha,
		       struct perun_check_change **list, size_t *n, struct perun_error *err)
{
	char *path = changes_path(inst, sha);
	FILE *f = fopen(path, "r");
	if (!f) {
		int rc = errno == ENOENT ? 0
					 : perun_error_set_errno(err, PERUN_EGENERIC, errno,
								 "cannot read '%s'", path);
		free(path);
		return rc;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int warned = 0, rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || is_space(line[len - 1])))
			line[--len] = '\0';
		char *start = line;
		while (is_space(*start))
			start++;
		struct perun_check_change c;
		if (parse_line(start, &c)) {
			if (!warned)
				perun_warn("malformed changelog line in %s", path);
			warned = 1;
			continue;
		}
		struct perun_check_change *grown = realloc(*list, (*n + 1) * sizeof(**list));
		if (!grown) {
			perun_check_change_release(&c);
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		*list = grown;
		grown[(*n)++] = c;
	}
	free(line);
	fclose(f);
	free(path);
	return rc;
}

/* A field of a line: blanks would break the line's parsing, so none. */
static void add_token(struct perun_strbuf *sb, const char *s)
{
	if (!*s)
		s = "-";
	for (; *s; s++)
		perun_strbuf_addch(sb, is_space(*s) || *s == '\n' ? '_' : *s);
}

static char *record_dup(const struct perun_check_change *c)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	char num[32];
	perun_strbuf_addf(&sb, "%s PerformanceChange.%s ", c->location,
			  perun_change_name(c->result));
	add_token(&sb, c->type);
	perun_strbuf_addch(&sb, ' ');
	add_token(&sb, c->from);
	perun_strbuf_addch(&sb, ' ');
	add_token(&sb, c->to);
	perun_python_float_str(c->rate, num);
	perun_strbuf_addf(&sb, " %s ", num);
	add_token(&sb, c->confidence_type);
	perun_python_float_str(c->confidence_rate, num);
	perun_strbuf_addf(&sb, " %s", num);
	perun_python_float_str(c->rate_relative, num);
	perun_strbuf_addf(&sb, " %s ", num);
	add_token(&sb, c->source ? c->source : "");
	perun_strbuf_addf(&sb, " %s", c->cmdstr);
	return perun_strbuf_detach(&sb, NULL);
}

struct record {
	const struct perun_check_change *c;
	char *line;
};

static int same_key(const struct perun_check_change *a, const struct perun_check_change *b)
{
	return !strcmp(a->location, b->location) && !strcmp(a->type, b->type) &&
	       !strcmp(a->cmdstr, b->cmdstr);
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct record *)a)->line, ((const struct record *)b)->line);
}

static int key_cmp(const void *a, const void *b)
{
	const struct record *ra = a, *rb = b;
	int d = strcmp(ra->c->location, rb->c->location);
	if (!d)
		d = strcmp(ra->c->type, rb->c->type);
	if (!d)
		d = strcmp(ra->c->cmdstr, rb->c->cmdstr);
	/* Equal keys keep their order: the later one wins below. */
	return d ? d : (ra < rb ? -1 : ra > rb);
}

int perun_changes_save(const struct perun_instance *inst, const char *sha,
		       const struct perun_check_change *const *list, size_t n,
		       struct perun_error *err)
{
	struct perun_check_change *old = NULL;
	size_t nold = 0, nrec = 0;
	struct record *recs = NULL;
	char *path = changes_path(inst, sha), *text = NULL;
	int rc = perun_changes_load(inst, sha, &old, &nold, err);
	if (rc)
		goto out;
	recs = calloc(nold + n + 1, sizeof(*recs));
	if (!recs) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nold; i++)
		recs[nrec++].c = &old[i];
	for (size_t i = 0; i < n; i++)
		if (perun_check_is_change(list[i]))
			recs[nrec++].c = list[i];
	/* One record per (location, type, cmdstr): the last one given. */
	qsort(recs, nrec, sizeof(*recs), key_cmp);
	size_t kept = 0;
	for (size_t i = 0; i < nrec; i++) {
		if (i + 1 < nrec && same_key(recs[i].c, recs[i + 1].c))
			continue;
		recs[kept++] = recs[i];
	}
	nrec = kept;
	for (size_t i = 0; i < nrec; i++)
		if (!(recs[i].line = record_dup(recs[i].c))) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
	qsort(recs, nrec, sizeof(*recs), line_cmp);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	for (size_t i = 0; i < nrec; i++) {
		if (i)
			perun_strbuf_addch(&sb, '\n');
		perun_strbuf_addstr(&sb, recs[i].line);
	}
	size_t len;
	text = perun_strbuf_detach(&sb, &len);
	if (!text) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	rc = perun_mkdirs(dir, 0755, err);
	if (!rc)
		rc = perun_file_write_atomic(path, text, len, err);
out:
	for (size_t i = 0; i < nrec; i++)
		free(recs[i].line);
	free(recs);
	for (size_t i = 0; i < nold; i++)
		perun_check_change_release(&old[i]);
	free(old);
	free(text);
	free(path);
	return rc;
}

/* The version a change belongs to: where a series change started, else
 * the target's version of its pair. */
static const char *version_of(const struct perun_check_report *r,
			      const struct perun_check_change *c)
{
	if (c->version)
		return c->version;
	return c->pair < r->npairs ? r->pairs[c->pair].target_minor : NULL;
}

int perun_check_save(struct perun_instance *inst, const struct perun_check_report *r,
		     struct perun_error *err)
{
	const struct perun_check_change **v = calloc(r->nchanges + 1, sizeof(*v));
	char *done = calloc(r->nchanges + 1, 1);
	int rc = !v || !done ? perun_error_set(err, PERUN_EGENERIC, "out of memory") : 0;
	if (!rc)
		rc = perun_instance_lock(inst, err);
	for (size_t i = 0; i < r->nchanges && !rc; i++) {
		const char *sha = version_of(r, &r->changes[i]);
		if (done[i] || !sha)
			continue;
		size_t n = 0;
		for (size_t k = i; k < r->nchanges; k++) {
			const char *other = version_of(r, &r->changes[k]);
			if (!done[k] && other && !strcmp(other, sha)) {
				v[n++] = &r->changes[k];
				done[k] = 1;
			}
		}
		/* Versions without a reported change keep their file as it is. */
		size_t reported = 0;
		for (size_t k = 0; k < n; k++)
			reported += perun_check_is_change(v[k]);
		if (reported)
			rc = perun_changes_save(inst, sha, v, n, err);
	}
	free(v);
	free(done);
	return rc;
}

int perun_check_print_status(FILE *out, const struct perun_instance *inst, const char *sha,
			     int short_form, int color, struct perun_error *err)
{
	struct perun_check_change *list = NULL;
	size_t n = 0;
	int rc = perun_changes_load(inst, sha, &list, &n, err);
	const struct perun_check_change **v = calloc(n + 1, sizeof(*v));
	if (!rc && !v)
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (!rc) {
		for (size_t i = 0; i < n; i++)
			v[i] = &list[i];
		if (!short_form)
			fputc('\n', out);
		perun_check_print_summary(out, v, n, color);
		if (!short_form) {
			fputc('\n', out);
			perun_check_print_list(out, v, n, color);
		}
	}
	free(v);
	for (size_t i = 0; i < n; i++)
		perun_check_change_release(&list[i]);
	free(list);
	return rc;
}

int perun_check_changes_json(const struct perun_instance *inst, const char *sha, json_t **out,
			     struct perun_error *err)
{
	struct perun_check_change *list = NULL;
	size_t n = 0;
	int rc = perun_changes_load(inst, sha, &list, &n, err);
	*out = json_array();
	if (!rc && !*out)
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (!rc && json_array_append_new(*out, perun_check_change_json(&list[i])))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		perun_check_change_release(&list[i]);
	}
	free(list);
	if (rc) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}
