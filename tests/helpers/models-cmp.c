/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Test helper: compare the models of a profile with expected ones.
 *   models-cmp [--rel EPS] [--model NAME] [--any-order] <expected.perf> <actual.perf>
 * The last N models of actual (N = the number of expected models) must
 * match the expected ones in order: the same keys in the same order (with
 * --any-order, for profiles an older Perun wrote: the expected keys in
 * any order, newer keys allowed), the
 * same JSON types (an int stays an int), equal strings and numbers within
 * EPS relative (default 1e-9; NaN only matches NaN).  Prints one line
 * "<N> models, <V> numbers, <B> bit-exact" and exits 0, or names the first
 * difference on stderr and exits 1; unreadable input exits 2.  With
 * --model, only the models whose "model" is NAME count, on both sides.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

struct tally {
	double rel;
	int any_order;
	size_t numbers, exact;
	char path[512];
};

static int differ(struct tally *t, const char *path, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "models-cmp: %s: ", path);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	(void)t;
	return 1;
}

static int cmp_value(struct tally *t, const json_t *want, const json_t *got, const char *path);

static int cmp_number(struct tally *t, const json_t *want, const json_t *got, const char *path)
{
	double a, b;
	char sa[64], sb[64];
	int nw = perun_json_number(want, &a), ng = perun_json_number(got, &b);
	if (nw || ng)
		return -1; /* not both numbers */
	snprintf(sa, sizeof(sa), "%.17g", a);
	snprintf(sb, sizeof(sb), "%.17g", b);
	if (json_is_integer(want) != json_is_integer(got))
		return differ(t, path, "expected %s, got %s (an int and a float)",
			      json_is_integer(want) ? "int" : "float",
			      json_is_integer(got) ? "int" : "float");
	t->numbers++;
	if (isnan(a) || isnan(b)) {
		if (isnan(a) && isnan(b)) {
			t->exact++;
			return 0;
		}
		return differ(t, path, "expected %s, got %s", sa, sb);
	}
	if (a == b) {
		t->exact++;
		return 0;
	}
	double scale = fmax(fabs(a), fabs(b));
	if (fabs(a - b) <= t->rel * (scale > 1 ? scale : 1))
		return 0;
	return differ(t, path, "expected %s, got %s", sa, sb);
}

static int cmp_value(struct tally *t, const json_t *want, const json_t *got, const char *path)
{
	char sub[600];
	int rc = cmp_number(t, want, got, path);
	if (rc >= 0)
		return rc;
	if (json_typeof(want) != json_typeof(got))
		return differ(t, path, "%s%s", "different JSON types", "");
	if (json_is_object(want) && t->any_order) {
		const char *key;
		const json_t *value;
		json_object_foreach((json_t *)want, key, value)
		{
			snprintf(sub, sizeof(sub), "%s.%s", path, key);
			const json_t *other = json_object_get(got, key);
			if (!other)
				return differ(t, sub, "%s%s", "missing", "");
			if (cmp_value(t, value, other, sub))
				return 1;
		}
		return 0;
	}
	if (json_is_object(want)) {
		void *wi = json_object_iter((json_t *)want), *gi = json_object_iter((json_t *)got);
		for (; wi && gi; wi = json_object_iter_next((json_t *)want, wi),
				 gi = json_object_iter_next((json_t *)got, gi)) {
			const char *wk = json_object_iter_key(wi), *gk = json_object_iter_key(gi);
			snprintf(sub, sizeof(sub), "%s.%s", path, wk);
			if (strcmp(wk, gk))
				return differ(t, sub, "expected key '%s', got '%s'", wk, gk);
			if (cmp_value(t, json_object_iter_value(wi), json_object_iter_value(gi),
				      sub))
				return 1;
		}
		if (wi || gi)
			return differ(t, path, "%s%s", "a different number of keys", "");
		return 0;
	}
	if (json_is_array(want)) {
		if (json_array_size(want) != json_array_size(got)) {
			char a[32], b[32];
			snprintf(a, sizeof(a), "%zu", json_array_size(want));
			snprintf(b, sizeof(b), "%zu", json_array_size(got));
			return differ(t, path, "expected %s elements, got %s", a, b);
		}
		for (size_t i = 0; i < json_array_size(want); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			if (cmp_value(t, json_array_get(want, i), json_array_get(got, i), sub))
				return 1;
		}
		return 0;
	}
	if (!json_equal((json_t *)want, (json_t *)got)) {
		char *a = json_dumps(want, JSON_ENCODE_ANY), *b = json_dumps(got, JSON_ENCODE_ANY);
		int r = differ(t, path, "expected %s, got %s", a ? a : "?", b ? b : "?");
		free(a);
		free(b);
		return r;
	}
	return 0;
}

/* The models of p, those of one kind with only; a new reference. */
static json_t *models_of(const struct perun_profile *p, const char *only)
{
	json_t *all = perun_profile_get(p, "models"), *out = json_array();
	size_t i;
	json_t *m;
	json_array_foreach(
		all, i,
		m) if (!only || !strcmp(json_string_value(json_object_get(m, "model")) ?: "", only))
		json_array_append(out, m);
	return out;
}

int main(int argc, char **argv)
{
	struct tally t = { .rel = 1e-9 };
	struct perun_error err = { 0 };
	struct perun_profile *want = NULL, *got = NULL;
	json_t *wm = NULL, *gm = NULL;
	int rc = 2;
	const char *only = NULL;
	while (argc > 1 && !strncmp(argv[1], "--", 2)) {
		int takes = strcmp(argv[1], "--any-order") ? 2 : 1;
		if (argc <= takes)
			break;
		if (!strcmp(argv[1], "--rel"))
			t.rel = strtod(argv[2], NULL);
		else if (!strcmp(argv[1], "--model"))
			only = argv[2];
		else if (takes == 1)
			t.any_order = 1;
		else
			break;
		argv += takes;
		argc -= takes;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: models-cmp [--rel EPS] [--model NAME] [--any-order] "
				"<expected.perf> <actual.perf>\n");
		return 2;
	}
	if (perun_profile_load_file(argv[1], &want, &err) ||
	    perun_profile_load_file(argv[2], &got, &err)) {
		fprintf(stderr, "models-cmp: %s\n", err.message);
		goto out;
	}
	wm = models_of(want, only);
	gm = models_of(got, only);
	size_t n = json_array_size(wm), have = json_array_size(gm);
	if (have < n) {
		fprintf(stderr, "models-cmp: expected %zu models, got %zu\n", n, have);
		rc = 1;
		goto out;
	}
	rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char path[64];
		snprintf(path, sizeof(path), "models[%zu]", have - n + i);
		rc = cmp_value(&t, json_array_get(wm, i), json_array_get(gm, have - n + i), path);
	}
	if (!rc)
		printf("%zu models, %zu numbers, %zu bit-exact\n", n, t.numbers, t.exact);
out:
	json_decref(wm);
	json_decref(gm);
	perun_profile_free(want);
	perun_profile_free(got);
	return rc;
}
