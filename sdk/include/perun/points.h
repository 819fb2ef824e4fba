/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The (x, y) points of a profile's resources, per uid: Python Perun's data
 * provider of its postprocessors (regression_analysis/data_provider.py),
 * shared by regression-analysis, regressogram, moving-average and
 * kernel-regression.
 *
 * Resource types are sorted (stably) by their flattened uid and the rows of
 * equal uids are joined into one series.  Values are read straight from the
 * flattened profile's columns (or a persistent key, the same for every row
 * of its type), so a million points cost a million array reads.
 *
 * Input Perun would choke on is an error naming the resource: a key that is
 * in no resource, a resource type without the key or without a uid, a value
 * that is not a number, NaN or an infinity, a profile without resources.
 */
#ifndef PERUN_POINTS_H
#define PERUN_POINTS_H

#include <stddef.h>
#include <jansson.h>
#include <perun/error.h>

struct perun_profile;

/* A number as JSON (and Python) had it: an int stays exact. */
struct perun_num {
	double d;
	long long i;
	int is_int;
};

struct perun_point {
	struct perun_num x, y;
	size_t idx; /* position in the provider's order: keeps sorting stable */
};

struct perun_points;
struct perun_jv;

/*
 * The name of the series a resource type belongs to: its flattened uid,
 * and for a time profile (header type "time") whose resource has a
 * subtype (real, user, sys) the uid and subtype joined by ':', since wall,
 * user and system time are different series that Python Perun mixes
 * under one uid.  The stored profile is left as it is.  persistent is the
 * type's entry of resource_type_map.  malloc'd, NULL without memory or
 * without a uid.
 */
PERUN_API char *perun_series_name_dup(const struct perun_profile *profile,
				      const struct perun_jv *persistent);

/*
 * Open the series of profile (borrowed: it must outlive *out and stay
 * unchanged).  Fails when the profile has no resources or a resource type
 * has no uid.  The caller frees *out with perun_points_free.
 */
PERUN_API int perun_points_open(const struct perun_profile *profile, struct perun_points **out,
				struct perun_error *err);
PERUN_API void perun_points_free(struct perun_points *points);

/*
 * Is key a field of some resource, as Perun's option check has it?  option
 * names the option in the error, e.g. "of-key".
 */
PERUN_API int perun_points_check_key(const struct perun_points *points, const char *option,
				     const char *key, struct perun_error *err);

/*
 * The next uid's points, x from per_key and y from of_key, in the
 * provider's order.  Returns 1 with *uid (the flattened uid, owned by
 * points, valid until perun_points_free), *pts (owned by points, valid and
 * writable until the next call) and *n (at least 1) set; 0 after the last
 * uid; a negative code with err filled on bad data.
 */
PERUN_API int perun_points_next(struct perun_points *points, const char *per_key,
				const char *of_key, const char **uid, struct perun_point **pts,
				size_t *n, struct perun_error *err);

/*
 * The uids a postprocessor skips (too few points, degenerate data), as
 * Python Perun skips them, reported in one line.  Zero-initialise.
 */
struct perun_points_skips {
	size_t count;
	char text[700];	 /* the uids, shortened */
	char first[400]; /* the first uid and why */
};

PERUN_API void perun_points_skip(struct perun_points_skips *skips, const char *uid,
				 const char *why);

/*
 * After the last uid: with no model made, the error "no model could be
 * computed: <first uid and why> ..." (returns its negative code); else 0,
 * leaving the skipped uids in err as the phase's warning (code 0).
 */
PERUN_API int perun_points_skips_finish(const struct perun_points_skips *skips, size_t models,
					struct perun_error *err);

/*
 * Append the records of models (an array, borrowed) to the profile's
 * models in place, as tools.add_models_to_profile does; the records are
 * shared, not copied.  0, or -1 without memory.
 */
PERUN_API int perun_points_add_models(struct perun_profile *profile, json_t *models);

/*
 * One uid's model for perun_points_model_each: append its record(s) to
 * models and return 0, return 1 with why filled to skip the uid, or a
 * negative code with err filled.  pts is writable (sort it at will).
 */
typedef int perun_points_model_fn(void *arg, const char *uid, struct perun_point *pts, size_t n,
				  json_t *models, char *why, size_t whylen,
				  struct perun_error *err);

/*
 * The loop of a postprocessor making models per uid: opens the points of
 * profile, checks per_key and of_key, calls model for each uid, reports
 * the skipped uids (perun_points_skips_finish) and appends the records
 * made to the profile's models.
 */
PERUN_API int perun_points_model_each(struct perun_profile *profile, const char *per_key,
				      const char *of_key, perun_points_model_fn *model, void *arg,
				      struct perun_error *err);

/*
 * The JSON value Python Perun writes for n: an int, a float, or for NaN and
 * the infinities the markers the profile writer turns into Python's bare
 * NaN, Infinity and -Infinity.  New reference, NULL without memory.
 */
PERUN_API json_t *perun_num_json(const struct perun_num *n);

/*
 * numpy's sum of n doubles, bit for bit: pairwise (blocks of up to 128
 * summed in eight lanes) within each 8192-element chunk of its reduction
 * buffer, the chunks one after the other.  Ints converted to doubles sum
 * alike (numpy.mean of an int array).
 */
PERUN_API double perun_sum_pairwise(const double *a, size_t n);

/* numpy.mean of n (at least 1) doubles. */
PERUN_API double perun_mean(const double *a, size_t n);

/*
 * sklearn.metrics.r2_score(y_true, y_pred) as Python Perun calls it: NaN
 * for fewer than 2 points, 1.0 for a perfect fit, 0.0 when y_true is
 * constant and the fit is not.  Returns -1 without memory, else 0 with
 * *out set.
 */
PERUN_API int perun_r2_score(const double *y_true, const double *y_pred, size_t n, double *out);

/* Python's order of two numbers (an int and a float compare exactly):
 * negative, 0 or positive. */
PERUN_API int perun_num_cmp(const struct perun_num *a, const struct perun_num *b);

#endif
