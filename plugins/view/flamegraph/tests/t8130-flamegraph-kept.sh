#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> flamegraph draws from a tree of only the frames it
# draws, summed by ranges of the sorted stacks (kept-tree.c): the SVG must
# be the whole call tree's to the byte (PERUN_TEST_WHOLE_TREE=1 draws from
# that), at every --minimum, for root-first (kperf) and leaf-first (memory)
# stacks, with stacks of no weight, cut by --max-trace, and with weights
# that are not whole (those take the whole tree).
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

test_done
