#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-annotate.sh [builddir] - the cost of <perun/annotate.h> per call.
#
# One program calls f() in a loop and prints its own loop time per call;
# f() is built twice: plain, and with PERUN_CRITICAL_PATH(f, around) (a
# scope: begin probe, end probe in its cleanup).  Side by side, in one run:
#   plain                the unannotated build
#   disabled             annotated, nobody listening (target < 2 ns)
#   json compact         PERUN_ANNOTATE log-event=compact: one X event
#                        per call (target < 200 ns per event)
#   json verbose         B and E events: two per call
#   json compact + cpu   cpu-mem-usage=True as well
#   ebpf                 perun collect trace (no options): the USDT pair
#                        through uprobes (root only)
# Cost = (loop time - plain loop time) / calls, best of REPEAT runs; the
# loop is timed in the process's CPU time (CLOCK_PROCESS_CPUTIME_ID: user,
# and system for the writes and the uprobe traps, which run in the
# process's context), so that on a shared, loaded machine the time the
# process waited for a CPU is not counted as the annotations' cost.
# Prints figures, asserts nothing.
#
#   CALLS=50000000 (plain, disabled)  JCALLS=1000000 (json)
#   BCALLS=20000 (ebpf)  REPEAT=5
set -eu

calls=${CALLS:-50000000}
jcalls=${JCALLS:-1000000}
bcalls=${BCALLS:-20000}
repeat=${REPEAT:-5}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/bench-lib.sh"
bench_setup bench-annotate "${1:-.}"
libdir="$builddir/sdk/.libs"

cat >loop.c <<'EOC'
#define _POSIX_C_SOURCE 200809L
#include <perun/annotate.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) int f(int x)
{
#ifdef ANNOTATE
	PERUN_CRITICAL_PATH(f, around);
#endif
	__asm__ volatile("");
	return x + 1;
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]), s = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++)
		s += f((int)i);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.3f\n", ns / (double)n);
	return s == 42;
}
EOC
cc=${CC:-cc}
$cc -std=c11 -O2 -I"$srcdir/sdk/include" -o plain loop.c -L"$libdir" -lperun-annotate \
	-Wl,-rpath,"$libdir"
$cc -std=c11 -O2 -DANNOTATE -I"$srcdir/sdk/include" -o annotated loop.c -L"$libdir" \
	-lperun-annotate -Wl,-rpath,"$libdir"

# best <calls> <cmd>...: the smallest ns per call of $repeat runs
best() {
	n=$1
	shift
	b=
	for _ in $(seq "$repeat"); do
		v=$("$@" "$n" 2>/dev/null | tail -n 1)
		b=$(awk -v a="$b" -v v="$v" 'BEGIN { print (a == "" || v < a) ? v : a }')
	done
	echo "$b"
}

mkdir -p json
row() { # <label> <ns per call> <plain ns> <events per call>
	awk -v l="$1" -v t="$2" -v p="$3" -v e="$4" 'BEGIN {
		c = t - p; printf "%-22s %9.2f ns/call %9.2f ns over plain", l, t, c
		if (e > 0) printf " %9.2f ns/event", c / e
		printf "\n" }'
}
plain=$(best "$calls" ./plain)
disabled=$(best "$calls" ./annotated)
compact=$(best "$jcalls" env PERUN_ANNOTATE="log-dir=json:log-event=compact" ./annotated)
verbose=$(best "$jcalls" env PERUN_ANNOTATE="log-dir=json" ./annotated)
cpu=$(best "$jcalls" env PERUN_ANNOTATE="log-dir=json:log-event=compact:cpu-mem-usage=True" \
	./annotated)
echo "bench-annotate: $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
row plain "$plain" "$plain" 0
row disabled "$disabled" "$plain" 0
row "json compact" "$compact" "$plain" 1
row "json verbose" "$verbose" "$plain" 2
row "json compact + cpu" "$cpu" "$plain" 3
if [ "$(id -u)" = 0 ] && [ -e "$PERUN_PLUGIN_PATH/collect/trace.so" ]; then
	ebpf=
	for _ in $(seq "$repeat"); do
		v=$("$PERUN" collect -c ./annotated -a "$bcalls" trace 2>&1 >/dev/null |
			grep -E '^[0-9.]+$' | tail -n 1) || true
		[ -n "$v" ] && ebpf=$(awk -v a="$ebpf" -v v="$v" \
			'BEGIN { print (a == "" || v < a) ? v : a }')
	done
	[ -n "$ebpf" ] && row "ebpf (USDT pair)" "$ebpf" "$plain" 2
	last=$(ls -t .perun/jobs/trace-*.perf 2>/dev/null | head -n 1)
	[ -n "$last" ] && python3 - "$last" "$bcalls" <<-\EOP
	import json, sys
	d = json.load(open(sys.argv[1]))
	n = sum(len(c["amount"]) for t, c in d["resources"].items()
	        if d["resource_type_map"][t]["uid"] == "f_begin#f_end")
	print("  (the last ebpf profile has %d f_begin#f_end regions of %s calls)" % (n, sys.argv[2]))
	EOP
else
	echo "ebpf                   skipped: needs root and the trace collector"
fi
