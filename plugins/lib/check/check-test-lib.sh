# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers of the check plugins' shell tests (sourced after test-lib.sh).

# check_setup <method> [why it may be missing]: skips the file without the
# plugin; sets own to the project's own check profiles (tests/fixtures), d
# to Python Perun's degradation profiles (cases on them are shared-only:
# test_expect_shared) and makes a git project "proj" whose only strategy
# is <method>, whose verdicts are Perun's as they are: the core's weighing
# against the noise (tests/t2007) is off.
check_setup() {
	test -f "$TEST_BUILDDIR/stage/plugins/check/$1.so" ||
		test_skip_all "$1 is not built${2:+ ($2)}"
	test_fixtures
	own="$FIXTURES/check"
	d="$TESTDATA/degradation_profiles"
	test_expect_success "setup: a project checking with $1" "
		git init -q proj && (cd proj && git commit -q --allow-empty -m root &&
		perun init >/dev/null &&
		perun config --local set degradation.apply first &&
		perun config --local set degradation.noise.enabled false &&
		perun config --local set degradation.strategies '[{method: $1}]')
	"
}

# check_planted <method> [<models type>]: on the project's own profiles
# grow() turns from linear to quadratic, keep() stays: <method> reports a
# Degradation at grow() only, back an Optimization, nothing on the same
# profile twice.
check_planted() {
	planted_method=$1 planted_models=${2:+--models-type $2}
	test_expect_success "$1: the planted change of grow() is found${2:+ ($2)}, keep() is left" '
		(cd proj && for dir in Degradation:models-baseline:models-target \
				Optimization:models-target:models-baseline; do
			result=${dir%%:*} pair=${dir#*:} &&
			perun check $planted_models profiles "$own/${pair%:*}.perf" "$own/${pair#*:}.perf" \
				--format json >planted.json &&
			jq -e --arg m "$planted_method" --arg r "$result" "(.changes | length) > 0 and
				all(.changes[]; .location == \"grow\" and .result == \$r and .method == \$m)" \
				planted.json || return 1
		 done &&
		 perun check $planted_models profiles "$own/models-target.perf" "$own/models-target.perf" \
			--format json >same.json &&
		 jq -e "(.verdicts | length) > 0 and (.changes | length) == 0" same.json)
	'
}

# check_changes: the reported changes of a JSON report on stdin, one
# "location|result|from|to|rate" a line, sorted.
check_changes() {
	jq -r '.changes[] | [.location, .result, .from, .to, .rate] | join("|")' | sort
}

# check_expect_table <method> <table>: each line of the table is
#   <kind> <n> <+|-> <result> <type|-> <rounded rate>
# and expects the single verdict of <method> on <kind>1 -> <kind><n> (+) or
# <kind><n> -> <kind>1 (-) of degradation_profiles to be exactly that, as
# upstream's tests/test_detection_methods.py does (which compares them
# whatever their configurations: --force).  Shared-only cases.
check_expect_table() {
	while read -r kind t dir result type rate; do
		if [ "$dir" = + ]; then base=${kind}1 targ=$kind$t; else base=$kind$t targ=${kind}1; fi
		[ "$type" = - ] && type=
		test_expect_shared "$1: $base -> $targ: $result ${type:-(no type)} $rate" "
			(cd proj && perun check --force profiles \"\$d/$base.perf\" \"\$d/$targ.perf\" \
				--format json >out.json &&
			 jq -e --arg m '$1' --arg r '$result' --arg t '$type' --argjson rate '$rate' '
				(.verdicts | length) == 1 and (.verdicts[0] |
				.method == \$m and .result == \$r and .type == \$t and
				((.rate | round) - \$rate | fabs) <= 1e-12 * ((\$rate | fabs) + 1))' out.json)
		"
	done <"$2"
}
