#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/<name>.json for every line of "cases" with the oracle
# gen-expected.py (Python Perun's kernel_regression code from a checkout of
# upstream Perun, on Debian's numpy, scipy, statsmodels and scikit-learn):
#     regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
set -eu
upstream=$1
testdata=${2:-$(cd "$(dirname "$0")/../../../../../shared/testdata/perun-profiles" && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/expected"
grep -v '^#' "$here/cases" | while read -r name profile bwtol tol mode options; do
	# shellcheck disable=SC2086 # the options are words
	/usr/bin/python3 "$here/gen-expected.py" "$upstream" \
		"$testdata/postprocess_profiles/$profile" "$mode" $options >"$here/expected/$name.json"
done
