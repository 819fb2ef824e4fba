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
#ifndef PERUN_REGRESSION_H
#define PERUN_REGRESSION_H

#include <stddef.h>

#include <perun/points.h>

/* Python Perun's tools: fewest points of a regression, zero approximation. */
#define RA_MIN_POINTS 3
#define RA_APPROX_ZERO 0.000001
/* derived.py: slope threshold of the constant model. */
#define RA_B1_THRESHOLD 0.01

/* Model numbers in Python Perun's (alphabetical) "all" order. */
enum ra_model {
	RA_CONSTANT = 0,
	RA_EXPONENTIAL,
	RA_LINEAR,
	RA_LOGARITHMIC,
	RA_POWER,
	RA_QUADRATIC,
	RA_MODEL_COUNT,
};

enum ra_method {
	RA_FULL = 0,
	RA_ITERATIVE,
	RA_INTERVAL,
	RA_INITIAL_GUESS,
	RA_BISECTION,
	RA_METHOD_COUNT,
};

/* One model over some points, the record Perun stores (section 3.3). */
struct ra_result {
	enum ra_model model;
	double coeffs[3];
	int ncoeffs;
	double r_square;
	int r_square_int; /* constant: Python clamps to the ints 0 and 1 */
	int b1_int;       /* constant: b1 is the int 0 */
	struct perun_num x_start, x_end;
	double y_sum;        /* for the derived constant model */
	long long pts_num;
};

/*
 * Regression failures of one uid: Python Perun raises these per uid,
 * keeps what the method yielded before and goes on with the next uid.
 */
enum ra_failure {
	RA_OK = 0,
	RA_TOO_FEW = 1,     /* InvalidPointsException */
	RA_BAD_SPLIT = 2,   /* InvalidSequenceSplitException */
	RA_DEGENERATE = 3,  /* a coefficient or r^2 is not finite */
	RA_NOMEM = 4,
};

struct ra_fail {
	enum ra_failure code;
	char message[256];
};

/* Called for every model a method yields; non-zero stops with RA_NOMEM. */
typedef int (*ra_emit_fn)(const struct ra_result *result, void *data);

struct ra_rng;

/*
 * Run method over pts (reordered in place: shuffled or sorted) for the
 * standard models (never RA_CONSTANT), in the order given.  steps is used
 * by iterative, interval and initial_guess; rng by the randomised methods
 * (NULL keeps the given order, which lets the unit test compare them with
 * upstream's code on a fixed order).
 * Returns RA_OK or a failure described in fail; results emitted before a
 * failure stay emitted, as in Python Perun.
 */
enum ra_failure ra_compute(enum ra_method method, struct perun_point *pts,
			   size_t n, const enum ra_model *models,
			   size_t nmodels, int steps, struct ra_rng *rng,
			   ra_emit_fn emit, void *data, struct ra_fail *fail);

/* The constant model derived from a linear result (derived.py). */
void ra_derive_constant(const struct ra_result *linear, struct ra_result *out);

/* Python Perun's model and method names. */
const char *ra_model_name(enum ra_model model);
int ra_model_from_name(const char *name);
const char *ra_method_name(enum ra_method method);
int ra_method_from_name(const char *name);

/* Seeded generator (GSL's MT19937) for shuffling; caller frees. */
struct ra_rng *ra_rng_new(unsigned long seed);
void ra_rng_free(struct ra_rng *rng);

#endif
