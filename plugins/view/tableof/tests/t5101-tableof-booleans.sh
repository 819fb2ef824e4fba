#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Booleans in tableof, in every text format: a column of only booleans
# shows True and False, a column they share with integers too, and one
# they share with floats shows float(True), 1 (tabulate's rules).  The
# expected tables are the oracle's (regen-expected.sh) for the self-made
# booleans.perf.
. "$srcdir/tests/test-lib.sh"

here="$TEST_SRCDIR/plugins/view/tableof/tests"

for format in $(cat "$here/booleans.formats"); do
	for table in resources models; do
		test_expect_success "$table in $format" "
			perun show '$here/booleans.perf' tableof --format $format $table >actual 2>err &&
			test_cmp '$here/expected/booleans-$table-$format' actual &&
			test_cmp /dev/null err
		"
	done
done

test_done
