/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of libperun's postprocessor points (perun/points.h): the data
 * provider (uid order, joined resource types, persistent keys, errors
 * naming the resource), numpy's sums, sklearn's r^2, Python's number order
 * and JSON, the skipped-uid report.
 *
 * The expected sums and r^2 were computed by numpy 1.24 and scikit-learn
 * 1.2 (numpy.sum, sklearn.metrics.r2_score) on the same inputs; C's
 * hexadecimal floats keep them exact.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#include "tap.h"

static struct perun_profile *profile_of(const char *resources, const char *types)
{
	char text[4096];
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	snprintf(text, sizeof(text),
		 "{\"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\", "
		 "\"units\": {}}, \"collector_info\": {\"name\": \"trace\", \"params\": {}}, "
		 "\"postprocessors\": [], \"resources\": {%s}, \"resource_type_map\": {%s}, "
		 "\"models\": []}",
		 resources, types);
	if (perun_profile_load_buffer(text, strlen(text), "test.perf", &p, &err)) {
		fprintf(stderr, "bad test profile: %s\n", err.message);
		abort();
	}
	return p;
}

static void test_provider(void)
{
	/* Two types of uid "b" are joined, "a" comes first, x of "a" is persistent. */
	struct perun_profile *p =
		profile_of("\"b#0\": {\"x\": [3, 1.5], \"y\": [30, 15]}, "
			   "\"a#0\": {\"y\": [7, 8]}, "
			   "\"b#1\": {\"x\": [2], \"y\": [20]}",
			   "\"b#0\": {\"uid\": \"b\", \"type\": \"mixed\"}, "
			   "\"a#0\": {\"uid\": \"a\", \"type\": \"mixed\", \"x\": 4}, "
			   "\"b#1\": {\"uid\": \"b\", \"type\": \"mixed\"}");
	struct perun_error err = { 0 };
	struct perun_points *points;
	const char *uid;
	struct perun_point *pts;
	size_t n;
	tap_ok(!perun_points_open(p, &points, &err), "open: %s", err.message);
	tap_ok(!perun_points_check_key(points, "per-key", "x", &err), "x is a key");
	tap_ok(perun_points_check_key(points, "of-key", "z", &err) < 0 &&
		       !strcmp(err.message,
			       "option '--of-key': 'z' is not a key of the profile's resources"),
	       "z is not: %s", err.message);
	int rc = perun_points_next(points, "x", "y", &uid, &pts, &n, &err);
	tap_ok(rc == 1 && !strcmp(uid, "a") && n == 2 && pts[0].x.is_int && pts[0].x.i == 4 &&
		       pts[1].x.i == 4 && pts[1].y.i == 8,
	       "uid a first, its persistent x on every row");
	rc = perun_points_next(points, "x", "y", &uid, &pts, &n, &err);
	tap_ok(rc == 1 && !strcmp(uid, "b") && n == 3 && pts[1].x.d == 1.5 && !pts[1].x.is_int &&
		       pts[2].x.i == 2 && pts[2].y.i == 20 && pts[2].idx == 2,
	       "uid b: both resource types in profile order");
	tap_ok(perun_points_next(points, "x", "y", &uid, &pts, &n, &err) == 0, "then the end");
	perun_points_free(points);
	perun_profile_free(p);

	p = profile_of("\"f#0\": {\"x\": [1, 2], \"y\": [1, \"two\"]}",
		       "\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}");
	perun_points_open(p, &points, &err);
	tap_ok(perun_points_next(points, "x", "y", &uid, &pts, &n, &err) < 0 &&
		       !strcmp(err.message, "resource 'f#0' row 2: 'y' is not a number (\"two\")"),
	       "a string: %s", err.message);
	perun_points_free(points);
	perun_profile_free(p);

	p = profile_of("\"f#0\": {\"x\": [1, Infinity], \"y\": [1, 2]}",
		       "\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}");
	perun_points_open(p, &points, &err);
	tap_ok(perun_points_next(points, "x", "y", &uid, &pts, &n, &err) < 0 &&
		       !strcmp(err.message, "resource 'f#0' row 2: 'x' is infinite"),
	       "infinity: %s", err.message);
	tap_ok(perun_points_next(points, "x", "nosuch", &uid, &pts, &n, &err) == 0,
	       "a failed uid is passed");
	perun_points_free(points);
	perun_profile_free(p);

	p = profile_of("", "");
	tap_ok(perun_points_open(p, &points, &err) < 0 &&
		       !strcmp(err.message, "the profile has no resources to analyse"),
	       "no resources: %s", err.message);
	perun_profile_free(p);
}

static void test_numbers(void)
{
	double *a = malloc(20000 * sizeof(*a)), seq = 0;
	for (int i = 0; i < 20000; i++) {
		a[i] = 0.1 * i + 1e-3 * (i % 7);
		seq += a[i];
	}
	tap_ok(perun_sum_pairwise(a, 20000) == 0x1.312953ff3b646p+24,
	       "numpy.sum of 20000 (chunks of 8192, pairwise): %a", perun_sum_pairwise(a, 20000));
	tap_ok(seq != 0x1.312953ff3b646p+24, "which a plain sum is not");
	tap_ok(perun_sum_pairwise(a, 100) == 0x1.ef4b851eb8520p+8, "numpy.sum of 100");
	tap_ok(perun_sum_pairwise(a, 9) == 0x1.cf9db22d0e560p+1, "numpy.sum of 9");
	tap_ok(perun_sum_pairwise(a, 5) == 0x1.028f5c28f5c2ap+0, "numpy.sum of 5");
	/* Around the unrolled blocks of 8 up to 128 and past them, as the
	 * eight sums kept in an array gave them (numpy's order). */
	const struct {
		size_t n;
		double sum;
	} blocks[] = { { 8, 0x1.6916872b020c4p+1 },	{ 15, 0x1.515810624dd2fp+3 },
		       { 127, 0x1.903d2f1a9fbe6p+9 },	{ 128, 0x1.9696e978d4fep+9 },
		       { 129, 0x1.9cfd916872b03p+9 },	{ 1000, 0x1.8641fe76c8b44p+15 },
		       { 2186, 0x1.d27586c8b4396p+17 }, { 8193, 0x1.99a72afbe76c9p+21 } };
	for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++)
		tap_ok(perun_sum_pairwise(a, blocks[k].n) == blocks[k].sum, "numpy.sum of %zu: %a",
		       blocks[k].n, perun_sum_pairwise(a, blocks[k].n));
	tap_ok(perun_mean(a, 5) == 0x1.028f5c28f5c2ap+0 / 5, "numpy.mean");
	free(a);

	double y[] = { 3, 1, 4, 1, 5, 9, 2, 6 }, p[] = { 2.5, 1.5, 3.5, 1.0, 5.5, 8.0, 2.0, 6.5 };
	double c[] = { 2, 2, 2 }, r2 = 0;
	int ok = !perun_r2_score(y, p, 8, &r2);
	tap_ok(ok && r2 == 0x1.ea3677d46cefbp-1, "r2_score: %a", r2);
	tap_ok(!perun_r2_score(y, y, 8, &r2) && r2 == 1.0, "a perfect fit: 1.0");
	tap_ok(!perun_r2_score(c, p, 3, &r2) && r2 == 0.0, "constant y, imperfect fit: 0.0");
	tap_ok(!perun_r2_score(y, p, 1, &r2) && isnan(r2), "one point: NaN");

	struct perun_num big_int = { .i = 9007199254740993LL,
				     .d = 9007199254740992.0,
				     .is_int = 1 };
	struct perun_num big_float = { .d = 9007199254740992.0 };
	struct perun_num one = { .i = 1, .d = 1, .is_int = 1 }, one_f = { .d = 1.0 };
	tap_ok(perun_num_cmp(&big_int, &big_float) > 0 && perun_num_cmp(&big_float, &big_int) < 0,
	       "2**53 + 1 > 2.0**53, exactly as Python compares");
	tap_ok(perun_num_cmp(&one, &one_f) == 0, "1 == 1.0");

	struct perun_num nan = { .d = NAN }, inf = { .d = -INFINITY };
	json_t *v = perun_num_json(&nan);
	double d;
	tap_ok(json_is_string(v) && !perun_json_number(v, &d) && isnan(d), "NaN: the marker");
	json_decref(v);
	v = perun_num_json(&inf);
	tap_ok(!perun_json_number(v, &d) && d == -INFINITY, "-Infinity: the marker");
	json_decref(v);
	v = perun_num_json(&one);
	tap_ok(json_is_integer(v), "an int stays an int");
	json_decref(v);
	v = perun_num_json(&one_f);
	tap_ok(json_is_real(v), "a float stays a float");
	json_decref(v);
}

static void test_skips(void)
{
	struct perun_points_skips s = { 0 };
	struct perun_error err = { 0 };
	tap_ok(perun_points_skips_finish(&s, 3, &err) == 0 && !err.message[0], "nothing skipped");
	perun_points_skip(&s, "f", "too few points");
	tap_ok(perun_points_skips_finish(&s, 1, &err) == 0 && err.code == 0 &&
		       !strcmp(err.message, "skipped uid 'f': too few points"),
	       "one skipped: a warning");
	perun_points_skip(&s, "g", "degenerate");
	tap_ok(perun_points_skips_finish(&s, 0, &err) < 0 &&
		       !strcmp(err.message, "no model could be computed: uid 'f': too few points "
					    "(and 1 other uids)"),
	       "nothing made: %s", err.message);
	for (int i = 0; i < 40; i++)
		perun_points_skip(&s, "a-rather-long-uid-name-that-fills-the-line", "x");
	tap_ok(perun_points_skips_finish(&s, 1, &err) == 0 && strstr(err.message, ", ...") &&
		       strstr(err.message, "skipped 42 uids"),
	       "many: shortened");
}

int main(void)
{
	test_provider();
	test_numbers();
	test_skips();
	return tap_done();
}
