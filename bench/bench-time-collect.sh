#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-time-collect.sh [builddir] - the time collector against hyperfine.
#
# Runs, in one go and on the same command,
#   perun collect -c CMD time -r N -w 0
#   hyperfine -N --runs N CMD
# and prints for each the mean time of CMD it measured, the overhead per
# repetition (wall time not spent in CMD, from the difference between a run
# of N and a run of 2 repetitions, so start-up is not in it) and the fixed
# cost of one invocation, then the ratios.  Prints figures, asserts nothing.
#
#   PERUN=path     perun to use (default: the build tree's, with its plugins)
#   CMD=/bin/true  the command to time;  RUNS=30  repetitions
set -eu

runs=${RUNS:-30}
cmd=${CMD:-/bin/true}
command -v hyperfine >/dev/null || { echo "bench-time-collect: hyperfine not installed" >&2; exit 2; }
. "$(dirname "$0")/bench-lib.sh"
bench_setup bench-time-collect "${1:-.}"

# perun_run REPS: "<wall ns> <sum of measured reals ns>" of one collection.
perun_run() {
	s=$(now_ns)
	"$PERUN" collect -c "$cmd" time -r "$1" -w 0 >/dev/null
	e=$(now_ns)
	profile=$(ls -t .perun/jobs/*.perf | head -n 1)
	sum=$("$PERUN" show "$profile" tableof --format csv -h amount -f subtype real resources |
		awk 'NR > 1 { s += $1 } END { printf "%.0f", s * 1e9 }')
	echo "$((e - s)) $sum"
}

# hyperfine_run REPS: the same for hyperfine (its mean times the runs).
hyperfine_run() {
	s=$(now_ns)
	hyperfine -N --runs "$1" --export-csv "$work/hf.csv" --style none "$cmd" >/dev/null 2>&1
	e=$(now_ns)
	sum=$(awk -F, -v n="$1" 'NR == 2 { printf "%.0f", $2 * n * 1e9 }' "$work/hf.csv")
	echo "$((e - s)) $sum"
}

# Each tool with 2 and with N repetitions, interleaved: the difference is
# the cost of N - 2 repetitions without the tool's fixed start-up cost.
p2=$(perun_run 2); h2=$(hyperfine_run 2)
pn=$(perun_run "$runs"); hn=$(hyperfine_run "$runs")

echo "$p2 $pn $h2 $hn" | awk -v n="$runs" -v cmd="$cmd" '{
	pw2 = $1; ps2 = $2; pwn = $3; psn = $4; hw2 = $5; hs2 = $6; hwn = $7; hsn = $8
	printf "%d repetitions of %s\n", n, cmd
	printf "%-20s %14s %18s %14s\n", "", "measured mean", "overhead per rep", "fixed cost"
	po = ((pwn - pw2) - (psn - ps2)) / (n - 2); ho = ((hwn - hw2) - (hsn - hs2)) / (n - 2)
	pf = pw2 - ps2 - 2 * po; hf = hw2 - hs2 - 2 * ho
	printf "%-20s %11.1f us %15.1f us %11.1f ms\n", "perun collect time", psn / n / 1e3, po / 1e3, pf / 1e6
	printf "%-20s %11.1f us %15.1f us %11.1f ms\n", "hyperfine -N", hsn / n / 1e3, ho / 1e3, hf / 1e6
	printf "overhead per repetition, perun/hyperfine: %.2f\n", (ho > 0 ? po / ho : 0)
	printf "measured mean, perun/hyperfine: %.2f\n", (hsn > 0 ? psn / hsn : 0)
}'
