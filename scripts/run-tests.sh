#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite: install what is missing, build, make check, and
# make distcheck (a tarball that builds and passes the tests on its own).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
# The C sources follow .clang-format (Debian 12's clang-format 14).
"$top/scripts/check-format.sh"
"$top/scripts/build.sh"
cd "$top/build"
status=0
make -j"$(nproc)" check || status=$?
# One plain summary line over every TAP test case, for CI.
passed=$(cat $(find . -name '*.trs') /dev/null | grep -c '^:test-result: PASS' || true)
failed=$(cat $(find . -name '*.trs') /dev/null | grep -c '^:test-result: \(FAIL\|ERROR\|XPASS\)' || true)
skipped=$(cat $(find . -name '*.trs') /dev/null | grep -c '^:test-result: SKIP' || true)
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ $status -ne 0 ]; then
	# Show what failed, then fail.
	find . -name '*.log' -path '*t[0-9]*' -newer Makefile -exec grep -l '^not ok\|^ERROR' {} + |
		while read -r log; do echo "== $log"; grep -v '^ok ' "$log" | head -40; done
	exit $status
fi
[ "${PERUN_SKIP_DISTCHECK:-0}" = 1 ] || make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror
