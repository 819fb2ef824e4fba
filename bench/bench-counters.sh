#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Overhead of the counters collector against perf stat (issue 14), side by
# side in one run on the same program and events:
#
#   bench/bench-counters.sh [builddir] [repetitions]
#
# For a short program (counters-helper pages 100, a few ms) and a longer
# one (pages 20000), prints the best of three wall and user+system times
# of <repetitions> (default 200) runs of
#   the program alone, in a shell loop (the floor)
#   perf stat -r N -e <events> -- <program>
#   perun collect -c <program> counters -r N -e <events>  (profile stored)
# and the ratio perun / perf of the totals, of the overhead above the
# floor and of the CPU time (the steadier figure on a shared machine).
# perf is looked for as perf, then /usr/bin/perf_* (Debian: linux-perf).
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-counters "${1:-.}"
n=${2:-200}
helper="$builddir/plugins/collect/counters/tests/counters-helper"
events=task-clock,context-switches,page-faults

perf=$(command -v perf || ls /usr/bin/perf_* 2>/dev/null | head -n 1 || true)
[ -n "$perf" ] && "$perf" stat -e task-clock true >/dev/null 2>&1 ||
	{ echo "bench-counters: no working perf (Debian: apt-get install linux-perf)" >&2; exit 2; }
[ -x "$helper" ] || { echo "bench-counters: build $helper first (make check)" >&2; exit 2; }
command -v bc >/dev/null || { echo "bench-counters: needs bc" >&2; exit 2; }

printf '%-22s %-8s %10s %10s\n' program tool wall-s cpu-s
for pages in 100 20000; do
	# shellcheck disable=SC2016
	set -- $(bench_best sh -c 'i=0; while [ $i -lt "$1" ]; do "$2" pages "$3"; i=$((i + 1)); done' \
		sh "$n" "$helper" $pages)
	bare_wall=$1 bare_cpu=$2
	set -- $(bench_best "$perf" stat -r "$n" -e "$events" -- "$helper" pages $pages)
	perf_wall=$1 perf_cpu=$2
	set -- $(bench_best "$PERUN" collect -c "$helper" -a "pages $pages" counters -r "$n" \
		-e "$events")
	perun_wall=$1 perun_cpu=$2
	for row in "alone $bare_wall $bare_cpu" "perf $perf_wall $perf_cpu" \
		"perun $perun_wall $perun_cpu"; do
		set -- $row
		printf '%-22s %-8s %10s %10s\n' "pages $pages x$n" "$1" "$2" "$3"
	done
	echo "$perun_wall $perf_wall $bare_wall $perun_cpu $perf_cpu" | awk '{
		printf "  perun/perf: total %.2fx", $1 / $2
		if ($2 - $3 > 0.001) printf ", overhead above the program alone %.2fx", ($1 - $3) / ($2 - $3)
		if ($5 > 0.001) printf "; cpu %.2fx", $4 / $5
		printf "\n" }'
done
