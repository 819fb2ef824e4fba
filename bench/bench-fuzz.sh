#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The long fuzz runs: each libFuzzer target of fuzz/ for FUZZ_SECONDS
# (default 60) from its seeds and regression corpus, one after another
# (one core each); prints executions per second and coverage, libFuzzer's
# cov: (edges) and ft: (features) at the end, per target.  A crash stops
# the run with libFuzzer's report and the input (exit 1).
#
# Usage: bench/bench-fuzz.sh [build-dir]    (default ./build)
#   uses build-dir/fuzz when configured --enable-fuzzing, otherwise
#   builds the targets with fuzz/build.sh into build-dir/fuzz/out.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
secs=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"profile_load config_yaml index_read store_object selector perf_script chrome_trace"}
if [ -x "$build/fuzz/fuzz_selector" ]; then
	bin=$build/fuzz
	make -C "$build" -s fuzz-targets >/dev/null
else
	bin=$build/fuzz/out
	sh "$top/fuzz/build.sh" "$bin" >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-fuzz.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

printf '%-14s %8s %12s %10s %8s %8s %7s\n' target seconds executions execs/s cov ft corpus
for t in $targets; do
	mkdir -p "$work/$t"
	if ! "$bin/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/" "$work/$t" "$top/fuzz/corpus/$t" \
		"$top/fuzz/regression/$t" >"$work/$t.log" 2>&1; then
		echo "fuzz_$t failed:"
		tail -n 40 "$work/$t.log"
		ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null
		KEEP=1
		trap - EXIT
		exit 1
	fi
	# The last status line ("#N DONE cov: C ft: F corp: K/..B ...
	# exec/s: E") and the final stats.
	awk -v t="$t" '
		/cov: / { for (i = 1; i < NF; i++) {
			if ($i == "cov:") cov = $(i + 1)
			if ($i == "ft:") ft = $(i + 1)
			if ($i == "corp:") { corp = $(i + 1); sub(/\/.*/, "", corp) } } }
		/^stat::number_of_executed_units:/ { runs = $2 }
		/^stat::average_exec_per_sec:/ { eps = $2 }
		/^Done [0-9]+ runs in [0-9]+ second/ { secs = $(NF - 1) }
		END { printf "%-14s %8s %12d %10d %8d %8d %7d\n", t, secs, runs, eps, cov, ft, corp }
	' "$work/$t.log"
done
