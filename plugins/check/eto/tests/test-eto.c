/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of the eto check: every case of cases.list against the results
 * of Python Perun's own exclusive_time_outliers (expected/NAME.tsv, made by
 * regen-expected.sh), upstream's test expectations on the tracer profiles,
 * difflib's ratio, the removed-functions option and the error paths.
 * The plugin's source is compiled in, so its static helpers are reachable.
 */
#include <unistd.h>

#include "../eto.c"
#include "../../../../tests/tap.h"

static char testdata[4096];
/* Python Perun's profiles (../shared) are there: the cases on them ("@"
 * specs) run; without them only those skip, the rest stands alone. */
static int have_shared;

static void skip_shared(const char *what)
{
	char why[sizeof(testdata) + 64];
	snprintf(why, sizeof(why), "no shared test profiles at %s", testdata);
	tap_skip(what, why);
}

static const char *change_name(enum perun_change c)
{
	static const char *const names[] = {
		"Unknown",	"NotInBaseline",      "TotalDegradation",  "SevereDegradation",
		"Degradation",	"MaybeDegradation",   "NoChange",	   "MaybeOptimization",
		"Optimization", "SevereOptimization", "TotalOptimization", "NotInTarget",
	};
	return names[c + 6];
}

struct collected {
	struct perun_strbuf text;
	size_t n;
	int results[12]; /* count per result, index result + 6 */
	char last_loc[256];
	double last_share, last_effect;
	int fail_after; /* emit fails on this call (1-based), 0 never */
};

static int collect(const struct perun_degradation *d, void *data)
{
	struct collected *c = data;
	char rate[32], rel[32], cr[32];
	if (c->fail_after && (int)c->n + 1 == c->fail_after)
		return -1;
	perun_python_float_str(d->rate_degradation, rate);
	perun_python_float_str(d->rate_degradation_relative, rel);
	perun_python_float_str(d->confidence_rate, cr);
	perun_strbuf_addf(&c->text, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", change_name(d->result),
			  d->location, d->from_baseline, d->to_target, d->type, rate, rel,
			  d->confidence_type, cr);
	c->results[d->result + 6]++;
	snprintf(c->last_loc, sizeof(c->last_loc), "%s", d->location);
	c->last_share = d->rate_degradation_relative;
	c->last_effect = d->effect_size;
	c->n++;
	return 0;
}

/* Upstream's verdicts (--upstream) unless ours is set. */
static struct perun_params *make_params_as(const char *cutoff, const char *filter, int with_removed,
					   int ours)
{
	struct perun_error err = { 0 };
	struct perun_params *p = perun_params_new();
	if (cutoff)
		perun_params_set_text(p, perun_option_find(eto_options, "cutoff", 0), cutoff, &err);
	if (filter)
		perun_params_set_text(p, perun_option_find(eto_options, "location-filter", 0),
				      filter, &err);
	if (with_removed)
		perun_params_set_text(p, perun_option_find(eto_options, "with-removed", 0), "true",
				      &err);
	if (!ours)
		perun_params_set_text(p, perun_option_find(eto_options, "upstream", 0), "true",
				      &err);
	if (perun_params_finish(p, eto_options, "eto", &err))
		tap_diag("params: %s", err.message);
	return p;
}

static struct perun_params *make_params(const char *cutoff, const char *filter, int with_removed)
{
	return make_params_as(cutoff, filter, with_removed, 0);
}

static struct perun_profile *load(const char *spec)
{
	char path[8192];
	if (spec[0] == '@')
		snprintf(path, sizeof(path), "%s/degradation_profiles/%s", testdata, spec + 1);
	else
		snprintf(path, sizeof(path), "%s/plugins/check/eto/tests/cases/%s", TEST_SRCDIR,
			 spec);
	struct perun_profile *p = NULL;
	struct perun_error err = { 0 };
	if (perun_profile_load_file(path, &p, &err))
		tap_diag("cannot load %s: %s", path, err.message);
	return p;
}

static int run(const char *base, const char *targ, struct perun_params *params, struct collected *c,
	       struct perun_error *err)
{
	struct perun_profile *b = load(base), *t = load(targ);
	int rc = b && t ? eto_compare(b, t, params, collect, c, err) : -1;
	perun_profile_free(b);
	perun_profile_free(t);
	return rc;
}

static void test_oracle_cases(void)
{
	char list[8192];
	snprintf(list, sizeof(list), "%s/plugins/check/eto/tests/cases.list", TEST_SRCDIR);
	FILE *f = fopen(list, "r");
	tap_ok(f != NULL, "cases.list opens");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char name[128], base[256], targ[256], cutoff[64], filter[256];
		if (line[0] == '#' || sscanf(line, "%127s %255s %255s %63s %255s", name, base, targ,
					     cutoff, filter) != 5)
			continue;
		if (!have_shared && (base[0] == '@' || targ[0] == '@')) {
			skip_shared(name);
			continue;
		}
		struct perun_params *params = make_params(cutoff, filter, 0);
		struct collected c = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
		struct perun_error err = { 0 };
		int rc = run(base, targ, params, &c, &err);
		char path[8192], *want = NULL;
		size_t len;
		snprintf(path, sizeof(path), "%s/plugins/check/eto/tests/expected/%s.tsv",
			 TEST_SRCDIR, name);
		if (perun_file_read(path, &want, &len, &err))
			tap_diag("%s", err.message);
		tap_ok(rc == 0, "%s: compare succeeds %s", name, rc ? err.message : "");
		tap_is_str(c.text.buf ? c.text.buf : "", want, "%s: results equal upstream's",
			   name);
		free(want);
		perun_strbuf_release(&c.text);
		perun_params_free(params);
	}
	fclose(f);
}

/* upstream's tests/test_degradations.py on the tracer profiles */
static void test_upstream_expectations(void)
{
	if (!have_shared) {
		skip_shared("upstream's expectations on the tracer profiles");
		return;
	}
	struct perun_params *params = make_params(NULL, NULL, 0);
	struct collected c = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	struct perun_error err = { 0 };
	run("@tracer_baseline.perf", "@tracer_target.perf", params, &c, &err);
	tap_ok(c.results[PERUN_CHANGE_TOTAL_DEGRADATION + 6] == 1 &&
		       c.results[PERUN_CHANGE_NO_CHANGE + 6] > 0,
	       "tracer pair: a Total Degradation and No Changes");
	perun_strbuf_release(&c.text);

	struct collected s = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	run("@tracer_baseline.perf", "@tracer_baseline.perf", params, &s, &err);
	size_t other = s.n - (size_t)s.results[PERUN_CHANGE_NO_CHANGE + 6] -
		       (size_t)s.results[PERUN_CHANGE_TOTAL_DEGRADATION + 6] -
		       (size_t)s.results[PERUN_CHANGE_TOTAL_OPTIMIZATION + 6];
	tap_ok(s.n > 0 && other == 0, "self comparison: only No Change and Total records");
	perun_strbuf_release(&s.text);
	perun_params_free(params);

	/* Ours: a profile against itself is no change at all, and the
	 * collector's pseudo resources are no functions. */
	params = make_params_as(NULL, NULL, 0, 1);
	struct collected o = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	run("@tracer_baseline.perf", "@tracer_baseline.perf", params, &o, &err);
	tap_ok(o.n > 0 && (size_t)o.results[PERUN_CHANGE_NO_CHANGE + 6] == o.n,
	       "self comparison without --upstream: only No Change");
	tap_ok(o.text.buf && !strstr(o.text.buf, "!ProcessResource!"),
	       "without --upstream !ProcessResource! is no function");
	perun_strbuf_release(&o.text);
	struct collected t = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	run("@tracer_baseline.perf", "@tracer_target.perf", params, &t, &err);
	tap_ok(t.results[PERUN_CHANGE_TOTAL_DEGRADATION + 6] == 1,
	       "a 16%% slower binary is still a Total Degradation");
	perun_strbuf_release(&t.text);
	perun_params_free(params);
}

static void test_difflib(void)
{
	static const struct {
		const char *a, *b;
		double ratio; /* Python's SequenceMatcher(None, a, b).ratio() */
	} cases[] = {
		{ "libsort-3.5.so", "libsort-3.4.so", 0.9285714285714286 },
		{ "abcd", "bcda", 0.75 },
		{ "run_sorts", "run_sorts", 1.0 },
		{ "", "x", 0.0 },
		{ "qabxcd", "abycdf", 0.6666666666666666 },
		{ "f\xc3\xbcnf", "funf", 0.75 },
		{ "libc.so.6", "libm.so.6", 0.8888888888888888 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cps a, b;
		cps_of(cases[i].a, &a);
		cps_of(cases[i].b, &b);
		double r = eto_difflib_ratio(&a, &b);
		tap_ok(r == cases[i].ratio, "difflib ratio of '%s' and '%s' is %.17g (got %.17g)",
		       cases[i].a, cases[i].b, cases[i].ratio, r);
		free(a.p);
		free(b.p);
	}
	/* autojunk: b of 263 elements makes 'a' and 'b' popular */
	char la[400], lb[400];
	memset(la, 'a', 150);
	memset(la + 150, 'b', 150);
	strcpy(la + 300, "xyz");
	memset(lb, 'b', 160);
	strcpy(lb + 160, "xyz");
	memset(lb + 163, 'a', 100);
	lb[263] = '\0';
	struct cps a, b;
	cps_of(la, &a);
	cps_of(lb, &b);
	double r = eto_difflib_ratio(&a, &b);
	tap_ok(r == 0.5406360424028268, "difflib ratio with popular elements (got %.17g)", r);
	free(a.p);
	free(b.p);
}

static void test_numpy_arithmetic(void)
{
	double v[300];
	for (int i = 0; i < 300; i++)
		v[i] = 0.1 * (i % 7) + 1e-3 * i;
	/* numpy.sum of the same values: pairwise, not left to right */
	tap_ok(perun_sum_pairwise(v, 300) == 134.55, "pairwise sum of 300 values (got %.17g)",
	       perun_sum_pairwise(v, 300));
	double s[] = { 1, 2, 3, 4, 10 };
	tap_ok(eto_np_quantile(s, 5, 0.25) == 2 && eto_np_quantile(s, 5, 0.75) == 4 &&
		       eto_np_quantile(s, 4, 0.75) == 3.25,
	       "linear quantiles");
	tap_ok(py_round(2.675, 2) == 2.67 && py_round(0.0005, 3) == 0.001 &&
		       py_round(1.0005, 3) == 1.0,
	       "round() as Python rounds binary values");
}

static void test_with_removed(void)
{
	struct perun_params *params = make_params(NULL, NULL, 1);
	struct collected c = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	struct perun_error err = { 0 };
	int rc = run("renamed-baseline.perf", "renamed-target.perf", params, &c, &err);
	tap_ok(rc == 0 && c.results[PERUN_CHANGE_NOT_IN_TARGET + 6] == 1 &&
		       strstr(c.text.buf, "NotInTarget\told_helper\t0.11\t0.0\ttime\t-0.11\t"),
	       "--with-removed: the removed function is Not in Target, -0.11 ms");
	perun_strbuf_release(&c.text);
	perun_params_free(params);

	params = make_params(NULL, NULL, 0);
	struct collected d = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	run("renamed-baseline.perf", "renamed-target.perf", params, &d, &err);
	tap_ok(d.results[PERUN_CHANGE_NOT_IN_TARGET + 6] == 0 && !strstr(d.text.buf, "old_helper"),
	       "without it the removed function is dropped, as upstream does");
	perun_strbuf_release(&d.text);
	perun_params_free(params);
}

/* Ours on the project's own cases: a profile against itself is no change. */
static void test_self_ours(void)
{
	struct perun_params *params = make_params_as(NULL, NULL, 0, 1);
	struct collected o = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	struct perun_error err = { 0 };
	run("many-baseline.perf", "many-baseline.perf", params, &o, &err);
	tap_ok(o.n > 0 && (size_t)o.results[PERUN_CHANGE_NO_CHANGE + 6] == o.n,
	       "own profile against itself without --upstream: only No Change");
	perun_strbuf_release(&o.text);
	perun_params_free(params);
}

static void test_errors(void)
{
	struct perun_params *params = make_params(NULL, NULL, 0);
	struct collected c = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 0 };
	struct perun_error err = { 0 };
	/* a baseline without exclusive times (all dropped from a case) */
	struct perun_profile *bare = load("renamed-baseline.perf");
	struct perun_profile *targ = load("renamed-target.perf");
	const char *key;
	json_t *columns;
	json_object_foreach(json_object_get(perun_profile_json(bare), "resources"), key, columns)
		json_object_del(columns, "exclusive");
	int rc = eto_compare(bare, targ, params, collect, &c, &err);
	tap_ok(rc == -PERUN_EINVAL && strstr(err.message, "baseline profile has no 'exclusive'"),
	       "a profile without exclusive times is refused: %s", err.message);
	tap_ok(c.n == 0, "nothing was reported");
	perun_profile_free(bare);
	perun_profile_free(targ);
	perun_params_free(params);

	params = make_params(NULL, "lib(", 0);
	memset(&err, 0, sizeof(err));
	rc = run("renamed-baseline.perf", "renamed-target.perf", params, &c, &err);
	tap_ok(rc == -PERUN_EINVAL && strstr(err.message, "bad regex 'lib('"),
	       "a bad location filter is refused: %s", err.message);
	perun_params_free(params);

	params = make_params(NULL, NULL, 0);
	struct collected f = { PERUN_STRBUF_INIT, 0, { 0 }, "", 0, 0, 3 };
	memset(&err, 0, sizeof(err));
	rc = run("renamed-baseline.perf", "renamed-target.perf", params, &f, &err);
	tap_ok(rc < 0 && f.n == 2, "a failing emit stops the check: %s", err.message);
	perun_strbuf_release(&f.text);

	/* non-numeric exclusive times name the resource */
	struct perun_profile *p = load("renamed-target.perf");
	json_t *res = json_object_get(perun_profile_json(p), "resources");
	json_array_set_new(json_object_get(json_object_get(res, "sort_04#0"), "exclusive"), 1,
			   json_string("fast"));
	struct perun_profile *b = load("renamed-baseline.perf");
	memset(&err, 0, sizeof(err));
	rc = eto_compare(b, p, params, collect, &c, &err);
	tap_ok(rc == -PERUN_EINVAL && strstr(err.message, "resource 'sort_04#0'"),
	       "a non-numeric exclusive time is refused: %s", err.message);
	perun_profile_free(p);
	perun_profile_free(b);
	perun_strbuf_release(&c.text);
	perun_params_free(params);
}

int main(void)
{
	const char *env = getenv("PERUN_TESTDATA");
	snprintf(testdata, sizeof(testdata), "%s",
		 env ? env : TEST_SRCDIR "/../shared/testdata/perun-profiles");
	char probe[8192];
	snprintf(probe, sizeof(probe), "%s/degradation_profiles", testdata);
	have_shared = access(probe, R_OK) == 0;
	test_difflib();
	test_numpy_arithmetic();
	test_oracle_cases();
	test_upstream_expectations();
	test_self_ours();
	test_with_removed();
	test_errors();
	return tap_done();
}
