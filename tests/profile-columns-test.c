/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun_profile_add_columns against perun_profile_add_resource of the same
 * rows: the saved text byte for byte, the resource count and the types,
 * whether the columns went straight into the compact form (a fresh
 * profile, persistent parts all different) or row by row (resources
 * already there, a persistent part given twice, one with a collectable
 * key); rows added afterwards extend the types as they would the rows'
 * own; lists long enough to be written in parts on other processors are
 * written as one pass writes them; the refused inputs leave the profile as
 * it was.  perun_profile_take_columns the same, its columns kept as they
 * are until the dump writes them (perun_profile_dump, perun_profile_write)
 * or a reader makes them the compact form; its refusals free the values.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perun/perun.h>

#include "tap.h"

#define MAX_COLUMNS 4

/* One resource type of a test: its persistent part and columns. */
struct spec {
	const char *persistent; /* JSON */
	size_t rows;
	const char *keys[MAX_COLUMNS]; /* NULL ends; "call-order" is integer */
};

static int is_integer(const char *key)
{
	return !strcmp(key, "call-order") || !strcmp(key, "order");
}

/* Value r of column c, varied: fractions, a NaN, an exponent, negatives. */
static double real_value(size_t t, size_t c, size_t r)
{
	if (t == 1 && r == 2 && c == 0)
		return NAN;
	if (r == 3)
		return 1e-05 * (double)(c + 1);
	return (double)(r * 7 + c) / 4.0 - (double)t * 1000.0;
}

struct built {
	struct perun_column_type *types;
	struct perun_column *columns;
	double *reals;
	int64_t *integers;
	size_t n;
};

static void built_release(struct built *b)
{
	for (size_t t = 0; t < b->n; t++)
		json_decref((json_t *)b->types[t].persistent);
	free(b->types);
	free(b->columns);
	free(b->reals);
	free(b->integers);
}

static void build(const struct spec *spec, size_t n, struct built *b)
{
	size_t values = 0;
	for (size_t t = 0; t < n; t++)
		values += spec[t].rows * MAX_COLUMNS;
	b->n = n;
	b->types = calloc(n, sizeof(*b->types));
	b->columns = calloc(n * MAX_COLUMNS, sizeof(*b->columns));
	b->reals = calloc(values + 1, sizeof(*b->reals));
	b->integers = calloc(values + 1, sizeof(*b->integers));
	size_t at = 0;
	for (size_t t = 0; t < n; t++) {
		struct perun_column *cols = &b->columns[t * MAX_COLUMNS];
		size_t c = 0;
		for (; c < MAX_COLUMNS && spec[t].keys[c]; c++, at += spec[t].rows) {
			int integer = is_integer(spec[t].keys[c]);
			for (size_t r = 0; r < spec[t].rows; r++) {
				b->reals[at + r] = real_value(t, c, r);
				b->integers[at + r] = (int64_t)(r * 3 + t) - 2;
			}
			cols[c] = (struct perun_column){ spec[t].keys[c],
							 integer ? PERUN_COLUMN_INTEGER
								 : PERUN_COLUMN_REAL,
							 integer ? (const void *)&b->integers[at]
								 : (const void *)&b->reals[at] };
		}
		b->types[t] = (struct perun_column_type){ json_loads(spec[t].persistent, 0, NULL),
							  spec[t].rows, cols, c };
	}
}

/* The same rows, one perun_profile_add_resource each. */
static int add_rows(struct perun_profile *p, const struct built *b)
{
	struct perun_error err = { 0 };
	for (size_t t = 0; t < b->n; t++) {
		const struct perun_column_type *ty = &b->types[t];
		for (size_t r = 0; r < ty->rows; r++) {
			json_t *row = json_copy((json_t *)ty->persistent);
			for (size_t c = 0; c < ty->ncolumns; c++) {
				const struct perun_column *col = &ty->columns[c];
				struct perun_jv v = { PERUN_JV_INTEGER, 1, { 0 } };
				if (col->kind == PERUN_COLUMN_REAL)
					v = (struct perun_jv){
						PERUN_JV_REAL,
						1,
						{ .d = ((const double *)col->values)[r] }
					};
				else
					v.u.i = ((const int64_t *)col->values)[r];
				/* A NaN as the marker a tree holds it by. */
				json_object_set_new(row, col->key, perun_jv_to_json(&v));
			}
			int rc = perun_profile_add_resource(p, row, &err);
			json_decref(row);
			if (rc) {
				tap_diag("add_resource: %s", err.message);
				return -1;
			}
		}
	}
	return 0;
}

static char *dump(const struct perun_profile *p)
{
	return perun_profile_dump(p, PERUN_DUMP_PENDING, 1, NULL);
}

/* Did the resources stay in the compact form (no tree was made)? */
static int compact(const struct perun_profile *p)
{
	struct perun_type_list l;
	struct perun_error err = { 0 };
	if (perun_profile_types(p, &l, &err))
		return 0;
	int yes = l.copy == NULL;
	perun_type_list_release(&l);
	return yes;
}

/* b's types with each column's values a malloc'd copy of their own, as
 * perun_profile_take_columns takes them; the columns in *columns. */
static struct perun_column_type *owned_copy(const struct built *b, struct perun_column **columns)
{
	struct perun_column_type *types = calloc(b->n + 1, sizeof(*types));
	*columns = calloc(b->n * MAX_COLUMNS + 1, sizeof(**columns));
	for (size_t t = 0; t < b->n; t++) {
		types[t] = b->types[t];
		types[t].columns = *columns + t * MAX_COLUMNS;
		for (size_t c = 0; c < b->types[t].ncolumns; c++) {
			struct perun_column *col = &(*columns)[t * MAX_COLUMNS + c];
			size_t size = b->types[t].rows * 8;
			*col = b->types[t].columns[c];
			col->values = memcpy(malloc(size + 1), b->types[t].columns[c].values, size);
		}
	}
	return types;
}

/* p's text as perun_profile_write writes it into a file. */
static char *written(const struct perun_profile *p, enum perun_dump_style style)
{
	FILE *f = tmpfile();
	if (!f || perun_profile_write(p, style, 1, fileno(f))) {
		if (f)
			fclose(f);
		return NULL;
	}
	long len = lseek(fileno(f), 0, SEEK_END);
	char *text = calloc(1, (size_t)len + 1);
	if (pread(fileno(f), text, (size_t)len, 0) != len) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* Taken columns, before any reader made them the tape: the dump in both
 * styles, the text written into a file, the resource count as b's. */
static void same_as_taken(const char *name, const struct perun_profile *a,
			  const struct perun_profile *b)
{
	char *ta = perun_profile_dump(a, PERUN_DUMP_COMPACT, 0, NULL);
	char *tb = perun_profile_dump(b, PERUN_DUMP_COMPACT, 0, NULL);
	tap_is_str(ta, tb, "%s: the same compact text, from the columns", name);
	free(ta);
	free(tb);
	tap_ok(perun_profile_resource_count(a) == perun_profile_resource_count(b),
	       "%s: the same resource count, from the columns", name);
	ta = written(a, PERUN_DUMP_PENDING);
	tb = dump(b);
	tap_is_str(ta, tb, "%s: perun_profile_write writes the same text", name);
	free(ta);
	free(tb);
}

/*
 * Profiles a (by columns, taken with take) and b (by rows) after first
 * (rows both get first, may be NULL) and then spec: equal in text and
 * count.
 */
static void same_both_ways(const char *name, const struct spec *first, size_t nfirst,
			   const struct spec *spec, size_t n, int want_compact, int take)
{
	char label[96];
	snprintf(label, sizeof(label), "%s%s", take ? "taken, " : "", name);
	name = label;
	struct perun_profile *a = perun_profile_new("time"), *b = perun_profile_new("time");
	struct built pre = { 0 }, cols;
	struct perun_error err = { 0 };
	build(first, nfirst, &pre);
	build(spec, n, &cols);
	int ok = !add_rows(a, &pre) && !add_rows(b, &pre);
	struct perun_column *owned = NULL;
	struct perun_column_type *types = take ? owned_copy(&cols, &owned) : cols.types;
	int rc = take ? perun_profile_take_columns(a, types, cols.n, &err)
		      : perun_profile_add_columns(a, types, cols.n, &err);
	tap_ok(ok && !rc, "%s: added (%s)", name, err.message);
	tap_ok(!add_rows(b, &cols), "%s: the same rows added one by one", name);
	if (take) {
		same_as_taken(name, a, b);
		free(types);
		free(owned);
	}
	tap_ok(compact(a) == want_compact, "%s: %s", name,
	       want_compact ? "straight into the compact form" : "added as rows");
	char *ta = dump(a), *tb = dump(b);
	tap_is_str(ta, tb, "%s: the same profile text", name);
	tap_ok(perun_profile_resource_count(a) == perun_profile_resource_count(b),
	       "%s: the same resource count (%zu)", name, perun_profile_resource_count(b));
	free(ta);
	free(tb);

	/* More rows afterwards: the types the columns made are reused, as
	 * the rows' own would be; a new one numbered after them. */
	struct spec more[] = {
		{ spec[0].persistent,
		  2,
		  { spec[0].keys[0], spec[0].keys[1], spec[0].keys[2], spec[0].keys[3] } },
		{ "{\"uid\": \"later\", \"type\": \"time\"}", 1, { "amount" } },
	};
	struct built extra;
	build(more, 2, &extra);
	tap_ok(!add_rows(a, &extra) && !add_rows(b, &extra), "%s: rows added afterwards", name);
	ta = dump(a);
	tb = dump(b);
	tap_is_str(ta, tb, "%s: the same text after them", name);
	free(ta);
	free(tb);

	/* Saved and loaded again, the text is the same. */
	char *text = dump(a);
	struct perun_profile *c = NULL;
	tap_ok(text && !perun_profile_load_buffer(text, strlen(text), name, &c, &err),
	       "%s: its text loads (%s)", name, err.message);
	char *again = c ? dump(c) : NULL;
	tap_is_str(again, text, "%s: and saves to the same text", name);
	free(text);
	free(again);
	perun_profile_free(c);
	built_release(&extra);
	built_release(&pre);
	built_release(&cols);
	perun_profile_free(a);
	perun_profile_free(b);
}

static const struct spec traced[] = {
	{ "{\"uid\": \"f\", \"tid\": 7, \"type\": \"mixed\", \"location\": \"a.out\"}",
	  5,
	  { "amount", "timestamp", "call-order", "exclusive" } },
	{ "{\"uid\": \"f\", \"tid\": 8, \"type\": \"mixed\", \"location\": \"a.out\"}",
	  4,
	  { "amount", "timestamp", "call-order" } },
	{ "{\"uid\": {\"function\": \"g\", \"source\": \"g.c\", \"line\": 3},"
	  " \"workload\": \"\\u00e9\\n\", \"trace\": [{\"f\": 1}, {\"f\": 2}], \"x\": null,"
	  " \"t\": true, \"r\": 0.1}",
	  3,
	  { "amount" } },
	{ "{\"uid\": \"h\", \"tid\": 7}", 1, { "order", "amount" } },
};

static void test_equal(int take)
{
	size_t n = sizeof(traced) / sizeof(*traced);
	same_both_ways("fresh", NULL, 0, traced, n, 1, take);
	/* A profile with resources already: as rows. */
	const struct spec old[] = { { "{\"uid\": \"f\", \"tid\": 7, \"type\": \"mixed\","
				      " \"location\": \"a.out\"}",
				      2,
				      { "amount", "timestamp", "call-order", "exclusive" } } };
	same_both_ways("after rows", old, 1, traced, n, 0, take);
	/* A persistent part twice in one call: merged, as rows are. */
	const struct spec twice[] = { traced[1], traced[0], traced[1] };
	same_both_ways("twice", NULL, 0, twice, 3, 0, take);
	/* A collectable key among the persistent ones becomes a column. */
	const struct spec keyed[] = { { "{\"uid\": \"k\", \"address\": 4096}", 3, { "amount" } } };
	same_both_ways("collectable persistent key", NULL, 0, keyed, 1, 0, take);
	/* Lists long enough to be written in parts on other processors,
	 * negative (a line each) and positive (folded) numbers mixed. */
	const struct spec big[] = { traced[0],
				    traced[1],
				    traced[2],
				    traced[3],
				    { "{\"uid\": \"big\", \"tid\": 9}",
				      300000,
				      { "amount", "timestamp", "call-order", "exclusive" } } };
	same_both_ways("lists written in parts", NULL, 0, big, 5, 1, take);
	/* A type without rows adds nothing either way. */
	const struct spec empty[] = { traced[0], { "{\"uid\": \"none\"}", 0, { "amount" } } };
	same_both_ways("a type without rows", NULL, 0, empty, 2, 0, take);
}

/* The refused inputs: an error naming the type and column, p unchanged. */
static void test_refused(void)
{
	struct perun_profile *p = perun_profile_new("time");
	struct built b;
	build(traced, 2, &b);
	struct perun_error err = { 0 };
	tap_ok(!perun_profile_add_columns(p, b.types, 1, &err), "a first type added");
	char *before = dump(p);
	struct perun_column bad[2] = { b.columns[0], b.columns[1] };
	struct perun_column_type ty = { b.types[1].persistent, 2, bad, 2 };
	const struct {
		const char *key, *want;
		int kind;
		const char *persistent;
	} cases[] = {
		{ "uid", "column 'uid' is not a collectable key", PERUN_COLUMN_REAL, NULL },
		{ "amount", "column 'amount' given twice", PERUN_COLUMN_REAL, NULL },
		{ "timestamp", "column 'timestamp' of unknown kind 9", 9, NULL },
		{ "timestamp", "persistent part without 'uid'", PERUN_COLUMN_REAL, "{\"tid\": 1}" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		json_t *pers =
			cases[i].persistent ? json_loads(cases[i].persistent, 0, NULL) : NULL;
		bad[1] = (struct perun_column){ cases[i].key, (enum perun_column_kind)cases[i].kind,
						b.columns[1].values };
		ty.persistent = pers ? pers : b.types[1].persistent;
		perun_error_clear(&err);
		int rc = perun_profile_add_columns(p, &ty, 1, &err);
		tap_ok(rc == -PERUN_EINVAL && err.code == PERUN_EINVAL, "refused: %s",
		       cases[i].want);
		tap_ok(strstr(err.message, cases[i].want) != NULL, "message '%s'", err.message);
		char *after = dump(p);
		tap_is_str(after, before, "the profile as it was");
		free(after);
		json_decref(pers);
	}
	free(before);
	built_release(&b);
	perun_profile_free(p);
}

/* A fresh profile that took a copy of b's columns. */
static struct perun_profile *taken(const struct built *b)
{
	struct perun_profile *a = perun_profile_new("time");
	struct perun_column *owned;
	struct perun_column_type *types = owned_copy(b, &owned);
	struct perun_error err = { 0 };
	if (perun_profile_take_columns(a, types, b->n, &err))
		tap_diag("take_columns: %s", err.message);
	free(types);
	free(owned);
	return a;
}

static int count_type(const char *id, const struct perun_jv *persistent,
		      const struct perun_jv *columns, void *data)
{
	(void)id;
	(void)persistent;
	(void)columns;
	++*(size_t *)data;
	return 0;
}

/* Each reader of a profile holding taken columns reads what the rows
 * give; saving and writing into a bad descriptor; the refusals free the
 * values (the sanitized run finds a leak or a double free). */
static void test_taken_readers(void)
{
	size_t n = sizeof(traced) / sizeof(*traced);
	struct built cols;
	build(traced, n, &cols);
	struct perun_profile *b = perun_profile_new("time");
	add_rows(b, &cols);
	struct perun_error err = { 0 };
	struct perun_column *owned;
	struct perun_column_type *types;
	struct perun_profile *a;

	/* Walked by type. */
	a = taken(&cols);
	size_t walked = 0;
	tap_ok(!perun_profile_foreach_type(a, count_type, &walked, &err) && walked == n,
	       "taken: walked by type, %zu of %zu", walked, n);
	perun_profile_free(a);

	/* Asked for its resources by key: the compact form, as loaded. */
	a = taken(&cols);
	tap_ok(perun_profile_get(a, "resources") == NULL && compact(a),
	       "taken: perun_profile_get of resources reads the compact form");
	tap_ok(json_equal(perun_profile_json(a), perun_profile_json(b)),
	       "taken: its tree is the rows' tree");
	perun_profile_free(a);

	/* Saved to a file, and written where writing fails. */
	a = taken(&cols);
	char path[] = "/tmp/profile-columns-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	tap_ok(!perun_profile_save_file(a, path, &err), "taken: saved (%s)", err.message);
	char *saved = NULL, *want = dump(b);
	perun_file_read(path, &saved, NULL, &err);
	tap_is_str(saved, want, "taken: the saved file is the rows' text");
	unlink(path);
	free(saved);
	free(want);
	fd = open("/dev/null", O_RDONLY);
	errno = 0;
	tap_ok(perun_profile_write(a, PERUN_DUMP_PENDING, 1, fd) == -1 && errno == EBADF,
	       "taken: a descriptor not open for writing fails with its errno");
	close(fd);
	perun_profile_free(a);

	/* Taken again, a type without rows into a profile that holds taken
	 * columns: nothing added, the values freed all the same. */
	a = taken(&cols);
	struct perun_column none_column = { "amount", PERUN_COLUMN_REAL, malloc(8) };
	struct perun_column_type none = { cols.types[0].persistent, 0, &none_column, 1 };
	tap_ok(!perun_profile_take_columns(a, &none, 1, &err),
	       "taken: a type without rows, taken again (%s)", err.message);
	char *text = dump(a), *rows = dump(b);
	tap_is_str(text, rows, "taken: the profile as the rows made it");
	free(text);
	free(rows);
	perun_profile_free(a);

	/* Refused: the values are freed all the same, the profile as it was. */
	a = perun_profile_new("time");
	char *before = dump(a);
	types = owned_copy(&cols, &owned);
	owned[1].key = "uid";
	tap_ok(perun_profile_take_columns(a, types, n, &err) == -PERUN_EINVAL,
	       "taken: refused (%s)", err.message);
	char *after = dump(a);
	tap_is_str(after, before, "taken: the profile as it was");
	free(before);
	free(after);
	free(types);
	free(owned);
	perun_profile_free(a);
	perun_profile_free(b);
	built_release(&cols);
}

int main(void)
{
	test_equal(0);
	test_equal(1);
	test_refused();
	test_taken_readers();
	return tap_done();
}
