# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers of the check plugins' shell tests (sourced after test-lib.sh).

# check_setup <method> [why it may be missing]: skips the file without the
# test profiles or without the plugin; sets d to the degradation profiles
# and makes a git project "proj" whose only strategy is <method>, whose
# verdicts are Perun's as they are: the core's weighing against the noise
# (tests/t2007) is off.
check_setup() {
	test -d "$TESTDATA" || test_skip_all "no test profiles in $TESTDATA"
	test -f "$TEST_BUILDDIR/stage/plugins/check/$1.so" ||
		test_skip_all "$1 is not built${2:+ ($2)}"
	d="$TESTDATA/degradation_profiles"
	test_expect_success "setup: a project checking with $1" "
		git init -q proj && (cd proj && git commit -q --allow-empty -m root &&
		perun init >/dev/null &&
		perun config --local set degradation.apply first &&
		perun config --local set degradation.noise.enabled false &&
		perun config --local set degradation.strategies '[{method: $1}]')
	"
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
# whatever their configurations: --force).
check_expect_table() {
	while read -r kind t dir result type rate; do
		if [ "$dir" = + ]; then base=${kind}1 targ=$kind$t; else base=$kind$t targ=${kind}1; fi
		[ "$type" = - ] && type=
		test_expect_success "$1: $base -> $targ: $result ${type:-(no type)} $rate" "
			(cd proj && perun check --force profiles \"\$d/$base.perf\" \"\$d/$targ.perf\" \
				--format json >out.json &&
			 jq -e --arg m '$1' --arg r '$result' --arg t '$type' --argjson rate '$rate' '
				(.verdicts | length) == 1 and (.verdicts[0] |
				.method == \$m and .result == \$r and .type == \$t and
				((.rate | round) - \$rate | fabs) <= 1e-12 * ((\$rate | fabs) + 1))' out.json)
		"
	done <"$2"
}
