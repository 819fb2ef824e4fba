#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make check in a build directory (default ./build), then one plain summary
# line over every TAP test case for CI and, on failure, what failed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "${1:-$top/build}"
status=0
make -j"$(nproc)" check || status=$?
results() { cat $(find . -name '*.trs') /dev/null | grep -c "^:test-result: \($1\)" || true; }
echo "tests: $(results PASS) passed, $(results 'FAIL\|ERROR\|XPASS') failed, $(results SKIP) skipped"
if [ $status -ne 0 ]; then
	find . -name '*.log' -path '*t[0-9]*' -newer Makefile -exec grep -l '^not ok\|^ERROR' {} + |
		while read -r log; do echo "== $log"; grep -v '^ok ' "$log" | head -40; done
fi
exit $status
