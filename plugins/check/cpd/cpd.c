/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cpd - change-point detection over the history of one configuration, in
 * the spirit of E-Divisive means (Matteson & James) as MongoDB's and
 * DataStax's Hunter use it.
 *
 * For every location (uid and subtype) the profiles of the series (oldest
 * first) give one value per version: the mean (or median) of its
 * repetitions, or the sum of its rows per run.  The series of values is
 *   1. split top-down where the energy statistic of the two parts is
 *      largest, while both parts keep --min-segment versions (with
 *      --test permutation only while the split is significant in a
 *      permutation test of the statistic);
 *   2. pruned bottom-up as Hunter merges: the change point with the worst
 *      p-value (Student's t-test, or the permutation test, between the
 *      versions from its left to its right neighbour) goes while it is
 *      above --alpha, then the one with the smallest relative change while
 *      that is below --min-change or below --noise-factor times the noise;
 *      each removal recomputes its neighbours;
 *   3. searched back to the previous change point for a creeping change:
 *      smaller steps the same way that lead up to it date it earlier, and
 *      consecutive change points with a creep the same way between them
 *      are one change, dated at its start.
 * Splits and tests work on log values when all are positive (performance
 * varies by factors), means and changes on the values.
 * Each remaining change point is a verdict naming the version that started
 * it, its effect size (relative change of the mean) and the noise it was
 * judged against (median relative spread of the repetitions within the
 * versions compared).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <perun/perun.h>

static const struct perun_option cpd_options[] = {
	{ "of", NULL, PERUN_OPTION_STRING, "amount", NULL, "<key>",
	  "resource key whose history is checked", 0 },
	{ "aggregate", NULL, PERUN_OPTION_CHOICE, "auto", "auto|mean|median|sum", NULL,
	  "one value per version: mean or median of the rows (repetitions), or the sum per run; "
	  "auto is mean for time profiles and sum otherwise",
	  0 },
	{ "min-segment", NULL, PERUN_OPTION_INT, "2", NULL, "<int>",
	  "fewest versions on each side of a change point", 0 },
	{ "min-change", NULL, PERUN_OPTION_FLOAT, "0.1", NULL, "<ratio>",
	  "smallest relative change of the mean that is reported (0.1 is 10%)", 0 },
	{ "alpha", NULL, PERUN_OPTION_FLOAT, "0.01", NULL, "<p>",
	  "significance level of a change point", 0 },
	{ "test", NULL, PERUN_OPTION_CHOICE, "ttest", "ttest|permutation", NULL,
	  "significance by Student's t-test (Hunter) or by permuting the versions (E-Divisive)",
	  0 },
	{ "permutations", NULL, PERUN_OPTION_INT, "199", NULL, "<int>",
	  "permutations of a permutation test", 0 },
	{ "seed", NULL, PERUN_OPTION_INT, "1", NULL, "<int>",
	  "seed of the permutations: equal seeds give equal verdicts", 0 },
	{ "noise-factor", NULL, PERUN_OPTION_FLOAT, "1.0", NULL, "<float>",
	  "a change must also exceed this multiple of the noise of the repetitions (0: off)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

enum aggregate { AGG_MEAN, AGG_MEDIAN, AGG_SUM };

struct cfg {
	const char *of;
	enum aggregate agg;
	size_t min_segment;
	double min_change, alpha, noise_factor;
	int permutation;
	size_t permutations;
	unsigned long seed;
};

/* ---- statistics over one location's series --------------------------------- */

/* The analysis of one series y[0..n) with the noise cv[0..n) (NaN: none). */
struct series {
	const struct cfg *cfg;
	const double *y, *cv;
	/* what the splits and tests see: log y when every value is positive,
	 * as performance varies by factors (a loaded machine slows every run
	 * alike), else y; means and changes are always of y */
	const double *ty;
	size_t n;
	gsl_rng *rng;
	double *scratch; /* 2 n */
};

/*
 * The split of y[0..n) with the largest energy statistic
 *   Q = nl nr / (nl + nr) * (2/(nl nr) sum|x - y| - mean within-left
 *       distance - mean within-right distance)
 * keeping m values on each side; O(n^2) by moving one value at a time
 * from the right part to the left.  Returns -inf when there is none.
 */
static double energy_best(const double *y, size_t n, size_t m, size_t *at)
{
	double wl = 0, wr = 0, b = 0, best = -INFINITY;
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			wr += fabs(y[i] - y[k]);
	for (size_t t = 0; t + 1 < n; t++) {
		double rl = 0, rr = 0;
		for (size_t i = 0; i < t; i++)
			rl += fabs(y[t] - y[i]);
		for (size_t j = t + 1; j < n; j++)
			rr += fabs(y[t] - y[j]);
		wl += rl;
		wr -= rr;
		b += rr - rl;
		double nl = (double)(t + 1), nr = (double)(n - t - 1);
		if (t + 1 < m || n - t - 1 < m)
			continue;
		double e = 2 * b / (nl * nr) - (nl >= 2 ? wl / (nl * (nl - 1) / 2) : 0) -
			   (nr >= 2 ? wr / (nr * (nr - 1) / 2) : 0);
		double q = nl * nr / (nl + nr) * e;
		if (q > best) {
			best = q;
			*at = t + 1;
		}
	}
	return best;
}

/* The energy statistic of the fixed split y[0..k) | y[k..n). */
static double energy_at(const double *y, size_t n, size_t k)
{
	double wl = 0, wr = 0, b = 0, nl = (double)k, nr = (double)(n - k);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double d = fabs(y[i] - y[j]);
			if (j < k)
				wl += d;
			else if (i >= k)
				wr += d;
			else
				b += d;
		}
	double e = 2 * b / (nl * nr) - (nl >= 2 ? wl / (nl * (nl - 1) / 2) : 0) -
		   (nr >= 2 ? wr / (nr * (nr - 1) / 2) : 0);
	return nl * nr / (nl + nr) * e;
}

/*
 * Permutation p-value of y[0..n) split at k (k == 0: the best split, as
 * E-Divisive tests it): (1 + #{permutations at least as extreme}) /
 * (1 + permutations).  Stops once the p-value cannot reach level; what it
 * returns then is a lower bound, still above level.
 */
static double permutation_p(struct series *s, const double *y, size_t n, size_t k, double q,
			    double level)
{
	const struct cfg *c = s->cfg;
	double *buf = s->scratch, bound = level * (double)(c->permutations + 1);
	size_t hits = 0;
	memcpy(buf, y, n * sizeof(*buf));
	for (size_t r = 0; r < c->permutations; r++) {
		gsl_ran_shuffle(s->rng, buf, n, sizeof(*buf));
		size_t at;
		double qp = k ? energy_at(buf, n, k) : energy_best(buf, n, c->min_segment, &at);
		/* once the p-value is above alpha, more permutations only raise it */
		if (qp >= q && (double)(++hits + 1) > bound)
			break;
	}
	return (double)(hits + 1) / (double)(c->permutations + 1);
}

static void mean_var(const double *y, size_t n, double *mean, double *var)
{
	double m = 0, v = 0;
	for (size_t i = 0; i < n; i++)
		m += y[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		v += (y[i] - m) * (y[i] - m);
	*mean = m;
	*var = n > 1 ? v / (double)(n - 1) : 0;
}

/* Student's two-sample t-test with pooled variance, two-sided. */
static double ttest_p(const double *l, size_t nl, const double *r, size_t nr)
{
	double ml, vl, mr, vr;
	mean_var(l, nl, &ml, &vl);
	mean_var(r, nr, &mr, &vr);
	if (nl + nr <= 2)
		return 1.0;
	double df = (double)(nl + nr - 2);
	double sp2 = ((double)(nl - 1) * vl + (double)(nr - 1) * vr) / df;
	if (sp2 <= 0)
		return ml == mr ? 1.0 : 0.0;
	double t = (mr - ml) / sqrt(sp2 * (1.0 / (double)nl + 1.0 / (double)nr));
	return fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(t), df));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of the finite values of v[0..n) (reordered), NaN when none. */
static double median_finite(double *v, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	if (!m)
		return NAN;
	qsort(v, m, sizeof(*v), cmp_double);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* A change point at k, judged between its neighbours a and b. */
struct cp {
	size_t k;
	double p, ml, mr, magnitude, noise;
	size_t onset;  /* where a creeping change began (k for a step) */
	double before; /* the mean before the onset */
};

/* Hunter's magnitude: the larger of the forward and backward relative
 * changes, so a drop back to the old level weighs as much as the rise. */
static double magnitude(double ml, double mr)
{
	double f = ml != 0 ? fabs(mr / ml - 1) : (mr != 0 ? INFINITY : 0);
	double b = mr != 0 ? fabs(ml / mr - 1) : (ml != 0 ? INFINITY : 0);
	return fmax(f, b);
}

static void judge(struct series *s, struct cp *c, size_t a, size_t b)
{
	const double *y = s->y + a, *ty = s->ty + a;
	size_t nl = c->k - a, nr = b - c->k;
	double vl, vr;
	mean_var(y, nl, &c->ml, &vl);
	mean_var(y + nl, nr, &c->mr, &vr);
	c->magnitude = magnitude(c->ml, c->mr);
	if (s->cfg->permutation)
		c->p = permutation_p(s, ty, nl + nr, nl, energy_at(ty, nl + nr, nl), s->cfg->alpha);
	else
		c->p = ttest_p(ty, nl, ty + nl, nr);
	double *v = s->scratch + s->n;
	memcpy(v, s->cv + a, (b - a) * sizeof(*v));
	c->noise = median_finite(v, b - a);
}

/*
 * Hunter's first pass is weaker than the final test: a level shift in the
 * middle of a segment makes no single split extreme, so splits are kept at
 * a relaxed level and the merge judges them between their neighbours.
 */
static double first_pass(const struct cfg *c)
{
	return c->alpha < 0.05 ? c->alpha * 10 : c->alpha < 0.5 ? c->alpha * 2 : c->alpha;
}

/* Top-down splitting of y[a..b); appends the split points to *cps. */
static int split(struct series *s, size_t a, size_t b, size_t **cps, size_t *n)
{
	size_t m = s->cfg->min_segment, k;
	if (b - a < 2 * m)
		return 0;
	double q = energy_best(s->ty + a, b - a, m, &k);
	if (!isfinite(q) || q <= 0)
		return 0;
	if (s->cfg->permutation &&
	    permutation_p(s, s->ty + a, b - a, 0, q, first_pass(s->cfg)) > first_pass(s->cfg))
		return 0;
	size_t *grown = realloc(*cps, (*n + 1) * sizeof(**cps));
	if (!grown)
		return -1;
	*cps = grown;
	(*cps)[(*n)++] = a + k;
	if (split(s, a, a + k, cps, n))
		return -1;
	return split(s, a + k, b, cps, n);
}

static int size_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	return a < b ? -1 : a > b;
}

/* How far a change point is below its threshold (> 1: it passes). */
static double strength(const struct series *s, const struct cp *c)
{
	double t = s->cfg->min_change;
	if (isfinite(c->noise) && s->cfg->noise_factor * c->noise > t)
		t = s->cfg->noise_factor * c->noise;
	return t > 0 ? c->magnitude / t : (c->magnitude > 0 ? INFINITY : 0);
}

/* Hunter's merge: drop the weakest change point until all pass. */
static void prune(struct series *s, struct cp *cps, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		judge(s, &cps[i], i ? cps[i - 1].k : 0, i + 1 < *n ? cps[i + 1].k : s->n);
	while (*n) {
		size_t worst = 0, weakest = 0;
		for (size_t i = 1; i < *n; i++) {
			if (cps[i].p > cps[worst].p)
				worst = i;
			if (strength(s, &cps[i]) < strength(s, &cps[weakest]))
				weakest = i;
		}
		size_t drop;
		if (cps[worst].p > s->cfg->alpha)
			drop = worst;
		else if (strength(s, &cps[weakest]) <= 1)
			drop = weakest;
		else
			return;
		memmove(&cps[drop], &cps[drop + 1], (*n - drop - 1) * sizeof(*cps));
		(*n)--;
		for (size_t i = drop ? drop - 1 : 0; i <= drop && i < *n; i++)
			judge(s, &cps[i], i ? cps[i - 1].k : 0, i + 1 < *n ? cps[i + 1].k : s->n);
	}
}

/* The change points of one series by split and prune; *out in order. */
static int find(struct series *s, struct cp **out, size_t *nout)
{
	size_t *ks = NULL, nk = 0;
	*out = NULL;
	*nout = 0;
	if (split(s, 0, s->n, &ks, &nk)) {
		free(ks);
		return -1;
	}
	if (!nk)
		return 0;
	qsort(ks, nk, sizeof(*ks), size_cmp);
	struct cp *cps = calloc(nk, sizeof(*cps));
	if (!cps) {
		free(ks);
		return -1;
	}
	for (size_t i = 0; i < nk; i++)
		cps[i].k = ks[i];
	free(ks);
	prune(s, cps, &nk);
	*out = cps;
	*nout = nk;
	return 0;
}

/*
 * A creeping change: steps each smaller than --min-change (but significant,
 * above the noise and at least a quarter of --min-change) that lead up to
 * the change point at c->k from the previous one at a.  The change is then dated to the first of
 * the steps that go the same way in an unbroken run up to c->k, and measured from the level before
 * it.
 */
static int find_onset(struct series *s, struct cp *c, size_t a)
{
	struct cfg sub_cfg = *s->cfg;
	size_t len = c->k - a;
	/* a step of the creep: a quarter of a reported change, not less, so
	 * the wobble of a level without repetitions is no onset; and as the
	 * search tries every split of the segment, its level is divided by
	 * their number (Bonferroni) */
	sub_cfg.min_change = s->cfg->min_change / 4;
	sub_cfg.alpha = s->cfg->alpha / (double)(len > 1 ? len : 1);
	struct series sub = { &sub_cfg, s->y + a, s->cv + a, s->ty + a, len, s->rng, s->scratch };
	struct cp *steps;
	size_t n;
	c->onset = c->k;
	c->before = c->ml;
	if (find(&sub, &steps, &n))
		return -1;
	/* each step of the run goes the same way and is a tenth of the change
	 * at least: a step in the noise before a large change is no creep */
	int up = c->mr > c->ml;
	double total = fabs(c->mr - c->ml);
	for (size_t i = n; i-- > 0 && (steps[i].mr > steps[i].ml) == up &&
			   fabs(steps[i].mr - steps[i].ml) >= 0.1 * total;)
		c->onset = a + steps[i].k;
	if (c->onset != c->k) {
		double var;
		mean_var(s->y + a, c->onset - a, &c->before, &var);
	}
	free(steps);
	return 0;
}

/*
 * Do the versions [a, b) between two change points the same way keep
 * moving that way?  Then both are steps of one creep.  Three of four of
 * its versions must move on that way and its halves differ that way by a
 * quarter of --min-change and the noise at least; a plateau between two
 * real steps does neither.
 */
static int creeps_between(const struct series *s, size_t a, size_t b, int up, double noise)
{
	if (b - a < 2)
		return 1; /* two steps one version apart */
	/* a ramp, not a plateau: three of four versions move on that way */
	size_t ups = 0;
	for (size_t i = a; i + 1 < b; i++)
		ups += (s->y[i + 1] > s->y[i]) == up;
	if (4 * ups < 3 * (b - a - 1))
		return 0;
	size_t half = (b - a) / 2;
	double ml, mr, var;
	mean_var(s->y + a, half, &ml, &var);
	mean_var(s->y + a + half, b - a - half, &mr, &var);
	double floor = fmax(s->cfg->min_change / 4, isfinite(noise) ? noise : 0);
	return (mr > ml) == up && magnitude(ml, mr) >= floor;
}

/*
 * The change points of one series with their onsets; *out in order.
 * Consecutive change points of one creep become one, dated at its start
 * and measured from the level before it (E-Divisive splits a ramp at
 * more than one place).
 */
static int detect(struct series *s, struct cp **out, size_t *nout)
{
	if (find(s, out, nout))
		return -1;
	for (size_t i = 0; i < *nout; i++)
		if (find_onset(s, &(*out)[i], i ? (*out)[i - 1].k : 0)) {
			free(*out);
			*out = NULL;
			return -1;
		}
	struct cp *c = *out;
	for (size_t i = *nout; i-- > 1;) {
		int up = c[i].mr > c[i].ml;
		if ((c[i - 1].mr > c[i - 1].ml) != up ||
		    !creeps_between(s, c[i - 1].k, c[i].k, up, c[i].noise))
			continue;
		c[i].onset = c[i - 1].onset;
		c[i].before = c[i - 1].before;
		memmove(&c[i - 1], &c[i], (*nout - i) * sizeof(*c));
		(*nout)--;
	}
	return 0;
}

/* ---- the series of every location ------------------------------------------ */

/* Per location and version: the value, its repetitions' spread. */
struct location {
	char *uid, *type;
	double *value, *cv; /* per version; NaN when absent */
	double *reps;	    /* this version's repetitions */
	size_t nreps, capreps;
	double run_sum; /* sum of this profile's rows (sum) */
	size_t run_rows;
	/* this version's spread within each resource type: a time profile
	 * merges the runs of several workloads, whose sizes are no noise */
	double *cvs;
	size_t ncvs, capcvs;
};

struct table {
	const struct cfg *cfg;
	json_t *index; /* "uid\037type" -> position */
	struct location *locs;
	size_t n, cap;
	size_t nversions;
	const char **versions;
};

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->locs[i].uid);
		free(t->locs[i].type);
		free(t->locs[i].value);
		free(t->locs[i].cv);
		free(t->locs[i].reps);
		free(t->locs[i].cvs);
	}
	free(t->locs);
	free(t->versions);
	json_decref(t->index);
}

static struct location *location_of(struct table *t, const char *uid, const char *type)
{
	size_t ul = strlen(uid), tl = strlen(type);
	char stack[512], *key = ul + tl + 2 <= sizeof(stack) ? stack : malloc(ul + tl + 2);
	if (!key)
		return NULL;
	memcpy(key, uid, ul);
	key[ul] = '\037';
	memcpy(key + ul + 1, type, tl + 1);
	json_t *pos = json_object_get(t->index, key);
	struct location *l = NULL;
	if (pos) {
		l = &t->locs[json_integer_value(pos)];
		goto out;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct location *g = realloc(t->locs, cap * sizeof(*g));
		if (!g)
			goto out;
		t->locs = g;
		t->cap = cap;
	}
	struct location *nl = &t->locs[t->n];
	memset(nl, 0, sizeof(*nl));
	nl->uid = strdup(uid);
	nl->type = strdup(type);
	nl->value = malloc(t->nversions * sizeof(double));
	nl->cv = malloc(t->nversions * sizeof(double));
	if (!nl->uid || !nl->type || !nl->value || !nl->cv ||
	    json_object_set_new(t->index, key, json_integer((json_int_t)t->n))) {
		free(nl->uid);
		free(nl->type);
		free(nl->value);
		free(nl->cv);
		goto out;
	}
	for (size_t v = 0; v < t->nversions; v++)
		nl->value[v] = nl->cv[v] = NAN;
	l = nl;
	t->n++;
out:
	if (key != stack)
		free(key);
	return l;
}

static int add_rep(struct location *l, double v)
{
	if (l->nreps == l->capreps) {
		size_t cap = l->capreps ? l->capreps * 2 : 16;
		double *g = realloc(l->reps, cap * sizeof(*g));
		if (!g)
			return -1;
		l->reps = g;
		l->capreps = cap;
	}
	l->reps[l->nreps++] = v;
	return 0;
}

static int add_cv(struct location *l, double cv)
{
	if (l->ncvs == l->capcvs) {
		size_t cap = l->capcvs ? l->capcvs * 2 : 8;
		double *g = realloc(l->cvs, cap * sizeof(*g));
		if (!g)
			return -1;
		l->cvs = g;
		l->capcvs = cap;
	}
	l->cvs[l->ncvs++] = cv;
	return 0;
}

/* A persistent or per-row key of a resource as text; NULL when absent. */
static char *text_dup(const struct perun_jv *v)
{
	if (!v || perun_jv_type(v) == PERUN_JV_NULL)
		return NULL;
	return perun_jv_flatten_dup(v);
}

/* Add the rows of one profile to the current version of every location. */
static int add_profile(struct table *t, const struct perun_profile *profile, const char *version,
		       struct perun_error *err)
{
	const char *ptype = perun_profile_type(profile);
	struct perun_type_list types;
	size_t *touched = NULL; /* indices: t->locs moves as it grows */
	size_t ntouched = 0;
	int rc = perun_profile_types(profile, &types, err);
	if (rc)
		return rc;
	for (size_t k = 0; k < types.n; k++) {
		const char *key = types.types[k].id;
		const struct perun_jv *pers = types.types[k].persistent;
		const struct perun_jv *pv = perun_jv_get(pers, t->cfg->of);
		const struct perun_jv *col = perun_jv_get(types.types[k].columns, t->cfg->of);
		const struct perun_jv *st = perun_jv_get(pers, "subtype");
		if (!st)
			st = perun_jv_get(pers, "type");
		char *uid = text_dup(perun_jv_get(pers, "uid"));
		if (!uid || !(pv || col)) { /* nothing to measure here */
			free(uid);
			continue;
		}
		char *type = st ? text_dup(st) : strdup(*ptype ? ptype : "-");
		struct location *l = type ? location_of(t, uid, type) : NULL;
		free(uid);
		free(type);
		if (!l)
			goto nomem;
		if (!l->run_rows) {
			size_t *g = realloc(touched, (ntouched + 1) * sizeof(*g));
			if (!g)
				goto nomem;
			touched = g;
			touched[ntouched++] = (size_t)(l - t->locs);
		}
		size_t rows = pv ? 1 : perun_jv_type(col) == PERUN_JV_ARRAY ? perun_jv_len(col) : 0;
		const struct perun_jv *v = pv ? pv : col + 1;
		double tmean = 0, tm2 = 0; /* Welford over this type's rows */
		for (size_t i = 0; i < rows; i++, v = pv ? pv : perun_jv_skip(v)) {
			double d;
			if (perun_jv_number(v, &d) || !isfinite(d)) {
				rc = perun_error_set(
					err, PERUN_EINVAL,
					"profile of %.7s: resource '%s': '%s' is not a "
					"finite number",
					version, key, t->cfg->of);
				goto out;
			}
			l->run_rows++;
			double delta = d - tmean;
			tmean += delta / (double)(i + 1);
			tm2 += delta * (d - tmean);
			if (t->cfg->agg == AGG_SUM)
				l->run_sum += d;
			else if (add_rep(l, d))
				goto nomem;
		}
		if (t->cfg->agg != AGG_SUM && rows >= 2 && tmean != 0 &&
		    add_cv(l, sqrt(tm2 / (double)(rows - 1)) / fabs(tmean)))
			goto nomem;
	}
	for (size_t i = 0; i < ntouched; i++) {
		struct location *l = &t->locs[touched[i]];
		if (t->cfg->agg == AGG_SUM && add_rep(l, l->run_sum))
			goto nomem;
		l->run_sum = 0;
		l->run_rows = 0;
	}
	goto out;
nomem:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
out:
	free(touched);
	perun_type_list_release(&types);
	return rc;
}

/* Close the current version v: its value and noise per location. */
static void close_version(struct table *t, size_t v)
{
	for (size_t i = 0; i < t->n; i++) {
		struct location *l = &t->locs[i];
		if (!l->nreps)
			continue;
		double mean, var;
		mean_var(l->reps, l->nreps, &mean, &var);
		if (t->cfg->agg == AGG_MEDIAN) {
			qsort(l->reps, l->nreps, sizeof(double), cmp_double);
			size_t n = l->nreps;
			l->value[v] =
				n % 2 ? l->reps[n / 2] : (l->reps[n / 2 - 1] + l->reps[n / 2]) / 2;
		} else {
			l->value[v] = mean;
		}
		l->cv[v] = l->nreps >= 2 && mean != 0 ? sqrt(var) / fabs(mean) : NAN;
		if (l->ncvs > 1) /* several workloads: the spread within each */
			l->cv[v] = median_finite(l->cvs, l->ncvs);
		l->nreps = 0;
		l->ncvs = 0;
	}
}

/* Python's str() of x rounded to 6 significant digits. */
static void value_text(double x, char out[32])
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.6g", x);
	perun_python_float_str(strtod(buf, NULL), out);
}

/* The verdicts of one location; analyse 0 when no change is possible. */
static int emit_location(struct series *s, const struct location *l, const struct table *t,
			 const size_t *vidx, int analyse, perun_check_emit_fn emit, void *data)
{
	struct cp *cps = NULL;
	size_t n = 0;
	if (analyse && detect(s, &cps, &n))
		return -PERUN_EGENERIC;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct cp *c = &cps[i];
		double ratio = c->mr / c->before;
		enum perun_change res = c->mr > c->before
						? (ratio >= 2 ? PERUN_CHANGE_SEVERE_DEGRADATION
							      : PERUN_CHANGE_DEGRADATION)
						: (ratio <= 0.5 ? PERUN_CHANGE_SEVERE_OPTIMIZATION
								: PERUN_CHANGE_OPTIMIZATION);
		char from[32], to[32];
		value_text(c->before, from);
		value_text(c->mr, to);
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = res,
			.type = l->type,
			.location = l->uid,
			.from_baseline = from,
			.to_target = to,
			.rate_degradation = ratio,
			.confidence_type = "p_value",
			.confidence_rate = c->p,
			.rate_degradation_relative = 0.0,
			.effect_size = c->before != 0 ? ratio - 1 : NAN,
			.noise = c->noise,
			.version = t->versions[vidx[c->onset]],
		};
		if (emit(&d, data))
			rc = -PERUN_EGENERIC;
	}
	if (!n && !rc) {
		/* one No Change per location: oldest against newest */
		double *v = s->scratch + s->n;
		memcpy(v, s->cv, s->n * sizeof(*v));
		char from[32], to[32];
		value_text(s->y[0], from);
		value_text(s->y[s->n - 1], to);
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = PERUN_CHANGE_NO_CHANGE,
			.type = l->type,
			.location = l->uid,
			.from_baseline = from,
			.to_target = to,
			.rate_degradation = s->y[0] != 0 ? s->y[s->n - 1] / s->y[0] : NAN,
			.confidence_type = "no",
			.confidence_rate = 0.0,
			.rate_degradation_relative = 0.0,
			.effect_size = s->y[0] != 0 ? s->y[s->n - 1] / s->y[0] - 1 : NAN,
			.noise = median_finite(v, s->n),
			.version = NULL,
		};
		if (emit(&d, data))
			rc = -PERUN_EGENERIC;
	}
	free(cps);
	return rc;
}

/* Does no split reach min-change? (max/min - 1 bounds every magnitude) */
static int too_flat(const double *y, size_t n, double min_change)
{
	double lo = y[0], hi = y[0];
	for (size_t i = 1; i < n; i++) {
		lo = fmin(lo, y[i]);
		hi = fmax(hi, y[i]);
	}
	return lo > 0 && hi / lo - 1 < min_change;
}

static int read_cfg(const struct perun_params *params, const struct perun_profile *newest,
		    struct cfg *c, struct perun_error *err)
{
	const char *agg = perun_params_string(params, "aggregate", "auto");
	long long ms = perun_params_int(params, "min-segment", 2);
	long long perms = perun_params_int(params, "permutations", 199);
	c->of = perun_params_string(params, "of", "amount");
	c->min_change = perun_params_float(params, "min-change", 0.1);
	c->alpha = perun_params_float(params, "alpha", 0.01);
	c->noise_factor = perun_params_float(params, "noise-factor", 1.0);
	c->permutation = !strcmp(perun_params_string(params, "test", "ttest"), "permutation");
	c->seed = (unsigned long)perun_params_int(params, "seed", 1);
	if (!strcmp(agg, "auto"))
		c->agg = !strcmp(perun_profile_type(newest), "time") ? AGG_MEAN : AGG_SUM;
	else
		c->agg = !strcmp(agg, "median") ? AGG_MEDIAN
			 : !strcmp(agg, "sum")	? AGG_SUM
						: AGG_MEAN;
	if (ms < 1 || ms > 1000000)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--min-segment' must be 1 or more");
	if (!(c->alpha > 0 && c->alpha < 1))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--alpha' must be between 0 and 1, not %g",
				       c->alpha);
	if (!(c->min_change >= 0))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--min-change' must not be negative");
	if (!(c->noise_factor >= 0))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--noise-factor' must not be negative");
	if (perms < 1 || perms > 1000000)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--permutations' must be between 1 and 1000000");
	c->min_segment = (size_t)ms;
	c->permutations = (size_t)perms;
	return 0;
}

/* FNV-1a: each location's permutations depend on its name, not its order. */
static unsigned long name_hash(const char *a, const char *b)
{
	uint32_t h = 2166136261u;
	for (const char *s = a; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h = (h ^ 0x1f) * 16777619u;
	for (const char *s = b; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int cpd_compare_series(const struct perun_check_series_entry *series, size_t count,
			      const struct perun_params *params, perun_check_emit_fn emit,
			      void *data, struct perun_error *err)
{
	struct cfg cfg;
	struct table t = { &cfg, json_object(), NULL, 0, 0, 0, NULL };
	double *y = NULL, *ty = NULL, *cv = NULL, *scratch = NULL;
	size_t *vidx = NULL;
	gsl_rng *rng = NULL;
	int rc;
	if (!count) {
		json_decref(t.index);
		return 0;
	}
	rc = read_cfg(params, series[count - 1].profile, &cfg, err);
	if (rc)
		goto out;
	/* consecutive entries of one version are one version's runs */
	t.versions = malloc(count * sizeof(*t.versions));
	if (!t.index || !t.versions)
		goto nomem;
	for (size_t i = 0; i < count; i++)
		if (!t.nversions || strcmp(t.versions[t.nversions - 1], series[i].version))
			t.versions[t.nversions++] = series[i].version;
	for (size_t i = 0, v = 0; i < count; i++) {
		rc = add_profile(&t, series[i].profile, series[i].version, err);
		if (rc)
			goto out;
		if (i + 1 == count || strcmp(series[i + 1].version, series[i].version))
			close_version(&t, v++);
	}
	size_t nv = t.nversions;
	y = malloc((nv + 1) * sizeof(*y));
	ty = malloc((nv + 1) * sizeof(*ty));
	cv = malloc((nv + 1) * sizeof(*cv));
	scratch = malloc((2 * nv + 1) * sizeof(*scratch));
	vidx = malloc((nv + 1) * sizeof(*vidx));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!y || !ty || !cv || !scratch || !vidx || !rng)
		goto nomem;
	for (size_t i = 0; i < t.n && !rc; i++) {
		const struct location *l = &t.locs[i];
		size_t n = 0;
		for (size_t v = 0; v < nv; v++)
			if (!isnan(l->value[v])) {
				y[n] = l->value[v];
				cv[n] = l->cv[v];
				vidx[n++] = v;
			}
		if (!n)
			continue;
		/* the cheap verdict when no split can reach min-change */
		int analyse = n >= 2 * cfg.min_segment && !too_flat(y, n, cfg.min_change);
		gsl_rng_set(rng, cfg.seed ^ name_hash(l->uid, l->type));
		int positive = 1;
		for (size_t k = 0; k < n; k++)
			positive &= y[k] > 0;
		for (size_t k = 0; k < n; k++)
			ty[k] = positive ? log(y[k]) : y[k];
		struct series s = { &cfg, y, cv, ty, n, rng, scratch };
		rc = emit_location(&s, l, &t, vidx, analyse, emit, data);
	}
	if (rc && !err->code)
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot report a change");
	goto out;
nomem:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
out:
	gsl_rng_free(rng);
	free(y);
	free(ty);
	free(cv);
	free(scratch);
	free(vidx);
	table_release(&t);
	return rc;
}

static const struct perun_check_ops cpd_ops = {
	.size = sizeof(struct perun_check_ops),
	.compare = NULL,
	.compare_series = cpd_compare_series,
	.method = "change_point_detection",
	.title = "change point detection",
};

PERUN_PLUGIN_DEFINE(
	cpd, PERUN_KIND_CHECK, .version = "1.0",
	.summary = "change points in the history of a configuration (E-Divisive/Hunter)",
	.options = cpd_options, .ops = &cpd_ops);
