#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun postprocessby <profile> moving-average [sma|smm|ema]: the models of
# Python Perun's own code (expected/, made by regen-expected.sh), the
# models Python Perun stored in its test profiles, perun run job with
# Perun's parameter names, and the error paths (which must leave the store
# as it was).
. "$srcdir/tests/test-lib.sh"
. "$srcdir/tests/helpers/postprocess-lib.sh"

postprocess_inputs
here="$TEST_SRCDIR/plugins/postprocess/moving_average/tests"
q="'"

test_expect_success 'setup: a git project with a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# One test per line of "cases": the models equal upstream's (1e-9 relative;
# in practice bit for bit, which models-cmp reports).
test_postprocess_cases "$here" moving-average

test_expect_shared 'the moving averages Python Perun stored in its test profiles' '
	for kind in exp lin pow; do
		f=$upp/${kind}_datapoints_rg_ma_kr.perf &&
		(cd proj && perun postprocessby -ot stored-$kind "$f" moving-average >/dev/null) &&
		"$TEST_BUILDDIR/tests/helpers/models-cmp" --model moving_average --any-order \
			"$f" proj/.perun/jobs/stored-$kind.perf >&2 || return 1
	done
'

test_expect_success 'subcommand, group options and Perun spellings in any order' '
	(cd proj &&
	 perun postprocessby -ot order1 "$pp/exp_model_datapoints.perf" moving-average \
		--min_periods 2 smm --window-width 4 --no-center >/dev/null &&
	 perun postprocessby -ot order2 "$pp/exp_model_datapoints.perf" moving-average \
		smm -ww 4 -mp 2 --center=false >/dev/null &&
	 jq -c .models .perun/jobs/order1.perf >one &&
	 jq -c .models .perun/jobs/order2.perf >two &&
	 test_cmp one two &&
	 jq -r ".models[0] | [.moving_method, .window_width] | map(tostring) | join(\" \")" \
		.perun/jobs/order1.perf >got &&
	 echo "smm 4" >expect && test_cmp expect got)
'

test_expect_success 'the unit is recorded with Perun parameter names' '
	(cd proj &&
	 perun postprocessby -ot smm-4 "$pp/exp_model_datapoints.perf" moving-average \
		smm -ww 4 >/dev/null &&
	 tr -d " \n" <.perun/jobs/smm-4.perf >flat &&
	 test_grep -F "\"postprocessors\":[{\"name\":\"moving_average\",\"params\":{\"moving_method\":\"smm\",\"window_width\":4.0,\"per_key\":\"structure-unit-size\",\"of_key\":\"amount\",\"center\":true}}]" flat)
'

test_expect_success 'perun run job with the parameters of a Perun job configuration' '
	(cd proj &&
	 rm -f .perun/jobs/*.perf &&
	 perun run job -b true -c time -cp time "{repeat: 6, warmup: 0}" -p moving_average \
		-pp moving_average "{moving_method: ema, decay: alpha, window_width: 0.5, per_key: order, of_key: amount}" \
		>/dev/null 2>err &&
	 ! grep -i "warning\|error" err &&
	 jq -r ".models[] | [.uid, .model, .moving_method, .window_width, .per_key,
		(.bucket_stats | length)] | map(tostring) | join(\" \")" .perun/jobs/*.perf >models &&
	 cat >expect <<-EOF &&
	true:max-rss moving_average ema 0.5 order 6
	true:real moving_average ema 0.5 order 6
	true:sys moving_average ema 0.5 order 6
	true:user moving_average ema 0.5 order 6
	EOF
	 test_cmp expect models)
'

# Upstream keeps a one-point uid: its window (searched: 1) over the one
# value and r^2 NaN (sklearn's r2_score of one sample); the solo-* cases
# above compare it whole with upstream's code.
test_expect_success 'only one-point uids: a model with r^2 NaN, no warning' '
	one_point_model moving-average "[.uid, .window_width, .bucket_stats, .x_start, .x_end]" "[\"f\",1,[3],1,1]"
'

test_expect_success 'NaN in the data, missing and non-numeric keys, no resources: errors' '
	mkprofile nan.perf "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [3, NaN, 4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../nan.perf moving-average ema &&
	echo "perun: postprocessor ${q}moving_average${q}: resource ${q}f#0${q} row 2: ${q}amount${q} is NaN" >expect &&
	test_cmp expect err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average -per nosuch &&
	test_grep "option ${q}--per-key${q}: ${q}nosuch${q} is not a key of the profile${q}s resources" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average smm -of type &&
	test_grep "resource ${q}exp::test1#0${q} row 1: ${q}type${q} is not a number (\"mixed\")" err &&
	mkprofile empty.perf "" "" &&
	fails_cleanly 2 postprocessby ../empty.perf moving-average &&
	test_grep "the profile has no resources to analyse" err
'

test_expect_success 'min_periods above the window: the uid is named' '
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average -mp 5 sma -ww 3 &&
	test_grep "no model could be computed: uid ${q}exp::test1${q}: min_periods 5 must be <= window width 3 (and 2 other uids)" err
'

test_expect_success 'bad subcommands and options are usage errors' '
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average wma &&
	test_grep "unknown subcommand ${q}wma${q} (one of sma|smm|ema)" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average sma smm &&
	test_grep "unexpected argument ${q}smm${q}" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average sma -ww 0 &&
	test_grep "option ${q}--window_width${q} takes a whole number >= 1, not 0" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average sma -ww 2.5 &&
	test_grep "not 2.5" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average -mp 0 &&
	test_grep "option ${q}--min_periods${q} takes a whole number >= 1, not 0" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average smm -wt hamming &&
	test_grep "option ${q}--window_type${q} is not an option of ${q}smm${q}" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average sma -wt kaiser &&
	test_grep "kaiser" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average sma -d com 2 &&
	test_grep "option ${q}--decay${q} is not an option of ${q}sma${q}" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average ema -ww 3 &&
	test_grep "option ${q}--window_width${q} is not an option of ${q}ema${q}" err
'

test_expect_success 'decay values out of their ranges are usage errors' '
	for bad in "com -1" "span 0.5" "halflife 0" "alpha 0" "alpha 1.5"; do
		fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average \
			ema -d $bad &&
		test_grep "option ${q}--decay${q}: invalid value for ${bad% *}" err || return 1
	done &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average ema -d beta 2 &&
	test_grep "takes one of com|span|halflife|alpha, not ${q}beta${q}" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" moving-average ema -d com x &&
	test_grep "option ${q}--decay${q} takes a name and a number, not ${q}x${q}" err
'

test_done
