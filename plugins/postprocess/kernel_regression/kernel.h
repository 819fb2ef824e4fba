/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The numerics of kernel_regression: the estimators Python Perun takes from
 * statsmodels (KernelReg), its pyqt_fit port and scikit-learn, on one
 * series of points sorted by x.  Plain arrays in, plain arrays out; the
 * plugin glue (options, profile, records) is kernel_regression.c.
 */
#ifndef KR_KERNEL_H
#define KR_KERNEL_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

/* Why a computation failed; the message names no uid (the caller adds it). */
enum kr_status {
	KR_OK = 0,
	KR_NOMEM = -1,
	KR_DEGENERATE = -2, /* the data admits no estimate (message says why) */
};

struct kr_fail {
	char message[256];
};

/* ---- statsmodels KernelReg (gaussian kernel) ---- */

enum kr_reg_type { KR_LC, KR_LL };
enum kr_bw_method { KR_CV_LS, KR_AIC };

struct kr_efficient {
	int enabled; /* EstimatorSettings.efficient */
	int randomize;
	size_t n_sub;
	size_t n_res;
	int return_median;
	gsl_rng *rng; /* for randomize */
};

/* The fitted means at x (KernelReg.fit()[0]) for bandwidth bw. */
int kr_np_fit(enum kr_reg_type type, double bw, const double *x, const double *y, size_t n,
	      double *mean, struct kr_fail *fail);

/* The bandwidth KernelReg selects (cv_ls or aic by scipy's fmin, or the
 * efficient sub-sample scaling). */
int kr_np_select_bw(enum kr_reg_type type, enum kr_bw_method method, const struct kr_efficient *eff,
		    const double *x, const double *y, size_t n, double *bw, struct kr_fail *fail);

/* KernelReg.r_squared() for the fitted means; NaN for constant y. */
double kr_np_r_squared(const double *y, const double *mean, size_t n);

/* statsmodels' bw_scott / bw_silverman rules of thumb. */
enum kr_rule { KR_SCOTT, KR_SILVERMAN };
int kr_rule_bw(enum kr_rule rule, const double *x, size_t n, double *bw, struct kr_fail *fail);

/* ---- pyqt_fit NonParamRegression (kernel-smoothing) ---- */

enum kr_kernel { KR_EPANECHNIKOV, KR_TRICUBE, KR_NORMAL, KR_EPANECHNIKOV4, KR_NORMAL4 };
enum kr_smoothing { KR_SPATIAL_AVERAGE, KR_LOCAL_LINEAR, KR_LOCAL_POLYNOMIAL };

/* The bandwidth of scotts_covariance / silverman_covariance (the square
 * root of the variance bandwidth). */
int kr_covariance_bw(enum kr_rule rule, const double *x, size_t n, double *bw,
		     struct kr_fail *fail);

/* Estimates at x; *bw may grow by 1 per singular local-polynomial system, as
 * Perun's iterative_computation retries. */
int kr_smooth(enum kr_kernel kernel, enum kr_smoothing method, int order, double *bw,
	      const double *x, const double *y, size_t n, double *out, struct kr_fail *fail);

/* ---- kernel-ridge (Perun's own Nadaraya-Watson with an rbf kernel) ---- */

/* Picks gamma from np.arange(lo, hi, step) by leave-one-out MSE, then
 * predicts at x. */
int kr_ridge(double lo, double hi, double step, const double *x, const double *y, size_t n,
	     double *gamma, double *out, struct kr_fail *fail);

#endif
