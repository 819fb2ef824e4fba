#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# lreg (linear regression) on Python Perun's degradation profiles:
# every (result, change type, rounded rate) that upstream's
# tests/test_detection_methods.py expects (perun/testing/mock_results.py),
# for baseline <kind>1 against targets <kind>2..4 and back.
. "$srcdir/tests/test-lib.sh"

. "$srcdir/plugins/lib/check/check-test-lib.sh"
check_setup lreg "needs GSL"
check_planted lreg

# _LREG_EXPECTED_RESULTS: upstream defines them as preg's, except that
# these changes are linear rather than constant.
sed -e "/^const 3 /s/ constant / linear /" -e "/^pow 2 /s/ constant / linear /" \
	-e "/^exp 2 /s/ constant / linear /" "$srcdir/plugins/check/preg/tests/expected" >expected

check_expect_table lreg expected

test_done
