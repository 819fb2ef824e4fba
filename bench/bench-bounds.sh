#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The bounds collector (issue 18) on a real C code base, by default this
# project's own sources (core, sdk, plugins: well over 20,000 lines):
#
#   bench/bench-bounds.sh [builddir] [source-dir...]
#
# Runs perun collect bounds once over every .c file with the project's
# include paths and prints: lines, files (and how many did not parse),
# functions, loops, the share of loops bounded and of O(∞) answers, the
# classes found, the reasons of the O(∞) answers, Z3 queries, and the
# wall and user+system time of the whole collection (of which parsing).
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/bench-lib.sh"
bench_setup bench-bounds "${1:-.}"
shift $(($# > 0 ? 1 : 0))
[ $# -gt 0 ] || set -- "$top/core" "$top/sdk" "$top/plugins"
command -v jq >/dev/null || { echo "bench-bounds: needs jq" >&2; exit 2; }

incs="-I $top/sdk/include -I $top/core -I $builddir -I $builddir/sdk/include"
for d in "$top"/plugins/lib/*/; do incs="$incs -I $d"; done
llvm=$(llvm-config-14 --includedir 2>/dev/null || llvm-config --includedir 2>/dev/null || true)
[ -n "$llvm" ] && incs="$incs -I $llvm"
dirs=
for d in "$@"; do dirs="$dirs -d $d"; done

lines=$(find "$@" -name '*.c' -exec cat {} + | wc -l)
# shellcheck disable=SC2086
PERUN_BOUNDS_STATS=1 /usr/bin/time -f "%e %U %S" -o "$work/time" \
	"$PERUN" collect -c sources bounds $dirs $incs -D _GNU_SOURCE >/dev/null 2>"$work/err"
read -r wall user sys <"$work/time"
stats=$(grep '^bounds: ' "$work/err")
p=$(ls .perun/jobs/bounds-*.perf)

echo "sources: $* ($lines lines of .c)"
echo "$stats"
echo "wall ${wall} s, user+system $(echo "$user + $sys" | bc) s"
jq -r '[.resource_type_map[] | select(.type == "local bound")] |
	"loops \(length), bounded \(map(select(.class != "O(∞)")) | length) (\(
	(map(select(.class != "O(∞)")) | length) * 1000 / length | floor / 10)%), O(∞) \(
	map(select(.class == "O(∞)")) | length) (\(
	(map(select(.class == "O(∞)")) | length) * 1000 / length | floor / 10)%)"' "$p"
echo "classes of the local bounds:"
jq -r '.resource_type_map[] | select(.type == "local bound") | .class' "$p" |
	sort | uniq -c | sort -rn
echo "reasons of the O(∞) local bounds:"
jq -r '.resource_type_map[] | select(.type == "local bound") | .reason // empty' "$p" |
	sort | uniq -c | sort -rn
echo "total bounds of functions with loops, by class:"
jq -r '.resource_type_map[] | select(.type == "total bound" and .bound != "0") | .class' "$p" |
	sort | uniq -c | sort -rn
