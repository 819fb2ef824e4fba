#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/<name>.json for every line of "cases" and
# "cases-ordered" (randomised methods on a fixed order) with the oracle
# gen-expected.py (Python Perun's own regression code, from a checkout of
# upstream Perun):  regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
set -eu
upstream=$1
testdata=${2:-$(cd "$(dirname "$0")/../../../../../shared/testdata/perun-profiles" && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/expected"
for cases in cases cases-ordered; do
	order=
	[ "$cases" = cases-ordered ] && order=--keep-order
	grep -v '^#' "$here/$cases" | while read -r name profile method steps models; do
		/usr/bin/python3 "$here/gen-expected.py" $order "$upstream" \
			"$testdata/postprocess_profiles/$profile" "$method" "$steps" \
			${models:+"$models"} >"$here/expected/$name.json"
	done
done
