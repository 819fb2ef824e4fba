/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Regression analysis of Python Perun: the models (linearised least squares
 * with transforms, the quadratic normal equations, the constant model
 * derived from the linear one) and the computation methods over one uid's
 * points.  plugins/lib/models' libmodels.la: regression_analysis and the
 * fast and lreg checks link it (README.md beside this file).
 *
 * The sums and formulas follow Python Perun's term by term, including the
 * exact integer arithmetic Python uses for integer data (x**2 of an int is
 * an exact int rounded once when added to a float sum), so the models come
 * out bit for bit alike.
 */
#ifndef MODELLIB_REGRESSION_H
#define MODELLIB_REGRESSION_H

#include <stddef.h>

#include <perun/points.h>

/* Python Perun's tools: fewest points of a regression, zero approximation. */
#define MODELLIB_MIN_POINTS  3
#define MODELLIB_APPROX_ZERO 0.000001
/* derived.py: slope threshold of the constant model. */
#define MODELLIB_B1_THRESHOLD 0.01

/* Model numbers in Python Perun's (alphabetical) "all" order. */
enum modellib_model {
	MODELLIB_CONSTANT = 0,
	MODELLIB_EXPONENTIAL,
	MODELLIB_LINEAR,
	MODELLIB_LOGARITHMIC,
	MODELLIB_POWER,
	MODELLIB_QUADRATIC,
	MODELLIB_MODEL_COUNT,
};

enum modellib_method {
	MODELLIB_FULL = 0,
	MODELLIB_ITERATIVE,
	MODELLIB_INTERVAL,
	MODELLIB_INITIAL_GUESS,
	MODELLIB_BISECTION,
	MODELLIB_METHOD_COUNT,
};

/* One model over some points, the record Perun stores (section 3.3). */
struct modellib_result {
	enum modellib_model model;
	double coeffs[3];
	int ncoeffs;
	double r_square;
	int r_square_int; /* constant: Python clamps to the ints 0 and 1 */
	int b1_int;	  /* constant: b1 is the int 0 */
	struct perun_num x_start, x_end;
	double y_sum; /* for the derived constant model */
	long long pts_num;
};

/*
 * Regression failures of one uid: Python Perun raises these per uid,
 * keeps what the method yielded before and goes on with the next uid.
 */
enum modellib_failure {
	MODELLIB_OK = 0,
	MODELLIB_TOO_FEW = 1,	 /* InvalidPointsException */
	MODELLIB_BAD_SPLIT = 2,	 /* InvalidSequenceSplitException */
	MODELLIB_DEGENERATE = 3, /* a coefficient or r^2 is not finite */
	MODELLIB_NOMEM = 4,
};

struct modellib_fail {
	enum modellib_failure code;
	char message[256];
};

/* Called for every model a method yields; non-zero stops with MODELLIB_NOMEM. */
typedef int (*modellib_emit_fn)(const struct modellib_result *result, void *data);

struct modellib_rng;

/*
 * Run method over pts (reordered in place: shuffled or sorted) for the
 * standard models (never MODELLIB_CONSTANT), in the order given.  steps is used
 * by iterative, interval and initial_guess; rng by the randomised methods
 * (NULL keeps the given order, which lets the unit test compare them with
 * upstream's code on a fixed order).
 * Returns MODELLIB_OK or a failure described in fail; results emitted before a
 * failure stay emitted, as in Python Perun.
 */
enum modellib_failure modellib_compute(enum modellib_method method, struct perun_point *pts,
				       size_t n, const enum modellib_model *models, size_t nmodels,
				       int steps, struct modellib_rng *rng, modellib_emit_fn emit,
				       void *data, struct modellib_fail *fail);

/* The constant model derived from a linear result (derived.py). */
void modellib_derive_constant(const struct modellib_result *linear, struct modellib_result *out);

/* Python Perun's model and method names. */
const char *modellib_model_name(enum modellib_model model);
int modellib_model_from_name(const char *name);
const char *modellib_method_name(enum modellib_method method);
int modellib_method_from_name(const char *name);

/* Seeded generator (GSL's MT19937) for shuffling; caller frees. */
struct modellib_rng *modellib_rng_new(unsigned long seed);
void modellib_rng_free(struct modellib_rng *rng);

#endif
