#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The graphical and diff views on big profiles (issue 6: under two seconds).
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
#   perun showdiff <kperf> <kperf, shifted> table
#   perun showdiff <kperf> <kperf, shifted> report
# and the time perun takes just to load each profile (perun show <p>
# tableof models: an empty or tiny table), which is part of every figure.
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-views "${1:-.}"
n=${2:-1000000}
cache=${BENCH_CACHE:-/tmp/perun-bench-views}
mkdir -p "$cache"

gen() {
	name=$1 script=$2
	shift 2
	[ -s "$cache/$name" ] && return 0
	echo "generating $name ..." >&2
	python3 "$here/$script" "$n" "$cache/$name.tmp" "$@" && mv "$cache/$name.tmp" "$cache/$name"
}
gen points-$n.perf gen-scatter-profile.py
# gen-stacks-profile.py takes the number of distinct stacks.
gen_stacks() {
	name=$1
	shift
	[ -s "$cache/$name" ] && return 0
	echo "generating $name ..." >&2
	python3 "$here/gen-stacks-profile.py" $((n / 10)) "$cache/$name.tmp" "$@" &&
		mv "$cache/$name.tmp" "$cache/$name"
}
gen_stacks kperf-$n.perf
gen_stacks kperf-$n-shifted.perf --seed 2 --shift 3

measure() {
	label=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
		{ printf '%-52s failed: %s\n' "$label" "$(tail -1 "$work/err")"; return 0; }
	read -r wall user sys rss <"$work/time"
	awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" \
		'BEGIN { printf "%-52s %7.2f s wall %7.2f s cpu %6d MB\n", l, w, u + s, m / 1024 }'
}
size() { du -m "$1" | cut -f1; }

echo "profiles: points $(size "$cache/points-$n.perf") MB, kperf $(size "$cache/kperf-$n.perf") MB" \
	"($n resources each); load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
measure "scatter, $n points" \
	"$PERUN" show "$cache/points-$n.perf" scatter -f "$work/scatter"
echo "  page $(size "$work/scatter.html") MB, $(ls "$work"/scatter_*.svg | wc -l) SVGs"
measure "bars mean per structure-unit-size by uid" \
	"$PERUN" show "$cache/points-$n.perf" bars mean --of amount --per structure-unit-size \
	--by uid -f "$work/bars.html"
measure "showdiff table, two kperf profiles" \
	"$PERUN" showdiff "$cache/kperf-$n.perf" "$cache/kperf-$n-shifted.perf" table
measure "showdiff report, two kperf profiles" \
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
measure "load only: the points profile" \
	"$PERUN" show "$cache/points-$n.perf" tableof models
measure "load only: one kperf profile" \
	"$PERUN" show "$cache/kperf-$n.perf" tableof models
