#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-trace.sh [builddir] - per-call overhead of the trace collector's
# engines beside bpftrace and uftrace, and the transformation's speed.
#
# One program calls f() CALLS times (1,000,000) and writes how long its own
# loop took; each tracer runs it, and the overhead per call is
#   (loop time traced - loop time untraced) / CALLS
# so start-up, attaching and post-processing are not in it (the wall time
# of each whole run is shown beside it):
#   perun trace -e ebpf        uprobe + uretprobe on f, events to the ring buffer
#   bpftrace                   uprobe + uretprobe on f, a duration histogram
#   perun trace -e instrument  -finstrument-functions build, preloaded runtime
#   uftrace record             the same -finstrument-functions build
# Then the whole commands (perun collect trace to its profile on disk;
# uftrace record plus uftrace report; bpftrace), wall, CPU and peak memory.
# Then bench-trace-transform turns EVENTS (10,000,000) raw events into a
# profile and its JSON.  Needs root for the eBPF tracers.  Prints figures,
# asserts nothing.
#
#   CALLS=1000000  EVENTS=10000000  REPEAT=3 (best of)
set -eu

calls=${CALLS:-1000000}
events=${EVENTS:-10000000}
repeat=${REPEAT:-3}
. "$(dirname "$0")/bench-lib.sh"
bench_setup bench-trace "${1:-.}"

cat >calls.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) int f(int x) { __asm__ volatile(""); return x + 1; }
int main(int argc, char **argv)
{
	long n = atol(argv[2]), s = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		s += f((int)i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	FILE *out = fopen(argv[1], "w");
	fprintf(out, "%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	fclose(out);
	return s == 42;
}
EOC
cc -O2 -o calls calls.c
cc -O2 -finstrument-functions -o icalls calls.c

# best RUNNER...: "<loop ns> <wall ms>", the smallest of REPEAT runs of
# RUNNER (whose program writes its loop time into loop.txt).
best() {
	b=""
	wall=""
	for _ in $(seq "$repeat"); do
		rm -f loop.txt
		s=$(now_ns)
		"$@" >/dev/null 2>&1 || { echo "bench-trace: failed: $*" >&2; return 1; }
		e=$(now_ns)
		t=$(cat loop.txt)
		w=$(((e - s) / 1000000))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
		if [ -z "$wall" ] || [ "$w" -lt "$wall" ]; then wall=$w; fi
	done
	echo "$b $wall"
}

report() { # name "loop_ns wall_ms" base_ns
	awk -v n="$1" -v t="${2% *}" -v w="${2#* }" -v b="$3" -v c="$calls" \
		'BEGIN { printf "%-28s %10.1f ns/call   loop %8.1f ms   whole run %7d ms\n", n, (t - b) / c, t / 1e6, w }'
}

echo "bench-trace: $calls calls of f(), best of $repeat; overhead = (traced - untraced loop) / calls"
r=$(best ./calls loop.txt "$calls")
base=${r% *}
awk -v t="$base" -v w="${r#* }" 'BEGIN { printf "%-28s %10s           loop %8.1f ms   whole run %7d ms\n", "untraced", "", t / 1e6, w }'

if [ "$(id -u)" = 0 ]; then
	t=$(best "$PERUN" collect -c ./calls -a "loop.txt $calls" trace -e ebpf -f f) &&
		report "perun trace -e ebpf" "$t" "$base"
	if command -v bpftrace >/dev/null; then
		t=$(best bpftrace -e "uprobe:./calls:f { @s[tid] = nsecs; } uretprobe:./calls:f /@s[tid]/ { @d = hist(nsecs - @s[tid]); delete(@s[tid]); }" -c "./calls loop.txt $calls") &&
			report "bpftrace uprobe+uretprobe" "$t" "$base"
	else
		echo "bpftrace: not installed (Debian: bpftrace)"
	fi
else
	echo "ebpf, bpftrace: skipped, not root"
fi

# The instrumented build's own cost without a tracer: the runtime's hooks
# are what is measured, so the baseline is the plain build.
t=$(best "$PERUN" collect -c ./icalls -a "loop.txt $calls" trace -e instrument -f f) &&
	report "perun trace -e instrument" "$t" "$base"
if command -v uftrace >/dev/null; then
	t=$(best uftrace record -d uftrace.data ./icalls loop.txt "$calls") &&
		report "uftrace record" "$t" "$base"
else
	echo "uftrace: not installed (Debian: uftrace)"
fi

# The whole command as a user runs it, profile (or report) included
# (issue 21: at or under the peer's): wall, user+system and peak memory.
BENCH_RUNS=$repeat
echo "bench-trace: whole commands, $calls calls (best of $repeat); load $(cut -d' ' -f1 /proc/loadavg)"
bench_measure "perun collect trace -e instrument" \
	"$PERUN" collect -c ./icalls -a "loop.txt $calls" trace -e instrument -f f
if command -v uftrace >/dev/null; then
	bench_measure "uftrace record + uftrace report" sh -c \
		"rm -rf u.data && uftrace record -d u.data ./icalls loop.txt $calls && uftrace report -d u.data"
fi
if [ "$(id -u)" = 0 ]; then
	bench_measure "perun collect trace -e ebpf" \
		"$PERUN" collect -c ./calls -a "loop.txt $calls" trace -e ebpf -f f
	command -v bpftrace >/dev/null &&
		bench_measure "bpftrace (histogram)" bpftrace -e \
			"uprobe:./calls:f { @s[tid] = nsecs; } uretprobe:./calls:f /@s[tid]/ { @d = hist(nsecs - @s[tid]); delete(@s[tid]); }" \
			-c "./calls loop.txt $calls"
fi

if [ -x "$builddir/bench/bench-trace-transform" ]; then
	echo "bench-trace: raw events -> profile"
	"$builddir/bench/bench-trace-transform" "$events"
else
	echo "bench-trace-transform: not built (make bench/bench-trace-transform)"
fi
