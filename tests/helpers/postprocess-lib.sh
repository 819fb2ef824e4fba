# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the postprocessor tests; source it after tests/test-lib.sh in a
# test whose trash directory holds the project "proj".

# mkprofile <file> <resources> <resource_type_map>: a mixed profile with
# the given (JSON) resources.
mkprofile() {
	cat >"$1" <<-EOF
	{"header": {"type": "mixed", "cmd": "c", "workload": "", "units": {"mixed(time delta)": "ms"}},
	 "collector_info": {"name": "trace", "params": {}}, "postprocessors": [],
	 "resources": {$2}, "resource_type_map": {$3}, "models": []}
	EOF
}

# fails_cleanly <exit code> <perun arguments>: perun fails with the code,
# prints nothing on stdout (its stderr is left in ../err) and leaves the
# store of proj as it was.
fails_cleanly() {
	code=$1
	shift
	store_snapshot proj >before &&
	(cd proj && test_exit_code "$code" perun "$@" >../out 2>../err) &&
	store_snapshot proj >after &&
	test_cmp before after &&
	test_cmp /dev/null out
}

# postprocess_inputs: pp names the project's own input profiles (named as
# Python Perun's postprocess_profiles, tests/fixtures/gen-profiles.py),
# upp Python Perun's (../shared), which only comparisons with it read.
postprocess_inputs() {
	test_fixtures
	pp=$FIXTURES/postprocess
	upp=$TESTDATA/postprocess_profiles
}

# test_postprocess_cases <tests dir> <postprocessor>: one test per line of
# <tests dir>/cases ("name | profile | oracle params | options"): the models
# perun postprocessby makes equal <tests dir>/expected/<name>.perf (1e-9
# relative; models-cmp reports how many are bit for bit).  A profile that
# is not a file of postprocess_profiles is made by points-profile.sh from
# its line "<profile> <arguments>" in <tests dir>/points.
test_postprocess_cases() {
	test_expect_success "setup: the generated profiles of $2's cases" "
		if test -f \"$1/points\"; then
			grep -v \"^#\" \"$1/points\" | while read -r name args; do
				\"$TEST_SRCDIR/tests/helpers/points-profile.sh\" \$args >\$name.perf || exit 1
			done
		fi
	"
	grep -v "^#" "$1/cases" >cases.list
	while IFS="|" read -r name profile params options; do
		name=$(echo $name)
		profile=$(echo $profile)
		# Python Perun's profiles: a comparison where they are (../shared).
		expect=test_expect_success
		case $profile in
		*.perf) path=$TESTDATA/postprocess_profiles/$profile expect=test_expect_shared ;;
		*) path=../$profile.perf ;;
		esac
		$expect "$name: the models of upstream's code" "
			(cd proj &&
			 perun postprocessby -ot $name $path $2 $options >out 2>err &&
			 \"$TEST_BUILDDIR/tests/helpers/models-cmp\" \"$1/expected/$name.perf\" \
				.perun/jobs/$name.perf >cmp &&
			 cat cmp >&2)
		"
	done <cases.list
}

# one_point_model <postprocessor and options> <jq array of fields> <JSON>:
# a profile whose only uid "f" has the one point (1, 3) gets a model, with
# no warning: its fields as jq prints them are <JSON>, and r^2 is NaN.
one_point_model() {
	mkprofile one.perf "\"f#0\": {\"structure-unit-size\": [1], \"amount\": [3]}" \
		"\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}" &&
	(cd proj && perun postprocessby -ot one ../one.perf $1 >out 2>err) &&
	test_cmp /dev/null proj/err &&
	jq -c ".models[] | $2" proj/.perun/jobs/one.perf >got &&
	echo "$3" >expect &&
	test_cmp expect got &&
	tr -d " \n" <proj/.perun/jobs/one.perf | grep -F "\"r_square\":NaN"
}
