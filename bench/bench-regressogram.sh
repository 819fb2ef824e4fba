#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-regressogram.sh [builddir] - the regressogram postprocessor on one
# uid of 1,000,000 float points (tests/helpers/points-profile.sh), per rule:
#   perun  - perun postprocessby end to end (JSON load, analysis, store)
#   phase  - the postprocess phase alone (bench/bench-postprocess, best of 3)
#   numpy  - upstream's computation in python3 (numpy's _hist_bin_<rule>,
#            scipy.stats.binned_statistic, the r^2), JSON loading not timed,
#            and "ratio" = numpy / phase; skipped without python3-numpy and
#            python3-scipy.
# Prints figures, asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-regressogram "${1:-.}"
make -s -C "$builddir" bench/bench-postprocess >/dev/null
phase_of() { "$builddir/bench/bench-postprocess" "$PERUN_PLUGIN_PATH/postprocess/regressogram.so" "$@"; }

"$here/../tests/helpers/points-profile.sh" 3 bench/1000000/float/1000000 >"$work/points.perf"
bench_python "numpy, scipy.stats" || echo "# python3 with numpy and scipy: not installed (Debian: python3-numpy python3-scipy), numpy skipped"

printf '%-22s %8s %8s %8s %8s\n' "1,000,000 points" "perun s" "phase s" "numpy s" "ratio"
for args in "bucket_method=doane" "bucket_method=fd statistic_function=median" \
	"bucket_method=sqrt" "bucket_number=1000"; do
	perun_s=$(bench_postprocessby "$work/points.perf" regressogram \
		$(echo "$args" | sed 's/\([a-z_]*\)=/--\1 /g'))
	phase_s=$(phase_of "$work/points.perf" $args | cut -d" " -f2)
	numpy_s=- ratio=-
	if [ -n "$py" ]; then
		numpy_s=$("$py" - "$work/points.perf" $args <<'PY'
import json, sys, time
import numpy as np
import numpy.lib.histograms as hist
import scipy.stats

with open(sys.argv[1]) as f:
    (columns,) = json.load(f)["resources"].values()
x, y = columns["structure-unit-size"], columns["amount"]
opts = dict(arg.split("=") for arg in sys.argv[2:])
best = 1e30
for _ in range(3):
    t0 = time.perf_counter()
    if "bucket_number" in opts:
        buckets = int(opts["bucket_number"])
    else:
        buckets = getattr(hist, "_hist_bin_" + opts["bucket_method"])(np.array(x), None)
    stats, edges, numbers = scipy.stats.binned_statistic(
        x, y, opts.get("statistic_function", "mean"), max(1, buckets))
    stats = np.nan_to_num(stats)
    yt = np.asarray(y)
    pred = [stats[n - 1] for n in numbers]
    r2 = 1 - ((yt - pred) ** 2).sum() / ((yt - yt.mean()) ** 2).sum()
    best = min(best, time.perf_counter() - t0)
print(f"{best:.3f}")
PY
)
		ratio=$(echo "scale=1; $numpy_s / $phase_s" | bc)x
	fi
	printf '%-22s %8s %8s %8s %8s\n' "$(echo $args | sed 's/bucket_//g; s/statistic_function=//')" \
		"$perun_s" "$phase_s" "$numpy_s" "$ratio"
done
