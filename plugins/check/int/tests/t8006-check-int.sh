#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# int (integral comparison) on Python Perun's baseline_all_models and
# target_all_models with --models-type all-models: exactly the reported
# changes of upstream's INTEGRAL_COMPARISON_RESULTS (mock_results.py),
# including the regressogram re-binned to the baseline's bucket count.
. "$srcdir/tests/test-lib.sh"

. "$srcdir/plugins/lib/check/check-test-lib.sh"
check_setup int "needs GSL"
check_planted int
check_planted int all-models

test_expect_shared 'all-models: upstream INTEGRAL_COMPARISON_RESULTS' '
	(cd proj && perun check --models-type all-models profiles \
		"$d/baseline_all_models.perf" "$d/target_all_models.perf" --format json >out.json &&
	 check_changes <out.json >actual &&
	 sort >expect <<-EOF &&
	alloc|MaybeOptimization|constant|constant|-0.18
	alloc|MaybeDegradation|regressogram|regressogram|0.16
	ga_grow|Degradation|constant|constant|1210.03
	ga_init2|Degradation|quadratic|quadratic|2.33
	skipwhite|Degradation|constant|constant|0.3
	test_for_current|Degradation|constant|constant|0.34
	test_for_static|Degradation|moving_average|moving_average|0.91
	test_for_static|MaybeDegradation|regressogram|regressogram|0.16
	vim_isblankline|MaybeDegradation|constant|constant|0.22
	vim_regexec|Degradation|regressogram|regressogram|0.42
	EOF
	 test_cmp expect actual &&
	 jq -e "[.verdicts[] | .confidence_rate >= 0.15] | all" out.json)
'

test_expect_shared 'pairs under the confidence of 0.15 are not analysed' '
	(cd proj && jq -e "[.verdicts[] | select(.location == \"ga_grow\" and .from == \"regressogram\")] == []" out.json)
'

test_expect_shared 'best-model (the default) compares each uid once' '
	(cd proj && perun check profiles "$d/baseline_all_models.perf" \
		"$d/target_all_models.perf" --format json >best.json &&
	 jq -e "[.verdicts[].location] | length == (unique | length)" best.json)
'

test_expect_success 'an unknown --models-type is a usage error (exit 2)' '
	(cd proj && test_exit_code 2 perun check --models-type best-guess profiles \
		"$own/models-baseline.perf" "$own/models-target.perf" 2>err &&
	 test_grep "best-guess" err)
'

test_done
