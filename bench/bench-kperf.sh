#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Overhead of the kperf collector against perf record (issue 14), side by
# side in one run on the same program, event (cpu-clock) and frequency:
#
#   bench/bench-kperf.sh [builddir] [chunks]
#
# The program is plugins/collect/kperf/tests/hot.c (98% of its time in one
# function) doing a fixed amount of work (-DHOT_FIXED_WORK; <chunks>
# default 40000, about 2.4 s of CPU on an AMD EPYC of 2026), built with frame
# pointers for the fp rows and without for the dwarf rows.  At 99 Hz and
# 999 Hz, prints the best of three wall and user+system times and the
# samples captured of
#   the program alone (the floor)
#   perf record -g (fp) or --call-graph dwarf, then perf script, as Python
#     Perun's kperf ran them (perf record alone in its own row)
#   perun collect ... kperf (-g fp: BPF in the kernel; -g dwarf: libdw)
# and the ratios perun / perf record of wall and CPU time, and the CPU
# each adds to the program alone (on a shared machine the CPU time is the
# steadier figure: wall time waits for other load).
# perf is looked for as perf, then /usr/bin/perf_* (Debian: linux-perf).
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
src="$here/../plugins/collect/kperf/tests/hot.c"
bench_setup bench-kperf "${1:-.}"
loops=${2:-40000}

perf=$(command -v perf || ls /usr/bin/perf_* 2>/dev/null | head -n 1 || true)
[ -n "$perf" ] && "$perf" record -q -o "$work/probe.data" true >/dev/null 2>&1 ||
	{ echo "bench-kperf: no working perf (Debian: apt-get install linux-perf)" >&2; exit 2; }
command -v bc >/dev/null || { echo "bench-kperf: needs bc" >&2; exit 2; }
cc -O1 -g -DHOT_FIXED_WORK -fno-omit-frame-pointer -o hot-fp "$src"
cc -O1 -g -DHOT_FIXED_WORK -fomit-frame-pointer -o hot-dwarf "$src"

# timed <cmd>...: "<wall> <cpu>" of the fastest of three runs; the last
# run's stdout stays in $work/out.
timed() {
	best_wall= best_cpu=
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >"$work/out" 2>/dev/null || true
		read -r wall user sys <"$work/time"
		if [ -z "$best_wall" ] || [ "$(echo "$wall < $best_wall" | bc)" = 1 ]; then
			best_wall=$wall best_cpu=$(echo "$user + $sys" | bc)
		fi
	done
	echo "$best_wall $best_cpu"
}

row() { printf '%-6s %-5s %-26s %8s %8s %8s\n' "$@"; }

row hz mode tool wall-s cpu-s samples
set -- $(timed ./hot-fp "$loops")
bare_wall=$1 bare_cpu=$2
row - - "program alone" "$1" "$2" -
for hz in 99 999; do
	for mode in fp dwarf; do
		if [ $mode = fp ]; then
			prog=./hot-fp graph=-g
		else
			prog=./hot-dwarf graph="--call-graph=dwarf"
		fi
		set -- $(timed "$perf" record -q -e cpu-clock -F $hz $graph -o perf.data -- $prog "$loops")
		record_wall=$1 record_cpu=$2
		samples=$("$perf" script -i perf.data -F pid 2>/dev/null | wc -l)
		row $hz $mode "perf record" "$1" "$2" "$samples"
		# shellcheck disable=SC2016
		set -- $(timed sh -c '"$1" record -q -e cpu-clock -F "$2" $3 -o perf.data -- "$4" "$5" &&
			"$1" script -i perf.data >/dev/null' sh "$perf" $hz "$graph" $prog "$loops")
		row $hz $mode "perf record + perf script" "$1" "$2" "$samples"
		set -- $(timed "$PERUN" collect -c $prog -a "$loops" kperf -F $hz -g $mode)
		perun_wall=$1 perun_cpu=$2
		samples=$(sed -n 's/^kperf: \([0-9]*\) samples.*/\1/p' "$work/out")
		row $hz $mode "perun kperf" "$1" "$2" "${samples:-?}"
		echo "$perun_wall $record_wall $perun_cpu $record_cpu $bare_cpu" | awk '{
			printf "  perun/perf record: wall %.2fx, cpu %.2fx", $1 / $2, $3 / $4
			if ($4 - $5 > 0.005) printf ", cpu above the program alone %+.2f s vs %+.2f s", $3 - $5, $4 - $5
			printf "\n" }'
	done
done
