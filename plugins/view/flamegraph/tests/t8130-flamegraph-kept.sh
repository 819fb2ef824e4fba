#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> flamegraph draws from a tree of only the frames it
# draws, summed by ranges of the sorted stacks (kept-tree.c): the SVG must
# be the whole call tree's to the byte (PERUN_TEST_WHOLE_TREE=1 draws from
# that), at every --minimum, for root-first (kperf) and leaf-first (memory)
# stacks, with stacks of no weight, cut by --max-trace, and with weights
# that are not whole (those take the whole tree); and the showdiff page,
# whose colours the kept trees give only when some change is at least a
# frame wide (else it takes the whole trees too).
. "$srcdir/tests/test-lib.sh"
test_fixtures

command -v python3 >/dev/null || test_skip_all "python3 is needed to generate the stacks"
GEN="$TEST_SRCDIR/bench/gen-stacks-profile.py"

# same_as_whole <profile> [options]: the kept tree draws what the whole does.
same_as_whole() {
	prof=$1
	shift
	perun show "$prof" flamegraph -o kept.svg "$@" &&
	PERUN_TEST_WHOLE_TREE=1 perun show "$prof" flamegraph -o whole.svg "$@" &&
	test_cmp whole.svg kept.svg
}

test_expect_success 'a profile of 20,000 distinct stacks' '
	python3 "$GEN" 20000 many.perf &&
	test -s many.perf
'

for m in 0.1 0 0.5 3 40 1179 5000; do
	test_expect_success "--minimum $m: the same graph as from the whole tree" "
		same_as_whole many.perf --minimum $m &&
		grep 'class=\"f\"' kept.svg | wc -l >frames.$m
	"
done

test_expect_success 'the minimums above cut frames; 5000 px leaves none' '
	test $(cat frames.0) -gt $(cat frames.0.1) &&
	test $(cat frames.0.1) -gt $(cat frames.3) &&
	test $(cat frames.40) -gt 1 &&
	test $(cat frames.1179) = 1 &&
	test $(cat frames.5000) = 0
'

test_expect_success 'narrow and wide images, --max-trace' '
	same_as_whole many.perf --width 100 &&
	same_as_whole many.perf --width 20000 --minimum 0.01 &&
	same_as_whole many.perf --max-trace 3 &&
	same_as_whole many.perf --max-trace 1 --minimum 0
'

test_expect_success 'stacks of no weight draw nothing of their own' '
	sed "s/\"amount\": \[\([0-9]*[02468]\)\]/\"amount\": [0]/g" many.perf >zeros.perf &&
	! cmp -s many.perf zeros.perf &&
	same_as_whole zeros.perf --minimum 0 &&
	same_as_whole zeros.perf
'

test_expect_success 'weights that are not whole take the whole tree, every stack counted' '
	sed "s/\"amount\": \[\([0-9]*\)\]/\"amount\": [\1.25]/g" many.perf >halves.perf &&
	same_as_whole halves.perf &&
	test_grep "halves.perf: 20000 stacks" kept.svg
'

test_expect_success 'memory profiles: leaf-first stacks, free records left out' '
	same_as_whole "$FIXTURES/memory/memory-basic.perf" --minimum 0 &&
	same_as_whole "$FIXTURES/memory/memory-basic.perf" --minimum 20 &&
	same_as_whole "$FIXTURES/kperf/kperf-baseline.perf" --minimum 0
'

# same_diff_as_whole <baseline> <target> [options]: the diff page too.
same_diff_as_whole() {
	base=$1 target=$2
	shift 2
	perun showdiff "$base" "$target" flamegraph -o kept.html "$@" &&
	PERUN_TEST_WHOLE_TREE=1 perun showdiff "$base" "$target" flamegraph -o whole.html "$@" &&
	test_cmp whole.html kept.html
}

test_expect_success 'showdiff: a changed target and one of other stacks' '
	python3 "$GEN" 20000 shifted.perf --seed 2 --shift 3 &&
	python3 "$GEN" 20000 other.perf --seed 5 &&
	for m in 0.1 0 1 5; do
		same_diff_as_whole many.perf shifted.perf --minimum $m &&
		same_diff_as_whole shifted.perf many.perf --minimum $m || return 1
	done &&
	same_diff_as_whole many.perf other.perf &&
	same_diff_as_whole many.perf other.perf --max-trace 2 --width 300
'

test_expect_success 'showdiff: changes smaller than a frame take the whole trees' '
	same_diff_as_whole many.perf many.perf &&
	sed "0,/\"amount\": \[\([0-9]*\)\]/s//\"amount\": [1\1]/" many.perf >one-more.perf &&
	! cmp -s many.perf one-more.perf &&
	same_diff_as_whole many.perf one-more.perf &&
	same_diff_as_whole one-more.perf many.perf --minimum 0
'

# with_stacks <in> <out> <count> <weight> <frame>...: in with count more
# kperf stacks of the frames, root first, the last (the sampled function)
# numbered when there are several.
with_stacks() {
	python3 - "$@" <<-\EOF_PY
	import json, sys
	src, dst, count, weight, *frames = sys.argv[1:]
	p = json.load(open(src))
	for k in range(int(count)):
	    leaf = frames[-1] + (f"_{k}" if int(count) > 1 else "")
	    p["resources"][f"added#{k}"] = {"amount": [int(weight)]}
	    p["resource_type_map"][f"added#{k}"] = {
	        "command": "bench", "time": 1.0, "uid": leaf,
	        "trace": [{"func": f} for f in frames[:-1]]}
	json.dump(p, open(dst, "w"))
	EOF_PY
}

test_expect_success 'showdiff: the largest change is where no graph draws a frame' '
	with_stacks many.perf new-small.perf 1 80 added_root added_leaf &&
	same_diff_as_whole many.perf new-small.perf &&
	same_diff_as_whole new-small.perf many.perf
'

test_expect_success 'showdiff: the largest change is a caller of many small ones' '
	with_stacks many.perf callers.perf 300 5 added_root added_mid added_leaf &&
	same_diff_as_whole many.perf callers.perf &&
	same_diff_as_whole callers.perf many.perf
'

test_expect_success 'showdiff: the largest change is a frame only the baseline draws' '
	with_stacks many.perf heavy.perf 1 50000 added_root added_leaf &&
	with_stacks many.perf light.perf 1 10 added_root added_leaf &&
	same_diff_as_whole heavy.perf light.perf &&
	same_diff_as_whole light.perf heavy.perf
'

test_expect_success 'showdiff: weights that are not whole, memory profiles' '
	same_diff_as_whole many.perf halves.perf &&
	same_diff_as_whole "$FIXTURES/memory/memory-basic.perf" "$FIXTURES/memory/memory-basic.perf" \
		--minimum 0
'

test_done
