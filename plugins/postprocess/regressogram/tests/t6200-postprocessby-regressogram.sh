#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun postprocessby <profile> regressogram: the models of Python Perun's
# own code (expected/, made by regen-expected.sh), the figures of
# upstream's tests/test_regressogram.py, the models Python Perun stored in
# its test profiles, perun run job with Perun's parameter names, and the
# error paths (which must leave the store as it was).
. "$srcdir/tests/test-lib.sh"
. "$srcdir/tests/helpers/postprocess-lib.sh"

postprocess_inputs
here="$TEST_SRCDIR/plugins/postprocess/regressogram/tests"
q="'"

test_expect_success 'setup: a git project with a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# One test per line of "cases": the models equal upstream's (1e-9 relative;
# in practice bit for bit, which models-cmp reports).
test_postprocess_cases "$here" regressogram

# tests/test_regressogram.py: uid, buckets, r^2 (eps 1e-5), x_start, x_end, y_start.
cat >upstream.txt <<EOF
user exp::test1 10 0.98007 0 110 0.2
user exp::test2 10 0.97567 17 103 18
user exp::test3 10 1.0 0 8 1
auto exp::test1 22 0.99601 0 110 0.2
auto exp::test2 19 0.99428 17 103 18
auto exp::test3 1 0.0 0 8 1
doane exp::test1 20 0.99601 0 110 0.2
doane exp::test2 16 0.99428 17 103 18
doane exp::test3 1 0.0 0 8 1
fd exp::test1 50 1.0 0 110 0.2
fd exp::test2 36 1.0 17 103 18
fd exp::test3 3 0.66732 0 8 1
rice exp::test1 22 0.99601 0 110 0.2
rice exp::test2 19 0.99428 17 103 18
rice exp::test3 1 0.0 0 8 1
scott exp::test1 51 1.0 0 110 0.2
scott exp::test2 44 1.0 17 103 18
scott exp::test3 4 0.67017 0 8 1
sqrt exp::test1 29 1.0 0 110 0.2
sqrt exp::test2 25 1.0 17 103 18
sqrt exp::test3 2 0.34687 0 8 1
sturges exp::test1 22 0.99601 0 110 0.2
sturges exp::test2 19 0.99428 17 103 18
sturges exp::test3 1 0.0 0 8 1
EOF

test_expect_shared 'the figures of upstream tests/test_regressogram.py' '
	for method in user auto doane fd rice scott sqrt sturges; do
		jq -r --arg m "$method" ".models[] | [\$m, .uid, (.bucket_stats | length),
			.r_square, .x_start, .x_end, .y_start] | map(tostring) | join(\" \")" \
			"proj/.perun/jobs/exp-$method.perf" || return 1
	done >ours.txt &&
	paste -d " " upstream.txt ours.txt >both.txt &&
	awk "{ bad = \$1 != \$8 || \$2 != \$9 || \$3 != \$10 || \$6 != \$13 || \$7 != \$14 ||
		\$5 != \$12 || \$4 - \$11 > 1e-5 || \$11 - \$4 > 1e-5 }
	     bad { print \"differs: \" \$0; n++ } END { exit n > 0 }" both.txt &&
	test $(wc -l <both.txt) -eq 24
'

test_expect_shared 'the regressograms Python Perun stored in its test profiles' '
	for kind in exp lin pow; do
		f=$upp/${kind}_datapoints_rg_ma_kr.perf &&
		(cd proj && perun postprocessby -ot stored-$kind "$f" regressogram >/dev/null) &&
		"$TEST_BUILDDIR/tests/helpers/models-cmp" --model regressogram --any-order \
			"$f" proj/.perun/jobs/stored-$kind.perf >&2 || return 1
	done
'

test_expect_success 'the unit is recorded with Perun parameter names' '
	(cd proj &&
	 perun postprocessby -ot median-fd "$pp/exp_model_datapoints.perf" regressogram \
		-bm fd -sf median >/dev/null &&
	 tr -d " \n" <.perun/jobs/median-fd.perf >flat &&
	 test_grep -F "\"postprocessors\":[{\"name\":\"regressogram\",\"params\":{\"bucket_method\":\"fd\",\"statistic_function\":\"median\",\"per_key\":\"structure-unit-size\",\"of_key\":\"amount\"}}]" flat)
'

# Ten repetitions: order 1..10.  sqrt gives the width 9 / sqrt(10) = 2.85,
# 2 buckets, for max-rss; "true" has three times (real, user, sys) of each
# run: 9 / sqrt(30) = 1.64, 1 bucket.
test_expect_success 'perun run job with the parameters of a Perun job configuration' '
	(cd proj &&
	 rm -f .perun/jobs/*.perf &&
	 perun run job -b true -c time -cp time "{repeat: 10, warmup: 0}" -p regressogram \
		-pp regressogram "{bucket_method: sqrt, statistic_function: median, per_key: order, of_key: amount}" \
		>/dev/null 2>err &&
	 ! grep -i "warning\|error" err &&
	 jq -r ".models[] | [.uid, .model, .buckets_method, .statistic_function, .per_key,
		(.bucket_stats | length)] | map(tostring) | join(\" \")" .perun/jobs/*.perf >models &&
	 cat >expect <<-EOF &&
	true:max-rss regressogram sqrt median order 2
	true:real regressogram sqrt median order 2
	true:sys regressogram sqrt median order 2
	true:user regressogram sqrt median order 2
	EOF
	 test_cmp expect models)
'

# Upstream keeps a one-point uid: one bucket over [x - 0.5, x + 0.5]
# (scipy widens an empty range), y_start y and r^2 NaN (sklearn's r2_score
# of one sample); the cases above compare it whole with upstream's code.
test_expect_success 'only one-point uids: a model with r^2 NaN, no warning' '
	one_point_model regressogram "[.uid, .bucket_stats, .x_start, .x_end, .y_start]" "[\"f\",[3],0.5,1.5,3]"
'

test_expect_success 'NaN or infinity in the data: an error naming the resource' '
	mkprofile nan.perf "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [3, NaN, 4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../nan.perf regressogram &&
	echo "perun: postprocessor ${q}regressogram${q}: resource ${q}f#0${q} row 2: ${q}amount${q} is NaN" >expect &&
	test_cmp expect err &&
	mkprofile inf.perf "\"f#0\": {\"structure-unit-size\": [1, -Infinity, 3], \"amount\": [3, 2, 4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../inf.perf regressogram &&
	test_grep "resource ${q}f#0${q} row 2: ${q}structure-unit-size${q} is infinite" err
'

test_expect_success 'keys the resources lack or that are not numbers: errors' '
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram -of nosuch &&
	echo "perun: postprocessor ${q}regressogram${q}: option ${q}--of-key${q}: ${q}nosuch${q} is not a key of the profile${q}s resources" >expect &&
	test_cmp expect err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram -per type &&
	test_grep "resource ${q}exp::test1#0${q} row 1: ${q}type${q} is not a number (\"mixed\")" err &&
	mkprofile half.perf "\"f#0\": {\"structure-unit-size\": [1, 2], \"amount\": [3, 4]},
		\"g#0\": {\"structure-unit-size\": [1, 2]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}, \"g#0\": {\"uid\": \"g\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../half.perf regressogram &&
	test_grep "resource ${q}g#0${q} has no key ${q}amount${q}" err
'

test_expect_success 'a profile without resources: an error' '
	mkprofile empty.perf "" "" &&
	fails_cleanly 2 postprocessby ../empty.perf regressogram &&
	test_grep "the profile has no resources to analyse" err
'

test_expect_success 'bad options are usage errors' '
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram -bn 0 &&
	test_grep "option ${q}--bucket_number${q} takes a whole number >= 1, not 0" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram -bm stone &&
	test_grep "stone" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram -sf mode &&
	test_grep "mode" err &&
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram sma &&
	test_grep "unexpected argument ${q}sma${q}" err
'

test_expect_success 'too many buckets: the uid is named, nothing is stored' '
	fails_cleanly 2 postprocessby "$pp/exp_model_datapoints.perf" regressogram -bn 999999999 &&
	test_grep "no model could be computed: uid ${q}exp::test1${q}: 999999999 buckets are more than" err &&
	mkprofile narrow.perf "\"f#0\": {\"structure-unit-size\": [1000000000000000, 1000000000000002], \"amount\": [3, 4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../narrow.perf regressogram -bn 100000 &&
	test_grep "uid ${q}f${q}: 100000 buckets are too narrow: the smallest edge difference is numerically 0" err
'

test_done
