#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-moving-average.sh [builddir] - the moving-average postprocessor on
# one uid of 1,000,000 float points (tests/helpers/points-profile.sh):
#   perun  - perun postprocessby end to end (JSON load, analysis, store)
#   phase  - the postprocess phase alone (bench/bench-postprocess, best of 3)
#   pandas - upstream's computation in python3 (sort, pandas rolling/ewm,
#            the r^2, the width search), JSON loading not timed, and
#            "ratio" = pandas / phase; skipped without python3-pandas.
# Prints figures, asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-moving-average "${1:-.}"
make -s -C "$builddir" bench/bench-postprocess >/dev/null
phase_of() { "$builddir/bench/bench-postprocess" "$PERUN_PLUGIN_PATH/postprocess/moving_average.so" "$@"; }

"$here/../tests/helpers/points-profile.sh" 3 bench/1000000/float/1000000 >"$work/points.perf"
bench_python "numpy, pandas, scipy.signal" || echo "# python3 with numpy, scipy and pandas: not installed (Debian: python3-pandas python3-scipy), pandas skipped"

printf '%-30s %8s %8s %8s %8s\n' "1,000,000 points" "perun s" "phase s" "pandas s" "ratio"
while read -r cli args; do
	perun_s=$(bench_postprocessby "$work/points.perf" moving-average $(echo "$cli" | tr , " "))
	phase_s=$(phase_of "$work/points.perf" $args | cut -d" " -f2)
	pandas_s=- ratio=-
	if [ -n "$py" ]; then
		pandas_s=$("$py" - "$work/points.perf" $args <<'PY'
import json, sys, time
import numpy as np
import pandas as pd

with open(sys.argv[1]) as f:
    (columns,) = json.load(f)["resources"].values()
x_in, y_in = columns["structure-unit-size"], columns["amount"]
opts = dict(arg.split("=") for arg in sys.argv[2:])
method = opts.get("moving_method", "sma")

def r2(y, s):
    y, s = np.asarray(y), np.nan_to_num(s)
    return 1 - ((y - s) ** 2).sum() / ((y - y.mean()) ** 2).sum()

def compute(y, w):
    if method == "ema":
        s = pd.Series(y).ewm(**{opts["decay"]: w}, min_periods=w).mean()
    else:
        r = pd.Series(y).rolling(window=w, center=True, win_type=opts.get("window_type"))
        s = r.median() if method == "smm" else r.mean()
    return s, r2(y, s)

best = 1e30
for _ in range(3):
    t0 = time.perf_counter()
    x, y = map(list, zip(*sorted(zip(x_in, y_in))))
    if "window_width" in opts:
        w = float(opts["window_width"]) if method == "ema" else int(opts["window_width"])
        compute(y, w)
    else:  # methods.iterative_analysis
        w, r, change = max(1, int(0.05 * (max(x) - min(x)))), 0.0, 1
        while r < 0.88 and change:
            s, r = compute(y, w)
            c = 0.15 * (w - 1) * (0.88 - r)
            new = max(1, w - max(1, int(min(0.9 * w - 1, c))))
            change, w = w - new, new
    best = min(best, time.perf_counter() - t0)
print(f"{best:.3f}")
PY
)
		ratio=$(echo "scale=1; $pandas_s / $phase_s" | bc)x
	fi
	printf '%-30s %8s %8s %8s %8s\n' "$cli" "$perun_s" "$phase_s" "$pandas_s" "$ratio"
done <<'CASES'
sma,-ww,100 window_width=100
sma moving_method=sma
smm,-ww,101 moving_method=smm window_width=101
ema,-d,span,20 moving_method=ema decay=span window_width=20
sma,-ww,20,-wt,hamming window_width=20 window_type=hamming
CASES
