#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> tableof on Python Perun's profiles: every line of
# "cases" against its expected output (made by an independent oracle, see
# regen-expected.sh), then the error paths and file output.
. "$srcdir/tests/test-lib.sh"
test_fixtures

here="$TEST_SRCDIR/plugins/view/tableof/tests"
show() {
	profile=$1
	shift
	perun show "$profile" tableof "$@"
}
models="$FIXTURES/mixed/points-models.perf"
timeprof="$FIXTURES/time/time-basic.perf"


while read -r name profile words; do
	case $name in '#'*|'') continue ;; esac
	# shellcheck disable=SC2086 # the words are meant to split
	test_expect_shared "table $name" '
		show "$TESTDATA/$profile" $words </dev/null >actual 2>err &&
		test_cmp "$here/expected/$name" actual &&
		test_cmp /dev/null err
	'
done <"$here/cases"

q="'"
models_fields="coeffs, coeffs:b0, coeffs:b1, coeffs:b2, method, model, r_square, uid, x_end, x_start"

test_expect_shared 'an unknown header is named with the valid ones' '
	models="$TESTDATA/postprocess_profiles/complexity-models.perf" timeprof="$TESTDATA/full_profiles/prof-1-time-2017-03-19-19-17-36.perf" &&
	test_exit_code 2 show "$models" models -h non-existant -h model >out 2>err &&
	test_cmp /dev/null out &&
	echo "perun: view ${q}tableof$q: invalid choice for table header: non-existant (choose from $models_fields)" >expect &&
	test_cmp expect err
'

test_expect_shared 'an unknown sort key is named with the valid ones' '
	models="$TESTDATA/postprocess_profiles/complexity-models.perf" timeprof="$TESTDATA/full_profiles/prof-1-time-2017-03-19-19-17-36.perf" &&
	test_exit_code 2 show "$models" models --sort-by class >out 2>err &&
	test_cmp /dev/null out &&
	echo "perun: view ${q}tableof$q: invalid key choice for sorting the table: class (choose from $models_fields)" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown filter key is named with the valid ones' '
	test_exit_code 2 show "$timeprof" resources -f class linear >out 2>err &&
	echo "perun: view ${q}tableof$q: invalid key choice for filtering: class (choose from amount, snapshots, time, type, uid)" >expect &&
	test_cmp expect err
'

test_expect_success 'keys of an empty table: nothing to choose from' '
	test_exit_code 2 show "$timeprof" models -h uid 2>err &&
	echo "perun: view ${q}tableof$q: invalid choice for table header: uid (choose from nothing: the table is empty)" >expect &&
	test_cmp expect err
'

test_expect_success 'resources or models must be said' '
	test_exit_code 2 show "$models" 2>err &&
	echo "perun: view ${q}tableof$q: say what to show: resources or models" >expect &&
	test_cmp expect err &&
	test_exit_code 2 show "$models" snapshots 2>err &&
	echo "perun: view ${q}tableof$q: unknown table ${q}snapshots$q (choose from resources, models)" >expect &&
	test_cmp expect err &&
	test_exit_code 2 show "$models" models resources 2>err &&
	echo "perun: view ${q}tableof$q: unexpected argument ${q}resources$q" >expect &&
	test_cmp expect err
'

test_expect_success 'bad option values are refused by the declared options' '
	test_exit_code 2 show "$models" --format html models 2>err &&
	test_grep "option $q--format$q takes one of simple|plain|csv" err &&
	test_exit_code 2 show "$models" models --filter-by model 2>err &&
	echo "perun: view ${q}tableof$q: option $q--filter-by$q needs two values" >expect &&
	test_cmp expect err
'

test_expect_shared '--output-file writes the table there, nothing to stdout' '
	models="$TESTDATA/postprocess_profiles/complexity-models.perf" timeprof="$TESTDATA/full_profiles/prof-1-time-2017-03-19-19-17-36.perf" &&
	show "$models" --output-file table.txt models -h uid -h model -h coeffs >out &&
	test_cmp /dev/null out &&
	test_cmp "$here/expected/models-pruned" table.txt
'

test_expect_shared '--output-file to a FIFO writes into it and leaves it a FIFO' '
	models="$TESTDATA/postprocess_profiles/complexity-models.perf" timeprof="$TESTDATA/full_profiles/prof-1-time-2017-03-19-19-17-36.perf" &&
	mkfifo pipe &&
	{ timeout 20 cat pipe >from-pipe & } &&
	show "$models" --output-file pipe models -h uid -h model -h coeffs &&
	wait &&
	test -p pipe &&
	test_cmp "$here/expected/models-pruned" from-pipe
'

test_expect_shared '--to-file names the file after the profile' '
	models="$TESTDATA/postprocess_profiles/complexity-models.perf" timeprof="$TESTDATA/full_profiles/prof-1-time-2017-03-19-19-17-36.perf" &&
	mkdir named && (cd named &&
	show "$timeprof" -tf resources >out &&
	test_cmp /dev/null out &&
	test_cmp "$here/expected/time-simple" "resources_of_time-[echo]-[world]")
'

test_expect_success '--to-stdout and --output-file exclude each other' '
	test_exit_code 2 show "$models" -ts -of x models 2>err &&
	echo "perun: view ${q}tableof$q: $q--to-stdout$q excludes $q--to-file$q and $q--output-file$q" >expect &&
	test_cmp expect err &&
	! test -e x
'

test_expect_success 'an unwritable output file is an error naming it' '
	test_must_fail show "$models" -of no/such/dir/t.txt models 2>err &&
	test_grep "no/such/dir" err
'

# 40,000 rows make a table of several megabytes, which goes to stdout in
# parts as it is made; into a file it goes whole.
awk 'BEGIN {
	printf "{\"resources\": {\"f#0\": {\"amount\": ["
	for (i = 0; i < 40000; i++) printf "%s%d.%d", i ? ", " : "", i * 7 % 1000, i % 10
	printf "], \"order\": ["
	for (i = 0; i < 40000; i++) printf "%s%d", i ? ", " : "", i
	printf "]}}, \"resource_type_map\": {\"f#0\": {\"uid\": \"f\", \"type\": \"time\"}},"
	printf " \"header\": {\"type\": \"time\", \"cmd\": \"c\", \"workload\": \"\"}}\n"
}' >big.perf

test_expect_success 'a big table is the same on stdout and in a file' '
	show big.perf resources >out 2>err &&
	test_cmp /dev/null err &&
	show big.perf -of table.txt resources &&
	test_cmp table.txt out &&
	test "$(wc -l <out)" = 40002 &&
	tail -n 1 out >last &&
	echo "   993.9    39999            0  time    f" >expect &&
	test_cmp expect last
'

test_expect_success 'a table that cannot be written is an error, big or small' '
	test -w /dev/full || { echo "# no /dev/full here"; return 0; }
	test_exit_code 3 show big.perf resources >/dev/full 2>err &&
	test_grep "cannot write the table" err &&
	test_exit_code 3 show "$models" models >/dev/full 2>err &&
	test_grep "cannot write the table" err
'

test_done
