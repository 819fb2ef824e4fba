#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fast (fast check) on Python Perun's degradation profiles: upstream's
# tests/test_degradations.py expects MaybeOptimization from quad_base to
# linear_base_degradated; the change types come from a regression
# analysis of the models' difference.
. "$srcdir/tests/test-lib.sh"

. "$srcdir/plugins/lib/check/check-test-lib.sh"
check_setup fast "needs GSL"
check_planted fast

test_expect_shared 'quad -> degradated: MaybeOptimization (upstream)' '
	(cd proj && perun check profiles "$d/quad_base.perf" "$d/linear_base_degradated.perf" \
		--format json >out.json &&
	 jq -r ".verdicts[] | [.location, .result, .type, .from, .to] | join(\"|\")" out.json >actual &&
	 cat >expect <<-EOF &&
	SLList_insert(SLList*, int)|MaybeOptimization|QUADRATIC|exponential|power
	SLList_search(SLList*, int)|MaybeOptimization|QUADRATIC|power|linear
	EOF
	 test_cmp expect actual)
'

test_expect_shared 'base -> quad: the search degrades to a power model' '
	(cd proj && perun check profiles "$d/linear_base.perf" "$d/quad_base.perf" \
		--format json >out.json &&
	 jq -e "[.verdicts[] | select(.location == \"SLList_search(SLList*, int)\") |
		.result, .from, .to, (.rate | round)] == [\"Optimization\", \"linear\", \"power\", -100]" out.json)
'

test_expect_shared 'the same profile twice: NoChange everywhere' '
	(cd proj && perun check profiles "$d/quad_base.perf" "$d/quad_base.perf" --format json >out.json &&
	 jq -e "[.verdicts[].result] | unique == [\"NoChange\"]" out.json)
'

test_done
