#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# preg (polynomial regression) on Python Perun's degradation profiles:
# every (result, change type, rounded rate) that upstream's
# tests/test_detection_methods.py expects (perun/testing/mock_results.py),
# for baseline <kind>1 against targets <kind>2..4 and back.
. "$srcdir/tests/test-lib.sh"

test -d "$TESTDATA" || test_skip_all "no test profiles in $TESTDATA"
test -f "$TEST_BUILDDIR/stage/plugins/check/preg.so" || test_skip_all "preg is not built (needs GSL)"
d="$TESTDATA/degradation_profiles"

. "$srcdir/plugins/check/common/check-test-lib.sh"
check_setup preg

# The table of check_expect_table (check-test-lib.sh).
cat >expected <<'EOF_'
const 2 + Degradation constant 999
const 2 - Optimization constant -91
const 3 + Degradation constant 5993
const 3 - Optimization constant -98
const 4 + Degradation linear 966206052007956736
const 4 - Optimization linear -98
lin 2 + Degradation constant 55
lin 2 - MaybeOptimization constant -24
lin 3 + MaybeDegradation linear 20
lin 3 - MaybeOptimization linear -17
lin 4 + MaybeDegradation linear 7
lin 4 - Optimization linear -33
log 2 + NoChange - 24
log 2 - NoChange - -19
log 3 + MaybeDegradation linear 20
log 3 - MaybeOptimization linear -17
log 4 + Degradation linear 36
log 4 - MaybeOptimization linear 57
quad 2 + Degradation constant 27
quad 2 - MaybeOptimization constant -21
quad 3 + MaybeDegradation linear 19
quad 3 - MaybeOptimization linear -16
quad 4 + Degradation linear 43
quad 4 - Optimization linear -28
pow 2 + Degradation constant 5219
pow 2 - Optimization constant -98
pow 3 + NoChange - -1
pow 3 - NoChange - 1
pow 4 + Optimization linear -99
pow 4 - Degradation linear 14016
exp 2 + Degradation constant 38
exp 2 - MaybeOptimization constant -24
exp 3 + MaybeDegradation linear 21
exp 3 - MaybeOptimization linear -18
exp 4 + Degradation linear 44
exp 4 - Optimization linear -29
EOF_

check_expect_table preg expected

test_expect_success 'the verdict carries the models and their confidence' '
	(cd proj && perun check profiles "$d/lin1.perf" "$d/lin2.perf" --format json >out.json &&
	 jq -e ".verdicts[0] | .from == \"linear\" and .to == \"linear\" and
		.confidence_type == \"r_square\" and .confidence_rate > 0.9" out.json)
'

test_expect_success 'profiles without models give no verdict' '
	(cd proj && perun check profiles "$d/zero.perf" "$d/zero.perf" --format json >out.json &&
	 jq -e "(.verdicts | length) == 0" out.json)
'

test_done
