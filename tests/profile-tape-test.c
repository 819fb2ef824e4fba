/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile-tape-test: a loaded profile's resources read from the tape
 * (perun/jsonview.h, perun_profile_foreach_type) against the same profile
 * as a jansson tree (perun_profile_json).
 *
 *   profile-tape-test             the unit tests, as TAP: the accessors on
 *                                 every kind of value, resources and type
 *                                 map in different orders, a buffer against
 *                                 a file, saving after a walk
 *   profile-tape-test walk FILE   FILE walked from the file, from a buffer,
 *                                 as a tree and streamed (twice, then
 *                                 loaded the usual way), every type
 *                                 compared with the tree's parts; prints,
 *                                 for comparison with Python's json
 *                                 module, one line per type and column:
 *                                   type <id> <persistent keys> <columns>
 *                                   col <id> <key> <values> <ints> <int sum>
 *                                       <reals> <real sum %.17g> <others>
 *                                 exit 1 with the differences on stderr
 *   profile-tape-test load FILE   loads FILE from the file and from a buffer
 *                                 and reads it as the loader before the tape
 *                                 did (jansson, then perun_profile_from_json;
 *                                 for text without NaN or Infinity), and
 *                                 streamed, then walked: all four must
 *                                 agree; prints the error as
 *                                 "profile-tape-test: <message>", exit 2
 * The unit tests write into a scratch directory, walk into the current
 * one; both remove what they wrote.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perun/perun.h>

#include "tap.h"

/* ---- walking the types --------------------------------------------------- */

struct walk {
	struct perun_strbuf dump;  /* "<id>\n<persistent>\n<columns>\n" per type */
	struct perun_strbuf sums;  /* the lines walk prints */
	json_t *map, *resources;   /* a tree to check every type against, or NULL */
	struct perun_strbuf diffs; /* what did not match */
	size_t types;
	long stop_after; /* return 7 after this many types; -1: never */
};

#define WALK_INIT                                                                                  \
	{                                                                                          \
		PERUN_STRBUF_INIT, PERUN_STRBUF_INIT, NULL, NULL, PERUN_STRBUF_INIT, 0, -1         \
	}

static void walk_release(struct walk *w)
{
	perun_strbuf_release(&w->dump);
	perun_strbuf_release(&w->sums);
	perun_strbuf_release(&w->diffs);
}

static char *dump_value(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void add_real(struct perun_strbuf *sb, double d)
{
	if (isnan(d))
		perun_strbuf_addstr(sb, "nan");
	else
		perun_strbuf_addf(sb, "%.17g", d);
}

/* The sums line of one column: integers summed exactly (or "overflow"),
 * reals in order as Python's sum() adds floats. */
static void add_column_sums(struct perun_strbuf *sb, const char *id, const char *key,
			    const struct perun_jv *values)
{
	size_t i, ints = 0, reals = 0, others = 0;
	int64_t int_sum = 0;
	int overflow = 0;
	double real_sum = 0.0;
	const struct perun_jv *v;
	perun_jv_array_foreach(values, i, v)
	{
		if (perun_jv_type(v) == PERUN_JV_INTEGER) {
			ints++;
			overflow |= __builtin_add_overflow(int_sum, v->u.i, &int_sum);
		} else if (perun_jv_type(v) == PERUN_JV_REAL) {
			reals++;
			real_sum += v->u.d;
		} else {
			others++;
		}
	}
	perun_strbuf_addf(sb, "col\t%s\t%s\t%zu\t%zu\t", id, key, perun_jv_len(values), ints);
	if (overflow)
		perun_strbuf_addstr(sb, "overflow");
	else
		perun_strbuf_addf(sb, "%" PRId64, int_sum);
	perun_strbuf_addf(sb, "\t%zu\t", reals);
	add_real(sb, real_sum);
	perun_strbuf_addf(sb, "\t%zu\n", others);
}

static int walk_type(const char *id, const struct perun_jv *persistent,
		     const struct perun_jv *columns, void *data)
{
	struct walk *w = data;
	json_t *pj = perun_jv_to_json(persistent), *cj = perun_jv_to_json(columns);
	char *ps = dump_value(pj), *cs = dump_value(cj);
	perun_strbuf_addf(&w->dump, "%s\n%s\n%s\n", id, ps ? ps : "(null)", cs ? cs : "(null)");
	if (perun_jv_type(persistent) != PERUN_JV_OBJECT)
		perun_strbuf_addf(&w->diffs, "%s: persistent part is not an object\n", id);
	if (perun_jv_type(columns) != PERUN_JV_OBJECT)
		perun_strbuf_addf(&w->diffs, "%s: columns are not an object\n", id);
	perun_strbuf_addf(&w->sums, "type\t%s\t%zu\t%zu\n", id, perun_jv_len(persistent),
			  perun_jv_len(columns));
	size_t i;
	long long rows = -1;
	const struct perun_jv *key, *values;
	perun_jv_object_foreach(columns, i, key, values)
	{
		if (perun_jv_type(values) != PERUN_JV_ARRAY) {
			perun_strbuf_addf(&w->diffs, "%s: column %s is not a list\n", id,
					  perun_jv_string(key));
			continue;
		}
		if (rows >= 0 && (long long)perun_jv_len(values) != rows)
			perun_strbuf_addf(&w->diffs, "%s: column %s has another length\n", id,
					  perun_jv_string(key));
		rows = (long long)perun_jv_len(values);
		add_column_sums(&w->sums, id, perun_jv_string(key), values);
	}
	if (w->map) {
		json_t *tree_pers = json_object_get(w->map, id);
		json_t *tree_cols = json_object_get(w->resources, id);
		json_t *empty = json_object();
		if (!tree_pers || !json_equal(pj, tree_pers))
			perun_strbuf_addf(&w->diffs,
					  "%s: persistent part differs from the tree's\n", id);
		if (!json_equal(cj, tree_cols ? tree_cols : empty))
			perun_strbuf_addf(&w->diffs, "%s: columns differ from the tree's\n", id);
		json_decref(empty);
	}
	free(ps);
	free(cs);
	json_decref(pj);
	json_decref(cj);
	w->types++;
	return w->stop_after >= 0 && (long)w->types >= w->stop_after ? 7 : 0;
}

/* Walk p into w; 0, or the walk's error (printed). */
static int walk_profile(const struct perun_profile *p, struct walk *w)
{
	struct perun_error err = { 0 };
	int rc = perun_profile_foreach_type(p, walk_type, w, &err);
	if (rc < 0)
		fprintf(stderr, "perun_profile_foreach_type: %s\n", err.message);
	return rc;
}

/* The ids of the tree's resource_type_map, one a line, as the walk's dump
 * starts its entries. */
static int ids_match(const struct walk *w, json_t *map)
{
	const char *dump = w->dump.buf ? w->dump.buf : "", *id;
	json_t *v;
	json_object_foreach(map, id, v)
	{
		size_t len = strlen(id);
		if (strncmp(dump, id, len) || dump[len] != '\n')
			return 0;
		for (int lines = 0; lines < 3; lines++)
			dump = strchr(dump, '\n') + 1;
	}
	return *dump == '\0';
}

static int same_text(const struct perun_strbuf *a, const struct perun_strbuf *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->buf, b->buf, a->len));
}

/* ---- files --------------------------------------------------------------- */

static int write_file(const char *path, const char *text, size_t len)
{
	struct perun_error err = { 0 };
	if (perun_file_write_atomic(path, text, len, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return -1;
	}
	return 0;
}

/* Whether two files have the same bytes. */
static int same_file(const char *a, const char *b)
{
	struct perun_error err = { 0 };
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	int same = !perun_file_read(a, &ta, &la, &err) && !perun_file_read(b, &tb, &lb, &err) &&
		   la == lb && !memcmp(ta, tb, la);
	free(ta);
	free(tb);
	return same;
}

static struct perun_profile *load_text(const char *text, const char *name)
{
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	if (perun_profile_load_buffer(text, strlen(text), name, &p, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return NULL;
	}
	return p;
}

/*
 * Every check a profile's text gets: loaded from a file and from a buffer,
 * walked in tape form and as a tree, with equal results; the tree's parts
 * match every walked type; saved the same with and without a walk before.
 * Returns the number of failed checks; the first walk is left in *first.
 */
static int check_forms(const char *path, const char *buf, size_t len, struct walk *first)
{
	struct perun_error err = { 0 };
	struct perun_profile *file = NULL, *buffer = NULL, *plain = NULL;
	struct walk from_buffer = WALK_INIT, as_tree = WALK_INIT, against_tree = WALK_INIT;
	int failed = 0;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failed++;                                                                  \
			fprintf(stderr, "%s: ", path);                                             \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)
	if (perun_profile_load_file(path, &file, &err) ||
	    perun_profile_load_buffer(buf, len, path, &buffer, &err) ||
	    perun_profile_load_buffer(buf, len, path, &plain, &err)) {
		CHECK(0, "does not load: %s", err.message);
		goto out;
	}
	size_t count = perun_profile_resource_count(file);
	CHECK(walk_profile(file, first) == 0, "the walk of the loaded file failed");
	CHECK(walk_profile(buffer, &from_buffer) == 0, "the walk of the loaded buffer failed");
	CHECK(same_text(&first->dump, &from_buffer.dump),
	      "the walks of the file and of the buffer differ");
	CHECK(!first->diffs.len, "%s", first->diffs.buf);

	/* A walk changes nothing that is saved. */
	CHECK(!perun_profile_save_file(file, "tape-walked.perf", &err) &&
		      !perun_profile_save_file(plain, "tape-plain.perf", &err),
	      "cannot save: %s", err.message);
	CHECK(same_file("tape-walked.perf", "tape-plain.perf"),
	      "saved after a walk, the profile differs from one saved without");
	unlink("tape-walked.perf");
	unlink("tape-plain.perf");

	/* The buffer's profile, still a tape, against the file's tree. */
	json_t *tree = perun_profile_json(file);
	against_tree.map = json_object_get(tree, "resource_type_map");
	against_tree.resources = json_object_get(tree, "resources");
	CHECK(walk_profile(buffer, &against_tree) == 0, "the walk against the tree failed");
	CHECK(!against_tree.diffs.len, "tape against tree: %s", against_tree.diffs.buf);
	CHECK(ids_match(first, against_tree.map),
	      "the walk's ids are not resource_type_map's, in its order");
	CHECK(json_object_size(against_tree.map) == first->types, "walked %zu types of %zu",
	      first->types, json_object_size(against_tree.map));
	const char *id;
	json_t *columns;
	json_object_foreach(against_tree.resources, id, columns)
		CHECK(json_object_get(against_tree.map, id), "resource %s has no type", id);

	/* The file's profile, now a tree, walked again. */
	CHECK(walk_profile(file, &as_tree) == 0, "the walk of the tree failed");
	CHECK(same_text(&first->dump, &as_tree.dump), "the walks of tape and tree differ");
	CHECK(same_text(&first->sums, &as_tree.sums), "the sums of tape and tree differ");
	CHECK(perun_profile_resource_count(file) == count &&
		      perun_profile_resource_count(buffer) == count,
	      "resource counts differ");

	/* Every dump of a profile fresh from its text is its tree's dump. */
	static const struct {
		enum perun_dump_style style;
		int origin;
	} dumps[] = { { PERUN_DUMP_COMPACT, 1 },
		      { PERUN_DUMP_COMPACT, 0 },
		      { PERUN_DUMP_PENDING, 1 } };
	for (size_t d = 0; d < sizeof(dumps) / sizeof(*dumps); d++) {
		struct perun_profile *fresh = NULL;
		size_t tree_len = 0, fresh_len = 0;
		char *of_tree =
			perun_profile_dump(file, dumps[d].style, dumps[d].origin, &tree_len);
		char *of_fresh = NULL;
		if (!perun_profile_load_buffer(buf, len, path, &fresh, &err))
			of_fresh = perun_profile_dump(fresh, dumps[d].style, dumps[d].origin,
						      &fresh_len);
		CHECK(of_tree && of_fresh && tree_len == fresh_len &&
			      !memcmp(of_tree, of_fresh, tree_len),
		      "dump %zu of the loaded profile differs from its tree's", d);
		free(of_tree);
		free(of_fresh);
		perun_profile_free(fresh);
	}

	/* Streamed: walked twice as it is read, with the usual load's
	 * result, then loaded the usual way by another reader and walked. */
	struct perun_profile *streamed = NULL;
	struct perun_type_list types;
	for (int pass = 0; pass < 3; pass++) {
		struct walk again = WALK_INIT;
		if (!pass && perun_profile_load_file_streamed(path, &streamed, &err)) {
			CHECK(0, "does not load streamed: %s", err.message);
			break;
		}
		if (pass == 2) {
			CHECK(!perun_profile_types(streamed, &types, &err), "types of streamed: %s",
			      err.message);
			perun_type_list_release(&types);
		}
		CHECK(walk_profile(streamed, &again) == 0, "streamed walk %d failed", pass);
		CHECK(same_text(&first->dump, &again.dump) && same_text(&first->sums, &again.sums),
		      "streamed walk %d differs from the usual one", pass);
		walk_release(&again);
	}
	if (streamed)
		CHECK(perun_profile_resource_count(streamed) == count, "streamed resource count");
	perun_profile_free(streamed);
#undef CHECK
out:
	walk_release(&from_buffer);
	walk_release(&as_tree);
	walk_release(&against_tree);
	perun_profile_free(file);
	perun_profile_free(buffer);
	perun_profile_free(plain);
	return failed;
}

static int cmd_walk(const char *path)
{
	struct perun_error err = { 0 };
	char *buf;
	size_t len;
	if (perun_file_read(path, &buf, &len, &err)) {
		fprintf(stderr, "profile-tape-test: %s\n", err.message);
		return 2;
	}
	struct walk w = WALK_INIT;
	int failed = check_forms(path, buf, len, &w);
	if (w.sums.len)
		fwrite(w.sums.buf, 1, w.sums.len, stdout);
	walk_release(&w);
	free(buf);
	return failed ? 1 : 0;
}

/* ---- load errors ----------------------------------------------------------- */

/* How the loader before the tape read text: jansson, then the checks of a
 * tree; NULL when it loads. */
static char *old_reading(const char *buf, size_t len, const char *name)
{
	json_error_t jerr;
	char *message = NULL;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		/* as the loader does: its messages stay one line */
		for (char *c = jerr.text; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = ' ';
		if (asprintf(&message, "cannot read profile '%s': line %d: %s", name, jerr.line,
			     jerr.text) < 0)
			message = NULL;
		return message;
	}
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	if (perun_profile_from_json(root, name, &p, &err))
		return strdup(err.message);
	perun_profile_free(p);
	return NULL;
}

static int cmd_load(const char *path)
{
	struct perun_error err = { 0 }, berr = { 0 };
	struct perun_profile *p = NULL, *b = NULL;
	char *buf;
	size_t len;
	if (perun_file_read(path, &buf, &len, &err)) {
		fprintf(stderr, "profile-tape-test: %s\n", err.message);
		return 2;
	}
	int rc = perun_profile_load_file(path, &p, &err);
	int brc = perun_profile_load_buffer(buf, len, path, &b, &berr);
	char *old = old_reading(buf, len, path);
	int status = rc ? 2 : 0;
	if (rc != brc || (rc && strcmp(err.message, berr.message))) {
		fprintf(stderr, "file and buffer differ: '%s' (%d), '%s' (%d)\n",
			rc ? err.message : "", rc, brc ? berr.message : "", brc);
		status = 1;
	}
	if (!old != !rc || (rc && strcmp(old, err.message))) {
		fprintf(stderr, "the reading before the tape differs: '%s', now '%s'\n",
			old ? old : "(loads)", rc ? err.message : "(loads)");
		status = 1;
	}
	if (rc && (p || b)) {
		fprintf(stderr, "a failed load set its profile\n");
		status = 1;
	}
	/* Streamed, a malformed map shows in the walk: either way the same
	 * message as the usual load's. */
	struct perun_profile *st = NULL;
	struct perun_error serr = { 0 };
	struct walk w = WALK_INIT;
	int src = perun_profile_load_file_streamed(path, &st, &serr);
	if (!src)
		src = perun_profile_foreach_type(st, walk_type, &w, &serr);
	if (!rc != !src || (rc && strcmp(err.message, serr.message))) {
		fprintf(stderr, "streamed differs: '%s' (%d), usual '%s' (%d)\n",
			src ? serr.message : "", src, rc ? err.message : "", rc);
		status = 1;
	}
	walk_release(&w);
	perun_profile_free(st);
	if (rc)
		fprintf(stderr, "profile-tape-test: %s\n", err.message);
	free(old);
	free(buf);
	perun_profile_free(p);
	perun_profile_free(b);
	return status;
}

/* ---- unit tests ------------------------------------------------------------ */

static const char accessors_profile[] =
	"{\"resources\": {\"v#0\": {\"amount\": [1, 2.5, NaN, -Infinity],\n"
	"  \"order\": [9223372036854775807, -9223372036854775808, 0, -1]}},\n"
	" \"resource_type_map\": {\"v#0\": {\"uid\": \"v\", \"type\": \"mixed\",\n"
	"  \"esc\": \"a\\nb\\\"c\\\\d\\/e\\u00e9\\ud83d\\ude00\\t\",\n"
	"  \"raw\": \"\xc3\xa9\xf0\x9f\x98\x80\", \"k\\u00e9y\": 1,\n"
	"  \"nan\": NaN, \"inf\": Infinity, \"ninf\": -Infinity,\n"
	"  \"big\": 9223372036854775807, \"neg\": -9223372036854775808, \"small\": -42,\n"
	"  \"f17\": 0.30000000000000004, \"tiny\": 5e-324, \"huge\": 1.7976931348623157e308,\n"
	"  \"e\": 1E+2, \"negzero\": -0.0, \"ea\": [], \"eo\": {},\n"
	"  \"nested\": {\"a\": {\"b\": [1, {\"c\": \"d\"}, []]}, \"z\": 3},\n"
	"  \"t\": true, \"f\": false, \"n\": null, \"\": \"empty key\",\n"
	"  \"arr\": [10, \"x\", null]}},\n"
	" \"models\": [], \"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\",\n"
	" \"units\": {}}, \"collector_info\": {\"name\": \"x\", \"params\": {}},\n"
	" \"postprocessors\": []}\n";

static int is_type(const struct perun_jv *v, enum perun_jv_type type)
{
	return v && perun_jv_type(v) == type;
}

static int same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static void check_persistent(const struct perun_jv *pers, const char *form)
{
	const struct perun_jv *v, *k, *e;
	double d = 0;
	size_t i;
	tap_ok(is_type(pers, PERUN_JV_OBJECT) && perun_jv_len(pers) == 24,
	       "%s: the persistent part is an object of 24 members", form);

	static const char esc[] = "a\nb\"c\\d/e\xc3\xa9\xf0\x9f\x98\x80\t";
	v = perun_jv_get(pers, "esc");
	tap_ok(is_type(v, PERUN_JV_STRING) && perun_jv_len(v) == sizeof(esc) - 1 &&
		       !memcmp(perun_jv_string(v), esc, sizeof(esc)),
	       "%s: escapes, \\u00e9 and a surrogate pair decode (NUL-terminated)", form);
	v = perun_jv_get(pers, "raw");
	tap_is_str(perun_jv_string(v), "\xc3\xa9\xf0\x9f\x98\x80", "%s: raw UTF-8 is kept", form);
	v = perun_jv_get(pers, "k\xc3\xa9y");
	tap_ok(is_type(v, PERUN_JV_INTEGER) && v->u.i == 1,
	       "%s: an escaped key is found by its text", form);
	tap_is_str(perun_jv_string(perun_jv_get(pers, "")), "empty key", "%s: the empty key", form);

	v = perun_jv_get(pers, "nan");
	tap_ok(is_type(v, PERUN_JV_REAL) && !perun_jv_number(v, &d) && isnan(d),
	       "%s: NaN is a real", form);
	v = perun_jv_get(pers, "inf");
	tap_ok(is_type(v, PERUN_JV_REAL) && !perun_jv_number(v, &d) && isinf(d) && d > 0,
	       "%s: Infinity is a real", form);
	v = perun_jv_get(pers, "ninf");
	tap_ok(is_type(v, PERUN_JV_REAL) && !perun_jv_number(v, &d) && isinf(d) && d < 0,
	       "%s: -Infinity is a real", form);

	v = perun_jv_get(pers, "big");
	tap_ok(is_type(v, PERUN_JV_INTEGER) && v->u.i == INT64_MAX, "%s: 2^63-1 exactly", form);
	v = perun_jv_get(pers, "neg");
	tap_ok(is_type(v, PERUN_JV_INTEGER) && v->u.i == INT64_MIN, "%s: -2^63 exactly", form);
	v = perun_jv_get(pers, "small");
	tap_ok(is_type(v, PERUN_JV_INTEGER) && !perun_jv_number(v, &d) && d == -42.0,
	       "%s: a negative integer as a number", form);

	v = perun_jv_get(pers, "f17");
	tap_ok(is_type(v, PERUN_JV_REAL) && same_double(v->u.d, 0.30000000000000004),
	       "%s: a 17-digit float exactly", form);
	v = perun_jv_get(pers, "tiny");
	tap_ok(is_type(v, PERUN_JV_REAL) && same_double(v->u.d, 5e-324),
	       "%s: the smallest subnormal", form);
	v = perun_jv_get(pers, "huge");
	tap_ok(is_type(v, PERUN_JV_REAL) && same_double(v->u.d, 1.7976931348623157e308),
	       "%s: the largest double", form);
	v = perun_jv_get(pers, "e");
	tap_ok(is_type(v, PERUN_JV_REAL) && v->u.d == 100.0, "%s: 1E+2 is the real 100", form);
	v = perun_jv_get(pers, "negzero");
	tap_ok(is_type(v, PERUN_JV_REAL) && v->u.d == 0.0 && signbit(v->u.d),
	       "%s: -0.0 keeps its sign", form);

	v = perun_jv_get(pers, "ea");
	tap_ok(is_type(v, PERUN_JV_ARRAY) && perun_jv_len(v) == 0 && !perun_jv_at(v, 0) &&
		       perun_jv_skip(v) == v + 1,
	       "%s: an empty array", form);
	size_t seen = 0;
	perun_jv_array_foreach(v, i, e) seen++;
	v = perun_jv_get(pers, "eo");
	perun_jv_object_foreach(v, i, k, e) seen++;
	tap_ok(is_type(v, PERUN_JV_OBJECT) && perun_jv_len(v) == 0 && !perun_jv_get(v, "x") &&
		       perun_jv_skip(v) == v + 1 && !seen,
	       "%s: an empty object; the loops over empty containers do nothing", form);

	const struct perun_jv *nested = perun_jv_get(pers, "nested");
	const struct perun_jv *b = perun_jv_get(perun_jv_get(nested, "a"), "b");
	tap_ok(is_type(b, PERUN_JV_ARRAY) && perun_jv_len(b) == 3, "%s: a nested array", form);
	v = perun_jv_at(b, 0);
	tap_ok(is_type(v, PERUN_JV_INTEGER) && v->u.i == 1, "%s: its first value", form);
	tap_is_str(perun_jv_string(perun_jv_get(perun_jv_at(b, 1), "c")), "d",
		   "%s: an object inside it", form);
	v = perun_jv_at(b, 2);
	tap_ok(is_type(v, PERUN_JV_ARRAY) && perun_jv_len(v) == 0, "%s: its empty last value",
	       form);
	tap_ok(!perun_jv_at(b, 3) && !perun_jv_at(b, (size_t)-1),
	       "%s: perun_jv_at beyond the end is NULL", form);
	v = perun_jv_get(nested, "z");
	tap_ok(is_type(v, PERUN_JV_INTEGER) && v->u.i == 3 &&
		       perun_jv_skip(perun_jv_get(nested, "a")) == v - 1,
	       "%s: skipping a nested value lands on the next key", form);

	tap_ok(is_type(perun_jv_get(pers, "t"), PERUN_JV_TRUE) &&
		       is_type(perun_jv_get(pers, "f"), PERUN_JV_FALSE) &&
		       is_type(perun_jv_get(pers, "n"), PERUN_JV_NULL),
	       "%s: true, false, null", form);
	tap_ok(perun_jv_number(perun_jv_get(pers, "t"), &d) == -1 &&
		       perun_jv_number(perun_jv_get(pers, "uid"), &d) == -1 &&
		       perun_jv_number(NULL, &d) == -1 &&
		       !perun_jv_string(perun_jv_get(pers, "n")) && !perun_jv_string(NULL),
	       "%s: no number of a non-number, no string of a non-string", form);

	tap_ok(!perun_jv_get(pers, "missing") && !perun_jv_get(pers, "ni") &&
		       !perun_jv_get(pers, "esc2") && !perun_jv_get(pers, "Esc"),
	       "%s: perun_jv_get of a missing key is NULL", form);
	tap_ok(!perun_jv_get(perun_jv_get(pers, "arr"), "x") && !perun_jv_get(NULL, "x") &&
		       !perun_jv_get(perun_jv_get(pers, "uid"), "uid"),
	       "%s: perun_jv_get of a non-object is NULL", form);
	tap_ok(!perun_jv_at(pers, 0) && !perun_jv_at(NULL, 0) &&
		       !perun_jv_at(perun_jv_get(pers, "uid"), 0),
	       "%s: perun_jv_at of a non-array is NULL", form);
	v = perun_jv_getn(pers, "uidX", 3);
	tap_is_str(perun_jv_string(v), "v", "%s: perun_jv_getn takes the key's length", form);

	static const enum perun_jv_type arr_types[] = { PERUN_JV_INTEGER, PERUN_JV_STRING,
							PERUN_JV_NULL };
	int types_ok = 1;
	seen = 0;
	perun_jv_array_foreach(perun_jv_get(pers, "arr"), i, e) types_ok &=
		seen < 3 && perun_jv_type(e) == arr_types[seen++];
	tap_ok(types_ok && seen == 3, "%s: perun_jv_array_foreach visits every value", form);

	static const char *const keys[] = { "uid", "type", "esc", "raw", "k\xc3\xa9y", "nan" };
	int keys_ok = 1;
	const char *last = NULL;
	perun_jv_object_foreach(pers, i, k, e)
	{
		if (i < 6)
			keys_ok &= !strcmp(perun_jv_string(k), keys[i]);
		keys_ok &= perun_jv_get(pers, perun_jv_string(k)) == e;
		last = perun_jv_string(k);
	}
	tap_ok(keys_ok && last && !strcmp(last, "arr"),
	       "%s: perun_jv_object_foreach gives the members in the text's order", form);

	json_t *j = perun_jv_to_json(perun_jv_get(pers, "nan"));
	tap_ok(json_is_string(j) && !perun_json_number(j, &d) && isnan(d),
	       "%s: perun_jv_to_json makes NaN the marker perun_json_number reads", form);
	json_decref(j);
	j = perun_jv_to_json(perun_jv_get(pers, "esc"));
	tap_ok(json_is_string(j) && json_string_length(j) == sizeof(esc) - 1 &&
		       !memcmp(json_string_value(j), esc, sizeof(esc) - 1),
	       "%s: perun_jv_to_json keeps a string's bytes", form);
	json_decref(j);
}

static void check_columns(const struct perun_jv *columns, const char *form)
{
	const struct perun_jv *amount = perun_jv_get(columns, "amount");
	const struct perun_jv *order = perun_jv_get(columns, "order");
	double d;
	tap_ok(is_type(columns, PERUN_JV_OBJECT) && perun_jv_len(columns) == 2 &&
		       is_type(amount, PERUN_JV_ARRAY) && perun_jv_len(amount) == 4 &&
		       is_type(order, PERUN_JV_ARRAY) && perun_jv_len(order) == 4,
	       "%s: two columns of four values", form);
	tap_ok(is_type(perun_jv_at(amount, 0), PERUN_JV_INTEGER) &&
		       perun_jv_at(amount, 1)->u.d == 2.5 &&
		       !perun_jv_number(perun_jv_at(amount, 2), &d) && isnan(d) &&
		       !perun_jv_number(perun_jv_at(amount, 3), &d) && isinf(d) && d < 0 &&
		       !perun_jv_at(amount, 4),
	       "%s: the amounts, NaN and -Infinity among them", form);
	tap_ok(perun_jv_at(order, 0)->u.i == INT64_MAX && perun_jv_at(order, 1)->u.i == INT64_MIN &&
		       perun_jv_at(order, 3)->u.i == -1,
	       "%s: the integer limits in a column", form);
}

static int accessors_type(const char *id, const struct perun_jv *persistent,
			  const struct perun_jv *columns, void *data)
{
	tap_is_str(id, "v#0", "%s: the one type's id", (const char *)data);
	check_persistent(persistent, data);
	check_columns(columns, data);
	return 0;
}

static void test_accessors(void)
{
	struct perun_error err = { 0 };
	struct perun_profile *p = load_text(accessors_profile, "accessors.perf");
	tap_ok(p != NULL, "the profile of every kind of value loads");
	if (!p)
		return;
	tap_ok(perun_profile_foreach_type(p, accessors_type, "tape", &err) == 0,
	       "the tape walk succeeds");
	perun_profile_json(p);
	tap_ok(perun_profile_foreach_type(p, accessors_type, "tree", &err) == 0,
	       "the tree walk succeeds");
	perun_profile_free(p);

	struct walk w = WALK_INIT;
	size_t len = strlen(accessors_profile);
	int failed = write_file("accessors.perf", accessors_profile, len) ||
		     check_forms("accessors.perf", accessors_profile, len, &w);
	tap_ok(!failed, "the profile of every kind of value: file, buffer, tree, saving agree");
	unlink("accessors.perf");
	walk_release(&w);
}

/*
 * A profile of n types "t<i>#0": resource_type_map lists them in the
 * order map_order gives, resources in res_order; every seventh type
 * (i % 7 == 3) has no resources.
 */
static char *order_profile(size_t n, const size_t *map_order, const size_t *res_order)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_strbuf_addstr(&sb, "{\"resources\": {");
	int first = 1;
	for (size_t j = 0; j < n; j++) {
		size_t i = res_order[j];
		if (i % 7 == 3)
			continue;
		perun_strbuf_addf(&sb,
				  "%s\"t%zu#0\": {\"amount\": [%zu, %zu.5, %zu], "
				  "\"order\": [1, 2, 3], \"tag\": [\"a%zu\", null, {\"x\": %zu}]}",
				  first ? "" : ", ", i, i, i, i * i, i, i);
		first = 0;
	}
	perun_strbuf_addstr(&sb, "}, \"resource_type_map\": {");
	for (size_t j = 0; j < n; j++) {
		size_t i = map_order[j];
		perun_strbuf_addf(&sb,
				  "%s\"t%zu#0\": {\"uid\": \"t%zu\", \"type\": \"mixed\", "
				  "\"n\": %zu, \"sub\": {\"i\": [%zu]}}",
				  j ? ", " : "", i, i, i, i);
	}
	perun_strbuf_addstr(&sb, "}, \"models\": [], \"header\": {\"type\": \"mixed\", "
				 "\"cmd\": \"c\", \"workload\": \"\", \"units\": {}}, "
				 "\"collector_info\": {\"name\": \"x\", \"params\": {}}, "
				 "\"postprocessors\": []}");
	return perun_strbuf_detach(&sb, NULL);
}

/* id -> "<persistent>\n<columns>" of every walked type, and the ids in
 * walk order. */
struct by_id {
	json_t *dumps;
	struct perun_strbuf ids;
	size_t empty; /* types walked with no columns */
};

static int by_id_type(const char *id, const struct perun_jv *persistent,
		      const struct perun_jv *columns, void *data)
{
	struct by_id *b = data;
	json_t *pj = perun_jv_to_json(persistent), *cj = perun_jv_to_json(columns);
	char *ps = dump_value(pj), *cs = dump_value(cj);
	json_object_set_new(b->dumps, id, json_sprintf("%s\n%s", ps, cs));
	perun_strbuf_addf(&b->ids, "%s ", id);
	if (is_type(columns, PERUN_JV_OBJECT) && !perun_jv_len(columns))
		b->empty++;
	free(ps);
	free(cs);
	json_decref(pj);
	json_decref(cj);
	return 0;
}

/* Walk the profile text of the given orders; its ids in map order go to
 * want_ids. */
static int walk_orders(size_t n, const size_t *map_order, const size_t *res_order,
		       struct by_id *out, int as_tree)
{
	char *text = order_profile(n, map_order, res_order);
	struct perun_profile *p = text ? load_text(text, "orders.perf") : NULL;
	struct perun_error err = { 0 };
	int rc = -1;
	out->dumps = json_object();
	if (p) {
		if (as_tree)
			perun_profile_json(p);
		rc = perun_profile_foreach_type(p, by_id_type, out, &err);
	}
	perun_profile_free(p);
	free(text);
	return rc;
}

/* A permutation of 0..n-1 from seed (an LCG, so runs repeat). */
static void shuffle(size_t *order, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		size_t j = (size_t)(seed >> 33) % i, t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

static void test_orders(void)
{
	static const size_t sizes[] = { 1, 5, 17, 40, 300 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		size_t n = sizes[s];
		size_t *same = malloc(n * sizeof(*same)), *map_order = malloc(n * sizeof(*same)),
		       *res_order = malloc(n * sizeof(*same)),
		       *reversed = malloc(n * sizeof(*same));
		for (size_t i = 0; i < n; i++) {
			same[i] = i;
			reversed[i] = n - 1 - i;
		}
		shuffle(map_order, n, 11 + n);
		shuffle(res_order, n, 23 + n);
		struct {
			const char *what;
			const size_t *map, *res;
			int tree;
		} cases[] = {
			{ "the same order, as a tree", same, same, 1 },
			{ "map shuffled", map_order, same, 0 },
			{ "resources shuffled", same, res_order, 0 },
			{ "both shuffled differently", map_order, res_order, 0 },
			{ "resources reversed", same, reversed, 0 },
			{ "both shuffled, as a tree", map_order, res_order, 1 },
		};
		struct by_id want = { NULL, PERUN_STRBUF_INIT, 0 };
		size_t empty = 0;
		for (size_t i = 0; i < n; i++)
			empty += i % 7 == 3;
		tap_ok(walk_orders(n, same, same, &want, 0) == 0 &&
			       json_object_size(want.dumps) == n && want.empty == empty,
		       "%zu types in the same order: all walked, %zu with an empty columns object",
		       n, empty);
		for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
			struct by_id got = { NULL, PERUN_STRBUF_INIT, 0 };
			int rc = walk_orders(n, cases[c].map, cases[c].res, &got, cases[c].tree);
			/* The walk follows resource_type_map's order. */
			struct perun_strbuf ids = PERUN_STRBUF_INIT;
			for (size_t i = 0; i < n; i++)
				perun_strbuf_addf(&ids, "t%zu#0 ", cases[c].map[i]);
			tap_ok(rc == 0 && json_equal(got.dumps, want.dumps) &&
				       same_text(&got.ids, &ids) && got.empty == empty,
			       "%zu types, %s: the same types, in resource_type_map's order", n,
			       cases[c].what);
			json_decref(got.dumps);
			perun_strbuf_release(&got.ids);
			perun_strbuf_release(&ids);
		}
		json_decref(want.dumps);
		perun_strbuf_release(&want.ids);
		free(same);
		free(map_order);
		free(res_order);
		free(reversed);
	}

	/* Types only in the map, whatever their place. */
	static const char text[] =
		"{\"resources\": {\"b#0\": {\"amount\": [2]}}, \"resource_type_map\": "
		"{\"a#0\": {\"uid\": \"a\"}, \"b#0\": {\"uid\": \"b\"}, \"c#0\": {\"uid\": "
		"\"c\"}}, "
		"\"header\": {\"type\": \"time\"}}";
	struct perun_profile *p = load_text(text, "empty.perf");
	struct by_id got = { json_object(), PERUN_STRBUF_INIT, 0 };
	struct perun_error err = { 0 };
	tap_ok(p && perun_profile_foreach_type(p, by_id_type, &got, &err) == 0 && got.empty == 2 &&
		       !strcmp(got.ids.buf, "a#0 b#0 c#0 ") &&
		       !strcmp(json_string_value(json_object_get(got.dumps, "a#0")),
			       "{\"uid\":\"a\"}\n{}") &&
		       !strcmp(json_string_value(json_object_get(got.dumps, "b#0")),
			       "{\"uid\":\"b\"}\n{\"amount\":[2]}"),
	       "types without resources get an empty columns object");
	tap_ok(p && perun_profile_resource_count(p) == 1, "and count no resources");
	json_decref(got.dumps);
	perun_strbuf_release(&got.ids);
	perun_profile_free(p);
}

/* A non-zero return of fn stops the walk and is what it returns. */
static void test_stop(void)
{
	size_t order[40];
	for (size_t i = 0; i < 40; i++)
		order[i] = 39 - i;
	char *text = order_profile(40, order, order);
	for (int tree = 0; tree < 2; tree++) {
		struct perun_profile *p = load_text(text, "stop.perf");
		struct walk w = WALK_INIT;
		struct perun_error err = { 0 };
		w.stop_after = 3;
		if (p && tree)
			perun_profile_json(p);
		tap_ok(p && perun_profile_foreach_type(p, walk_type, &w, &err) == 7 && w.types == 3,
		       "%s: the callback's return stops the walk and is returned",
		       tree ? "tree" : "tape");
		walk_release(&w);
		perun_profile_free(p);
	}
	free(text);
}

/* A walk of p shared with a reader: the walker stops after walker_stop
 * types, the reader refuses one after reader_stop (-1: never).  The walk's
 * return; the types each saw and the share's whole. */
static int stopped_share(const struct perun_profile *p, long walker_stop, long reader_stop,
			 size_t *walked, size_t *read, int *whole)
{
	struct walk walker = WALK_INIT, reader = WALK_INIT;
	struct perun_error err = { 0 };
	walker.stop_after = walker_stop;
	reader.stop_after = reader_stop;
	perun_profile_share_next_walk(p, walk_type, &reader, whole);
	int rc = perun_profile_foreach_type(p, walk_type, &walker, &err);
	*walked = walker.types;
	*read = reader.types;
	walk_release(&walker);
	walk_release(&reader);
	return rc;
}

/* perun_profile_share_next_walk: the next walk only, the same types as
 * the walker's, and whole only when neither stopped. */
static void test_shared_walk(void)
{
	static const char *const forms[] = { "tape", "tree", "streamed" };
	size_t order[40];
	for (size_t i = 0; i < 40; i++)
		order[i] = 39 - i;
	char *text = order_profile(40, order, order);
	if (write_file("shared.perf", text, strlen(text)))
		tap_ok(0, "shared.perf written");
	for (int form = 0; form < 3; form++) {
		struct perun_profile *p = NULL;
		struct perun_error err = { 0 };
		if (form == 2 && perun_profile_load_file_streamed("shared.perf", &p, &err))
			p = NULL;
		else if (form < 2)
			p = load_text(text, "shared.perf");
		if (!p) {
			tap_ok(0, "%s: shared.perf loads", forms[form]);
			continue;
		}
		if (form == 1)
			perun_profile_json(p);
		struct walk walker = WALK_INIT, sharer = WALK_INIT;
		int whole = -1;
		perun_profile_share_next_walk(p, walk_type, &sharer, &whole);
		int rc = perun_profile_foreach_type(p, walk_type, &walker, &err);
		tap_ok(!rc && whole == 1 && sharer.types == 40 && walker.types == 40 &&
			       same_text(&walker.dump, &sharer.dump),
		       "%s: a shared walk gives its reader the walker's types, whole", forms[form]);
		walker.types = 0;
		rc = perun_profile_foreach_type(p, walk_type, &walker, &err);
		tap_ok(!rc && walker.types == 40 && sharer.types == 40,
		       "%s: only the next walk is shared", forms[form]);
		walk_release(&walker);
		walk_release(&sharer);

		size_t walked, read;
		rc = stopped_share(p, 3, -1, &walked, &read, &whole);
		tap_ok(rc == 7 && whole == 0 && read == 3,
		       "%s: a walk stopped early shares no whole walk", forms[form]);
		rc = stopped_share(p, -1, 2, &walked, &read, &whole);
		tap_ok(!rc && whole == 0 && walked == 40 && read == 2,
		       "%s: a reader that refuses a type ends its share, not the walk",
		       forms[form]);

		struct walk again = WALK_INIT, withdrawn = WALK_INIT;
		whole = -1;
		perun_profile_share_next_walk(p, walk_type, &withdrawn, &whole);
		perun_profile_share_next_walk(p, NULL, NULL, NULL);
		rc = perun_profile_foreach_type(p, walk_type, &again, &err);
		tap_ok(!rc && whole == 0 && withdrawn.types == 0 && again.types == 40,
		       "%s: a withdrawn request is fed nothing", forms[form]);
		walk_release(&again);
		walk_release(&withdrawn);
		perun_profile_free(p);
	}
	unlink("shared.perf");
	free(text);
}

/* A walk whose callback has the tree built (here on its first type) goes
 * on reading what it walks. */
struct tree_midway {
	struct perun_profile *p;
	struct walk w;
};

static int tree_midway_type(const char *id, const struct perun_jv *persistent,
			    const struct perun_jv *columns, void *data)
{
	struct tree_midway *t = data;
	if (!t->w.types)
		perun_profile_json(t->p);
	return walk_type(id, persistent, columns, &t->w);
}

static int walk_type_with_resources(const char *id, const struct perun_jv *persistent,
				    const struct perun_jv *columns, void *data)
{
	return perun_jv_len(columns) ? walk_type(id, persistent, columns, data) : 0;
}

static void test_tree_midway(void)
{
	/* Big enough that the freed tape would be unmapped, not kept in the heap. */
	size_t order[3000];
	for (size_t i = 0; i < 3000; i++)
		order[i] = i;
	char *text = order_profile(3000, order, order);
	struct perun_profile *p = load_text(text, "midway.perf");
	struct perun_profile *plain = load_text(text, "midway.perf");
	struct tree_midway t = { p, WALK_INIT };
	struct walk w = WALK_INIT;
	struct perun_error err = { 0 };
	tap_ok(p && plain && !perun_profile_foreach_type(p, tree_midway_type, &t, &err) &&
		       !walk_profile(plain, &w) && t.w.types == 3000 &&
		       same_text(&t.w.dump, &w.dump),
	       "a walk whose callback builds the tree reads on what it walked");

	/* So do the values of a type list held while the tree is built. */
	struct perun_profile *q = load_text(text, "midway.perf");
	struct perun_type_list list = { NULL, 0, NULL };
	struct walk from_list = WALK_INIT;
	int listed = q && !perun_profile_types(q, &list, &err);
	if (listed) {
		perun_profile_json(q);
		for (size_t i = 0; i < list.n; i++)
			walk_type(list.types[i].id, list.types[i].persistent, list.types[i].columns,
				  &from_list);
	}
	/* The list leaves out the types without resources (every seventh). */
	struct walk want = WALK_INIT;
	struct perun_profile *r = load_text(text, "midway.perf");
	int walked = r && !perun_profile_foreach_type(r, walk_type_with_resources, &want, &err);
	tap_ok(listed && walked && list.n == want.types && same_text(&from_list.dump, &want.dump),
	       "a type list held while the tree is built keeps its values");
	walk_release(&want);
	perun_profile_free(r);
	if (listed)
		perun_type_list_release(&list);
	walk_release(&from_list);
	perun_profile_free(q);
	walk_release(&t.w);
	walk_release(&w);
	perun_profile_free(p);
	perun_profile_free(plain);
	free(text);
}

/* Parts other than the resources leave them in the tape: saving after
 * perun_profile_get, or after a walk of a tree, is the same too. */
static void test_saving(void)
{
	struct perun_error err = { 0 };
	struct perun_profile *a = load_text(accessors_profile, "save.perf");
	struct perun_profile *b = load_text(accessors_profile, "save.perf");
	struct walk w = WALK_INIT;
	json_t *models = b ? perun_profile_get(b, "models") : NULL;
	tap_ok(a && json_is_array(models) && !json_array_size(models) &&
		       json_is_object(perun_profile_get(b, "header")) &&
		       !perun_profile_get(b, "origin"),
	       "perun_profile_get reads models and header, NULL for an absent part");
	if (a && b) {
		perun_profile_json(b);
		walk_profile(b, &w);
		tap_ok(!perun_profile_save_file(a, "save-a.perf", &err) &&
			       !perun_profile_save_file(b, "save-b.perf", &err) &&
			       same_file("save-a.perf", "save-b.perf"),
		       "saved after perun_profile_get, perun_profile_json and a walk: the same "
		       "bytes");
		unlink("save-a.perf");
		unlink("save-b.perf");
	}
	walk_release(&w);
	perun_profile_free(a);
	perun_profile_free(b);
}

/* dump FILE: both dumps (compact and pending, with and without origin) of
 * the streamed profile are the whole load's, byte for byte: 0, 1 when one
 * differs, 2 when the file does not load. */
static int cmd_dump(const char *path)
{
	struct perun_error err = { 0 };
	struct perun_profile *streamed = NULL, *whole = NULL;
	int status = 0;
	if (perun_profile_load_file_streamed(path, &streamed, &err) ||
	    perun_profile_load_file(path, &whole, &err)) {
		fprintf(stderr, "profile-tape-test: %s\n", err.message);
		perun_profile_free(streamed);
		return 2;
	}
	for (int style = 0; style < 2; style++)
		for (int origin = 0; origin < 2; origin++) {
			size_t slen, wlen;
			char *s = perun_profile_dump(streamed, style, origin, &slen);
			char *w = perun_profile_dump(whole, style, origin, &wlen);
			if (!s || !w || slen != wlen || memcmp(s, w, slen)) {
				fprintf(stderr,
					"dump (style %d, origin %d) differs: %zu and %zu bytes\n",
					style, origin, s ? slen : 0, w ? wlen : 0);
				status = 1;
			}
			free(s);
			free(w);
		}
	if (perun_profile_load_error(streamed, &err) < 0) {
		fprintf(stderr, "the streamed dump recorded an error: %s\n", err.message);
		status = 1;
	}
	perun_profile_free(streamed);
	perun_profile_free(whole);
	return status;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return cmd_dump(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "walk"))
		return cmd_walk(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "load"))
		return cmd_load(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: profile-tape-test [walk|load|dump FILE]\n");
		return 2;
	}
	/* The files the tests write go to a directory of their own. */
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/profile-tape-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir) || chdir(dir)) {
		perror("profile-tape-test: a scratch directory");
		return 2;
	}
	test_accessors();
	test_orders();
	test_stop();
	test_shared_walk();
	test_tree_midway();
	test_saving();
	if (chdir("/") || rmdir(dir))
		tap_ok(0, "the scratch directory %s is left empty", dir);
	return tap_done();
}
