#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The graphical and diff views on big profiles (issue 6: under two seconds;
# issue 21: tableof resources of a million rows under one second).
#
#   bench/bench-views.sh [builddir] [resources]
#
# Generates (cached in $BENCH_CACHE, default /tmp/perun-bench-views) a
# profile of <resources> points over 10 uids with two models each
# (bench/gen-scatter-profile.py) and two kperf profiles of <resources>
# resources (bench/gen-stacks-profile.py with <resources>/10 distinct call
# stacks, each sampled 10 times on average; the target with one function's
# subtree shifted), default 1,000,000 each, and prints wall,
# user+system time and peak memory of:
#   perun show <points> scatter
#   perun show <points> bars mean --of amount --per structure-unit-size --by uid
#   perun show <points> tableof resources (a table of <resources> rows)
#   perun showdiff <kperf> <kperf, shifted> table
#   perun showdiff <kperf> <kperf, shifted> report
# and the time perun takes just to load each profile (perun show <p>
# tableof models: an empty or tiny table), which is part of every figure.
# tableof resources at 1,000,000 rows, 2 cores: 0.44 s wall and CPU, 71 MB
# peak (before issue 21: 0.92 s, 297 MB); 0.82 s wall, 0.52 s CPU with the
# machine loaded at 6.  Of the CPU, loading takes 0.05 s and building the
# table 0.06 s (tableof -f uid none resources: no row shown).
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-views "${1:-.}"
n=${2:-1000000}
cache=${BENCH_CACHE:-/tmp/perun-bench-views}
mkdir -p "$cache"

bench_generate "$cache/points-$n.perf" "$here/gen-scatter-profile.py" "$n"
# gen-stacks-profile.py takes the number of distinct stacks.
bench_generate "$cache/kperf-$n.perf" "$here/gen-stacks-profile.py" $((n / 10))
bench_generate "$cache/kperf-$n-shifted.perf" "$here/gen-stacks-profile.py" $((n / 10)) \
	--seed 2 --shift 3

bench_label_width=52
size() { du -m "$1" | cut -f1; }

echo "profiles: points $(size "$cache/points-$n.perf") MB, kperf $(size "$cache/kperf-$n.perf") MB" \
	"($n resources each); load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
bench_measure "scatter, $n points" \
	"$PERUN" show "$cache/points-$n.perf" scatter -f "$work/scatter"
echo "  page $(size "$work/scatter.html") MB, $(ls "$work"/scatter_*.svg | wc -l) SVGs"
bench_measure "bars mean per structure-unit-size by uid" \
	"$PERUN" show "$cache/points-$n.perf" bars mean --of amount --per structure-unit-size \
	--by uid -f "$work/bars.html"
bench_measure "tableof resources, $n rows" \
	"$PERUN" show "$cache/points-$n.perf" tableof resources
bench_measure "showdiff table, two kperf profiles" \
	"$PERUN" showdiff "$cache/kperf-$n.perf" "$cache/kperf-$n-shifted.perf" table
bench_measure "showdiff report, two kperf profiles" \
	"$PERUN" showdiff "$cache/kperf-$n.perf" "$cache/kperf-$n-shifted.perf" report \
	-o "$work/report.html"
echo "  page $(size "$work/report.html") MB"
# The browser's share: load, parse and first draw of each page, in headless
# Chromium (navigation start to the end of the load event, one run).
browser=$here/../tests/helpers/browser-check.py
if python3 "$browser" --timeout 120 --eval 1 "$work/report.html" >"$work/bc" 2>&1 ||
	[ $? -ne 77 ]; then
	for page in scatter.html bars.html report.html; do
		python3 "$browser" --timeout 120 --settle 0 \
			--eval "Math.round(performance.getEntriesByType('navigation')[0].loadEventEnd)" \
			"$work/$page" >"$work/bc" 2>&1 || true
		ms=$(sed -n 's/^eval Math.round.* \([0-9]*\)$/\1/p' "$work/bc")
		printf '%-52s %7s ms to loaded and drawn\n' "Chromium: $page" "${ms:-failed}"
	done
else
	echo "Chromium: not found, pages not timed"
fi
# perun's own share: loading a profile (its models table is tiny or empty).
bench_measure "load only: the points profile" \
	"$PERUN" show "$cache/points-$n.perf" tableof models
bench_measure "load only: one kperf profile" \
	"$PERUN" show "$cache/kperf-$n.perf" tableof models
