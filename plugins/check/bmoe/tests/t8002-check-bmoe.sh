#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bmoe (best model order equality) on Python Perun's degradation profiles:
# the verdicts of upstream's tests/test_degradations.py, the exact models,
# orders and confidences, and bad models.
. "$srcdir/tests/test-lib.sh"

. "$srcdir/plugins/lib/check/check-test-lib.sh"
check_setup bmoe
check_planted bmoe

verdicts() {
	jq -r '.verdicts[] | [.location, .result, .from, .to, .rate, .confidence_rate] | join("|")'
}

test_expect_shared 'base -> degradated: NoChange (the best models are the same)' '
	(cd proj && perun check profiles "$d/linear_base.perf" "$d/linear_base_degradated.perf" \
		--format json | verdicts >actual &&
	 cat >expect <<-EOF &&
	SLList_insert(SLList*, int)|NoChange|linear|power|0|0.00010122128402136219
	SLList_search(SLList*, int)|NoChange|linear|linear|0|0.9942258401273375
	EOF
	 test_cmp expect actual)
'

test_expect_shared 'degradated -> quad: Degradation, linear to power is two orders up' '
	(cd proj && perun check profiles "$d/linear_base_degradated.perf" "$d/quad_base.perf" \
		--format json | verdicts >actual &&
	 cat >expect <<-EOF &&
	SLList_insert(SLList*, int)|NoChange|power|exponential|0|0.000619925627592057
	SLList_search(SLList*, int)|Degradation|linear|power|2|0.9942258401273375
	EOF
	 test_cmp expect actual)
'

test_expect_shared 'base -> quad: Degradation; quad -> degradated: Optimization' '
	(cd proj &&
	 perun check profiles "$d/linear_base.perf" "$d/quad_base.perf" --format json >a.json &&
	 jq -e "[.changes[] | .result] == [\"Degradation\"]" a.json &&
	 perun check profiles "$d/quad_base.perf" "$d/linear_base_degradated.perf" \
		--format json >b.json &&
	 jq -e "[.changes[] | [.result, .rate]] == [[\"Optimization\", -2]]" b.json)
'

test_expect_shared 'the text report shows the confidence (upstream: "with confidence")' '
	(cd proj && perun check profiles "$d/quad_base.perf" "$d/linear_base_degradated.perf" >out &&
	 test_grep "^└ -2.0x: model Optimization from: power -> to: linear (with confidence r_square = 0.9942258401273375)" out)
'

test_expect_success 'a model without coefficients or buckets is bad input (exit 2)' '
	(cd proj && jq "del(.models[0].coeffs)" "$own/models-target.perf" >bad.perf &&
	 store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$own/models-target.perf" bad.perf 2>err &&
	 test_grep "check method .bmoe.: model .* has neither coefficients nor bucket values" err &&
	 store_snapshot >after && test_cmp before after)
'

test_done
