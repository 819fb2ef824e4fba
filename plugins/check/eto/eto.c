/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eto - Python Perun's exclusive_time_outliers check: outliers among the
 * per-function deltas of exclusive (self) time between two trace profiles.
 *
 * Steps, as upstream does them with pandas:
 *   1. per profile, sum "exclusive" per (uid, location) (rows without a uid
 *      or location are dropped, missing times count 0), ns -> ms;
 *      keep the locations matching degradation.location_filter;
 *   2. rename similar locations of the two sides to a common name
 *      (difflib.get_close_matches and upstream's "common prefix");
 *   3. left-join target <- baseline on (uid, location): delta = target -
 *      baseline (missing = 0), share = delta / sum(target) * 100; sort by
 *      delta, descending;
 *   4. flag outliers of the deltas: modified z-score > 3.5 (Severe),
 *      outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] (Degradation/Optimization),
 *      beyond 2 standard deviations of the other deltas (Maybe); functions
 *      without a baseline are NotInBaseline;
 *   5. skip rows whose |share| is below degradation.cutoff, then report a
 *      Total record per location.
 * Beyond upstream (unless --upstream): exclusive times in the unit the header's units name
 * for "exclusive" (else upstream's ns), the collector's !...! pseudo
 * resources left out, and a Total record of under 5% change is NoChange.
 * The arithmetic follows numpy/pandas operation by operation (pairwise
 * sums, Kahan group sums, linear quantiles) so the numbers are upstream's.
 */
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>
#include <perun/points.h>

static const struct perun_option eto_options[] = {
	{ "cutoff", NULL, PERUN_OPTION_FLOAT, "0.0", NULL, "<percent>",
	  "skip functions whose share of the total change is below this (degradation.cutoff)", 0 },
	{ "location-filter", NULL, PERUN_OPTION_STRING, "*", NULL, "<regex>",
	  "check only locations (binaries) matching this POSIX extended regex; '*' is all "
	  "(degradation.location_filter)",
	  0 },
	{ "with-removed", NULL, PERUN_OPTION_BOOL, "false", NULL, NULL,
	  "also report functions missing in the target as Not in Target (upstream drops them)", 0 },
	{ "upstream", NULL, PERUN_OPTION_BOOL, "false", NULL, NULL,
	  "verdicts exactly as Python Perun gives them: !ProcessResource! records as functions "
	  "and a Total record of any change, even none",
	  0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

#define MZS_CORRECTION 0.6745
#define MZS_CUTOFF     3.5
#define IQR_CUTOFF     1.5
#define STDDEV_CUTOFF  2.0
/* Upstream's exclusive times are nanoseconds; a profile naming the unit
 * of "exclusive" in its header's units (ours: "us") is read in it. */
#define NS_TO_MS 1000000.0
/* A Total record under this relative change of a location's exclusive
 * time is no change: upstream reports every sum, even +0.001%. */
#define TOTAL_MIN_CHANGE 0.05

/* ---- numpy's and pandas' arithmetic -------------------------------------- */

/* A pandas group sum: Kahan summation skipping NaN. */
struct kahan {
	double sum, comp;
};

static void kahan_add(struct kahan *k, double v)
{
	if (isnan(v))
		return;
	double y = v - k->comp;
	double t = k->sum + y;
	k->comp = t - k->sum - y;
	k->sum = t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* numpy.median of sorted values. */
static double sorted_median(const double *s, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return s[n / 2];
	return (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

/* numpy.percentile(..., method="linear") of sorted values, q in [0, 1]. */
static double eto_np_quantile(const double *s, size_t n, double q)
{
	if (!n)
		return NAN;
	double index = (double)n * q + (1.0 + q * (1.0 - 1.0 - 1.0)) - 1.0;
	double prev = floor(index);
	size_t lo = prev < 0 ? 0 : (size_t)prev;
	size_t hi = lo + 1 < n ? lo + 1 : n - 1;
	if (lo > n - 1)
		lo = n - 1;
	double t = index - prev, a = s[lo], b = s[hi];
	double diff = b - a;
	return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/* pandas' Series.std() (ddof 1) without bottleneck: two passes of pairwise
 * sums. */
static double np_std(const double *v, size_t n, double *tmp)
{
	if (n <= 1)
		return NAN;
	double avg = perun_sum_pairwise(v, n) / (double)n;
	for (size_t i = 0; i < n; i++)
		tmp[i] = (avg - v[i]) * (avg - v[i]);
	return sqrt(perun_sum_pairwise(tmp, n) / (double)(n - 1));
}

/* Python's round(x, nd) of a double: correctly rounded through the decimal
 * text, as glibc's printf rounds the exact binary value. */
static double py_round(double x, int nd)
{
	if (!isfinite(x))
		return x;
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*f", nd, x);
	return strtod(buf, NULL);
}

/* ---- difflib ------------------------------------------------------------ */

/* A string as its code points (UTF-8 decoded; a stray byte is one point). */
struct cps {
	uint32_t *p;
	size_t n;
};

static int cps_of(const char *s, struct cps *out)
{
	size_t len = strlen(s);
	out->p = malloc((len + 1) * sizeof(*out->p));
	if (!out->p)
		return -1;
	out->n = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		unsigned c = u[i];
		size_t k = c >= 0xf0 && c < 0xf8   ? 3
			   : c >= 0xe0 && c < 0xf0 ? 2
			   : c >= 0xc0 && c < 0xe0 ? 1
						   : 0;
		uint32_t cp = k ? c & (0x3fu >> k) : c;
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= len || (u[i + j] & 0xc0) != 0x80) {
				cp = c; /* malformed: the byte alone */
				k = 0;
				break;
			}
			cp = (cp << 6) | (u[i + j] & 0x3f);
		}
		out->p[out->n++] = cp;
		i += k + 1;
	}
	return 0;
}

/*
 * difflib.SequenceMatcher(None, a, b).ratio(): matches of the recursive
 * longest-match blocks.  b2j is b's index; with autojunk, for len(b) >= 200
 * the elements occurring more than len(b)/100 + 1 times are "popular" and
 * never start a match.  prev/cur are scratch rows of lb + 1 entries.
 */
struct matcher {
	const struct cps *a, *b;
	unsigned char *popular; /* per index of b */
	size_t *prev, *cur;
};

static void longest_match(struct matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi,
			  size_t *bi, size_t *bj, size_t *bk)
{
	const uint32_t *a = m->a->p, *b = m->b->p;
	size_t besti = alo, bestj = blo, bestsize = 0;
	size_t *prev = m->prev, *cur = m->cur;
	for (size_t j = blo; j <= bhi; j++)
		prev[j] = 0;
	for (size_t i = alo; i < ahi; i++) {
		cur[blo] = 0;
		for (size_t j = blo; j < bhi; j++) {
			/* index j + 1 holds the run ending at b[j] */
			if (b[j] != a[i] || m->popular[j]) {
				cur[j + 1] = 0;
				continue;
			}
			size_t k = cur[j + 1] = prev[j] + 1;
			if (k > bestsize) {
				besti = i + 1 - k;
				bestj = j + 1 - k;
				bestsize = k;
			}
		}
		size_t *t = prev;
		prev = cur;
		cur = t;
	}
	while (besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1]) {
		besti--;
		bestj--;
		bestsize++;
	}
	while (besti + bestsize < ahi && bestj + bestsize < bhi &&
	       a[besti + bestsize] == b[bestj + bestsize])
		bestsize++;
	*bi = besti;
	*bj = bestj;
	*bk = bestsize;
}

static size_t matched(struct matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi)
{
	size_t i, j, k;
	if (alo >= ahi || blo >= bhi)
		return 0;
	longest_match(m, alo, ahi, blo, bhi, &i, &j, &k);
	if (!k)
		return 0;
	return k + matched(m, alo, i, blo, j) + matched(m, i + k, ahi, j + k, bhi);
}

/* ratio() of SequenceMatcher(None, a, b); -1 without memory. */
static double eto_difflib_ratio(const struct cps *a, const struct cps *b)
{
	size_t t = a->n + b->n;
	if (!t)
		return 1.0;
	struct matcher m = { a, b, calloc(b->n + 1, 1), malloc((b->n + 1) * sizeof(size_t)),
			     malloc((b->n + 1) * sizeof(size_t)) };
	double r = -1;
	if (!m.popular || !m.prev || !m.cur)
		goto out;
	if (b->n >= 200) {
		size_t ntest = b->n / 100 + 1;
		for (size_t j = 0; j < b->n; j++) {
			size_t count = 0;
			for (size_t k = 0; k < b->n; k++)
				count += b->p[k] == b->p[j];
			m.popular[j] = count > ntest;
		}
	}
	r = 2.0 * (double)matched(&m, 0, a->n, 0, b->n) / (double)t;
out:
	free(m.popular);
	free(m.prev);
	free(m.cur);
	return r;
}

static int cps_cmp(const struct cps *a, const struct cps *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (a->p[i] != b->p[i])
			return a->p[i] < b->p[i] ? -1 : 1;
	return a->n < b->n ? -1 : a->n > b->n;
}

/* ---- the difference profile --------------------------------------------- */

struct func {
	const char *uid, *loc; /* borrowed from the profile or owned by names */
	double excl;	       /* ms */
};

struct side {
	struct func *f;
	size_t n;
	char **owned; /* flattened non-string uids and locations */
	size_t nowned;
};

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->f);
	memset(s, 0, sizeof(*s));
}

/* A key of a resource type's rows: persistent first, as Profile.all_resources
 * lets the resource_type_map override the columns.  Returns the text, owned
 * by s (a profile's values may be gone with its type list: a streamed
 * profile's list holds a load of its own), or NULL when absent or NaN. */
static const char *text_of(struct side *s, const struct perun_jv *v, int *err)
{
	if (!v || perun_jv_type(v) == PERUN_JV_NULL)
		return NULL;
	if (perun_jv_type(v) == PERUN_JV_REAL && isnan(v->u.d))
		return NULL;
	char *t = perun_jv_is_string(v) ? strdup(perun_jv_string(v)) : perun_jv_flatten_dup(v);
	char **o = t ? realloc(s->owned, (s->nowned + 1) * sizeof(*o)) : NULL;
	if (!o) {
		free(t);
		*err = 1;
		return NULL;
	}
	s->owned = o;
	s->owned[s->nowned++] = t;
	return t;
}

struct raw {
	const char *uid, *loc;
	size_t order; /* row order in the profile */
	double value; /* NaN when missing */
};

static int raw_cmp(const void *pa, const void *pb)
{
	const struct raw *a = pa, *b = pb;
	int c = strcmp(a->uid, b->uid);
	if (!c)
		c = strcmp(a->loc, b->loc);
	if (!c)
		c = a->order < b->order ? -1 : a->order > b->order;
	return c;
}

static int push_raw(struct raw **v, size_t *n, size_t *cap, struct raw r)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct raw *nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return -1;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = r;
	return 0;
}

/* The first value of a column, NULL when there is none; its rows follow
 * one perun_jv_skip apart. */
static const struct perun_jv *column_start(const struct perun_jv *cols, const char *key)
{
	const struct perun_jv *c = perun_jv_get(cols, key);
	return c && perun_jv_type(c) == PERUN_JV_ARRAY && perun_jv_len(c) ? c + 1 : NULL;
}

static const struct perun_jv *column_next(const struct perun_jv *v)
{
	return v ? perun_jv_skip(v) : NULL;
}

/* What to divide the profile's exclusive times by to get milliseconds. */
static double exclusive_per_ms(const struct perun_profile *profile)
{
	const json_t *units = json_object_get(perun_profile_get(profile, "header"), "units");
	const char *unit = json_string_value(json_object_get(units, "exclusive"));
	if (!unit || !strcmp(unit, "ns"))
		return NS_TO_MS;
	if (!strcmp(unit, "us"))
		return 1000.0;
	if (!strcmp(unit, "s"))
		return 0.001;
	return 1.0; /* ms */
}

/* A pseudo-resource of the trace collector (!ProcessResource!, ...):
 * the life of a process or thread, not a function. */
static int is_pseudo(const char *uid)
{
	size_t len = strlen(uid);
	return len > 1 && uid[0] == '!' && uid[len - 1] == '!';
}

/* upstream's _prepare_profile: (uid, location) -> summed exclusive ms. */
static int prepare(const struct perun_profile *profile, const char *which, const regex_t *filter,
		   int upstream, struct side *s, struct perun_error *err)
{
	struct raw *raw = NULL;
	size_t nraw = 0, cap = 0, order = 0;
	int has_excl = 0, has_loc = 0, oom = 0;
	struct perun_type_list types;
	int rc = perun_profile_types(profile, &types, err);
	if (rc)
		return rc;
	for (size_t k = 0; k < types.n; k++) {
		const struct perun_jv *pers = types.types[k].persistent;
		const struct perun_jv *cols = types.types[k].columns, *ck, *cv;
		size_t rows = SIZE_MAX, c;
		perun_jv_object_foreach(cols, c, ck, cv)
		{
			size_t l = perun_jv_type(cv) == PERUN_JV_ARRAY ? perun_jv_len(cv) : 0;
			rows = l < rows ? l : rows;
		}
		if (rows == SIZE_MAX) /* no columns: one row of persistent keys */
			rows = 1;
		const struct perun_jv *pu = perun_jv_get(pers, "uid"),
				      *pl = perun_jv_get(pers, "location"),
				      *pe = perun_jv_get(pers, "exclusive");
		/* Columns are walked row by row: a value's place is not an index. */
		const struct perun_jv *cu = column_start(cols, "uid"),
				      *cl = column_start(cols, "location"),
				      *ce = column_start(cols, "exclusive");
		has_excl |= pe || perun_jv_get(cols, "exclusive");
		has_loc |= pl || perun_jv_get(cols, "location");
		/* The persistent keys once per type, the columns' per row. */
		const char *type_uid = pu ? text_of(s, pu, &oom) : NULL;
		const char *type_loc = pl ? text_of(s, pl, &oom) : NULL;
		for (size_t i = 0; i < rows; i++, order++, cu = column_next(cu),
			    cl = column_next(cl), ce = column_next(ce)) {
			const char *uid = pu ? type_uid : text_of(s, cu, &oom);
			const char *loc = pl ? type_loc : text_of(s, cl, &oom);
			if (oom)
				goto nomem;
			if (!uid || !loc || (!upstream && is_pseudo(uid)))
				continue;
			const struct perun_jv *ev = pe ? pe : ce;
			double d = NAN;
			if (ev && perun_jv_type(ev) != PERUN_JV_NULL && perun_jv_number(ev, &d)) {
				rc = perun_error_set(err, PERUN_EINVAL,
						     "%s profile: resource '%s': exclusive time is "
						     "not a number",
						     which, types.types[k].id);
				goto out;
			}
			if (push_raw(&raw, &nraw, &cap, (struct raw){ uid, loc, order, d }))
				goto nomem;
		}
	}
	if (!has_excl || !has_loc) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "%s profile has no '%s' in its resources (eto needs a trace "
				     "profile with exclusive times and locations)",
				     which, has_excl ? "location" : "exclusive");
		goto out;
	}
	qsort(raw, nraw, sizeof(*raw), raw_cmp);
	double per_ms = exclusive_per_ms(profile);
	s->f = malloc((nraw ? nraw : 1) * sizeof(*s->f));
	if (!s->f)
		goto nomem;
	for (size_t i = 0; i < nraw;) {
		struct kahan k = { 0, 0 };
		size_t j = i;
		for (;
		     j < nraw && !strcmp(raw[j].uid, raw[i].uid) && !strcmp(raw[j].loc, raw[i].loc);
		     j++)
			kahan_add(&k, raw[j].value);
		if (!filter || !regexec(filter, raw[i].loc, 0, NULL, 0))
			s->f[s->n++] = (struct func){ raw[i].uid, raw[i].loc, k.sum / per_ms };
		i = j;
	}
	goto out;
nomem:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
out:
	free(raw);
	perun_type_list_release(&types);
	return rc;
}

/* Unique locations in order of first appearance. */
static int unique_locs(const struct side *s, const char ***out, size_t *n)
{
	const char **v = malloc((s->n ? s->n : 1) * sizeof(*v));
	if (!v)
		return -1;
	*n = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t j;
		for (j = *n; j > 0; j--)
			if (!strcmp(v[j - 1], s->f[i].loc))
				break;
		if (!j)
			v[(*n)++] = s->f[i].loc;
	}
	*out = v;
	return 0;
}

/* upstream's _longest_common_prefix, quirk kept: the prefix ends at the
 * LAST differing position of the common length, and is the whole first
 * string when there is none. */
static char *common_name(const struct cps *s1, const struct cps *s2)
{
	size_t end = s1->n;
	for (size_t i = 0; i < s1->n && i < s2->n; i++)
		if (s1->p[i] != s2->p[i])
			end = i;
	char *out = malloc(end * 4 + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < end; i++) {
		uint32_t c = s1->p[i];
		if (c < 0x80) {
			*o++ = (char)c;
		} else if (c < 0x800) {
			*o++ = (char)(0xc0 | (c >> 6));
			*o++ = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			*o++ = (char)(0xe0 | (c >> 12));
			*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
			*o++ = (char)(0x80 | (c & 0x3f));
		} else {
			*o++ = (char)(0xf0 | (c >> 18));
			*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
			*o++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*o = '\0';
	return out;
}

static int own(struct side *s, char *t)
{
	char **o = realloc(s->owned, (s->nowned + 1) * sizeof(*o));
	if (!o)
		return -1;
	s->owned = o;
	s->owned[s->nowned++] = t;
	return 0;
}

/* pandas' Series.replace(dict): every row by its original location, all
 * at once, so a new name that equals another old one is not renamed again. */
static void rename_locs(struct side *s, const char *const *from, const char *const *to, size_t n)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < n; k++)
			if (to[k] && !strcmp(s->f[i].loc, from[k])) {
				s->f[i].loc = to[k];
				break;
			}
}

/*
 * upstream's _map_similar_names: every baseline location takes the closest
 * remaining target location (difflib.get_close_matches, n=1, cutoff 0.6;
 * ties to the greater name) and both become their "common prefix".
 */
static int map_similar(struct side *base, struct side *targ)
{
	const char **olds = NULL, **news = NULL, **old_to = NULL, **tfrom = NULL, **tto = NULL;
	size_t no, nn, nt = 0;
	struct cps *ncps = NULL;
	int rc = -1;
	if (unique_locs(base, &olds, &no) || unique_locs(targ, &news, &nn))
		goto out;
	ncps = calloc(nn ? nn : 1, sizeof(*ncps));
	old_to = calloc(no ? no : 1, sizeof(*old_to));
	tfrom = calloc(no ? no : 1, sizeof(*tfrom));
	tto = calloc(no ? no : 1, sizeof(*tto));
	if (!ncps || !old_to || !tfrom || !tto)
		goto out;
	for (size_t i = 0; i < nn; i++)
		if (cps_of(news[i], &ncps[i]))
			goto out;
	for (size_t o = 0; o < no; o++) {
		struct cps word;
		if (cps_of(olds[o], &word))
			goto out;
		size_t best = SIZE_MAX;
		double best_ratio = 0;
		for (size_t i = 0; i < nn; i++) {
			size_t la = ncps[i].n, lb = word.n;
			/* real_quick_ratio: an upper bound, so only a shortcut */
			if (la + lb && 2.0 * (double)(la < lb ? la : lb) / (double)(la + lb) < 0.6)
				continue;
			double r = eto_difflib_ratio(&ncps[i], &word);
			if (r < 0) {
				free(word.p);
				goto out;
			}
			if (r >= 0.6 && (best == SIZE_MAX || r > best_ratio ||
					 (r == best_ratio && cps_cmp(&ncps[i], &ncps[best]) > 0))) {
				best = i;
				best_ratio = r;
			}
		}
		if (best != SIZE_MAX) {
			char *name = common_name(&word, &ncps[best]);
			if (!name || own(base, name)) {
				free(name);
				free(word.p);
				goto out;
			}
			old_to[o] = name;
			tfrom[nt] = news[best];
			tto[nt++] = name;
			free(ncps[best].p);
			memmove(&ncps[best], &ncps[best + 1], (nn - best - 1) * sizeof(*ncps));
			memmove(&news[best], &news[best + 1], (nn - best - 1) * sizeof(*news));
			nn--;
		}
		free(word.p);
	}
	rename_locs(base, olds, old_to, no);
	rename_locs(targ, tfrom, tto, nt);
	rc = 0;
out:
	for (size_t i = 0; ncps && i < nn; i++)
		free(ncps[i].p);
	free(ncps);
	free(olds);
	free(news);
	free(old_to);
	free(tfrom);
	free(tto);
	return rc;
}

struct drow {
	const char *uid, *loc;
	double base, targ; /* NaN when missing */
	double delta, share;
	double mzs, iqr_mult, std_mult;
	int mzs_flag, iqr_flag, std_flag, newdel;
	size_t order;
};

static int drow_cmp(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	if (a->delta != b->delta)
		return a->delta > b->delta ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int func_cmp(const void *pa, const void *pb)
{
	const struct func *a = *(const struct func *const *)pa,
			  *b = *(const struct func *const *)pb;
	int c = strcmp(a->uid, b->uid);
	if (!c)
		c = strcmp(a->loc, b->loc);
	return c ? c : (a < b ? -1 : a > b);
}

/* The first of the baseline rows idx (sorted by key) with f's key. */
static size_t first_match(const struct func *const *idx, size_t n, const struct func *f)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(idx[mid]->uid, f->uid);
		if (!c)
			c = strcmp(idx[mid]->loc, f->loc);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int same_key(const struct func *a, const struct func *b)
{
	return !strcmp(a->uid, b->uid) && !strcmp(a->loc, b->loc);
}

/*
 * upstream's _merge_and_diff: target rows in order, each with every
 * baseline row of its (uid, location) (keys renamed alike may repeat, and
 * then multiply as in pandas.merge); with_removed appends the baseline rows
 * nothing matched.  The first pass counts, the second fills.
 */
static int merge(const struct side *base, const struct side *targ, int with_removed,
		 struct drow **out, size_t *nout)
{
	const struct func **idx = malloc((base->n ? base->n : 1) * sizeof(*idx));
	unsigned char *used = calloc(base->n ? base->n : 1, 1);
	struct drow *rows = NULL;
	size_t n = 0;
	int rc = -1;
	if (!idx || !used)
		goto out;
	for (size_t i = 0; i < base->n; i++)
		idx[i] = &base->f[i];
	qsort(idx, base->n, sizeof(*idx), func_cmp);
	for (int fill = 0; fill < 2; fill++) {
		if (fill && !(rows = malloc((n ? n : 1) * sizeof(*rows))))
			goto out;
		n = 0;
		for (size_t t = 0; t < targ->n; t++) {
			const struct func *tf = &targ->f[t];
			size_t b = first_match(idx, base->n, tf), from = b;
			for (; b < base->n && same_key(idx[b], tf); b++, n++) {
				if (!fill)
					continue;
				used[idx[b] - base->f] = 1;
				rows[n] = (struct drow){ .uid = tf->uid,
							 .loc = tf->loc,
							 .base = idx[b]->excl,
							 .targ = tf->excl };
			}
			if (b == from && fill)
				rows[n] = (struct drow){ .uid = tf->uid,
							 .loc = tf->loc,
							 .base = NAN,
							 .targ = tf->excl };
			n += b == from;
		}
		for (size_t b = 0; with_removed && b < base->n; b++) {
			if (fill && !used[b])
				rows[n++] = (struct drow){ .uid = base->f[b].uid,
							   .loc = base->f[b].loc,
							   .base = base->f[b].excl,
							   .targ = NAN };
			else if (!fill)
				n++; /* an upper bound */
		}
	}
	*out = rows;
	*nout = n;
	rows = NULL;
	rc = 0;
out:
	free(rows);
	free(idx);
	free(used);
	return rc;
}

/* The deltas, shares and the three outlier tests over rows. */
static int diff_and_flag(struct drow *rows, size_t n)
{
	double *v = malloc((n ? n : 1) * 2 * sizeof(*v)), *s = v + (n ? n : 1);
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct drow *r = &rows[i];
		r->delta = (isnan(r->targ) ? 0.0 : r->targ) - (isnan(r->base) ? 0.0 : r->base);
		v[i] = isnan(r->targ) ? 0.0 : r->targ;
	}
	double total = perun_sum_pairwise(v, n);
	for (size_t i = 0; i < n; i++) {
		struct drow *r = &rows[i];
		if (isnan(r->base))
			r->share = r->targ / total * 100;
		else if (isnan(r->targ)) /* with_removed: the intended share */
			r->share = r->base / total * (-100);
		else
			r->share = (r->targ - r->base) / total * 100;
		r->order = i;
	}
	qsort(rows, n, sizeof(*rows), drow_cmp);

	/* modified z-score */
	for (size_t i = 0; i < n; i++)
		s[i] = rows[i].delta;
	qsort(s, n, sizeof(*s), cmp_double);
	double median = sorted_median(s, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(rows[i].delta - median);
	qsort(v, n, sizeof(*v), cmp_double);
	double mad = sorted_median(v, n);
	for (size_t i = 0; i < n; i++) {
		struct drow *r = &rows[i];
		r->mzs = MZS_CORRECTION * fabs(r->delta - median) / mad;
		r->mzs_flag = r->mzs < -MZS_CUTOFF || r->mzs > MZS_CUTOFF;
	}

	/* IQR multiple */
	double q1 = eto_np_quantile(s, n, 0.25), q3 = eto_np_quantile(s, n, 0.75);
	double iqr = q3 - q1;
	for (size_t i = 0; i < n; i++) {
		struct drow *r = &rows[i];
		int below = r->delta < q1 - IQR_CUTOFF * iqr;
		int above = r->delta > q3 + IQR_CUTOFF * iqr;
		r->iqr_mult = NAN;
		if (below)
			r->iqr_mult = -((r->delta - q1) / iqr);
		if (above) /* upstream's precedence: delta / iqr - q3 */
			r->iqr_mult = r->delta / iqr - q3;
		r->iqr_flag = below || above;
	}

	/* standard deviation of the deltas that are no outliers yet */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!rows[i].mzs_flag && !rows[i].iqr_flag)
			s[m++] = rows[i].delta;
	double std = np_std(s, m, v);
	for (size_t i = 0; i < n; i++) {
		struct drow *r = &rows[i];
		r->std_mult = r->delta / std;
		r->std_flag = r->std_mult < -STDDEV_CUTOFF || r->std_mult > STDDEV_CUTOFF;
		r->newdel = isnan(r->targ) || isnan(r->base);
	}
	free(v);
	return 0;
}

static void result_of(const struct drow *r, enum perun_change *res, const char **ct, double *cr)
{
	int up = r->delta > 0;
	if (r->mzs_flag) {
		*res = up ? PERUN_CHANGE_SEVERE_DEGRADATION : PERUN_CHANGE_SEVERE_OPTIMIZATION;
		/* upstream reports the IQR multiple here too, for easier reading */
		*ct = "IQR_multiple";
		*cr = r->iqr_mult;
	} else if (r->iqr_flag) {
		*res = up ? PERUN_CHANGE_DEGRADATION : PERUN_CHANGE_OPTIMIZATION;
		*ct = "IQR_multiple";
		*cr = r->iqr_mult;
	} else if (r->std_flag) {
		*res = up ? PERUN_CHANGE_MAYBE_DEGRADATION : PERUN_CHANGE_MAYBE_OPTIMIZATION;
		*ct = "StdDev_multiple";
		*cr = r->std_mult;
	} else {
		*res = PERUN_CHANGE_NO_CHANGE;
		*ct = "StdDev_multiple";
		*cr = r->std_mult;
	}
	if (r->newdel)
		*res = up ? PERUN_CHANGE_NOT_IN_BASELINE : PERUN_CHANGE_NOT_IN_TARGET;
}

/* str(round(x, 3)), with 0.0 for a missing value as upstream prints it. */
static void ms_text(double x, char out[32])
{
	perun_python_float_str(isnan(x) ? 0.0 : py_round(x, 3), out);
}

static int loc_cmp(const void *pa, const void *pb)
{
	const struct drow *a = *(const struct drow *const *)pa,
			  *b = *(const struct drow *const *)pb;
	int c = strcmp(a->loc, b->loc);
	return c ? c : (a < b ? -1 : a > b);
}

static int emit_rows(const struct drow *rows, size_t n, double cutoff, perun_check_emit_fn emit,
		     void *data)
{
	for (size_t i = 0; i < n; i++) {
		const struct drow *r = &rows[i];
		if (-cutoff < r->share && r->share < cutoff)
			continue;
		enum perun_change res;
		const char *ct;
		double cr;
		result_of(r, &res, &ct, &cr);
		char fb[32], tt[32];
		ms_text(r->base, fb);
		ms_text(r->targ, tt);
		struct perun_degradation d = {
			.size = sizeof(d),
			.result = res,
			.type = "time",
			.location = r->uid,
			.from_baseline = fb,
			.to_target = tt,
			.rate_degradation = r->delta,
			.confidence_type = ct,
			.confidence_rate = py_round(cr, 2),
			.rate_degradation_relative = r->share,
			/* the function's own relative change; eto measures no noise */
			.effect_size = isnan(r->base) || isnan(r->targ) || r->base == 0
					       ? NAN
					       : r->targ / r->base - 1.0,
			.noise = NAN,
			.version = NULL,
		};
		int rc = emit(&d, data);
		if (rc)
			return rc;
	}
	return 0;
}

/* upstream's per-location summary: groupby(location).sum() in row order. */
static int emit_totals(const struct drow *rows, size_t n, int upstream, perun_check_emit_fn emit,
		       void *data)
{
	const struct drow **by = malloc((n ? n : 1) * sizeof(*by));
	if (!by)
		return -PERUN_EGENERIC;
	for (size_t i = 0; i < n; i++)
		by[i] = &rows[i];
	qsort(by, n, sizeof(*by), loc_cmp);
	int rc = 0;
	for (size_t i = 0; i < n && !rc;) {
		struct kahan b = { 0, 0 }, t = { 0, 0 }, d = { 0, 0 }, s = { 0, 0 };
		size_t j = i;
		for (; j < n && !strcmp(by[j]->loc, by[i]->loc); j++) {
			kahan_add(&b, by[j]->base);
			kahan_add(&t, by[j]->targ);
			kahan_add(&d, by[j]->delta);
			kahan_add(&s, by[j]->share);
		}
		char fb[32], tt[32];
		ms_text(b.sum, fb);
		ms_text(t.sum, tt);
		double change = b.sum == 0 ? NAN : t.sum / b.sum - 1.0;
		enum perun_change result = PERUN_CHANGE_NO_CHANGE;
		if (upstream)
			result = s.sum > 0 ? PERUN_CHANGE_TOTAL_DEGRADATION
					   : PERUN_CHANGE_TOTAL_OPTIMIZATION;
		else if (!(fabs(change) < TOTAL_MIN_CHANGE)) /* NaN: a new location */
			result = s.sum > 0   ? PERUN_CHANGE_TOTAL_DEGRADATION
				 : s.sum < 0 ? PERUN_CHANGE_TOTAL_OPTIMIZATION
					     : PERUN_CHANGE_NO_CHANGE;
		struct perun_degradation deg = {
			.size = sizeof(deg),
			.result = result,
			.type = "time",
			.location = by[i]->loc,
			.from_baseline = fb,
			.to_target = tt,
			.rate_degradation = d.sum,
			.confidence_type = "N/A",
			.confidence_rate = 0.0,
			.rate_degradation_relative = s.sum,
			.effect_size = change,
			.noise = NAN,
			.version = NULL,
		};
		rc = emit(&deg, data);
		i = j;
	}
	free(by);
	return rc;
}

static int eto_compare(const struct perun_profile *baseline, const struct perun_profile *target,
		       const struct perun_params *params, perun_check_emit_fn emit, void *data,
		       struct perun_error *err)
{
	const char *filter_text = perun_params_string(params, "location-filter", "*");
	double cutoff = perun_params_float(params, "cutoff", 0.0);
	int with_removed = perun_params_bool(params, "with-removed", 0);
	int upstream = perun_params_bool(params, "upstream", 0);
	struct side base = { 0 }, targ = { 0 };
	struct drow *rows = NULL;
	size_t n = 0;
	regex_t re;
	int have_re = 0, rc;
	if (strcmp(filter_text, "*")) {
		int e = regcomp(&re, filter_text, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char msg[256];
			regerror(e, &re, msg, sizeof(msg));
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--location-filter': bad regex '%s': %s",
					       filter_text, msg);
		}
		have_re = 1;
	}
	rc = prepare(baseline, "baseline", have_re ? &re : NULL, upstream, &base, err);
	if (!rc)
		rc = prepare(target, "target", have_re ? &re : NULL, upstream, &targ, err);
	if (rc)
		goto out;
	if (map_similar(&base, &targ) || merge(&base, &targ, with_removed, &rows, &n) ||
	    diff_and_flag(rows, n)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	rc = emit_rows(rows, n, cutoff, emit, data);
	if (!rc)
		rc = emit_totals(rows, n, upstream, emit, data);
	if (rc && !err->code)
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot report a change");
out:
	if (have_re)
		regfree(&re);
	free(rows);
	side_release(&base);
	side_release(&targ);
	return rc;
}

static const struct perun_check_ops eto_ops = {
	.size = sizeof(struct perun_check_ops),
	.compare = eto_compare,
	.compare_series = NULL,
	.method = "exclusive_time_outliers",
	.title = "exclusive time outliers",
};

PERUN_PLUGIN_DEFINE(eto, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "exclusive-time outliers between two trace profiles (Perun's eto)",
		    .options = eto_options, .ops = &eto_ops);
