#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-kernel-regression.sh [builddir] - kernel_regression's modes on
# 10,000 and 100,000 points of one uid (x = 0..N-1,
# y = 3x + 20 sin(x/50) + 5 sin(12.9898x)).
#
# Prints, in one run:
#   - the numerics alone per mode (bench/bench-kernel-regression, in process),
#   - perun postprocessby end to end on a 100,000-point profile,
#   - the same estimates with the libraries Python Perun calls (statsmodels'
#     KernelReg, scikit-learn's rbf kernel in Perun's leave-one-out loop) and
#     the ratio python / C, if python3 has statsmodels and sklearn (Debian:
#     python3-statsmodels python3-sklearn); skipped otherwise.
# Estimators whose every point weighs every other point (a bandwidth
# spanning the data) are O(n^2) per fit, and cv_ls repeats that per step of
# its search: those run at the sizes noted.  Prints figures, asserts nothing.
set -eu

builddir=$(cd "${1:-.}" && pwd)
make -s -C "$builddir" bench/bench-kernel-regression perun stage-plugins >/dev/null
bench="$builddir/bench/bench-kernel-regression"
. "$(dirname "$0")/bench-lib.sh"

# mode, sizes
runs="estimator-cv_ls:1000,2000,2186
estimator-efficient:10000,100000
user-selection:10000,100000
method-selection:10000
smoothing-spatial:10000,100000
smoothing-linear:10000
smoothing-poly:10000
ridge:10000"

echo "# numerics in process (C): mode, points, seconds, bandwidth, r2"
echo "$runs" | while IFS=: read -r mode sizes; do
	for n in $(echo "$sizes" | tr , ' '); do
		"$bench" "$mode" "$n" | tee -a "${TMPDIR:-/tmp}/bench-kr.$$"
	done
done
c_results="${TMPDIR:-/tmp}/bench-kr.$$"
echo "# not run at 100,000 points (O(n^2) per fit): method-selection (scott's" \
	"bandwidth spans the data), smoothing-linear, smoothing-poly, ridge;" \
	"estimator-cv_ls also repeats its fit per search step"

bench_setup bench-kernel-regression "$builddir"
trap 'rm -rf "$work" "$c_results"' EXIT INT TERM
echo "# perun postprocessby, end to end (JSON load + analysis + store), 100,000 points"
# points_profile <n> <file>: the bench's points as a profile of one uid.
points_profile() {
	awk -v n="$1" 'BEGIN {
	printf "{\"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\", \"units\": {\"mixed(time delta)\": \"ms\"}},\n"
	printf " \"collector_info\": {\"name\": \"trace\", \"params\": {}}, \"postprocessors\": [],\n"
	printf " \"resource_type_map\": {\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}},\n"
	printf " \"resources\": {\"f#0\": {\"structure-unit-size\": ["
	for (i = 0; i < n; i++) printf "%s%d", (i ? ", " : ""), i
	printf "], \"amount\": ["
	for (i = 0; i < n; i++) printf "%s%.17g", (i ? ", " : ""), 3 * i + 20 * sin(i / 50) + 5 * sin(12.9898 * i)
	printf "]}}, \"models\": []}\n"
	}' >"$2"
}
points_profile 100000 "$work/points-100k.perf"
for args in "kernel-smoothing" "user-selection -bv 2.5" "estimator-settings --efficient"; do
	# shellcheck disable=SC2086 # the mode and its options are words
	printf '%-32s %9.3f s\n' "$args" \
		"$(bench_postprocessby "$work/points-100k.perf" kernel-regression $args)"
done
# Issue 21: estimator settings (cv_ls, every point left out in turn) on
# 2,186 points, with wall, cpu and memory (and BENCH_BEFORE's figures).
points_profile 2186 "$work/points-2186.perf"
cp "$work/points-2186.perf" .perun/jobs/points-2186.perf
bench_measure "postprocessby estimator-settings, 2186 points" \
	"$PERUN" postprocessby -ot bench-2186 points-2186.perf kernel-regression estimator-settings

if ! bench_python "statsmodels, sklearn"; then
	echo "# python3 with statsmodels and sklearn not found: no side-by-side figures"
	exit 0
fi
echo "# the libraries Python Perun calls, same data: mode, points, seconds, python / C"
"$py" - "$c_results" <<'PY'
import sys, time, warnings
import numpy as np
import statsmodels.nonparametric.api as nparam
from sklearn.metrics import pairwise, r2_score

warnings.filterwarnings("ignore")
c_time = {}
for line in open(sys.argv[1]):
    f = line.split()
    c_time[(f[0], int(f[1]))] = float(f[2])

def data(n):
    x = np.arange(n, dtype=float)
    return x, 3 * x + 20 * np.sin(x / 50) + 5 * np.sin(12.9898 * x)

def kernelreg(x, y, bw, **settings):
    defaults = nparam.EstimatorSettings(**settings) if settings else None
    k = nparam.KernelReg(endog=[y], exog=[x], reg_type="ll", var_type="c", bw=bw,
                         defaults=defaults)
    return k.fit()[0]

def ridge(x, y):
    # kernel_regression.methods.KernelRidge: leave-one-out gamma, then predict
    x = x.reshape(-1, 1)
    gammas = np.arange(1e-5, 1e-4, 1e-5)
    mse = []
    for g in gammas:
        k = pairwise.pairwise_kernels(x, x, "rbf", gamma=g)
        np.fill_diagonal(k, 0)
        err = (k * y[:, np.newaxis]).sum(axis=0) / k.sum(axis=0) - y
        mse.append((err ** 2).mean())
    g = gammas[np.nanargmin(mse)]
    k = pairwise.pairwise_kernels(x, x, "rbf", gamma=g)
    return (k * y[:, None]).sum(axis=0) / k.sum(axis=0)

cases = [
    ("estimator-cv_ls", 1000, lambda x, y: kernelreg(x, y, "cv_ls")),
    ("estimator-efficient", 10000, lambda x, y: kernelreg(x, y, "cv_ls", efficient=True,
                                                          return_median=False)),
    ("user-selection", 10000, lambda x, y: kernelreg(x, y, [2.5])),
    ("method-selection", 10000, lambda x, y: kernelreg(
        x, y, [nparam.bandwidths.select_bandwidth(x, "scott", None)])),
    ("ridge", 10000, ridge),
]
for mode, n, fn in cases:
    x, y = data(n)
    t0 = time.perf_counter()
    fit = fn(x, y)
    t = time.perf_counter() - t0
    c = c_time.get((mode, n))
    ratio = f"{t / c:8.1f}x" if c else "       -"
    print(f"{mode:20} {n:7} {t:9.3f} s  {ratio}  r2 {r2_score(y, fit):.6f}")
print("# not compared: kernel-smoothing (pyqt_fit is vendored in Perun, not a library)")
PY
