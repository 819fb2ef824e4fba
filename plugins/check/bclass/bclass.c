/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bclass: compares the complexity classes of two bounds profiles (perun
 * collect bounds).  The loops of a function are paired in source order
 * (lines move between versions, the order of loops mostly does not); a
 * function whose number of loops changed pairs them by line and column,
 * the rest are not in the baseline or not in the target.  The total bounds
 * pair by function.  A class that rose (O(n^1) to O(n^2), O(log n) to
 * O(n^1), anything to O(∞)) is a degradation at the target's
 * file:function:line:column, one that fell an optimization.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

/* A class: O(∞) above all, then the polynomial degree, then log factors. */
struct klass {
	int inf, deg, logs;
};

/* "O(1)", "O(n^2)", "O(log n)", "O(n^1 log n)", "O(log^2 n)", "O(∞)". */
static int parse_class(const char *s, struct klass *k)
{
	int n = 0;
	memset(k, 0, sizeof(*k));
	if (!s)
		return -1;
	if (!strcmp(s, "O(∞)") || !strcmp(s, "O(inf)")) {
		k->inf = 1;
		return 0;
	}
	if (!strcmp(s, "O(1)"))
		return 0;
	if (sscanf(s, "O(n^%d)%n", &k->deg, &n) == 1 && !s[n])
		return 0;
	if (!strcmp(s, "O(log n)")) {
		k->logs = 1;
		return 0;
	}
	if (sscanf(s, "O(log^%d n)%n", &k->logs, &n) == 1 && !s[n])
		return 0;
	if (sscanf(s, "O(n^%d log n)%n", &k->deg, &n) == 1 && !s[n]) {
		k->logs = 1;
		return 0;
	}
	if (sscanf(s, "O(n^%d log^%d n)%n", &k->deg, &k->logs, &n) == 2 && !s[n])
		return 0;
	return -1;
}

static int class_cmp(const struct klass *a, const struct klass *b)
{
	if (a->inf != b->inf)
		return a->inf - b->inf;
	if (a->deg != b->deg)
		return a->deg - b->deg;
	return a->logs - b->logs;
}

struct entry {
	char *source, *function, *klass, *location;
	long line, column;
	int total;
	struct klass k;
	int paired;
};

struct entries {
	struct entry *e;
	size_t n;
};

static void entries_release(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->e[i].source);
		free(es->e[i].function);
		free(es->e[i].klass);
		free(es->e[i].location);
	}
	free(es->e);
}

static const char *jv_str(const struct perun_jv *o, const char *key)
{
	const struct perun_jv *v = o ? perun_jv_get(o, key) : NULL;
	return v && perun_jv_is_string(v) ? perun_jv_string(v) : NULL;
}

static long jv_long(const struct perun_jv *o, const char *key)
{
	double x = 0;
	const struct perun_jv *v = o ? perun_jv_get(o, key) : NULL;
	if (!v || perun_jv_number(v, &x))
		return -1;
	return (long)x;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int r = strcmp(a->source, b->source);
	if (!r)
		r = strcmp(a->function, b->function);
	if (!r)
		r = a->total - b->total;
	if (!r)
		r = a->line < b->line ? -1 : a->line > b->line;
	if (!r)
		r = a->column < b->column ? -1 : a->column > b->column;
	return r;
}

/* The bound resources of a profile, sorted by file, function, line. */
static int entries_of(const struct perun_profile *p, const char *name, struct entries *es,
		      struct perun_error *err)
{
	struct perun_type_list types;
	memset(es, 0, sizeof(*es));
	if (perun_profile_types(p, &types, err))
		return -err->code;
	es->e = calloc(types.n + 1, sizeof(*es->e));
	if (!es->e) {
		perun_type_list_release(&types);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	int rc = 0;
	for (size_t t = 0; t < types.n && !rc; t++) {
		const struct perun_jv *per = types.types[t].persistent;
		const char *type = jv_str(per, "type");
		if (!type || (strcmp(type, "local bound") && strcmp(type, "total bound")))
			continue;
		const struct perun_jv *uid = perun_jv_get(per, "uid");
		const char *src = jv_str(uid, "source"), *fn = jv_str(uid, "function");
		const char *cls = jv_str(per, "class");
		struct entry *e = &es->e[es->n];
		if (!src || !fn || parse_class(cls, &e->k)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "%s: resource '%s' is no bound with a class", name,
					     types.types[t].id);
			break;
		}
		e->line = jv_long(uid, "line");
		e->column = jv_long(uid, "column");
		e->total = !strcmp(type, "total bound");
		e->source = strdup(src);
		e->function = strdup(fn);
		e->klass = strdup(cls);
		if (asprintf(&e->location, "%s:%s:%ld:%ld", src, fn, e->line, e->column) < 0)
			e->location = NULL;
		es->n++;
		if (!e->source || !e->function || !e->klass || !e->location)
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	perun_type_list_release(&types);
	if (rc) { /* the caller has nothing to release then */
		entries_release(es);
		memset(es, 0, sizeof(*es));
	} else if (es->n) {
		qsort(es->e, es->n, sizeof(*es->e), entry_cmp);
	}
	return rc;
}

/* [*lo, *hi): the entries of one file, function and kind from i. */
static size_t group_end(const struct entries *es, size_t i)
{
	size_t j = i + 1;
	while (j < es->n && !strcmp(es->e[j].source, es->e[i].source) &&
	       !strcmp(es->e[j].function, es->e[i].function) && es->e[j].total == es->e[i].total)
		j++;
	return j;
}

static int same_group(const struct entry *a, const struct entry *b)
{
	return !strcmp(a->source, b->source) && !strcmp(a->function, b->function) &&
	       a->total == b->total;
}

static int emit_pair(const struct entry *b, const struct entry *t, perun_check_emit_fn emit,
		     void *data)
{
	enum perun_change result = PERUN_CHANGE_NO_CHANGE;
	const struct entry *at = t ? t : b;
	if (!b)
		result = PERUN_CHANGE_NOT_IN_BASELINE;
	else if (!t)
		result = PERUN_CHANGE_NOT_IN_TARGET;
	else if (class_cmp(&t->k, &b->k) > 0)
		result = PERUN_CHANGE_DEGRADATION;
	else if (class_cmp(&t->k, &b->k) < 0)
		result = PERUN_CHANGE_OPTIMIZATION;
	double rate = 0;
	if (b && t && !b->k.inf && !t->k.inf)
		rate = t->k.deg - b->k.deg;
	struct perun_degradation d = {
		.size = sizeof(d),
		.result = result,
		.type = at->total ? "total bound" : "local bound",
		.location = at->location,
		.from_baseline = b ? b->klass : "",
		.to_target = t ? t->klass : "",
		.rate_degradation = rate,
		.confidence_type = "no",
		.confidence_rate = 0,
		.rate_degradation_relative = 0,
		.effect_size = rate,
		.noise = 0,
		.version = NULL,
	};
	return emit(&d, data);
}

static int bclass_compare(const struct perun_profile *baseline, const struct perun_profile *target,
			  const struct perun_params *params, perun_check_emit_fn emit, void *data,
			  struct perun_error *err)
{
	(void)params;
	struct entries base, targ;
	int rc = entries_of(baseline, "baseline", &base, err);
	if (rc)
		return rc;
	rc = entries_of(target, "target", &targ, err);
	if (rc) {
		entries_release(&base);
		return rc;
	}
	for (size_t i = 0; i < targ.n && !rc;) {
		size_t j = group_end(&targ, i), bi = 0;
		while (bi < base.n && !same_group(&base.e[bi], &targ.e[i]))
			bi++;
		size_t bj = bi < base.n ? group_end(&base, bi) : bi;
		if (bi < base.n && bj - bi == j - i) {
			/* as many loops: in source order */
			for (size_t k = 0; k < j - i; k++) {
				base.e[bi + k].paired = targ.e[i + k].paired = 1;
				if (emit_pair(&base.e[bi + k], &targ.e[i + k], emit, data))
					rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			}
		} else {
			for (size_t k = i; k < j && !rc; k++) {
				struct entry *b = NULL;
				for (size_t m = bi; m < bj && !b; m++)
					if (base.e[m].line == targ.e[k].line &&
					    base.e[m].column == targ.e[k].column)
						b = &base.e[m];
				if (b)
					b->paired = 1;
				targ.e[k].paired = 1;
				if (emit_pair(b, &targ.e[k], emit, data))
					rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			}
		}
		i = j;
	}
	for (size_t i = 0; i < base.n && !rc; i++)
		if (!base.e[i].paired && emit_pair(&base.e[i], NULL, emit, data))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	entries_release(&base);
	entries_release(&targ);
	return rc;
}

static const struct perun_check_ops bclass_ops = {
	.size = sizeof(bclass_ops),
	.compare = bclass_compare,
	.method = "bound_class_comparison",
	.title = "complexity class of loop bounds",
};

PERUN_PLUGIN_DEFINE(bclass, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "complexity classes of bounds profiles: a class that rose degrades",
		    .ops = &bclass_ops);
