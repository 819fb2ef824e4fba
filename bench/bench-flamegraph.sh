#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Flame graphs of big profiles (issue: Python Perun users report minutes).
#
#   bench/bench-flamegraph.sh [builddir] [stacks]
#
# Generates (bench/gen-stacks-profile.py, cached in $BENCH_CACHE, default
# /tmp/perun-bench-stacks) a trace profile of <stacks> recorded calls and a
# kperf profile of <stacks> distinct call stacks (default 1,000,000 each)
# and prints wall, user+system time and peak memory of:
#   perun show <trace profile> flamegraph
#   perun show <kperf profile> flamegraph, and from the whole call tree
#   perun show <kperf profile> folded (and of a tenth of the stacks), and
#     flamegraph.pl on that output (FLAMEGRAPH_PL=none: not run)
#   perun add of the kperf profile, then perun show 0@i flamegraph and
#     folded: the stored profile
#     (Python Perun's renderer; Debian packages none, so the copy in the
#     Perun mirror or $FLAMEGRAPH_PL is used when there is one)
#   perun showdiff <kperf> <kperf, changed> flamegraph, and report when the
#     report view is built;
#   perun check profiles <kperf> <kperf, changed> (the default method, aat);
#   both added at a version and its child, perun check head and check all.
# BENCH_BEFORE=<builddir> adds each figure of an earlier build (bench-lib.sh).
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-flamegraph "${1:-.}"
n=${2:-1000000}
cache=${BENCH_CACHE:-/tmp/perun-bench-stacks}
mkdir -p "$cache"

# gen_profile <file> [generator options]
gen_profile() {
	name=$1
	shift
	bench_generate "$cache/$name" "$here/gen-stacks-profile.py" "$n" "$@"
}
gen_profile trace-$n.perf --trace
gen_profile kperf-$n.perf
size() { du -m "$1" | cut -f1; }


# perun's figures: the fastest of three runs; flamegraph.pl's: one run.
BENCH_RUNS=${BENCH_RUNS:-3}
echo "profiles: trace $(size "$cache/trace-$n.perf") MB, kperf $(size "$cache/kperf-$n.perf") MB ($n stacks each)"
bench_measure "flamegraph, trace profile ($n calls)" \
	"$PERUN" show "$cache/trace-$n.perf" flamegraph -o "$work/trace.svg"
bench_measure "flamegraph, kperf profile ($n stacks)" \
	"$PERUN" show "$cache/kperf-$n.perf" flamegraph -o "$work/kperf.svg"
file_flamegraph=$bench_wall
# The graph is drawn from a tree of the frames it draws, summed by ranges
# of the sorted stacks (kept-tree.c); the whole call tree before.  AMD
# EPYC, 2026-11-28, alternating: 0.96 s, 1.18 s CPU, 274 MB (of which
# 120 MB heap, the rest the map's file pages) against 1.77 s, 2.24 s CPU,
# 673 MB from the whole tree; the same SVG to the byte.  The whole tree
# here is made from the list (PERUN_TEST_WHOLE_TREE=1); BENCH_BEFORE
# measures a build that made it while reading.
bench_measure "flamegraph, kperf profile, from the whole tree" \
	env PERUN_TEST_WHOLE_TREE=1 "$PERUN" show "$cache/kperf-$n.perf" flamegraph \
	-o "$work/kperf-whole.svg"
cmp -s "$work/kperf.svg" "$work/kperf-whole.svg" &&
	echo "kept tree and whole tree: the same SVG" ||
	echo "kept tree and whole tree: the SVGs DIFFER"
# Issue 21: a million distinct stacks under 2 s, a tenth of them in about
# a tenth of that (the stacks are sorted as a list, not built into a tree).
# On the shared 2-core build machine, where the kperf flame graph above
# took 2.9 s: 2.3 s wall, 2.0 s CPU, 611 MB (was 3.5 s, 3.2 s, 1049 MB);
# on a faster one (AMD EPYC, idle) 1.0 s, 1.2 s CPU, and 265-280 MB since
# the walk gives the map's file pages back as it reads them (the kperf
# flame graph 677 MB, was 1007 MB; showdiff flamegraph 1341 MB, was 2000;
# showdiff report 649 MB, was 1318 MB, in 1.89 s before that change);
# 100k stacks 0.20 s, 0.17 s, 71 MB (was 0.31 s, 0.26 s, 124 MB).
bench_measure "folded, kperf profile ($n stacks)" \
	"$PERUN" show "$cache/kperf-$n.perf" folded -o "$work/kperf.folded"
file_folded=$bench_wall
tenth=$((n / 10))
bench_generate "$cache/kperf-$tenth.perf" "$here/gen-stacks-profile.py" "$tenth"
bench_measure "folded, kperf profile ($tenth stacks)" \
	"$PERUN" show "$cache/kperf-$tenth.perf" folded -o "$work/kperf-tenth.folded"
echo "frames drawn: trace $(grep -c 'class="f"' "$work/trace.svg"), kperf $(grep -c 'class="f"' "$work/kperf.svg")"
# The same kperf profile stored (perun add), shown by its tag: as fast as
# the file is the aim (issue 21).  On the 2-core machine, idle: add 3.6-5.0 s,
# 4.6-6.2 s CPU, 0.93-0.95 GB, a 56 MB object (libdeflate at level 1, the map
# streamed; zlib's default level and a whole load before: 11.5-13.0 s,
# 10.6-11.1 s CPU, 2.12 GB, 50 MB; libdeflate alone 4.5-6.2 s, 1.74 GB).
# On a faster 2-core machine (AMD EPYC, 2026-11-27), idle: folded from the
# file 0.98-1.01 s, stored 1.20-1.25 s, the object inflated (libdeflate, one
# thread: the difference) into anonymous memory in huge pages; through an
# anonymous file (memfd), whose 4 KB page faults cost more system time than
# the inflate, it was 1.7-2.5 s.  A first run after the machine idled takes
# 0.3 s more either way (the VM's memory coming back).  With the inflate's
# pages made ahead of it on the other processor (2026-11-28), each stored
# run right after a run from the file: 1.29-1.88 s, 0.17-1.30 s system
# (without: 1.28-2.14 s, 0.20-1.04 s), the file 1.05-1.11 s.
# Segmented objects (store_segments.h, 2026-11-28): add writes the text
# into a temporary file and compresses 8 MB slices by ISA-L on both
# processors: 1.27 s, 215 MB, a 61 MB object (farm-bench, 6 pairs; the
# whole dump and libdeflate 2.02 s, 585 MB, 58 MB).  The map is inflated
# as it is walked, the object's pages given back behind it: folded
# 1.17 s, 302 MB against the file's 0.97 s (8 pairs, A/B 1.16-1.19);
# inflated whole it was 1.5-1.9 s, 612 MB in cold memory, 1.19 s best
# of 3 in warm.
# Window and chunks of 512 KB, parsed from the caches (2026-11-28, 10
# pairs): folded 0.93 s, 257 MB against the file's 0.90 s, 274 MB (A/B
# 1.02; 1.16 with the 16 MB window and 8 MB chunks).
#
# Each add runs on a copy of the store as it was before (a few KB): an
# add that finds its object stored skips the compression, as the earlier
# build's run did after this one's.
bench_fresh_store store-before-add
fresh_add=$bench_fresh
BENCH_RUNS=1 bench_measure "add the kperf profile to the store" \
	"$fresh_add" "$PERUN" add --force --keep-profile "$cache/kperf-$n.perf"
# The stored profile read below is this build's object.
"$fresh_add" "$PERUN" add --force --keep-profile "$cache/kperf-$n.perf" >/dev/null
bench_measure "flamegraph, the kperf profile stored (0@i)" \
	"$PERUN" show 0@i flamegraph -o "$work/stored.svg"
stored_flamegraph=$bench_wall
bench_measure "folded, the kperf profile stored (0@i)" \
	"$PERUN" show 0@i folded -o "$work/stored.folded"
# The aim, stored as fast as the file: the ratios of this build's walls.
echo "stored / file: flamegraph ${stored_flamegraph:-?} / ${file_flamegraph:-?} s," \
	"folded ${bench_wall:-?} / ${file_folded:-?} s" |
	awk '{ print } $7 > 0 && $12 > 0 { printf "  ratio: flamegraph %.2f, folded %.2f\n", $5 / $7, $10 / $12 }'

pl=${FLAMEGRAPH_PL:-}
mirror=/work/.mirror/Perfexionists+perun/repo
if [ -z "$pl" ] && [ -d "$mirror" ]; then
	pl="$work/flamegraph.pl"
	git -C "$mirror" show HEAD:perun/scripts/flamegraph.pl >"$pl" 2>/dev/null || pl=
fi
if [ "$pl" != none ] && [ -n "$pl" ] && command -v perl >/dev/null && [ -s "$work/kperf.folded" ]; then
	BENCH_RUNS=1 bench_measure "flamegraph.pl on the same folded stacks" perl "$pl" \
		"$work/kperf.folded"
else
	echo "flamegraph.pl: not available (set FLAMEGRAPH_PL), no comparison"
fi

gen_profile kperf-$n-shifted.perf --seed 2 --shift 3
# Kept trees and the largest change by a merge of both sorted lists
# (2026-11-28, AMD EPYC VM): 1.49-1.66 s, 527 MB; from whole trees 1.94 s,
# 1.31 GB before.
bench_measure "showdiff flamegraph, two kperf profiles" \
	"$PERUN" showdiff "$cache/kperf-$n.perf" "$cache/kperf-$n-shifted.perf" flamegraph \
	-o "$work/diff.html"
# Issue 21, memory bounded by the output: the check of the two reads them
# streamed (aat and the evidence walk the types).  On the 2-core EPYC VM,
# best of 3: 2.04 s, 2.87 s CPU, 343 MB; one run after other big commands
# 2.90 s, 352 MB (loaded whole before, one run: 5.74 s, 5.43 s of it
# system time, 2.63 GB).
if [ -f "$PERUN_PLUGIN_PATH/check/aat.so" ]; then
	bench_measure "check profiles (aat), two kperf profiles" \
		"$PERUN" check profiles "$cache/kperf-$n.perf" "$cache/kperf-$n-shifted.perf"
fi
# The same two stored at a version and its child: check head reads them
# streamed from their objects and keeps only the version's own profiles
# (2026-11-28, AMD EPYC VM: 2.49-3.47 s, 1.05 GB, the inflated objects
# most of it; loaded whole before: 9.04 s, 3.0 GB; check all 6.0 s, 3.0 GB
# then, 2.54 s, 1.05 GB now).  Segmented, their maps inflated on each walk
# instead: 2.80 s, 389 MB against 2.71 s, 1.03 GB (4 pairs, A/B 1.00-1.02);
# here, best of 3 with the old build reading the same objects whole in
# warm memory, 2.87 s against 2.53 s.  The whole run of 2026-11-28:
# stored / file 0.90 / 0.80 s (flamegraph), 1.18 / 1.01 s (folded), 301 MB.
# With 512 KB parts and the pair read at once: 2.20 s, 344 MB (4 pairs,
# A/B 0.80 against the 16 MB window).  With the evidence read in aat's
# walk (perun_profile_share_next_walk), the whole run of 2026-11-28 beside
# c1cef00's build: check head 1.96 s, 345 MB (2.89 s, 1026 MB), check all
# 1.50 s (2.49 s), check profiles 1.47 s (2.57 s); stored / file 0.91 /
# 0.76 s (flamegraph; 0.74 / 0.77 s in 10 pairs) and 1.04 / 1.10 s
# (folded), at 256 MB.  aat's and the evidence's per-type callbacks, on
# the walk's own thread, are now its bottleneck (jansson's lookups a
# third of it).
if [ -f "$PERUN_PLUGIN_PATH/check/aat.so" ]; then
	git -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m shifted
	"$PERUN" add --force --keep-profile "$cache/kperf-$n-shifted.perf" >/dev/null
	bench_measure "check head (aat), the two stored" "$PERUN" check head
	bench_measure "check all (aat), the two stored" "$PERUN" check all
fi
# Rows' slots prefetched, their texts in megabyte blocks (2026-11-28, 5
# pairs): 1.72 s, 618 MB for 1,966,171 rows against 2.17 s, 634 MB.
if [ -f "$PERUN_PLUGIN_PATH/view/report.so" ]; then
	bench_measure "showdiff report, two kperf profiles" \
		"$PERUN" showdiff "$cache/kperf-$n.perf" "$cache/kperf-$n-shifted.perf" report \
		-o "$work/report.html"
else
	echo "showdiff report: the report view is not built here"
fi
