#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# preg (polynomial regression) on Python Perun's degradation profiles:
# every (result, change type, rounded rate) that upstream's
# tests/test_detection_methods.py expects (perun/testing/mock_results.py),
# for baseline <kind>1 against targets <kind>2..4 and back.
. "$srcdir/tests/test-lib.sh"

. "$srcdir/plugins/lib/check/check-test-lib.sh"
check_setup preg "needs GSL"
check_planted preg

# _PREG_EXPECTED_RESULTS in the table form of check_expect_table
# (check-test-lib.sh).

check_expect_table preg "$srcdir/plugins/check/preg/tests/expected"

test_expect_shared 'the verdict carries the models and their confidence' '
	(cd proj && perun check profiles "$d/lin1.perf" "$d/lin2.perf" --format json >out.json &&
	 jq -e ".verdicts[0] | .from == \"linear\" and .to == \"linear\" and
		.confidence_type == \"r_square\" and .confidence_rate > 0.9" out.json)
'

test_expect_success 'profiles without models give no verdict' '
	(cd proj && perun check profiles "$FIXTURES/time/time-zero.perf" "$FIXTURES/time/time-zero.perf" --format json >out.json &&
	 jq -e "(.verdicts | length) == 0" out.json)
'

test_done
