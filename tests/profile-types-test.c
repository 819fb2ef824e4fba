/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun_profile_types, perun_profile_set_new and perun_jv_flatten_dup, and
 * the readers built on them (the postprocessors' points), on a loaded
 * profile's compact form against the same profile once it is a tree: the
 * types in the order of "resources" (not of resource_type_map, which
 * Python Perun's writer may order otherwise), types without resources
 * left out, values still valid after the call, the resources never made a
 * tree by reading them, by adding models or by saving, which writes them
 * as their tree would be written; then every profile under
 * $PERUN_TESTDATA the same both ways; last, that memory running out (in
 * jansson) is an error the caller gets, never an abort.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include <perun/perun.h>
#include <perun/points.h>

#include "tap.h"

#define HEADER "\"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\"}"

/* The list as text: "id|persistent|columns" a line. */
static char *types_text(const struct perun_type_list *l)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	for (size_t i = 0; i < l->n; i++) {
		json_t *pers = perun_jv_to_json(l->types[i].persistent);
		json_t *cols = perun_jv_to_json(l->types[i].columns);
		char *a = json_dumps(pers, JSON_COMPACT | JSON_PRESERVE_ORDER);
		char *b = json_dumps(cols, JSON_COMPACT | JSON_PRESERVE_ORDER);
		perun_strbuf_addf(&sb, "%s|%s|%s\n", l->types[i].id, a ? a : "?", b ? b : "?");
		free(a);
		free(b);
		json_decref(pers);
		json_decref(cols);
	}
	perun_strbuf_add(&sb, "", 0);
	return perun_strbuf_detach(&sb, NULL);
}

/* The types of p's compact form, then of its tree; 0, or -1 on failure. */
static int types_both_ways(struct perun_profile *p, char **tape, char **tree, int *compact)
{
	struct perun_type_list l;
	struct perun_error err = { 0 };
	*tape = *tree = NULL;
	if (perun_profile_types(p, &l, &err))
		return -1;
	*compact = l.copy == NULL;
	*tape = types_text(&l);
	perun_type_list_release(&l);
	perun_profile_json(p);
	if (perun_profile_types(p, &l, &err))
		return -1;
	*tree = types_text(&l);
	perun_type_list_release(&l);
	return *tape && *tree ? 0 : -1;
}

static struct perun_profile *load(const char *name, const char *text)
{
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	if (perun_profile_load_buffer(text, strlen(text), name, &p, &err))
		tap_diag("%s: %s", name, err.message);
	return p;
}

/* Does reading the resources leave them in the compact form? */
static int still_compact(const struct perun_profile *p)
{
	struct perun_type_list l;
	struct perun_error err = { 0 };
	if (perun_profile_types(p, &l, &err))
		return 0;
	int compact = l.copy == NULL;
	perun_type_list_release(&l);
	return compact;
}

static void test_types(void)
{
	/* resources in another order than their map, a type only in the map,
	 * one without columns, nested and non-finite values. */
	const char *text =
		"{\"resources\": {\"b#0\": {\"amount\": [1, 2.5]}, \"a#0\": {},"
		" \"c#0\": {\"amount\": [NaN], \"trace\": [[{\"f\": 1}]]}},"
		" \"resource_type_map\": {\"a#0\": {\"uid\": \"a\"}, \"z#0\": {\"uid\": \"z\"},"
		" \"c#0\": {\"uid\": {\"function\": \"c\", \"line\": 3}}, \"b#0\": {\"uid\": "
		"\"b\"}},"
		" " HEADER "}";
	const char *want = "b#0|{\"uid\":\"b\"}|{\"amount\":[1,2.5]}\n"
			   "a#0|{\"uid\":\"a\"}|{}\n"
			   "c#0|{\"uid\":{\"function\":\"c\",\"line\":3}}|"
			   "{\"amount\":[\"\\u0000NaN\"],\"trace\":[[{\"f\":1}]]}\n";
	struct perun_profile *p = load("types", text);
	char *tape = NULL, *tree = NULL;
	int compact = 0;
	if (!tap_ok(p != NULL, "crafted profile loads"))
		return;
	tap_ok(!types_both_ways(p, &tape, &tree, &compact), "listed both ways");
	tap_ok(compact, "a loaded profile's types are its compact form, not a copy");
	tap_is_str(tape, want, "resources' order; the map-only type is left out");
	tap_is_str(tree, want, "a tree gives the same list");
	free(tape);
	free(tree);
	perun_profile_free(p);

	/* The values outlive the call, in either form. */
	for (int as_tree = 0; as_tree < 2; as_tree++) {
		struct perun_type_list l;
		struct perun_error err = { 0 };
		p = load("kept", text);
		if (as_tree)
			perun_profile_json(p);
		int rc = perun_profile_types(p, &l, &err);
		const struct perun_jv *amount =
			rc ? NULL : perun_jv_get(l.types[0].columns, "amount");
		double d = 0;
		tap_ok(!rc && l.n == 3 && !strcmp(l.types[2].id, "c#0") &&
			       perun_jv_len(amount) == 2 &&
			       !perun_jv_number(perun_jv_at(amount, 1), &d) && d == 2.5,
		       "%s: the list's values are there after the call", as_tree ? "tree" : "tape");
		if (!rc)
			perun_type_list_release(&l);
		perun_profile_free(p);
	}

	p = load("empty", "{\"resources\": {}, \"resource_type_map\": {}, " HEADER "}");
	struct perun_type_list l;
	struct perun_error err = { 0 };
	tap_ok(p && !perun_profile_types(p, &l, &err) && l.n == 0, "no resources: an empty list");
	if (p)
		perun_type_list_release(&l);
	perun_profile_free(p);
}

static void test_flatten(void)
{
	const char *text =
		"{\"resources\": {\"f#0\": {}}, \"resource_type_map\": {\"f#0\": {"
		"\"s\": \"a.c:f\", \"o\": {\"source\": \"a.c\", \"function\": \"f\", \"line\": 3},"
		" \"n\": NaN, \"r\": 1e-05, \"t\": true, \"l\": [{\"a\": 1}, {\"b\": 2}]}}, " HEADER
		"}";
	struct perun_profile *p = load("flatten", text);
	struct perun_type_list l;
	struct perun_error err = { 0 };
	if (!tap_ok(p && !perun_profile_types(p, &l, &err) && l.n == 1, "flatten profile"))
		return;
	const char *keys[] = { "s", "o", "n", "r", "t", "l" };
	json_t *root = perun_profile_json(p);
	json_t *map = json_object_get(json_object_get(root, "resource_type_map"), "f#0");
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		char *jv = perun_jv_flatten_dup(perun_jv_get(l.types[0].persistent, keys[i]));
		char *js = perun_value_flatten_dup(json_object_get(map, keys[i]));
		tap_is_str(jv, js, "perun_jv_flatten_dup of '%s' is perun_value_flatten_dup's",
			   keys[i]);
		free(jv);
		free(js);
	}
	perun_type_list_release(&l);
	perun_profile_free(p);
}

static void test_models(void)
{
	const char *text = "{\"resources\": {\"f#0\": {\"x\": [1, 2, 3], \"y\": [2, 4, 6]}},"
			   " \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}},"
			   " \"models\": [{\"uid\": \"old\"}], " HEADER "}";
	struct perun_profile *p = load("models", text);
	if (!tap_ok(p != NULL, "models profile loads"))
		return;
	struct perun_points *points;
	struct perun_error err = { 0 };
	const char *uid;
	struct perun_point *pts;
	size_t n;
	tap_ok(!perun_points_open(p, &points, &err) &&
		       perun_points_next(points, "x", "y", &uid, &pts, &n, &err) == 1 && n == 3 &&
		       pts[2].y.i == 6,
	       "points read: %s", err.message);
	perun_points_free(points);
	json_t *add = json_pack("[{s:s}]", "uid", "new");
	tap_ok(!perun_points_add_models(p, add), "models added");
	tap_ok(still_compact(p), "reading points and adding models keep the resources compact");
	json_t *models = perun_profile_get(p, "models");
	tap_ok(json_array_size(models) == 2 &&
		       !strcmp(json_string_value(json_object_get(json_array_get(models, 1), "uid")),
			       "new") &&
		       json_array_get(models, 1) == json_array_get(add, 0),
	       "appended after the old one, shared");

	/* "models" that is not a list becomes one, as before. */
	tap_ok(!perun_profile_set_new(p, "models", json_string("junk")), "set_new");
	tap_ok(still_compact(p), "set_new of a part other than the resources keeps them compact");
	tap_ok(!perun_points_add_models(p, add) && json_is_array(perun_profile_get(p, "models")) &&
		       json_array_size(perun_profile_get(p, "models")) == 1,
	       "models that are not a list are replaced by the records");
	json_decref(add);

	size_t len;
	char *dump = perun_profile_dump(p, PERUN_DUMP_COMPACT, 0, &len);
	tap_ok(dump && strstr(dump, "\"models\": [{\"uid\": \"new\"}]") &&
		       strstr(dump,
			      "\"resources\": {\"f#0\": {\"x\": [1, 2, 3], \"y\": [2, 4, 6]}}"),
	       "the saved profile has both");
	free(dump);
	perun_profile_free(p);
}

/* Same-uid types whose order differs between resources and their map:
 * the points come in the order of resources, compact or tree. */
static void test_points_order(void)
{
	const char *text = "{\"resources\": {\"f#1\": {\"x\": [1], \"y\": [10]},"
			   " \"f#0\": {\"x\": [1], \"y\": [20]}},"
			   " \"resource_type_map\": {\"f#0\": {\"uid\": \"f\", \"k\": 0},"
			   " \"f#1\": {\"uid\": \"f\", \"k\": 1}}, " HEADER "}";
	for (int as_tree = 0; as_tree < 2; as_tree++) {
		struct perun_profile *p = load("order", text);
		struct perun_points *points = NULL;
		struct perun_error err = { 0 };
		const char *uid;
		struct perun_point *pts;
		size_t n;
		if (p && as_tree)
			perun_profile_json(p);
		tap_ok(p && !perun_points_open(p, &points, &err) &&
			       perun_points_next(points, "x", "y", &uid, &pts, &n, &err) == 1 &&
			       n == 2 && pts[0].y.i == 10 && pts[1].y.i == 20,
		       "%s: one uid's types in the order of resources", as_tree ? "tree" : "tape");
		perun_points_free(points);
		perun_profile_free(p);
	}
}

/* The four dumps (compact and pending, with and without origin) joined. */
static char *dumps(const struct perun_profile *p)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	for (int style = 0; style < 2; style++)
		for (int origin = 0; origin < 2; origin++) {
			size_t len;
			char *text = perun_profile_dump(
				p, style ? PERUN_DUMP_PENDING : PERUN_DUMP_COMPACT, origin, &len);
			if (!text)
				return NULL;
			perun_strbuf_add(&sb, text, len);
			perun_strbuf_addch(&sb, '\n');
			free(text);
		}
	return perun_strbuf_detach(&sb, NULL);
}

/* A profile's dumps from its compact form, then from its tree. */
static int dumps_both_ways(struct perun_profile *p, char **tape, char **tree, int *compact)
{
	*tape = dumps(p);
	*compact = still_compact(p);
	perun_profile_json(p);
	*tree = dumps(p);
	return *tape && *tree ? 0 : -1;
}

static void test_dump(void)
{
	const char *text =
		"{\"resources\": {\"f#0\": {\"amount\": [NaN, -Infinity, 1e-05, -0.0, 3, -2],"
		" \"note\": [\"a, 1\", \"\\u00e9\\ud83d\\ude00\", \"x\", \"\", \"b\\n\", \"c\"]},"
		" \"g#0\": {}}, \"resource_type_map\": {\"g#0\": {\"uid\": \"g\"},"
		" \"f#0\": {\"uid\": {\"function\": \"f\", \"line\": 3}, \"trace\": [[], {}, [1, "
		"2]],"
		" \"t\": true, \"u\": false, \"v\": null}}, \"models\": [{\"uid\": \"f\"}],"
		" \"origin\": \"abc\", " HEADER "}";
	struct perun_profile *p = load("dump", text);
	char *tape = NULL, *tree = NULL;
	int compact = 0;
	if (!tap_ok(p != NULL, "dump profile loads"))
		return;
	tap_ok(!dumps_both_ways(p, &tape, &tree, &compact), "dumped both ways");
	tap_ok(compact, "dumping leaves the resources compact");
	tap_is_str(tape, tree, "the compact form dumps as its tree does");
	tap_ok(tape && strstr(tape, "\"amount\": [NaN, -Infinity, 1e-05, -0.0, 3, -2]") &&
		       /* re.sub(r",\s+(\d+)", r", \1", json.dumps(d, indent=2)) */
		       strstr(tape, "\"amount\": [\n        NaN,\n        -Infinity, 1e-05,\n"
				    "        -0.0, 3,\n        -2\n      ]") &&
		       strstr(tape, "\"a, 1\", \"\\u00e9\\ud83d\\ude00\"") &&
		       strstr(tape, "}], \"origin\": \"abc\", \"header\"") &&
		       strstr(tape, "}], \"header\""),
	       "Python's words, folding, escapes and the origin where asked for");
	free(tape);
	free(tree);
	perun_profile_free(p);
}

static size_t walked, dumped;

static int check_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t len = strlen(path);
	if (flag != FTW_F || len < 5 || strcmp(path + len - 5, ".perf"))
		return 0;
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	if (perun_profile_load_file(path, &p, &err))
		return 0; /* the bad ones are the reader tests' business */
	char *tape = NULL, *tree = NULL;
	int compact = 0;
	if (!types_both_ways(p, &tape, &tree, &compact) && !strcmp(tape, tree))
		walked++;
	else
		tap_ok(0, "%s: the same types both ways", path);
	free(tape);
	free(tree);
	perun_profile_free(p);
	/* Loaded again: dumped from the compact form, then from the tree. */
	if (perun_profile_load_file(path, &p, &err))
		return 0;
	if (!dumps_both_ways(p, &tape, &tree, &compact) && !strcmp(tape, tree))
		dumped++;
	else
		tap_ok(0, "%s: the same dumps both ways", path);
	free(tape);
	free(tree);
	perun_profile_free(p);
	return 0;
}

static void test_testdata(void)
{
	const char *dir = getenv("PERUN_TESTDATA");
	struct stat st;
	if (!dir || !*dir || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		/* The suite stands alone: shared data only adds comparisons. */
		tap_diag("no shared profiles at %s: they are not walked", dir ? dir : "(unset)");
		return;
	}
	nftw(dir, check_file, 16, FTW_PHYS);
	tap_ok(walked > 50, "%zu shared profiles list the same types both ways", walked);
	tap_ok(dumped == walked, "%zu of them dump the same both ways", dumped);
}

/* Jansson's allocations fail while this is set. */
static int jansson_fails;

static void *failing_malloc(size_t size)
{
	return jansson_fails ? NULL : malloc(size);
}

/* Without memory the library reports it and the profile stays usable. */
static void test_out_of_memory(void)
{
	struct perun_profile *p =
		load("oom", "{\"resources\": {\"a#0\": {\"amount\": [1, 2]}}, "
			    "\"resource_type_map\": {\"a#0\": {\"uid\": \"a\"}}, " HEADER "}");
	json_t *row = json_pack("{s:s,s:i}", "uid", "b", "amount", 3);
	struct perun_error err = { 0 };
	if (!p || !row) {
		tap_ok(0, "the profile of the out-of-memory tests loads");
		json_decref(row);
		perun_profile_free(p);
		return;
	}
	json_set_alloc_funcs(failing_malloc, free);
	jansson_fails = 1;
	json_t *tree = perun_profile_json(p);
	int rc = perun_profile_add_resource(p, row, &err);
	jansson_fails = 0;
	tap_ok(!tree && still_compact(p),
	       "without memory the tree is NULL and the profile compact");
	tap_ok(rc == -PERUN_EGENERIC && !strcmp(err.message, "out of memory"),
	       "without memory a resource is not added: %s", err.message);
	tree = perun_profile_json(p);
	tap_ok(tree && json_object_size(json_object_get(tree, "resources")) == 1 &&
		       perun_profile_resource_count(p) == 2,
	       "with memory again the tree is the profile's");
	json_set_alloc_funcs(malloc, free);
	json_decref(row);
	perun_profile_free(p);
}

int main(void)
{
	test_types();
	test_flatten();
	test_models();
	test_points_order();
	test_dump();
	test_testdata();
	test_out_of_memory();
	return tap_done();
}
