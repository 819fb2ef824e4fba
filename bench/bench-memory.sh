#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-memory.sh [builddir] - cost of the memory collector's recording.
#
# An allocation-heavy loop (malloc + free of 32..95 bytes, called 5 frames
# deep) runs natively, with libperun-malloc.so preloaded and recording (what
# "perun collect memory" runs the program with), and under heaptrack, all
# in this one run.  The cost per malloc+free pair is the slope between a
# short and a long run, so start-up costs (heaptrack's launcher, the
# recorder's set-up) drop out; the best of 3 runs is taken each time.  A
# loop that computes without allocating shows what the preload costs a
# program that does not allocate.  The figures depend on the machine and
# its load: they are printed, never asserted.
set -eu
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "$0")/bench-lib.sh"
bench_setup bench-memory "$builddir"

runtime="$builddir/stage/runtime/libperun-malloc.so"
[ -r "$runtime" ] || { echo "bench-memory: no $runtime (memory plugin not built?)" >&2; exit 2; }

cat >loop.c <<'EOC'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned sink;

__attribute__((noinline)) static void pairs(long n)
{
	for (long i = 0; i < n; i++) {
		char *p = malloc(32 + (size_t)(i & 63));
		p[0] = (char)i;
		sink += (unsigned char)p[0];
		free(p);
	}
}

__attribute__((noinline)) static void nest(int depth, long n)
{
	if (depth > 0)
		nest(depth - 1, n);
	else
		pairs(n);
	sink++;
}

int main(int argc, char **argv)
{
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "alloc")) {
		nest(3, n);
	} else {
		double s = 0;
		for (long i = 1; i <= n; i++)
			s += sqrt((double)i) / (double)(i & 7 + 1);
		sink = (unsigned)s;
	}
	return 0;
}
EOC
cc -g -O2 -o loop loop.c -lm

# best_ns <cmd...>: the fastest of 3 runs, in ns.
best_ns() {
	best=
	for _ in 1 2 3; do
		t0=$(now_ns)
		"$@" >/dev/null 2>&1
		t=$(($(now_ns) - t0))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}

mkdir -p traces
ours() {
	rm -rf traces/* && PERUN_MEMORY_DIR="$PWD/traces" LD_PRELOAD="$runtime" "$@"
}
heap() {
	rm -f heaptrack.* && heaptrack -o "$PWD/heaptrack.out" "$@"
}

small=200000 large=2000000
echo "bench-memory: malloc+free pairs, slope between $small and $large pairs (best of 3)"
printf '%-24s %12s %14s\n' tool "ns per pair" "ns per event"
native_pair=
for tool in native ours heaptrack; do
	case $tool in
	native) run="" ;;
	ours) run=ours ;;
	heaptrack)
		if ! command -v heaptrack >/dev/null 2>&1; then
			printf '%-24s %12s\n' heaptrack "(not installed: apt-get install heaptrack)"
			continue
		fi
		run=heap ;;
	esac
	a=$(best_ns $run ./loop alloc $small)
	b=$(best_ns $run ./loop alloc $large)
	pair=$(( (b - a) / (large - small) ))
	[ -n "$native_pair" ] || native_pair=$pair
	extra=$((pair - native_pair))
	printf '%-24s %12d %14d   (%d ns per event over native)\n' "$tool" "$pair" \
		$((pair / 2)) $((extra / 2))
done
events=$(ls -l traces | awk 'NR > 1 { s += $5 } END { print s }')
echo "trace files of the last recorded run: $events bytes for $((2 * large)) events"

n=100000000
native=$(best_ns ./loop compute $n)
pre=$(best_ns ours ./loop compute $n)
echo "a loop computing without allocating ($n iterations):"
awk -v a="$native" -v b="$pre" 'BEGIN {
	printf "  native %d ms, with the recorder %d ms (%+.1f%%)\n", a / 1e6, b / 1e6, (b - a) * 100 / a
}'
