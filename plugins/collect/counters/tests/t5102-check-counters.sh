#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A counter that grows is found like a time that grows: two counters
# profiles of a program whose page faults more than double are a
# degradation of the page-faults uid for the default check method, and a
# profile checked against itself has no change.
. "$srcdir/tests/test-lib.sh"

helper="$TEST_BUILDDIR/plugins/collect/counters/tests/counters-helper"

test_expect_success 'setup: profiles of 1000 and 2200 fresh pages' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null &&
	 perun collect -c "$helper" -a "pages 1000" -pn base.perf counters -r 3 \
		-e page-faults >/dev/null &&
	 perun collect -c "$helper" -a "pages 2200" -pn grown.perf counters -r 3 \
		-e page-faults >/dev/null)
'

test_expect_success 'the grown counter is a degradation of its uid' '
	(cd proj && perun check profiles .perun/jobs/base.perf .perun/jobs/grown.perf >out) &&
	test_grep "^at page-faults:" proj/out &&
	test_grep "Degradation from: [0-9.]*events -> to: [0-9.]*events" proj/out &&
	test_grep "0 optimizations(+), 1 degradation(-)" proj/out
'

test_expect_success 'the same profile twice: no change' '
	(cd proj && perun check profiles .perun/jobs/base.perf .perun/jobs/base.perf >out) &&
	test_grep "no changes found" proj/out
'

test_expect_success 'views and postprocessors take the profile (per repetition)' '
	(cd proj && p=.perun/jobs/grown.perf &&
	 perun show $p scatter --per order -f "$PWD/s" >/dev/null &&
	 test -s s.html &&
	 perun show $p bars --of amount --per order >/dev/null &&
	 test -s bars.html &&
	 perun postprocessby $p regression-analysis --depending-on order >/dev/null &&
	 perun postprocessby $p moving-average --per-key order >/dev/null)
'

test_expect_success 'every check method but eto finds the grown counter' '
	(cd proj &&
	 for m in aat bclass bmoe cpd fast int loc lreg preg; do
		perun config --local set degradation.strategies "[{method: $m}]" >/dev/null &&
		perun check profiles .perun/jobs/base.perf .perun/jobs/grown.perf >out-$m &&
		grep -q "^at page-faults:" out-$m &&
		grep -q "Degradation" out-$m || { echo "method $m"; cat out-$m; return 1; }
	 done &&
	 perun config --local set degradation.strategies "[{method: eto}]" >/dev/null &&
	 test_exit_code 2 perun check profiles .perun/jobs/base.perf .perun/jobs/grown.perf \
		2>err &&
	 grep -q "needs a trace profile with exclusive times" err)
'

test_expect_success 'tableof and flow show it too' '
	(cd proj && p=.perun/jobs/grown.perf &&
	 perun show $p tableof --format csv -h uid -h order -h amount resources >t.csv &&
	 test $(grep -c "^page-faults,[123]," t.csv) = 3 &&
	 perun show $p flow -o amount -t order -b uid -f "$PWD/fl" >/dev/null &&
	 test -s fl.svg && grep -q page-faults fl.svg)
'

test_done
