#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-regression.sh [builddir] - regression analysis (all models, full
# method) on 1,000,000 points of one uid and on 10,000 uids x 100 points.
#
# Prints, in one run:
#   - the postprocess phase alone (bench/bench-regression, best of 3),
#   - perun postprocessby end to end (load, analyse, store the profile),
#   - the same fits with python3 + numpy (np.polyfit on the transformed
#     data, r^2 from the residuals; JSON loading not timed), if numpy is
#     there (Debian: python3-numpy).
# Prints figures, asserts nothing.
set -eu

builddir=$(cd "${1:-.}" && pwd)
make -s -C "$builddir" bench/bench-regression perun stage-plugins >/dev/null
. "$(dirname "$0")/bench-lib.sh"
bench_setup bench-regression "$builddir"

echo "# postprocess phase (C, in process)"
"$builddir/bench/bench-regression" --write "$work"

echo "# perun postprocessby, end to end (JSON load + analysis + store)"
for name in regression-1M-points regression-10k-uids; do
	printf '%-24s %8.3f s\n' "$name" \
		"$(bench_postprocessby "$work/$name.perf" regression-analysis)"
done

if bench_python numpy; then
	echo "# python3 + numpy, the same models (fits only)"
	"$py" - "$work" <<'PY'
import json, sys, time
import numpy as np

def fits(x, y):
    out = []
    def lin(xt, yt):
        b1, b0 = np.polyfit(xt, yt, 1)
        res = yt - (b0 + b1 * xt)
        tss = ((yt - yt.mean()) ** 2).sum()
        return b0, b1, 1 - (res ** 2).sum() / tss
    out.append(lin(x, y))                                 # linear
    pos = x > 0
    out.append(lin(np.log(x[pos]), y[pos]))               # logarithmic
    both = pos & (y > 0)
    out.append(lin(np.log10(x[both]), np.log10(y[both]))) # power
    ypos = y > 0
    out.append(lin(x[ypos], np.log10(y[ypos])))           # exponential
    out.append(np.polyfit(x, y, 2))                       # quadratic
    out.append((y.mean(), 0.0))                           # constant
    return out

for name in ("regression-1M-points", "regression-10k-uids"):
    with open(f"{sys.argv[1]}/{name}.perf") as f:
        prof = json.load(f)
    series = [(np.asarray(r["structure-unit-size"], dtype=float),
               np.asarray(r["amount"], dtype=float)) for r in prof["resources"].values()]
    best = 1e30
    for _ in range(3):
        t0 = time.perf_counter()
        for x, y in series:
            fits(x, y)
        best = min(best, time.perf_counter() - t0)
    print(f"{name:<24} {sum(len(x) for x, _ in series):9d} points {len(series):6d} uids {best:8.3f} s")
PY
else
	echo "# python3 + numpy: not installed (Debian: python3-numpy), skipped"
fi
