#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun check on upstream's pcs_with_degradations fixture (tests/conftest.py):
#   * root [linear_base]
#   |\
#   | * second commit [linear_base_degradated]   (branch develop)
#   * | parallel commit
#   |/
#   * merge commit [quad_base]
# and the expectations of test_degradations.py (test_degradation_in_minor,
# test_degradation_in_history) and test_cli.py (test_check_profiles,
# test_model_strategies, test_check_all).  They run on the project's own
# profiles (tests/fixtures: the same shape of changes planted), then on
# upstream's own where ../shared is.
. "$srcdir/tests/test-lib.sh"

add_at() {
	jq --arg h "$1" '.origin = $h' "$2" >".perun/jobs/$(basename "$2")" &&
	perun add -m "$1" ".perun/jobs/$(basename "$2")" >/dev/null
}

# upstream_fixture <label> <root> <second> <merge> <strategies baseline>
# <strategies target>: the fixture with these profiles, and its checks.
upstream_fixture() {
	root=$2 second=$3 merge=$4 sbase=$5 starget=$6
	test_expect_success "$1: setup: the fixture" '
		rm -rf pcs && git init -q pcs && (cd pcs && perun init >/dev/null &&
		 touch file1 && git add file1 && git commit -q -m root &&
		 git checkout -q -b develop && touch file2 && git add file2 &&
		 git commit -q -m "second commit" && git checkout -q master &&
		 touch file3 && git add file3 && git commit -q -m "parallel commit" &&
		 git merge -q --no-ff --no-edit develop &&
		 add_at $(git rev-list --max-parents=0 HEAD) "$root" &&
		 add_at $(git rev-parse develop) "$second" &&
		 add_at $(git rev-parse HEAD) "$merge")
	'

	test_expect_success "$1: check head of the merge finds an Optimization (and compares both parents)" '
		(cd pcs && perun check head >out 2>err &&
		 test_grep "Optimization" out && test ! -s err &&
		 perun check head --format json >out.json &&
		 jq -e "(.pairs | length) == 1 and .pairs[0].baseline == \"$(git rev-parse develop | cut -c1-7):$(basename "$second")\"" out.json)
	'

	test_expect_success "$1: check all finds a Degradation, walking both branches" '
		(cd pcs && perun check all >out &&
		 test_grep "Degradation" out &&
		 test $(grep -c " [0-9a-f]\{6\}: .* | [0-9]* changes\{0,1\}" out) -eq 4 &&
		 perun check all --format json >all.json &&
		 jq -e "[.changes[].result] | index(\"Degradation\") != null" all.json)
	'

	test_expect_success "$1: check profiles 0@i against each pending profile" '
		(cd pcs && cp "$root" "$second" "$merge" .perun/jobs/ &&
		 for tag in 0@p 1@p 2@p; do
			perun check profiles 0@i $tag >/dev/null || return 1
		 done)
	'

	test_expect_success "$1: model strategies of loc and int on baseline/target_strategies" '
		(cd pcs && rm -f .perun/jobs/*.perf && perun config --local set degradation.apply first &&
		 cp "$sbase" "$starget" .perun/jobs/ &&
		 for m in loc int; do
			perun config --local set degradation.strategies "[{method: $m}]" || return 1
			for s in best-param all-nonparam best-both; do
				perun check --models-type $s profiles "$sbase" "$starget" --format json >s.json || return 1
				jq -e "(.verdicts | length) > 0 and ([.verdicts[].method] | unique) == [\"$m\"]" \
					s.json >/dev/null || return 1
			done
		 done)
	'

	test_expect_success "$1: status after the checks shows the changes of HEAD" '
		(cd pcs && perun status >out && test_grep "changes | " out)
	'
}

test_fixtures
f="$FIXTURES/check"
upstream_fixture "own profiles" "$f/single-before.perf" "$f/single-baseline.perf" \
	"$f/single-target.perf" "$f/models-baseline.perf" "$f/models-target.perf"
if test_have_shared; then
	d="$TESTDATA/degradation_profiles"
	upstream_fixture "upstream's profiles" "$d/linear_base.perf" "$d/linear_base_degradated.perf" \
		"$d/quad_base.perf" "$d/baseline_strategies.perf" "$d/target_strategies.perf"
else
	test_skip_shared "the fixture on upstream's own profiles"
fi

test_done
