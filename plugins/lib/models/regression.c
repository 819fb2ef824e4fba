/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The models and methods of Python Perun's regression analysis (see
 * regression.h).  Every expression keeps Python's operand order and
 * Python's arithmetic: ints stay exact until they meet a float, x ** k is
 * libm's pow() as in CPython, and safe_division divides by 1e-6 instead of
 * zero.  The build turns off floating-point contraction for this file, so
 * no fused multiply-add changes a rounding.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "regression.h"

static const char *const model_names[MODELLIB_MODEL_COUNT] = {
	"constant", "exponential", "linear", "logarithmic", "power", "quadratic",
};

static const char *const method_names[MODELLIB_METHOD_COUNT] = {
	"full", "iterative", "interval", "initial_guess", "bisection",
};

const char *modellib_model_name(enum modellib_model model)
{
	return model_names[model];
}

int modellib_model_from_name(const char *name)
{
	for (int i = 0; i < MODELLIB_MODEL_COUNT; i++)
		if (!strcmp(model_names[i], name))
			return i;
	return -1;
}

const char *modellib_method_name(enum modellib_method method)
{
	return method_names[method];
}

int modellib_method_from_name(const char *name)
{
	for (int i = 0; i < MODELLIB_METHOD_COUNT; i++)
		if (!strcmp(method_names[i], name))
			return i;
	return -1;
}

struct modellib_rng {
	gsl_rng *r;
};

struct modellib_rng *modellib_rng_new(unsigned long seed)
{
	struct modellib_rng *rng = malloc(sizeof(*rng));
	if (!rng)
		return NULL;
	rng->r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng->r) {
		free(rng);
		return NULL;
	}
	gsl_rng_set(rng->r, seed);
	return rng;
}

void modellib_rng_free(struct modellib_rng *rng)
{
	if (!rng)
		return;
	gsl_rng_free(rng->r);
	free(rng);
}

static enum modellib_failure failf(struct modellib_fail *fail, enum modellib_failure code,
				   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static enum modellib_failure failf(struct modellib_fail *fail, enum modellib_failure code,
				   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fail->message, sizeof(fail->message), fmt, ap);
	va_end(ap);
	fail->code = code;
	return code;
}

/* ---- Python arithmetic ------------------------------------------------ */

/* common_kit.safe_division: Python raises on any zero divisor. */
static double safe_div(double dividend, double divisor)
{
	return divisor == 0 ? dividend / MODELLIB_APPROX_ZERO : dividend / divisor;
}

/* float ** int in CPython: pow() of the magnitude, sign for odd powers. */
static double py_pow(double v, int k)
{
	if (v < 0)
		return (k & 1) ? -pow(-v, k) : pow(-v, k);
	return pow(v, k);
}

/* a ** k as a term added to a float sum: ints are exact, rounded once. */
static double term_pow(const struct perun_num *a, int k)
{
	if (a->is_int) {
		__int128 p = a->i;
		int overflow = 0;
		for (int j = 1; j < k && !overflow; j++)
			overflow = __builtin_mul_overflow(p, (__int128)a->i, &p);
		/* Beyond 128 bits Python would still be exact; pow() is near. */
		if (!overflow)
			return (double)p;
	}
	return py_pow(a->d, k);
}

/* a * b as a term: int * int is exact; otherwise both are floats. */
static double term_mul(const struct perun_num *a, const struct perun_num *b)
{
	if (a->is_int && b->is_int)
		return (double)((__int128)a->i * b->i);
	return a->d * b->d;
}

/* (x ** 2) * y of the quadratic sums. */
static double term_x2y(const struct perun_num *x, const struct perun_num *y)
{
	if (x->is_int && y->is_int) {
		__int128 p;
		if (!__builtin_mul_overflow((__int128)x->i * x->i, (__int128)y->i, &p))
			return (double)p;
	}
	return term_pow(x, 2) * y->d;
}

static int num_less(const struct perun_num *a, const struct perun_num *b)
{
	if (a->is_int && b->is_int)
		return a->i < b->i;
	return a->d < b->d;
}

static struct perun_num num_float(double d)
{
	struct perun_num n = { .d = d };
	return n;
}

/* ---- one model, step by step (generic.py, specific.py) ----------------- */

struct ra_fit {
	enum modellib_model model;
	const struct perun_point *pts;
	size_t n;
	int steps;
	int part;
	double x_sum, y_sum, x_sq_sum, y_sq_sum, xy_sum;
	double x_cube_sum, x4_sum, x_sq_y_sum;
	struct perun_num x_min, x_max;
	struct modellib_result res;
};

static enum modellib_failure check_points(size_t n, struct modellib_fail *fail)
{
	if (n < MODELLIB_MIN_POINTS)
		return failf(fail, MODELLIB_TOO_FEW,
			     "too few points to perform regression (%zu, at least %d needed)", n,
			     MODELLIB_MIN_POINTS);
	return MODELLIB_OK;
}

static enum modellib_failure check_split(size_t n, int parts, struct modellib_fail *fail)
{
	if ((double)n / parts < 2.0)
		return failf(fail, MODELLIB_BAD_SPLIT,
			     "too few points (%zu) to split into %d parts of at least 2", n, parts);
	return MODELLIB_OK;
}

static void split_part(size_t n, int parts, int i, size_t *start, size_t *end)
{
	size_t quot = n / (size_t)parts, rem = n % (size_t)parts;
	size_t k = (size_t)i;
	*start = k * quot + (k < rem ? k : rem);
	*end = (k + 1) * quot + (k + 1 < rem ? k + 1 : rem);
}

static enum modellib_failure fit_init(struct ra_fit *fit, enum modellib_model model,
				      const struct perun_point *pts, size_t n, int steps,
				      struct modellib_fail *fail)
{
	memset(fit, 0, sizeof(*fit));
	if (check_points(n, fail))
		return fail->code;
	fit->model = model;
	fit->pts = pts;
	fit->n = n;
	fit->steps = steps;
	fit->x_min = fit->x_max = pts[0].x;
	return MODELLIB_OK;
}

/* The transformed point of a generic model; 0 when Python would raise. */
static int transform(enum modellib_model model, const struct perun_point *p, struct perun_num *x,
		     struct perun_num *y)
{
	*x = p->x;
	*y = p->y;
	if (model == MODELLIB_LOGARITHMIC || model == MODELLIB_POWER) {
		if (!(p->x.d > 0))
			return 0;
		*x = num_float(model == MODELLIB_POWER ? log10(p->x.d) : log(p->x.d));
	}
	if (model == MODELLIB_POWER || model == MODELLIB_EXPONENTIAL) {
		if (!(p->y.d > 0))
			return 0;
		*y = num_float(log10(p->y.d));
	}
	return 1;
}

static void generic_sums(struct ra_fit *fit, size_t start, size_t end, size_t *skipped)
{
	for (size_t i = start; i < end; i++) {
		const struct perun_point *p = &fit->pts[i];
		struct perun_num x, y;
		if (!transform(fit->model, p, &x, &y)) {
			(*skipped)++;
			continue;
		}
		fit->x_sum += x.d;
		fit->y_sum += y.d;
		fit->x_sq_sum += term_pow(&x, 2);
		fit->y_sq_sum += term_pow(&y, 2);
		fit->xy_sum += term_mul(&x, &y);
		if (num_less(&p->x, &fit->x_min))
			fit->x_min = p->x;
		if (num_less(&fit->x_max, &p->x))
			fit->x_max = p->x;
	}
}

static void generic_model(struct ra_fit *fit)
{
	struct modellib_result *r = &fit->res;
	double num_sqrt = sqrt((double)r->pts_num);
	double s_xy = fit->xy_sum - safe_div(fit->x_sum, num_sqrt) * safe_div(fit->y_sum, num_sqrt);
	double s_xx = fit->x_sq_sum - py_pow(safe_div(fit->x_sum, num_sqrt), 2);
	double b1 = safe_div(s_xy, s_xx);
	double b0 = safe_div(fit->y_sum - b1 * fit->x_sum, (double)r->pts_num);
	int exp_a = fit->model == MODELLIB_POWER || fit->model == MODELLIB_EXPONENTIAL;
	r->coeffs[0] = exp_a ? pow(10, b0) : b0;
	r->coeffs[1] = fit->model == MODELLIB_EXPONENTIAL ? pow(10, b1) : b1;
	r->ncoeffs = 2;
	double tss = fit->y_sq_sum - py_pow(safe_div(fit->y_sum, num_sqrt), 2);
	/* Python's math.sqrt raises below zero, which only rounding reaches
	 * (all x alike): read it as the zero variance it is. */
	double rss = py_pow(safe_div(s_xy, s_xx > 0 ? sqrt(s_xx) : 0), 2);
	r->r_square = safe_div(rss, tss);
}

static void quad_sums(struct ra_fit *fit, size_t start, size_t end)
{
	for (size_t i = start; i < end; i++) {
		const struct perun_point *p = &fit->pts[i];
		fit->x_sum += p->x.d;
		fit->y_sum += p->y.d;
		fit->y_sq_sum += term_pow(&p->y, 2);
		fit->x_sq_sum += term_pow(&p->x, 2);
		fit->x_cube_sum += term_pow(&p->x, 3);
		fit->x4_sum += term_pow(&p->x, 4);
		fit->xy_sum += term_mul(&p->x, &p->y);
		fit->x_sq_y_sum += term_x2y(&p->x, &p->y);
		if (num_less(&p->x, &fit->x_min))
			fit->x_min = p->x;
		if (num_less(&fit->x_max, &p->x))
			fit->x_max = p->x;
	}
}

static enum modellib_failure quad_model(struct ra_fit *fit, struct modellib_fail *fail)
{
	struct modellib_result *r = &fit->res;
	double n = (double)r->pts_num;
	double s_xx = fit->x_sq_sum - (py_pow(fit->x_sum, 2) / n);
	double s_xy = fit->xy_sum - (fit->x_sum * fit->y_sum / n);
	double s_xx2 = fit->x_cube_sum - (fit->x_sq_sum * fit->x_sum / n);
	double s_x2y = fit->x_sq_y_sum - (fit->x_sq_sum * fit->y_sum / n);
	double s_x2x2 = fit->x4_sum - (py_pow(fit->x_sq_sum, 2) / n);
	double det_m = s_xx * s_x2x2 - py_pow(s_xx2, 2);
	/* Python Perun divides without safe_division here and dies. */
	if (det_m == 0)
		return failf(fail, MODELLIB_DEGENERATE,
			     "quadratic model: the x values do not determine a parabola "
			     "(singular normal equations)");
	double b2 = (s_x2y * s_xx - s_xy * s_xx2) / det_m;
	double b1 = (s_xy * s_x2x2 - s_x2y * s_xx2) / det_m;
	double b0 = (fit->y_sum - b1 * fit->x_sum - b2 * fit->x_sq_sum) / n;
	r->coeffs[0] = b0;
	r->coeffs[1] = b1;
	r->coeffs[2] = b2;
	r->ncoeffs = 3;
	double tss = fit->y_sq_sum - (py_pow(fit->y_sum, 2) / n);
	double sse = fit->y_sq_sum - b0 * fit->y_sum - b1 * fit->xy_sum - b2 * fit->x_sq_y_sum;
	r->r_square = 1 - safe_div(sse, tss);
	return MODELLIB_OK;
}

/*
 * Feed the next part of the points; MODELLIB_OK with fit->res filled, or -1 when
 * every part was fed (Python's StopIteration), or a failure.
 */
static int fit_step(struct ra_fit *fit, struct modellib_fail *fail)
{
	if (fit->part == 0 && check_split(fit->n, fit->steps, fail))
		return fail->code;
	if (fit->part >= fit->steps)
		return -1;
	size_t start, end, skipped = 0;
	split_part(fit->n, fit->steps, fit->part++, &start, &end);
	struct modellib_result *r = &fit->res;
	r->model = fit->model;
	if (fit->model == MODELLIB_QUADRATIC)
		quad_sums(fit, start, end);
	else
		generic_sums(fit, start, end, &skipped);
	/* Python subtracts only this part's skipped points (a quirk kept). */
	r->pts_num = (long long)(end - skipped);
	r->y_sum = fit->y_sum;
	r->x_start = fit->x_min;
	r->x_end = fit->x_max;
	if (fit->model == MODELLIB_QUADRATIC) {
		if (quad_model(fit, fail))
			return fail->code;
	} else {
		generic_model(fit);
	}
	for (int i = 0; i < r->ncoeffs; i++)
		if (!isfinite(r->coeffs[i]))
			return failf(fail, MODELLIB_DEGENERATE,
				     "%s model: coefficient b%d is not a finite number",
				     modellib_model_name(fit->model), i);
	if (!isfinite(r->r_square))
		return failf(fail, MODELLIB_DEGENERATE, "%s model: r^2 is not a finite number",
			     modellib_model_name(fit->model));
	return MODELLIB_OK;
}

/* ---- methods (methods.py) ---------------------------------------------- */

struct ra_run {
	const enum modellib_model *models;
	size_t nmodels;
	modellib_emit_fn emit;
	void *data;
	struct modellib_fail *fail;
};

static enum modellib_failure emit(struct ra_run *run, const struct modellib_result *r)
{
	if (run->emit(r, run->data))
		return failf(run->fail, MODELLIB_NOMEM, "out of memory");
	return MODELLIB_OK;
}

/* The first of the highest r^2, as _find_best_fitting_model. */
static size_t best_of(const struct modellib_result *results, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++)
		if (results[i].r_square > results[best].r_square)
			best = i;
	return best;
}

/* Every model on all points, into out (nmodels entries). */
static enum modellib_failure full_into(struct ra_run *run, const struct perun_point *pts, size_t n,
				       struct modellib_result *out, int do_emit)
{
	for (size_t m = 0; m < run->nmodels; m++) {
		struct ra_fit fit;
		if (fit_init(&fit, run->models[m], pts, n, 1, run->fail) ||
		    fit_step(&fit, run->fail) > 0)
			return run->fail->code;
		if (out)
			out[m] = fit.res;
		if (do_emit && emit(run, &fit.res))
			return run->fail->code;
	}
	return MODELLIB_OK;
}

static int cmp_x(const void *a, const void *b)
{
	const struct perun_point *p = a, *q = b;
	if (num_less(&p->x, &q->x))
		return -1;
	if (num_less(&q->x, &p->x))
		return 1;
	return p->idx < q->idx ? -1 : p->idx > q->idx;
}

/* tools.sort_points: Python's sort is stable, hence the idx tie-break. */
static enum modellib_failure sort_points(struct perun_point *pts, size_t n,
					 struct modellib_fail *fail)
{
	if (check_points(n, fail))
		return fail->code;
	qsort(pts, n, sizeof(*pts), cmp_x);
	return MODELLIB_OK;
}

/* iterative (advance the best until it finishes) and initial_guess (pick
 * the best after the first step, then finish it). */
static enum modellib_failure stepwise(struct ra_run *run, struct perun_point *pts, size_t n,
				      int steps, struct modellib_rng *rng, int advance_best)
{
	if (check_points(n, run->fail))
		return run->fail->code;
	if (rng)
		gsl_ran_shuffle(rng->r, pts, n, sizeof(*pts));
	struct ra_fit *fits = calloc(run->nmodels, sizeof(*fits));
	struct modellib_result *results = calloc(run->nmodels, sizeof(*results));
	enum modellib_failure rc = MODELLIB_OK;
	if (!fits || !results) {
		rc = failf(run->fail, MODELLIB_NOMEM, "out of memory");
		goto out;
	}
	for (size_t m = 0; m < run->nmodels; m++) {
		if (fit_init(&fits[m], run->models[m], pts, n, steps, run->fail) ||
		    fit_step(&fits[m], run->fail) > 0) {
			rc = run->fail->code;
			goto out;
		}
		results[m] = fits[m].res;
	}
	size_t best = best_of(results, run->nmodels);
	for (;;) {
		if (advance_best)
			best = best_of(results, run->nmodels);
		int st = fit_step(&fits[best], run->fail);
		if (st < 0) {
			rc = emit(run, &results[best]);
			break;
		}
		if (st > 0) {
			rc = run->fail->code;
			break;
		}
		results[best] = fits[best].res;
	}
out:
	free(fits);
	free(results);
	return rc;
}

static enum modellib_failure interval(struct ra_run *run, struct perun_point *pts, size_t n,
				      int steps)
{
	if (sort_points(pts, n, run->fail) || check_split(n, steps, run->fail))
		return run->fail->code;
	struct modellib_result *results = calloc(run->nmodels, sizeof(*results));
	if (!results)
		return failf(run->fail, MODELLIB_NOMEM, "out of memory");
	enum modellib_failure rc = MODELLIB_OK;
	for (int i = 0; i < steps && !rc; i++) {
		size_t start, end;
		split_part(n, steps, i, &start, &end);
		rc = full_into(run, pts + start, end - start, results, 0);
		if (!rc)
			rc = emit(run, &results[best_of(results, run->nmodels)]);
	}
	free(results);
	return rc;
}

static enum modellib_failure bisection_best(struct ra_run *run, const struct perun_point *pts,
					    size_t n, struct modellib_result *best)
{
	struct modellib_result *results = calloc(run->nmodels, sizeof(*results));
	if (!results)
		return failf(run->fail, MODELLIB_NOMEM, "out of memory");
	enum modellib_failure rc = full_into(run, pts, n, results, 0);
	if (!rc)
		*best = results[best_of(results, run->nmodels)];
	free(results);
	return rc;
}

static enum modellib_failure bisection_step(struct ra_run *run, const struct perun_point *pts,
					    size_t n, const struct modellib_result *last);

/* _bisection_solve_half_model: a half too small to split again keeps its
 * model; a split that cannot be made at all ends the uid, as upstream. */
static enum modellib_failure bisection_half(struct ra_run *run, const struct perun_point *pts,
					    size_t n, const struct modellib_result *half,
					    const struct modellib_result *last)
{
	if (half->model == last->model)
		return emit(run, half);
	enum modellib_failure rc = bisection_step(run, pts, n, half);
	if (rc == MODELLIB_TOO_FEW)
		return emit(run, half);
	return rc;
}

static enum modellib_failure bisection_step(struct ra_run *run, const struct perun_point *pts,
					    size_t n, const struct modellib_result *last)
{
	if (check_split(n, 2, run->fail))
		return run->fail->code;
	size_t start[2], end[2];
	struct modellib_result halves[2];
	for (int i = 0; i < 2; i++) {
		split_part(n, 2, i, &start[i], &end[i]);
		if (bisection_best(run, pts + start[i], end[i] - start[i], &halves[i]))
			return run->fail->code;
	}
	if (halves[0].model == last->model && halves[1].model == last->model)
		return emit(run, last);
	for (int i = 0; i < 2; i++) {
		enum modellib_failure rc =
			bisection_half(run, pts + start[i], end[i] - start[i], &halves[i], last);
		if (rc)
			return rc;
	}
	return MODELLIB_OK;
}

static enum modellib_failure bisection(struct ra_run *run, struct perun_point *pts, size_t n)
{
	struct modellib_result whole;
	if (sort_points(pts, n, run->fail) || bisection_best(run, pts, n, &whole))
		return run->fail->code;
	return bisection_step(run, pts, n, &whole);
}

enum modellib_failure modellib_compute(enum modellib_method method, struct perun_point *pts,
				       size_t n, const enum modellib_model *models, size_t nmodels,
				       int steps, struct modellib_rng *rng,
				       modellib_emit_fn emit_fn, void *data,
				       struct modellib_fail *fail)
{
	struct ra_run run = { models, nmodels, emit_fn, data, fail };
	fail->code = MODELLIB_OK;
	fail->message[0] = '\0';
	if (!nmodels)
		return MODELLIB_OK;
	switch (method) {
	case MODELLIB_FULL: return full_into(&run, pts, n, NULL, 1);
	case MODELLIB_ITERATIVE: return stepwise(&run, pts, n, steps, rng, 1);
	case MODELLIB_INITIAL_GUESS: return stepwise(&run, pts, n, steps, rng, 0);
	case MODELLIB_INTERVAL: return interval(&run, pts, n, steps);
	case MODELLIB_BISECTION: return bisection(&run, pts, n);
	default: return failf(fail, MODELLIB_DEGENERATE, "unknown method");
	}
}

void modellib_derive_constant(const struct modellib_result *linear, struct modellib_result *out)
{
	memset(out, 0, sizeof(*out));
	double y_start = linear->coeffs[0];
	double y_end = y_start + linear->coeffs[1] * linear->x_end.d;
	double dx = linear->x_end.is_int && linear->x_start.is_int
			    ? (double)((__int128)linear->x_end.i - linear->x_start.i)
			    : linear->x_end.d - linear->x_start.d;
	/* Python Perun divides the angle in radians by 90 (kept as is). */
	double slope_change = atan2(fabs(y_end - y_start), fabs(dx)) / 90;
	double r = slope_change > MODELLIB_B1_THRESHOLD ? linear->r_square * (1 - slope_change)
							: 1 - linear->r_square;
	if (r > 1 || r < 0) {
		r = r > 1 ? 1 : 0;
		out->r_square_int = 1;
	}
	out->model = MODELLIB_CONSTANT;
	out->r_square = r;
	out->x_start = linear->x_start;
	out->x_end = linear->x_end;
	out->coeffs[0] = linear->y_sum / (double)linear->pts_num;
	out->coeffs[1] = 0;
	out->b1_int = 1;
	out->ncoeffs = 2;
	out->y_sum = linear->y_sum;
	out->pts_num = linear->pts_num;
}
