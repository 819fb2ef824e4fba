/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of the cpd check on synthetic histories: steps up and back,
 * stable series, changes below --min-change or below the noise, spikes
 * shorter than --min-segment, the permutation test and its seed, the sum of
 * per-call rows, repeated versions, locations missing in some versions,
 * and the error paths.  Noise comes from a fixed-seed generator, so every
 * run sees the same numbers.
 */
#include <unistd.h>

#include "../cpd.c"
#include "../../../../tests/tap.h"

#define MAXV 64

struct verdict {
	enum perun_change result;
	char location[64], type[32], version[48];
	double rate, p, effect, noise;
};

struct collected {
	struct verdict v[4096];
	size_t n;
	int fail_at; /* emit fails on this call (1-based); 0 never */
};

static int collect(const struct perun_degradation *d, void *data)
{
	struct collected *c = data;
	if (c->fail_at && (int)c->n + 1 == c->fail_at)
		return -1;
	if (c->n == sizeof(c->v) / sizeof(c->v[0]))
		return -1;
	struct verdict *v = &c->v[c->n++];
	v->result = d->result;
	snprintf(v->location, sizeof(v->location), "%s", d->location);
	snprintf(v->type, sizeof(v->type), "%s", d->type);
	snprintf(v->version, sizeof(v->version), "%s", d->version ? d->version : "-");
	v->rate = d->rate_degradation;
	v->p = d->confidence_rate;
	v->effect = d->effect_size;
	v->noise = d->noise;
	return 0;
}

/* The changes (not No Change) of c, as "Result@version" words. */
static void changes_text(const struct collected *c, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].result == PERUN_CHANGE_NO_CHANGE)
			continue;
		size_t l = strlen(out);
		snprintf(out + l, len - l, "%s%s:%s@%s", l ? " " : "",
			 c->v[i].result == PERUN_CHANGE_SEVERE_DEGRADATION    ? "SevereDegradation"
			 : c->v[i].result == PERUN_CHANGE_DEGRADATION	      ? "Degradation"
			 : c->v[i].result == PERUN_CHANGE_SEVERE_OPTIMIZATION ? "SevereOptimization"
			 : c->v[i].result == PERUN_CHANGE_OPTIMIZATION	      ? "Optimization"
									      : "Other",
			 c->v[i].location, c->v[i].version);
	}
}

static gsl_rng *noise_rng;

/* A time profile: reps repetitions of each location around its level. */
static struct perun_profile *time_profile(const char *const *uids, const double *levels,
					  size_t nloc, size_t reps, double rel_noise)
{
	struct perun_profile *p = perun_profile_new("time");
	struct perun_error err = { 0 };
	for (size_t r = 0; r < reps; r++)
		for (size_t l = 0; l < nloc; l++) {
			if (isnan(levels[l]))
				continue;
			double v = levels[l] * (1 + gsl_ran_gaussian(noise_rng, rel_noise));
			json_t *res =
				json_pack("{s:f, s:s, s:i, s:s, s:s}", "amount", v, "uid", uids[l],
					  "order", (int)r + 1, "subtype", "real", "type", "time");
			if (perun_profile_add_resource(p, res, &err))
				tap_diag("add_resource: %s", err.message);
			json_decref(res);
		}
	return p;
}

struct history {
	struct perun_check_series_entry e[MAXV * 2];
	char names[MAXV * 2][48];
	size_t n;
};

static void history_add(struct history *h, size_t version, struct perun_profile *p)
{
	snprintf(h->names[h->n], sizeof(h->names[h->n]), "v%02zu", version);
	h->e[h->n].version = h->names[h->n];
	h->e[h->n].profile = p;
	h->n++;
}

static void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		perun_profile_free((struct perun_profile *)h->e[i].profile);
	h->n = 0;
}

/* One location "./prog" whose level per version is levels[v]. */
static void one_location(struct history *h, const double *levels, size_t nv, size_t reps,
			 double rel_noise)
{
	static const char *const uid[] = { "./prog" };
	for (size_t v = 0; v < nv; v++)
		history_add(h, v, time_profile(uid, &levels[v], 1, reps, rel_noise));
}

static struct perun_params *params_of(const char *const *kv)
{
	struct perun_error err = { 0 };
	struct perun_params *p = perun_params_new();
	for (size_t i = 0; kv && kv[i]; i += 2)
		if (perun_params_set_text(p, perun_option_find(cpd_options, kv[i], 0), kv[i + 1],
					  &err))
			tap_diag("param %s: %s", kv[i], err.message);
	if (perun_params_finish(p, cpd_options, "cpd", &err))
		tap_diag("params: %s", err.message);
	return p;
}

static int run(struct history *h, const char *const *kv, struct collected *c,
	       struct perun_error *err)
{
	struct perun_params *p = params_of(kv);
	memset(c->v, 0, sizeof(c->v));
	c->n = 0;
	int rc = cpd_compare_series(h->e, h->n, p, collect, c, err);
	perun_params_free(p);
	return rc;
}

static void expect_changes(struct history *h, const char *const *kv, const char *want,
			   const char *what)
{
	static struct collected c;
	struct perun_error err = { 0 };
	char got[4096];
	int rc = run(h, kv, &c, &err);
	changes_text(&c, got, sizeof(got));
	tap_ok(rc == 0 && !strcmp(got, want), "%s: '%s' (got '%s'%s%s)", what, want, got,
	       rc ? ": " : "", rc ? err.message : "");
}

static void test_step(void)
{
	double lv[12];
	for (int v = 0; v < 12; v++)
		lv[v] = v < 6 ? 0.01 : 0.2;
	struct history h = { .n = 0 };
	one_location(&h, lv, 12, 5, 0.02);
	static struct collected c;
	struct perun_error err = { 0 };
	run(&h, NULL, &c, &err);
	char got[4096];
	changes_text(&c, got, sizeof(got));
	tap_is_str(got, "SevereDegradation:./prog@v06",
		   "a 20x step names the version that made it");
	const struct verdict *v = &c.v[0];
	tap_ok(c.n == 1 && v->effect > 17 && v->effect < 22 && v->rate > 18 && v->rate < 23,
	       "its effect size is the relative change (%g) and its rate the ratio (%g)", v->effect,
	       v->rate);
	tap_ok(v->noise > 0.005 && v->noise < 0.04,
	       "its noise is the spread of the repetitions (%g, made with 2%%)", v->noise);
	tap_ok(v->p < 0.01 && !strcmp(v->type, "real"), "p-value %g below alpha; type %s", v->p,
	       v->type);
	history_free(&h);
}

static void test_up_and_back(void)
{
	double lv[15];
	for (int v = 0; v < 15; v++)
		lv[v] = v >= 5 && v < 10 ? 0.3 : 0.015;
	struct history h = { .n = 0 };
	one_location(&h, lv, 15, 5, 0.03);
	expect_changes(&h, NULL, "SevereDegradation:./prog@v05 SevereOptimization:./prog@v10",
		       "linear to quadratic and back: both commits");
	history_free(&h);

	double lv24[24];
	for (int v = 0; v < 24; v++)
		lv24[v] = v >= 8 && v < 16 ? 0.3 : 0.015;
	one_location(&h, lv24, 24, 5, 0.03);
	const char *perm[] = { "test", "permutation", NULL };
	expect_changes(&h, perm, "SevereDegradation:./prog@v08 SevereOptimization:./prog@v16",
		       "the same with the permutation test (8 versions a level)");
	history_free(&h);
}

static void test_stable_and_small(void)
{
	double lv[30];
	for (int v = 0; v < 30; v++)
		lv[v] = 1.0;
	struct history h = { .n = 0 };
	one_location(&h, lv, 30, 5, 0.03);
	static struct collected c;
	struct perun_error err = { 0 };
	run(&h, NULL, &c, &err);
	tap_ok(c.n == 1 && c.v[0].result == PERUN_CHANGE_NO_CHANGE &&
		       !strcmp(c.v[0].version, "-") && c.v[0].noise > 0.01 && c.v[0].noise < 0.05,
	       "a stable history is one No Change with its noise (%g)", c.v[0].noise);
	history_free(&h);

	for (int v = 0; v < 20; v++)
		lv[v] = v < 10 ? 1.0 : 1.05;
	one_location(&h, lv, 20, 5, 0.005);
	expect_changes(&h, NULL, "", "a 5% step is below the default --min-change of 10%");
	const char *small[] = { "min-change", "0.02", NULL };
	expect_changes(&h, small, "Degradation:./prog@v10", "and found with --min-change 0.02");
	history_free(&h);
}

/* Creeping: steps each below --min-change, found as one change dated at
 * its first step and measured from the level before it. */
static void test_creep(void)
{
	double lv[24];
	for (int v = 0; v < 24; v++)
		lv[v] = v < 8 ? 1.0 : v < 12 ? 1.05 : v < 16 ? 1.10 : 1.16;
	struct history h = { .n = 0 };
	one_location(&h, lv, 24, 5, 0.01);
	static struct collected c;
	struct perun_error err = { 0 };
	run(&h, NULL, &c, &err);
	char got[4096];
	changes_text(&c, got, sizeof(got));
	tap_is_str(got, "Degradation:./prog@v08",
		   "three 5%% steps: one creeping degradation dated at its first step");
	tap_ok(c.n == 1 && c.v[0].effect > 0.13 && c.v[0].effect < 0.19,
	       "measured from the level before it (effect %g)", c.v[0].effect);
	const char *fine[] = { "min-change", "0.04", NULL };
	expect_changes(&h, fine,
		       "Degradation:./prog@v08 Degradation:./prog@v12 Degradation:./prog@v16",
		       "with --min-change 0.04 each step is a change");
	history_free(&h);

	for (int v = 0; v < 21; v++)
		lv[v] = v < 8 ? 1.0 : v < 13 ? 1.0 + 0.04 * (v - 7) : 1.2;
	one_location(&h, lv, 21, 5, 0.01);
	run(&h, NULL, &c, &err);
	changes_text(&c, got, sizeof(got));
	tap_ok(!strcmp(got, "Degradation:./prog@v08") || !strcmp(got, "Degradation:./prog@v09"),
	       "a ramp of 4%% a version from v08: dated at its start, give or take one (%s)", got);
	history_free(&h);
	/* eight commits of +3% each: E-Divisive splits the ramp twice */
	for (int v = 0; v < 24; v++)
		lv[v] = v < 8 ? 1.0 : pow(1.03, v < 16 ? v - 7 : 8);
	one_location(&h, lv, 24, 5, 0.01);
	run(&h, NULL, &c, &err);
	changes_text(&c, got, sizeof(got));
	tap_ok(!strcmp(got, "Degradation:./prog@v08") || !strcmp(got, "Degradation:./prog@v09"),
	       "eight +3%% commits from v08: one change at its start, give or take one (%s)", got);
	tap_ok(c.n == 1 && c.v[0].effect > 0.2 && c.v[0].effect < 0.3,
	       "measured over the whole creep (effect %g, made 0.27)", c.n ? c.v[0].effect : NAN);
	history_free(&h);
}

static void test_noise(void)
{
	double lv[20];
	for (int v = 0; v < 20; v++)
		lv[v] = v < 10 ? 1.0 : 1.15;
	struct history h = { .n = 0 };
	one_location(&h, lv, 20, 40, 0.2);
	expect_changes(&h, NULL, "",
		       "a 15% step within 20% noise of the repetitions is not reported");
	const char *off[] = { "noise-factor", "0", NULL };
	expect_changes(&h, off, "Degradation:./prog@v10", "unless --noise-factor is 0");
	history_free(&h);
}

static void test_min_segment(void)
{
	double lv[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 20 };
	struct history h = { .n = 0 };
	one_location(&h, lv, 9, 3, 0.01);
	expect_changes(&h, NULL, "", "the newest version alone is no segment of 2");
	const char *one[] = { "min-segment", "1", NULL };
	expect_changes(&h, one, "SevereDegradation:./prog@v08",
		       "with --min-segment 1 it is a change");
	history_free(&h);

	/* binary splits cannot cut one version out of the middle: the energy
	 * statistic of every split of a lone spike is zero */
	double spike[9] = { 1, 1, 1, 1, 20, 1, 1, 1, 1 };
	one_location(&h, spike, 9, 3, 0);
	expect_changes(&h, one, "", "a lone spike in the middle is no change point");
	history_free(&h);
}

static void test_permutation_seed(void)
{
	double lv[40];
	for (int v = 0; v < 40; v++)
		lv[v] = v < 20 ? 1.0 : 1.3;
	struct history h = { .n = 0 };
	one_location(&h, lv, 40, 3, 0.1);
	const char *perm[] = { "test", "permutation", "seed", "7", NULL };
	static struct collected a, b;
	struct perun_error err = { 0 };
	run(&h, perm, &a, &err);
	run(&h, perm, &b, &err);
	char ta[4096], tb[4096];
	changes_text(&a, ta, sizeof(ta));
	changes_text(&b, tb, sizeof(tb));
	tap_ok(!strcmp(ta, "Degradation:./prog@v20") && !strcmp(ta, tb) && a.v[0].p == b.v[0].p &&
		       a.v[0].p == 1.0 / 200,
	       "permutations: the step at v20 with p = 1/200, twice the same (%s, %g)", ta,
	       a.v[0].p);
	const char *few[] = { "test", "permutation", "permutations", "19", "alpha", "0.01", NULL };
	expect_changes(&h, few, "", "19 permutations cannot show p <= 0.01");
	history_free(&h);
}

static void test_locations(void)
{
	static const char *const uids[] = { "hot", "cold", "late" };
	struct history h = { .n = 0 };
	for (size_t v = 0; v < 12; v++) {
		double lv[3] = { v < 6 ? 2.0 : 8.0, 1.0, v < 4 ? NAN : v < 8 ? 1.0 : 0.25 };
		history_add(&h, v, time_profile(uids, lv, 3, 4, 0.01));
	}
	expect_changes(&h, NULL, "SevereDegradation:hot@v06 SevereOptimization:late@v08",
		       "each location has its own history; a late one starts where it appears");
	history_free(&h);

	/* two profiles of one version are two runs of it */
	double lv[10];
	for (int v = 0; v < 10; v++)
		lv[v] = v < 5 ? 1.0 : 3.0;
	static const char *const uid[] = { "./prog" };
	for (size_t v = 0; v < 10; v++) {
		history_add(&h, v, time_profile(uid, &lv[v], 1, 3, 0.01));
		history_add(&h, v, time_profile(uid, &lv[v], 1, 3, 0.01));
	}
	expect_changes(&h, NULL, "SevereDegradation:./prog@v05",
		       "repeated versions are runs of one version");
	history_free(&h);

	/* more locations than the table starts with: it grows while profiles
	 * are read */
	static char names[300][16];
	static const char *many[300];
	double levels[300];
	for (size_t l = 0; l < 300; l++) {
		snprintf(names[l], sizeof(names[l]), "f%03zu", l);
		many[l] = names[l];
	}
	for (size_t v = 0; v < 8; v++) {
		for (size_t l = 0; l < 300; l++)
			levels[l] = l == 250 && v >= 4 ? 3.0 : 1.0;
		history_add(&h, v, time_profile(many, levels, 300, 2, 0.01));
	}
	expect_changes(&h, NULL, "SevereDegradation:f250@v04", "300 locations, one with a step");
	history_free(&h);
}

/* Per-call rows of a trace-like ("mixed") profile: auto sums them. */
static void test_sum(void)
{
	struct history h = { .n = 0 };
	struct perun_error err = { 0 };
	for (size_t v = 0; v < 10; v++) {
		struct perun_profile *p = perun_profile_new("mixed");
		int calls = v < 5 ? 10 : 100;
		for (int i = 0; i < calls; i++) {
			json_t *res =
				json_pack("{s:i, s:s, s:s, s:s}", "amount", 1000 + (i % 3), "uid",
					  "work", "type", "mixed", "subtype", "time delta");
			perun_profile_add_resource(p, res, &err);
			json_decref(res);
		}
		history_add(&h, v, p);
	}
	expect_changes(&h, NULL, "SevereDegradation:work@v05",
		       "auto sums the calls of non-time profiles: ten times the calls");
	const char *mean[] = { "aggregate", "mean", NULL };
	expect_changes(&h, mean, "", "while their mean stays");
	history_free(&h);
}

static void test_errors(void)
{
	double lv[6] = { 1, 1, 1, 2, 2, 2 };
	struct history h = { .n = 0 };
	one_location(&h, lv, 6, 3, 0.01);
	static struct collected c;
	struct perun_error err = { 0 };
	const char *alpha[] = { "alpha", "1.5", NULL };
	int rc = run(&h, alpha, &c, &err);
	tap_ok(rc == -PERUN_EINVAL && strstr(err.message, "'--alpha' must be between 0 and 1"),
	       "a bad --alpha is refused: %s", err.message);
	const char *seg[] = { "min-segment", "0", NULL };
	memset(&err, 0, sizeof(err));
	rc = run(&h, seg, &c, &err);
	tap_ok(rc == -PERUN_EINVAL && strstr(err.message, "'--min-segment'"),
	       "a bad --min-segment is refused: %s", err.message);
	const char *of[] = { "of", "order", NULL };
	memset(&err, 0, sizeof(err));
	rc = run(&h, of, &c, &err);
	tap_ok(rc == 0 && c.n == 1, "--of picks another key (order: one stable location)");

	/* The harness made the profile: the test edits its own. */
	json_t *res = json_object_get(perun_profile_json((struct perun_profile *)h.e[2].profile),
				      "resources");
	const char *key;
	json_t *cols;
	json_object_foreach(res, key, cols)
		json_array_set_new(json_object_get(cols, "amount"), 0, json_string("slow"));
	memset(&err, 0, sizeof(err));
	rc = run(&h, NULL, &c, &err);
	tap_ok(rc == -PERUN_EINVAL && strstr(err.message, "profile of v02: resource") &&
		       strstr(err.message, "'amount' is not a finite number"),
	       "a non-numeric value is refused by name: %s", err.message);
	history_free(&h);

	one_location(&h, lv, 6, 3, 0.01);
	struct perun_params *p = params_of(NULL);
	c.n = 0;
	c.fail_at = 1;
	memset(&err, 0, sizeof(err));
	rc = cpd_compare_series(h.e, h.n, p, collect, &c, &err);
	tap_ok(rc < 0 && err.code, "a failing emit fails the check: %s", err.message);
	c.fail_at = 0;
	memset(&err, 0, sizeof(err));
	tap_ok(cpd_compare_series(h.e, 0, p, collect, &c, &err) == 0,
	       "an empty history is no error");
	perun_params_free(p);
	history_free(&h);

	const struct perun_plugin *d = perun_plugin_cpd_describe();
	const struct perun_check_ops *ops = d->ops;
	tap_ok(d->kind == PERUN_KIND_CHECK && !ops->compare && ops->compare_series &&
		       ops->size == sizeof(struct perun_check_ops),
	       "the plugin provides compare_series only");
}

int main(void)
{
	noise_rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(noise_rng, 2026);
	test_step();
	test_up_and_back();
	test_stable_and_small();
	test_creep();
	test_noise();
	test_min_segment();
	test_permutation_seed();
	test_locations();
	test_sum();
	test_errors();
	gsl_rng_free(noise_rng);
	return tap_done();
}
