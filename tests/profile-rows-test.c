/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun_profile_foreach_resource reading a loaded profile's compact form
 * against the same walk over the profile once it is a tree: the same rows,
 * in the same order, with the same keys in the same order and the same
 * values.  Run over crafted profiles (non-finite numbers, nested values,
 * a column named like a persistent key, types without columns or rows,
 * resources in another order than their map) and every profile under
 * $PERUN_TESTDATA; then the rule that a row or value fn keeps is never
 * refilled, and that fn's return stops the walk.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#include "tap.h"

/* Every row as compact JSON, one a line. */
static int dump_row(const json_t *row, void *data)
{
	char *text = json_dumps(row, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
	if (!text)
		return -1;
	perun_strbuf_addstr(data, text);
	perun_strbuf_addch(data, '\n');
	free(text);
	return 0;
}

/* The rows of the tape walk and of the tree walk; 0 or -1. */
static int rows_both_ways(struct perun_profile *p, char **tape, char **tree)
{
	struct perun_strbuf a = PERUN_STRBUF_INIT, b = PERUN_STRBUF_INIT;
	int rc = perun_profile_foreach_resource(p, dump_row, &a);
	perun_profile_json(p);
	rc |= perun_profile_foreach_resource(p, dump_row, &b);
	perun_strbuf_add(&a, "", 0);
	perun_strbuf_add(&b, "", 0);
	*tape = perun_strbuf_detach(&a, NULL);
	*tree = perun_strbuf_detach(&b, NULL);
	return rc || !*tape || !*tree ? -1 : 0;
}

static void check_text(const char *name, const char *text, const char *want)
{
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	char *tape = NULL, *tree = NULL;
	if (!tap_ok(!perun_profile_load_buffer(text, strlen(text), name, &p, &err), "%s: loads",
		    name)) {
		tap_diag("%s", err.message);
		return;
	}
	size_t count = perun_profile_resource_count(p);
	tap_ok(!rows_both_ways(p, &tape, &tree), "%s: walked both ways", name);
	tap_is_str(tape, tree, "%s: the compact form gives the tree's rows", name);
	if (want)
		tap_is_str(tape, want, "%s: the rows", name);
	size_t lines = 0;
	for (const char *s = tape; s && *s; s++)
		lines += *s == '\n';
	tap_ok(lines == count, "%s: %zu rows, as many as resources (%zu)", name, lines, count);
	free(tape);
	free(tree);
	perun_profile_free(p);
}

#define HEADER "\"header\": {\"type\": \"time\", \"cmd\": \"c\", \"workload\": \"\"}"

static void crafted(void)
{
	check_text(
		"non-finite",
		"{\"resources\": {\"f#0\": {\"amount\": [NaN, Infinity, -Infinity, 1.5, 2]}},"
		" \"resource_type_map\": {\"f#0\": {\"uid\": \"f\", \"type\": \"time\"}}, " HEADER
		"}",
		"{\"uid\":\"f\",\"type\":\"time\",\"amount\":\"\\u0000NaN\"}\n"
		"{\"uid\":\"f\",\"type\":\"time\",\"amount\":\"\\u0000Infinity\"}\n"
		"{\"uid\":\"f\",\"type\":\"time\",\"amount\":\"\\u0000-Infinity\"}\n"
		"{\"uid\":\"f\",\"type\":\"time\",\"amount\":1.5}\n"
		"{\"uid\":\"f\",\"type\":\"time\",\"amount\":2}\n");
	/* Integers and reals in one column, refilled in place or not. */
	check_text("mixed numbers",
		   "{\"resources\": {\"f#0\": {\"amount\": [1, 2.5, 3, NaN, 4.25, 5],"
		   " \"order\": [true, null, \"x\", 7, 8, 9]}},"
		   " \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}}, " HEADER "}",
		   "{\"uid\":\"f\",\"amount\":1,\"order\":true}\n"
		   "{\"uid\":\"f\",\"amount\":2.5,\"order\":null}\n"
		   "{\"uid\":\"f\",\"amount\":3,\"order\":\"x\"}\n"
		   "{\"uid\":\"f\",\"amount\":\"\\u0000NaN\",\"order\":7}\n"
		   "{\"uid\":\"f\",\"amount\":4.25,\"order\":8}\n"
		   "{\"uid\":\"f\",\"amount\":5,\"order\":9}\n");
	check_text(
		"nested values and a column named like a persistent key",
		"{\"resources\": {\"g#0\": {\"address\": [{\"a\": [1, 2]}, [3, {\"b\": 4}]],"
		" \"uid\": [\"u1\", \"u2\"]}},"
		" \"resource_type_map\": {\"g#0\": {\"type\": \"memory\", \"uid\": {\"function\":"
		" \"g\", \"line\": 3}, \"trace\": [{\"function\": \"main\"}]}}, " HEADER "}",
		"{\"type\":\"memory\",\"uid\":\"u1\",\"trace\":[{\"function\":\"main\"}],"
		"\"address\":{\"a\":[1,2]}}\n"
		"{\"type\":\"memory\",\"uid\":\"u2\",\"trace\":[{\"function\":\"main\"}],"
		"\"address\":[3,{\"b\":4}]}\n");
	/* Resources in another order than the map, types without columns or
	 * rows, a type of the map that has no resources. */
	check_text("order and empty types",
		   "{\"resources\": {\"c#0\": {\"amount\": [3]}, \"none#0\": {},"
		   " \"a#0\": {\"amount\": [1, 2]}, \"zero#0\": {\"amount\": []}},"
		   " \"resource_type_map\": {\"a#0\": {\"uid\": \"a\"}, \"b#0\": {\"uid\": \"b\"},"
		   " \"zero#0\": {\"uid\": \"zero\"}, \"none#0\": {\"uid\": \"none\"},"
		   " \"c#0\": {\"uid\": \"c\"}}, " HEADER "}",
		   "{\"uid\":\"c\",\"amount\":3}\n"
		   "{\"uid\":\"none\"}\n"
		   "{\"uid\":\"a\",\"amount\":1}\n"
		   "{\"uid\":\"a\",\"amount\":2}\n");
	check_text("no resources", "{\"resources\": {}, \"resource_type_map\": {}, " HEADER "}",
		   "");
}

static int shared_profile(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t len = strlen(path);
	if (type != FTW_F || len < 5 || strcmp(path + len - 5, ".perf"))
		return 0;
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	if (perun_profile_load_file(path, &p, &err))
		return 0; /* the broken ones the reader tests refuse */
	char *tape = NULL, *tree = NULL;
	int ok = !rows_both_ways(p, &tape, &tree) && !strcmp(tape, tree);
	tap_ok(ok, "%s: the compact form gives the tree's rows", path);
	free(tape);
	free(tree);
	perun_profile_free(p);
	return 0;
}

/* Keeps a reference to the third row and to the fourth row's amount. */
struct keep {
	size_t calls;
	json_t *row, *value;
	char *row_text, *value_text;
	size_t stop_at;
};

static int keep_some(const json_t *row, void *data)
{
	struct keep *k = data;
	k->calls++;
	if (k->calls == 3) {
		k->row = json_incref((json_t *)row);
		k->row_text = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER);
	}
	if (k->calls == 4) {
		k->value = json_incref(json_object_get(row, "amount"));
		k->value_text = json_dumps(k->value, JSON_ENCODE_ANY);
	}
	return k->calls == k->stop_at ? 42 : 0;
}

static void reuse_and_stop(void)
{
	static const char text[] =
		"{\"resources\": {\"f#0\": {\"amount\": [1, 2, 3, 4, 5, 6.5, 7.5]}},"
		" \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}}, " HEADER "}";
	struct perun_error err = { 0 };
	for (int tree = 0; tree < 2; tree++) {
		const char *form = tree ? "tree" : "compact form";
		struct perun_profile *p = NULL;
		if (perun_profile_load_buffer(text, strlen(text), "keep", &p, &err))
			return;
		if (tree)
			perun_profile_json(p);
		struct keep k = { 0 };
		tap_ok(!perun_profile_foreach_resource(p, keep_some, &k) && k.calls == 7,
		       "%s: every row", form);
		char *row_now =
			k.row ? json_dumps(k.row, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		char *value_now = k.value ? json_dumps(k.value, JSON_ENCODE_ANY) : NULL;
		tap_is_str(row_now, "{\"uid\":\"f\",\"amount\":3}", "%s: a kept row stays", form);
		tap_is_str(row_now, k.row_text, "%s: as it was given", form);
		tap_is_str(value_now, "4", "%s: a kept value stays", form);
		free(row_now);
		free(value_now);
		free(k.row_text);
		free(k.value_text);
		json_decref(k.row);
		json_decref(k.value);
		struct keep s = { .stop_at = 2 };
		int rc = perun_profile_foreach_resource(p, keep_some, &s);
		tap_ok(rc == 42 && s.calls == 2, "%s: fn's return stops the walk (%d after %zu)",
		       form, rc, s.calls);
		perun_profile_free(p);
	}
}

int main(void)
{
	crafted();
	reuse_and_stop();
	const char *data = getenv("PERUN_TESTDATA");
	if (data && *data)
		nftw(data, shared_profile, 16, FTW_PHYS);
	else
		tap_diag("PERUN_TESTDATA unset: the shared profiles are not walked");
	return tap_done();
}
