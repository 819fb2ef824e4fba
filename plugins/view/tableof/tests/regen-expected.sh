#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/<name> for every line of "cases" with the oracle
# gen-expected.py (needs Debian's python3-tabulate and a checkout of
# upstream Perun):  regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
set -eu
upstream=$1
testdata=${2:-$(cd "$(dirname "$0")/../../../../../shared/testdata/perun-profiles" && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/expected"
grep -v '^#' "$here/cases" | while read -r name profile words; do
	# shellcheck disable=SC2086 # the words are meant to split
	/usr/bin/python3 "$here/gen-expected.py" "$upstream" "$testdata/$profile" $words \
		>"$here/expected/$name"
done
# The self-made profile of t5101, in every text format.
for format in $(cat "$here/booleans.formats"); do
	for table in resources models; do
		/usr/bin/python3 "$here/gen-expected.py" "$upstream" "$here/booleans.perf" \
			--format "$format" $table >"$here/expected/booleans-$table-$format"
	done
done
