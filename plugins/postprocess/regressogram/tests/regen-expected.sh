#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/<name>.perf for every line of "cases" with the oracle
# tests/helpers/nonparam-oracle.py (Python Perun's own regressogram code,
# from a checkout of upstream Perun, with numpy, scipy and scikit-learn):
#   regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
set -eu
upstream=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
testdata=${2:-$(cd "$top/../shared/testdata/perun-profiles" && pwd)}
points=$(mktemp)
trap 'rm -f "$points"' EXIT
# Keep these arguments equal to those of t6200-postprocessby-regressogram.sh.
"$top/tests/helpers/points-profile.sh" 7 big::int/20000/int big::float/12000/float \
	small::few/5/int/3 wide::int/9000/int/100000 one::point/1/int >"$points"
mkdir -p "$here/expected"
grep -v '^#' "$here/cases" | while IFS='|' read -r name profile params options; do
	name=$(echo $name)
	profile=$(echo $profile)
	case $profile in
	points) path=$points ;;
	*) path=$testdata/postprocess_profiles/$profile ;;
	esac
	/usr/bin/python3 "$top/tests/helpers/nonparam-oracle.py" "$upstream" "$path" \
		regressogram "$params" >"$here/expected/$name.perf"
done
