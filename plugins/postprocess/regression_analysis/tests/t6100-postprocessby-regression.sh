#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun postprocessby <profile> regression-analysis: on Python Perun's
# profiles, on a fresh time profile, pending and stored, and the error
# paths (which must leave the store as it was).
. "$srcdir/tests/test-lib.sh"
. "$srcdir/tests/helpers/postprocess-lib.sh"

postprocess_inputs
q="'"

# The models of a profile as "uid model method" lines.
models_of() {
	perun show "$1" tableof models -h uid -h model -h method --format plain
}

test_expect_success 'setup: a git project with a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# Known by construction: f lies on y = 2x + 3; g and h have one point each.
test_expect_success 'full on a profile file: exact models, one-point uids skipped' '
	mkprofile mix.perf "\"f#0\": {\"structure-unit-size\": [1, 2, 4, 7, 9], \"amount\": [5, 7, 11, 17, 21]},
		\"g#0\": {\"structure-unit-size\": [3], \"amount\": [4]},
		\"h#0\": {\"structure-unit-size\": [2], \"amount\": [4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}, \"g#0\": {\"uid\": \"g\", \"type\": \"mixed\"},
		\"h#0\": {\"uid\": \"h\", \"type\": \"mixed\"}" &&
	(cd proj &&
	 perun postprocessby ../mix.perf regression-analysis -r linear -r power >out 2>err &&
	 test_grep "^Postprocessed .*/.perun/jobs/trace-\[c\]-" out &&
	 echo "perun: warning: postprocessor ${q}regression_analysis${q}: skipped 2 uids that cannot be modelled: ${q}g${q}, ${q}h${q} (uid ${q}g${q}: too few points to perform regression (1, at least 3 needed))" >expect &&
	 test_cmp expect err &&
	 perun show 0@p tableof models -h uid -h model -h coeffs:b0 -h coeffs:b1 -h r_square \
		--format json >models.json &&
	 jq -r ".rows[] | [.uid, .model, (.[\"coeffs:b0\"] * 1e9 | round), (.[\"coeffs:b1\"] * 1e9 | round),
		(.r_square * 1e9 | round)] | map(tostring) | join(\" \")" models.json >got &&
	 head -n 1 got >linear &&
	 echo "f linear 3000000000 2000000000 1000000000" >expect &&
	 test_cmp expect linear &&
	 test_grep -c "^f power " got >count && echo 1 >expect && test_cmp expect count)
'

test_expect_shared 'full on Python Perun'"$q"'s profile: models appended, one-point uids skipped' '
	(cd proj &&
	 rm -f .perun/jobs/*.perf &&
	 perun postprocessby "$upp/full_computation.perf" regression-analysis \
		-r linear -r power >out 2>err &&
	 test_grep "^Postprocessed .*/.perun/jobs/trace-\[complexity\]-" out &&
	 test_grep "warning: postprocessor ${q}regression_analysis${q}: skipped 6 uids that cannot be modelled: .*too few points to perform regression (1, at least 3 needed)" err &&
	 models_of 0@p >models &&
	 test_grep -c "full" models >count &&
	 echo 14 >expect && test_cmp expect count &&
	 tail -n 4 models >new &&
	 cat >expect <<-EOF &&
	SLList_insert(SLList*, int)  linear       full
	SLList_insert(SLList*, int)  power        full
	SLListcls::Insert(int)       linear       full
	SLListcls::Insert(int)       power        full
	EOF
	 test_cmp expect new)
'

test_expect_success 'the unit is recorded in the postprocessors with its params' '
	(cd proj &&
	 f=$(ls .perun/jobs/*.perf) &&
	 tr -d " \n" <"$f" >flat &&
	 test_grep -F "\"postprocessors\":[{\"name\":\"regression_analysis\",\"params\":{\"regression_models\":[\"linear\",\"power\"],\"method\":\"full\",\"steps\":3,\"depending_on\":\"structure-unit-size\",\"of\":\"amount\"}}]" flat)
'

test_expect_success 'a fresh time profile, pending, by --depending-on order' '
	(cd proj &&
	 rm -f .perun/jobs/*.perf &&
	 perun collect -c true time -w 0 -r 4 >/dev/null &&
	 before=$(sha1sum .perun/jobs/*.perf) &&
	 perun postprocessby 0@p regression-analysis -dp order -o amount \
		-r constant >out 2>err &&
	 test_cmp /dev/null err &&
	 echo "$before" | sha1sum -c --quiet &&
	 ls .perun/jobs/*.perf >files && test_grep -c perf files >count &&
	 echo 2 >expect && test_cmp expect count &&
	 f=$(sed -n "s/^Postprocessed //p" out) &&
	 models_of "$f" >models &&
	 cat >expect <<-EOF &&
	uid           model     method
	true:max-rss  linear    full
	true:real     linear    full
	true:sys      linear    full
	true:user     linear    full
	true:max-rss  constant  full
	true:real     constant  full
	true:sys      constant  full
	true:user     constant  full
	EOF
	 test_cmp expect models)
'

test_expect_success 'perun run job with the parameter names of Perun job configurations' '
	(cd proj &&
	 rm -f .perun/jobs/*.perf &&
	 perun run job -b true -c time -cp time "{repeat: 4, warmup: 0}" -p regression_analysis \
		-pp regression_analysis "{per_key: order, of_key: amount, regression_models: [power]}" \
		>/dev/null 2>err &&
	 test_cmp /dev/null err &&
	 models_of 0@p >models &&
	 cat >expect <<-EOF &&
	uid           model    method
	true:max-rss  power    full
	true:real     power    full
	true:sys      power    full
	true:user     power    full
	EOF
	 test_cmp expect models)
'

test_expect_success 'a stored profile: the result is pending, with its origin' '
	(cd proj &&
	 rm -f .perun/jobs/*.perf &&
	 cp "$pp/linear_model_datapoints.perf" lin.perf &&
	 perun add --force lin.perf >/dev/null &&
	 perun postprocessby 0@i regression-analysis -r quadratic -m bisection >out &&
	 head=$(git rev-parse HEAD) &&
	 test_grep -F "\"origin\": \"$head\"" .perun/jobs/*.perf &&
	 models_of 0@p >models &&
	 test_grep "linear::test2  quadratic  bisection" models)
'

test_expect_success '--output-filename-template names the result' '
	(cd proj &&
	 perun postprocessby -ot "regr-%postprocessors%" "$pp/quad_model_datapoints.perf" \
		regression-analysis >out &&
	 test -f ".perun/jobs/regr-after-regression_analysis.perf")
'

test_expect_success 'iterative with --seed is reproducible' '
	(cd proj &&
	 perun postprocessby -ot seed1 "$pp/pow_model_datapoints.perf" regression-analysis \
		-m iterative --seed 7 >/dev/null 2>&1 &&
	 perun postprocessby -ot seed2 "$pp/pow_model_datapoints.perf" regression-analysis \
		-m iterative --seed 7 >/dev/null 2>&1 &&
	 perun show .perun/jobs/seed1.perf tableof models --format json >one &&
	 perun show .perun/jobs/seed2.perf tableof models --format json >two &&
	 test_grep -q iterative one &&
	 test_cmp one two)
'

test_expect_success 'too few points everywhere: an error naming the uid' '
	mkprofile small.perf "\"f#0\": {\"structure-unit-size\": [1, 2], \"amount\": [3, 4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../small.perf regression-analysis &&
	echo "perun: postprocessor ${q}regression_analysis${q}: no model could be computed: uid ${q}f${q}: too few points to perform regression (2, at least 3 needed)" >expect &&
	test_cmp expect err
'

test_expect_success 'NaN in the data: an error naming the resource' '
	mkprofile nan.perf "\"f#0\": {\"structure-unit-size\": [1, 2, 3], \"amount\": [3, NaN, 4]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	fails_cleanly 2 postprocessby ../nan.perf regression-analysis &&
	echo "perun: postprocessor ${q}regression_analysis${q}: resource ${q}f#0${q} row 2: ${q}amount${q} is NaN" >expect &&
	test_cmp expect err
'

test_expect_success 'a key the resources lack: an error' '
	fails_cleanly 2 postprocessby "$pp/linear_model_datapoints.perf" regression-analysis \
		-o nosuch &&
	echo "perun: postprocessor ${q}regression_analysis${q}: option ${q}--of${q}: ${q}nosuch${q} is not a key of the profile${q}s resources" >expect &&
	test_cmp expect err
'

test_expect_success 'a non-numeric key: an error' '
	fails_cleanly 2 postprocessby "$pp/linear_model_datapoints.perf" regression-analysis \
		-dp type &&
	test_grep "resource ${q}linear::test1#0${q} row 1: ${q}type${q} is not a number (\"mixed\")" err
'

test_expect_success 'bad options and names are usage errors' '
	fails_cleanly 2 postprocessby "$pp/linear_model_datapoints.perf" regression-analysis -m nosuch &&
	test_grep "nosuch" err &&
	fails_cleanly 2 postprocessby "$pp/linear_model_datapoints.perf" no-such-postprocessor &&
	test_grep "no postprocess plugin named ${q}no_such_postprocessor${q}\|no-such-postprocessor" err &&
	fails_cleanly 2 postprocessby no-such-profile.perf regression-analysis &&
	fails_cleanly 2 postprocessby "$pp/linear_model_datapoints.perf"
'

test_expect_success 'outside an instance postprocessby refuses' '
	mkdir outside &&
	(cd outside && test_must_fail perun postprocessby "$pp/linear_model_datapoints.perf" \
		regression-analysis 2>err && test_grep "perun" err)
'

test_done
