#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun showdiff: usage and lookup errors; the views that compare profiles
# test the successful path (e.g. plugins/view/flamegraph/tests).
. "$srcdir/tests/test-lib.sh"

test_fixtures
A=$FIXTURES/kperf/kperf-baseline.perf
B=$FIXTURES/kperf/kperf-target.perf

test_expect_success 'showdiff needs two profiles and a view' '
	test_exit_code 2 perun showdiff "$A" "$B" 2>err &&
	echo "perun: showdiff: usage: perun showdiff <baseline> <target> <view> [<view options>]" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown view is named' '
	test_exit_code 2 perun showdiff "$A" "$B" nosuchview 2>err &&
	test_grep "nosuchview" err
'

test_expect_success 'a view without show_diff points at perun show' '
	test_exit_code 2 perun showdiff "$A" "$B" tableof 2>err &&
	echo "perun: view '"'"'tableof'"'"' shows single profiles only; use '"'"'perun show'"'"'" >expect &&
	test_cmp expect err
'

test_done
