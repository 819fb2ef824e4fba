#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The test suite stands alone: no test script or test program skips whole
# for want of Python Perun's profiles (../shared or PERUN_TESTDATA).  Those
# only add comparisons, case by case (test_expect_shared, tap_skip), and
# scripts/run-tests.sh runs make distcheck without them.  The checker runs
# on the source tree and on made-up trees, each with one violation.
. "$srcdir/tests/test-lib.sh"

# standalone_check <root>: one line per script or program that gives up
# wholesale when the shared data is missing; exit 1 when there is any.
standalone_check() {
	find "$1/tests" "$1/plugins" \( -name 't[0-9]*.sh' -o -name '*-lib.sh' -o -name '*.c' \) \
		-path '*tests*' -type f | sort | while read -r f; do
		case $f in
		*/t0008-standalone-tests.sh) ;;
		*.sh) grep -Hn 'test_skip_all.*\(TESTDATA\|shared test\|shared data\|\.\./shared\)\|TESTDATA.*test_skip_all' "$f" ;;
		*.c) grep -Hn '1\.\.0 # SKIP' "$f" ;;
		esac
	done | sed "s|^$1/||" >"$TRASH_DIRECTORY/violations"
	cat "$TRASH_DIRECTORY/violations"
	! test -s "$TRASH_DIRECTORY/violations"
}

test_expect_success 'the source tree: no test gives up without the shared data' '
	standalone_check "$TEST_SRCDIR"
'

test_expect_success 'a script that skips whole without TESTDATA is named' '
	mkdir -p one/tests one/plugins/view/x/tests &&
	printf "%s\n" ". test-lib.sh" "test -d \"\$TESTDATA\" || test_skip_all \"no profiles\"" \
		>one/plugins/view/x/tests/t9999-x.sh &&
	test_must_fail standalone_check one >out &&
	test_grep "^plugins/view/x/tests/t9999-x.sh:2:" out
'

test_expect_success 'a test program that skips its whole plan is named' '
	mkdir -p two/tests two/plugins/check/y/tests &&
	printf "%s\n" "int main(void)" "{" "	printf(\"1..0 # SKIP no shared profiles\\\\n\");" "}" \
		>two/plugins/check/y/tests/test-y.c &&
	test_must_fail standalone_check two >out &&
	test_grep "^plugins/check/y/tests/test-y.c:3:" out
'

test_expect_success 'a case skipped alone is allowed' '
	mkdir -p three/tests three/plugins/view/z/tests &&
	printf "%s\n" ". test-lib.sh" "test_expect_shared \"a comparison\" \"cmp a b\"" \
		"command -v jq || test_skip_all \"jq is not installed\"" \
		>three/plugins/view/z/tests/t9998-z.sh &&
	standalone_check three
'

test_done
