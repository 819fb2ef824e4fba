#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-run-jobs.sh [builddir] - the job runner's own cost per job.
#
# Runs perun run job with JOBS workloads (one job each: the time collector,
# one repetition, no warm-up) and with 2 workloads, and prints the runner's
# overhead per job: wall time minus the command's own measured time, taken
# as the difference of the two runs so the start-up of perun is not in it.
# Everything but the profiled command counts: the job loop, the collector's
# phases, the profile building, naming, writing it and the pending index.
# Side by side: the same command run bare JOBS times by hyperfine -N (when
# installed), and the fixed start-up of perun run.  Prints, asserts nothing.
#
#   PERUN=path     perun to use (default: the build tree's, with its plugins)
#   CMD=/bin/true  the command profiled;  JOBS=200  jobs in the long run
set -eu

jobs=${JOBS:-200}
cmd=${CMD:-/bin/true}
. "$(dirname "$0")/bench-lib.sh"
bench_setup bench-run-jobs "${1:-.}"

# run_jobs N: "<wall ns> <sum of the measured reals ns>" of one perun run job.
run_jobs() {
	rm -rf .perun/jobs
	n=$1
	set --
	i=0
	while [ $i -lt "$n" ]; do set -- "$@" -w "$i"; i=$((i + 1)); done
	s=$(now_ns)
	"$PERUN" run job -b "$cmd" "$@" -c time -cp time "{repeat: 1, warmup: 0}" >/dev/null
	e=$(now_ns)
	sum=0
	for p in .perun/jobs/*.perf; do
		r=$("$PERUN" show "$p" tableof --format csv -h amount -f subtype real resources |
			awk 'NR > 1 { s += $1 } END { printf "%.0f", s * 1e9 }')
		sum=$((sum + r))
	done
	echo "$((e - s)) $sum"
}

set -- $(run_jobs "$jobs")
long_wall=$1 long_cmd=$2
set -- $(run_jobs 2)
short_wall=$1 short_cmd=$2

awk -v n="$jobs" -v lw="$long_wall" -v lc="$long_cmd" -v sw="$short_wall" -v sc="$short_cmd" '
BEGIN {
	per_job = ((lw - lc) - (sw - sc)) / (n - 2) / 1e6
	fixed = ((sw - sc) / 1e6) - 2 * per_job
	printf "perun run job, %d jobs:   wall %.1f ms, command %.1f ms\n", n, lw / 1e6, lc / 1e6
	printf "runner overhead per job:  %.3f ms (target < 5 ms)\n", per_job
	printf "fixed start-up of a run:  %.1f ms\n", fixed
	printf "command mean (measured):  %.3f ms\n", lc / n / 1e6
}'

if command -v hyperfine >/dev/null; then
	hyperfine -N --runs "$jobs" --export-csv "$work/hf.csv" --style none "$cmd" >/dev/null 2>&1
	awk -F, 'NR == 2 { printf "bare command (hyperfine -N): mean %.3f ms\n", $2 * 1e3 }' "$work/hf.csv"
fi
