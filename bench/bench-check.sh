#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-check.sh [builddir] - perun check profiles on two trace-like
# profiles of 10,000 functions each (5 calls per function with amount,
# exclusive time, call order, timestamp and structure-unit-size; and per
# function a linear, a quadratic and a regressogram model), once per
# method, end to end (start-up, loading both profiles, the check, the
# report and the .changes file).  Prints the wall and CPU seconds of the
# fastest of 3 runs (needs GNU time, Debian: time).  Target: under one
# second per method.  Asserts nothing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
builddir=$(cd "${1:-.}" && pwd)
make -s -C "$builddir" perun stage-plugins >/dev/null 2>&1 || true
bench_setup bench-check "$builddir"

python3 "$here/gen-check-profiles.py" "$work"
ls -l "$work"/baseline.perf "$work"/target.perf | awk '{printf "# %s: %.1f MB\n", $NF, $5 / 1e6}'

printf '# load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %8s %8s %8s\n' method wall cpu changes
for m in aat bmoe preg lreg fast int loc eto; do
	[ -f "$PERUN_PLUGIN_PATH/check/$m.so" ] || { printf '%-6s %8s\n' "$m" "not built"; continue; }
	"$PERUN" config --local set degradation.strategies "[{method: $m}]" >/dev/null
	"$PERUN" config --local set degradation.apply first >/dev/null
	set -- $(bench_best "$PERUN" check profiles "$work/baseline.perf" "$work/target.perf")
	n=$("$PERUN" check profiles "$work/baseline.perf" "$work/target.perf" --format json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["changes"])')
	printf '%-6s %8s %8s %8s\n' "$m" "$1" "$2" "$n"
done
