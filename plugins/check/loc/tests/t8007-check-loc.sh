#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# loc (local statistics) on Python Perun's baseline_all_models and
# target_all_models with --models-type all-models: exactly the reported
# changes of upstream's LOCAL_STATISTICS_RESULTS (mock_results.py).
. "$srcdir/tests/test-lib.sh"

. "$srcdir/plugins/lib/check/check-test-lib.sh"
check_setup loc "needs GSL"
check_planted loc all-models
check_planted loc best-nonparam

test_expect_shared 'all-models: upstream LOCAL_STATISTICS_RESULTS' '
	(cd proj && perun check --models-type all-models profiles \
		"$d/baseline_all_models.perf" "$d/target_all_models.perf" --format json >out.json &&
	 check_changes <out.json >actual &&
	 sort >expect <<-EOF &&
	alloc|MaybeOptimization|constant|constant|-0.16
	alloc|MaybeDegradation|regressogram|regressogram|0.11
	ga_grow|Degradation|constant|constant|1052.44
	ga_init2|Degradation|quadratic|quadratic|2.27
	test_for_static|Degradation|moving_average|moving_average|0.82
	test_for_static|MaybeDegradation|regressogram|regressogram|0.15
	vim_regexec|Degradation|regressogram|regressogram|0.41
	EOF
	 test_cmp expect actual)
'

test_expect_shared 'best-nonparam compares only regressograms, moving averages, kernels' '
	(cd proj && perun check --models-type best-nonparam profiles \
		"$d/baseline_all_models.perf" "$d/target_all_models.perf" --format json >np.json &&
	 jq -e "[.verdicts[].from] | all(. == \"regressogram\" or . == \"moving_average\")" np.json &&
	 jq -e "(.verdicts | length) > 0" np.json)
'

test_expect_shared 'a regressogram to re-bin without its resources is bad input' '
	(cd proj && jq ".resources = {} | .resource_type_map = {}" "$d/target_all_models.perf" >bare.perf &&
	 store_snapshot >before &&
	 test_must_fail perun check --models-type all-models profiles \
		"$d/baseline_all_models.perf" bare.perf 2>err &&
	 test_grep "check method .loc.: " err &&
	 store_snapshot >after && test_cmp before after)
'

test_done
