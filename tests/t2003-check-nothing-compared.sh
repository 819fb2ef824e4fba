#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A check that compared nothing says so, and a gate (--fail-on) on it
# fails with its own exit status (4) unless --allow-missing-baseline:
# a version without profiles, one whose parents have none, a history
# with a single profile.  Self-made profiles; no shared test data.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is not installed"

# add <amount>: register a profile at HEAD.
add() {
	test_time_profile "$1" "$(git rev-parse HEAD)" >.perun/jobs/p-$1.perf &&
	perun add .perun/jobs/p-$1.perf >/dev/null
}

test_expect_success 'setup: v1 and v3 profiled, v2 and v4 not' '
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 && add 1.0 &&
	git commit -q --allow-empty -m v2 &&
	git commit -q --allow-empty -m v3 && add 3.0 &&
	git commit -q --allow-empty -m v4)
'

test_expect_success 'no baseline: said plainly; the gate fails with 4' '
	(cd proj &&
	 test_exit_code 4 perun check head --fail-on maybe HEAD~1 >out 2>err &&
	 short=$(git rev-parse --short=7 HEAD~1) &&
	 test_grep "^no baseline profiles for $short: nothing compared$" out &&
	 echo "perun: no baseline profiles for $short: nothing compared (--allow-missing-baseline lets the gate pass)" >expect &&
	 test_cmp expect err)
'

test_expect_success 'no target profiles: said plainly; the gate fails with 4' '
	(cd proj &&
	 test_exit_code 4 perun check head --fail-on degradation >out 2>err &&
	 test_grep "^no profiles at $(git rev-parse --short=7 HEAD): nothing compared$" out)
'

test_expect_success 'without a gate it is said and exits 0' '
	(cd proj && perun check head HEAD~1 >out 2>err &&
	 test_grep "nothing compared" out && test ! -s err)
'

test_expect_success '--allow-missing-baseline lets the gate pass' '
	(cd proj &&
	 perun check head --fail-on maybe --allow-missing-baseline HEAD~1 >out &&
	 perun check --allow-missing-baseline head --fail-on maybe HEAD~1 >out)
'

test_expect_success 'json: the report with no pairs, the reason on stderr' '
	(cd proj &&
	 test_exit_code 4 perun check head --fail-on maybe --format json HEAD~1 >out.json 2>err &&
	 jq -e ".pairs == []" out.json &&
	 test_grep "nothing compared" err &&
	 perun check head --format json HEAD~1 >out.json 2>err &&
	 test_grep "^perun: warning: no baseline profiles for .*: nothing compared$" err)
'

test_expect_success 'a pair compared is no longer "nothing compared"' '
	(cd proj && git checkout -q HEAD~2 && add 2.0 &&
	 perun check head --fail-on severe >out &&
	 ! test_grep "nothing compared" out)
'

test_expect_success 'check all over a history with one profile: the gate fails with 4' '
	git init -q one && (cd one && perun init >/dev/null &&
	 git commit -q --allow-empty -m v1 && add 1.0 &&
	 git commit -q --allow-empty -m v2 &&
	 test_exit_code 4 perun check all --fail-on maybe >out 2>err &&
	 test_grep "nothing compared" out &&
	 perun check all --fail-on maybe --allow-missing-baseline >/dev/null)
'

test_done
