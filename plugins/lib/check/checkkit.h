/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What Perun's model-based checks share (check/detection_kit.py,
 * nonparam_kit.py, factory.py): the model records of a profile, the best
 * model per uid, the sampled values of a model, and the general detection
 * of preg, lreg and fast.  Linked into each check plugin that needs it.
 */
#ifndef CHECKLIB_CHECKKIT_H
#define CHECKLIB_CHECKKIT_H

#include <stddef.h>

#include <perun/perun.h>

/* detection_kit.SAMPLES: points a parametric model is sampled at. */
#define CHECKLIB_SAMPLES 1000
/* factory._MIN_CONFIDENCE_RATE of int and loc. */
#define CHECKLIB_MIN_CONFIDENCE 0.15

/* One model record (Perun's ModelRecord); strings borrowed from the
 * profile, which must outlive it. */
struct checklib_model {
	const char *uid;
	const char *type; /* "linear", "regressogram", ... */
	double r_square;
	int param; /* coefficients (else bucket values) */
	double b0, b1, b2;
	int b0_int;	       /* b0 was a JSON integer (Python int) */
	const json_t *buckets; /* nonparametric: bucket_stats */
	double x_start, x_end;
	const json_t *record;
};

struct checklib_models {
	struct checklib_model *items;
	size_t n;
	json_t *index; /* key -> position */
};

void checklib_models_release(struct checklib_models *m);
const struct checklib_model *checklib_models_get(const struct checklib_models *m, const char *key);

enum checklib_group {
	CHECKLIB_GROUP_ALL, /* "model" */
	CHECKLIB_GROUP_PARAM,
	CHECKLIB_GROUP_NONPARAM,
};

/*
 * get_filtered_best_models_of: per uid (in order of first appearance in
 * the models) the model of group with the highest r_square (a later one
 * must be strictly better), or with only_model set the last model of that
 * name; uids whose chosen model has r_square 0 are left out.
 */
int checklib_best_models(const struct perun_profile *p, enum checklib_group group,
			 const char *only_model, struct checklib_models *out,
			 struct perun_error *err);
/* The same without a filter: every model of group keyed "<uid><model>". */
int checklib_all_models(const struct perun_profile *p, enum checklib_group group,
			struct checklib_models *out, struct perun_error *err);
/* Profile.all_filtered_models(models_strategy) for best-model,
 * best-param, best-nonparam, all-param, all-nonparam. */
int checklib_strategy_models(const struct perun_profile *p, const char *strategy,
			     struct checklib_models *out, struct perun_error *err);

/*
 * get_function_values: x = linspace(x_start, x_end, CHECKLIB_SAMPLES) with
 * |x| < 1e-6 replaced by 1e-6, y the model's plot formula at x (Perun's
 * quirk kept: the model's f_x is applied to x first, so logarithmic
 * models are b0 + b1 ln x and power models b0 (log10 x)^b1).
 */
void checklib_function_values(const struct checklib_model *m, double *x, double *y);
/* numpy.linspace(start, end, n). */
void checklib_linspace(double start, double end, size_t n, double *out);

/* Python's round(x, 2). */
double checklib_round2(double x);

/*
 * Perun's run_detection_with_strategy for int and loc: models of both
 * profiles by strategy (all-models and best-both run their two halves),
 * paired by key, a pair analysed when round(min r^2, 2) >= 0.15.  The
 * strategy is the --models-type of params (checklib_models_type_options).
 * analyse fills the result and rate (and may emit partial intervals itself).
 */
struct checklib_pair {
	const char *key; /* uid, or uid+model for all-* */
	const struct checklib_model *baseline, *target;
	const struct perun_profile *baseline_profile, *target_profile;
};
typedef int (*checklib_analyse_fn)(const struct checklib_pair *pair, enum perun_change *result,
				   double *rate, struct perun_error *err);
int checklib_run_with_strategy(const struct perun_profile *baseline,
			       const struct perun_profile *target,
			       const struct perun_params *params, checklib_analyse_fn analyse,
			       perun_check_emit_fn emit, void *data, struct perun_error *err);

/* The --models-type option of int and loc (perun check passes its own). */
extern const struct perun_option checklib_models_type_options[];

/* nonparam_kit.classify_change. */
enum perun_change checklib_classify_change(double diff, double no_change, double change,
					   double baseline_per);

/*
 * The inputs of detection_kit.general_detection's classification of one
 * uid whose best models changed.
 */
struct checklib_detection {
	const char *uid;
	const struct perun_profile *baseline_profile;
	const struct checklib_model *baseline, *target, *baseline_linear, *target_linear;
	const double *x;	     /* baseline's sample points */
	const double *lin_abs_error; /* linear target - linear baseline */
	const double *abs_error;     /* best target - best baseline */
	size_t n;
};
/* Writes the change type (e.g. "linear") into type. */
typedef int (*checklib_classify_fn)(const struct checklib_detection *d, char *type, size_t len,
				    struct perun_error *err);
int checklib_general_detection(const struct perun_profile *baseline,
			       const struct perun_profile *target, checklib_classify_fn classify,
			       perun_check_emit_fn emit, void *data, struct perun_error *err);

/* numpy.nan_to_num of one value. */
double checklib_nan_to_num(double x);

/* scipy.integrate.simps(y, x, even="avg"); NaN in, NaN out. */
double checklib_simps(const double *y, const double *x, size_t n);

/*
 * nonparam_kit.preprocess_nonparam_models: the points both models are
 * compared on.  A parametric model gives get_function_values' pair in
 * Perun's order (so its "x" are the model's values and its "y" the sample
 * points, a quirk kept), a nonparametric one its bucket values over
 * linspace(x_start, x_end).  Regressograms of different bucket counts get
 * the target re-binned to the baseline's count from the target profile's
 * resources; then all is cut to the shorter length.  Release *out with
 * checklib_points_release.
 */
struct checklib_points {
	double *x, *base_y, *target_y; /* n values each */
	size_t n;
};
int checklib_nonparam_coords(const struct checklib_pair *pair, struct checklib_points *out,
			     struct perun_error *err);
void checklib_points_release(struct checklib_points *p);

#endif
