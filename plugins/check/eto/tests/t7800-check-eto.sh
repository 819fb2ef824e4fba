#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun check profiles with the eto method: where ../shared is, the
# verdicts on Python Perun's tracer profiles equal upstream's (expected/,
# from upstream's own code; test-eto checks the project's own cases so);
# on the fixtures' trace pair (sort() 3x slower) the planted change,
# degradation.cutoff and degradation.location_filter come from the
# configuration, --fail-on gates on them, and bad input fails cleanly
# without touching the store.
. "$srcdir/tests/test-lib.sh"

here="$TEST_SRCDIR/plugins/check/eto/tests"
deg="$TESTDATA/degradation_profiles"
command -v jq >/dev/null || test_skip_all "jq is not installed"
test_fixtures
base="$FIXTURES/trace/trace-baseline.perf"
targ="$FIXTURES/trace/trace-target.perf"

# The reported verdicts (no NoChange) of expected/<name>.tsv.
expected_changes() {
	awk -F '\t' '$1 != "NoChange" { print $1 "\t" $2 }' "$here/expected/$1.tsv"
}
check_json() {
	perun check --format json profiles "$@" >out.json &&
	jq -r '.changes[] | select(.method == "eto") | [.result, .location] | @tsv' out.json
}

# The project is the trash directory itself: every test body runs there.
test_expect_success 'set up a project checking with eto' '
	git init -q && git commit -q --allow-empty -m init &&
	perun init >/dev/null && cat >>.perun/local.yml <<-EOC
	degradation:
	  apply: all
	  strategies:
	    - method: eto
	EOC
'

for name in tracer tracer-reverse tracer-self; do
	case $name in
	tracer) pair="tracer_baseline.perf tracer_target.perf" ;;
	tracer-reverse) pair="tracer_target.perf tracer_baseline.perf" ;;
	tracer-self) pair="tracer_baseline.perf tracer_baseline.perf" ;;
	esac
	set -- $pair
	# Upstream calls a profile against itself a Total Optimization (of
	# 0 ms): a Total record of under 5% change is no change here.
	test_expect_shared "check profiles: $name gives upstream's verdicts" "
		check_json \"$deg/$1\" \"$deg/$2\" >actual &&
		if test $name = tracer-self; then test ! -s actual; else
		expected_changes $name >expect && test_cmp expect actual; fi
	"
done

# jq 1.6 rounds numbers on output: the exact figures are read from the text.
test_expect_shared 'the verdicts carry rates, shares and effect sizes' '
	check_json "$deg/tracer_baseline.perf" "$deg/tracer_target.perf" >/dev/null &&
	jq -r ".changes[] | select(.location == \"_Z9PartitionPiii\") |
		[.from, .to, .confidence_type] | @tsv" out.json >actual &&
	printf "6.404\t7.569\tIQR_multiple\n" >expect &&
	test_cmp expect actual &&
	test_grep "\"rate\": 1.1650700000000001," out.json &&
	test_grep "\"rate_relative\": 7.21890513323780" out.json &&
	jq -e ".changes[] | select(.location == \"run_sorts\") |
		.effect_size > 0.16 and .effect_size < 0.17 and .noise == null" out.json
'

test_expect_shared 'the text report names the functions' '
	perun check profiles "$deg/tracer_baseline.perf" "$deg/tracer_target.perf" >out &&
	test_grep "at _Z9PartitionPiii:" out &&
	test_grep "Severe Degradation from: 6.404 -> to: 7.569" out &&
	test_grep "Total Degradation from: 13.883 -> to: 16.139" out
'

test_expect_success 'the planted slowdown: sort() and the binary degrade, nothing else' '
	check_json "$base" "$targ" >actual &&
	printf "SevereDegradation\tsort\nTotalDegradation\tsorts\n" >expect &&
	test_cmp expect actual &&
	perun check profiles "$base" "$targ" >out &&
	test_grep "^at sort:$" out &&
	test_grep "Severe Degradation from: 0.057 -> to: 0.171" out &&
	test_grep "Total Degradation from: 0.171 -> to: 0.285" out
'

test_expect_success '--fail-on degradation exits 1 on the degrading pair, 0 on itself' '
	test_exit_code 1 perun check --fail-on degradation profiles \
		"$base" "$targ" >/dev/null &&
	perun check --fail-on degradation profiles "$base" "$base" >/dev/null
'

test_expect_success 'degradation.cutoff drops the smaller share, never the Total' '
	perun config --local set degradation.cutoff 40 >/dev/null &&
	check_json "$base" "$targ" >actual &&
	printf "TotalDegradation\tsorts\n" >expect &&
	test_cmp expect actual &&
	perun config --local set degradation.cutoff 0.0 >/dev/null
'

test_expect_success 'degradation.location_filter that matches nothing leaves nothing' '
	perun config --local set degradation.location_filter "^lib" >/dev/null &&
	check_json "$base" "$targ" >actual &&
	test_cmp /dev/null actual &&
	perun config --local set degradation.location_filter "sorts$" >/dev/null &&
	check_json "$base" "$targ" >actual &&
	printf "SevereDegradation\tsort\nTotalDegradation\tsorts\n" >expect &&
	test_cmp expect actual &&
	perun config --local set degradation.location_filter "*" >/dev/null
'

test_expect_success 'renamed libraries are matched across versions' '
	check_json "$here/cases/renamed-baseline.perf" "$here/cases/renamed-target.perf" >actual &&
	test_grep "TotalDegradation	libsort-3\\.$" actual &&
	test_grep "NotInBaseline	new_helper" actual
'

test_expect_success 'a bad location filter is an input error and changes nothing' '
	perun config --local set degradation.location_filter "run(" >/dev/null &&
	store_snapshot >before &&
	test_exit_code 2 perun check profiles "$base" "$targ" >out 2>err &&
	test_grep "check method .eto.: option .--location-filter.: bad regex .run(." err &&
	store_snapshot >after &&
	test_cmp before after &&
	perun config --local set degradation.location_filter "*" >/dev/null
'

test_expect_success 'a profile without exclusive times is refused by name' '
	store_snapshot >before &&
	test_exit_code 2 perun check --force profiles \
		"$FIXTURES/check/single-baseline.perf" "$targ" >out 2>err &&
	test_grep "baseline profile has no .exclusive. in its resources" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_done
