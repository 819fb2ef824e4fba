#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-memory.sh [builddir] - cost of the memory collector.
#
# An allocation-heavy loop (malloc + free of 32..95 bytes, called 5 frames
# deep), all in this one run:
#
# 1. End to end: "perun collect memory" (command to profile on disk) for
#    200,000, 2,000,000 and 10,000,000 events beside heaptrack recording
#    the same program plus heaptrack_print reading what it recorded: wall
#    time, peak resident memory (the largest process, from wait4) and the
#    size of what is left on disk, and the growth from one size to the
#    next (10x, then 5x the events); and "perun import heaptrack" of
#    heaptrack's recording.
# 2. Recording only: the cost per malloc+free pair natively, with
#    libperun-malloc.so preloaded and under heaptrack, as the slope between
#    a short and a long run (start-up costs drop out), and the cost of the
#    preload for a loop that does not allocate.
#
# The best of 3 runs is taken each time.  The figures depend on the
# machine and its load: they are printed, never asserted.
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
"$PERUN" --help >/dev/null 2>&1 || true

# measure <cmd...>: "<wall ns> <cpu ns> <peak KB>" of one run, the CPU time
# (user + system) including the processes it waited for (heaptrack's
# interpreter), the peak the largest of them reached.
cat >measure.c <<'EOC'
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	(void)argc;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	wait4(pid, &status, 0, &ru);
	clock_gettime(CLOCK_MONOTONIC, &b);
	long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	printf("%lld %lld %ld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec),
	       cpu, ru.ru_maxrss);
	return status != 0;
}
EOC
cc -O2 -o measure measure.c

# best <cmd...>: the fastest of 3 runs, "<wall ns> <cpu ns>" (each the
# minimum over the runs).
best() {
	bw= bc=
	for _ in 1 2 3; do
		set -- $(./measure "$@" 2>/dev/null) "$@"
		w=$1 c=$2
		shift 3
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w; fi
		if [ -z "$bc" ] || [ "$c" -lt "$bc" ]; then bc=$c; fi
	done
	echo "$bw $bc"
}

mkdir -p traces

# ---- 1. end to end ------------------------------------------------------

have_heaptrack=0
command -v heaptrack >/dev/null 2>&1 && command -v heaptrack_print >/dev/null 2>&1 &&
	have_heaptrack=1

# end_to_end <pairs>: "<wall ns> <peak KB> <bytes>" of the fastest of 3
# "perun collect memory" runs, the profile's size on disk.
end_to_end() {
	bw= bk= size=
	for _ in 1 2 3; do
		rm -f .perun/jobs/*.perf
		r=$(./measure "$PERUN" collect -c ./loop -a "alloc $1" memory)
		w=${r%% *} k=${r##* }
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w bk=$k; fi
		size=$(cat .perun/jobs/*.perf | wc -c)
	done
	echo "$bw $bk $size"
}

# heaptrack_end_to_end <pairs>: the same for heaptrack's recording plus
# heaptrack_print's reading (times summed, the larger peak), and the size
# of its data file.
heaptrack_end_to_end() {
	bw= bk= size=
	for _ in 1 2 3; do
		rm -f heaptrack.data*
		r=$(./measure heaptrack -o "$PWD/heaptrack.data" ./loop alloc "$1")
		rw=${r%% *} rk=${r##* }
		size=$(cat heaptrack.data* | wc -c)
		r=$(./measure heaptrack_print heaptrack.data.*)
		w=$((rw + ${r%% *})) k=${r##* }
		[ "$rk" -lt "$k" ] || k=$rk
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w bk=$k; fi
	done
	echo "$bw $bk $size"
}

# import_end_to_end <pairs>: "perun import heaptrack" of heaptrack's
# recording of the loop, the same figures (the recording not included).
import_end_to_end() {
	rm -f heaptrack.data*
	heaptrack -o "$PWD/heaptrack.data" ./loop alloc "$1" >/dev/null 2>&1
	bw= bk= size=
	for _ in 1 2 3; do
		rm -f .perun/jobs/*.perf
		r=$(./measure "$PERUN" import heaptrack heaptrack.data.*)
		w=${r%% *} k=${r##* }
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w bk=$k; fi
		size=$(cat .perun/jobs/*.perf | wc -c)
	done
	echo "$bw $bk $size"
}

echo "bench-memory: end to end, command to profile on disk (best of 3)"
printf '%-28s %8s %10s %14s   %s\n' "" "wall s" "peak MB" "on disk" "growth (wall, peak, size)"
for tool in perun heaptrack import; do
	[ $tool = perun ] || [ $have_heaptrack = 1 ] ||
		{ printf '%-22s %s\n' heaptrack "(not installed: apt-get install heaptrack)"; continue; }
	prev=
	for pairs in 100000 1000000 5000000; do
		if [ $tool = perun ]; then
			set -- $(end_to_end $pairs)
			label="perun collect memory"
		elif [ $tool = heaptrack ]; then
			set -- $(heaptrack_end_to_end $pairs)
			label="heaptrack + print"
		else
			set -- $(import_end_to_end $pairs)
			label="perun import heaptrack"
		fi
		growth=
		if [ -n "$prev" ]; then
			growth=$(echo "$prev $1 $2 $3" | awk '{ printf "x%.1f, x%.1f, x%.1f", $4 / $1, $5 / $2, $6 / $3 }')
		fi
		awk -v l="$label" -v e=$((2 * pairs)) -v w="$1" -v k="$2" -v b="$3" -v g="$growth" 'BEGIN {
			printf "%-28s %8.2f %10.1f %14d   %s\n", l " " e / 1e6 "M", w / 1e9, k / 1024, b, g }'
		prev="$1 $2 $3"
	done
done

# ---- 2. recording only --------------------------------------------------

small=200000 large=2000000
echo "bench-memory: malloc+free pairs, slope between $small and $large pairs (best of 3)"
printf '%-12s %24s %24s\n' "" "wall ns per pair/event" "CPU ns per pair/event"
native_w= native_c=
for tool in native ours heaptrack; do
	case $tool in
	native) run="" ;;
	ours) run="env PERUN_MEMORY_DIR=$PWD/traces LD_PRELOAD=$runtime" ;;
	heaptrack)
		if ! command -v heaptrack >/dev/null 2>&1; then
			printf '%-12s %s\n' heaptrack "(not installed: apt-get install heaptrack)"
			continue
		fi
		run="heaptrack -o $PWD/heaptrack.out" ;;
	esac
	rm -rf traces/* heaptrack.out*
	set -- $(best $run ./loop alloc $small) $(best $run ./loop alloc $large)
	w=$(( ($3 - $1) / (large - small) )) c=$(( ($4 - $2) / (large - small) ))
	[ -n "$native_w" ] || { native_w=$w; native_c=$c; }
	printf '%-12s %14d / %-7d %14d / %-7d  (over native: %d / %d ns per event)\n' "$tool" \
		"$w" $((w / 2)) "$c" $((c / 2)) $(( (w - native_w) / 2 )) $(( (c - native_c) / 2 ))
done
rm -rf traces/*
env PERUN_MEMORY_DIR="$PWD/traces" LD_PRELOAD="$runtime" ./loop alloc $large
bytes=$(ls -l traces | awk 'NR > 1 { s += $5 } END { print s }')
echo "trace files of one recorded run: $bytes bytes (grown by 32 MiB) for $((2 * large)) events"

n=100000000
set -- $(best ./loop compute $n) $(best env PERUN_MEMORY_DIR="$PWD/traces" LD_PRELOAD="$runtime" ./loop compute $n)
echo "a loop computing without allocating ($n iterations), best of 3:"
awk -v a="$1" -v b="$3" -v c="$2" -v d="$4" 'BEGIN {
	printf "  wall: native %d ms, with the recorder %d ms (%+.1f%%)\n", a / 1e6, b / 1e6, (b - a) * 100 / a
	printf "  CPU:  native %d ms, with the recorder %d ms (%+.1f%%)\n", c / 1e6, d / 1e6, (d - c) * 100 / c
}'
